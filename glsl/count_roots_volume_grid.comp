// count_roots, for a volume on the node grid (DIMENSIONS 3): the sibling of
// count_roots.comp (local_merge_volume_grid.comp says for which volumes),
// a file of its own because a node line holds NODE_H x NODE_D pixel lines,
// whose counts take two packed words instead of one.
// One work group per node line (y, z) numbers its roots: a root's first
// voxel lies in one of the NODE_H x NODE_D pixel lines of the node line
// (slot (dz, dy)), and within a pixel line roots order like their nodes.
// Each root's rank among the roots of its pixel line replaces its key
// (kRankFlag | rank); lineCounts gets the count of every pixel line, line z *
// height + y, which scan_lines.comp turns into line offsets; nodes whose
// parent lies in another patch are pointed at their root on the way, as in
// 2-D.
layout(local_size_x = LINE_THREADS) in;  // countRootsThreads (compute_constants.hpp)

layout(binding = NODE_INFO_IMAGE, r8ui) readonly uniform uimage3D nodeInfo;
layout(binding = LINE_COUNTS_BUFFER, std430) writeonly buffer LineCounts { uint lineCounts[]; };

// Pixel lines per node line, their counts packed two to a word (16 bits
// each: a line holds at most 32768 roots).
const int kSlots = NODE_H * NODE_D;
shared uvec2 partial[LINE_THREADS];

uint countOf(uvec2 counts, int slot) { return (counts[slot / 2] >> (16u * uint(slot % 2))) & 0xFFFFu; }

// The inclusive sum of `own` over the threads up to this one (Hillis &
// Steele); every thread of the work group calls it.
uvec2 scanGroup(uvec2 own) {
    const int t = int(gl_LocalInvocationID.x);
    partial[t] = own;
    barrier();
    for (int step = 1; step < LINE_THREADS; step <<= 1) {
        uvec2 add = t >= step ? partial[t - step] : uvec2(0u);
        barrier();
        partial[t] += add;
        barrier();
    }
    return partial[t];
}

ivec3 patchOf(ivec3 n) { return n / ivec3(PATCH_W, PATCH_H, PATCH_D); }

void main() {
    const ivec2 line = ivec2(gl_WorkGroupID.xy);  // the node line's y and z
    const int t = int(gl_LocalInvocationID.x);
    const int run = (gridSize.x + LINE_THREADS - 1) / LINE_THREADS;  // <= 32: sides are at most 32768
    const int first = t * run;
    const int end = min(first + run, gridSize.x);

    // Which nodes of the run are roots, and in which pixel line.
    uint roots[kSlots];
    for (int s = 0; s < kSlots; ++s) roots[s] = 0u;
    for (int x = first; x < end; ++x) {
        ivec3 n = ivec3(x, line);
        uint mask = imageLoad(nodeInfo, n).r & kMaskBits;
        if (mask == 0u) continue;
        ivec3 p = firstPixel(n, mask);
        uint parent = loadParent(n);
        if (parent == keyOf(p)) {
            roots[(p.z - line.y * NODE_D) * NODE_H + (p.y - line.x * NODE_H)] |= 1u << uint(x - first);
        } else if (patchOf(nodeOfKey(parent)) != patchOf(n)) {
            uint root = rootOf(parent);
            if (root != parent) storeParent(n, root);
        }
    }
    uvec2 own = uvec2(0u);
    for (int s = 0; s < kSlots; ++s) own[s / 2] |= uint(bitCount(roots[s])) << (16u * uint(s % 2));
    uvec2 before = scanGroup(own) - own;

    for (int s = 0; s < kSlots; ++s) {
        uint rank = countOf(before, s);
        for (uint bits = roots[s]; bits != 0u; bits &= bits - 1u) {
            storeParent(ivec3(first + findLSB(bits), line), kRankFlag | rank);
            ++rank;
        }
    }
    uvec2 total = partial[LINE_THREADS - 1];
    if (t < kSlots) {
        ivec2 pixelLine = line * ivec2(NODE_H, NODE_D) + ivec2(t % NODE_H, t / NODE_H);
        if (pixelLine.x < imageSize.y && pixelLine.y < imageSize.z)
            lineCounts[pixelLine.y * imageSize.y + pixelLine.x] = countOf(total, t);
    }
}

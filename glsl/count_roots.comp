// count_roots: numbers the roots of one node line. A root is a foreground
// node whose parents texel is its own key; its first pixel lies in one of
// the NODE_H pixel lines of the node line, and within a pixel line roots order
// like their nodes. Each root's rank among the roots of its pixel line
// replaces its key (kRankFlag | rank); lineCounts gets the count of every
// pixel line. Each thread takes a run of consecutive nodes (at most 32), so
// the work group scans once per line.
//
// The last work group to finish then numbers the lines (scanLines): every
// line's offset, the roots in the lines above it, and the component count.
// Each group writes its counts before it counts itself done on groupsDone,
// so the last one reads them all; it sets groupsDone back to 0 for the next
// labeling. One dispatch fewer than a scan of its own (at 1920x1080 a
// dispatch's start and drain are a tenth of the labeling).
//
// On the way it shortens the trees: a node whose parent lies in another patch
// (a patch-local root that merge_borders linked away) is pointed straight at
// its root, so final_labels walks two or three steps.
// Work groups of LINE_THREADS (countRootsThreads, compute_constants.hpp), declared
// in group_scan.glsl as GROUP_SCAN_THREADS.

layout(binding = NODE_INFO_IMAGE, r8ui) readonly uniform uimage2D nodeInfo;
layout(binding = LINE_COUNTS_BUFFER, std430) coherent buffer LineCounts { uint lineCounts[]; };
layout(binding = LINE_OFFSETS_BUFFER, std430) writeonly buffer LineOffsets { uint lineOffsets[]; };
layout(binding = GROUPS_DONE_BUFFER, std430) coherent buffer GroupsDone { uint groupsDone; };

shared bool lastGroup;

// lineOffsets[y] = the roots whose first pixel is in a line above y;
// lineOffsets[height] = the component count. Each thread sums a run of
// consecutive lines, the work group scans those sums, and each thread writes
// its lines' offsets.
void scanLines() {
    const int t = int(gl_LocalInvocationID.x);
    const int lines = (imageSize.y + LINE_THREADS - 1) / LINE_THREADS;
    const int first = t * lines;
    const int end = min(first + lines, imageSize.y);
    uint own = 0u;
    for (int line = first; line < end; ++line) own += lineCounts[line];
    uint offset = scanGroup(own);
    if (t == LINE_THREADS - 1) lineOffsets[imageSize.y] = offset;
    offset -= own;
    for (int line = first; line < end; ++line) {
        lineOffsets[line] = offset;
        offset += lineCounts[line];
    }
}

ivec2 patchOf(ivec2 n) { return n / ivec2(PATCH_W, PATCH_H); }

void main() {
    const int y = int(gl_WorkGroupID.x);
    const int t = int(gl_LocalInvocationID.x);
    const int run = (gridSize.x + LINE_THREADS - 1) / LINE_THREADS;  // <= 32: sides are at most 32768
    const int first = t * run;
    const int end = min(first + run, gridSize.x);

    // Which nodes of the run are roots, and in which pixel line.
    uint roots[NODE_H];
    for (int s = 0; s < NODE_H; ++s) roots[s] = 0u;
    for (int x = first; x < end; ++x) {
        ivec2 n = ivec2(x, y);
        uint mask = imageLoad(nodeInfo, n).r & kMaskBits;
        if (mask == 0u) continue;
        ivec2 p = firstPixel(n, mask);
        uint parent = loadParent(n);
        if (parent == keyOf(p)) {
            roots[p.y - y * NODE_H] |= 1u << uint(x - first);
        } else if (patchOf(nodeOfKey(parent)) != patchOf(n)) {
            uint root = rootOf(parent);
            if (root != parent) storeParent(n, root);
        }
    }
    // Roots per pixel line of the node line, packed: the upper line's count in
    // the low 16 bits, the lower line's in the high 16 (a line holds at most
    // 32768).
    uint own = 0u;
    for (int s = 0; s < NODE_H; ++s) own |= uint(bitCount(roots[s])) << (16u * uint(s));
    uint before = scanGroup(own) - own;

    for (int s = 0; s < NODE_H; ++s) {
        uint rank = (before >> (16u * uint(s))) & 0xFFFFu;
        for (uint bits = roots[s]; bits != 0u; bits &= bits - 1u) {
            int x = first + findLSB(bits);
            storeParent(ivec2(x, y), kRankFlag | rank);
            ++rank;
        }
    }
    uint total = scannedTotal();
    if (t < NODE_H && y * NODE_H + t < imageSize.y)
        lineCounts[y * NODE_H + t] = (total >> (16u * uint(t))) & 0xFFFFu;

    memoryBarrierBuffer();
    barrier();
    if (t == 0) lastGroup = atomicAdd(groupsDone, 1u) == gl_NumWorkGroups.x - 1u;
    barrier();
    if (!lastGroup) return;
    memoryBarrierBuffer();
    if (t == 0) groupsDone = 0u;
    scanLines();
}

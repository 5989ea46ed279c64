// count_roots: numbers the roots of one node row. A root is a foreground
// node whose parents texel is its own key; its first pixel lies in one of
// the NODE_H pixel rows of the node row, and within a pixel row roots order
// like their nodes. Each root's rank among the roots of its pixel row
// replaces its key (kRankFlag | rank); rowCounts gets the count of every
// pixel row. Each thread takes a run of consecutive nodes (at most 32), so
// the work group scans once per row.
//
// The last work group to finish then numbers the rows (scanRows): every
// row's offset, the roots in the rows above it, and the component count.
// Each group writes its counts before it counts itself done on groupsDone,
// so the last one reads them all; it sets groupsDone back to 0 for the next
// labeling. One dispatch fewer than a scan of its own (at 1920x1080 a
// dispatch's start and drain are a tenth of the labeling).
//
// On the way it shortens the trees: a node whose parent lies in another tile
// (a tile-local root that merge_borders linked away) is pointed straight at
// its root, so final_labels walks two or three steps.
layout(local_size_x = ROW_THREADS) in;  // countRootsThreads (compute_constants.hpp)

layout(binding = NODE_INFO_IMAGE, r8ui) readonly uniform uimage2D nodeInfo;
layout(binding = ROW_COUNTS_BUFFER, std430) coherent buffer RowCounts { uint rowCounts[]; };
layout(binding = ROW_OFFSETS_BUFFER, std430) writeonly buffer RowOffsets { uint rowOffsets[]; };
layout(binding = GROUPS_DONE_BUFFER, std430) coherent buffer GroupsDone { uint groupsDone; };

shared uint partial[ROW_THREADS];
shared bool lastGroup;

// The inclusive sum of `own` over the threads up to this one (Hillis &
// Steele); every thread of the work group calls it.
uint scanGroup(uint own) {
    const int t = int(gl_LocalInvocationID.x);
    partial[t] = own;
    barrier();
    for (int step = 1; step < ROW_THREADS; step <<= 1) {
        uint add = t >= step ? partial[t - step] : 0u;
        barrier();
        partial[t] += add;
        barrier();
    }
    return partial[t];
}

// rowOffsets[y] = the roots whose first pixel is in a row above y;
// rowOffsets[height] = the component count. Each thread sums a run of
// consecutive rows, the work group scans those sums, and each thread writes
// its rows' offsets.
void scanRows() {
    const int t = int(gl_LocalInvocationID.x);
    const int rows = (imageSize.y + ROW_THREADS - 1) / ROW_THREADS;
    const int first = t * rows;
    const int end = min(first + rows, imageSize.y);
    uint own = 0u;
    for (int row = first; row < end; ++row) own += rowCounts[row];
    uint offset = scanGroup(own);
    if (t == ROW_THREADS - 1) rowOffsets[imageSize.y] = offset;
    offset -= own;
    for (int row = first; row < end; ++row) {
        rowOffsets[row] = offset;
        offset += rowCounts[row];
    }
}

ivec2 tileOf(ivec2 n) { return n / ivec2(TILE_W, TILE_H); }

void main() {
    const int y = int(gl_WorkGroupID.x);
    const int t = int(gl_LocalInvocationID.x);
    const int run = (gridSize.x + ROW_THREADS - 1) / ROW_THREADS;  // <= 32: sides are at most 32768
    const int first = t * run;
    const int end = min(first + run, gridSize.x);

    // Which nodes of the run are roots, and in which pixel row.
    uint roots[NODE_H];
    for (int s = 0; s < NODE_H; ++s) roots[s] = 0u;
    for (int x = first; x < end; ++x) {
        ivec2 n = ivec2(x, y);
        uint mask = imageLoad(nodeInfo, n).r & kMaskBits;
        if (mask == 0u) continue;
        uint key = ownKey(n, mask);
        uint parent = loadParent(n);
        if (parent == key) {
            roots[pixelOfKey(key).y - y * NODE_H] |= 1u << uint(x - first);
        } else if (tileOf(nodeOfKey(parent)) != tileOf(n)) {
            uint root = rootOf(parent);
            if (root != parent) storeParent(n, root);
        }
    }
    // Roots per pixel row of the node row, packed: the upper row's count in
    // the low 16 bits, the lower row's in the high 16 (a row holds at most
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
    uint total = partial[ROW_THREADS - 1];
    if (t < NODE_H && y * NODE_H + t < imageSize.y) rowCounts[y * NODE_H + t] = (total >> (16u * uint(t))) & 0xFFFFu;

    memoryBarrierBuffer();
    barrier();
    if (t == 0) lastGroup = atomicAdd(groupsDone, 1u) == gl_NumWorkGroups.x - 1u;
    barrier();
    if (!lastGroup) return;
    memoryBarrierBuffer();
    if (t == 0) groupsDone = 0u;
    scanRows();
}

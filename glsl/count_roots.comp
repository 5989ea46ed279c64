// count_roots: numbers the roots of one node row. A root is a foreground
// node whose parents texel is its own key; its first pixel lies in one of
// the NODE_H pixel rows of the node row, and within a pixel row roots order
// like their nodes. Each root's rank among the roots of its pixel row
// replaces its key (kRankFlag | rank); rowCounts gets the count of every
// pixel row, which scan_rows turns into offsets.
//
// On the way it shortens the trees: a node whose parent lies in another tile
// (a tile-local root that merge_borders linked away) is pointed straight at
// its root, so final_labels and component_table walk two or three steps.
layout(local_size_x = ROW_THREADS) in;

layout(binding = NODE_INFO_IMAGE, r8ui) readonly uniform uimage2D nodeInfo;
layout(binding = ROW_COUNTS_BUFFER, std430) writeonly buffer RowCounts { uint rowCounts[]; };

// Roots per pixel row of a node row, packed: the upper row's count in the
// low 16 bits, the lower row's in the high 16 (a row holds at most 16384).
shared uint partial[ROW_THREADS];

ivec2 tileOf(ivec2 n) { return n / ivec2(TILE_W, TILE_H); }

void main() {
    const int y = int(gl_WorkGroupID.x);
    const int t = int(gl_LocalInvocationID.x);
    uint before = 0u;  // packed roots of the chunks already done
    for (int x0 = 0; x0 < gridSize.x; x0 += ROW_THREADS) {
        ivec2 n = ivec2(x0 + t, y);
        uint parent = kNone, key = kNone, flag = 0u;
        if (n.x < gridSize.x) {
            uint mask = imageLoad(nodeInfo, n).r & kMaskBits;
            if (mask != 0u) {
                key = ownKey(n, mask);
                parent = imageLoad(parents, n).r;
                if (parent == key) flag = 1u << (16u * uint(pixelOfKey(key).y - y * NODE_H));
            }
        }
        // Inclusive scan of the packed flags over the chunk (Hillis & Steele).
        partial[t] = flag;
        barrier();
        for (int step = 1; step < ROW_THREADS; step <<= 1) {
            uint add = t >= step ? partial[t - step] : 0u;
            barrier();
            partial[t] += add;
            barrier();
        }
        uint inclusive = partial[t];
        uint chunkTotal = partial[ROW_THREADS - 1];
        barrier();
        if (flag != 0u) {
            uint exclusive = before + inclusive - flag;
            uint rank = flag == 1u ? (exclusive & 0xFFFFu) : (exclusive >> 16);
            imageStore(parents, n, uvec4(kRankFlag | rank));
        } else if (parent != kNone && tileOf(nodeOfKey(parent)) != tileOf(n)) {
            uint root = rootOf(parent);
            if (root != parent) imageStore(parents, n, uvec4(root));
        }
        before += chunkTotal;
    }
    if (t < NODE_H && y * NODE_H + t < imageSize.y) rowCounts[y * NODE_H + t] = (before >> (16u * uint(t))) & 0xFFFFu;
}

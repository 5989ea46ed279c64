// merge_borders: joins the trees of the links that leave a tile. One work
// group per tile walks the tile's border nodes (its top row, its left and
// right columns); each link of theirs to a node of another tile is one global
// union (compute_common.glsl, unite). Binary blocks link by their masks in
// node_info; pixels (segments, threshold) by the criterion on the input.
layout(local_size_x = BORDER_THREADS) in;

layout(binding = NODE_INFO_IMAGE, r8ui) readonly uniform uimage2D nodeInfo;

const int kBorderNodes = TILE_W + 2 * (TILE_H - 1);

void main() {
    ivec2 origin = ivec2(gl_WorkGroupID.xy) * ivec2(TILE_W, TILE_H);
    for (int i = int(gl_LocalInvocationID.x); i < kBorderNodes; i += BORDER_THREADS) {
        ivec2 local;
        if (i < TILE_W) local = ivec2(i, 0);                                        // top row
        else if (i < TILE_W + TILE_H - 1) local = ivec2(0, i - TILE_W + 1);         // left column
        else local = ivec2(TILE_W - 1, i - (TILE_W + TILE_H - 1) + 1);              // right column
        ivec2 n = origin + local;
        if (!insideGrid(n)) continue;
        uint mask = imageLoad(nodeInfo, n).r & kMaskBits;
        if (mask == 0u) continue;
#if NODE_W * NODE_H == 1
        vec4 value = pixelValue(n);
#endif
        for (int d = 0; d < 4; ++d) {
            ivec2 m = local + kBackward[d];
            ivec2 b = n + kBackward[d];
            if ((m.x >= 0 && m.y >= 0 && m.x < TILE_W) || !insideGrid(b)) continue;  // inside the tile, or none
#if NODE_W * NODE_H > 1
            if (!masksLink(mask, imageLoad(nodeInfo, b).r & kMaskBits, d)) continue;
#else
            if (!pixelLinks(n, value, d)) continue;
#endif
            unite(imageLoad(parents, n).r, imageLoad(parents, b).r);
        }
    }
}

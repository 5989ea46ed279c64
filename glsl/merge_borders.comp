// merge_borders: joins the trees of the links that leave a tile. One work
// group per tile walks the tile's border nodes (its top row, its left and
// right columns); a link of theirs to a node of another tile is one global
// union (compute_common.glsl, unite).
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
        uint info = imageLoad(nodeInfo, n).r;
        uint links = info >> kLinkShift;
        if (links == 0u) continue;
        uint key = ownKey(n, info & kMaskBits);
        for (int d = 0; d < 4; ++d) {
            ivec2 m = local + kBackward[d];
            bool otherTile = m.x < 0 || m.y < 0 || m.x >= TILE_W;
            if ((links & (1u << uint(d))) == 0u || !otherTile) continue;
            ivec2 neighbour = n + kBackward[d];
            unite(key, imageLoad(parents, neighbour).r);
        }
    }
}

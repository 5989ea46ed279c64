// tile_labels' masks: a fragment per tile row, kTileWidth nodes of one node
// row, packs what tile_labels_runs.frag and tile_labels.frag read of them
// into bit masks, bit i for node i of the row: which link right, down,
// down-right and down-left (fragLinks), which hold a pixel in the block's
// first pixel row and which are foreground (fragNodes). A component's
// first pixel lies in such a node of its top row, where one has it.
layout(location = 0) out uvec4 fragLinks;
layout(location = 1) out uvec4 fragNodes;

const int kTileWidth = TILE_WIDTH;

void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);
    uvec4 links = uvec4(0u);
    uint firsts = 0u, foreground = 0u;
    uint firstRowPixels = ((1u << uint(NODE_W)) - 1u) << uint(kFirstPixelBit);
    for (int i = 0; i < kTileWidth; ++i) {
        ivec2 n = ivec2(t.x * kTileWidth + i, t.y);
        if (n.x >= gridSize.x) break;
        uint bits = nodeBits(n);
        uint bit = 1u << uint(i);
        if (linksTo(bits, kRight)) links.x |= bit;
        if (linksTo(bits, kDown)) links.y |= bit;
#if CONNECTIVITY == 8
        if (linksTo(bits, kDownRight)) links.z |= bit;
        if (linksTo(bits, kDownLeft)) links.w |= bit;
#endif
        if ((bits & firstRowPixels) != 0u) firsts |= bit;
        if (nodeIsForeground(bits)) foreground |= bit;
    }
    fragLinks = links;
    fragNodes = uvec4(firsts, foreground, 0u, 0u);
}

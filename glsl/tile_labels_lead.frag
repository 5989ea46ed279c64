// tile_labels' lead: the component of a tile's first run (rows top to
// bottom, each left to right) whose component leaves the run's row, filled
// once for the tile. tile_labels_runs.frag's fragments over the tile take
// it as it is, where each would otherwise fill it again: on noise most of
// a tile's nodes are one component, and its fills were most of their work.
// kLeadTexels fragments a tile, one above the other, each fill it and write
// four of its rows' masks (one target, which every context draws).
#include "tile_labels.glsl"

layout(location = 0) out uvec4 fragLead;

void main() {
    ivec2 f = ivec2(gl_FragCoord.xy);  // (tile column, tile row * kLeadTexels + part)
    int tile = f.y / kLeadTexels, part = f.y - tile * kLeadTexels;
    int top = tile * kTileRows;
    Links links[kTileRows];
    uint fill[kTileRows];
    uvec4 above = uvec4(0u);
    bool seeded = false;
    for (int r = 0; r < kTileRows; ++r) {
        uvec4 rowLinks = top + r < gridSize.y ? texelFetch(tileLinks, ivec2(f.x, top + r), 0) : uvec4(0u);
        links[r] = linksOfRow(rowLinks);
        // The nodes of the row's runs that leave it; the first one's run.
        uint crossing = seeded ? 0u : fillRow(crossingNodes(r, rowLinks, above), rowLinks.x);
        fill[r] = crossing != 0u ? fillRow(crossing & (~crossing + 1u), rowLinks.x) : 0u;
        seeded = seeded || crossing != 0u;
        above = rowLinks;
    }
    if (seeded) fillComponent(fill, links);
    uvec4 lead = uvec4(0u);
    for (int r = 0; r < kTileRows; ++r)
        for (int i = 0; i < 4; ++i)
            if (r == 4 * part + i) lead[i] = fill[r];
    fragLead = lead;
}

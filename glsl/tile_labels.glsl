// What tile_labels' passes share: the tiles (kTileWidth x kTileRows nodes)
// and a tile row's runs. A run is a longest row of nodes each linked to the
// next; a row of kTileWidth nodes holds up to kTileWidth of them (two
// foreground nodes side by side need not link). A run whose component
// leaves its row keeps its root's place in the tile (row * kTileWidth +
// column) as the entry of its first node's column, an entry of kEntryBits
// bits, kEntriesPerTarget of them in each of kRunTargets RGBA32UI targets a
// row; tile_labels_runs.frag handles kRunRows rows a fragment, RUN_OUTPUTS
// targets (raster_constants.hpp: TILE_ROWS and RUN_ENTRY_BITS by the node's
// height, RUN_ROWS by the context's draw buffers). A run whose component is
// the run itself has no entry: tile_labels.frag finds its root from the
// row's masks.
const int kTileWidth = TILE_WIDTH, kTileRows = TILE_ROWS, kRunRows = RUN_ROWS;
const int kEntryBits = RUN_ENTRY_BITS, kEntriesPerWord = 32 / kEntryBits;
const int kEntriesPerTarget = 4 * kEntriesPerWord, kRunTargets = kTileWidth / kEntriesPerTarget;
const uint kEntryMask = (1u << uint(kEntryBits)) - 1u;
const int kLeadTexels = LEAD_TEXELS;  // tile_labels_lead's texels a tile, four rows' masks each

// The masks of tile_labels_masks.frag, a texel per tile row.
uniform usampler2D tileLinks;  // right, down, down-right, down-left
uniform usampler2D tileNodes;  // first-row pixels, foreground

// The first nodes of the runs of a tile row: foreground nodes not linked
// from the node on their left.
uint runStarts(uint foreground, uint right) { return foreground & ~(right << 1); }

// Row x grown along the links `right` (bit i: node i links to node i + 1)
// as far as they reach, both ways.
uint fillRow(uint x, uint right) {
    uint l1 = right, l2 = l1 & (l1 >> 1), l4 = l2 & (l2 >> 2), l8 = l4 & (l4 >> 4), l16 = l8 & (l8 >> 8);
    x |= (x & l1) << 1;
    x |= (x & l2) << 2;
    x |= (x & l4) << 4;
    x |= (x & l8) << 8;
    x |= (x & l16) << 16;
    x |= (x >> 1) & l1;
    x |= (x >> 2) & l2;
    x |= (x >> 4) & l4;
    x |= (x >> 8) & l8;
    x |= (x >> 16) & l16;
    return x;
}

// A tile row's links: right, down, and at 8-connectivity down-right and
// down-left (only what the connectivity has, so a fill holds fewer).
#if CONNECTIVITY == 8
#define Links uvec4
#define linksOfRow(v) (v)
#else
#define Links uvec2
#define linksOfRow(v) ((v).xy)
#endif

// The nodes of the row below `nodes` (of a row with links `links`) reach.
uint downFrom(uint nodes, Links links) {
    uint reached = nodes & links.y;
#if CONNECTIVITY == 8
    reached |= ((nodes & links.z) << 1) | ((nodes & links.w) >> 1);
#endif
    return reached;
}

// The nodes of the row above `nodes` (of the row below that one) reach.
uint upFrom(uint nodes, Links links) {
    uint reached = nodes & links.y;
#if CONNECTIVITY == 8
    reached |= ((nodes >> 1) & links.z) | ((nodes << 1) & links.w);
#endif
    return reached;
}

// `fill`, nodes of one component in one row (the other rows 0), grown to
// the whole component within the tile, over its rows' masks `links`: sweeps
// down and up the rows in turn, each row grown along its right links, until
// a sweep adds nothing. A sweep leaves the fill closed under its
// direction's links and the rows' own; where the next sweep adds nothing,
// it is closed under both, and complete. (The first sweep follows no
// other.)
void fillComponent(inout uint fill[kTileRows], Links links[kTileRows]) {
    for (int sweep = 0;; ++sweep) {
        bool grown = false;
        if (sweep % 2 == 0) {
            for (int r = 1; r < kTileRows; ++r) {
                uint x = fill[r] | downFrom(fill[r - 1], links[r - 1]);
                if (x != fill[r]) {
                    fill[r] = fillRow(x, links[r].x);
                    grown = true;
                }
            }
        } else {
            for (int r = kTileRows - 2; r >= 0; --r) {
                uint x = fill[r] | upFrom(fill[r + 1], links[r]);
                if (x != fill[r]) {
                    fill[r] = fillRow(x, links[r].x);
                    grown = true;
                }
            }
        }
        if (!grown && sweep > 0) break;
    }
}

// The nodes of tile row `row` (of masks `links`) linked to a node of
// another row of the tile (aboveLinks: the masks of the row above it).
uint crossingNodes(int row, uvec4 links, uvec4 aboveLinks) {
    uint down = row < kTileRows - 1 ? links.y | links.z | links.w : 0u;
    return down | (row > 0 ? downFrom(~0u, linksOfRow(aboveLinks)) : 0u);
}

// The first node of the nodes `nodes` of tile row `row` (firsts: that row's
// nodes with a pixel in the block's first pixel row), as its place.
uint firstPlace(int row, uint nodes, uint firsts) {
    uint withFirsts = nodes & firsts;
    return uint(row * kTileWidth + lowestBit(withFirsts != 0u ? withFirsts : nodes));
}

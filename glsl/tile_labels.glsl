// What tile_labels' passes share: the tiles (kTileWidth x kTileRows nodes)
// and a tile row's runs. A run is a longest row of nodes each linked to the
// next; a row of kTileWidth nodes holds up to kTileWidth of them (two
// foreground nodes side by side need not link), numbered left to right.
// Each run keeps its root's place in the tile (row * kTileWidth + column)
// as an entry of kEntryBits bits, kEntriesPerTarget of them in each of
// kRunTargets RGBA32UI targets a row; tile_labels_runs.frag handles
// kRunRows rows a fragment, RUN_OUTPUTS targets (raster_constants.hpp:
// TILE_ROWS and RUN_ENTRY_BITS by the node's height, RUN_ROWS by the
// context's draw buffers).
const int kTileWidth = TILE_WIDTH, kTileRows = TILE_ROWS, kRunRows = RUN_ROWS;
const int kEntryBits = RUN_ENTRY_BITS, kEntriesPerWord = 32 / kEntryBits;
const int kEntriesPerTarget = 4 * kEntriesPerWord, kRunTargets = kTileWidth / kEntriesPerTarget;
const uint kEntryMask = (1u << uint(kEntryBits)) - 1u;

// The masks of tile_labels_masks.frag, a texel per tile row.
uniform usampler2D tileLinks;  // right, down, down-right, down-left
uniform usampler2D tileNodes;  // first-row pixels, foreground

// The first nodes of the runs of a tile row: foreground nodes not linked
// from the node on their left.
uint runStarts(uint foreground, uint right) { return foreground & ~(right << 1); }

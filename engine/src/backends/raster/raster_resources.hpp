#pragma once
// Everything the raster pipeline allocates for a size: the node graph, the
// two ID targets, the numbering (scan pyramid, routing block), the component
// table and the targets of the exact large sums. Passes get these as their
// inputs and outputs; only this file allocates them.

#include <cstdint>
#include <string>
#include <vector>

#include "backends/criterion_defines.hpp"
#include "gl_objects.hpp"
#include "glccl/types.hpp"
#include "raster_constants.hpp"
#include "small_helpers.hpp"

namespace glccl::raster {

// The pixels of a node: the pipeline labels a grid of nodes, blocks whose
// foreground pixels always touch one another (common.glsl, "Nodes"); the
// compute backend uses the same blocks.
using backends::NodeSize;

// The image, its node grid, and the scan grid that numbers roots: one node
// grid per pixel row of a node row (common.glsl, scanTexelOfId).
struct RasterGrid {
    int width = 0, height = 0;  // pixels
    NodeSize shape;
    int gridWidth = 0, gridHeight = 0;  // nodes
    // tile_labels' tile rows: `tileRows` where given, else tileRowsFor() the
    // shape's.
    int tileRows = 0;
    // tile_labels_runs' rows a fragment: contextRunRows() of the tiles, or
    // fewer where `runRows` (1, 2 or 4) asks.
    int tileRunRows = 0;
    static RasterGrid of(int width, int height, NodeSize shape, int runRows = 0, int tileRows = 0);
    int scanWidth() const { return gridWidth * shape.height; }
    int scanHeight() const { return gridHeight; }
    // component_table's slot segments (slotSegmentWidth): their block's
    // width and height in nodes, and how many there are across and down.
    int slotSegmentWidth() const;
    int slotSegmentHeight() const;
    int slotSegmentsAcross() const;
    int slotSegmentsDown() const;
    bool operator==(const RasterGrid& other) const {
        return sameNodes(other) && tileRows == other.tileRows && tileRunRows == other.tileRunRows;
    }
    // The same image size and nodes: only the tiles' targets may differ.
    bool sameNodes(const RasterGrid& other) const {
        return width == other.width && height == other.height && shape == other.shape;
    }
};

// One level of scan_roots' pyramid: sums of `block` texels of the level
// below along `axis` (0: x, 1: y), and their exclusive offsets. Level 0
// keeps masks of kScanBlock texels; a later level sums up to kMaxScanSum.
struct ScanLevel {
    gl::RenderTarget counts, offsets;
    int axis;
    int block;
};

// route_roots' block: kRoutingSide^2 texels with a stencil that lets one root
// through per texel, and the labels ranked there.
struct RoutingTargets {
    gl::Renderbuffer stencil;
    gl::RenderTarget routed, labels;
};

// The component table, entry k - 1 for label k in rows of `width` entries:
// boxes, sums (relative to the root) and the root's ID, draw buffers 0-2 of
// `framebuffer`; or, with exact digits (SumDigits), boxes, sums and n digit
// targets, the draw buffers of digitFramebuffers[n]. `words` (RGBA32UI, the
// table's width, 3/2 of its rows): the entries as download_table reads them
// with Tuning::rasterTablePack words, six words an entry.
struct TableTargets {
    gl::RenderTarget boxes, sums, roots;
    gl::RenderTarget digits[kMaxDigitTargets];
    gl::RenderTarget words;
    gl::Framebuffer framebuffer;
    gl::Framebuffer digitFramebuffers[kMaxDigitTargets + 1];
    int width = 0, height = 0;
};

// component_bits: the list of large labels (entry i at (i % listWidth,
// i / listWidth)), where each sits in the list (per table entry), one band's
// float counts and the integer totals (ping-pong: totals[side] + band ->
// totals[1 - side]). The band holds `spread` partial counts per entry: the
// list's layout `spread` times, partial k of entry (x, y) at
// (x, y + k * listHeight).
struct LargeSumTargets {
    int count = 0, listWidth = 0, listHeight = 0;  // the list of the last reserveLargeSums()
    int spread = 1;                                // partial counts per entry in the band, of that call
    gl::Texture list;
    gl::RenderTarget index;
    gl::Texture bandCounts[kBitCounterTargets], totals[2][kBitCounterTargets];
    gl::Framebuffer bandFramebuffer, totalFramebuffers[2];
};

// tile_labels' targets, a texel per tile row (kTileWidth nodes of a node
// row): its masks, RGBA32UI `links` (which nodes link right, down,
// down-right and down-left) and RG32UI `nodes` (which hold a pixel in their
// block's first pixel row, which are foreground), draw buffers 0 and 1 of
// `masks`; its runs' roots' places in the tile, in the RGBA32UI `runs`,
// draw buffers of `runFramebuffer`, a texel per runRows rows of a tile:
// row k's target j is runs[k * runTargetsFor(rows) + j].
struct TileTargets {
    int rows = 0;     // a tile's: the grid's tileRows
    int runRows = 0;  // the grid's tileRunRows
    int runOutputs() const { return runRows * runTargetsFor(rows); }
    int leadTexels() const { return leadTexelsFor(rows, runRows); }
    gl::Texture links, nodes;
    gl::RenderTarget lead;  // RGBA32UI: each tile's lead component, leadTexels() texels down (none at 0)
    gl::Texture runs[kMaxRunTargets];
    gl::Framebuffer masks, runFramebuffer;
};

// runRowsFor() tiles of `tileRows` rows, by the current context's
// GL_MAX_DRAW_BUFFERS.
int contextRunRows(int tileRows);

// The labeled node grid: the node graph, every node's root ID and each
// root's label: numbered by scan_roots, its level 0's masks of roots and the
// roots before each mask (rootsByScan), else rootLabels over the scan grid.
// final_labels and the table stages read these.
struct LabeledGrid {
    const RasterGrid& grid;
    const gl::Texture& nodeGraph;
    const gl::Texture& ids;
    bool rootsByScan;
    const gl::Texture& rootLabels;
    const gl::Texture& rootMasks;
    const gl::Texture& rootOffsets;
};

struct RasterResources {
    RasterGrid grid;                 // all zero until reserve() succeeds
    gl::RenderTarget nodeGraph;      // R16UI: links and foreground pixels per node
    // Depth, shared by both ID targets: the roots column processing changed,
    // or tile_labels' roots.
    gl::Renderbuffer rootMarks;
    gl::RenderTarget ids, idScratch; // R32F: IDs as float bit patterns, per node; the labels in labels()
    // RG32F, per node: what a fragment pass found for the next draw's
    // vertices (resolve_links); before, the IDs of column processing's even
    // columns.
    gl::RenderTarget nodeValues;
    // `ids` with idScratch, and with nodeValues, as draw buffers 0 and 1, and
    // rootMarks: resolve_links' compression writes the labels into the next
    // round's link target too (after tile_labels, at the marked roots only).
    gl::Framebuffer idsAndScratch, idsAndValues;
    // idScratch and nodeValues as draw buffers 0 and 1: vertical_runs'
    // last pass writes the runs into both textures of column processing
    // with one draw a column.
    gl::Framebuffer scratchAndValues;
    TileTargets tiles;               // tile_labels' (Tuning::rasterLocal tiles)
    gl::RenderTarget rootLabels;     // R32UI: each root's final label, over the scan grid
    gl::RenderTarget segmentFirsts;  // R32UI, per row segment: its nodes first of their root (component_table slots)
    gl::RenderTarget mostFirsts;     // R32F, kMostSide²: the most such nodes in one segment, by segments
    std::vector<ScanLevel> scanLevels;
    gl::RenderTarget scanZero;       // 1x1 zero: the offset above the top level
    RoutingTargets routing;
    TableTargets table;
    TableTargets tableCopies;        // component_table spread over copies: the table's layout repeated down
    LargeSumTargets largeSums;

    // Allocates every per-size target (none while later frames of this grid
    // are labeled; where only its tiles' rows change, tile_labels' targets
    // alone). Throws glccl::Error with the GL error (GL_OUT_OF_MEMORY)
    // naming `what`.
    void reserve(const RasterGrid& grid, const std::string& what);
    // The table for `count` components, grown when too small.
    void reserveTable(std::uint32_t count);
    // The large-sum targets for a list of `count` labels, grown, never shrunk.
    // Table copies of `rows` rows each (the table's width), `copies` of them.
    void reserveTableCopies(int rows, int copies);
    // `spread` partial counts per label in the band (Tuning::rasterBitsSpread),
    // fewer where the labels are many (kBitsSpreadTexels).
    void reserveLargeSums(int count, int spread);
    // Where the labels of the last labeling are (resolve_links leaves them
    // in idScratch after tile_labels), and the other ID target.
    bool labelsInScratch = false;
    const gl::RenderTarget& labels() const { return labelsInScratch ? idScratch : ids; }
    const gl::RenderTarget& notLabels() const { return labelsInScratch ? ids : idScratch; }
    // Whether scan_roots numbered this labeling's roots (else route_roots).
    bool rootsByScan = false;
    // What the stages after the numbering read.
    LabeledGrid labeled() const {
        // A scan grid of one block has no level above level 0: its offset is scanZero's.
        const gl::RenderTarget& offsets = scanLevels.size() > 1 ? scanLevels[0].offsets : scanZero;
        return {grid, nodeGraph.texture, labels().texture, rootsByScan, rootLabels.texture,
                scanLevels[0].counts.texture, offsets.texture};
    }
    // A framebuffer over the caller's label texture.
    const gl::Framebuffer& labelFramebuffer(const gl::Texture& labels);

private:
    // tile_labels' targets for `next`'s tiles.
    void reserveTiles(const RasterGrid& next, const std::string& what);
    gl::Framebuffer labelFramebuffer_;  // over the caller's label texture of the last call
};


}  // namespace glccl::raster

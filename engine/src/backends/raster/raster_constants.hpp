#pragma once
// The numbers the raster pipeline's C++ and its shaders must agree on, written
// once. The shaders see them as #defines (defineSharedConstants), under the
// names given beside each; common.glsl turns them into GLSL constants.

#include <cstdint>
#include <string>

#include "program.hpp"

namespace glccl::raster {

// ID encoding (common.glsl, "IDs"): kIdBase + ((H-1-y) << kIdCoordinateBits)
// + (W-1-x), stored as the bits of an R32F texel. kIdBase keeps every ID a
// normal float; kIdCoordinateBits bounds each side at 32768.      ID_BASE, ID_COORDINATE_BITS
constexpr std::uint32_t kIdBase = 0x00800000u;
constexpr int kIdCoordinateBits = 15;

// Hops per pass of vertical_runs (RasterPipeline::runHops: up to twice as
// many where two passes of kHops do not reach a grid's height and two of
// more do): the reach grows that many-fold per pass (Tuning::rasterRunHops
// sets another, up to kMaxHops; a uniform).
constexpr int kHops = 32;
constexpr int kMaxHops = 1024;

// Texels summed per output texel of each scan_roots level; level 0 keeps a
// 32-bit mask per block, so it cannot grow past 32.                             SCAN_BLOCK
constexpr int kScanBlock = 32;
// The most texels a later level of scan_roots sums per output texel (a
// uniform): a level fewer where its counts fit, each texel's sum a loop.
constexpr int kMaxScanSum = 64;

// tile_labels' tiles (Tuning::rasterLocal tiles): kTileWidth nodes across,
// a row of them one 32-bit mask of each kind, and tileRowsFor() rows, whose
// masks a fragment holds while it fills a component: taller tiles leave
// fewer links across their borders to resolve_links (a vertex per node of
// a tile's right column and bottom row) and cost more fills, so 2x2 nodes
// take 16 rows and the nodes of one pixel row 8 (whose grid has twice the
// rows and, on noise, more components a row), or kTallTileRows where
// components are few, kHugeTileRows where they are fewer than the image's
// areas of kHugeTileNodes nodes (Tuning::rasterTileRows;
// RasterPipeline::tileRows).
//                                                               TILE_WIDTH, TILE_ROWS (a program's)
constexpr int kTileWidth = 32;
constexpr int tileRowsFor(int nodeHeight) { return nodeHeight == 2 ? 16 : 8; }
constexpr int kTallTileRows = 16;
constexpr int kHugeTileRows = 32;
constexpr std::int64_t kHugeTileNodes = std::int64_t(1) << 16;
// A tile row's runs (up to kTileWidth) each keep their root's place in the
// tile in runEntryBitsFor() bits, in runTargetsFor() RGBA32UI targets.    RUN_ENTRY_BITS (a program's)
constexpr int runEntryBitsFor(int tileRows) { return kTileWidth * tileRows <= 256 ? 8 : 16; }
constexpr int runTargetsFor(int tileRows) { return kTileWidth * runEntryBitsFor(tileRows) / 128; }
// tile_labels_runs takes runRowsFor() rows of a tile a fragment, one fill
// serving the runs of all of them: as many as the context draws the
// targets of at once (GL_MAX_DRAW_BUFFERS: 8 on desktop OpenGL 3.3, at
// least 4 on ES 3.0), up to 4.                                       RUN_ROWS, RUN_OUTPUTS (a program's)
constexpr int runRowsFor(int tileRows, int maxDrawBuffers) {
    for (int rows = 4; rows > 1; rows /= 2)
        if (rows * runTargetsFor(tileRows) <= maxDrawBuffers && tileRows % rows == 0) return rows;
    return 1;
}
constexpr int kMaxRunTargets = 8;  // rows a fragment × targets a row
// tile_labels_lead fills a tile's lead component once for the tile's
// fragments of tile_labels_runs, where they are at least 4 (with 2 it would
// spare one fill a tile, less than its draw costs), and keeps it as its
// rows' masks, four rows an RGBA32UI texel: leadTexelsFor() texels a tile,
// down its column (0: no lead).                                      LEAD_TEXELS (a program's)
constexpr int leadTexelsFor(int tileRows, int runRows) { return tileRows / runRows >= 4 ? tileRows / 4 : 0; }

// C++ only. Column processing's blocks by default: about sqrt(grid width)
// columns each, at most kMaxBlocks blocks, at most kMaxBlockWidth columns
// (RasterPipeline::blockWidth).
constexpr int kMaxBlocks = 32;
constexpr int kMaxBlockWidth = 256;
// Nodes per row segment of the table stages (component_table, component_bits):
// one point per component per segment.                                          SEGMENT
constexpr int kSegment = 32;
// component_table by slots takes its segments as blocks of kSegment nodes,
// this many wide: 16 x 2 where a node is two pixel rows tall, 8 x 4 where it
// is one (4-connectivity), so that a component crossing a few rows sends a
// point to fewer segments.                                                     SLOT_SEGMENT_W
constexpr int slotSegmentWidth(int nodeHeight) { return nodeHeight == 1 ? 8 : 16; }

// component_bits counts 32 numbers per large component (area, 15 bits of x,
// 15 of y, one spare) in this many RGBA targets.                                BIT_COUNTER_TARGETS
constexpr int kBitCounterTargets = 8;

// C++ only. The stencil routing of route_roots numbers at most 255 roots
// (an 8-bit stencil) in a block of kRoutingSide^2 texels.
constexpr std::uint32_t kMaxRoutedRoots = 255;
constexpr int kRoutingSide = 16;  // ceil(sqrt(kMaxRoutedRoots))
// R32F adds integers exactly below 2^24: the bound of the float sums of
// component_table and of a component_bits band.
constexpr int kExactFloatSum = 1 << 24;
// Bounds of the nodes a vertex serves in column processing (a group of rows)
// and in resolve_links (a square's side); Tuning checks the same bounds.
constexpr int kMaxColumnGroup = 32;
constexpr int kMaxResolveGroup = 8;
// resolve_links' rounds issued per wait for the GPU (Tuning::rasterResolveAhead).
constexpr int kMaxResolveAhead = 16;
// component_bits spreads a large component's points of a band over up to
// kMaxBitsSpread texels (Tuning::rasterBitsSpread), each a partial count that
// the fold adds up; the band holds at most max(count, kBitsSpreadTexels)
// texels, so many large components spread less (their points are spread
// over their own texels already).
constexpr int kMaxBitsSpread = 64;
constexpr int kBitsSpreadTexels = 1 << 14;
// component_table spreads each entry's points over up to kMaxTableSpread
// copies of the table (Tuning::rasterTableSpread), at most
// kTableSpreadTexels texels in all: a table of many entries takes fewer
// copies. The bound lets a table of an 8192² image's (tens of rows of
// 8192) take 16 copies: a component crossing every row segment sends
// 2^19 points there.
constexpr int kMaxTableSpread = 64;
constexpr int kTableSpreadTexels = 1 << 22;
// rasterTableSpread auto: kAutoTableSpread copies with 2x2 nodes (binary
// images at 8-connectivity), kAutoTableSpreadRowNodes with 2x1 nodes (at
// 4-connectivity), one with single pixels, where the pipeline's last table
// had a component whose box covered at least kAutoSpreadSegments of
// component_table's segments and at most kAutoSpreadEntries entries, else
// one. Points blended into one entry one after another cost more than
// points into different texels, and the copies' clear and fold cost more
// with the table's entries. 2x1 nodes send such a component's entry about
// twice the points 2x2 nodes do, and gain most from four copies where 2x2
// nodes gain most from two (benchmarks.md, the raster engine's variants).
constexpr int kAutoTableSpread = 2;
constexpr int kAutoTableSpreadRowNodes = 4;
constexpr std::int64_t kAutoSpreadSegments = 4096;
constexpr std::uint32_t kAutoSpreadEntries = 1u << 16;
// component_table by slots finds the most roots first in one segment in two
// steps: the most of the segments s = t mod side^2 into texel t of a square
// of this side (a fragment each), then the host's read of the square.      MOST_SIDE
constexpr int kMostSide = 64;
// component_table's digits of exact sums (Tuning::rasterTableSums digits):
// the sums target's four channels and up to this many RGBA digit targets.   MAX_DIGIT_TARGETS
constexpr int kMaxDigitTargets = 2;

static_assert(kTileWidth == 32, "a tile row is one 32-bit mask");
static_assert(tileRowsFor(1) % 4 == 0 && tileRowsFor(2) % 4 == 0 && kTallTileRows % 4 == 0,
              "a lead texel holds four rows' masks");
static_assert(runTargetsFor(tileRowsFor(1)) <= 4 && runTargetsFor(tileRowsFor(2)) <= 4 &&
                  runTargetsFor(kTallTileRows) <= 4,
              "OpenGL ES 3.0 draws into 4 targets at least");
static_assert(runRowsFor(tileRowsFor(1), kMaxRunTargets) * runTargetsFor(tileRowsFor(1)) <= kMaxRunTargets &&
              runRowsFor(tileRowsFor(2), kMaxRunTargets) * runTargetsFor(tileRowsFor(2)) <= kMaxRunTargets &&
              runRowsFor(kTallTileRows, kMaxRunTargets) * runTargetsFor(kTallTileRows) <= kMaxRunTargets);
static_assert(kScanBlock <= 32, "scan level 0 keeps one 32-bit mask per block");
static_assert(kRoutingSide * kRoutingSide >= int(kMaxRoutedRoots), "the routing block holds every routed root");
static_assert(kBitCounterTargets * 4 == 32, "component_bits.frag writes 32 counters");

// Hands the constants above to a program of the raster pipeline.
inline void defineSharedConstants(gl::ProgramBuilder& builder) {
    builder.define("RASTER_PIPELINE");
    builder.define("ID_BASE", std::to_string(kIdBase) + "u");
    builder.define("ID_COORDINATE_BITS", kIdCoordinateBits);
    builder.define("SCAN_BLOCK", kScanBlock);
    builder.define("SEGMENT", kSegment);
    builder.define("TILE_WIDTH", kTileWidth);
    builder.define("MOST_SIDE", kMostSide);
    builder.define("BIT_COUNTER_TARGETS", kBitCounterTargets);
    builder.define("MAX_DIGIT_TARGETS", kMaxDigitTargets);
}

}  // namespace glccl::raster

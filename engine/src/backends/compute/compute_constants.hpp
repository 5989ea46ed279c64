#pragma once
// Sizes and bindings the compute backend's C++ and GLSL share. Written once
// here; every compute program gets them as #defines (computeDefines).

#include "program.hpp"

namespace glccl::backends::compute {

// A tile: the nodes one work group of local_merge, merge_borders and
// final_labels covers. 32 x 32 nodes keep a tile's coordinate sums below
// 2^32 (final_labels) and its border under a tenth of its nodes.
constexpr int kTileWidth = 32;
constexpr int kTileHeight = 32;
constexpr int kTileRowsPerPass = 8;     // local_merge: 32 x 8 threads, 4 nodes each (a column, a row segment)
// merge_borders: threads per tile, one per border node (94 of them). On the
// H200 128 took the stage from 0.138 to 0.118 ms (sparse_disks, 16384^2)
// and from 0.025 to 0.022 ms at 1920x1080 against 64.
constexpr int kBorderThreads = 128;
// count_roots: threads per node row, each ranking a run of at most 32
// nodes. Grids up to kNarrowGridWidth nodes wide take kNarrowRowThreads:
// there a group of 1024 spends more on its scan's barriers than on nodes
// (1920x1080 on the H200: 0.020 -> 0.015 ms); on wider grids 256 threads
// were slower (16384^2: 0.71 -> 0.91 ms).
constexpr int kRowThreads = 1024;
constexpr int kNarrowRowThreads = 256;
constexpr int kNarrowGridWidth = 1024;
inline int countRootsThreads(int gridWidth) { return gridWidth <= kNarrowGridWidth ? kNarrowRowThreads : kRowThreads; }
// final_labels' work group covers a larger tile of its own, 64 x 64 nodes
// with 64 x 16 threads: it reduces the table over four times the nodes
// before its global atomics, and on the H200 it took final_labels from 2.95
// to 2.09 ms on noise50 at 16384^2 where local_merge with such tiles was
// slower (its union-find runs over more nodes). Its shared memory fits the
// 32 KiB every OpenGL 4.3 context has: labels and masks share one word.
constexpr int kLabelTileWidth = 64;
constexpr int kLabelTileHeight = 64;
constexpr int kLabelRowsPerPass = 16;
constexpr int kTableRun = 4;            // final_labels: nodes a thread adds up in registers
constexpr int kTableSlotBits = 9;       // final_labels: 512 shared-memory slots for the table (16 KiB)
constexpr int kTableProbes = 8;
// The table: an R32UI 2-D array, one layer per field, entry i at
// (i % kTableWidth, i / kTableWidth). Zero is every field's starting value:
// kMinX holds the inverted minimum (~x, summed with atomicMax); kMinY is
// written once, by the component's first pixel.
constexpr int kTableWidth = 4096;
enum TableField { kMinX, kMinY, kMaxX, kMaxY, kArea, kSumXLow, kSumXHigh, kSumYLow, kSumYHigh, kTableFields };

// Image units, buffer bindings and the input's texture unit.
constexpr int kParentsImage = 0;  // parents where they do not fit a storage buffer
constexpr int kNodeInfoImage = 1;
constexpr int kLabelsImage = 2;
constexpr int kTableImage = 3;
constexpr int kRowCountsBuffer = 0;
constexpr int kRowOffsetsBuffer = 1;
constexpr int kGroupsDoneBuffer = 2;
constexpr int kParentsBuffer = 3;
constexpr int kInputUnit = 0;

static_assert(kTileWidth % kTableRun == 0 && kTileHeight % kTileRowsPerPass == 0, "tile shape");
// local_merge: a thread's row segment of kTileHeight / kTileRowsPerPass nodes.
static_assert(kTileWidth % (kTileHeight / kTileRowsPerPass) == 0, "segments tile the rows");
// final_labels: each of the tile's threads walks one run of kTableRun nodes.
static_assert(kLabelTileWidth % kTableRun == 0 && kLabelTileHeight % kLabelRowsPerPass == 0, "label tile shape");
static_assert(kLabelRowsPerPass * kTableRun == kLabelTileHeight, "table runs cover the label tile");
static_assert(kLabelTileWidth * kLabelRowsPerPass <= 1024, "a work group every OpenGL 4.3 context runs");
// count_roots: a thread's run of nodes is one 32-bit mask (sides up to 32768).
static_assert(kRowThreads * 32 >= 32768 && kNarrowRowThreads * 32 >= kNarrowGridWidth,
              "count_roots covers the widest image");

inline void computeDefines(gl::ProgramBuilder& builder) {
    builder.define("TILE_W", kTileWidth)
        .define("TILE_H", kTileHeight)
        .define("TILE_ROWS_PER_PASS", kTileRowsPerPass)
        .define("LABEL_TILE_W", kLabelTileWidth)
        .define("LABEL_TILE_H", kLabelTileHeight)
        .define("LABEL_ROWS_PER_PASS", kLabelRowsPerPass)
        .define("BORDER_THREADS", kBorderThreads)
        .define("TABLE_RUN", kTableRun)
        .define("TABLE_SLOT_BITS", kTableSlotBits)
        .define("TABLE_SLOTS", 1 << kTableSlotBits)
        .define("TABLE_PROBES", kTableProbes)
        .define("TABLE_WIDTH", kTableWidth)
        .define("TABLE_FIELDS", kTableFields)
        .define("FIELD_MIN_X", kMinX)
        .define("FIELD_MIN_Y", kMinY)
        .define("FIELD_MAX_X", kMaxX)
        .define("FIELD_MAX_Y", kMaxY)
        .define("FIELD_AREA", kArea)
        .define("FIELD_SUM_X", kSumXLow)
        .define("FIELD_SUM_Y", kSumYLow)
        .define("PARENTS_IMAGE", kParentsImage)
        .define("NODE_INFO_IMAGE", kNodeInfoImage)
        .define("LABELS_IMAGE", kLabelsImage)
        .define("TABLE_IMAGE", kTableImage)
        .define("ROW_COUNTS_BUFFER", kRowCountsBuffer)
        .define("ROW_OFFSETS_BUFFER", kRowOffsetsBuffer)
        .define("GROUPS_DONE_BUFFER", kGroupsDoneBuffer)
        .define("PARENTS_BUFFER", kParentsBuffer);
}

}  // namespace glccl::backends::compute

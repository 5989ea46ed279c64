#pragma once
// What TilePipeline keeps between its passes (tile_pipeline.cpp lists them;
// each pass is a file of its own name).

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "border_forest.hpp"
#include "glccl/error.hpp"
#include "glccl/tile_pipeline.hpp"

namespace glccl::detail {

// A tile after pass 1: small, O(tile lines + parts). The tile's labels
// themselves wait in the TileLabelStore.
struct TileState {
    TileRect rect;
    std::uint32_t count = 0;                      // labels 1..count
    // firstLabelOfRow[r]: the first label whose first pixel lies in tile
    // line r (a row; in a brick, z * height + y; labels are in raster order
    // of first pixel, so the labels first seen in line r are
    // firstLabelOfRow[r] .. firstLabelOfRow[r + 1] - 1).
    std::vector<std::uint32_t> firstLabelOfRow;   // lines + 1 entries
    std::uint64_t firstNode = 0;                  // node of partLabels[0]
    std::vector<std::uint32_t> partLabels;        // labels on the tile's edges, ascending
    // After NumberComponentsPass: the final label just before the first
    // component owned in tile line r.
    std::vector<std::uint64_t> rowBase;
};

// The pixels of one side of a tile (a face of a brick): index into
// partLabels + 1 (0 for background) and pixel bytes, `rows` lines.
struct TileEdge {
    std::vector<std::uint32_t> parts;
    std::vector<std::uint8_t> pixels;
    std::size_t rows = 1;
};

// Pass 1's result for one tile, before its band is merged.
struct TileSummary {
    std::uint32_t count = 0;
    std::vector<std::uint32_t> firstLabelOfRow;
    std::vector<std::uint32_t> partLabels;
    std::vector<PartKey> partKeys;
    std::vector<PartStats> partStats;
    // Sides: rows of x (top, bottom) and columns of y (left, right) by
    // slice; the first and last slices (front, back) only where bricks lie
    // behind each other.
    TileEdge top, bottom, left, right, front, back;
};

// The labeled tile, summarized: its parts with exact image-space stats.
// Throws glccl::Error when the labeling breaks the output contract (labels
// not in raster order of first pixel, a table that does not fit).
TileSummary summarizeTile(const TilePlan& plan, const TileRect& tile, const Image& pixels, const Labeling& labeling);

// A tile's component (its own table row) as a part in image coordinates.
PartStats partStatsOf(const TileRect& tile, const Component& component);

// Sum of coordinates recovered exactly from a centroid (see tile_summary.cpp).
std::uint64_t exactCoordinateSum(double centroid, std::uint64_t area, const char* axis);

// Calls task(i) for i in 0..count-1 on up to `threads` threads.
void parallelFor(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& task);

}  // namespace glccl::detail

namespace glccl {

struct TilePipeline::Impl {
    const ImageSource& source;
    TilePlan plan;
    TiledOptions options;
    std::uint32_t firstBand = 0, endBand = 0;
    unsigned hostThreads = 1;

    std::vector<detail::TileState> tiles;  // the region's tiles, in raster order
    detail::BorderForest forest;
    BorderFace topRow, bottomRow;          // the region's outer rows (faces), nodes as added

    // After ResolveRootsPass, per node.
    std::uint64_t nodeBase = 0;
    std::vector<std::uint64_t> owner;      // global id of its component's owning part
    std::vector<PartStats> totals;         // owning nodes: the component's stats so far
    std::vector<std::uint64_t> finals;     // its component's final label (after number/setForeignFinals)
    std::vector<std::uint64_t> foreign;    // foreign owners, ascending
    std::uint64_t owned = 0;
    // After NumberComponentsPass, per band of the region: its first label - 1
    // and its last label.
    std::vector<std::uint64_t> bandLabelsBefore, bandLabelsEnd;

    std::mutex timingMutex;
    double deviceMilliseconds = 0.0;
    std::map<const TileWorker*, double> workerDeviceMilliseconds;  // per worker, for the busiest

    Impl(const ImageSource& s, const TilePlan& p, const TiledOptions& o, std::uint32_t first, std::uint32_t end)
        : source(s), plan(p), options(o), firstBand(first), endBand(end) {}

    // Tile i (raster order) of a band.
    detail::TileState& tileAt(std::uint32_t i, std::uint32_t band) {
        return tiles[std::size_t(band - firstBand) * plan.tilesPerBand() + i];
    }
    bool isLocal(std::uint64_t globalId) const {
        return globalId >= nodeBase && globalId - nodeBase < forest.size();
    }
    bool owns(std::uint64_t node) const { return owner[node] == nodeBase + node; }

    // Reports progress to options.progress; glccl::Cancelled when it says stop.
    void report(const char* phase, std::uint64_t done, std::uint64_t total) const {
        if (options.progress && !options.progress(TiledProgress{phase, done, total}))
            throw Cancelled("glccl::labelTiled(): cancelled during " + std::string(phase) + " (" +
                            std::to_string(done) + " of " + std::to_string(total) + ")");
    }
};

}  // namespace glccl

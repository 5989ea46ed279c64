#pragma once
// What TilePipeline keeps between its passes (tile_pipeline.hpp lists them;
// each pass is a file of its own name).

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "border_forest.hpp"
#include "glccl/error.hpp"
#include "glccl/tile_pipeline.hpp"

namespace glccl::detail {

// Pass 1 labels the tiles of this many bands after the one being merged.
constexpr std::uint32_t kBandsAhead = 2;
// Pass 2 fills one band of final labels while it writes another.
constexpr std::uint32_t kBandSlots = 2;

// The most components a tile (a brick) of w x h x d elements can hold under
// `label`'s connectivity and criterion, whatever its content (tiled.cpp).
std::uint64_t maxComponents(std::uint64_t w, std::uint64_t h, std::uint64_t d, const LabelOptions& label);
// The most parts (labels on its sides) a tile of `plan` can have (tiled.cpp).
std::uint64_t maxPartsOfTile(const TilePlan& plan, const LabelOptions& label);

// A tile after pass 1: small, O(tile lines + parts). Its labels are not
// kept: pass 2 labels the tile again and checks the labeling against
// `count` and `tableFingerprint`.
struct TileState {
    TileRect rect;
    std::uint32_t count = 0;                      // labels 1..count
    std::uint64_t tableFingerprint = 0;           // of its table (tableFingerprint())
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
    std::uint64_t tableFingerprint = 0;
    std::vector<std::uint32_t> firstLabelOfRow;
    std::vector<std::uint32_t> partLabels;
    std::vector<PartKey> partKeys;
    std::vector<PartStats> partStats;
    // Sides: rows of x (top, bottom) and columns of y (left, right) by
    // slice; the first and last slices (front, back) only where bricks lie
    // behind each other.
    TileEdge top, bottom, left, right, front, back;
};

// The labeled tile (its labels and table), summarized: its parts with exact
// image-space stats. Throws glccl::Error when the labeling breaks the output
// contract (labels not in raster order of first pixel, a table that does
// not fit).
TileSummary summarizeTile(const TilePlan& plan, const TileRect& tile, const Image& pixels, const std::uint32_t* labels,
                          const std::vector<Component>& table);

// A 64-bit digest of a tile's table (every field of every row): two
// labelings of one tile with equal counts and fingerprints are taken to be
// the same labeling.
std::uint64_t tableFingerprint(const std::vector<Component>& table);

// A tile's component (its own table row) as a part in image coordinates.
PartStats partStatsOf(const TileRect& tile, const Component& component);

// Sum of coordinates recovered exactly from a centroid (see tile_summary.cpp).
std::uint64_t exactCoordinateSum(double centroid, std::uint64_t area, const char* axis);

// Host memory of gigabytes for labels (a tile's, a band's): anonymous pages
// made at once by the kernel (MAP_POPULATE), not one page fault at a time
// when the labels are first written, and never cleared by us (every label
// is written before it is read). Grows, never shrinks; the contents are not
// kept.
class LabelBuffer {
public:
    LabelBuffer() = default;
    ~LabelBuffer();
    LabelBuffer(const LabelBuffer&) = delete;
    LabelBuffer& operator=(const LabelBuffer&) = delete;
    // At least `bytes` bytes; throws glccl::Error when they cannot be had.
    void reserve(std::size_t bytes);
    template <typename T>
    T* as() {
        return static_cast<T*>(data_);
    }

private:
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
};

// What a host thread keeps from tile to tile: the pixels, labels and table
// of its tile in flight.
struct TileBuffers {
    Image pixels;
    LabelBuffer labels;
    std::vector<Component> table;
    StageTimings timings;
};

// The tiles of a region, 0 .. count - 1 (raster order, `perBand` a band),
// run in order on host threads of their own: each thread takes the next
// tile and calls tile(buffers, i) with buffers of its own, while the
// calling thread follows band by band. A tile starts only once its band is
// allowed (allowBands), which bounds the bands in flight.
class TileFlow {
public:
    TileFlow(std::size_t count, std::uint32_t perBand, unsigned threads,
             std::function<void(TileBuffers&, std::size_t)> tile);
    // Hands out no further tile and waits for those under way.
    ~TileFlow();
    TileFlow(const TileFlow&) = delete;
    TileFlow& operator=(const TileFlow&) = delete;

    // Tiles of bands 0 .. end - 1 may start.
    void allowBands(std::uint32_t end);
    // Waits until every tile of bands 0 .. band is done; rethrows the first
    // error of a tile (after which no further tile starts).
    void waitForBand(std::uint32_t band);

private:
    void serve(unsigned thread);

    std::size_t count_;
    std::uint32_t perBand_;
    std::function<void(TileBuffers&, std::size_t)> tile_;
    std::vector<TileBuffers> buffers_;
    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable allowed_, finished_;
    std::size_t next_ = 0, allowedEnd_ = 0;
    std::vector<std::uint32_t> doneInBand_;
    bool stopping_ = false;
    std::exception_ptr error_;
};

}  // namespace glccl::detail

namespace glccl {

struct TilePipeline::Impl {
    const ImageSource& source;
    TilePlan plan;
    TiledOptions options;
    std::uint32_t firstBand = 0, endBand = 0;
    unsigned tileThreads = 1;              // tiles in flight, a host thread each

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

    // What the workers took in each pass (TilePipeline::deviceMilliseconds).
    struct PassTimes {
        double deviceMilliseconds = 0.0;
        double labelCallMilliseconds = 0.0;
        std::map<unsigned, double> workerDeviceMilliseconds;  // per worker, for the busiest
    };
    std::mutex timingMutex;
    PassTimes passTimes[2];
    double mergeMilliseconds = 0.0, sinkMilliseconds = 0.0;  // the calling thread's

    // Pass 2's two bands of final labels (RelabelTilesPass), and the thread
    // that makes their pages while pass 1 runs (prepareBands).
    detail::LabelBuffer bandLabels[2];
    std::thread bandPreparation;

    Impl(const ImageSource& s, const TilePlan& p, const TiledOptions& o, std::uint32_t first, std::uint32_t end)
        : source(s), plan(p), options(o), firstBand(first), endBand(end) {}
    ~Impl() {
        if (bandPreparation.joinable()) bandPreparation.join();
    }

    // Tile i (raster order) of a band.
    detail::TileState& tileAt(std::uint32_t i, std::uint32_t band) {
        return tiles[std::size_t(band - firstBand) * plan.tilesPerBand() + i];
    }
    bool isLocal(std::uint64_t globalId) const {
        return globalId >= nodeBase && globalId - nodeBase < forest.size();
    }
    bool owns(std::uint64_t node) const { return owner[node] == nodeBase + node; }

    // The image lines of bands [first, end) of the plan.
    std::pair<std::uint32_t, std::uint32_t> linesOf(std::uint32_t first, std::uint32_t end) const {
        return {plan.bandTop(first), plan.bandTop(end - 1) + plan.bandHeight(end - 1)};
    }

    // Reads tile i of the region (raster order) into `buffers` and has the
    // pool label it; the first tile of a band asks the source to read the
    // next band ahead. Adds the call's times to pass `pass`.
    TileRect readAndLabel(TileWorkerPool& pool, detail::TileBuffers& buffers, std::size_t i, int pass);

    // Reports progress to options.progress; glccl::Cancelled when it says stop.
    void report(const char* phase, std::uint64_t done, std::uint64_t total) const {
        if (options.progress && !options.progress(TiledProgress{phase, done, total}))
            throw Cancelled("glccl::labelTiled(): cancelled during " + std::string(phase) + " (" +
                            std::to_string(done) + " of " + std::to_string(total) + ")");
    }
};

}  // namespace glccl

#pragma once
// The passes of tiled labeling, as building blocks for drivers that spread
// them further than one process (glccl-mpi). labelTiled() runs them so:
//
//   TilePipeline pipeline(source, plan, options, 0, plan.bands());
//   TileWorkerPool pool(limits, options.label, options.devices);
//   pipeline.prepareBands(4);                // pass 2's bands of labels made meanwhile
//   pipeline.labelTiles(pool);               // LabelTilesPass + MergeBordersPass, band by band
//   pipeline.resolveRoots(0, {});            // ResolveRootsPass: the part that owns each component
//   pipeline.number(0);                      // NumberComponentsPass: labels by first pixel
//   pipeline.writeLabels(pool, sink, type);  // RelabelTilesPass + ComponentTablePass, band by band
//
// No tile's labels wait between the passes. Pass 1 keeps a summary of each
// tile (its parts, where its labels are first seen, a fingerprint of its
// table); pass 2 reads and labels every tile again, which gives the same
// labels (a tile's labeling is canonical: 1..n in raster order of first
// pixel), and maps them to final labels through a table of the tile's own
// labels built from its summary. So host memory holds a few tiles and the
// bands being written, never the image's labels, and nothing of them goes
// through a temporary file.
//
// Both passes run the tiles of the region in order on host threads of their
// own (tiles in flight, each with its pixels and labels), which hand the
// labeling to a free worker of the pool; the calling thread follows band by
// band: it merges each band's borders in pass 1, and writes each band into
// the sink in pass 2 while the tiles of the next band are labeled.
//
// The same passes label volumes in bricks (tile_plan.hpp: a band is then a
// layer of bricks, and a line is a row of one slice, z * height + y).
// A *part* is one tile's label that touches an edge (a brick's: a face) of
// its tile: a node of the union-find. The parts of one component are ordered like their first
// pixels (PartKey); the first, the *owning* part, is the root of its tree,
// and a component is numbered where its owning part (or, for a component
// inside one tile, its own first pixel) lies.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "glccl/image_source.hpp"
#include "glccl/label_sink.hpp"
#include "glccl/tile_plan.hpp"
#include "glccl/tiled.hpp"

namespace glccl {

// Orders the parts of a component like their first pixels: by image line
// (z * height + y: row, or slice then row), then by tile (in one line, a tile
// further left comes first), then by the tile's own label (raster order of
// first pixel inside the tile).
struct PartKey {
    std::uint64_t line = 0;       // image line of the part's first pixel
    std::uint64_t tile = 0;       // TileRect::index
    std::uint32_t label = 0;      // the tile's label
    bool operator<(const PartKey& o) const {
        if (line != o.line) return line < o.line;
        if (tile != o.tile) return tile < o.tile;
        return label < o.label;
    }
    bool operator==(const PartKey& o) const { return line == o.line && tile == o.tile && label == o.label; }
};

// A part's (or a component's) box, area and exact coordinate sums, in image
// coordinates (front, back and sumZ stay 0 in 2-D).
struct PartStats {
    std::uint32_t left = UINT32_MAX, top = UINT32_MAX, front = UINT32_MAX, right = 0, bottom = 0, back = 0;
    std::uint64_t area = 0, sumX = 0, sumY = 0, sumZ = 0;
    void add(const PartStats& o);
    Component component() const;  // centroid: one rounding of sum / area, as computeComponents
};

// The pixels on one side of a border: an image row (or column) along a
// border between tiles, or a face of a brick, `rows` lines of size() / rows
// pixels. Per pixel the node (part, or a root's global id) it belongs to,
// kNone for background, and its samples as glccl::Image holds them
// (channels samples of sampleBits bits a pixel).
struct BorderFace {
    static constexpr std::uint64_t kNone = UINT64_MAX;
    std::vector<std::uint64_t> nodes;
    std::vector<std::uint8_t> pixels;
    int channels = 1;
    int sampleBits = 8;
    std::size_t rows = 1;
    std::size_t size() const { return nodes.size(); }
    std::size_t pixelBytes() const { return std::size_t(channels) * std::size_t(sampleBits / 8); }
};

// Calls unite(a, b) for every neighbour pair across the border between two
// faces, `upper` directly facing `lower` (same rows and width), whose pixels
// connect by the criterion (glccl::areConnected, the reference's rule): the
// pixel facing it; at 8 and 18 the neighbours one step along a face (the
// diagonals of a row, the edge neighbours of a face); at 26 also the
// corners of a face. Throws glccl::Error when pixels connect but one has no
// node (labels that disagree with the criterion).
void forEachConnectedPair(const BorderFace& upper, const BorderFace& lower, Connectivity connectivity,
                          const Criterion& criterion,
                          const std::function<void(std::uint64_t, std::uint64_t)>& unite);

// One thread per worker, each with its own engine (glccl/engine.hpp) of
// `limits.backend` on devices[i] (TiledOptions::devices; empty: one worker
// on the backend's default device), made and used on the worker's thread
// (GL contexts and CUDA devices belong to a thread). label() hands a tile to
// whichever worker is free; the engine returns the tile's canonical
// labeling (labels 1..n, raster order of first pixel). Throws the first
// worker's error when a worker cannot be made.
class TileWorkerPool {
public:
    TileWorkerPool(const BackendLimits& limits, const LabelOptions& options, const std::vector<int>& devices);
    ~TileWorkerPool();
    TileWorkerPool(const TileWorkerPool&) = delete;
    TileWorkerPool& operator=(const TileWorkerPool&) = delete;

    unsigned size() const { return unsigned(threads_.size()); }
    // Engine::device() of each worker, in the order of `devices`.
    const std::vector<std::string>& workerDevices() const { return devices_; }
    // The distinct ones, joined by "; ", for TiledResult::device.
    std::string describeDevices() const;
    // Which worker labeled a tile, and the wall time of its call.
    struct LabelCall {
        unsigned worker = 0;
        double milliseconds = 0.0;
    };
    // Engine::label() of the first free worker, on that worker's thread.
    // Waits while every worker is busy. Called from any number of threads at
    // once; rethrows the worker's error.
    LabelCall label(const Image& tile, std::uint32_t* labels, std::vector<Component>& table, StageTimings* timings);

private:
    struct Job;
    void serve(unsigned index, BackendLimits limits, LabelOptions options, int device);

    std::vector<std::thread> threads_;
    std::vector<std::string> devices_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    std::deque<Job*> jobs_;
    unsigned started_ = 0;
    bool stopping_ = false;
    std::exception_ptr setupError_;
};

// The passes over the bands [firstBand, endBand) of a plan: all of them in
// one process, or one row block of an MPI run.
class TilePipeline {
public:
    TilePipeline(const ImageSource& source, const TilePlan& plan, const TiledOptions& options,
                 std::uint32_t firstBand, std::uint32_t endBand);
    ~TilePipeline();
    TilePipeline(const TilePipeline&) = delete;
    TilePipeline& operator=(const TilePipeline&) = delete;

    // Starts making the memory of writeLabels()'s two bands of final labels
    // (`labelBytes` bytes a label: 4 for uint32, 8 for uint64) on a thread
    // of its own, so that gigabytes of pages are made while labelTiles()
    // runs rather than when pass 2 first writes them. Optional; for a sink
    // that wants labels.
    void prepareBands(std::size_t labelBytes);

    // LabelTilesPass + MergeBordersPass: every tile of the region read,
    // labeled by the pool and summarized; its edge labels become nodes
    // (numbered 0.. in tile order), united across every tile border inside
    // the region.
    void labelTiles(TileWorkerPool& pool);

    // Nodes and the region's outer rows, for merging beyond the region.
    std::uint64_t nodeCount() const;
    PartKey nodeKey(std::uint64_t node) const;
    std::uint64_t localRoot(std::uint64_t node);
    // The region's first and last image rows; nodes are local roots.
    BorderFace regionTopRow();
    BorderFace regionBottomRow();

    // ResolveRootsPass. Node n has the global id nodeBase + n. `globalRoot`
    // maps the global id of a local root to the global id of its component's
    // owning part (empty: every local root is its own, one process). Nodes
    // whose owning part is elsewhere are `foreign`.
    void resolveRoots(std::uint64_t nodeBase, const std::function<std::uint64_t(std::uint64_t)>& globalRoot);
    // Components whose first pixel lies in the region.
    std::uint64_t ownedCount() const;
    // Foreign owning parts this region needs the final labels of.
    std::vector<std::uint64_t> foreignRoots() const;
    // This region's share of foreign components' stats: (owning part's
    // global id, sum of its parts here).
    std::vector<std::pair<std::uint64_t, PartStats>> foreignStats() const;
    // Adds another region's share to an owning part of this region.
    void addStats(std::uint64_t rootGlobalId, const PartStats& stats);

    // NumberComponentsPass: the region's components get labelOffset + 1 ..
    // labelOffset + ownedCount(), in raster order of first pixel.
    void number(std::uint64_t labelOffset);
    // The final label of an owning part of this region (after number()).
    std::uint64_t finalLabelOf(std::uint64_t rootGlobalId) const;
    // Final labels of foreignRoots(), in that order.
    void setForeignFinals(const std::vector<std::uint64_t>& finals);

    // RelabelTilesPass (+ ComponentTablePass when the sink wants the table):
    // every tile read and labeled again by the pool, band by band from the
    // top, final labels of `type` into sink.writeRows on the calling thread
    // and the region's table rows into sink.writeComponents. Does not call
    // begin() or finish(). Throws glccl::Error when a tile's labeling
    // differs from its labeling in labelTiles().
    void writeLabels(TileWorkerPool& pool, LabelSink& sink, LabelType type);

    // What the workers took, per pass (0: labelTiles, 1: writeLabels): the
    // summed stage times of the tiles (TiledOptions::deviceTimings), those
    // of the worker with the largest sum, and the wall time of the labeling
    // calls (upload, labeling and download), summed over tiles.
    double deviceMilliseconds(int pass = 0) const;
    double busiestDeviceMilliseconds(int pass = 0) const;
    double labelCallMilliseconds(int pass = 0) const;
    // The calling thread's share: merging borders in labelTiles(), and the
    // sink's writing in writeLabels() (for an .npy file, the disk's).
    double mergeMilliseconds() const;
    double sinkMilliseconds() const;

    struct Impl;  // the state between passes (tiles/src/pipeline_state.hpp)

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace glccl

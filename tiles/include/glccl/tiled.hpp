#pragma once
// Tiled labeling: images past one texture, one GPU call or host memory,
// labeled tile by tile by any backend, with exactly the output of labeling
// the image in one piece (labels 1..N in raster order of first pixel, the
// table with exact 64-bit sums).
//
//   glccl::Labeling labels = glccl::labelTiled(image, options);           // in memory
//   glccl::NpyImageSource input("huge.npy", glccl::ChannelMode::Gray);    // memory-mapped
//   glccl::NpyLabelSink output("labels.npy", "stats.csv", false);         // streamed
//   glccl::TiledResult run = glccl::labelTiled(input, options, output);
//
// labelTiled() is the front door's (glccl/session.hpp: it routes once);
// labelInPieces() here runs a route already chosen, handing every piece to
// an engine of the route's backend (glccl/engine.hpp) without routing again.
//
// Volumes go the same way in bricks (a tile is a brick of depth 1): an
// Image of Shape::volume, a 3-D .npy (depth, height, width), labels 1..N in
// raster order of first voxel (z, then y, then x), the table with front,
// depth and centroidZ.
//
// How (tile_pipeline.hpp lists the passes): every tile is labeled on its own;
// the labels on tile edges become nodes of one union-find, united where
// neighbours across a tile border connect by the criterion's own rule
// (glccl::areConnected); a component is then numbered by its first pixel,
// and a second pass labels every tile again and writes the final labels
// band by band, from the top.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/image_source.hpp"
#include "glccl/label_sink.hpp"
#include "glccl/label_options.hpp"
#include "glccl/route.hpp"
#include "glccl/tile_plan.hpp"
#include "glccl/types.hpp"

namespace glccl {

// Where a tiled run is: phase "label" (pass 1: tiles labeled and their
// borders merged) or "write" (pass 2: bands of final labels written), `done`
// of `total` (tiles, then bands).
struct TiledProgress {
    const char* phase = "";
    std::uint64_t done = 0, total = 0;
};

struct TiledOptions {
    // Connectivity, criterion, backend and threads of every tile (timings is
    // ignored: see deviceTimings).
    LabelOptions label;
    // Tile size; 0 chooses the largest that fits the backend (its texture
    // size, at most kDefaultTileSide) and the memory limit. tileDepth: the
    // bricks of a volume (ignored for images; 0 chooses as above, bricks at
    // most kDefaultBrickSide a side).
    std::uint32_t tileWidth = 0, tileHeight = 0, tileDepth = 0;
    // Host memory the run may use, in bytes; 0 is half the physical memory.
    // The plan holds it whatever the content: it counts every component a
    // tile could hold (a checkerboard's, one a pixel for segments and
    // delta), not a typical image's.
    std::uint64_t memoryLimit = 0;
    // Bytes of the limit taken already, by the process before the run (its
    // code and libraries, the input's decoding: the glccl command gives its
    // resident memory, residentMemoryBytes()); the run plans within the rest,
    // less its sink's buffers and what its workers hold once one has labeled
    // a corner of the input (a context and its programs), for each worker.
    std::uint64_t memoryInUse = 0;
    // One tile worker per entry, on that device; entries may repeat (two
    // workers on one device). cuda: the CUDA device. GL backends: the EGL
    // device that reports that CUDA device (EGL_NV_device_cuda: the same GPU
    // as for cuda, whatever EGL's own order), else the EGL device of that
    // index (glccl::headlessDevices()). Empty: one worker on the backend's
    // default device (CUDA device 0; the first EGL device that works).
    std::vector<int> devices;
    LabelType labelType = LabelType::Auto;
    // Tiles in flight in either pass, each on a host thread of its own with
    // its pixels and labels (reading, summarizing, mapping to final
    // labels); 0 is two per worker and one more, within the cores and at
    // least one per worker.
    unsigned hostThreads = 0;
    std::uint64_t uint32Limit = UINT32_MAX;  // largest count uint32 holds (tests lower it)
    bool deviceTimings = false;     // sum the backends' per-stage device times
    // Called on the calling thread after each round of tiles and each band
    // written; returning false stops the run with glccl::Cancelled before
    // another tile is labeled or band written (a sink's files are then not
    // finished: NpyLabelSink leaves no file). Empty: no reports.
    std::function<bool(const TiledProgress&)> progress;
};

// Tiles of the default size have this side at most (a 16384^2 tile is
// where the GPU backends reach full speed; larger ones only cost memory).
constexpr std::uint32_t kDefaultTileSide = 16384;
// No tile side is larger: a tile's coordinate sums stay below 2^51, so the
// backends' centroids give back their exact integer sums (tile_summary.cpp).
constexpr std::uint32_t kMaxTileSide = 32768;
// Bricks of the default size have this side at most (as many voxels as a
// tile of the default size has pixels, within a factor of two).
constexpr std::uint32_t kDefaultBrickSide = 512;
// Tiles and bricks of the default size keep a band (a row of tiles, a layer
// of bricks) within this many bytes of uint32 labels, as long as they keep
// 64 rows (one slice): pass 2 holds two bands of final labels, and starts
// writing a band only once all of its tiles are labeled.
constexpr std::uint64_t kDefaultBandBytes = std::uint64_t(1) << 30;

// A memory limit that no plan of tiles or bricks holds for the input:
// thrown before anything is labeled, with the leanest plan's need.
class MemoryLimitError : public Error {
public:
    using Error::Error;
};

struct TiledResult {
    std::uint64_t count = 0;           // components
    LabelType labelType = LabelType::Uint32;   // the type written
    Backend backend = Backend::Cpu;    // what labeled the tiles (auto resolved)
    std::string device;                // where: each distinct worker device, "; " between them
    TilePlan plan;
    unsigned workers = 1;
    unsigned tilesInFlight = 1;        // host threads of the passes (TiledOptions::hostThreads)
    std::uint64_t borderParts = 0;     // union-find nodes: labels on tile edges
    std::uint64_t memoryEstimate = 0;  // bytes, the bound planTiles sized tiles by (memoryInUse included)
    double labelMilliseconds = 0.0;    // pass 1: read, label, summarize, border merges
    double mergeMilliseconds = 0.0;    // of which the border merges (the calling thread's)
    double numberMilliseconds = 0.0;   // roots resolved, components numbered
    // Pass 2 (relabel_tiles): read and label again, final labels and table
    // written, and on the disk (NpyLabelSink); of which the sink's writing
    // (the calling thread's).
    double writeMilliseconds = 0.0, sinkMilliseconds = 0.0;
    // Device times are NaN where a stage was not measured (StageTime::measured).
    double deviceMilliseconds = 0.0;   // pass 1: sum of stage times of all tiles (deviceTimings)
    // The same for the busiest worker's tiles alone: the device time of
    // pass 1 when the workers run on devices of their own.
    double busiestDeviceMilliseconds = 0.0;
    double relabelDeviceMilliseconds = 0.0;  // pass 2: sum of stage times of all tiles
    // Wall time of the workers' labeling calls (upload, labeling and
    // download), summed over the tiles of pass 1 and of pass 2: with one
    // worker, how long it was busy.
    double labelCallMilliseconds = 0.0, relabelCallMilliseconds = 0.0;
    std::vector<std::string> notes;    // e.g. why auto fell back to the cpu backend
};

// What one call of the route's engine takes: the planner's view of a Route.
struct BackendLimits {
    Backend backend = Backend::Cpu;    // the route's backend
    std::uint32_t maxSide = 0;         // largest tile side (texture size for GL)
    // What the engine declares (capabilitiesOf): which bricks one call takes.
    EngineCapabilities engine;
    std::string device;                // where it runs, for messages
    std::string note;                  // a fallback worth telling, or ""
};
// The limits of `route`'s engine, which runs on `device`.
BackendLimits limitsOf(const Route& route, const std::string& device = "");

// Labels `source` tile by tile (a volume brick by brick) into `sink`, by
// `route` (chooseRoute's, for this source: glccl::Session::labelTiled), each
// piece handed to an engine of the route's backend. Throws glccl::Error
// starting with "glccl::labelTiled(): " for bad options (a tile past the
// backend's texture size, a brick past one call of the backend, a
// connectivity that does not fit the source's dimensions, a memory limit
// too small for any tile, a uint32 label type for more components than it
// holds: before anything is written; glccl::MemoryLimitError for the limit),
// or the error of the engine, source or sink. Thread-safety: call from one thread; it starts its own worker
// threads. Host memory: see docs/huge-images.md.
TiledResult labelInPieces(const ImageSource& source, const Route& route, const TiledOptions& options,
                          LabelSink& sink);

// How many devices `backend` can spread workers over here: CUDA devices for
// cuda; for the GL backends the EGL devices that report a CUDA device, else
// all EGL devices; 0 for the cpu backend, auto, or where none are found.
// For drivers that pick one device per process (glccl-mpi).
int tileDeviceCount(Backend backend);

// The tile grid for an image of `pixelBytes` bytes a pixel: the given tile
// size (checked against the backend), else the largest tiles within the
// backend's side and the memory model for `workers` workers. Throws
// glccl::Error as labelTiled does.
TilePlan planTiles(std::uint32_t width, std::uint32_t height, int pixelBytes, const TiledOptions& options,
                   const BackendLimits& limits, unsigned workers, std::uint64_t* memoryEstimate = nullptr);
// The same for `source`, whose own memory for a band (ImageSource::bandBytes:
// a TIFF's decoded strips) joins the model; a volume's source gets bricks
// (options.tileDepth; a brick that limits.engine takes in one call).
TilePlan planTiles(const ImageSource& source, const TiledOptions& options, const BackendLimits& limits,
                   unsigned workers, std::uint64_t* memoryEstimate = nullptr);

// Tiles in flight in either pass of a run with `workers` workers
// (TiledOptions::hostThreads, 0 resolved): each a host thread with the
// tile's pixels and labels.
unsigned tilesInFlight(const TiledOptions& options, unsigned workers);

// Bytes of physical memory (sysconf), 0 when unknown.
std::uint64_t physicalMemoryBytes();
// Bytes of this process's resident memory now (/proc/self/statm), 0 when
// unknown.
std::uint64_t residentMemoryBytes();
// The same less the pages of files it maps (a mapped .npy): the memory of
// its own.
std::uint64_t anonymousResidentBytes();

}  // namespace glccl

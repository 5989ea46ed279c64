// labelTiled(): the driver. It sizes the tiles (bricks of a volume), starts
// the workers and runs the passes of tile_pipeline.hpp in one process.

#include "glccl/tiled.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include "byte_size_text.hpp"
#include "glccl/error.hpp"
#include "glccl/tile_pipeline.hpp"

namespace glccl {

namespace {

using Clock = std::chrono::steady_clock;
double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

constexpr std::uint32_t kMinAutomaticSide = 64;

std::string mib(std::uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

// A limit in the unit it was given in: a whole number of TiB, GiB, MiB or
// KiB as such ("1 KiB" for --memory-limit 1K, not "1 MiB"); any other count
// in bytes, as it was given.
std::string limitText(std::uint64_t bytes) {
    const std::string whole = detail::wholeUnitSize(bytes);
    if (!whole.empty()) return whole;
    return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

// A size the run computed, rounded for reading: "596.0 GiB", "12.5 MiB".
std::string roundedSize(std::uint64_t bytes) {
    char text[32];
    if (bytes >= (std::uint64_t(1) << 30)) std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(1u << 30));
    else std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1u << 20));
    return text;
}

std::uint64_t effectiveMemoryLimit(const TiledOptions& options) {
    if (options.memoryLimit != 0) return options.memoryLimit;
    const std::uint64_t physical = physicalMemoryBytes();
    return physical != 0 ? physical / 2 : std::uint64_t(4) << 30;
}

// The limit a run plans for, as the user gave it, or the default named as such.
std::string limitDescription(const TiledOptions& options) {
    if (options.memoryLimit != 0) return "the memory limit of " + limitText(options.memoryLimit);
    return "the default memory limit of " + roundedSize(effectiveMemoryLimit(options)) + " (half the physical memory)";
}

unsigned hostThreadsFor(const TiledOptions& options) {
    const unsigned threads = options.hostThreads != 0 ? options.hostThreads : std::thread::hardware_concurrency();
    return std::max(1u, threads);
}

// The host memory of a run with tiles tw x th, in bytes, without the label
// store. A model, not a bound: it assumes at most one component per 4 pixels
// of a tile, where the tables' share stays a few bytes a pixel; images with
// more components use more (see docs/huge-images.md).
//   pass 1, per worker: the tile's pixels, its labels, the backend's table
//                       and working copies: pixel bytes + 30 bytes a pixel
//   pass 2, per thread: a tile's labels, its final labels and table rows:
//                       28 bytes a pixel; for the band: 2 bytes a pixel of
//                       final-label maps, and a strip of 4 Mi labels
//   borders: one part per two tile edge pixels (binary images have no
//            more at 4-connectivity) of 128 bytes (its union-find node, key,
//            stats, owner, component totals and final label), and 16 bytes
//            per tile row (first labels and row bases)
//   source:  in pass 1, what the source holds for the bands of one round
//            (ImageSource::bandBytes: a TIFF's decoded strips or tiles)
std::uint64_t memoryModel(std::uint32_t width, std::uint32_t height, int pixelBytes, std::uint32_t tw,
                          std::uint32_t th, unsigned workers, unsigned threads, const ImageSource* source) {
    const TilePlan plan(width, height, tw, th);
    const std::uint64_t tilePixels = std::uint64_t(plan.tileWidth()) * plan.tileHeight();
    // Bands labeled at once (LabelTilesPass: enough to keep every worker busy).
    const std::uint64_t bandsPerRound = (workers + plan.tilesX() - 1) / plan.tilesX();
    const std::uint64_t sourceBytes =
        source ? source->bandBytes(std::uint32_t(std::min<std::uint64_t>(height, bandsPerRound * plan.tileHeight())))
               : 0;
    const std::uint64_t passOne = std::uint64_t(workers) * std::uint64_t(pixelBytes + 30) * tilePixels + sourceBytes;
    const std::uint64_t passTwo = std::uint64_t(std::min(threads, plan.tilesX())) * 28 * tilePixels +
                                  2 * std::uint64_t(width) * plan.tileHeight() +
                                  std::min(std::uint64_t(1) << 22, std::uint64_t(width) * plan.tileHeight()) * 12;
    const std::uint64_t borders =
        plan.tileCount() * (std::uint64_t(plan.tileWidth()) + plan.tileHeight()) * 128 +
        std::uint64_t(height) * plan.tilesX() * 16;
    return std::max(passOne, passTwo) + borders;
}

Shape shapeOf(const ImageSource& source) {
    return source.dimensions() == 3 ? Shape::volume(source.width(), source.height(), source.depth())
                                    : Shape::image(source.width(), source.height());
}

void checkOptions(const ImageSource& source, const TiledOptions& options) {
    const std::string where = "glccl::labelTiled(): ";
    const Criterion& criterion = options.label.criterion;
    // Tiles and their borders are 2-D (4 or 8 neighbours), bricks 3-D (6, 18 or 26).
    const std::string misfit = whyConnectivityDoesNotFit(options.label.connectivity, shapeOf(source));
    if (!misfit.empty()) throw Error(where + misfit);
    if (source.channels() != 1 && source.channels() != 4)
        throw Error(where + "images have 1 or 4 channels, not " + std::to_string(source.channels()));
    if (source.channels() == 4 && criterion.kind != Criterion::Kind::Threshold)
        throw Error(where + "the " + criterion.toString() +
                    " criterion needs a 1-channel image; convert color to gray first");
    if (!Image::isSampleBits(source.sampleBits()))
        throw Error(where + "images have 8-, 16-, 32- or 64-bit samples, not " + std::to_string(source.sampleBits()));
    const std::string problem = criterion.problemForSampleBits(source.sampleBits());
    if (!problem.empty()) throw Error(where + problem);
    for (const int device : options.devices)
        if (device < 0) throw Error(where + "device " + std::to_string(device) + " is not a device number (0, 1, ...)");
}

}  // namespace

std::uint64_t physicalMemoryBytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

namespace {

TilePlan planTilesFor(std::uint32_t width, std::uint32_t height, int pixelBytes, const ImageSource* source,
                      const TiledOptions& options, const BackendLimits& limits, unsigned workers,
                      std::uint64_t* memoryEstimate) {
    const std::string where = "glccl::labelTiled(): ";
    const unsigned threads = hostThreadsFor(options);
    const std::uint64_t limit = effectiveMemoryLimit(options);
    if (options.tileWidth != 0 || options.tileHeight != 0) {
        const std::uint32_t tw = options.tileWidth != 0 ? options.tileWidth : std::min(width, limits.maxSide);
        const std::uint32_t th = options.tileHeight != 0 ? options.tileHeight : std::min(height, limits.maxSide);
        if (std::min(tw, width) > limits.maxSide || std::min(th, height) > limits.maxSide)
            throw Error(where + "tiles of " + std::to_string(tw) + "x" + std::to_string(th) + " are larger than the " +
                        backendName(limits.backend) + " backend takes here: at most " +
                        std::to_string(limits.maxSide) + " pixels a side" +
                        (limits.backend == Backend::Compute || limits.backend == Backend::Raster
                             ? " (GL_MAX_TEXTURE_SIZE of " + limits.device + ")"
                             : ""));
        const TilePlan plan(width, height, tw, th);
        if (memoryEstimate) *memoryEstimate = memoryModel(width, height, pixelBytes, tw, th, workers, threads, source);
        return plan;
    }
    // Candidates from the largest tile down, the height halved first (the
    // band, width x tile height, shrinks with it), then the width; the
    // first that fits wins. Smaller is not always leaner: the border data
    // grows as tiles shrink.
    std::uint32_t tw = std::min(width, std::min(limits.maxSide, kDefaultTileSide));
    std::uint32_t th = std::min(height, std::min(limits.maxSide, kDefaultTileSide));
    std::uint64_t smallest = UINT64_MAX;
    std::uint32_t smallestWidth = tw, smallestHeight = th;
    for (;;) {
        const std::uint64_t estimate = memoryModel(width, height, pixelBytes, tw, th, workers, threads, source);
        if (estimate <= limit) {
            if (memoryEstimate) *memoryEstimate = estimate;
            return TilePlan(width, height, tw, th);
        }
        if (estimate < smallest) {
            smallest = estimate;
            smallestWidth = tw;
            smallestHeight = th;
        }
        if (tw <= kMinAutomaticSide && th <= kMinAutomaticSide) break;
        if (th >= tw && th > kMinAutomaticSide) th = std::max(kMinAutomaticSide, th / 2);
        else tw = std::max(kMinAutomaticSide, tw / 2);
    }
    throw Error(where + limitDescription(options) + " is too small for a " + std::to_string(width) + "x" +
                std::to_string(height) + " image: the leanest tiles, " + std::to_string(smallestWidth) + "x" +
                std::to_string(smallestHeight) + " with " + std::to_string(workers) + " worker(s), need about " +
                mib(smallest));
}

// The host memory of a run with bricks bw x bh x bd, as memoryModel for
// tiles: per worker and per thread the same bytes a voxel; the band's
// final-label maps and strip; parts on the six faces of every brick; and
// the two faces of whole slices between layers of bricks.
std::uint64_t brickMemoryModel(const TilePlan& plan, int pixelBytes, unsigned workers, unsigned threads) {
    const std::uint64_t brickVoxels = std::uint64_t(plan.tileWidth()) * plan.tileHeight() * plan.tileDepth();
    const std::uint64_t slice = std::uint64_t(plan.imageWidth()) * plan.imageHeight();
    const std::uint64_t passOne = std::uint64_t(workers) * std::uint64_t(pixelBytes + 30) * brickVoxels;
    const std::uint64_t passTwo = std::uint64_t(std::min(threads, plan.tilesPerBand())) * 28 * brickVoxels +
                                  2 * slice * plan.tileDepth() +
                                  std::min(std::uint64_t(1) << 22, slice * plan.tileDepth()) * 12;
    const std::uint64_t faces = std::uint64_t(plan.tileWidth()) * plan.tileHeight() +
                                std::uint64_t(plan.tileWidth()) * plan.tileDepth() +
                                std::uint64_t(plan.tileHeight()) * plan.tileDepth();
    const std::uint64_t borders = plan.tileCount() * faces * 128 + plan.lineCount() * plan.tilesX() * 16 +
                                  2 * slice * std::uint64_t(8 + pixelBytes);
    return std::max(passOne, passTwo) + borders;
}

TilePlan planBricks(const ImageSource& source, const TiledOptions& options, const BackendLimits& limits,
                    unsigned workers, std::uint64_t* memoryEstimate) {
    const std::string where = "glccl::labelTiled(): ";
    const Shape shape = shapeOf(source);
    const int pixelBytes = source.channels() * source.sampleBits() / 8;
    const unsigned threads = hostThreadsFor(options);
    const std::uint64_t limit = effectiveMemoryLimit(options);
    const auto brickText = [](const TilePlan& plan) {
        return std::to_string(plan.tileWidth()) + "x" + std::to_string(plan.tileHeight()) + "x" +
               std::to_string(plan.tileDepth());
    };
    // A brick's local coordinate sums (voxels x largest side) stay below
    // 2^51, so centroids give them back exactly (tile_summary.cpp).
    const auto takes = [&](const TilePlan& plan) {
        const Shape brick = Shape::volume(plan.tileWidth(), plan.tileHeight(), plan.tileDepth());
        const double largestSum = double(brick.count()) *
                                  double(std::max({plan.tileWidth(), plan.tileHeight(), plan.tileDepth()}));
        return !exceedsOneCall(limits.engine, brick) && largestSum < 0x1p51;
    };
    if (options.tileWidth != 0 || options.tileHeight != 0 || options.tileDepth != 0) {
        const auto side = [](std::uint32_t given, std::int64_t extent) {
            return given != 0 ? given : std::uint32_t(std::min<std::int64_t>(extent, kDefaultBrickSide));
        };
        const TilePlan plan(shape, side(options.tileWidth, shape.width), side(options.tileHeight, shape.height),
                            side(options.tileDepth, shape.depth));
        if (!takes(plan))
            throw Error(where + "bricks of " + brickText(plan) + " are more than one call of the " +
                        backendName(limits.backend) + " backend takes here (" + limits.device + ")");
        if (memoryEstimate) *memoryEstimate = brickMemoryModel(plan, pixelBytes, workers, threads);
        return plan;
    }
    // Candidates from the largest brick down, the longest side halved
    // first; the first that one call takes and the memory limit holds wins.
    std::uint32_t sides[3];
    for (int axis = 0; axis < 3; ++axis)
        sides[axis] = std::uint32_t(std::min<std::int64_t>(shape.extent(axis), kDefaultBrickSide));
    std::uint64_t smallest = UINT64_MAX;
    for (;;) {
        const TilePlan plan(shape, sides[0], sides[1], sides[2]);
        const std::uint64_t estimate = brickMemoryModel(plan, pixelBytes, workers, threads);
        if (takes(plan)) {
            if (estimate <= limit) {
                if (memoryEstimate) *memoryEstimate = estimate;
                return plan;
            }
            smallest = std::min(smallest, estimate);
        }
        int longest = 0;
        for (int axis = 1; axis < 3; ++axis)
            if (sides[axis] > sides[longest]) longest = axis;
        if (sides[longest] <= 1) break;
        sides[longest] = std::max<std::uint32_t>(1, sides[longest] / 2);
    }
    const std::string size = std::to_string(shape.width) + "x" + std::to_string(shape.height) + "x" +
                             std::to_string(shape.depth);
    if (smallest == UINT64_MAX)
        throw Error(where + "no brick of the " + size + " volume is one call of the " + backendName(limits.backend) +
                    " backend here (" + limits.device + ")");
    throw Error(where + limitDescription(options) + " is too small for a " + size + " volume: the " +
                "leanest bricks with " + std::to_string(workers) + " worker(s) need about " + mib(smallest));
}

}  // namespace

TilePlan planTiles(std::uint32_t width, std::uint32_t height, int pixelBytes, const TiledOptions& options,
                   const BackendLimits& limits, unsigned workers, std::uint64_t* memoryEstimate) {
    return planTilesFor(width, height, pixelBytes, nullptr, options, limits, workers, memoryEstimate);
}

TilePlan planTiles(const ImageSource& source, const TiledOptions& options, const BackendLimits& limits,
                   unsigned workers, std::uint64_t* memoryEstimate) {
    if (source.dimensions() == 3) return planBricks(source, options, limits, workers, memoryEstimate);
    return planTilesFor(source.width(), source.height(), source.channels() * source.sampleBits() / 8, &source, options,
                        limits, workers, memoryEstimate);
}

namespace {

// Refuses a run whose labels (at least 4 bytes an element) and spilled tile
// labels would not fit the free space of their folders (together where they
// share a file system), before anything is labeled: a run that would fill
// the disk stops at once, not after its first pass.
void checkFreeSpace(const std::string& where, const std::string& labelsFile, std::uint64_t labelBytes,
                    const std::string& spillFolder, std::uint64_t spillBytes) {
    struct Need {
        std::string folder, what;
        std::uint64_t bytes;
    };
    std::vector<Need> needs;
    if (!labelsFile.empty()) {
        const std::filesystem::path parent = std::filesystem::path(labelsFile).parent_path();
        needs.push_back({parent.empty() ? "." : parent.string(), "the labels", labelBytes});
    }
    if (spillBytes != 0) needs.push_back({spillFolder, "the tile labels past the memory limit", spillBytes});
    for (std::size_t i = 0; i < needs.size(); ++i) {
        struct stat info {};
        if (::stat(needs[i].folder.c_str(), &info) != 0) continue;  // the writer names what is wrong with it
        std::uint64_t total = needs[i].bytes;
        std::string what = needs[i].what + " (" + roundedSize(needs[i].bytes) + ")";
        for (std::size_t j = 0; j < needs.size(); ++j) {
            struct stat other {};
            if (j != i && ::stat(needs[j].folder.c_str(), &other) == 0 && other.st_dev == info.st_dev) {
                total += needs[j].bytes;
                what += " and " + needs[j].what + " (" + roundedSize(needs[j].bytes) + ")";
            }
        }
        std::error_code error;
        const std::filesystem::space_info space = std::filesystem::space(needs[i].folder, error);
        if (!error && space.available < total)
            throw Error(where + "'" + needs[i].folder + "' has " + roundedSize(space.available) + " free, but " + what +
                        " need at least " + roundedSize(total) +
                        (spillBytes != 0 ? "; a larger --memory-limit keeps the tile labels in memory" : ""));
    }
}

// Where the spill file goes: TiledOptions::tempDir, else the system's
// temporary folder ("" when there is none: the store then says why).
std::string spillFolderOf(const TiledOptions& options) {
    if (!options.tempDir.empty()) return options.tempDir;
    std::error_code error;
    const std::filesystem::path folder = std::filesystem::temp_directory_path(error);
    return error ? std::string() : folder.string();
}

}  // namespace

TiledResult labelTiled(const ImageSource& source, const TiledOptions& options, LabelSink& sink) {
    const std::string where = "glccl::labelTiled(): ";
    checkOptions(source, options);
    TiledResult result;
    const BackendLimits limits =
        probeTileBackend(options.label.backend, source.dimensions(), options.label.connectivity);
    if (!limits.note.empty()) result.notes.push_back(limits.note);
    result.backend = limits.backend;
    result.device = limits.device;
    result.workers = options.devices.empty() ? 1 : unsigned(options.devices.size());

    const TilePlan plan = planTiles(source, options, limits, result.workers, &result.memoryEstimate);
    result.plan = plan;
    const std::uint64_t storeBytes = plan.pixelCount() * 4;
    const bool inMemory = options.store == LabelStore::Memory ||
                          (options.store == LabelStore::Auto &&
                           result.memoryEstimate + storeBytes <= effectiveMemoryLimit(options));
    checkFreeSpace(where, sink.labelsFile(), plan.pixelCount() * 4, spillFolderOf(options), inMemory ? 0 : storeBytes);
    const std::unique_ptr<TileLabelStore> store =
        inMemory ? makeMemoryLabelStore(plan, 0, plan.bands())
                 : makeSpillLabelStore(plan, 0, plan.bands(), options.tempDir);
    result.spilled = store->spilled();
    if (inMemory) result.memoryEstimate += storeBytes;

    TilePipeline pipeline(source, plan, options, 0, plan.bands());
    auto start = Clock::now();
    {
        // The workers (and their GL contexts or GPU memory) live for pass 1 only.
        TileWorkerPool pool(limits, options.label, options.devices);
        result.device = pool.describeDevices();
        pipeline.labelTiles(pool, *store);
    }
    result.labelMilliseconds = millisecondsSince(start);
    result.deviceMilliseconds = pipeline.deviceMilliseconds();
    result.busiestDeviceMilliseconds = pipeline.busiestDeviceMilliseconds();
    result.borderParts = pipeline.nodeCount();

    start = Clock::now();
    pipeline.resolveRoots(0, {});
    result.count = pipeline.ownedCount();
    // The exact count is known before a single label is written, so the
    // type is decided from it, and a uint32 request that cannot hold it
    // fails here, with nothing written.
    result.labelType = decideLabelType(options.labelType, result.count, options.uint32Limit, where);
    pipeline.number(0);
    result.numberMilliseconds = millisecondsSince(start);

    start = Clock::now();
    sink.begin(plan.shape(), result.labelType, result.count);
    pipeline.writeLabels(*store, sink, result.labelType);
    sink.finish();
    result.writeMilliseconds = millisecondsSince(start);
    return result;
}

Labeling labelTiled(const Image& image, const TiledOptions& options, TiledResult* result) {
    const ImageMemorySource source(image);
    LabelingSink sink;
    const TiledResult run = labelTiled(source, options, sink);
    if (result) *result = run;
    return std::move(sink.labeling());
}

}  // namespace glccl

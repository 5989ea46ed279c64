// labelTiled(): the driver. It sizes the tiles (bricks of a volume), starts
// the workers and runs the passes of tile_pipeline.hpp in one process.

#include "glccl/tiled.hpp"

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

// Bytes of a final label as the run plans for them: 8 when uint64 is
// asked for, else 4 (a run that turns out to need uint64 labels takes
// twice the bands' memory the model counted).
std::uint64_t plannedLabelBytes(const TiledOptions& options) { return options.labelType == LabelType::Uint64 ? 8 : 4; }

// The host memory of a run with tiles of `tilePixels` pixels (voxels), in
// bytes, without the borders. A model, not a bound: it assumes at most one
// component per 4 pixels of a tile, where the tables' share stays a few
// bytes a pixel; images with more components use more (see
// docs/huge-images.md).
//   per tile in flight: its pixels, its labels, its table and final-label
//                       map: pixel bytes + 24 bytes a pixel
//   per worker:         the backend's own memory while it labels (the
//                       reference's forest and labels): 12 bytes a pixel
//   pass 2:             the bands of final labels being filled and written
std::uint64_t tilesModel(std::uint64_t tilePixels, std::uint64_t bandPixels, int pixelBytes, unsigned workers,
                         const TiledOptions& options) {
    const unsigned inFlight = tilesInFlight(options, workers);
    return std::uint64_t(inFlight) * std::uint64_t(pixelBytes + 24) * tilePixels +
           std::uint64_t(workers) * 12 * tilePixels + 2 * bandPixels * plannedLabelBytes(options);
}

// The host memory of a run with tiles tw x th, in bytes: tilesModel, and
//   borders: one part per two tile edge pixels (binary images have no
//            more at 4-connectivity) of 128 bytes (its union-find node, key,
//            stats, owner, component totals and final label), and 16 bytes
//            per tile row (first labels and row bases)
//   source:  what the source holds for the bands of tiles in flight
//            (ImageSource::bandBytes: a TIFF's decoded strips or tiles)
std::uint64_t memoryModel(std::uint32_t width, std::uint32_t height, int pixelBytes, std::uint32_t tw,
                          std::uint32_t th, unsigned workers, const TiledOptions& options, const ImageSource* source) {
    const TilePlan plan(width, height, tw, th);
    const std::uint64_t tilePixels = std::uint64_t(plan.tileWidth()) * plan.tileHeight();
    const std::uint64_t bandsInFlight = (tilesInFlight(options, workers) + plan.tilesX() - 1) / plan.tilesX() + 1;
    const std::uint64_t sourceBytes =
        source ? source->bandBytes(std::uint32_t(std::min<std::uint64_t>(height, bandsInFlight * plan.tileHeight())))
               : 0;
    const std::uint64_t borders =
        plan.tileCount() * (std::uint64_t(plan.tileWidth()) + plan.tileHeight()) * 128 +
        std::uint64_t(height) * plan.tilesX() * 16;
    return tilesModel(tilePixels, std::uint64_t(width) * plan.tileHeight(), pixelBytes, workers, options) + borders +
           sourceBytes;
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

unsigned tilesInFlight(const TiledOptions& options, unsigned workers) {
    if (options.hostThreads != 0) return options.hostThreads;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    return std::max(workers, std::min(2 * workers + 1, cores));
}

std::uint64_t physicalMemoryBytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

namespace {

// " (<device>)" for messages, where the limits name it.
std::string deviceText(const BackendLimits& limits) {
    return limits.device.empty() ? std::string() : " (" + limits.device + ")";
}

TilePlan planTilesFor(std::uint32_t width, std::uint32_t height, int pixelBytes, const ImageSource* source,
                      const TiledOptions& options, const BackendLimits& limits, unsigned workers,
                      std::uint64_t* memoryEstimate) {
    const std::string where = "glccl::labelTiled(): ";
    const std::uint64_t limit = effectiveMemoryLimit(options);
    if (options.tileWidth != 0 || options.tileHeight != 0) {
        const std::uint32_t tw = options.tileWidth != 0 ? options.tileWidth : std::min(width, limits.maxSide);
        const std::uint32_t th = options.tileHeight != 0 ? options.tileHeight : std::min(height, limits.maxSide);
        if (std::min(tw, width) > limits.maxSide || std::min(th, height) > limits.maxSide)
            throw Error(where + "tiles of " + std::to_string(tw) + "x" + std::to_string(th) + " are larger than the " +
                        backendName(limits.backend) + " backend takes here: at most " +
                        std::to_string(limits.maxSide) + " pixels a side" +
                        (limits.backend == Backend::Compute || limits.backend == Backend::Raster
                             ? " (GL_MAX_TEXTURE_SIZE" + (limits.device.empty() ? "" : " of " + limits.device) + ")"
                             : ""));
        const TilePlan plan(width, height, tw, th);
        if (memoryEstimate) *memoryEstimate = memoryModel(width, height, pixelBytes, tw, th, workers, options, source);
        return plan;
    }
    // Candidates from the largest tile down, the height halved first (the
    // band, width x tile height, shrinks with it), then the width; the
    // first that fits, with its band within kDefaultBandBytes, wins.
    // Smaller is not always leaner: the border data grows as tiles shrink.
    std::uint32_t tw = std::min(width, std::min(limits.maxSide, kDefaultTileSide));
    std::uint32_t th = std::min(height, std::min(limits.maxSide, kDefaultTileSide));
    std::uint64_t smallest = UINT64_MAX;
    std::uint32_t smallestWidth = tw, smallestHeight = th;
    for (;;) {
        const std::uint64_t estimate = memoryModel(width, height, pixelBytes, tw, th, workers, options, source);
        const bool bandFits = std::uint64_t(width) * th * 4 <= kDefaultBandBytes || th <= kMinAutomaticSide;
        if (estimate <= limit && bandFits) {
            if (memoryEstimate) *memoryEstimate = estimate;
            return TilePlan(width, height, tw, th);
        }
        if (estimate < smallest) {
            smallest = estimate;
            smallestWidth = tw;
            smallestHeight = th;
        }
        if (tw <= kMinAutomaticSide && th <= kMinAutomaticSide) break;
        if (!bandFits || (th >= tw && th > kMinAutomaticSide)) th = std::max(kMinAutomaticSide, th / 2);
        else tw = std::max(kMinAutomaticSide, tw / 2);
    }
    throw Error(where + limitDescription(options) + " is too small for a " + std::to_string(width) + "x" +
                std::to_string(height) + " image: the leanest tiles, " + std::to_string(smallestWidth) + "x" +
                std::to_string(smallestHeight) + " with " + std::to_string(workers) + " worker(s), need about " +
                mib(smallest));
}

// The host memory of a run with bricks bw x bh x bd, as memoryModel for
// tiles: tilesModel with a layer of bricks for a band; parts on the six
// faces of every brick; the two faces of whole slices between layers of
// bricks; and what the source holds for the layers in flight (a TIFF
// stack's decoded pages).
std::uint64_t brickMemoryModel(const TilePlan& plan, int pixelBytes, unsigned workers, const TiledOptions& options,
                               const ImageSource& source) {
    const std::uint64_t brickVoxels = std::uint64_t(plan.tileWidth()) * plan.tileHeight() * plan.tileDepth();
    const std::uint64_t slice = std::uint64_t(plan.imageWidth()) * plan.imageHeight();
    const std::uint64_t faces = std::uint64_t(plan.tileWidth()) * plan.tileHeight() +
                                std::uint64_t(plan.tileWidth()) * plan.tileDepth() +
                                std::uint64_t(plan.tileHeight()) * plan.tileDepth();
    const std::uint64_t borders = plan.tileCount() * faces * 128 + plan.lineCount() * plan.tilesX() * 16 +
                                  2 * slice * std::uint64_t(8 + pixelBytes);
    const std::uint64_t layersInFlight =
        (tilesInFlight(options, workers) + plan.tilesPerBand() - 1) / plan.tilesPerBand() + 1;
    const std::uint64_t sourceLines =
        std::min(plan.lineCount(), layersInFlight * plan.tileDepth() * std::uint64_t(plan.imageHeight()));
    return tilesModel(brickVoxels, slice * plan.tileDepth(), pixelBytes, workers, options) + borders +
           source.bandBytes(std::uint32_t(std::min<std::uint64_t>(sourceLines, UINT32_MAX)));
}

// Apart from planTilesFor because the two are bounded differently: a tile
// by the engine's largest side (a GPU texture), with rows kept wide for the
// bands written from the top; a brick by what one call of the engine takes
// of a volume (exceedsOneCall: a 3-D texture's side and 2^30 voxels) and by
// exact coordinate sums, halving its longest side.
TilePlan planBricks(const ImageSource& source, const TiledOptions& options, const BackendLimits& limits,
                    unsigned workers, std::uint64_t* memoryEstimate) {
    const std::string where = "glccl::labelTiled(): ";
    const Shape shape = shapeOf(source);
    const int pixelBytes = source.channels() * source.sampleBits() / 8;
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
                        backendName(limits.backend) + " backend takes here" + deviceText(limits));
        if (memoryEstimate) *memoryEstimate = brickMemoryModel(plan, pixelBytes, workers, options, source);
        return plan;
    }
    // Candidates from the largest brick down, the depth halved first while
    // a layer of bricks is past kDefaultBandBytes, else the longest side;
    // the first that one call takes and the memory limit holds wins.
    std::uint32_t sides[3];
    for (int axis = 0; axis < 3; ++axis)
        sides[axis] = std::uint32_t(std::min<std::int64_t>(shape.extent(axis), kDefaultBrickSide));
    const std::uint64_t slice = std::uint64_t(shape.width) * std::uint64_t(shape.height);
    std::uint64_t smallest = UINT64_MAX;
    for (;;) {
        const TilePlan plan(shape, sides[0], sides[1], sides[2]);
        const std::uint64_t estimate = brickMemoryModel(plan, pixelBytes, workers, options, source);
        const bool bandFits = slice * sides[2] * 4 <= kDefaultBandBytes || sides[2] <= 1;
        if (takes(plan)) {
            if (estimate <= limit && bandFits) {
                if (memoryEstimate) *memoryEstimate = estimate;
                return plan;
            }
            smallest = std::min(smallest, estimate);
        }
        int halved = 0;
        for (int axis = 1; axis < 3; ++axis)
            if (sides[axis] > sides[halved]) halved = axis;
        if (!bandFits) halved = 2;
        if (sides[halved] <= 1) break;
        sides[halved] = std::max<std::uint32_t>(1, sides[halved] / 2);
    }
    const std::string size = std::to_string(shape.width) + "x" + std::to_string(shape.height) + "x" +
                             std::to_string(shape.depth);
    if (smallest == UINT64_MAX)
        throw Error(where + "no brick of the " + size + " volume is one call of the " + backendName(limits.backend) +
                    " backend here" + deviceText(limits));
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

// Refuses a run whose labels (at least 4 bytes an element) would not fit
// the free space of their folder, before anything is labeled: a run that
// would fill the disk stops at once, not after its first pass.
void checkFreeSpace(const std::string& where, const std::string& labelsFile, std::uint64_t labelBytes) {
    if (labelsFile.empty()) return;
    const std::filesystem::path parent = std::filesystem::path(labelsFile).parent_path();
    const std::string folder = parent.empty() ? "." : parent.string();
    std::error_code error;
    const std::filesystem::space_info space = std::filesystem::space(folder, error);
    // A folder that cannot be asked: the writer names what is wrong with it.
    if (!error && space.available < labelBytes)
        throw Error(where + "'" + folder + "' has " + roundedSize(space.available) +
                    " free, but the labels need at least " + roundedSize(labelBytes));
}

}  // namespace

TiledResult labelInPieces(const ImageSource& source, const Route& route, const TiledOptions& options,
                          LabelSink& sink) {
    const std::string where = "glccl::labelTiled(): ";
    checkOptions(source, options);
    TiledResult result;
    if (!route.note.empty()) result.notes.push_back(route.note);
    result.backend = route.backend;
    result.workers = options.devices.empty() ? 1 : unsigned(options.devices.size());

    checkFreeSpace(where, sink.labelsFile(), shapeOf(source).count() * 4);
    const BackendLimits limits = limitsOf(route);
    const TilePlan plan = planTiles(source, options, limits, result.workers, &result.memoryEstimate);
    result.plan = plan;
    result.tilesInFlight = tilesInFlight(options, result.workers);

    TilePipeline pipeline(source, plan, options, 0, plan.bands());
    // The workers (and their GL contexts or GPU memory) serve both passes.
    TileWorkerPool pool(limits, options.label, options.devices);
    result.device = pool.describeDevices();
    if (sink.wantsLabels()) pipeline.prepareBands(options.labelType == LabelType::Uint64 ? 8 : 4);
    auto start = Clock::now();
    pipeline.labelTiles(pool);
    result.labelMilliseconds = millisecondsSince(start);
    result.deviceMilliseconds = pipeline.deviceMilliseconds(0);
    result.busiestDeviceMilliseconds = pipeline.busiestDeviceMilliseconds(0);
    result.labelCallMilliseconds = pipeline.labelCallMilliseconds(0);
    result.mergeMilliseconds = pipeline.mergeMilliseconds();
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
    pipeline.writeLabels(pool, sink, result.labelType);
    sink.finish();
    result.writeMilliseconds = millisecondsSince(start);
    result.relabelDeviceMilliseconds = pipeline.deviceMilliseconds(1);
    result.relabelCallMilliseconds = pipeline.labelCallMilliseconds(1);
    result.sinkMilliseconds = pipeline.sinkMilliseconds();
    return result;
}

}  // namespace glccl

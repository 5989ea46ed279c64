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
#include "engine_registry.hpp"
#include "glccl/error.hpp"
#include "glccl/tile_pipeline.hpp"
#include "pipeline_state.hpp"

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

// What a plan needs, for messages: its bound, what of it is held already
// and what the bound assumes.
std::string needText(std::uint64_t bound, const TiledOptions& options) {
    return mib(bound) + (options.memoryInUse != 0 ? " (" + mib(options.memoryInUse) + " of it held already)" : "") +
           " with as many components as the " + (options.label.criterion.kind == Criterion::Kind::Binary
                                                     ? "connectivity"
                                                     : "criterion") +
           " lets the tiles hold";
}

// Bytes of a final label as the run plans for them: 8 where uint64 is
// asked for, or where auto may need it (the image can hold more components
// than uint32 holds), else 4.
std::uint64_t plannedLabelBytes(const TiledOptions& options, const Shape& shape) {
    if (options.labelType == LabelType::Uint64) return 8;
    const bool mayWiden = options.labelType == LabelType::Auto &&
                          detail::maxComponents(std::uint64_t(shape.width), std::uint64_t(shape.height),
                                        std::uint64_t(shape.depth), options.label) > options.uint32Limit;
    return mayWiden ? 8 : 4;
}

// Bytes that grow with one component of a tile in flight: its table row,
// and in pass 1 its part index (summarizeTile), in pass 2 its final label
// and the copy of it in the label type (relabel_tiles.cpp).
std::uint64_t tileBytesPerComponent(std::uint64_t labelBytes) {
    return sizeof(Component) + std::max<std::uint64_t>(sizeof(std::uint32_t), sizeof(std::uint64_t) + labelBytes);
}
// Bytes of a part (a label on a tile's side) from pass 1 to the end: its
// union-find node, key and stats (room for the most parts made at once:
// BorderForest::reserve), its owner, component totals and final label
// (ResolveRootsPass), and its label in the tile's state.
constexpr std::uint64_t kBytesPerPart = sizeof(std::uint64_t) + sizeof(PartKey) + sizeof(PartStats) +
                                        sizeof(std::uint64_t) + sizeof(PartStats) + sizeof(std::uint64_t) +
                                        sizeof(std::uint32_t);
// A part in a tile's summary while its band waits to be merged.
constexpr std::uint64_t kBytesPerWaitingPart = sizeof(PartKey) + sizeof(PartStats) + sizeof(std::uint32_t);
// Faces of the width of the image (a slice of a volume) held at once: the
// region's outer rows, the row above the band being merged, the band's own
// first and last lines, and the strip that joins two of them.
constexpr std::uint64_t kFacesHeld = 6;

// The host memory of a run with tiles (bricks) of `plan`, in bytes, with
// as many components as its tiles can hold (maxComponents): a bound for
// every content, not a model of a typical one.
//   tiles in flight: the tile's pixels and labels, and its components
//                    (tileBytesPerComponent)
//   per worker:      the engine's own memory (its registry entry's
//                    hostMemory, core/internal/engine_registry.hpp)
//   bands:           pass 2's kBandSlots bands of final labels and of
//                    table rows
//   tiles:           each tile's state, 16 bytes a tile line (first
//                    labels, row bases, the parts numbered elsewhere)
//   parts:           the labels on every tile's sides (kBytesPerPart), and
//                    the summaries of the bands waiting to be merged
//   faces:           kFacesHeld lines (slices) of node ids and pixels
//   source:          what the source holds for the bands in flight
//                    (ImageSource::bandBytes: a TIFF's decoded strips or
//                    tiles, an .npy's mapped pages)
//   in use:          TiledOptions::memoryInUse
std::uint64_t memoryBound(const TilePlan& plan, int pixelBytes, unsigned workers, const TiledOptions& options,
                          const BackendLimits& limits, const ImageSource* source) {
    const LabelOptions& label = options.label;
    const std::uint64_t tw = plan.tileWidth(), th = plan.tileHeight(), td = plan.tileDepth();
    const std::uint64_t width = plan.imageWidth(), height = plan.imageHeight();
    const bool volume = plan.isVolume();
    const std::uint64_t labelBytes = plannedLabelBytes(options, plan.shape());
    const std::uint64_t elements = tw * th * td, components = detail::maxComponents(tw, th, td, label);
    const std::uint64_t inFlight = tilesInFlight(options, workers);
    const engines::EngineEntry::HostMemory engine = engines::engineEntry(limits.backend).hostMemory;
    const std::uint64_t tiles =
        inFlight * (elements * (std::uint64_t(pixelBytes) + sizeof(std::uint32_t)) +
                    components * tileBytesPerComponent(labelBytes)) +
        std::uint64_t(workers) * (elements * engine.perElement + components * engine.perComponent);
    // A band: the tiles' rows over the image width, or a layer of bricks.
    const std::uint64_t bandElements = volume ? width * height * td : width * th;
    const std::uint64_t bandComponents = volume ? detail::maxComponents(width, height, td, label)
                                                : detail::maxComponents(width, th, 1, label);
    const std::uint64_t bands = detail::kBandSlots * (bandElements * labelBytes + bandComponents * sizeof(Component));
    const std::uint64_t states = plan.tileCount() * (sizeof(detail::TileState) + sizeof(detail::TileSummary)) +
                                 plan.lineCount() * plan.tilesX() * 16;
    const std::uint64_t sideElements = 2 * td * (tw + th) + (plan.tilesZ() > 1 ? 2 * th * tw : 0);
    const std::uint64_t partsOfTile = detail::maxPartsOfTile(plan, label);
    const std::uint64_t waitingTiles =
        std::min<std::uint64_t>(plan.tileCount(), (1 + detail::kBandsAhead) * std::uint64_t(plan.tilesPerBand()));
    const std::uint64_t parts =
        plan.tileCount() * partsOfTile * kBytesPerPart +
        waitingTiles * (partsOfTile * kBytesPerWaitingPart + sideElements * (sizeof(std::uint32_t) + pixelBytes));
    const std::uint64_t faceElements = volume ? width * height : width;
    const std::uint64_t faces = kFacesHeld * faceElements * (sizeof(std::uint64_t) + std::uint64_t(pixelBytes));
    const std::uint64_t bandLines = volume ? td * height : th;
    const std::uint64_t sourceLines = std::min(plan.lineCount(), (1 + detail::kBandsAhead) * bandLines);
    const std::uint64_t sourceBytes =
        source ? source->bandBytes(std::uint32_t(std::min<std::uint64_t>(sourceLines, UINT32_MAX))) : 0;
    return tiles + bands + states + parts + faces + sourceBytes + options.memoryInUse;
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

namespace detail {

// The most components a tile (a brick) of w x h x d elements can hold,
// whatever its content. Binary components never touch, so at 4 and 6 at
// most every other element is one (a checkerboard), at 8 one in every 2x2
// block, at 18 one in every 2x2 block of each slice (the elements whose
// coordinates are all even or all odd), at 26 one in every 2x2x2 block.
// Under the other criteria neighbours of different values part, and under
// a neighbourhood of fewer neighbours they may not join: every element can
// be a component.
std::uint64_t maxComponents(std::uint64_t w, std::uint64_t h, std::uint64_t d, const LabelOptions& label) {
    const auto half = [](std::uint64_t n) { return (n + 1) / 2; };
    if (label.criterion.kind != Criterion::Kind::Binary || label.neighbourhood) return w * h * d;
    switch (label.connectivity) {
        case Connectivity::Four:
        case Connectivity::Six: return half(w * h * d);
        case Connectivity::Eight:
        case Connectivity::Eighteen: return half(w) * half(h) * d;
        case Connectivity::TwentySix: return half(w) * half(h) * half(d);
    }
    return w * h * d;
}

// The most parts (labels on its sides) a tile of `plan` can have: on each
// side, a line of a tile or a face of a brick, as many as components of
// that side alone (where neighbours on a face join as they do in a slice).
std::uint64_t maxPartsOfTile(const TilePlan& plan, const LabelOptions& label) {
    const std::uint64_t tw = plan.tileWidth(), th = plan.tileHeight(), td = plan.tileDepth();
    std::uint64_t parts = 2 * (maxComponents(tw, td, 1, label) + maxComponents(th, td, 1, label));
    if (plan.tilesZ() > 1) parts += 2 * maxComponents(tw, th, 1, label);
    return parts;
}

}  // namespace detail

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

// /proc/self/statm's resident bytes, less its shared (file-backed) ones
// with `ownOnly`; 0 when unknown.
std::uint64_t statmBytes(bool ownOnly) {
    // statm: total program size, then resident pages, then shared ones.
    std::FILE* statm = std::fopen("/proc/self/statm", "r");
    if (statm == nullptr) return 0;
    unsigned long long size = 0, resident = 0, shared = 0;
    const bool read = std::fscanf(statm, "%llu %llu %llu", &size, &resident, &shared) == 3;
    std::fclose(statm);
    const long page = ::sysconf(_SC_PAGESIZE);
    if (!read || page <= 0) return 0;
    const unsigned long long pages = ownOnly ? (resident > shared ? resident - shared : 0) : resident;
    return std::uint64_t(pages) * std::uint64_t(page);
}

}  // namespace

std::uint64_t residentMemoryBytes() { return statmBytes(false); }
std::uint64_t anonymousResidentBytes() { return statmBytes(true); }

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
        const std::uint64_t bound = memoryBound(plan, pixelBytes, workers, options, limits, source);
        // Tiles given with a limit given: the limit holds, or nothing runs.
        if (options.memoryLimit != 0 && bound > limit)
            throw MemoryLimitError(where + limitDescription(options) + " does not hold tiles of " +
                                   std::to_string(tw) + "x" + std::to_string(th) + " of a " + std::to_string(width) +
                                   "x" + std::to_string(height) + " image with " + std::to_string(workers) +
                                   " worker(s): they need up to " + needText(bound, options) +
                                   "; leave the tile size out (--tile) to have tiles chosen within it");
        if (memoryEstimate) *memoryEstimate = bound;
        return plan;
    }
    // Every tile of power-of-two sides from kMinAutomaticSide up to the
    // largest is a candidate; of those within the limit, with a band within
    // kDefaultBandBytes, the one of most pixels wins, the wider of two
    // (the band, width x tile height, is lower). Smaller is not always
    // leaner: the border data grows as tiles shrink, the bands as they grow.
    const auto sides = [](std::uint32_t largest) {
        std::vector<std::uint32_t> candidates;
        for (std::uint32_t side = largest;; side = std::max(kMinAutomaticSide, side / 2)) {
            candidates.push_back(side);
            if (side <= kMinAutomaticSide) break;
        }
        return candidates;
    };
    std::uint64_t smallest = UINT64_MAX, best = 0, bestEstimate = 0;
    std::uint32_t smallestWidth = 0, smallestHeight = 0, bestWidth = 0, bestHeight = 0;
    for (const std::uint32_t th : sides(std::min(height, std::min(limits.maxSide, kDefaultTileSide))))
        for (const std::uint32_t tw : sides(std::min(width, std::min(limits.maxSide, kDefaultTileSide)))) {
            const std::uint64_t estimate =
                memoryBound(TilePlan(width, height, tw, th), pixelBytes, workers, options, limits, source);
            if (estimate < smallest) {
                smallest = estimate;
                smallestWidth = tw;
                smallestHeight = th;
            }
            const bool bandFits = std::uint64_t(width) * th * 4 <= kDefaultBandBytes || th <= kMinAutomaticSide;
            const std::uint64_t pixels = std::uint64_t(tw) * th;
            if (estimate <= limit && bandFits && (pixels > best || (pixels == best && tw > bestWidth))) {
                best = pixels;
                bestWidth = tw;
                bestHeight = th;
                bestEstimate = estimate;
            }
        }
    if (best != 0) {
        if (memoryEstimate) *memoryEstimate = bestEstimate;
        return TilePlan(width, height, bestWidth, bestHeight);
    }
    throw MemoryLimitError(where + limitDescription(options) + " is too small for a " + std::to_string(width) + "x" +
                           std::to_string(height) + " image: the leanest tiles, " + std::to_string(smallestWidth) +
                           "x" + std::to_string(smallestHeight) + " with " + std::to_string(workers) +
                           " worker(s), need up to " + needText(smallest, options));
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
        const std::uint64_t bound = memoryBound(plan, pixelBytes, workers, options, limits, &source);
        if (options.memoryLimit != 0 && bound > limit)
            throw MemoryLimitError(where + limitDescription(options) + " does not hold bricks of " + brickText(plan) +
                                   " with " + std::to_string(workers) + " worker(s): they need up to " +
                                   needText(bound, options) +
                                   "; leave the brick size out (--tile) to have bricks chosen within it");
        if (memoryEstimate) *memoryEstimate = bound;
        return plan;
    }
    // Every brick of sides halved from the largest (at most
    // kDefaultBrickSide) is a candidate; of those one call takes, within
    // the limit, with a layer of bricks within kDefaultBandBytes, the one of
    // most voxels wins, the leaner of two. Smaller is not always leaner:
    // the faces' parts grow as bricks shrink, the layers as they deepen.
    const auto halvings = [](std::int64_t extent) {
        std::vector<std::uint32_t> sides;
        for (std::uint32_t side = std::uint32_t(std::min<std::int64_t>(extent, kDefaultBrickSide));; side /= 2) {
            sides.push_back(side);
            if (side <= 1) break;
        }
        return sides;
    };
    const std::uint64_t slice = std::uint64_t(shape.width) * std::uint64_t(shape.height);
    std::uint64_t smallest = UINT64_MAX, best = 0, bestEstimate = 0;
    TilePlan chosen;
    for (const std::uint32_t bd : halvings(shape.depth))
        for (const std::uint32_t bh : halvings(shape.height))
            for (const std::uint32_t bw : halvings(shape.width)) {
                const TilePlan plan(shape, bw, bh, bd);
                if (!takes(plan)) continue;
                const std::uint64_t estimate = memoryBound(plan, pixelBytes, workers, options, limits, &source);
                smallest = std::min(smallest, estimate);
                const bool bandFits = slice * bd * 4 <= kDefaultBandBytes || bd <= 1;
                const std::uint64_t voxels = std::uint64_t(bw) * bh * bd;
                if (estimate <= limit && bandFits &&
                    (voxels > best || (voxels == best && estimate < bestEstimate))) {
                    best = voxels;
                    bestEstimate = estimate;
                    chosen = plan;
                }
            }
    if (best != 0) {
        if (memoryEstimate) *memoryEstimate = bestEstimate;
        return chosen;
    }
    const std::string size = std::to_string(shape.width) + "x" + std::to_string(shape.height) + "x" +
                             std::to_string(shape.depth);
    if (smallest == UINT64_MAX)
        throw Error(where + "no brick of the " + size + " volume is one call of the " + backendName(limits.backend) +
                    " backend here" + deviceText(limits));
    throw MemoryLimitError(where + limitDescription(options) + " is too small for a " + size + " volume: the " +
                           "leanest bricks with " + std::to_string(workers) + " worker(s) need up to " +
                           needText(smallest, options));
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

// Refuses a run whose labels (labelBytes of an element) would not fit
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

    // Auto's type is known only once the labels are counted: 4 bytes at least.
    checkFreeSpace(where, sink.labelsFile(), shapeOf(source).count() * labelBytes(options.labelType));
    const BackendLimits limits = limitsOf(route);
    // The workers (and their GL contexts or GPU memory) serve both passes.
    // They are made first, and one labels a corner of the input, so that
    // the plan counts what an engine holds once it has labeled (a context,
    // its compiled programs) for every worker, as it counts the sink's
    // buffers. A GPU engine picks its programs and kernels by the size it
    // labels (work-group widths, where its parents live), and a driver holds
    // host memory for each it builds or loads: such an engine labels a
    // corner of the planned tile's size too, and the plan is made again with
    // what that added.
    const std::uint64_t beforeWorkers = residentMemoryBytes();
    TileWorkerPool pool(limits, options.label, options.devices);
    result.device = pool.describeDevices();
    const auto labelCorner = [&](std::uint64_t width, std::uint64_t height, std::uint64_t depth) {
        TileRect corner;
        corner.width = std::uint32_t(std::min<std::uint64_t>(source.width(), width));
        corner.height = std::uint32_t(std::min<std::uint64_t>(source.height(), height));
        corner.depth = source.dimensions() == 3 ? std::uint32_t(std::min<std::uint64_t>(source.depth(), depth)) : 1;
        Image pixels;
        source.readBrick(corner, pixels);
        std::vector<std::uint32_t> labels(std::size_t(corner.pixels()));
        std::vector<Component> table;
        pool.label(pixels, labels.data(), table, nullptr);
    };
    const auto planAfterCorner = [&] {
        const std::uint64_t afterWorkers = residentMemoryBytes();
        TiledOptions planned = options;
        planned.memoryInUse +=
            sink.bufferBytes() + (afterWorkers > beforeWorkers ? afterWorkers - beforeWorkers : 0) * result.workers;
        return planTiles(source, planned, limits, result.workers, &result.memoryEstimate);
    };
    labelCorner(16, 16, 16);
    TilePlan plan = planAfterCorner();
    if (limits.backend != Backend::Cpu && limits.backend != Backend::Reference) {
        labelCorner(plan.tileWidth(), plan.tileHeight(), plan.tileDepth());
        plan = planAfterCorner();
    }
    result.plan = plan;
    result.tilesInFlight = tilesInFlight(options, result.workers);

    TilePipeline pipeline(source, plan, options, 0, plan.bands());
    if (sink.wantsLabels()) pipeline.prepareBands(plannedLabelBytes(options, plan.shape()));
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

// LabelTilesPass and MergeBordersPass: every tile is read, labeled by a
// worker and summarized on the host threads of a TileFlow; band after band,
// on the calling thread, its parts join the union-find and are united
// across the band's column borders and across the row border with the band
// above:
//
//        band above:  [ tile ][ tile ][ tile ]   bottom rows -> previous
//                     ============================  row border (full width)
//        this band:   [ tile ]|[ tile ]|[ tile ]    column borders
//
// A row border is handled in one piece over the whole image width, so a
// diagonal pair that crosses a tile corner is one of its pairs. Bricks go
// the same way, one border per axis, each whole where it crosses another:
// inside a layer, the faces between bricks side by side (x), then the faces
// between rows of bricks over the whole width (y, which holds the edge
// pairs across x too); between layers, the face of whole slices (z, which
// holds every pair across an edge or corner with it).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "glccl/error.hpp"
#include "pipeline_state.hpp"

namespace glccl {

namespace {

// Lines r of several tile sides, one after the other, as a face of node ids.
void appendEdgeLine(BorderFace& face, const detail::TileEdge& edge, std::size_t line, std::uint64_t firstNode) {
    const std::size_t length = edge.parts.size() / edge.rows;
    const std::size_t pixelBytes = face.pixelBytes();
    for (std::size_t i = line * length; i < (line + 1) * length; ++i)
        face.nodes.push_back(edge.parts[i] == 0 ? BorderFace::kNone : firstNode + edge.parts[i] - 1);
    face.pixels.insert(face.pixels.end(), edge.pixels.begin() + std::ptrdiff_t(line * length * pixelBytes),
                       edge.pixels.begin() + std::ptrdiff_t((line + 1) * length * pixelBytes));
}

// A face of `rows` lines, with room for `pixels` pixels.
BorderFace emptyFace(const ImageSource& source, std::size_t rows, std::size_t pixels) {
    BorderFace face;
    face.channels = source.channels();
    face.sampleBits = source.sampleBits();
    face.rows = rows;
    face.nodes.reserve(pixels);
    face.pixels.reserve(pixels * face.pixelBytes());
    return face;
}

}  // namespace

TilePipeline::TilePipeline(const ImageSource& source, const TilePlan& plan, const TiledOptions& options,
                           std::uint32_t firstBand, std::uint32_t endBand)
    : impl_(std::make_unique<Impl>(source, plan, options, firstBand, endBand)) {
    if (firstBand > endBand || endBand > plan.bands())
        throw Error("glccl::TilePipeline: bands " + std::to_string(firstBand) + ".." + std::to_string(endBand) +
                    " are not within the plan's " + std::to_string(plan.bands()));
    if (source.width() != plan.imageWidth() || source.height() != plan.imageHeight() ||
        source.depth() != plan.imageDepth() || source.dimensions() != plan.dimensions())
        throw Error("glccl::TilePipeline: the source is " + std::to_string(source.width()) + "x" +
                    std::to_string(source.height()) + (source.dimensions() == 3 ? "x" + std::to_string(source.depth()) : "") +
                    " but the plan is for " + std::to_string(plan.imageWidth()) + "x" +
                    std::to_string(plan.imageHeight()) + (plan.isVolume() ? "x" + std::to_string(plan.imageDepth()) : ""));
}

TilePipeline::~TilePipeline() = default;

namespace {

// MergeBordersPass for one band: its tiles' parts join the union-find, are
// united across the band's inner borders and, through the band's first
// line, with `previousBottom` (the last line of the band above), which then
// becomes this band's last line.
void mergeBand(TilePipeline::Impl& s, std::uint32_t band, detail::TileSummary* tiles, BorderFace& previousBottom) {
    const TilePlan& plan = s.plan;
    const std::uint32_t perBand = plan.tilesPerBand(), tilesX = plan.tilesX();
    const std::uint32_t rowsOfTiles = plan.isVolume() ? plan.tilesY() : 1;
    const Connectivity connectivity = s.options.label.connectivity;
    const Criterion criterion = s.options.label.criterion;
    const auto unite = [&s](std::uint64_t a, std::uint64_t b) { s.forest.unite(a, b); };
    for (std::uint32_t i = 0; i < perBand; ++i) {
        detail::TileSummary& summary = tiles[i];
        detail::TileState& state = s.tileAt(i, band);
        state.rect = plan.bandTile(band, i);
        state.count = summary.count;
        state.tableFingerprint = summary.tableFingerprint;
        state.firstLabelOfRow = std::move(summary.firstLabelOfRow);
        state.partLabels = std::move(summary.partLabels);
        state.firstNode = s.forest.size();
        for (std::size_t j = 0; j < summary.partKeys.size(); ++j) s.forest.add(summary.partKeys[j], summary.partStats[j]);
    }
    const auto node = [&](std::uint32_t i) { return s.tileAt(i, band).firstNode; };
    // Column borders (faces across x), as many rows as the band has slices.
    for (std::uint32_t ty = 0; ty < rowsOfTiles; ++ty)
        for (std::uint32_t tx = 1; tx < tilesX; ++tx) {
            const std::uint32_t i = ty * tilesX + tx;
            const detail::TileEdge& leftSide = tiles[i - 1].right;
            const detail::TileEdge& rightSide = tiles[i].left;
            BorderFace left = emptyFace(s.source, leftSide.rows, leftSide.parts.size());
            BorderFace right = emptyFace(s.source, rightSide.rows, rightSide.parts.size());
            for (std::size_t r = 0; r < leftSide.rows; ++r) {
                appendEdgeLine(left, leftSide, r, node(i - 1));
                appendEdgeLine(right, rightSide, r, node(i));
            }
            forEachConnectedPair(left, right, connectivity, criterion, unite);
        }
    // Row borders inside a layer of bricks (faces across y), whole width.
    const std::size_t slices = tiles[0].top.rows;  // 1 for an image
    const auto rowOfTilesFace = [&](std::uint32_t ty, bool bottomSide) {
        BorderFace face = emptyFace(s.source, slices, slices * plan.imageWidth());
        for (std::size_t r = 0; r < slices; ++r)
            for (std::uint32_t tx = 0; tx < tilesX; ++tx) {
                const std::uint32_t i = ty * tilesX + tx;
                appendEdgeLine(face, bottomSide ? tiles[i].bottom : tiles[i].top, r, node(i));
            }
        return face;
    };
    for (std::uint32_t ty = 1; ty < rowsOfTiles; ++ty)
        forEachConnectedPair(rowOfTilesFace(ty - 1, true), rowOfTilesFace(ty, false), connectivity, criterion, unite);
    // The band's first and last lines as faces: rows of an image, the first
    // and last slices of a layer of bricks.
    BorderFace top, bottom;
    if (!plan.isVolume()) {
        top = rowOfTilesFace(0, false);
        bottom = rowOfTilesFace(0, true);
    } else if (plan.tilesZ() > 1) {
        const std::size_t slice = std::size_t(plan.imageWidth()) * plan.imageHeight();
        top = emptyFace(s.source, plan.imageHeight(), slice);
        bottom = emptyFace(s.source, plan.imageHeight(), slice);
        for (std::uint32_t ty = 0; ty < rowsOfTiles; ++ty)
            for (std::size_t r = 0; r < tiles[ty * tilesX].front.rows; ++r)
                for (std::uint32_t tx = 0; tx < tilesX; ++tx) {
                    const std::uint32_t i = ty * tilesX + tx;
                    appendEdgeLine(top, tiles[i].front, r, node(i));
                    appendEdgeLine(bottom, tiles[i].back, r, node(i));
                }
    }
    if (band == s.firstBand) s.topRow = std::move(top);
    else forEachConnectedPair(previousBottom, top, connectivity, criterion, unite);
    previousBottom = std::move(bottom);
    for (std::uint32_t i = 0; i < perBand; ++i) tiles[i] = detail::TileSummary();  // sides merged: free them
}

}  // namespace

TileRect TilePipeline::Impl::readAndLabel(TileWorkerPool& pool, detail::TileBuffers& buffers, std::size_t i,
                                          int pass) {
    const std::uint32_t perBand = plan.tilesPerBand();
    const std::uint32_t band = firstBand + std::uint32_t(i / perBand);
    const TileRect tile = plan.bandTile(band, std::uint32_t(i % perBand));
    // The lines of a band are read from disk in file order (the first
    // band's at once, every later one while the band before is read), not
    // piece by piece as the tiles ask for them.
    if (i == 0) {
        const auto lines = linesOf(band, band + 1);
        source.prefetch(lines.first, lines.second);
    }
    if (i % perBand == 0 && band + 1 < endBand) {
        const auto lines = linesOf(band + 1, band + 2);
        source.prefetch(lines.first, lines.second);
    }
    source.readBrick(tile, buffers.pixels);
    buffers.labels.reserve(std::size_t(tile.pixels()) * sizeof(std::uint32_t));
    // Room for the most rows the tile can have, made once: the engine's
    // table never grows by a copy beside the old rows, and only the rows
    // written take memory.
    buffers.table.clear();
    buffers.table.reserve(std::size_t(
        detail::maxComponents(plan.tileWidth(), plan.tileHeight(), plan.tileDepth(), options.label)));
    const TileWorkerPool::LabelCall call = pool.label(buffers.pixels, buffers.labels.as<std::uint32_t>(),
                                                      buffers.table, options.deviceTimings ? &buffers.timings : nullptr);
    double device = 0.0;
    if (options.deviceTimings)
        for (const StageTime& stage : buffers.timings)
            device += stage.measured ? stage.milliseconds : std::numeric_limits<double>::quiet_NaN();
    const std::lock_guard<std::mutex> lock(timingMutex);
    PassTimes& times = passTimes[pass];
    times.labelCallMilliseconds += call.milliseconds;
    times.deviceMilliseconds += device;
    times.workerDeviceMilliseconds[call.worker] += device;
    return tile;
}

void TilePipeline::labelTiles(TileWorkerPool& pool) {
    Impl& s = *impl_;
    const TilePlan& plan = s.plan;
    const std::uint32_t perBand = plan.tilesPerBand();
    const std::uint32_t bands = s.endBand - s.firstBand;
    s.tiles.assign(std::size_t(bands) * perBand, detail::TileState());
    s.forest.reserve(std::uint64_t(s.tiles.size()) * detail::maxPartsOfTile(plan, s.options.label));
    std::vector<detail::TileSummary> summaries(s.tiles.size());
    detail::TileFlow flow(s.tiles.size(), perBand, tilesInFlight(s.options, pool.size()),
                          [&](detail::TileBuffers& buffers, std::size_t i) {
                              const TileRect tile = s.readAndLabel(pool, buffers, i, 0);
                              summaries[i] = detail::summarizeTile(plan, tile, buffers.pixels,
                                                                   buffers.labels.as<std::uint32_t>(), buffers.table);
                          });
    // Tiles of the two bands after the one being merged are labeled
    // meanwhile: enough to keep the workers busy, few summaries waiting.
    using detail::kBandsAhead;
    flow.allowBands(1 + kBandsAhead);
    BorderFace previousBottom;
    for (std::uint32_t b = 0; b < bands; ++b) {
        flow.waitForBand(b);
        const auto lines = s.linesOf(s.firstBand + b, s.firstBand + b + 1);
        s.source.release(lines.first, lines.second);
        const auto start = std::chrono::steady_clock::now();
        mergeBand(s, s.firstBand + b, summaries.data() + std::size_t(b) * perBand, previousBottom);
        s.mergeMilliseconds +=
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        flow.allowBands(b + 2 + kBandsAhead);
        s.report("label", std::uint64_t(b + 1) * perBand, std::uint64_t(bands) * perBand);
    }
    if (bands > 0) s.bottomRow = std::move(previousBottom);
}

std::uint64_t TilePipeline::nodeCount() const { return impl_->forest.size(); }
PartKey TilePipeline::nodeKey(std::uint64_t node) const { return impl_->forest.key(node); }
std::uint64_t TilePipeline::localRoot(std::uint64_t node) { return impl_->forest.find(node); }

namespace {
BorderFace withRoots(const BorderFace& row, detail::BorderForest& forest) {
    BorderFace rooted = row;
    for (std::uint64_t& node : rooted.nodes)
        if (node != BorderFace::kNone) node = forest.find(node);
    return rooted;
}
}  // namespace

BorderFace TilePipeline::regionTopRow() { return withRoots(impl_->topRow, impl_->forest); }
BorderFace TilePipeline::regionBottomRow() { return withRoots(impl_->bottomRow, impl_->forest); }

double TilePipeline::deviceMilliseconds(int pass) const { return impl_->passTimes[pass].deviceMilliseconds; }

double TilePipeline::busiestDeviceMilliseconds(int pass) const {
    double busiest = 0.0;
    for (const auto& [worker, milliseconds] : impl_->passTimes[pass].workerDeviceMilliseconds)
        busiest = std::isnan(milliseconds) ? milliseconds : std::max(busiest, milliseconds);
    return busiest;
}

double TilePipeline::labelCallMilliseconds(int pass) const { return impl_->passTimes[pass].labelCallMilliseconds; }
double TilePipeline::mergeMilliseconds() const { return impl_->mergeMilliseconds; }
double TilePipeline::sinkMilliseconds() const { return impl_->sinkMilliseconds; }

}  // namespace glccl

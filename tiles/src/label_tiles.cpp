// LabelTilesPass and MergeBordersPass: band after band, every tile is read,
// labeled by a worker, stored and summarized; then its parts join the
// union-find and are united across the band's column borders and across the
// row border with the band above:
//
//        band above:  [ tile ][ tile ][ tile ]   bottom rows -> previous
//                     ============================  row border (full width)
//        this band:   [ tile ]|[ tile ]|[ tile ]    column borders
//
// A row border is handled in one piece over the whole image width, so a
// diagonal pair that crosses a tile corner is one of its pairs.

#include <algorithm>
#include <chrono>
#include <string>

#include "glccl/error.hpp"
#include "pipeline_state.hpp"

namespace glccl {

namespace {

// A tile edge as a BorderRow of node ids.
void appendEdge(BorderRow& row, const std::vector<std::uint32_t>& edge, const std::vector<std::uint8_t>& pixels,
                std::uint64_t firstNode) {
    for (const std::uint32_t part : edge) row.nodes.push_back(part == 0 ? BorderRow::kNone : firstNode + part - 1);
    row.pixels.insert(row.pixels.end(), pixels.begin(), pixels.end());
}

}  // namespace

TilePipeline::TilePipeline(const ImageSource& source, const TilePlan& plan, const TiledOptions& options,
                           std::uint32_t firstBand, std::uint32_t endBand)
    : impl_(std::make_unique<Impl>(source, plan, options, firstBand, endBand)) {
    if (firstBand > endBand || endBand > plan.tilesY())
        throw Error("glccl::TilePipeline: bands " + std::to_string(firstBand) + ".." + std::to_string(endBand) +
                    " are not within the plan's " + std::to_string(plan.tilesY()));
    if (source.width() != plan.imageWidth() || source.height() != plan.imageHeight())
        throw Error("glccl::TilePipeline: the source is " + std::to_string(source.width()) + "x" +
                    std::to_string(source.height()) + " but the plan is for " + std::to_string(plan.imageWidth()) +
                    "x" + std::to_string(plan.imageHeight()));
    unsigned threads = options.hostThreads != 0 ? options.hostThreads : std::thread::hardware_concurrency();
    impl_->hostThreads = std::max(1u, threads);
}

TilePipeline::~TilePipeline() = default;

void TilePipeline::labelTiles(TileWorkerPool& pool, TileLabelStore& store) {
    Impl& s = *impl_;
    const std::uint32_t tilesX = s.plan.tilesX();
    s.tiles.assign(std::size_t(s.endBand - s.firstBand) * tilesX, detail::TileState());
    const Connectivity connectivity = s.options.label.connectivity;
    const Criterion criterion = s.options.label.criterion;
    const auto unite = [&s](std::uint64_t a, std::uint64_t b) { s.forest.unite(a, b); };

    // Enough bands per round to keep every worker busy.
    const std::uint32_t bandsPerRound = std::max<std::uint32_t>(1, (pool.size() + tilesX - 1) / tilesX);
    BorderRow previousBottom;
    for (std::uint32_t roundBand = s.firstBand; roundBand < s.endBand; roundBand += bandsPerRound) {
        const std::uint32_t roundEnd = std::min(s.endBand, roundBand + bandsPerRound);
        std::vector<detail::TileSummary> summaries(std::size_t(roundEnd - roundBand) * tilesX);
        pool.run(summaries.size(), [&](TileWorker& worker, std::size_t i) {
            const TileRect tile = s.plan.tile(std::uint32_t(i % tilesX), roundBand + std::uint32_t(i / tilesX));
            Image pixels;
            s.source.read(tile.x0, tile.y0, tile.width, tile.height, pixels);
            StageTimings timings;
            const Labeling labeling = worker.label(pixels, s.options.deviceTimings ? &timings : nullptr);
            summaries[i] = detail::summarizeTile(tile, pixels, labeling);
            store.put(tile, labeling.labels.data());
            if (s.options.deviceTimings) {
                double sum = 0.0;
                for (const StageTime& stage : timings) sum += stage.milliseconds;
                const std::lock_guard<std::mutex> lock(s.timingMutex);
                s.deviceMilliseconds += sum;
                s.workerDeviceMilliseconds[&worker] += sum;
            }
        });
        s.source.release(s.plan.bandTop(roundBand), s.plan.bandTop(roundEnd - 1) + s.plan.bandHeight(roundEnd - 1));

        // MergeBordersPass for each band of the round, in order.
        for (std::uint32_t ty = roundBand; ty < roundEnd; ++ty) {
            detail::TileSummary* band = summaries.data() + std::size_t(ty - roundBand) * tilesX;
            for (std::uint32_t tx = 0; tx < tilesX; ++tx) {
                detail::TileSummary& summary = band[tx];
                detail::TileState& state = s.tileAt(tx, ty);
                state.rect = s.plan.tile(tx, ty);
                state.count = summary.count;
                state.firstLabelOfRow = std::move(summary.firstLabelOfRow);
                state.partLabels = std::move(summary.partLabels);
                state.firstNode = s.forest.size();
                for (std::size_t j = 0; j < summary.partKeys.size(); ++j)
                    s.forest.add(summary.partKeys[j], summary.partStats[j]);
            }
            for (std::uint32_t tx = 1; tx < tilesX; ++tx) {
                BorderRow left, right;
                left.channels = right.channels = s.source.channels();
                left.sampleBits = right.sampleBits = s.source.sampleBits();
                appendEdge(left, band[tx - 1].rightEdge, band[tx - 1].rightPixels, s.tileAt(tx - 1, ty).firstNode);
                appendEdge(right, band[tx].leftEdge, band[tx].leftPixels, s.tileAt(tx, ty).firstNode);
                forEachConnectedPair(left, right, connectivity, criterion, unite);
            }
            BorderRow top, bottom;
            top.channels = bottom.channels = s.source.channels();
            top.sampleBits = bottom.sampleBits = s.source.sampleBits();
            for (std::uint32_t tx = 0; tx < tilesX; ++tx) {
                appendEdge(top, band[tx].topEdge, band[tx].topPixels, s.tileAt(tx, ty).firstNode);
                appendEdge(bottom, band[tx].bottomEdge, band[tx].bottomPixels, s.tileAt(tx, ty).firstNode);
            }
            if (ty == s.firstBand) s.topRow = std::move(top);
            else forEachConnectedPair(previousBottom, top, connectivity, criterion, unite);
            previousBottom = std::move(bottom);
            for (std::uint32_t tx = 0; tx < tilesX; ++tx) band[tx] = detail::TileSummary();  // edges merged: free them
        }
    }
    if (s.endBand > s.firstBand) s.bottomRow = std::move(previousBottom);
}

std::uint64_t TilePipeline::nodeCount() const { return impl_->forest.size(); }
PartKey TilePipeline::nodeKey(std::uint64_t node) const { return impl_->forest.key(node); }
std::uint64_t TilePipeline::localRoot(std::uint64_t node) { return impl_->forest.find(node); }

namespace {
BorderRow withRoots(const BorderRow& row, detail::BorderForest& forest) {
    BorderRow rooted = row;
    for (std::uint64_t& node : rooted.nodes)
        if (node != BorderRow::kNone) node = forest.find(node);
    return rooted;
}
}  // namespace

BorderRow TilePipeline::regionTopRow() { return withRoots(impl_->topRow, impl_->forest); }
BorderRow TilePipeline::regionBottomRow() { return withRoots(impl_->bottomRow, impl_->forest); }

double TilePipeline::deviceMilliseconds() const { return impl_->deviceMilliseconds; }

double TilePipeline::busiestDeviceMilliseconds() const {
    double busiest = 0.0;
    for (const auto& [worker, milliseconds] : impl_->workerDeviceMilliseconds) busiest = std::max(busiest, milliseconds);
    return busiest;
}

}  // namespace glccl

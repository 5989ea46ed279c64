// RelabelTilesPass and ComponentTablePass: pass 2, band by band from the
// top. Every tile is read and labeled again on the host threads of a
// TileFlow; its labels are checked against pass 1's (count and table
// fingerprint: a canonical labeling is the same every time), each label's
// final label comes from the tile's summary alone, and the tile's final
// labels go into its place in a band of final labels, its table rows into
// the band's table. The calling thread writes each band into the sink while
// the next one is labeled:
//
//   band slot 0:  band 0 filled | written       | band 2 filled | written ...
//   band slot 1:                | band 1 filled | written       | band 3 ...
//
// so two bands of final labels are in memory, besides the tiles in flight.

#include <algorithm>
#include <chrono>
#include <string>

#include "glccl/error.hpp"
#include "pipeline_state.hpp"

namespace glccl {

namespace {

using detail::kBandSlots;
// Bytes of labels handed to the sink at once: it writes them back to the
// disk while the next ones are handed over.
constexpr std::uint64_t kWriteBytes = std::uint64_t(32) << 20;

// RelabelTilesPass: the final label of every label of one tile, from its
// summary: the labels first seen in tile line r are firstLabelOfRow[r] ..
// firstLabelOfRow[r + 1] - 1, in the order of their first pixels; a part
// takes its component's final label, and the labels owned here take those
// after rowBase[r] in that order (as NumberComponentsPass counted them).
std::vector<std::uint64_t> finalLabelsOfTile(const TilePipeline::Impl& s, const detail::TileState& tile) {
    std::vector<std::uint64_t> finals(std::size_t(tile.count) + 1, 0);
    std::size_t part = 0;
    const std::uint64_t lines = tile.rect.lines();
    for (std::uint64_t r = 0; r < lines; ++r) {
        std::uint64_t owned = 0;
        for (std::uint32_t label = tile.firstLabelOfRow[r]; label < tile.firstLabelOfRow[r + 1]; ++label) {
            if (part < tile.partLabels.size() && tile.partLabels[part] == label) {
                const std::uint64_t node = tile.firstNode + part++;
                finals[label] = s.finals[node];
                if (s.owns(node)) ++owned;
            } else {
                finals[label] = tile.rowBase[r] + ++owned;
            }
        }
    }
    return finals;
}

// ComponentTablePass: the table rows of the components numbered in one
// tile (interior ones from the tile's own table, owning parts from their
// components' totals) at their final labels.
void tableOfTile(const TilePipeline::Impl& s, const detail::TileState& tile, const std::vector<Component>& local,
                 const std::vector<std::uint64_t>& finals, std::uint64_t labelsBefore, std::vector<Component>& table) {
    std::size_t part = 0;
    for (std::uint32_t label = 1; label <= tile.count; ++label) {
        Component component;
        if (part < tile.partLabels.size() && tile.partLabels[part] == label) {
            const std::uint64_t node = tile.firstNode + part++;
            if (!s.owns(node)) continue;
            component = s.totals[node].component();
        } else {
            component = detail::partStatsOf(tile.rect, local[label - 1]).component();
        }
        table[std::size_t(finals[label] - labelsBefore - 1)] = component;
    }
}

// The tile's final labels into its place in the band: tile line z * height
// + y is band line z * imageHeight + y0 + y (an image's: line y).
template <typename Label>
void mapTile(const TilePlan& plan, const TileRect& tile, const std::uint32_t* labels,
             const std::vector<std::uint64_t>& finals, Label* band) {
    const std::vector<Label> map(finals.begin(), finals.end());
    const std::uint64_t width = plan.imageWidth();
    const std::uint64_t y0 = plan.isVolume() ? tile.y0 : 0;
    for (std::uint32_t z = 0; z < tile.depth; ++z)
        for (std::uint32_t y = 0; y < tile.height; ++y) {
            const std::uint32_t* in = labels + (std::uint64_t(z) * tile.height + y) * tile.width;
            Label* out = band + (std::uint64_t(z) * plan.imageHeight() + y0 + y) * width + tile.x0;
            for (std::uint32_t x = 0; x < tile.width; ++x) out[x] = map[in[x]];
        }
}

}  // namespace

void TilePipeline::prepareBands(std::size_t labelBytes) {
    Impl& s = *impl_;
    if (s.bandPreparation.joinable() || s.endBand == s.firstBand) return;
    const std::size_t bytes = std::size_t(s.plan.imageWidth()) * s.plan.bandHeight(s.firstBand) * labelBytes;
    s.bandPreparation = std::thread([&s, bytes] {
        // A failure here comes again, with its reason, when writeLabels()
        // asks for the memory itself.
        try {
            for (detail::LabelBuffer& band : s.bandLabels) band.reserve(bytes);
        } catch (const Error&) {
        }
    });
}

void TilePipeline::writeLabels(TileWorkerPool& pool, LabelSink& sink, LabelType type) {
    Impl& s = *impl_;
    const TilePlan& plan = s.plan;
    const std::uint32_t perBand = plan.tilesPerBand();
    const std::uint32_t bands = s.endBand - s.firstBand;
    const std::uint64_t width = plan.imageWidth();
    const bool labels = sink.wantsLabels(), table = sink.wantsTable();
    const std::size_t bytes = labelBytes(type);

    // A band of final labels and its table rows, filled by the tiles of one
    // band while the other slot is written.
    struct BandSlot {
        detail::LabelBuffer& labels;
        std::vector<Component> table;
    };
    static_assert(kBandSlots == sizeof s.bandLabels / sizeof s.bandLabels[0], "one buffer a slot");
    if (s.bandPreparation.joinable()) s.bandPreparation.join();
    BandSlot slots[kBandSlots] = {{s.bandLabels[0], {}}, {s.bandLabels[1], {}}};
    // Each slot's table holds the most rows a band has, made once: a band of
    // more rows than the one before never grows it by a copy.
    std::uint64_t largestBand = 0;
    for (std::uint32_t b = 0; b < bands; ++b)
        largestBand = std::max(largestBand, s.bandLabelsEnd[b] - s.bandLabelsBefore[b]);
    if (table)
        for (BandSlot& slot : slots) slot.table.reserve(std::size_t(largestBand));
    const auto prepare = [&](std::uint32_t b) {
        BandSlot& slot = slots[b % kBandSlots];
        if (labels) slot.labels.reserve(std::size_t(width * plan.bandHeight(s.firstBand + b) * bytes));
        if (table) slot.table.assign(std::size_t(s.bandLabelsEnd[b] - s.bandLabelsBefore[b]), Component());
    };

    detail::TileFlow flow(
        s.tiles.size(), perBand, tilesInFlight(s.options, pool.size()),
        [&](detail::TileBuffers& buffers, std::size_t i) {
            if (!labels && !table) return;
            const std::uint32_t b = std::uint32_t(i / perBand);
            const TileRect rect = s.readAndLabel(pool, buffers, i, 1);
            const detail::TileState& tile = s.tiles[i];
            if (buffers.table.size() != tile.count || detail::tableFingerprint(buffers.table) != tile.tableFingerprint)
                throw Error("glccl::labelTiled(): tile " + std::to_string(rect.index) + " was labeled with " +
                            std::to_string(buffers.table.size()) + " labels the second time and " +
                            std::to_string(tile.count) + " the first" +
                            (buffers.table.size() == tile.count ? ", their tables differing" : "") +
                            "; the backend's labels of a tile are not the same every time");
            const std::vector<std::uint64_t> finals = finalLabelsOfTile(s, tile);
            BandSlot& slot = slots[b % kBandSlots];
            if (table) tableOfTile(s, tile, buffers.table, finals, s.bandLabelsBefore[b], slot.table);
            if (!labels) return;
            const std::uint32_t* tileLabels = buffers.labels.as<std::uint32_t>();
            if (type == LabelType::Uint64) mapTile(plan, rect, tileLabels, finals, slot.labels.as<std::uint64_t>());
            else mapTile(plan, rect, tileLabels, finals, slot.labels.as<std::uint32_t>());
        });
    for (std::uint32_t b = 0; b < std::min(bands, kBandSlots); ++b) prepare(b);
    flow.allowBands(kBandSlots);

    for (std::uint32_t b = 0; b < bands; ++b) {
        const std::uint32_t band = s.firstBand + b;
        flow.waitForBand(b);
        const auto lines = s.linesOf(band, band + 1);
        s.source.release(lines.first, lines.second);
        const auto start = std::chrono::steady_clock::now();
        BandSlot& slot = slots[b % kBandSlots];
        const std::uint32_t top = plan.bandTop(band), height = plan.bandHeight(band);
        const std::uint32_t piece = std::uint32_t(std::max<std::uint64_t>(1, kWriteBytes / (width * bytes)));
        for (std::uint32_t r = 0; r < height; r += piece)
            sink.writeRows(top + r, std::min(piece, height - r),
                           labels ? slot.labels.as<std::uint8_t>() + std::uint64_t(r) * width * bytes : nullptr);
        if (table && !slot.table.empty()) sink.writeComponents(s.bandLabelsBefore[b] + 1, slot.table);
        s.sinkMilliseconds +=
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (b + kBandSlots < bands) prepare(b + kBandSlots);
        flow.allowBands(b + 1 + kBandSlots);
        s.report("write", b + 1, bands);
    }
}

}  // namespace glccl

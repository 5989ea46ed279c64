// RelabelTilesPass and ComponentTablePass: pass 2, band by band from the
// top. For each tile of a band, one scan of its stored labels in raster
// order gives every tile label its final label (a label is met first at its
// first pixel, in increasing order, so the running count of owned labels met
// in a line is its rank there) and, with the table wanted, the band's table
// rows. Then the band is written in strips of image lines, each strip
// mapped from the stored labels, so only a strip of final labels is ever in
// memory.

#include <algorithm>
#include <atomic>
#include <exception>
#include <string>
#include <thread>

#include "glccl/canonical.hpp"
#include "glccl/error.hpp"
#include "pipeline_state.hpp"

namespace glccl {

namespace detail {

void parallelFor(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& task) {
    const std::size_t workers = std::min<std::size_t>(count, std::max(1u, threads));
    if (workers <= 1) {
        for (std::size_t i = 0; i < count; ++i) task(i);
        return;
    }
    std::atomic<std::size_t> next{0};
    std::exception_ptr error;
    std::mutex errorMutex;
    std::vector<std::thread> pool;
    for (std::size_t w = 0; w < workers; ++w)
        pool.emplace_back([&] {
            for (std::size_t i = next++; i < count; i = next++) {
                try {
                    task(i);
                } catch (...) {
                    const std::lock_guard<std::mutex> lock(errorMutex);
                    if (!error) error = std::current_exception();
                    next = count;
                }
            }
        });
    for (std::thread& thread : pool) thread.join();
    if (error) std::rethrow_exception(error);
}

}  // namespace detail

namespace {

// Final labels written per strip: a few megapixels.
constexpr std::uint64_t kStripPixels = std::uint64_t(1) << 22;

// RelabelTilesPass: the final label of every label of one tile, checked on
// the way against the contract the numbering relied on.
std::vector<std::uint64_t> finalLabelsOfTile(const TilePipeline::Impl& s, const detail::TileState& tile,
                                             const std::vector<std::uint32_t>& labels) {
    const std::string where = "glccl::labelTiled(): tile " + std::to_string(tile.rect.index) + ": ";
    std::vector<std::uint64_t> finals(std::size_t(tile.count) + 1, 0);
    std::uint32_t next = 1;
    std::size_t part = 0;
    const std::uint32_t width = tile.rect.width;
    const std::uint64_t lines = tile.rect.lines();
    for (std::uint32_t r = 0; r < lines; ++r) {
        std::uint64_t ownedInRow = 0;
        const std::uint32_t* row = labels.data() + std::size_t(r) * width;
        for (std::uint32_t x = 0; x < width; ++x) {
            const std::uint32_t label = row[x];
            if (label < next) continue;
            if (label != next)
                throw Error(where + "label " + std::to_string(label) + " at (" + std::to_string(x) + ", " +
                            std::to_string(r) + ") comes before label " + std::to_string(next) +
                            "; labels must be in raster order of their first pixel");
            std::uint64_t final = 0;
            if (part < tile.partLabels.size() && tile.partLabels[part] == label) {
                const std::uint64_t node = tile.firstNode + part++;
                final = s.finals[node];
                if (s.owns(node) && final != tile.rowBase[r] + ++ownedInRow)
                    throw Error(where + "label " + std::to_string(label) + " was numbered " + std::to_string(final) +
                                " but is first seen where label " + std::to_string(tile.rowBase[r] + ownedInRow) +
                                " belongs");
            } else {
                final = tile.rowBase[r] + ++ownedInRow;
            }
            finals[label] = final;
            ++next;
        }
    }
    if (next != tile.count + 1 || part != tile.partLabels.size())
        throw Error(where + "its stored labels hold " + std::to_string(next - 1) + " labels but its table " +
                    std::to_string(tile.count));
    return finals;
}

// ComponentTablePass: the table rows of the components numbered in one
// tile (interior ones from the tile's own table, owning parts from their
// components' totals) at their final labels.
void tableOfTile(const TilePipeline::Impl& s, const detail::TileState& tile, const std::vector<std::uint32_t>& labels,
                 const std::vector<std::uint64_t>& finals, std::uint64_t labelsBefore, std::vector<Component>& table) {
    // The reference's own table of the tile: exact sums, one rounding.
    const TileRect& rect = tile.rect;
    const Shape shape = s.plan.isVolume() ? Shape::volume(rect.width, rect.height, rect.depth)
                                          : Shape::image(rect.width, rect.height);
    const std::vector<Component> local = computeComponents(shape, labels, tile.count);
    std::size_t part = 0;
    for (std::uint32_t label = 1; label <= tile.count; ++label) {
        Component component;
        if (part < tile.partLabels.size() && tile.partLabels[part] == label) {
            const std::uint64_t node = tile.firstNode + part++;
            if (!s.owns(node)) continue;
            component = s.totals[node].component();
        } else {
            component = detail::partStatsOf(rect, local[label - 1]).component();
        }
        table[std::size_t(finals[label] - labelsBefore - 1)] = component;
    }
}

template <typename Label>
void mapRows(const std::vector<std::uint32_t>& labels, const std::vector<std::uint64_t>& finals, std::uint32_t width,
             std::uint32_t rows, Label* out, std::uint64_t stride) {
    for (std::uint32_t r = 0; r < rows; ++r) {
        const std::uint32_t* in = labels.data() + std::size_t(r) * width;
        Label* to = out + r * stride;
        for (std::uint32_t x = 0; x < width; ++x) to[x] = Label(finals[in[x]]);
    }
}

}  // namespace

void TilePipeline::writeLabels(const TileLabelStore& store, LabelSink& sink, LabelType type) {
    Impl& s = *impl_;
    const TilePlan& plan = s.plan;
    const std::uint32_t perBand = plan.tilesPerBand(), tilesX = plan.tilesX();
    const std::uint64_t width = plan.imageWidth();
    const bool table = sink.wantsTable();
    const std::size_t bytes = labelBytes(type);
    for (std::uint32_t band = s.firstBand; band < s.endBand; ++band) {
        const std::uint32_t top = plan.bandTop(band), lines = plan.bandHeight(band);
        const std::uint64_t before = s.bandLabelsBefore[band - s.firstBand];
        std::vector<Component> bandTable(table ? std::size_t(s.bandLabelsEnd[band - s.firstBand] - before) : 0);
        std::vector<std::vector<std::uint64_t>> finals(perBand);
        detail::parallelFor(perBand, s.hostThreads, [&](std::size_t i) {
            const detail::TileState& tile = s.tileAt(std::uint32_t(i), band);
            std::vector<std::uint32_t> labels(tile.rect.pixels());
            store.getRows(tile.rect, 0, std::uint32_t(tile.rect.lines()), labels.data());
            finals[i] = finalLabelsOfTile(s, tile, labels);
            if (table) tableOfTile(s, tile, labels, finals[i], before, bandTable);
        });

        // Runs of band lines that are consecutive lines of one row of tiles:
        // the whole band of an image; a row of bricks in one slice.
        struct Run {
            std::uint32_t first, count, rowOfTiles, tileLine;
        };
        const std::uint32_t stripRows = std::uint32_t(std::max<std::uint64_t>(1, std::min<std::uint64_t>(lines, kStripPixels / width)));
        std::vector<std::uint8_t> strip(std::size_t(width) * stripRows * bytes);
        for (std::uint32_t r0 = 0; r0 < lines; r0 += stripRows) {
            const std::uint32_t rows = std::min(stripRows, lines - r0);
            std::vector<Run> runs;
            if (!plan.isVolume()) {
                runs.push_back({0, rows, 0, r0});
            } else {
                for (std::uint32_t l = r0; l < r0 + rows;) {
                    const std::uint32_t z = l / plan.imageHeight(), y = l % plan.imageHeight();
                    const std::uint32_t ty = y / plan.tileHeight(), y0 = ty * plan.tileHeight();
                    const std::uint32_t height = s.tileAt(ty * tilesX, band).rect.height;
                    const std::uint32_t count = std::min(r0 + rows - l, y0 + height - y);
                    runs.push_back({l - r0, count, ty, z * height + (y - y0)});
                    l += count;
                }
            }
            // Each tile's lines of a run in as many pieces as there are
            // threads to spare: the mapping is independent line by line.
            const std::uint32_t pieces = std::max(1u, std::min(rows, s.hostThreads / std::max(1u, tilesX)));
            detail::parallelFor(runs.size() * tilesX * pieces, s.hostThreads, [&](std::size_t task) {
                const Run& run = runs[task / (std::size_t(tilesX) * pieces)];
                const std::uint32_t tx = std::uint32_t(task % tilesX);
                const std::uint32_t piece = std::uint32_t(task / tilesX % pieces);
                const std::uint32_t first = run.count * piece / pieces, count = run.count * (piece + 1) / pieces - first;
                if (count == 0) return;
                const std::uint32_t i = run.rowOfTiles * tilesX + tx;
                const detail::TileState& tile = s.tileAt(i, band);
                std::vector<std::uint32_t> labels(std::size_t(tile.rect.width) * count);
                store.getRows(tile.rect, run.tileLine + first, count, labels.data());
                const std::uint64_t at = std::uint64_t(run.first + first) * width + tile.rect.x0;
                if (type == LabelType::Uint64)
                    mapRows(labels, finals[i], tile.rect.width, count,
                            reinterpret_cast<std::uint64_t*>(strip.data()) + at, width);
                else
                    mapRows(labels, finals[i], tile.rect.width, count,
                            reinterpret_cast<std::uint32_t*>(strip.data()) + at, width);
            });
            sink.writeRows(top + r0, rows, strip.data());
        }
        if (table && !bandTable.empty()) sink.writeComponents(before + 1, bandTable);
        s.report("write", band + 1 - s.firstBand, s.endBand - s.firstBand);
    }
}

}  // namespace glccl

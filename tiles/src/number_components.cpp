// NumberComponentsPass: final labels by first pixel, without looking at a
// single label again. A component is numbered where its first pixel lies:
// in raster order, line by line, and within a line tile by tile from the
// left (a tile's labels first seen in one line are in left-to-right order).
// What a line of a tile contributes is the number of its labels first seen
// there (firstLabelOfRow) less the parts owned elsewhere; an exclusive scan
// over (image line, tile) gives every tile line its rowBase, and an owning
// part's label is rowBase + its rank among the owned labels first seen in
// that tile line. A volume's image line z * height + y is line
// (z - z0) * height + (y - y0) of the bricks of its row of bricks.

#include <algorithm>
#include <string>

#include "glccl/error.hpp"
#include "pipeline_state.hpp"

namespace glccl {

void TilePipeline::number(std::uint64_t labelOffset) {
    Impl& s = *impl_;
    const TilePlan& plan = s.plan;
    const std::uint32_t perBand = plan.tilesPerBand(), tilesX = plan.tilesX();
    const std::uint32_t bands = s.endBand - s.firstBand;
    s.bandLabelsBefore.assign(bands, 0);
    s.bandLabelsEnd.assign(bands, 0);
    std::uint64_t running = labelOffset;
    std::vector<std::vector<std::uint32_t>> notOwned(perBand);
    for (std::uint32_t band = s.firstBand; band < s.endBand; ++band) {
        const std::uint32_t top = plan.bandTop(band), lines = plan.bandHeight(band);
        // Band line l: its row of tiles and its line in each of their tiles.
        const auto place = [&](std::uint32_t l, std::uint32_t& rowOfTiles, std::uint32_t& tileLine) {
            if (!plan.isVolume()) {
                rowOfTiles = 0;
                tileLine = l;
                return;
            }
            const std::uint32_t z = l / plan.imageHeight(), y = l % plan.imageHeight();
            rowOfTiles = y / plan.tileHeight();
            tileLine = z * s.tileAt(rowOfTiles * tilesX, band).rect.height + (y - rowOfTiles * plan.tileHeight());
        };
        s.bandLabelsBefore[band - s.firstBand] = running;
        for (std::uint32_t i = 0; i < perBand; ++i) {
            const detail::TileState& tile = s.tileAt(i, band);
            notOwned[i].assign(std::size_t(tile.rect.lines()), 0);
            for (std::size_t j = 0; j < tile.partLabels.size(); ++j)
                if (!s.owns(tile.firstNode + j)) {
                    std::uint32_t rowOfTiles = 0, r = 0;
                    place(std::uint32_t(s.forest.key(tile.firstNode + j).line - top), rowOfTiles, r);
                    ++notOwned[i][r];
                }
        }
        for (std::uint32_t i = 0; i < perBand; ++i) s.tileAt(i, band).rowBase.assign(std::size_t(s.tileAt(i, band).rect.lines()), 0);
        for (std::uint32_t l = 0; l < lines; ++l) {
            std::uint32_t rowOfTiles = 0, r = 0;
            place(l, rowOfTiles, r);
            for (std::uint32_t tx = 0; tx < tilesX; ++tx) {
                const std::uint32_t i = rowOfTiles * tilesX + tx;
                detail::TileState& tile = s.tileAt(i, band);
                tile.rowBase[r] = running;
                running += (tile.firstLabelOfRow[r + 1] - tile.firstLabelOfRow[r]) - notOwned[i][r];
            }
        }
        s.bandLabelsEnd[band - s.firstBand] = running;

        // Owning parts: their rank among the owned labels first seen in
        // their tile line is their rank among that line's labels less the
        // parts before them owned elsewhere.
        for (std::uint32_t i = 0; i < perBand; ++i) {
            const detail::TileState& tile = s.tileAt(i, band);
            std::uint32_t row = UINT32_MAX, notOwnedBefore = 0;
            for (std::size_t j = 0; j < tile.partLabels.size(); ++j) {
                const std::uint64_t node = tile.firstNode + j;
                const std::uint32_t label = tile.partLabels[j];
                std::uint32_t rowOfTiles = 0, r = 0;
                place(std::uint32_t(s.forest.key(node).line - top), rowOfTiles, r);
                if (label < tile.firstLabelOfRow[r] || label >= tile.firstLabelOfRow[r + 1])
                    throw Error("glccl::labelTiled(): tile " + std::to_string(tile.rect.index) + " label " +
                                std::to_string(label) + " has its first pixel in row " + std::to_string(r) +
                                " by its table but not by the order of its labels");
                if (r != row) {
                    row = r;
                    notOwnedBefore = 0;
                }
                if (s.owns(node))
                    s.finals[node] = tile.rowBase[r] + (label - tile.firstLabelOfRow[r]) - notOwnedBefore + 1;
                else
                    ++notOwnedBefore;
            }
        }
    }
    if (running - labelOffset != s.owned)
        throw Error("glccl::labelTiled(): numbered " + std::to_string(running - labelOffset) + " components but " +
                    std::to_string(s.owned) + " are owned here");
    for (std::uint64_t node = 0; node < s.forest.size(); ++node)
        if (!s.owns(node) && s.isLocal(s.owner[node])) s.finals[node] = s.finals[s.owner[node] - s.nodeBase];
}

std::uint64_t TilePipeline::finalLabelOf(std::uint64_t rootGlobalId) const {
    const Impl& s = *impl_;
    if (!s.isLocal(rootGlobalId) || !s.owns(rootGlobalId - s.nodeBase))
        throw Error("glccl::TilePipeline::finalLabelOf(): part " + std::to_string(rootGlobalId) +
                    " is not an owning part of this region");
    return s.finals[rootGlobalId - s.nodeBase];
}

void TilePipeline::setForeignFinals(const std::vector<std::uint64_t>& finals) {
    Impl& s = *impl_;
    if (finals.size() != s.foreign.size())
        throw Error("glccl::TilePipeline::setForeignFinals(): " + std::to_string(finals.size()) +
                    " labels for " + std::to_string(s.foreign.size()) + " foreign roots");
    for (std::uint64_t node = 0; node < s.forest.size(); ++node) {
        const std::uint64_t owner = s.owner[node];
        if (s.isLocal(owner)) continue;
        const auto at = std::lower_bound(s.foreign.begin(), s.foreign.end(), owner) - s.foreign.begin();
        s.finals[node] = finals[std::size_t(at)];
    }
}

}  // namespace glccl

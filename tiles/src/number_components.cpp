// NumberComponentsPass: final labels by first pixel, without looking at a
// single label again. A component is numbered where its first pixel lies:
// in raster order, row by row, and within a row tile by tile from the left
// (a tile's labels first seen in one row are in left-to-right order). What
// a row of a tile contributes is the number of its labels first seen there
// (firstLabelOfRow) less the parts owned elsewhere; an exclusive scan over
// (row, tile) gives every tile row its rowBase, and an owning part's label
// is rowBase + its rank among the owned labels first seen in that tile row.

#include <algorithm>
#include <string>

#include "glccl/error.hpp"
#include "pipeline_state.hpp"

namespace glccl {

void TilePipeline::number(std::uint64_t labelOffset) {
    Impl& s = *impl_;
    const std::uint32_t tilesX = s.plan.tilesX();
    const std::uint32_t bands = s.endBand - s.firstBand;
    s.bandLabelsBefore.assign(bands, 0);
    s.bandLabelsEnd.assign(bands, 0);
    std::uint64_t running = labelOffset;
    std::vector<std::vector<std::uint32_t>> notOwned(tilesX);
    for (std::uint32_t ty = s.firstBand; ty < s.endBand; ++ty) {
        const std::uint32_t top = s.plan.bandTop(ty), height = s.plan.bandHeight(ty);
        s.bandLabelsBefore[ty - s.firstBand] = running;
        for (std::uint32_t tx = 0; tx < tilesX; ++tx) {
            const detail::TileState& tile = s.tileAt(tx, ty);
            notOwned[tx].assign(height, 0);
            for (std::size_t j = 0; j < tile.partLabels.size(); ++j)
                if (!s.owns(tile.firstNode + j)) ++notOwned[tx][s.forest.key(tile.firstNode + j).top - top];
        }
        for (std::uint32_t tx = 0; tx < tilesX; ++tx) s.tileAt(tx, ty).rowBase.assign(height, 0);
        for (std::uint32_t r = 0; r < height; ++r)
            for (std::uint32_t tx = 0; tx < tilesX; ++tx) {
                detail::TileState& tile = s.tileAt(tx, ty);
                tile.rowBase[r] = running;
                running += (tile.firstLabelOfRow[r + 1] - tile.firstLabelOfRow[r]) - notOwned[tx][r];
            }
        s.bandLabelsEnd[ty - s.firstBand] = running;

        // Owning parts: their rank among the owned labels first seen in
        // their tile row is their rank among that row's labels less the
        // parts before them owned elsewhere.
        for (std::uint32_t tx = 0; tx < tilesX; ++tx) {
            const detail::TileState& tile = s.tileAt(tx, ty);
            std::uint32_t row = UINT32_MAX, notOwnedBefore = 0;
            for (std::size_t j = 0; j < tile.partLabels.size(); ++j) {
                const std::uint64_t node = tile.firstNode + j;
                const std::uint32_t label = tile.partLabels[j];
                const std::uint32_t r = s.forest.key(node).top - top;
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

// ResolveRootsPass: every part learns the owning part of its component (its
// tree's root here, or a root another region found smaller), the owning
// parts add up their components' stats, and the region counts the
// components it owns: all of its tiles' labels but the parts owned elsewhere.

#include <algorithm>
#include <string>

#include "glccl/error.hpp"
#include "pipeline_state.hpp"

namespace glccl {

void TilePipeline::resolveRoots(std::uint64_t nodeBase,
                                const std::function<std::uint64_t(std::uint64_t)>& globalRoot) {
    Impl& s = *impl_;
    const std::uint64_t nodes = s.forest.size();
    s.nodeBase = nodeBase;
    s.owner.assign(nodes, 0);
    s.totals.assign(nodes, PartStats());
    s.finals.assign(nodes, 0);
    s.foreign.clear();
    for (std::uint64_t node = 0; node < nodes; ++node) {
        const std::uint64_t root = nodeBase + s.forest.find(node);
        s.owner[node] = globalRoot ? globalRoot(root) : root;
    }
    std::uint64_t notOwned = 0;
    for (std::uint64_t node = 0; node < nodes; ++node) {
        const std::uint64_t owner = s.owner[node];
        if (!s.owns(node)) ++notOwned;
        if (!s.isLocal(owner)) {
            s.foreign.push_back(owner);
            continue;
        }
        if (!s.owns(owner - nodeBase))
            throw Error("glccl::TilePipeline::resolveRoots(): part " + std::to_string(nodeBase + node) +
                        " is owned by part " + std::to_string(owner) + ", which is owned by another; the roots "
                        "given are not the owning parts of their components");
        s.totals[owner - nodeBase].add(s.forest.stats(node));
    }
    std::sort(s.foreign.begin(), s.foreign.end());
    s.foreign.erase(std::unique(s.foreign.begin(), s.foreign.end()), s.foreign.end());

    std::uint64_t labels = 0;
    for (const detail::TileState& tile : s.tiles) labels += tile.count;
    s.owned = labels - notOwned;
}

std::uint64_t TilePipeline::ownedCount() const { return impl_->owned; }

std::vector<std::uint64_t> TilePipeline::foreignRoots() const { return impl_->foreign; }

std::vector<std::pair<std::uint64_t, PartStats>> TilePipeline::foreignStats() const {
    const Impl& s = *impl_;
    std::vector<std::pair<std::uint64_t, PartStats>> shares(s.foreign.size());
    for (std::size_t i = 0; i < s.foreign.size(); ++i) shares[i].first = s.foreign[i];
    for (std::uint64_t node = 0; node < s.forest.size(); ++node) {
        const std::uint64_t owner = s.owner[node];
        if (s.isLocal(owner)) continue;
        const auto at = std::lower_bound(s.foreign.begin(), s.foreign.end(), owner) - s.foreign.begin();
        shares[std::size_t(at)].second.add(s.forest.stats(node));
    }
    return shares;
}

void TilePipeline::addStats(std::uint64_t rootGlobalId, const PartStats& stats) {
    Impl& s = *impl_;
    if (!s.isLocal(rootGlobalId) || !s.owns(rootGlobalId - s.nodeBase))
        throw Error("glccl::TilePipeline::addStats(): part " + std::to_string(rootGlobalId) +
                    " is not an owning part of this region");
    s.totals[rootGlobalId - s.nodeBase].add(stats);
}

}  // namespace glccl

#pragma once
// The union-find over parts (tile labels on tile edges), glccl/key_forest.hpp
// over the parts' nodes in the order they are added, earlier by PartKey:
// every tree's root is the part with the smallest PartKey, that is the part
// holding the first pixel of the component, as the reference's root is the
// first pixel's index (host/src/reference.cpp), so no later pass has to
// look for it.

#include <cstdint>
#include <vector>

#include "glccl/key_forest.hpp"
#include "glccl/tile_pipeline.hpp"

namespace glccl::detail {

class BorderForest {
public:
    // Room for `nodes` nodes, made at once: the nodes added later take
    // memory as they come, never a copy beside the old ones.
    void reserve(std::uint64_t nodes) {
        parent_.reserve(std::size_t(nodes));
        keys_.reserve(std::size_t(nodes));
        stats_.reserve(std::size_t(nodes));
    }
    std::uint64_t add(const PartKey& key, const PartStats& stats) {
        parent_.push_back(parent_.size());
        keys_.push_back(key);
        stats_.push_back(stats);
        return parent_.size() - 1;
    }
    std::uint64_t size() const { return parent_.size(); }
    const PartKey& key(std::uint64_t node) const { return keys_[node]; }
    const PartStats& stats(std::uint64_t node) const { return stats_[node]; }

    std::uint64_t find(std::uint64_t node) { return forest().find(node); }
    void unite(std::uint64_t a, std::uint64_t b) { forest().unite(a, b); }

private:
    // Nodes are added in tile order, not in PartKey order: earlier compares keys.
    struct Parts {
        using Key = std::uint64_t;
        std::uint64_t* parents;
        const PartKey* keys;
        std::uint64_t parent(std::uint64_t node) const { return parents[node]; }
        void halve(std::uint64_t node, std::uint64_t grandparent) const { parents[node] = grandparent; }
        void link(std::uint64_t root, std::uint64_t to) const { parents[root] = to; }
        bool earlier(std::uint64_t a, std::uint64_t b) const { return keys[a] < keys[b]; }
    };
    KeyForest<Parts> forest() { return {{parent_.data(), keys_.data()}}; }

    std::vector<std::uint64_t> parent_;
    std::vector<PartKey> keys_;
    std::vector<PartStats> stats_;
};

}  // namespace glccl::detail

#pragma once
// The union-find over parts (tile labels on tile edges). Every tree's root is
// the part with the smallest PartKey, that is the part holding the first
// pixel of the component: unite() links the larger root under the smaller,
// as the reference links the larger pixel index under the smaller
// (host/src/reference.cpp), so no later pass has to look for it.

#include <cstdint>
#include <vector>

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

    std::uint64_t find(std::uint64_t node) {
        while (parent_[node] != node) {
            parent_[node] = parent_[parent_[node]];  // path halving: parents stay smaller-keyed
            node = parent_[node];
        }
        return node;
    }

    void unite(std::uint64_t a, std::uint64_t b) {
        a = find(a);
        b = find(b);
        if (a == b) return;
        if (keys_[b] < keys_[a]) parent_[a] = b;
        else parent_[b] = a;
    }

private:
    std::vector<std::uint64_t> parent_;
    std::vector<PartKey> keys_;
    std::vector<PartStats> stats_;
};

}  // namespace glccl::detail

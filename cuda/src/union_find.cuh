#pragma once
// FindRoot and Union of Stava & Benes Fig. 35.4 on the global label forest,
// made safe for many threads at once.
//
// Invariant: labels[i] <= i for every foreground pixel i, so following
// parents only ever goes to smaller indices, there are no cycles, and the
// root of a tree is its smallest index: the component's first pixel in
// raster order once the tree covers the component. That is what lets
// relabel number components by counting roots (passes.hpp).

#include <cstdint>

namespace glccl::cuda {

__device__ __forceinline__ std::uint32_t findRoot(const std::uint32_t* labels, std::uint32_t i) {
    std::uint32_t parent = labels[i];
    while (parent != i) {
        i = parent;
        parent = labels[i];
    }
    return i;
}

// Joins the trees of pixels a and b, always hanging the larger root under the
// smaller one (Fig. 35.4). The paper re-runs kernel 2 until no thread links
// anything, because two threads may link the same root at once and one link
// is lost. Here the link is an atomicMin on the larger root, and its result
// says what happened: if the old value was that root itself, the link is in
// place; otherwise another thread changed that entry first, and the entry's
// old parent (possibly just detached from it by our atomicMin) still has to
// join our tree, so the loop goes on with it. Each retry starts from a value
// the atomic returned, so the loop makes progress even when plain loads see
// stale parents, and a union is complete when the launch ends: one pass per
// level, no host round trip and no changed flag.
// FindRoot that halves the path it walks: each visited entry is pointed at
// its grandparent. For the volume merge, which unites all patch faces in one
// launch: there the roots of a large component's patch pieces would
// otherwise hang in chains as long as the patches it crosses, walked again
// by every later union and by flatten_labels. Safe beside concurrent unions:
// the stored grandparent is an ancestor read moments before, smaller than
// the entry (the invariant holds), and trees only ever merge, so an entry
// pointed at a former ancestor stays in its tree; an entry that a union's
// atomicMin just lowered was not a root then (a root's entry only changes by
// that atomicMin), and that union goes on with the old parent's tree.
__device__ __forceinline__ std::uint32_t findRootHalving(std::uint32_t* labels, std::uint32_t i) {
    for (;;) {
        const std::uint32_t parent = labels[i];
        if (parent == i) return i;
        const std::uint32_t grandparent = labels[parent];
        if (grandparent == parent) return parent;
        labels[i] = grandparent;
        i = grandparent;
    }
}

template <bool kHalving>
__device__ __forceinline__ std::uint32_t rootOf(std::uint32_t* labels, std::uint32_t i) {
    return kHalving ? findRootHalving(labels, i) : findRoot(labels, i);
}

// kHalving: walk with findRootHalving (the volume merge).
template <bool kHalving = false>
__device__ __forceinline__ void unite(std::uint32_t* labels, std::uint32_t a, std::uint32_t b) {
    a = rootOf<kHalving>(labels, a);
    b = rootOf<kHalving>(labels, b);
    while (a != b) {
        if (a > b) {
            const std::uint32_t t = a;
            a = b;
            b = t;
        }
        const std::uint32_t old = atomicMin(&labels[b], a);
        if (old == b) return;
        b = rootOf<kHalving>(labels, old);
        a = rootOf<kHalving>(labels, a);
    }
}

}  // namespace glccl::cuda

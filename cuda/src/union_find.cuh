#pragma once
// The lock-free union-find of every CUDA kernel, written once: a forest of
// keys whose parents only ever decrease, FindRoot and Union of Stava &
// Benes Fig. 35.4 made safe for many threads at once (Playne & Hawick's
// lock-free union). What differs from kernel to kernel is a policy, not a
// copy:
//   Slots    where a key's entry lives: the key itself (linear indices of
//            pixels or voxels), its node in the grid of 2-D nodes
//            (node_grid.cuh), a node slot of a patch in shared memory, a
//            run of a bundle word (volume_forest.cuh);
//   Entries  how an entry is read and written: PlainEntries (device memory,
//            and Stava & Benes' patches in shared memory) or SharedEntries
//            (every access an atomic, for the block kernels' patches).
//
// Invariant: a key's parent is a key of the same component no larger than
// its own, and a root holds its own key. Following parents only ever goes
// to smaller keys, so there are no cycles and the root of a tree is its
// smallest key: the component's first pixel in raster order once the tree
// covers the component, which is what every numbering here relies on. A
// stale read of a parent is still an ancestor, so every walk ends.

#include <cstddef>
#include <cstdint>

namespace glccl::cuda {

// Plain loads and stores; a union's atomicMin. A stale parent is still an
// ancestor, and path halving's plain store is safe: a node that is not a
// root never becomes one again, and a grandparent is an ancestor with a
// smaller key (a store racing with a union's atomicMin on the same entry
// can only follow one that lowered a root, and that union goes on with the
// old parent's tree).
struct PlainEntries {
    std::uint32_t* at;
    template <typename Slot>
    __device__ __forceinline__ std::uint32_t load(Slot slot) const {
        return at[slot];
    }
    template <typename Slot>
    __device__ __forceinline__ void halve(Slot slot, std::uint32_t grandparent) const {
        at[slot] = grandparent;
    }
    template <typename Slot>
    __device__ __forceinline__ std::uint32_t lower(Slot slot, std::uint32_t key) const {
        return atomicMin(&at[slot], key);
    }
};

// Entries in shared memory that the block's unions change under every
// walk: each access an atomic (a load an atomic OR of nothing, path
// halving's store an atomicMin: the grandparent is smaller than the parent
// it replaces, and a smaller value already there is an ancestor too). The
// algorithm needs no ordering; atomics keep the accesses free of data races
// (compute-sanitizer's racecheck).
struct SharedEntries {
    std::uint32_t* at;
    template <typename Slot>
    __device__ __forceinline__ std::uint32_t load(Slot slot) const {
        return atomicOr(&at[slot], 0u);
    }
    template <typename Slot>
    __device__ __forceinline__ std::uint32_t lower(Slot slot, std::uint32_t key) const {
        return atomicMin(&at[slot], key);
    }
    template <typename Slot>
    __device__ __forceinline__ void halve(Slot slot, std::uint32_t grandparent) const {
        lower(slot, grandparent);
    }
};

// Where a union's code writes its link, at the larger root either way:
//   Ordered  the roots ordered first, one atomic site (the least code: the
//            volume kernels and Stava & Benes' kernels);
//   Either   a branch for each order, an atomic site in each (the 2-D block
//            kernels local_merge and merge_borders, where it measured faster
//            on the densest images).
enum class LinkSite { Ordered, Either };

// Keys that are their own slots: linear pixel or voxel indices (Stava &
// Benes' label arrays).
struct IndexSlots {
    __device__ __forceinline__ std::uint32_t slotOf(std::uint32_t key) const { return key; }
};

// A key forest over slots: Slots::slotOf(key) the entry of a key's node,
// Entries how entries are read and written.
template <class Slots, class Entries>
struct KeyForest {
    Slots slots;
    Entries parents;

    __device__ __forceinline__ auto slotOf(std::uint32_t key) const { return slots.slotOf(key); }
    template <typename Slot>
    __device__ __forceinline__ std::uint32_t load(Slot slot) const {
        return parents.load(slot);
    }

    // The root of a key's node, reading only.
    __device__ __forceinline__ std::uint32_t rootOf(std::uint32_t key) const {
        for (;;) {
            const std::uint32_t parent = parents.load(slotOf(key));
            if (parent == key) return key;
            key = parent;
        }
    }

    // The root of a key's node, halving the path on the way: each visited
    // entry is pointed at its grandparent, so that trees stay shallow for
    // the unions after it and for the numbering.
    __device__ __forceinline__ std::uint32_t rootHalving(std::uint32_t key) const {
        for (;;) {
            const auto slot = slotOf(key);
            const std::uint32_t parent = parents.load(slot);
            if (parent == key) return key;
            const std::uint32_t grandparent = parents.load(slotOf(parent));
            if (grandparent == parent) return parent;
            parents.halve(slot, grandparent);
            key = grandparent;
        }
    }

    // Joins the trees of keys a and b: the larger root is pointed at the
    // smaller by an atomicMin, whose result says what happened. If the old
    // value was that root itself, the link is in place; otherwise another
    // thread changed that entry first, and its old parent (possibly just
    // detached by our atomicMin) still has to join our tree, so the loop
    // goes on from there. Each retry starts from a value the atomic
    // returned, so the loop makes progress even when plain loads see stale
    // parents, and a union is complete when its thread returns: no pass
    // repeated until nothing changes, unlike the paper's kernel 2.
    // kHalving false walks without writing (rootOf): Stava & Benes' 2-D
    // merge, whose flatten_borders shortens the trees between levels, and
    // their volume patches' voxels, whose trees one barrier later are read
    // once. kSite says where the code writes the link (the same unions
    // either way; each kernel takes the form measured faster for it).
    template <bool kHalving = true, LinkSite kSite = LinkSite::Ordered>
    __device__ __forceinline__ void unite(std::uint32_t a, std::uint32_t b) const {
        for (;;) {
            a = kHalving ? rootHalving(a) : rootOf(a);
            b = kHalving ? rootHalving(b) : rootOf(b);
            if (a == b) return;
            if constexpr (kSite == LinkSite::Ordered) {
                if (a > b) {
                    const std::uint32_t t = a;
                    a = b;
                    b = t;
                }
                const std::uint32_t old = parents.lower(slotOf(b), a);
                if (old == b) return;
                b = old;
            } else if (a < b) {
                const std::uint32_t old = parents.lower(slotOf(b), a);
                if (old == b) return;
                b = old;
            } else {
                const std::uint32_t old = parents.lower(slotOf(a), b);
                if (old == a) return;
                a = old;
            }
        }
    }
};

// A forest of linear indices (Stava & Benes' labels: a foreground pixel
// holds its parent's index, a root its own).
using IndexForest = KeyForest<IndexSlots, PlainEntries>;

__device__ __forceinline__ IndexForest indexForest(std::uint32_t* labels) { return {{}, {labels}}; }

}  // namespace glccl::cuda

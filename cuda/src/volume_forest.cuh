#pragma once
// The global forest of a binary volume's nodes (volume_nodes.cuh), shared
// by merge_borders_volume, count_roots_volume and final_labels_volume:
// parents[slot] holds a key, a root its own. A key's node is a division
// away (its voxel, its bundle word, the run of the word's foreground that
// holds the voxel): one load of `foreground`, which is small and mostly in
// L2. The union is node_grid.cuh's (Playne & Hawick's lock-free union
// keeping the smaller key, path halving on the way), on volume keys.

#include "passes.hpp"

namespace glccl::cuda::volume {

template <int Connectivity>
struct VolumeForest {
    static constexpr Bundle kBundle = bundleOf(Connectivity);
    NodeGrid grid;
    const std::uint32_t* foreground;
    std::uint32_t* parents;

    __device__ __forceinline__ std::size_t bundleWordOf(const NodeGrid::Voxel& v) const {
        return grid.bundleWord(v.x / kWordBits, v.y / std::uint32_t(kBundle.height), v.z / std::uint32_t(kBundle.depth));
    }
    __device__ __forceinline__ std::size_t slotOf(std::uint32_t key) const {
        const NodeGrid::Voxel v = grid.voxelOf(key);
        const std::size_t word = bundleWordOf(v);
        return NodeGrid::slotOf(word, runAt(__ldg(&foreground[word]), int(v.x % kWordBits)));
    }

    // The root of a key's node, reading only.
    __device__ __forceinline__ std::uint32_t rootOf(std::uint32_t key) const {
        for (;;) {
            const std::uint32_t parent = parents[slotOf(key)];
            if (parent == key) return key;
            key = parent;
        }
    }

    // The root of a key's node, halving the path (node_grid.cuh's
    // Forest::rootHalving says why plain stores are safe).
    __device__ __forceinline__ std::uint32_t rootHalving(std::uint32_t key) const {
        for (;;) {
            const std::size_t slot = slotOf(key);
            const std::uint32_t parent = parents[slot];
            if (parent == key) return key;
            const std::uint32_t grandparent = parents[slotOf(parent)];
            if (grandparent == parent) return parent;
            parents[slot] = grandparent;
            key = grandparent;
        }
    }

    __device__ __forceinline__ void unite(std::uint32_t a, std::uint32_t b) const {
        for (;;) {
            a = rootHalving(a);
            b = rootHalving(b);
            if (a == b) return;
            if (a > b) {
                const std::uint32_t t = a;
                a = b;
                b = t;
            }
            const std::uint32_t old = atomicMin(&parents[slotOf(b)], a);
            if (old == b) return;
            b = old;
        }
    }
};

// The lines of bundle word (wx, by, bz) from the volume's bits; lines past
// the volume are 0.
template <int Connectivity, int Lines>
__device__ __forceinline__ void loadBundleLines(const NodeGrid& grid, const std::uint32_t* __restrict__ bits,
                                                std::uint32_t wx, std::uint32_t by, std::uint32_t bz,
                                                std::uint32_t (&lines)[Lines]) {
    constexpr Bundle kBundle = bundleOf(Connectivity);
#pragma unroll
    for (int l = 0; l < Lines; ++l) {
        const std::uint32_t y = by * kBundle.height + std::uint32_t(l % kBundle.height);
        const std::uint32_t z = bz * kBundle.depth + std::uint32_t(l / kBundle.height);
        lines[l] = y < grid.height && z < grid.depth ? __ldg(&bits[grid.lineWord(wx, y, z)]) : 0u;
    }
}

constexpr unsigned kFullWarp = 0xFFFFFFFFu;

// The links a warp's lanes find, at different rates, united by all lanes at
// once. Finding links is bit operations, the same few steps in every lane;
// uniting walks trees whose depths vary. Uniting each link where its lane
// finds it runs those walks one lane at a time, a few lanes of 32 active.
// So each lane offers its links in step with the others (push, in every
// lane, with `has` whether it brings one), they are packed into the warp's
// queue, and when the queue could not take another round of 32, every lane
// unites every 32nd link in it.
template <typename Link, int Capacity>
struct WarpLinks {
    static_assert(Capacity >= 64, "room for a round of 32 after a flush's worth");
    Link* queue;     // this warp's Capacity entries
    int lane;
    int count = 0;   // the same in every lane

    template <class Unite>
    __device__ __forceinline__ void push(bool has, const Link& link, Unite&& unite) {
        const unsigned lanes = __ballot_sync(kFullWarp, has);
        if (has) queue[count + __popc(lanes & ((1u << lane) - 1u))] = link;
        count += __popc(lanes);
        if (count > Capacity - 32) flush(unite);
    }
    template <class Unite>
    __device__ __forceinline__ void flush(Unite&& unite) {
        __syncwarp();
        for (int i = lane; i < count; i += 32) unite(queue[i]);
        count = 0;
        __syncwarp();
    }
};

// Calls f(std::integral_constant<int, I>) for I = First .. Last - 1.
template <int First, int Last, typename F>
__device__ __forceinline__ void forEachIndex(F&& f) {
    if constexpr (First < Last) {
        f(std::integral_constant<int, First>{});
        forEachIndex<First + 1, Last>(f);
    }
}

// The connectivity as a compile-time constant, for the volume launches.
template <class Launch>
void withVolumeConnectivity(int connectivity, Launch&& launch) {
    if (connectivity == 6) return launch(std::integral_constant<int, 6>{});
    if (connectivity == 18) return launch(std::integral_constant<int, 18>{});
    launch(std::integral_constant<int, 26>{});
}

}  // namespace glccl::cuda::volume

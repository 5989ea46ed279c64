#pragma once
// The union-find of a binary volume's nodes (volume_nodes.cuh) over keys,
// in shared memory (local_merge_volume's patch) and in device memory (the
// global forest of merge_borders_volume, count_roots_volume,
// final_labels_volume and component_stats_volume): parents[slot] holds a
// key, a root its own; a key's node is its word's run (the slots below).
// The forest is union_find.cuh's, on volume keys.

#include "connectivity.cuh"
#include "passes.hpp"
#include "union_find.cuh"
#include "warp_links.cuh"

namespace glccl::cuda::volume {

// The nodes of the whole volume: a key's voxel is a division away, then its
// bundle word and the run of the word's foreground that holds the voxel
// (one load of `foreground`, which is small and mostly in L2).
template <int Connectivity>
struct VolumeSlots {
    static constexpr Bundle kBundle = bundleOf(Connectivity);
    NodeGrid grid;
    const std::uint32_t* foreground;

    __device__ __forceinline__ std::size_t slotOf(std::uint32_t key) const {
        const NodeGrid::Voxel v = grid.voxelOf(key);
        const std::size_t word =
            grid.bundleWord(v.x / kWordBits, v.y / std::uint32_t(kBundle.height), v.z / std::uint32_t(kBundle.depth));
        return NodeGrid::slotOf(word, runAt(__ldg(&foreground[word]), int(v.x % kWordBits)));
    }
};

template <int Connectivity>
using VolumeForest = KeyForest<VolumeSlots<Connectivity>, PlainEntries>;

// A patch's nodes in shared memory (local_merge_volume): a key's thread,
// the run of its foreground that holds the voxel; run r of thread t at
// r * kThreads + t, so that a warp's threads reach their r-th nodes in
// consecutive banks.
template <int Connectivity>
struct PatchSlots {
    using B = Patch<Connectivity>;
    const volatile std::uint32_t* foreground;

    __device__ __forceinline__ int slotOf(std::uint32_t key) const {
        const int t = B::threadOfKey(key);
        return runAt(foreground[t], B::xOfKey(key) % kWordBits) * B::kThreads + t;
    }
};

template <int Connectivity>
using PatchForest = KeyForest<PatchSlots<Connectivity>, SharedEntries>;

// Where a thread of a patch's block stands (local_merge_volume,
// merge_borders_volume: one block per patch, a 1-D grid, one thread per
// bundle word): its bundle word in the patch and in the volume.
template <int Connectivity>
struct PatchPlace {
    using B = Patch<Connectivity>;
    unsigned patchX, patchY, patchZ;
    int t, w, by, bz;               // the thread, its word and bundle in the patch
    std::uint32_t wx, gby, gbz;     // and in the volume

    __device__ __forceinline__ PatchPlace(unsigned patchesX, unsigned patchesY)
        : patchX(blockIdx.x % patchesX),
          patchY(blockIdx.x / patchesX % patchesY),
          patchZ(blockIdx.x / patchesX / patchesY),
          t(int(threadIdx.x)),
          w(B::wordOf(t)),
          by(B::bundleYOf(t)),
          bz(B::bundleZOf(t)),
          wx(patchX * B::kWords + std::uint32_t(w)),
          gby(patchY * B::kBundlesY + std::uint32_t(by)),
          gbz(patchZ * B::kBundlesZ + std::uint32_t(bz)) {}
    __device__ __forceinline__ bool inside(const NodeGrid& g) const {
        return wx < g.wordsX && gby < g.bundlesY && gbz < g.bundlesZ;
    }
};

// The launch of one block per patch.
template <int Connectivity>
struct PatchLaunch {
    using B = Patch<Connectivity>;
    unsigned patchesX, patchesY, blocks;
    static PatchLaunch of(const NodeGrid& g) {
        PatchLaunch launch;
        launch.patchesX = unsigned((g.wordsX + B::kWords - 1) / B::kWords);
        launch.patchesY = unsigned((g.bundlesY + B::kBundlesY - 1) / B::kBundlesY);
        const std::uint64_t patchesZ = (g.bundlesZ + B::kBundlesZ - 1) / B::kBundlesZ;
        // One-dimensional grid: at most 2^32 voxels make far fewer patches than 2^31.
        launch.blocks = unsigned(std::uint64_t(launch.patchesX) * launch.patchesY * patchesZ);
        return launch;
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

// The warp's lanes in step over positions: every lane calls
// step(has, x) once a round, x the lowest position left in its own
// `positions` (has) or 0 (no position left, !has), until no lane of the
// warp has one. A step runs in all 32 lanes, so that what a round finds
// (links for WarpLinks::push, sums to gather) is taken by the whole warp at
// once, whichever lanes bring some.
template <class Step>
__device__ __forceinline__ void forEachPositionInStep(std::uint32_t positions, Step&& step) {
    for (;;) {
        const bool has = positions != 0u;
        if (!__any_sync(kFullWarp, has)) break;
        const int x = has ? lowestBit(positions) : 0;
        positions &= positions - 1u;
        step(has, x);
    }
}

// The links a relation's terms ask for (termLinks of the faces fu and fv),
// offered by the warp's lanes in step, a position a round in
// forEachLinkInWord's order: at each x every term, U's link then V's.
// offer(has, u, v) takes node slots; uSlot(x) and vSlot(x) are the slots
// of position x in U's and V's word.
template <int Terms, class Offer, class USlot, class VSlot>
__device__ __forceinline__ void offerTermLinks(const TermLinks (&asked)[Terms], const std::uint32_t (&fu)[Terms],
                                               const std::uint32_t (&fv)[Terms], const bool (&across)[Terms],
                                               Offer&& offer, USlot&& uSlot, VSlot&& vSlot) {
    std::uint32_t asking = 0u;
#pragma unroll
    for (int k = 0; k < Terms; ++k) asking |= asked[k].fromU | asked[k].fromV;
    forEachPositionInStep(asking, [&](bool has, int x) {
#pragma unroll
        for (int k = 0; k < Terms; ++k) {
            const bool fromU = has && ((asked[k].fromU >> x) & 1u) != 0u;
            offer(fromU, fromU ? uSlot(x) : 0, fromU ? vSlot(partnerOf(fv[k], x, across[k])) : 0);
            const bool fromV = has && ((asked[k].fromV >> x) & 1u) != 0u;
            offer(fromV, fromV ? uSlot(partnerOf(fu[k], x, across[k])) : 0, fromV ? vSlot(x) : 0);
        }
    });
}

// The links where runs of a relation's U and V kiss (kissesOf), offered by
// the warp's lanes in step, a position a round: U at x with V at x + 1
// (uToV), U at x + 1 with V at x (vToU). uSlot(x) and vSlot(x) as above.
template <class Offer, class USlot, class VSlot>
__device__ __forceinline__ void offerKisses(Kisses kisses, Offer&& offer, USlot&& uSlot, VSlot&& vSlot) {
    forEachPositionInStep(kisses.uToV | kisses.vToU, [&](bool has, int x) {
        const bool uToV = has && ((kisses.uToV >> x) & 1u) != 0u;
        offer(uToV, uToV ? uSlot(x) : 0, uToV ? vSlot(x + 1) : 0);
        const bool vToU = has && ((kisses.vToU >> x) & 1u) != 0u;
        offer(vToU, vToU ? uSlot(x + 1) : 0, vToU ? vSlot(x) : 0);
    });
}

// Calls f(std::integral_constant<int, I>) for I = First .. Last - 1.
template <int First, int Last, typename F>
__device__ __forceinline__ void forEachIndex(F&& f) {
    if constexpr (First < Last) {
        f(std::integral_constant<int, First>{});
        forEachIndex<First + 1, Last>(f);
    }
}

}  // namespace glccl::cuda::volume

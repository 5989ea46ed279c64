// local_merge, for a binary volume: the sibling of local_merge.cu over the
// nodes of volume_nodes.cuh, and the only stage that reads the input. A
// body of its own: a bundle node is a run of up to 32 voxels along x, found
// and linked by bit operations on its word's lines, not a block of the 2-D
// node grid. One thread block per patch, one thread per bundle word:
//   1. the word's lines, a bit per voxel, into bits, and their OR (the
//      bundle's foreground) into foreground. Bytes under binary as nonzero
//      are read here; other samples and binary:L are turned into the bits
//      first by lineBitsKernel (a warp per line word, a lane per voxel, one
//      ballot), and this step reads those;
//   2. its nodes, the runs of the OR: found by bit operations, no atomics;
//      each starts as its own parent, known by its first voxel's local key;
//   3. the links to the nodes of the bundle words before it in the patch
//      (volume_nodes.cuh's relations, and the word before in its own
//      bundle), as lock-free unions in shared memory keeping the smaller
//      key, the warp's lanes finding links in step and uniting them
//      together (volume_forest.cuh, WarpLinks);
//   4. every node leaves with its patch-local root, as a volume key, in
//      parents.
// Links that leave the patch are merge_borders' work.

#include <algorithm>
#include <type_traits>

#include "criterion.cuh"
#include "stage_timer.hpp"
#include "volume_forest.cuh"

namespace glccl::cuda {
namespace {

using namespace volume;

constexpr int kWarp = 32;
// Links per warp (WarpLinks): node slots, u | v << 16. 96 rather than 64:
// a larger queue unites more rounds of links per flush; 96 is the most that
// the 26-connected patch's shared memory leaves room for.
constexpr int kQueue = 96;
constexpr int kLineBitsThreads = 256;
// lineBitsKernel's blocks at most: a grid-stride loop covers the rest.
constexpr unsigned kMostLineBitsBlocks = 1u << 20;

// The 32 samples of word wx of line (y, z), a bit each: 16-byte loads where
// every line starts 16-byte aligned (Vector 16), 4-byte loads where lines
// start 4-byte aligned (4), else byte by byte; past the width, 0.
template <int Vector>
__device__ __forceinline__ std::uint32_t loadLineWord(const std::uint8_t* __restrict__ samples, const NodeGrid& g,
                                                      std::uint32_t wx, std::uint32_t y, std::uint32_t z) {
    const std::uint8_t* line = samples + (std::size_t(z) * g.height + y) * g.width;
    const std::uint32_t x0 = wx * kWordBits;
    if (Vector == 16 && x0 + kWordBits <= g.width) {
        const uint4* v = reinterpret_cast<const uint4*>(line + x0);
        const uint4 a = __ldg(v), b = __ldg(v + 1);
        return nonzeroBytes(a.x) | nonzeroBytes(a.y) << 4 | nonzeroBytes(a.z) << 8 | nonzeroBytes(a.w) << 12 |
               nonzeroBytes(b.x) << 16 | nonzeroBytes(b.y) << 20 | nonzeroBytes(b.z) << 24 | nonzeroBytes(b.w) << 28;
    }
    if (Vector == 4 && x0 + kWordBits <= g.width) {
        const std::uint32_t* v = reinterpret_cast<const std::uint32_t*>(line + x0);
        std::uint32_t bits = 0;
#pragma unroll
        for (int i = 0; i < kWordBits / 4; ++i) bits |= nonzeroBytes(__ldg(v + i)) << (4 * i);
        return bits;
    }
    std::uint32_t bits = 0;
    const std::uint32_t end = min(std::uint32_t(kWordBits), g.width - x0);
    for (std::uint32_t i = 0; i < end; ++i) bits |= (__ldg(line + x0 + i) != 0 ? 1u : 0u) << i;
    return bits;
}

// The bits of every line of the volume under `criterion`, into bits: a warp
// per word, lane i testing voxel 32 * wx + i (neighbouring lanes read
// neighbouring samples), the word a ballot; past the width, 0.
template <class Criterion>
__global__ void __launch_bounds__(kLineBitsThreads)
    lineBitsKernel(const typename Criterion::Sample* __restrict__ samples, std::uint32_t* __restrict__ bits,
                   NodeGrid g, PixelRule rule) {
    const Criterion criterion = Criterion::of(rule);
    const int lane = int(threadIdx.x) % kWarp;
    const std::uint64_t words = g.lineWords();
    const std::uint64_t warps = std::uint64_t(gridDim.x) * (kLineBitsThreads / kWarp);
    for (std::uint64_t word = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp; word < words;
         word += warps) {
        const std::uint64_t line = word / g.wordsX;
        const std::uint32_t x = std::uint32_t(word % g.wordsX) * kWordBits + std::uint32_t(lane);
        const bool foreground = x < g.width && criterion.isForeground(__ldg(samples + line * g.width + x));
        const std::uint32_t ballot = __ballot_sync(0xFFFFFFFFu, foreground);
        if (lane == 0) bits[word] = ballot;
    }
}

// Vector 16, 4, 1: the samples are bytes, read by loadLineWord; 0: the
// bits are in nodes.bits already (lineBitsKernel).
template <int Connectivity, int Vector>
__global__ void __launch_bounds__(Patch<Connectivity>::kThreads)
    localMergeVolumeKernel(const std::uint8_t* __restrict__ samples, VolumeNodes nodes, unsigned patchesX,
                           unsigned patchesY) {
    using B = Patch<Connectivity>;
    constexpr int kLines = B::kLines;
    constexpr Bundle kBundle = B::kBundle;
    __shared__ std::uint32_t sLines[kLines][B::kThreads];
    __shared__ std::uint32_t sForeground[B::kThreads];
    __shared__ std::uint32_t sParents[B::kThreads * kRunsPerWord];
    __shared__ std::uint32_t sQueue[B::kThreads / kWarp][kQueue];  // each warp's links (WarpLinks)
    static_assert(B::kThreads * kRunsPerWord <= 0x10000 && B::kThreads % kWarp == 0, "a link is two 16-bit slots");

    const NodeGrid& g = nodes.grid;
    const PatchPlace<Connectivity> place(patchesX, patchesY);
    const int t = place.t, w = place.w, by = place.by, bz = place.bz;
    const std::uint32_t wx = place.wx, gby = place.gby, gbz = place.gbz;
    const bool inside = place.inside(g);

    // 1. The lines, their bits and their OR.
    std::uint32_t lines[kLines];
    std::uint32_t p = 0;
#pragma unroll
    for (int l = 0; l < kLines; ++l) {
        const std::uint32_t y = gby * kBundle.height + std::uint32_t(l % kBundle.height);
        const std::uint32_t z = gbz * kBundle.depth + std::uint32_t(l / kBundle.height);
        const bool inVolume = inside && y < g.height && z < g.depth;
        if constexpr (Vector == 0) {
            lines[l] = inVolume ? nodes.bits[g.lineWord(wx, y, z)] : 0u;
        } else {
            lines[l] = inVolume ? loadLineWord<Vector>(samples, g, wx, y, z) : 0u;
            if (inVolume) nodes.bits[g.lineWord(wx, y, z)] = lines[l];
        }
        sLines[l][t] = lines[l];
        p |= lines[l];
    }
    sForeground[t] = p;
    if (inside && Connectivity != 6) nodes.foreground[g.bundleWord(wx, gby, gbz)] = p;

    // 2. The nodes, each its own parent.
    {
        int r = 0;
        for (std::uint32_t starts = runStarts(p); starts != 0u; starts &= starts - 1u, ++r) {
            const FirstVoxel first = firstVoxelOf(lines, runFrom(p, lowestBit(starts)));
            sParents[r * B::kThreads + t] =
                B::localKey(w * kWordBits + first.bit, by * kBundle.height + first.line % kBundle.height,
                            bz * kBundle.depth + first.line / kBundle.height);
        }
    }
    __syncthreads();

    // 3. The links inside the patch, found by each lane over its word's
    // relations, the warp in step, and united through the warp's queue
    // (WarpLinks). A link whose nodes read one parent (one tree), or the
    // two parents the lane's last link read (united then), is not queued.
    const PatchForest<Connectivity> forest{{sForeground}, sParents};
    auto slotAt = [&](int thread, int bit) { return runAt(sForeground[thread], bit) * B::kThreads + thread; };
    WarpLinks<std::uint32_t, kQueue> links{sQueue[t / kWarp], t % kWarp};
    auto unite = [&](std::uint32_t link) {
        const std::uint32_t a = forest.load(link & 0xFFFFu), b = forest.load(link >> 16);
        if (a != b) forest.unite(a, b);
    };
    std::uint32_t lastA = kNoKey, lastB = kNoKey;
    auto offer = [&](bool has, int u, int v) {  // in every lane
        if (has) {
            const std::uint32_t a = forest.load(u), b = forest.load(v);
            has = a != b && !(a == lastA && b == lastB);
            if (has) lastA = a, lastB = b;
        }
        links.push(has, std::uint32_t(u) | (std::uint32_t(v) << 16), unite);
    };
    {
        const bool has = w > 0 && (p & 1u) != 0u && (sForeground[t - 1] >> 31) != 0u;
        offer(has, has ? slotAt(t, 0) : 0, has ? slotAt(t - 1, 31) : 0);
    }
    forEachIndex<0, relationCount(Connectivity)>([&](auto index) {
        constexpr Relation kRelation = relationOf(Connectivity, decltype(index)::value);
        constexpr int kTerms = kRelation.terms;
        const int vby = by + kRelation.dy, vbz = bz + kRelation.dz;
        // V in another patch: merge_borders' link.
        const bool inPatch = p != 0u && vby >= 0 && vby < B::kBundlesY && vbz >= 0;
        const int tv = inPatch ? B::threadOf(w, vby, vbz) : t;
        std::uint32_t fu[kTerms], fv[kTerms];
        bool across[kTerms];
        TermLinks asked[kTerms];
#pragma unroll
        for (int k = 0; k < kTerms; ++k) {
            fu[k] = fv[k] = 0u;
            across[k] = kRelation.term[k].across;
#pragma unroll
            for (int l = 0; l < kLines; ++l) {
                if ((kRelation.term[k].uLines >> l) & 1u) fu[k] |= lines[l];
                if (inPatch && ((kRelation.term[k].vLines >> l) & 1u)) fv[k] |= sLines[l][tv];
            }
            asked[k] = termLinks(fu[k], fv[k], across[k]);
        }
        auto uSlot = [&](int x) { return slotAt(t, x); };
        auto vSlot = [&](int x) { return slotAt(tv, x); };
        offerTermLinks(asked, fu, fv, across, offer, uSlot, vSlot);
        // One step across the word's edges, to the words beside V's.
#pragma unroll
        for (int k = 0; k < kTerms; ++k) {
            if (!kRelation.term[k].across) continue;
            std::uint32_t before = 0u, after = 0u;
#pragma unroll
            for (int l = 0; l < kLines; ++l) {
                if (!inPatch || ((kRelation.term[k].vLines >> l) & 1u) == 0u) continue;
                if (w > 0) before |= sLines[l][tv - 1];
                if (w + 1 < B::kWords) after |= sLines[l][tv + 1];
            }
            const bool low = (fu[k] & 1u) != 0u && (before >> 31) != 0u;
            offer(low, low ? slotAt(t, 0) : 0, low ? slotAt(tv - 1, 31) : 0);
            const bool high = (fu[k] >> 31) != 0u && (after & 1u) != 0u;
            offer(high, high ? slotAt(t, 31) : 0, high ? slotAt(tv + 1, 0) : 0);
        }
        if constexpr (kRelation.kissLines != 0) {
            // Where the two bundles' runs kiss (volume_nodes.cuh, kissesOf),
            // and the kiss lines one step across the word's edges.
            std::uint32_t touchUV = 0u, touchVU = 0u;
            bool low = false, high = false;
#pragma unroll
            for (int l = 0; l < kLines; ++l) {
                if (!inPatch || ((kRelation.kissLines >> l) & 1u) == 0u) continue;
                const std::uint32_t v = sLines[l][tv];
                touchUV |= lines[l] & (v >> 1);
                touchVU |= v & (lines[l] >> 1);
                if (w > 0) low |= (lines[l] & 1u) != 0u && (sLines[l][tv - 1] >> 31) != 0u;
                if (w + 1 < B::kWords) high |= (lines[l] >> 31) != 0u && (sLines[l][tv + 1] & 1u) != 0u;
            }
            offer(low, low ? slotAt(t, 0) : 0, low ? slotAt(tv - 1, 31) : 0);
            offer(high, high ? slotAt(t, 31) : 0, high ? slotAt(tv + 1, 0) : 0);
            offerKisses(kissesOf(p, inPatch ? sForeground[tv] : 0u, touchUV, touchVU), offer, uSlot, vSlot);
        }
    });
    links.flush(unite);
    __syncthreads();

    // 4. Every node's patch-local root, as a volume key.
    if (!inside) return;
    const std::uint32_t x0 = place.patchX * B::kX, y0 = place.patchY * B::kY, z0 = place.patchZ * B::kZ;
    const std::size_t word = g.bundleWord(wx, gby, gbz);
    const int runs = popCount(runStarts(p));
    for (int r = 0; r < runs; ++r) {
        const std::uint32_t root = forest.rootHalving(forest.load(r * B::kThreads + t));
        nodes.parents[NodeGrid::slotOf(word, r)] =
            g.keyOf(x0 + std::uint32_t(B::xOfKey(root)), y0 + std::uint32_t(B::yOfKey(root)),
                    z0 + std::uint32_t(B::zOfKey(root)));
    }
}

}  // namespace

void LocalMergePass::run(const PassContext& context, const void* d_samples, const VolumeNodes& nodes,
                         const PixelRule& rule) {
    auto scope = context.timer.scope(kStage);
    const NodeGrid& g = nodes.grid;
    const auto* bytes = static_cast<const std::uint8_t*>(d_samples);
    // 16-byte loads where every line starts 16-byte aligned, 4-byte ones
    // where every line starts 4-byte aligned; 0: the bits come first.
    const auto address = reinterpret_cast<std::uintptr_t>(d_samples);
    int vector = address % 16 == 0 && g.width % 16 == 0 ? 16 : address % 4 == 0 && g.width % 4 == 0 ? 4 : 1;
    withSampleCriterion(rule, [&](auto criterion) {
        using Criterion = decltype(criterion);
        if constexpr (Criterion::kBinary && !std::is_same_v<Criterion, NonzeroBytes>) {
            const std::uint64_t wanted = (g.lineWords() * kWarp + kLineBitsThreads - 1) / kLineBitsThreads;
            const unsigned blocks = unsigned(std::min<std::uint64_t>(wanted, kMostLineBitsBlocks));
            lineBitsKernel<Criterion><<<blocks, kLineBitsThreads, 0, context.stream>>>(
                static_cast<const typename Criterion::Sample*>(d_samples), nodes.bits, g, rule);
            context.check.launched("lineBits", context.stream);
            vector = 0;
        }
    });
    withVolumeConnectivity(g.connectivity, [&](auto connectivity) {
        constexpr int C = decltype(connectivity)::value;
        const PatchLaunch<C> launch = PatchLaunch<C>::of(g);
        const unsigned threads = Patch<C>::kThreads;
        auto kernel = vector == 16  ? localMergeVolumeKernel<C, 16>
                      : vector == 4 ? localMergeVolumeKernel<C, 4>
                      : vector == 1 ? localMergeVolumeKernel<C, 1>
                                    : localMergeVolumeKernel<C, 0>;
        kernel<<<launch.blocks, threads, 0, context.stream>>>(bytes, nodes, launch.patchesX, launch.patchesY);
    });
    context.check.launched("localMerge (volume)", context.stream);
}

}  // namespace glccl::cuda

// final_labels, for a binary volume: the sibling of final_labels.cu. A body
// of its own: a word's runs are numbered from its bits in roots, and a warp
// writes 32 words' voxels line by line, not a thread a node's pixels. Every
// voxel takes its component's number, background 0. One thread per bundle
// word first numbers its nodes: a root (its bit in roots) holds its rank,
// and its number is its first voxel's line offset plus the rank plus one;
// any other node holds its root's key (count_roots), one step away. Then
// each warp writes its 32 words' voxels together, a lane per x, so that
// every store of the warp is 128 consecutive bytes of one line.

#include "stage_timer.hpp"
#include "volume_forest.cuh"

namespace glccl::cuda {
namespace {

using namespace volume;

constexpr int kWarp = 32;
constexpr int kLabelWarps = 8;
constexpr unsigned kFullWarp = 0xFFFFFFFFu;

template <int Connectivity>
__global__ void __launch_bounds__(kWarp* kLabelWarps)
    finalLabelsVolumeKernel(VolumeNodes nodes, std::uint32_t* __restrict__ labels) {
    constexpr Bundle kBundle = bundleOf(Connectivity);
    constexpr int kLines = kBundle.lines();
    // Run r of lane i's word at [r][i], padded so that both the lanes'
    // writes (one r, every i) and their reads (one i, any r) spread over
    // the banks.
    __shared__ std::uint32_t sNumbers[kLabelWarps][kRunsPerWord][kWarp + 1];

    const NodeGrid& g = nodes.grid;
    const VolumeForest<Connectivity> forest{{g, nodes.foreground}, nodes.parents};
    const int lane = int(threadIdx.x) % kWarp, warp = int(threadIdx.x) / kWarp;
    const std::size_t firstOfWarp = std::size_t(blockIdx.x) * (kWarp * kLabelWarps) + std::size_t(warp) * kWarp;
    if (firstOfWarp >= g.bundleWords()) return;  // the whole warp
    const std::size_t word = firstOfWarp + std::size_t(lane);
    const bool inside = word < g.bundleWords();
    const std::uint32_t wx = std::uint32_t(word % g.wordsX);
    const std::uint32_t row = std::uint32_t(word / g.wordsX);
    const std::uint32_t by = row % g.bundlesY, bz = row / g.bundlesY;

    std::uint32_t lines[kLines];
    std::uint32_t p = 0;
    if (inside) {
        loadBundleLines<Connectivity>(g, nodes.bits, wx, by, bz, lines);
#pragma unroll
        for (int l = 0; l < kLines; ++l) p |= lines[l];
    } else {
#pragma unroll
        for (int l = 0; l < kLines; ++l) lines[l] = 0u;
    }

    // This word's nodes' numbers.
    if (p != 0u) {
        const std::uint32_t roots = __ldg(&nodes.roots[word]);
        int r = 0;
        for (std::uint32_t starts = runStarts(p); starts != 0u; starts &= starts - 1u, ++r) {
            const std::size_t slot = NodeGrid::slotOf(word, r);
            std::uint32_t rank, rootKey;
            if ((roots >> r) & 1u) {
                const FirstVoxel v = firstVoxelOf(lines, runFrom(p, lowestBit(starts)));
                rootKey = g.keyOf(wx * kWordBits + std::uint32_t(v.bit), by * kBundle.height + std::uint32_t(v.line % kBundle.height),
                                  bz * kBundle.depth + std::uint32_t(v.line / kBundle.height));
                rank = __ldg(&nodes.parents[slot]);
            } else {
                // count_roots pointed every node at its root and left the
                // root's entry its rank.
                rootKey = __ldg(&nodes.parents[slot]);
                rank = __ldg(&nodes.parents[forest.slotOf(rootKey)]);
            }
            sNumbers[warp][r][lane] = __ldg(&nodes.lineOffsets[g.lineOfKey(rootKey)]) + rank + 1u;
        }
    }
    __syncwarp();

    // The warp's words, one after the other, a lane per voxel of a line.
    for (int i = 0; i < kWarp; ++i) {
        if (firstOfWarp + std::size_t(i) >= g.bundleWords()) break;  // the same for every lane
        const std::uint32_t pi = __shfl_sync(kFullWarp, p, i);
        const std::uint32_t wi = __shfl_sync(kFullWarp, wx, i);
        const std::uint32_t byi = __shfl_sync(kFullWarp, by, i), bzi = __shfl_sync(kFullWarp, bz, i);
        std::uint32_t li[kLines];
#pragma unroll
        for (int l = 0; l < kLines; ++l) li[l] = __shfl_sync(kFullWarp, lines[l], i);
        const std::uint32_t x = wi * kWordBits + std::uint32_t(lane);
        if (x >= g.width) continue;
        const std::uint32_t number = ((pi >> lane) & 1u) != 0u ? sNumbers[warp][runAt(pi, lane)][i] : 0u;
#pragma unroll
        for (int l = 0; l < kLines; ++l) {
            const std::uint32_t y = byi * kBundle.height + std::uint32_t(l % kBundle.height);
            const std::uint32_t z = bzi * kBundle.depth + std::uint32_t(l / kBundle.height);
            if (y >= g.height || z >= g.depth) continue;
            labels[(std::size_t(z) * g.height + y) * g.width + x] = ((li[l] >> lane) & 1u) != 0u ? number : 0u;
        }
    }
}

}  // namespace

void FinalLabelsPass::run(const PassContext& context, const VolumeNodes& nodes, std::uint32_t* d_labels) {
    auto scope = context.timer.scope(kStage);
    const NodeGrid& g = nodes.grid;
    const std::uint64_t threads = kWarp * kLabelWarps;
    const unsigned blocks = unsigned((g.bundleWords() + threads - 1) / threads);
    withVolumeConnectivity(g.connectivity, [&](auto connectivity) {
        constexpr int C = decltype(connectivity)::value;
        finalLabelsVolumeKernel<C><<<blocks, unsigned(threads), 0, context.stream>>>(nodes, d_labels);
    });
    context.check.launched("finalLabels (volume)", context.stream);
}

}  // namespace glccl::cuda

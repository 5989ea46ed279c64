// count_roots, for a binary volume: the sibling of count_roots.cu. A body
// of its own: a word holds up to 16 nodes, its runs, each ranked in the
// line of its first voxel, not one node a grid cell. First
// every node is pointed straight at its root (flattenNodesKernel), then one
// warp per bundle row (a bundle's lines, the whole width), each lane a run of
// consecutive words. A root is a node whose parent is its own key; its
// first voxel lies in one of the bundle's lines, and within a line roots
// order like their words and runs (runs are disjoint along x). Each root's
// rank among the roots of its line replaces its key in parents and sets its
// bit in roots; lineCounts gets every line's count. A device scan then
// gives lineOffsets (the roots in the lines before each line; the count
// after the last), so a component's number is its first voxel's line
// offset plus its rank plus one, with no host round trip.

#include <cub/device/device_scan.cuh>
#include <cub/warp/warp_scan.cuh>

#include "stage_timer.hpp"
#include "volume_forest.cuh"

namespace glccl::cuda {
namespace {

using namespace volume;

constexpr int kWarp = 32;
constexpr int kRowWarps = 8;  // bundle rows per thread block

// Roots per line of a bundle, summed as one value by the warp's scan.
template <int Lines>
struct LineCounts {
    std::uint32_t count[Lines];
    __device__ __forceinline__ LineCounts operator+(const LineCounts& o) const {
        LineCounts sum;
#pragma unroll
        for (int l = 0; l < Lines; ++l) sum.count[l] = count[l] + o.count[l];
        return sum;
    }
};

// Before the ranks: every node's parent becomes its root, so that
// count_roots finds the roots by one comparison and final_labels takes
// every number in one step (merge_borders leaves chains of patch-local
// roots as long as the patches a component crosses). Each thread writes its
// own nodes' entries only: a halving walk would store a grandparent into
// another node's entry after that node's thread had stored the root.
template <int Connectivity>
__global__ void __launch_bounds__(kWarp* kRowWarps) flattenNodesKernel(VolumeNodes nodes) {
    const NodeGrid& g = nodes.grid;
    const std::size_t word = std::size_t(blockIdx.x) * (kWarp * kRowWarps) + threadIdx.x;
    if (word >= g.bundleWords()) return;
    const int runs = popCount(runStarts(__ldg(&nodes.foreground[word])));
    const VolumeForest<Connectivity> forest{{g, nodes.foreground}, nodes.parents};
    for (int r = 0; r < runs; ++r) {
        const std::size_t slot = NodeGrid::slotOf(word, r);
        const std::uint32_t parent = nodes.parents[slot];
        const std::uint32_t root = forest.rootOf(parent);
        if (root != parent) nodes.parents[slot] = root;
    }
}

template <int Connectivity>
__global__ void __launch_bounds__(kWarp* kRowWarps) countRootsVolumeKernel(VolumeNodes nodes) {
    constexpr Bundle kBundle = bundleOf(Connectivity);
    constexpr int kLines = kBundle.lines();
    using Counts = LineCounts<kLines>;
    using Scan = cub::WarpScan<Counts>;
    __shared__ typename Scan::TempStorage scanStorage[kRowWarps];

    const NodeGrid& g = nodes.grid;
    const int warp = int(threadIdx.x) / kWarp, t = int(threadIdx.x) % kWarp;
    const std::uint64_t bundleRow = std::uint64_t(blockIdx.x) * kRowWarps + std::uint64_t(warp);
    if (bundleRow >= std::uint64_t(g.bundlesY) * g.bundlesZ) return;  // the whole warp
    const std::uint32_t by = std::uint32_t(bundleRow % g.bundlesY), bz = std::uint32_t(bundleRow / g.bundlesY);
    const std::uint32_t run = (g.wordsX + kWarp - 1) / kWarp;
    const std::uint32_t first = std::uint32_t(t) * run, end = min(first + run, g.wordsX);

    // Calls root(word index, slot, line of the first voxel) for each root of
    // the thread's words, and rootsOf(word index, root bits) after each word.
    auto forEachRoot = [&](auto&& root, auto&& rootsOf) {
        for (std::uint32_t wx = first; wx < end; ++wx) {
            std::uint32_t lines[kLines];
            loadBundleLines<Connectivity>(g, nodes.bits, wx, by, bz, lines);
            std::uint32_t p = 0;
#pragma unroll
            for (int l = 0; l < kLines; ++l) p |= lines[l];
            const std::size_t word = g.bundleWord(wx, by, bz);
            std::uint32_t bits = 0;
            int r = 0;
            for (std::uint32_t starts = runStarts(p); starts != 0u; starts &= starts - 1u, ++r) {
                const FirstVoxel v = firstVoxelOf(lines, runFrom(p, lowestBit(starts)));
                const std::uint32_t key =
                    g.keyOf(wx * kWordBits + std::uint32_t(v.bit), by * kBundle.height + std::uint32_t(v.line % kBundle.height),
                            bz * kBundle.depth + std::uint32_t(v.line / kBundle.height));
                const std::size_t slot = NodeGrid::slotOf(word, r);
                if (nodes.parents[slot] != key) continue;
                root(slot, v.line);
                bits |= 1u << r;
            }
            rootsOf(word, bits);
        }
    };

    Counts own{};
    forEachRoot([&](std::size_t, int line) { ++own.count[line]; }, [](std::size_t, std::uint32_t) {});
    Counts before, total;
    Scan(scanStorage[warp]).ExclusiveSum(own, before, total);
    forEachRoot([&](std::size_t slot, int line) { nodes.parents[slot] = before.count[line]++; },
                [&](std::size_t word, std::uint32_t bits) { nodes.roots[word] = std::uint16_t(bits); });

    if (t < kLines) {
        const std::uint32_t y = by * kBundle.height + std::uint32_t(t % kBundle.height);
        const std::uint32_t z = bz * kBundle.depth + std::uint32_t(t / kBundle.height);
        if (y < g.height && z < g.depth) nodes.lineCounts[std::size_t(z) * g.height + y] = total.count[t];
    }
    if (blockIdx.x == 0 && t == 0) nodes.lineCounts[std::size_t(g.height) * g.depth] = 0u;
}

}  // namespace

std::size_t CountRootsPass::volumeScratchBytes(std::size_t lines, const CudaCheck& check) {
    std::size_t bytes = 0;
    check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const std::uint32_t*>(nullptr),
                                        static_cast<std::uint32_t*>(nullptr), lines + 1),
          "cub::DeviceScan::ExclusiveSum (size query)");
    return bytes;
}

void CountRootsPass::run(const PassContext& context, const VolumeNodes& nodes, std::uint32_t* d_count,
                         void* d_scratch, std::size_t scratchBytes) {
    auto scope = context.timer.scope(kStage);
    const NodeGrid& g = nodes.grid;
    const std::size_t lines = std::size_t(g.height) * g.depth;
    withVolumeConnectivity(g.connectivity, [&](auto connectivity) {
        constexpr int C = decltype(connectivity)::value;
        // One-dimensional grid: at most 2^32 voxels make fewer bundle rows than 2^31.
        constexpr unsigned kThreads = kWarp * kRowWarps;
        flattenNodesKernel<C><<<unsigned((g.bundleWords() + kThreads - 1) / kThreads), kThreads, 0, context.stream>>>(
            nodes);
        const std::uint64_t rows = std::uint64_t(g.bundlesY) * g.bundlesZ;
        const unsigned blocks = unsigned((rows + kRowWarps - 1) / kRowWarps);
        countRootsVolumeKernel<C><<<blocks, kThreads, 0, context.stream>>>(nodes);
    });
    context.check.launched("countRoots (volume)", context.stream);
    context.check(cub::DeviceScan::ExclusiveSum(d_scratch, scratchBytes, nodes.lineCounts, nodes.lineOffsets,
                                                lines + 1, context.stream),
                  "cub::DeviceScan::ExclusiveSum (line offsets)");
    context.check(cudaMemcpyAsync(d_count, nodes.lineOffsets + lines, sizeof(std::uint32_t),
                                  cudaMemcpyDeviceToDevice, context.stream),
                  "cudaMemcpyAsync (component count)");
}

}  // namespace glccl::cuda

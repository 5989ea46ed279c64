// count_roots: numbers the roots of one node line per thread block. A root
// is a foreground node whose parent is its own key; its first pixel lies in
// one of the NodeH pixel lines of the node line, and within a pixel line
// roots order like their nodes. Each root's rank among the roots of its
// pixel line replaces its key (kRankFlag | rank); lineCounts gets the count
// of every pixel line. Each thread takes a run of consecutive nodes (at most
// 32, one bit each), so the block scans once per line.
//
// The last block of an image to finish then numbers its lines (scanLines):
// every line's offset, the roots in the lines above it, and the component
// count, with no launch and no host round trip of its own. Each block writes
// its counts and fences before it counts itself done on groupsDone, so the
// last one reads them all; it sets groupsDone back to 0 for the next
// labeling. The same steps as glsl/count_roots.comp.
//
// On the way it shortens the trees: a node whose parent lies in another
// patch (a patch-local root that merge_borders linked away) is pointed
// straight at its root, so final_labels walks two or three steps.

#include <cub/block/block_scan.cuh>

#include "node_grid.cuh"
#include "stage_timer.hpp"

namespace glccl::cuda {
namespace {

// Registers for a full SM (kFullSmThreads / kThreads blocks, two of 1024
// where an SM holds 2048 threads): left to itself the compiler takes more,
// one block of 1024 fits an SM, and the pass runs clearly slower than with
// the few spills the bound costs. kFullSmThreads is the most threads an SM
// of the architecture being compiled holds (any value in the host pass).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
constexpr int kFullSmThreads = 1024;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
constexpr int kFullSmThreads = 1536;
#else
constexpr int kFullSmThreads = 2048;
#endif

template <int NodeW, int NodeH, int kThreads>
__global__ void __launch_bounds__(kThreads, kFullSmThreads / kThreads > 0 ? kFullSmThreads / kThreads : 1)
    countRootsKernel(std::uint32_t* parents, const std::uint8_t* __restrict__ masks, std::uint32_t* lineCounts,
                     std::uint32_t* __restrict__ lineOffsets, std::uint32_t* groupsDone,
                     std::uint32_t* __restrict__ counts, std::uint32_t* __restrict__ callerCounts,
                     BlockGrid grid) {
    using Scan = cub::BlockScan<std::uint32_t, kThreads>;
    __shared__ typename Scan::TempStorage scanStorage;
    __shared__ bool lastGroup;

    const std::size_t imageIndex = blockIdx.y;
    const Forest<NodeW, NodeH> forest{NodeImage<NodeW, NodeH>{grid}, parents + imageIndex * grid.nodesPerImage()};
    const NodeImage<NodeW, NodeH>& im = forest.im;
    masks += imageIndex * grid.nodesPerImage();
    lineCounts += imageIndex * std::size_t(grid.height);
    lineOffsets += imageIndex * (std::size_t(grid.height) + 1);

    const int y = int(blockIdx.x);
    const int t = int(threadIdx.x);
    const int run = (grid.gridWidth + kThreads - 1) / kThreads;  // <= 32: blockGridFits
    const int first = t * run;
    const int end = min(first + run, grid.gridWidth);

    // Which nodes of the run are roots, and in which pixel line.
    std::uint32_t roots[NodeH];
#pragma unroll
    for (int s = 0; s < NodeH; ++s) roots[s] = 0u;
    for (int x = first; x < end; ++x) {
        const std::uint32_t node = im.nodeIndex(x, y);
        const std::uint32_t mask = masks[node];
        if (mask == 0u) continue;
        const int2 p = im.firstPixel(x, y, mask);
        const std::uint32_t parent = forest.parents[node];
        if (parent == im.keyOf(p.x, p.y)) {
            roots[p.y - y * NodeH] |= 1u << (x - first);
        } else if ((im.xOfKey(parent) / NodeW) / kNodePatchSide != x / kNodePatchSide ||
                   (im.lineOfKey(parent) / NodeH) / kNodePatchSide != y / kNodePatchSide) {
            const std::uint32_t root = forest.rootOf(parent);
            if (root != parent) forest.parents[node] = root;
        }
    }
    // Roots per pixel line of the node line, packed: the upper line's count
    // in the low 16 bits, the lower line's in the high 16 (a pixel line holds
    // at most 32768 nodes, so neither half carries into the other).
    std::uint32_t own = 0u;
#pragma unroll
    for (int s = 0; s < NodeH; ++s) own |= std::uint32_t(__popc(roots[s])) << (16 * s);
    std::uint32_t before = 0;
    std::uint32_t total = 0;
    Scan(scanStorage).ExclusiveSum(own, before, total);

#pragma unroll
    for (int s = 0; s < NodeH; ++s) {
        std::uint32_t rank = (before >> (16 * s)) & 0xFFFFu;
        for (std::uint32_t bits = roots[s]; bits != 0u; bits &= bits - 1u) {
            const int x = first + __ffs(int(bits)) - 1;
            forest.parents[im.nodeIndex(x, y)] = kRankFlag | rank;
            ++rank;
        }
    }
    if (t < NodeH && y * NodeH + t < grid.height) lineCounts[y * NodeH + t] = (total >> (16 * t)) & 0xFFFFu;

    // The last block of the image sees every block's counts.
    __threadfence();
    __syncthreads();
    if (t == 0) lastGroup = atomicAdd(&groupsDone[imageIndex], 1u) == gridDim.x - 1u;
    __syncthreads();
    if (!lastGroup) return;
    __threadfence();
    if (t == 0) groupsDone[imageIndex] = 0u;

    // scanLines: lineOffsets[line] = the roots whose first pixel is in a line
    // above it; lineOffsets[height] = the count. Each thread sums a run of
    // consecutive lines, the block scans those sums, and each thread writes
    // its lines' offsets. Loads bypass L1: other blocks wrote the counts.
    const int lines = (grid.height + kThreads - 1) / kThreads;
    const int firstLine = t * lines;
    const int endLine = min(firstLine + lines, grid.height);
    std::uint32_t sum = 0u;
    for (int line = firstLine; line < endLine; ++line) sum += __ldcg(&lineCounts[line]);
    std::uint32_t offset = 0;
    std::uint32_t count = 0;
    Scan(scanStorage).ExclusiveSum(sum, offset, count);
    for (int line = firstLine; line < endLine; ++line) {
        lineOffsets[line] = offset;
        offset += __ldcg(&lineCounts[line]);
    }
    if (t == 0) {
        lineOffsets[grid.height] = count;
        counts[imageIndex] = count;
        if (callerCounts != nullptr) callerCounts[imageIndex] = count;
    }
}

template <int NodeW, int NodeH>
void launchCountRoots(const PassContext& context, std::uint32_t* d_parents, const std::uint8_t* d_masks,
                      std::uint32_t* d_lineCounts, std::uint32_t* d_lineOffsets, std::uint32_t* d_groupsDone,
                      std::uint32_t* d_counts, std::uint32_t* d_callerCounts, const BlockGrid& grid) {
    const dim3 blocks(unsigned(grid.gridHeight), unsigned(grid.images));
    if (grid.gridWidth <= kNarrowGridWidth) {
        countRootsKernel<NodeW, NodeH, kNarrowLineThreads><<<blocks, kNarrowLineThreads, 0, context.stream>>>(
            d_parents, d_masks, d_lineCounts, d_lineOffsets, d_groupsDone, d_counts, d_callerCounts, grid);
    } else {
        countRootsKernel<NodeW, NodeH, kLineThreads><<<blocks, kLineThreads, 0, context.stream>>>(
            d_parents, d_masks, d_lineCounts, d_lineOffsets, d_groupsDone, d_counts, d_callerCounts, grid);
    }
    context.check.launched("countRoots", context.stream);
}

}  // namespace

void CountRootsPass::run(const PassContext& context, std::uint32_t* d_parents, const std::uint8_t* d_masks,
                         std::uint32_t* d_lineCounts, std::uint32_t* d_lineOffsets, std::uint32_t* d_groupsDone,
                         std::uint32_t* d_counts, std::uint32_t* d_callerCounts, const BlockGrid& grid) {
    auto scope = context.timer.scope(kStage);
    withNodeShape(grid, [&](auto shape) {
        using Shape = decltype(shape);
        launchCountRoots<Shape::width, Shape::height>(context, d_parents, d_masks, d_lineCounts, d_lineOffsets,
                                                      d_groupsDone, d_counts, d_callerCounts, grid);
    });
}

}  // namespace glccl::cuda

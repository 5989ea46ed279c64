// final_labels: every pixel takes its component's number, background 0.
// One thread per node: a root (its entry holds kRankFlag | rank) is numbered
// by the roots in the lines above its first pixel plus its rank; any other
// node walks to its root (two or three steps after count_roots) and takes
// that number. Neighbouring threads write neighbouring pixels. The labels
// half of glsl/final_labels.comp; the table is component_stats' work.

#include "node_grid.cuh"
#include "stage_timer.hpp"

namespace glccl::cuda {
namespace {

template <int NodeW, int NodeH>
__global__ void __launch_bounds__(kLabelThreadsX* kLabelThreadsY)
    finalLabelsKernel(const std::uint32_t* __restrict__ parents, const std::uint8_t* __restrict__ masks,
                      const std::uint32_t* __restrict__ lineOffsets, std::uint32_t* __restrict__ labels,
                      BlockGrid grid) {
    const std::size_t imageIndex = blockIdx.z;
    const NodeImage<NodeW, NodeH> im{grid};
    const int nx = int(blockIdx.x) * kLabelThreadsX + int(threadIdx.x);
    const int ny = int(blockIdx.y) * kLabelThreadsY + int(threadIdx.y);
    if (!im.insideGrid(nx, ny)) return;
    parents += imageIndex * grid.nodesPerImage();
    masks += imageIndex * grid.nodesPerImage();
    lineOffsets += imageIndex * (std::size_t(grid.height) + 1);
    labels += imageIndex * grid.pixelsPerImage();

    const std::uint32_t node = im.nodeIndex(nx, ny);
    const std::uint32_t mask = masks[node];
    std::uint32_t label = 0u;
    if (mask != 0u) {
        const std::uint32_t parent = parents[node];
        if ((parent & kRankFlag) != 0u) {
            label = lineOffsets[im.firstPixel(nx, ny, mask).y] + (parent & ~kRankFlag) + 1u;
        } else {
            // Read-only here: the walk of Forest::rootOf without its type,
            // whose parents are writable.
            std::uint32_t key = parent;
            std::uint32_t entry = parents[im.nodeOfKey(key)];
            while ((entry & kRankFlag) == 0u) {
                key = entry;
                entry = parents[im.nodeOfKey(key)];
            }
            label = lineOffsets[im.lineOfKey(key)] + (entry & ~kRankFlag) + 1u;
        }
    }
#pragma unroll
    for (int i = 0; i < NodeW * NodeH; ++i) {
        const int x = nx * NodeW + i % NodeW;
        const int y = ny * NodeH + i / NodeW;
        if (im.insideImage(x, y)) {
            labels[std::size_t(y) * std::size_t(grid.width) + std::size_t(x)] = (mask & (1u << i)) != 0u ? label : 0u;
        }
    }
}

template <int NodeW, int NodeH>
void launchFinalLabels(const PassContext& context, const std::uint32_t* d_parents, const std::uint8_t* d_masks,
                       const std::uint32_t* d_lineOffsets, std::uint32_t* d_labels, const BlockGrid& grid) {
    const dim3 blocks(unsigned((grid.gridWidth + kLabelThreadsX - 1) / kLabelThreadsX),
                      unsigned((grid.gridHeight + kLabelThreadsY - 1) / kLabelThreadsY), unsigned(grid.images));
    const dim3 threads(kLabelThreadsX, kLabelThreadsY);
    finalLabelsKernel<NodeW, NodeH><<<blocks, threads, 0, context.stream>>>(d_parents, d_masks, d_lineOffsets,
                                                                             d_labels, grid);
    context.check.launched("finalLabels", context.stream);
}

}  // namespace

void FinalLabelsPass::run(const PassContext& context, const std::uint32_t* d_parents, const std::uint8_t* d_masks,
                          const std::uint32_t* d_lineOffsets, std::uint32_t* d_labels, const BlockGrid& grid) {
    auto scope = context.timer.scope(kStage);
    withNodeShape(grid, [&](auto shape) {
        using Shape = decltype(shape);
        launchFinalLabels<Shape::width, Shape::height>(context, d_parents, d_masks, d_lineOffsets, d_labels, grid);
    });
}

}  // namespace glccl::cuda

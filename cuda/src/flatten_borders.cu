// Kernel 3 of Stava & Benes (Sec. 35.3.4): between two levels of merge_patches,
// points the pixels on both sides of every border the next levels will merge
// across straight at their roots (FindRoot of Fig. 35.4). Unions at those
// borders then start one step from the root instead of walking trees that
// grew deeper with every level; the paper measured 15-20% from this.
//
//   column blockSize * m - 1 | column blockSize * m     (and the same for rows)
//
// Runs alone on the stream, so no union moves a root while it flattens;
// threads flattening at once only ever write roots, which every reader
// accepts as a valid parent.

#include "passes.hpp"
#include "stage_timer.hpp"
#include "union_find.cuh"

namespace glccl::cuda {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kMaxBlocks = 1u << 16;

__device__ __forceinline__ void flattenPixel(std::uint32_t* labels, std::size_t p) {
    const std::uint32_t parent = labels[p];
    if (parent == kBackground || parent == p) return;
    labels[p] = indexForest(labels).rootOf(parent);
}

__global__ void __launch_bounds__(kThreads)
    flattenBordersKernel(std::uint32_t* labels, int width, int height, int blockSize, std::uint64_t verticalItems,
                         std::uint64_t totalItems) {
    const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
    for (std::uint64_t item = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; item < totalItems;
         item += stride) {
        if (item < verticalItems) {
            // Column pair m: columns blockSize * (m + 1) - 1 and blockSize * (m + 1).
            const std::uint64_t column = item / std::uint64_t(height);
            const int y = int(item % std::uint64_t(height));
            const int x = int((column / 2 + 1) * std::uint64_t(blockSize) - 1 + column % 2);
            flattenPixel(labels, std::size_t(y) * width + x);
        } else {
            const std::uint64_t h = item - verticalItems;
            const std::uint64_t row = h / std::uint64_t(width);
            const int x = int(h % std::uint64_t(width));
            const int y = int((row / 2 + 1) * std::uint64_t(blockSize) - 1 + row % 2);
            flattenPixel(labels, std::size_t(y) * width + x);
        }
    }
}

}  // namespace

void FlattenBordersPass::run(const PassContext& context, std::uint32_t* d_labels, int width, int height,
                             int blockSize) {
    auto scope = context.timer.scope(kStage);
    const std::uint64_t bordersX = std::uint64_t((width + blockSize - 1) / blockSize) - 1;
    const std::uint64_t bordersY = std::uint64_t((height + blockSize - 1) / blockSize) - 1;
    const std::uint64_t verticalItems = 2 * bordersX * std::uint64_t(height);
    const std::uint64_t totalItems = verticalItems + 2 * bordersY * std::uint64_t(width);
    if (totalItems == 0) return;
    const std::uint64_t wanted = (totalItems + kThreads - 1) / kThreads;
    const unsigned blocks = unsigned(wanted < kMaxBlocks ? wanted : kMaxBlocks);
    flattenBordersKernel<<<blocks, kThreads, 0, context.stream>>>(d_labels, width, height, blockSize, verticalItems,
                                                                  totalItems);
    context.check.launched("flattenBorders", context.stream);
}

}  // namespace glccl::cuda

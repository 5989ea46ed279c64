// Kernel 2 of Stava & Benes (Fig. 35.9, 35.10): one level of the merging
// scheme. The blocks of the previous level (subBlockSize pixels a side;
// kernel 1's patches at the first level) are merged kMergeFactor x kMergeFactor
// at a time by uniting the trees of connected pixels across the borders
// between them:
//
//     +-----+-----+-----+-----++-----+--      | vertical border: pixel (x, y)
//     |     |     |     |     ||     |        | in the last column of a block
//     |     |     |     |     ||     |        | and (x + 1, y - 1 .. y + 1);
//     +-----+-----+-----+-----++-----+--      | horizontal border: (x, y) in
//     |     |     |     |     ||     |        | the last row and (x - 1 .. x + 1,
//     +-----+-----+-----+-----++-----+--      | y + 1). Diagonals only with
//     ...   one group of 4 x 4   ||           | 8-connectivity.
//     ======================== ++ ===         | Borders between groups (double
//                                             | lines) wait for a later level.
//
// The paper gives each group one block that loops until a shared changed
// flag stays clear. With the atomic union of union_find.cuh every link is in
// place when its thread finishes, so all border pixels of the level are
// spread over one flat grid, whatever the group they belong to: the same
// work, no loop, and no idle threads in the few large groups of the last
// levels. A diagonal link at a group corner may be united one level early;
// uniting twice is harmless, and every link between two blocks of a group
// crosses one of that level's borders, so none is missed.
//
// Past the paper: any width and height; blocks and groups on the right and
// bottom edges are partial, and borders that would need a pixel outside the
// image are skipped.

#include "connectivity.cuh"
#include "passes.hpp"
#include "stage_timer.hpp"
#include "union_find.cuh"

namespace glccl::cuda {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kMaxBlocks = 1u << 16;

// The merged borders of one axis: sub-block boundaries k (between block k
// and k + 1) except those that are also group boundaries ((k + 1) divisible
// by kMergeFactor).
__host__ __device__ __forceinline__ std::uint32_t mergedBorderCount(int blocks) {
    const std::uint32_t boundaries = blocks > 1 ? std::uint32_t(blocks - 1) : 0u;
    return boundaries - boundaries / kMergeFactor;
}

// The j-th merged border -> the last pixel row/column before it.
__device__ __forceinline__ int lastBeforeBorder(std::uint32_t j, int subBlockSize) {
    const std::uint32_t k = (j / (kMergeFactor - 1)) * kMergeFactor + j % (kMergeFactor - 1);
    return int((k + 1) * std::uint32_t(subBlockSize)) - 1;
}

template <typename Pixel>
__device__ __forceinline__ void uniteIfConnected(const Pixel* image, std::uint32_t* labels, Pixel value,
                                                 std::size_t p, std::size_t q, const PixelRule& rule) {
    if (areConnected(value, image[q], rule)) unite(labels, std::uint32_t(p), std::uint32_t(q));
}

template <typename Pixel>
__global__ void __launch_bounds__(kThreads)
    mergeTilesKernel(const Pixel* __restrict__ image, std::uint32_t* labels, int width, int height, PixelRule rule,
                     int subBlockSize, std::uint64_t verticalItems, std::uint64_t totalItems) {
    const int maxOffset = rule.connectivity == 8 ? 1 : 0;
    const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
    for (std::uint64_t item = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; item < totalItems;
         item += stride) {
        if (item < verticalItems) {
            // (x, y) left of a vertical border, with (x + 1, y + d).
            const int x = lastBeforeBorder(std::uint32_t(item / std::uint64_t(height)), subBlockSize);
            const int y = int(item % std::uint64_t(height));
            const std::size_t p = std::size_t(y) * width + x;
            const Pixel value = image[p];
            if (!isForeground(value, rule)) continue;
            for (int d = -maxOffset; d <= maxOffset; ++d) {
                const int ny = y + d;
                if (ny < 0 || ny >= height) continue;
                uniteIfConnected(image, labels, value, p, std::size_t(ny) * width + x + 1, rule);
            }
        } else {
            // (x, y) above a horizontal border, with (x + d, y + 1).
            const std::uint64_t h = item - verticalItems;
            const int y = lastBeforeBorder(std::uint32_t(h / std::uint64_t(width)), subBlockSize);
            const int x = int(h % std::uint64_t(width));
            const std::size_t p = std::size_t(y) * width + x;
            const Pixel value = image[p];
            if (!isForeground(value, rule)) continue;
            for (int d = -maxOffset; d <= maxOffset; ++d) {
                const int nx = x + d;
                if (nx < 0 || nx >= width) continue;
                uniteIfConnected(image, labels, value, p, std::size_t(y + 1) * width + nx, rule);
            }
        }
    }
}

}  // namespace

template <typename Pixel>
void MergeTilesPass::run(const PassContext& context, const Pixel* d_image, std::uint32_t* d_labels, int width,
                         int height, PixelRule rule, int subBlockSize) {
    auto scope = context.timer.scope(kStage);
    const int blocksX = (width + subBlockSize - 1) / subBlockSize;
    const int blocksY = (height + subBlockSize - 1) / subBlockSize;
    const std::uint64_t verticalItems = std::uint64_t(mergedBorderCount(blocksX)) * std::uint64_t(height);
    const std::uint64_t horizontalItems = std::uint64_t(mergedBorderCount(blocksY)) * std::uint64_t(width);
    const std::uint64_t totalItems = verticalItems + horizontalItems;
    if (totalItems == 0) return;
    const std::uint64_t wanted = (totalItems + kThreads - 1) / kThreads;
    const unsigned blocks = unsigned(wanted < kMaxBlocks ? wanted : kMaxBlocks);
    mergeTilesKernel<Pixel><<<blocks, kThreads, 0, context.stream>>>(d_image, d_labels, width, height, rule,
                                                                     subBlockSize, verticalItems, totalItems);
    context.check.launched("mergeTiles", context.stream);
}

template void MergeTilesPass::run<std::uint8_t>(const PassContext&, const std::uint8_t*, std::uint32_t*, int, int,
                                                PixelRule, int);
template void MergeTilesPass::run<uchar4>(const PassContext&, const uchar4*, std::uint32_t*, int, int, PixelRule,
                                          int);

}  // namespace glccl::cuda

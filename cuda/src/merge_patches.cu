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
// Volumes: the sibling kernel below merges every face between volume patches
// in one launch, no levels. A pair of neighbouring voxels in two patches
// crosses a patch boundary along some axis, and on that axis one of the two
// lies in the first slice (row, column) of its patch: so every voxel on a
// patch's low z face unites with its connected neighbours in slice z - 1, on
// a low y face with those in row y - 1, on a low x face with those in column
// x - 1. That covers the pairs across faces, edges and corners (a corner pair
// is seen up to three times; uniting twice is harmless). Per voxel on a face
// that is 1 (6), 5 (18) or 9 (26) neighbours. With no levels, the unions
// halve the paths they walk (union_find.cuh).
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
// Faces of a volume hold far more voxels than an image's borders hold pixels.
constexpr unsigned kMaxVolumeBlocks = 1u << 20;

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

template <bool kHalving = false, class Criterion>
__device__ __forceinline__ void uniteIfConnected(const typename Criterion::Sample* image, std::uint32_t* labels,
                                                 typename Criterion::Sample value, std::size_t p, std::size_t q,
                                                 const Criterion& criterion) {
    if (criterion.connects(value, image[q])) indexForest(labels).unite<kHalving>(std::uint32_t(p), std::uint32_t(q));
}

template <class Criterion>
__global__ void __launch_bounds__(kThreads)
    mergePatchesKernel(const typename Criterion::Sample* __restrict__ image, std::uint32_t* labels, int width,
                       int height, PixelRule rule, int subBlockSize, std::uint64_t verticalItems,
                       std::uint64_t totalItems) {
    using Sample = typename Criterion::Sample;
    const Criterion criterion = Criterion::of(rule);
    const int maxOffset = rule.connectivity == 8 ? 1 : 0;
    const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
    for (std::uint64_t item = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; item < totalItems;
         item += stride) {
        if (item < verticalItems) {
            // (x, y) left of a vertical border, with (x + 1, y + d).
            const int x = lastBeforeBorder(std::uint32_t(item / std::uint64_t(height)), subBlockSize);
            const int y = int(item % std::uint64_t(height));
            const std::size_t p = std::size_t(y) * width + x;
            const Sample value = image[p];
            if (!criterion.isForeground(value)) continue;
            for (int d = -maxOffset; d <= maxOffset; ++d) {
                const int ny = y + d;
                if (ny < 0 || ny >= height) continue;
                uniteIfConnected(image, labels, value, p, std::size_t(ny) * width + x + 1, criterion);
            }
        } else {
            // (x, y) above a horizontal border, with (x + d, y + 1).
            const std::uint64_t h = item - verticalItems;
            const int y = lastBeforeBorder(std::uint32_t(h / std::uint64_t(width)), subBlockSize);
            const int x = int(h % std::uint64_t(width));
            const std::size_t p = std::size_t(y) * width + x;
            const Sample value = image[p];
            if (!criterion.isForeground(value)) continue;
            for (int d = -maxOffset; d <= maxOffset; ++d) {
                const int nx = x + d;
                if (nx < 0 || nx >= width) continue;
                uniteIfConnected(image, labels, value, p, std::size_t(y + 1) * width + nx, criterion);
            }
        }
    }
}

// The voxels of the faces, in three runs: low z faces (slices), low y faces
// (rows through every slice), low x faces (columns through every slice).
struct VolumeFaces {
    std::uint64_t zItems, yItems, xItems;
};

template <class Criterion, int Connectivity>
__global__ void __launch_bounds__(kThreads)
    mergePatchesVolumeKernel(const typename Criterion::Sample* __restrict__ image, std::uint32_t* labels, int width,
                             int height, int depth, PixelRule rule, VolumeFaces faces) {
    using Sample = typename Criterion::Sample;
    const Criterion criterion = Criterion::of(rule);
    // Every face run and every plane holds fewer than 2^32 voxels (the
    // pipeline's limit): 32-bit divisions, far cheaper than 64-bit ones.
    const std::uint32_t w = std::uint32_t(width);
    const std::uint32_t h = std::uint32_t(height);
    const std::uint32_t d = std::uint32_t(depth);
    const std::uint64_t total = faces.zItems + faces.yItems + faces.xItems;
    const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
    for (std::uint64_t item = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; item < total; item += stride) {
        // The voxel, and the axis along which its neighbours are one step back.
        int x, y, z, axis;
        if (item < faces.zItems) {
            const std::uint32_t i = std::uint32_t(item);
            const std::uint32_t face = i / (w * h), rest = i % (w * h);
            z = int((face + 1) * kVolumePatchZ);
            y = int(rest / w);
            x = int(rest % w);
            axis = 2;
        } else if (item < faces.zItems + faces.yItems) {
            const std::uint32_t i = std::uint32_t(item - faces.zItems);
            const std::uint32_t face = i / (w * d), rest = i % (w * d);
            y = int((face + 1) * kVolumePatchY);
            z = int(rest / w);
            x = int(rest % w);
            axis = 1;
        } else {
            const std::uint32_t i = std::uint32_t(item - faces.zItems - faces.yItems);
            const std::uint32_t face = i / (h * d), rest = i % (h * d);
            x = int((face + 1) * kVolumePatchX);
            z = int(rest / h);
            y = int(rest % h);
            axis = 0;
        }
        const std::size_t p = (std::size_t(z) * h + y) * w + x;
        const Sample value = image[p];
        if (!criterion.isForeground(value)) continue;
        // Neighbours (a, b) steps along the two other axes, one step back on `axis`.
#pragma unroll
        for (int a = -1; a <= 1; ++a) {
#pragma unroll
            for (int b = -1; b <= 1; ++b) {
                if (!joinsAcross(Connectivity, 1 + (a != 0) + (b != 0))) continue;
                const int nx = axis == 0 ? x - 1 : x + a;
                const int ny = axis == 1 ? y - 1 : axis == 0 ? y + a : y + b;
                const int nz = axis == 2 ? z - 1 : z + b;
                if (nx < 0 || ny < 0 || nz < 0 || nx >= width || ny >= height || nz >= depth) continue;
                uniteIfConnected<true>(image, labels, value, p, (std::size_t(nz) * h + ny) * w + nx, criterion);
            }
        }
    }
}

template <class Criterion, int Connectivity>
void launchMergePatchesVolume(const PassContext& context, const void* d_samples, std::uint32_t* d_labels, int width,
                              int height, int depth, const PixelRule& rule) {
    const std::uint64_t w = std::uint64_t(width), h = std::uint64_t(height), d = std::uint64_t(depth);
    // Patch boundaries inside the volume along each axis.
    auto boundaries = [](std::uint64_t extent, int patch) { return (extent - 1) / std::uint64_t(patch); };
    const VolumeFaces faces{boundaries(d, kVolumePatchZ) * w * h, boundaries(h, kVolumePatchY) * w * d,
                            boundaries(w, kVolumePatchX) * h * d};
    const std::uint64_t total = faces.zItems + faces.yItems + faces.xItems;
    if (total == 0) return;
    const std::uint64_t wanted = (total + kThreads - 1) / kThreads;
    const unsigned blocks = unsigned(wanted < kMaxVolumeBlocks ? wanted : kMaxVolumeBlocks);
    mergePatchesVolumeKernel<Criterion, Connectivity><<<blocks, kThreads, 0, context.stream>>>(
        static_cast<const typename Criterion::Sample*>(d_samples), d_labels, width, height, depth, rule, faces);
    context.check.launched("mergePatches (volume)", context.stream);
}

}  // namespace

void MergePatchesPass::run(const PassContext& context, const void* d_samples, std::uint32_t* d_labels, int width,
                           int height, int depth, const PixelRule& rule) {
    auto scope = context.timer.scope(kStage);
    withSampleCriterion(rule, [&](auto criterion) {
        using Criterion = decltype(criterion);
        withVolumeConnectivity(rule.connectivity, [&](auto connectivity) {
            launchMergePatchesVolume<Criterion, decltype(connectivity)::value>(context, d_samples, d_labels, width, height, depth,
                                                                       rule);
        });
    });
}

void MergePatchesPass::run(const PassContext& context, const void* d_samples, std::uint32_t* d_labels, int width,
                           int height, const PixelRule& rule, int subBlockSize) {
    auto scope = context.timer.scope(kStage);
    const int blocksX = (width + subBlockSize - 1) / subBlockSize;
    const int blocksY = (height + subBlockSize - 1) / subBlockSize;
    const std::uint64_t verticalItems = std::uint64_t(mergedBorderCount(blocksX)) * std::uint64_t(height);
    const std::uint64_t horizontalItems = std::uint64_t(mergedBorderCount(blocksY)) * std::uint64_t(width);
    const std::uint64_t totalItems = verticalItems + horizontalItems;
    if (totalItems == 0) return;
    const std::uint64_t wanted = (totalItems + kThreads - 1) / kThreads;
    const unsigned blocks = unsigned(wanted < kMaxBlocks ? wanted : kMaxBlocks);
    withSampleCriterion(rule, [&](auto criterion) {
        using Criterion = decltype(criterion);
        mergePatchesKernel<Criterion><<<blocks, kThreads, 0, context.stream>>>(
            static_cast<const typename Criterion::Sample*>(d_samples), d_labels, width, height, rule, subBlockSize,
            verticalItems, totalItems);
    });
    context.check.launched("mergePatches", context.stream);
}

}  // namespace glccl::cuda

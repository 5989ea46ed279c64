// The output contract's numbering (docs/formats.md) on the device. After
// flattenLabels every foreground pixel holds its root, and the root is the
// component's first pixel in raster order (union_find.cuh). So numbering
// components by first pixel is numbering roots by index:
//
//   rank[i]   = number of roots among pixels 0 .. i - 1   (exclusive scan of
//               "labels[i] == i", one extra element so rank[n] = count)
//   labels[p] = rank[labels[p]] + 1, or 0 for background
//
// The root flags are computed on the fly by the scan's input iterator, so
// they are never stored. The final write is in place: each thread reads only
// its own label and the rank array.

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "passes.hpp"
#include "stage_timer.hpp"

namespace glccl::cuda {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kMaxBlocks = 1u << 20;

struct IsRoot {
    const std::uint32_t* labels;
    std::uint32_t pixelCount;
    __host__ __device__ std::uint32_t operator()(std::uint32_t i) const {
        return i < pixelCount && labels[i] == i ? 1u : 0u;
    }
};

auto rootFlags(const std::uint32_t* d_labels, std::size_t pixelCount) {
    return thrust::make_transform_iterator(thrust::make_counting_iterator<std::uint32_t>(0),
                                           IsRoot{d_labels, std::uint32_t(pixelCount)});
}

__global__ void __launch_bounds__(kThreads)
    relabelKernel(std::uint32_t* labels, const std::uint32_t* __restrict__ rank, std::uint64_t pixelCount) {
    const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
    for (std::uint64_t p = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < pixelCount; p += stride) {
        const std::uint32_t root = labels[p];
        labels[p] = root == kBackground ? 0u : rank[root] + 1u;
    }
}

}  // namespace

std::size_t RelabelPass::scratchBytes(std::size_t pixelCount, const CudaCheck& check) {
    std::size_t bytes = 0;
    // pixelCount <= kMaxPixels, so pixelCount + 1 scan items fit in 32 bits.
    check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, rootFlags(nullptr, pixelCount),
                                        static_cast<std::uint32_t*>(nullptr), std::uint32_t(pixelCount + 1)),
          "cub::DeviceScan::ExclusiveSum (scratch size)");
    return bytes;
}

void RelabelPass::run(const PassContext& context, std::uint32_t* d_labels, std::uint32_t* d_rank,
                      std::size_t pixelCount, void* d_scratch, std::size_t scratchBytes) {
    auto scope = context.timer.scope(kStage);
    const CudaCheck& check = context.check;
    check(cub::DeviceScan::ExclusiveSum(d_scratch, scratchBytes, rootFlags(d_labels, pixelCount), d_rank,
                                        std::uint32_t(pixelCount + 1), context.stream),
          "cub::DeviceScan::ExclusiveSum");
    check.launched("relabel (root scan)", context.stream);
    const std::uint64_t wanted = (std::uint64_t(pixelCount) + kThreads - 1) / kThreads;
    const unsigned blocks = unsigned(wanted < kMaxBlocks ? wanted : kMaxBlocks);
    relabelKernel<<<blocks, kThreads, 0, context.stream>>>(d_labels, d_rank, pixelCount);
    check.launched("relabel", context.stream);
}

}  // namespace glccl::cuda

// Kernel 4 of Stava & Benes (Sec. 35.3.5): once every level is merged, each
// tree is exactly one component; every pixel takes its root (FindRoot of
// Fig. 35.4) as its label. Threads only ever write roots, which every other
// thread's walk accepts as a valid parent, so they need no ordering.

#include "passes.hpp"
#include "stage_timer.hpp"
#include "union_find.cuh"

namespace glccl::cuda {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kMaxBlocks = 1u << 20;

__global__ void __launch_bounds__(kThreads) flattenLabelsKernel(std::uint32_t* labels, std::uint64_t pixelCount) {
    const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
    for (std::uint64_t p = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < pixelCount; p += stride) {
        const std::uint32_t parent = labels[p];
        if (parent == kBackground || parent == p) continue;
        // Most pixels already point at their root (a patch root that no
        // merge moved): those cost a read, not a write.
        const std::uint32_t root = indexForest(labels).rootOf(parent);
        if (root != parent) labels[p] = root;
    }
}

}  // namespace

void FlattenLabelsPass::run(const PassContext& context, std::uint32_t* d_labels, std::size_t pixelCount) {
    auto scope = context.timer.scope(kStage);
    const std::uint64_t wanted = (std::uint64_t(pixelCount) + kThreads - 1) / kThreads;
    const unsigned blocks = unsigned(wanted < kMaxBlocks ? wanted : kMaxBlocks);
    flattenLabelsKernel<<<blocks, kThreads, 0, context.stream>>>(d_labels, pixelCount);
    context.check.launched("flattenLabels", context.stream);
}

}  // namespace glccl::cuda

// Kernel 1 of Stava & Benes (Fig. 35.8): CCL of one kPatchSide x kPatchSide
// patch per block, in shared memory, one thread per pixel.
//
// Each iteration: every pixel publishes its current label, takes the smallest
// label among its connected neighbours in the patch, and if that is smaller
// hangs its tree's root under it with atomicMin (pass 1); then every pixel
// follows its label to the root (pass 2). The loop ends when no pixel saw a
// smaller neighbour (Fig. 35.8 prints that exit test inverted). Labels only
// decrease and always name a pixel of the same component, and the smallest
// index of a component never changes, so every component of the patch ends
// labelled with its smallest patch-local index: its first pixel in raster
// order, which becomes a root of the global forest (union_find.cuh).
//
// Volumes: the sibling kernel below labels one volume patch per block. There
// the fixed point above would take an iteration per step along the longest
// path in the patch, so it unites instead: every voxel joins its connected
// backward neighbours in the patch with the union of union_find.cuh on the
// shared labels (roots hang under smaller roots, so each patch component's
// root is its first voxel), and after one barrier every voxel reads its root.
// Two barriers, whatever the shapes in the patch.
//
// Past the paper: pixels outside the image (partial patches on the right and
// bottom edges) are background, and the criterion and connectivity come from
// connectivity.cuh instead of "equal segment values, Moore neighbourhood".

#include "connectivity.cuh"
#include "passes.hpp"
#include "stage_timer.hpp"
#include "union_find.cuh"

namespace glccl::cuda {
namespace {

constexpr int kPatchPixels = kPatchSide * kPatchSide;
constexpr std::uint32_t kNoLabel = 0xFFFFFFFFu;

__device__ __forceinline__ std::uint32_t findPatchRoot(const std::uint32_t* sLabels, std::uint32_t i) {
    std::uint32_t parent = sLabels[i];
    while (parent != i) {
        i = parent;
        parent = sLabels[i];
    }
    return i;
}

template <typename Pixel>
__global__ void __launch_bounds__(kPatchPixels)
    solveTilesKernel(const Pixel* __restrict__ image, std::uint32_t* __restrict__ labels, int width, int height,
                     int patchesX, PixelRule rule) {
    __shared__ Pixel sPixels[kPatchPixels];
    __shared__ std::uint32_t sLabels[kPatchPixels];

    const int patchX = int(blockIdx.x % unsigned(patchesX)) * kPatchSide;
    const int patchY = int(blockIdx.x / unsigned(patchesX)) * kPatchSide;
    const int lx = int(threadIdx.x);
    const int ly = int(threadIdx.y);
    const int x = patchX + lx;
    const int y = patchY + ly;
    const bool inImage = x < width && y < height;
    const std::size_t pixel = std::size_t(y) * std::size_t(width) + std::size_t(x);
    const std::uint32_t local = std::uint32_t(ly * kPatchSide + lx);

    // Load the patch; pixels outside the image never connect to anything.
    const Pixel value = inImage ? image[pixel] : Pixel{};
    sPixels[local] = value;
    __syncthreads();

    // Which neighbours in the patch connect, one bit per neighbourOffset: the
    // criterion is evaluated once, not in every iteration.
    const bool foreground = inImage && isForeground(value, rule);
    unsigned links = 0;
    if (foreground) {
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            if (i >= rule.connectivity) break;
            const Offset o = neighbourOffset(i);
            const int nx = lx + o.dx;
            const int ny = ly + o.dy;
            if (nx < 0 || ny < 0 || nx >= kPatchSide || ny >= kPatchSide) continue;
            if (patchX + nx >= width || patchY + ny >= height) continue;
            if (areConnected(value, sPixels[ny * kPatchSide + nx], rule)) links |= 1u << i;
        }
    }

    std::uint32_t label = foreground ? local : kNoLabel;
    for (;;) {
        // Pass 1a: publish labels, gather the smallest connected one.
        sLabels[local] = label;
        __syncthreads();
        std::uint32_t smallest = label;
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            if (links & (1u << i)) {
                const Offset o = neighbourOffset(i);
                smallest = min(smallest, sLabels[(ly + o.dy) * kPatchSide + lx + o.dx]);
            }
        }
        __syncthreads();
        // Pass 1b: merge the two trees under the smaller root.
        const bool changed = smallest < label;
        if (changed) atomicMin(&sLabels[label], smallest);
        if (!__syncthreads_or(changed)) break;
        // Pass 2: follow the (possibly new) parents to the root.
        if (foreground) label = findPatchRoot(sLabels, label);
        __syncthreads();
    }

    // Patch-local root -> global index of the same pixel (same raster order).
    if (inImage) {
        std::uint32_t global = kBackground;
        if (foreground) {
            const std::size_t rootX = std::size_t(patchX) + label % kPatchSide;
            const std::size_t rootY = std::size_t(patchY) + label / kPatchSide;
            global = std::uint32_t(rootY * std::size_t(width) + rootX);
        }
        labels[pixel] = global;
    }
}

constexpr int kVolumePatchVoxels = kVolumePatchX * kVolumePatchY * kVolumePatchZ;
constexpr int kVolumeThreads = kVolumePatchX * kVolumePatchY * kVolumeThreadsZ;
constexpr int kSlicesPerThread = kVolumePatchZ / kVolumeThreadsZ;
static_assert(kVolumePatchZ % kVolumeThreadsZ == 0, "every thread takes the same number of slices");

template <typename Pixel, int Connectivity>
__global__ void __launch_bounds__(kVolumeThreads)
    solveTilesVolumeKernel(const Pixel* __restrict__ image, std::uint32_t* __restrict__ labels, int width,
                           int height, int depth, unsigned patchesX, unsigned patchesY, PixelRule rule) {
    __shared__ Pixel sVoxels[kVolumePatchVoxels];
    __shared__ std::uint32_t sLabels[kVolumePatchVoxels];

    const unsigned patch = blockIdx.x;
    const int patchX = int(patch % patchesX) * kVolumePatchX;
    const int patchY = int(patch / patchesX % patchesY) * kVolumePatchY;
    const int patchZ = int(patch / patchesX / patchesY) * kVolumePatchZ;
    const int lx = int(threadIdx.x);
    const int ly = int(threadIdx.y);
    const int x = patchX + lx;
    const int y = patchY + ly;
    const bool inRow = x < width && y < height;

    // Load this thread's voxels; those outside the volume never connect.
    Pixel values[kSlicesPerThread];
    bool foreground[kSlicesPerThread];
#pragma unroll
    for (int s = 0; s < kSlicesPerThread; ++s) {
        const int lz = int(threadIdx.z) + s * kVolumeThreadsZ;
        const int z = patchZ + lz;
        const bool inVolume = inRow && z < depth;
        const std::uint32_t local = std::uint32_t((lz * kVolumePatchY + ly) * kVolumePatchX + lx);
        values[s] = inVolume ? image[(std::size_t(z) * height + y) * width + x] : Pixel{};
        foreground[s] = inVolume && isForeground(values[s], rule);
        sVoxels[local] = values[s];
        sLabels[local] = foreground[s] ? local : kNoLabel;
    }
    __syncthreads();

    // Unite with the connected backward neighbours inside the patch.
#pragma unroll
    for (int s = 0; s < kSlicesPerThread; ++s) {
        if (!foreground[s]) continue;
        const int lz = int(threadIdx.z) + s * kVolumeThreadsZ;
        const std::uint32_t local = std::uint32_t((lz * kVolumePatchY + ly) * kVolumePatchX + lx);
#pragma unroll
        for (int i = 0; i < backwardNeighbourCount(Connectivity); ++i) {
            const VoxelOffset o = backwardOffset(i);
            const int nx = lx + o.dx;
            const int ny = ly + o.dy;
            const int nz = lz + o.dz;
            if (nx < 0 || ny < 0 || nz < 0 || nx >= kVolumePatchX || ny >= kVolumePatchY) continue;
            // dz <= 0: the neighbour's slice is in the volume when this one is.
            if (patchX + nx >= width || patchY + ny >= height) continue;
            const std::uint32_t neighbour = std::uint32_t((nz * kVolumePatchY + ny) * kVolumePatchX + nx);
            if (areConnected(values[s], sVoxels[neighbour], rule)) unite(sLabels, local, neighbour);
        }
    }
    __syncthreads();

    // Patch-local root -> global index of the same voxel (same raster order).
#pragma unroll
    for (int s = 0; s < kSlicesPerThread; ++s) {
        const int lz = int(threadIdx.z) + s * kVolumeThreadsZ;
        const int z = patchZ + lz;
        if (!inRow || z >= depth) continue;
        std::uint32_t global = kBackground;
        if (foreground[s]) {
            const std::uint32_t local = std::uint32_t((lz * kVolumePatchY + ly) * kVolumePatchX + lx);
            const std::uint32_t root = findRoot(sLabels, local);
            const std::size_t rootX = std::size_t(patchX) + root % kVolumePatchX;
            const std::size_t rootY = std::size_t(patchY) + root / kVolumePatchX % kVolumePatchY;
            const std::size_t rootZ = std::size_t(patchZ) + root / (kVolumePatchX * kVolumePatchY);
            global = std::uint32_t((rootZ * std::size_t(height) + rootY) * std::size_t(width) + rootX);
        }
        labels[(std::size_t(z) * height + y) * width + x] = global;
    }
}

template <typename Pixel, int Connectivity>
void launchSolveTilesVolume(const PassContext& context, const Pixel* d_image, std::uint32_t* d_labels, int width,
                            int height, int depth, PixelRule rule) {
    auto patches = [](int extent, int patch) { return (std::uint64_t(extent) + patch - 1) / std::uint64_t(patch); };
    const unsigned patchesX = unsigned(patches(width, kVolumePatchX));
    const unsigned patchesY = unsigned(patches(height, kVolumePatchY));
    const std::uint64_t patchesZ = patches(depth, kVolumePatchZ);
    // One-dimensional grid (gridDim.y and z stop at 65535): the pipeline's
    // voxel limit keeps the patch count far below gridDim.x's 2^31 - 1.
    const std::uint64_t blocks = std::uint64_t(patchesX) * patchesY * patchesZ;
    solveTilesVolumeKernel<Pixel, Connectivity>
        <<<unsigned(blocks), dim3(kVolumePatchX, kVolumePatchY, kVolumeThreadsZ), 0, context.stream>>>(
            d_image, d_labels, width, height, depth, patchesX, patchesY, rule);
    context.check.launched("solveTiles (volume)", context.stream);
}

}  // namespace

template <typename Pixel>
void SolveTilesPass::run(const PassContext& context, const Pixel* d_image, std::uint32_t* d_labels, int width,
                         int height, int depth, PixelRule rule) {
    auto scope = context.timer.scope(kStage);
    switch (rule.connectivity) {
        case 6: launchSolveTilesVolume<Pixel, 6>(context, d_image, d_labels, width, height, depth, rule); break;
        case 18: launchSolveTilesVolume<Pixel, 18>(context, d_image, d_labels, width, height, depth, rule); break;
        default: launchSolveTilesVolume<Pixel, 26>(context, d_image, d_labels, width, height, depth, rule); break;
    }
}

template void SolveTilesPass::run<std::uint8_t>(const PassContext&, const std::uint8_t*, std::uint32_t*, int, int,
                                                int, PixelRule);
template void SolveTilesPass::run<uchar4>(const PassContext&, const uchar4*, std::uint32_t*, int, int, int,
                                          PixelRule);

template <typename Pixel>
void SolveTilesPass::run(const PassContext& context, const Pixel* d_image, std::uint32_t* d_labels, int width,
                         int height, PixelRule rule) {
    auto scope = context.timer.scope(kStage);
    const int patchesX = (width + kPatchSide - 1) / kPatchSide;
    const int patchesY = (height + kPatchSide - 1) / kPatchSide;
    // One-dimensional grid: gridDim.y would cap the height at 65535 patches.
    const unsigned blocks = unsigned(patchesX) * unsigned(patchesY);
    solveTilesKernel<Pixel><<<blocks, dim3(kPatchSide, kPatchSide), 0, context.stream>>>(d_image, d_labels, width,
                                                                                         height, patchesX, rule);
    context.check.launched("solveTiles", context.stream);
}

template void SolveTilesPass::run<std::uint8_t>(const PassContext&, const std::uint8_t*, std::uint32_t*, int, int,
                                                PixelRule);
template void SolveTilesPass::run<uchar4>(const PassContext&, const uchar4*, std::uint32_t*, int, int, PixelRule);

cudaError_t probeKernelImage() {
    cudaFuncAttributes attributes{};
    return cudaFuncGetAttributes(&attributes, solveTilesKernel<std::uint8_t>);
}

}  // namespace glccl::cuda

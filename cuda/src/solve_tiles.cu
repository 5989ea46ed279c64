// Kernel 1 of Stava & Benes (Fig. 35.8): CCL of one kTileSize x kTileSize
// tile per block, in shared memory, one thread per pixel.
//
// Each iteration: every pixel publishes its current label, takes the smallest
// label among its connected neighbours in the tile, and if that is smaller
// hangs its tree's root under it with atomicMin (pass 1); then every pixel
// follows its label to the root (pass 2). The loop ends when no pixel saw a
// smaller neighbour (Fig. 35.8 prints that exit test inverted). Labels only
// decrease and always name a pixel of the same component, and the smallest
// index of a component never changes, so every component of the tile ends
// labelled with its smallest tile-local index: its first pixel in raster
// order, which becomes a root of the global forest (union_find.cuh).
//
// Past the paper: pixels outside the image (partial tiles on the right and
// bottom edges) are background, and the criterion and connectivity come from
// connectivity.cuh instead of "equal segment values, Moore neighbourhood".

#include "connectivity.cuh"
#include "passes.hpp"

namespace glccl::cuda {
namespace {

constexpr int kTilePixels = kTileSize * kTileSize;
constexpr std::uint32_t kNoLabel = 0xFFFFFFFFu;

__device__ __forceinline__ std::uint32_t findTileRoot(const std::uint32_t* sLabels, std::uint32_t i) {
    std::uint32_t parent = sLabels[i];
    while (parent != i) {
        i = parent;
        parent = sLabels[i];
    }
    return i;
}

template <typename Pixel>
__global__ void __launch_bounds__(kTilePixels)
    solveTilesKernel(const Pixel* __restrict__ image, std::uint32_t* __restrict__ labels, int width, int height,
                     int tilesX, PixelRule rule) {
    __shared__ Pixel sPixels[kTilePixels];
    __shared__ std::uint32_t sLabels[kTilePixels];

    const int tileX = int(blockIdx.x % unsigned(tilesX)) * kTileSize;
    const int tileY = int(blockIdx.x / unsigned(tilesX)) * kTileSize;
    const int lx = int(threadIdx.x);
    const int ly = int(threadIdx.y);
    const int x = tileX + lx;
    const int y = tileY + ly;
    const bool inImage = x < width && y < height;
    const std::size_t pixel = std::size_t(y) * std::size_t(width) + std::size_t(x);
    const std::uint32_t local = std::uint32_t(ly * kTileSize + lx);

    // Load the tile; pixels outside the image never connect to anything.
    const Pixel value = inImage ? image[pixel] : Pixel{};
    sPixels[local] = value;
    __syncthreads();

    // Which neighbours in the tile connect, one bit per neighbourOffset: the
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
            if (nx < 0 || ny < 0 || nx >= kTileSize || ny >= kTileSize) continue;
            if (tileX + nx >= width || tileY + ny >= height) continue;
            if (areConnected(value, sPixels[ny * kTileSize + nx], rule)) links |= 1u << i;
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
                smallest = min(smallest, sLabels[(ly + o.dy) * kTileSize + lx + o.dx]);
            }
        }
        __syncthreads();
        // Pass 1b: merge the two trees under the smaller root.
        const bool changed = smallest < label;
        if (changed) atomicMin(&sLabels[label], smallest);
        if (!__syncthreads_or(changed)) break;
        // Pass 2: follow the (possibly new) parents to the root.
        if (foreground) label = findTileRoot(sLabels, label);
        __syncthreads();
    }

    // Tile-local root -> global index of the same pixel (same raster order).
    if (inImage) {
        std::uint32_t global = kBackground;
        if (foreground) {
            const std::size_t rootX = std::size_t(tileX) + label % kTileSize;
            const std::size_t rootY = std::size_t(tileY) + label / kTileSize;
            global = std::uint32_t(rootY * std::size_t(width) + rootX);
        }
        labels[pixel] = global;
    }
}

}  // namespace

template <typename Pixel>
void solveTiles(const Pixel* d_image, std::uint32_t* d_labels, int width, int height, PixelRule rule,
                cudaStream_t stream, const CudaCheck& check) {
    const int tilesX = (width + kTileSize - 1) / kTileSize;
    const int tilesY = (height + kTileSize - 1) / kTileSize;
    // One-dimensional grid: gridDim.y would cap the height at 65535 tiles.
    const unsigned blocks = unsigned(tilesX) * unsigned(tilesY);
    solveTilesKernel<Pixel><<<blocks, dim3(kTileSize, kTileSize), 0, stream>>>(d_image, d_labels, width, height,
                                                                               tilesX, rule);
    check.launched("solveTiles", stream);
}

template void solveTiles<std::uint8_t>(const std::uint8_t*, std::uint32_t*, int, int, PixelRule, cudaStream_t,
                                       const CudaCheck&);
template void solveTiles<uchar4>(const uchar4*, std::uint32_t*, int, int, PixelRule, cudaStream_t, const CudaCheck&);

cudaError_t probeKernelImage() {
    cudaFuncAttributes attributes{};
    return cudaFuncGetAttributes(&attributes, solveTilesKernel<std::uint8_t>);
}

}  // namespace glccl::cuda

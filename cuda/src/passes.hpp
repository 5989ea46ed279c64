#pragma once
// The passes of the CUDA path, one per .cu file of the same name (STYLE.md:
// solve_tiles.cu <-> solveTiles). Each launcher checks its launches through
// the CudaCheck it is given. Plain C++ so that the pipeline, compiled by the
// host compiler, can list them.
//
// Labels in device memory are a union-find forest over linear pixel indices
// (y * width + x): a foreground pixel holds the index of its parent, a root
// holds its own index, background holds kBackground. Parents always have a
// smaller index than their children, so every root is the first pixel of its
// tree in raster order (see union_find.cuh).

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>
#include <vector_types.h>

#include "cuda_check.hpp"

namespace glccl::cuda {

constexpr std::uint32_t kBackground = 0xFFFFFFFFu;

// Largest pixel count: indices and kBackground must fit in 32 bits.
constexpr std::uint64_t kMaxPixels = 0xFFFFFFFEull;

// Side of the square tile that one block of solveTiles labels in shared
// memory (Stava & Benes Fig. 35.5a): 32 x 32 pixels, one thread each.
constexpr int kTileSize = 32;

// Sub-blocks merged per side by one level of mergeTiles: 4 x 4 tiles of the
// previous level become one (Fig. 35.9 merges 16 tiles per block).
constexpr int kMergeFactor = 4;

// Which neighbouring pixels belong together, as the kernels see it;
// connectivity.cuh holds the one device-side test.
enum class PixelRuleKind : int { Binary, Segments, Threshold };
struct PixelRule {
    int connectivity = 8;  // 4 or 8
    PixelRuleKind kind = PixelRuleKind::Binary;
    int threshold = 0;     // Threshold: largest per-channel difference that connects
};

// Pixels are std::uint8_t (1 channel) or uchar4 (RGBA); every pass that reads
// the image is instantiated for both.

// Kernel 1 (Fig. 35.8): labels every tile in shared memory and writes the
// tile-local forests (roots at each component's first pixel in the tile).
template <typename Pixel>
void solveTiles(const Pixel* d_image, std::uint32_t* d_labels, int width, int height, PixelRule rule,
                cudaStream_t stream, const CudaCheck& check);

// Kernel 2 (Fig. 35.10): unites the trees across the borders between the
// subBlockSize-sized blocks inside every group of kMergeFactor x kMergeFactor
// of them, for the whole image at once.
template <typename Pixel>
void mergeTiles(const Pixel* d_image, std::uint32_t* d_labels, int width, int height, PixelRule rule,
                int subBlockSize, cudaStream_t stream, const CudaCheck& check);

// Kernel 3: points the pixels on both sides of every border between
// blockSize-sized blocks straight at their roots, before the next level
// merges across those borders.
void flattenBorders(std::uint32_t* d_labels, int width, int height, int blockSize, cudaStream_t stream,
                    const CudaCheck& check);

// Kernel 4: every foreground pixel's label becomes its root.
void flattenLabels(std::uint32_t* d_labels, std::size_t pixelCount, cudaStream_t stream, const CudaCheck& check);

// Canonical numbering on a flat forest: rank[i] = number of roots before i
// (rank has pixelCount + 1 entries; rank[pixelCount] is the component count),
// then labels[p] = 1 + rank[root of p], 0 for background, in place.
// relabelScratchBytes: device scratch the scan needs.
std::size_t relabelScratchBytes(std::size_t pixelCount, const CudaCheck& check);
void relabel(std::uint32_t* d_labels, std::uint32_t* d_rank, std::size_t pixelCount, void* d_scratch,
             std::size_t scratchBytes, cudaStream_t stream, const CudaCheck& check);

// The component table of a canonical labeling, on the device, label l at
// index l - 1. Bounds start at (UINT32_MAX, UINT32_MAX, 0, 0), sums at 0:
// componentStats fills them with atomics.
struct DeviceComponentTable {
    std::uint32_t* left;
    std::uint32_t* top;
    std::uint32_t* right;
    std::uint32_t* bottom;
    unsigned long long* area;
    unsigned long long* sumX;
    unsigned long long* sumY;
};
void componentStats(const std::uint32_t* d_labels, int width, int height, DeviceComponentTable table,
                    cudaStream_t stream, const CudaCheck& check);

// cudaSuccess when the kernels have machine code or PTX for the current
// device; cudaErrorNoKernelImageForDevice (or similar) when they were built
// for other architectures.
cudaError_t probeKernelImage();

}  // namespace glccl::cuda

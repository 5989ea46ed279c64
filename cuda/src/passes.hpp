#pragma once
// The passes of the CUDA path, one class per .cu file of the same name and
// one timer key each (solve_tiles.cu <-> SolveTilesPass <-> "solve_tiles").
// Each run() brackets its launches for the stage timer and checks them
// through the context's CudaCheck. Plain C++ so that the pipeline, compiled
// by the host compiler, can list them.
//
// The vocabulary of the CUDA passes:
//   patch   kPatchSide x kPatchSide pixels, the square one thread block of
//           solve_tiles labels in shared memory (Stava & Benes' "tile").
//   block   at each level of merge_tiles, the square of patches (a patch at
//           the first level) whose inner borders that level merges.
//   volume patch  kVolumePatchX x kVolumePatchY x kVolumePatchZ voxels, what
//           one thread block of solve_tiles labels in shared memory in a
//           volume; merge_tiles then unites across all patch faces at once.
// The stage names solve_tiles and merge_tiles keep the paper's word, since
// the benchmark tools key by them; "tile" otherwise names the pieces of a
// huge image (tiles/).
//
// Labels in device memory are a union-find forest over linear pixel indices
// (y * width + x; (z * height + y) * width + x in a volume): a foreground pixel holds the index of its parent, a root
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

// Largest pixel (or voxel) count: indices and kBackground must fit in 32 bits.
constexpr std::uint64_t kMaxPixels = 0xFFFFFFFEull;

// Side of the patch that one thread block of solve_tiles labels in shared
// memory (Stava & Benes Fig. 35.5a): 32 x 32 pixels, one thread each.
constexpr int kPatchSide = 32;

// Sub-blocks merged per side by one level of merge_tiles: 4 x 4 blocks of
// the previous level become one (Fig. 35.9 merges 16 tiles per block).
constexpr int kMergeFactor = 4;

// The patch of one thread block of solve_tiles in a volume: 32 x 8 x 8
// voxels (2048), a warp per row so that loads and stores are whole lines,
// handled by 32 x 8 x kVolumeThreadsZ threads, each taking every
// kVolumeThreadsZ-th slice of its column. Shared memory: 2048 samples and
// 2048 labels (10 KiB for 8-bit samples, 16 KiB for RGBA).
//
//        +--------------------+   z: kVolumePatchZ slices
//       /  32 voxels (x)     /|   Faces: 1/32 of the voxels lie on a patch's
//      +--------------------+ |   low x face, 1/8 on its low y face and 1/8
//      | 8 rows (y)         | +   on its low z face; merge_tiles visits those.
//      +--------------------+/
constexpr int kVolumePatchX = 32;
constexpr int kVolumePatchY = 8;
constexpr int kVolumePatchZ = 8;
constexpr int kVolumeThreadsZ = 2;

// Which neighbouring pixels belong together, as the kernels see it;
// connectivity.cuh holds the one device-side test.
enum class PixelRuleKind : int { Binary, Segments, Threshold };
struct PixelRule {
    int connectivity = 8;  // 4 or 8 for images, 6, 18 or 26 for volumes
    PixelRuleKind kind = PixelRuleKind::Binary;
    int threshold = 0;     // Threshold: largest per-channel difference that connects
};

// Pixels are std::uint8_t (1 channel) or uchar4 (RGBA); every pass that reads
// the image is instantiated for both.

class StageTimer;

// What every pass of one labeling is handed besides its inputs and outputs.
struct PassContext {
    cudaStream_t stream;
    const CudaCheck& check;
    StageTimer& timer;
};

// Kernel 1 (Fig. 35.8): labels every patch in shared memory and writes the
// patch-local forests (roots at each component's first pixel in the patch).
class SolveTilesPass {
public:
    static constexpr const char* kStage = "solve_tiles";
    template <typename Pixel>
    void run(const PassContext& context, const Pixel* d_image, std::uint32_t* d_labels, int width, int height,
             PixelRule rule);
    // A volume: one volume patch per block, solved by a union-find in shared
    // memory (roots at each component's first voxel in the patch).
    template <typename Pixel>
    void run(const PassContext& context, const Pixel* d_image, std::uint32_t* d_labels, int width, int height,
             int depth, PixelRule rule);
};

// Kernel 2 (Fig. 35.10): unites the trees across the borders between the
// subBlockSize-sized blocks inside every group of kMergeFactor x kMergeFactor
// of them, for the whole image at once.
class MergeTilesPass {
public:
    static constexpr const char* kStage = "merge_tiles";
    template <typename Pixel>
    void run(const PassContext& context, const Pixel* d_image, std::uint32_t* d_labels, int width, int height,
             PixelRule rule, int subBlockSize);
    // A volume: unites the trees across every face between volume patches
    // (and so across their edges and corners) in one launch.
    template <typename Pixel>
    void run(const PassContext& context, const Pixel* d_image, std::uint32_t* d_labels, int width, int height,
             int depth, PixelRule rule);
};

// Kernel 3: points the pixels on both sides of every border between
// blockSize-sized blocks straight at their roots, before the next level
// merges across those borders.
class FlattenBordersPass {
public:
    static constexpr const char* kStage = "flatten_borders";
    void run(const PassContext& context, std::uint32_t* d_labels, int width, int height, int blockSize);
};

// Kernel 4: every foreground pixel's label becomes its root.
class FlattenLabelsPass {
public:
    static constexpr const char* kStage = "flatten_labels";
    void run(const PassContext& context, std::uint32_t* d_labels, std::size_t pixelCount);
};

// Canonical numbering on a flat forest: rank[i] = number of roots before i
// (rank has pixelCount + 1 entries; rank[pixelCount] is the component count),
// then labels[p] = 1 + rank[root of p], 0 for background, in place.
class RelabelPass {
public:
    static constexpr const char* kStage = "relabel";
    // Device scratch the scan needs.
    static std::size_t scratchBytes(std::size_t pixelCount, const CudaCheck& check);
    void run(const PassContext& context, std::uint32_t* d_labels, std::uint32_t* d_rank, std::size_t pixelCount,
             void* d_scratch, std::size_t scratchBytes);
};

// The component table of a canonical labeling, on the device, label l at
// index l - 1, one array per field in one block of
// tableBytesPerComponent(dimensions) bytes per component, laid out so that
// two memsets start it and one copy downloads it:
//
//   [ area | sumX | sumY ]  [ right | bottom ]  [ left | top ]
//     3 x n uint64, 0         2 x n uint32, 0     2 x n uint32, all ones
//
// A volume's table adds z to each group:
//
//   [ area | sumX | sumY | sumZ ]  [ right | bottom | back ]  [ left | top | front ]
struct DeviceComponentTable {
    std::uint32_t* left;
    std::uint32_t* top;
    std::uint32_t* front;  // null for images
    std::uint32_t* right;
    std::uint32_t* bottom;
    std::uint32_t* back;   // null for images
    unsigned long long* area;
    unsigned long long* sumX;
    unsigned long long* sumY;
    unsigned long long* sumZ;  // null for images
};
constexpr std::size_t tableBytesPerComponent(int dimensions) {
    return std::size_t(1 + dimensions) * sizeof(unsigned long long) + std::size_t(2 * dimensions) * sizeof(std::uint32_t);
}
// The table of n components of a labeling of `dimensions` (2 or 3) in
// `storage` (device or host memory).
DeviceComponentTable tableAt(unsigned char* storage, std::size_t n, int dimensions = 2);

// The table of the labels' components: started (bounds at (UINT32_MAX,
// UINT32_MAX, 0, 0), sums at 0) in `storage`, then filled with atomics.
class ComponentStatsPass {
public:
    static constexpr const char* kStage = "component_stats";
    // depth 1 with dimensions 2 for an image; a volume's table has z.
    void run(const PassContext& context, const std::uint32_t* d_labels, int width, int height, int depth,
             int dimensions, unsigned char* storage, std::size_t count);
};

// cudaSuccess when the kernels have machine code or PTX for the current
// device; cudaErrorNoKernelImageForDevice (or similar) when they were built
// for other architectures.
cudaError_t probeKernelImage();

}  // namespace glccl::cuda

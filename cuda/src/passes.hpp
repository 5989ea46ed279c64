#pragma once
// The passes of the CUDA path, one class per .cu file of the same name and
// one timer key each (solve_patches.cu <-> SolvePatchesPass <-> "solve_patches").
// Each run() brackets its launches for the stage timer and checks them
// through the context's CudaCheck. Plain C++ so that the pipeline, compiled
// by the host compiler, can list them.
//
// The vocabulary of the CUDA passes:
//   patch   kPatchSide x kPatchSide pixels, the square one thread block of
//           solve_patches labels in shared memory (Stava & Benes' "tile").
//   block   at each level of merge_patches, the square of patches (a patch at
//           the first level) whose inner borders that level merges.
//   volume patch  kVolumePatchX x kVolumePatchY x kVolumePatchZ voxels, what
//           one thread block of solve_patches labels in shared memory in a
//           volume; merge_patches then unites across all patch faces at once.
//   patch of a binary volume  a box of bundle words, what one thread block
//           of local_merge and merge_borders covers (volume_nodes.cuh, Patch).
// The paper's "tile" is a patch here: "tile" and "brick" name only the
// pieces of a huge image or volume (tiles/).
//
// Labels in device memory are a union-find forest over linear pixel indices
// (y * width + x; (z * height + y) * width + x in a volume): a foreground
// pixel holds the index of its parent, a root holds its own index, background holds kBackground. Parents always have a
// smaller index than their children, so every root is the first pixel of its
// tree in raster order (see union_find.cuh).

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>
#include <vector_types.h>

#include "cuda_check.hpp"
#include "node_grid_sizes.hpp"
#include "volume_nodes.cuh"

namespace glccl::cuda {

constexpr std::uint32_t kBackground = 0xFFFFFFFFu;

// Largest pixel (or voxel) count: indices and kBackground must fit in 32 bits.
constexpr std::uint64_t kMaxPixels = 0xFFFFFFFEull;

// Side of the patch that one thread block of solve_patches labels in shared
// memory (Stava & Benes Fig. 35.5a): 32 x 32 pixels, one thread each.
constexpr int kPatchSide = 32;

// Sub-blocks merged per side by one level of merge_patches: 4 x 4 blocks of
// the previous level become one (Fig. 35.9 merges 16 of the paper's tiles per
// block).
constexpr int kMergeFactor = 4;

// The patch of one thread block of solve_patches in a volume: 32 x 8 x 8
// voxels (2048), a warp per row so that loads and stores are whole lines,
// handled by 32 x 8 x kVolumeThreadsZ threads, each taking every
// kVolumeThreadsZ-th slice of its column. Shared memory: 2048 samples and
// 2048 labels (10 KiB for 8-bit samples, 16 KiB for RGBA).
//
//        +--------------------+   z: kVolumePatchZ slices
//       /  32 voxels (x)     /|   Faces: 1/32 of the voxels lie on a patch's
//      +--------------------+ |   low x face, 1/8 on its low y face and 1/8
//      | 8 rows (y)         | +   on its low z face; merge_patches visits those.
//      +--------------------+/
constexpr int kVolumePatchX = 32;
constexpr int kVolumePatchY = 8;
constexpr int kVolumePatchZ = 8;
constexpr int kVolumeThreadsZ = 2;

// The block kernels (local_merge, merge_borders, count_roots, final_labels:
// the compute engine's design, node_grid.cuh) label a grid of nodes, blocks
// of nodeWidth x nodeHeight pixels, patch by patch:
//
//   the node grid, from its top-left corner:
//   +-------+-------+-------+--
//   | patch | patch | patch |     a patch: kNodePatchSide x kNodePatchSide
//   |       |       |       |     nodes, solved in shared memory by one
//   +-------+-------+-------+--   thread block of local_merge (Stava &
//   | patch | patch | patch |     Benes' tile), its border links united by
//   |       |       |       |     one thread block of merge_borders
//   +-------+-------+-------+--
//
// A batch is one such grid per image, images packed one after another.
// The patch and the threads of local_merge, merge_borders and count_roots:
// the compute engine's sizes, shared with it (node_grid_sizes.hpp).
using ::glccl::detail::kNodePatchSide;
using ::glccl::detail::kNodePatchLinesPerPass;
using ::glccl::detail::kBorderThreads;
using ::glccl::detail::kLineThreads;
using ::glccl::detail::kNarrowLineThreads;
using ::glccl::detail::kNarrowGridWidth;
constexpr int kLabelThreadsX = 32;  // final_labels: one thread per node
constexpr int kLabelThreadsY = 8;

// Which neighbouring pixels belong together, as the kernels see it, and
// the samples they read; criterion.cuh holds the one device-side test
// (SampleCriterion), chosen from this by withSampleCriterion().
enum class PixelRuleKind : int { Binary, Segments, Threshold, Delta };
struct PixelRule {
    int connectivity = 8;  // 4 or 8 for images, 6, 18 or 26 for volumes
    PixelRuleKind kind = PixelRuleKind::Binary;
    std::uint32_t largestDifference = 0;  // Threshold, Delta: the largest (per-channel) difference that connects
    std::uint32_t level = 0;              // Binary: foreground above it (0: nonzero)
    int sampleBits = 8;                   // 8, 16, 32 or 64 (unsigned integers, little-endian)
    int channels = 1;                     // 1, or 4 (RGBA) for threshold
    std::size_t bytesPerElement() const { return std::size_t(channels) * std::size_t(sampleBits / 8); }
};

// The node grid of one image of a batch of `images` images of width x height
// pixels, as the block kernels index it.
struct BlockGrid {
    int width = 0;  // pixels of one image
    int height = 0;
    int images = 1;
    int nodeWidth = 2;  // 2 x 2: binary at 8-connectivity; 2 x 1 at 4; 1 x 1 otherwise
    int nodeHeight = 2;
    int gridWidth = 0;  // nodes of one image
    int gridHeight = 0;
    unsigned keyLineBits = 0;  // the smallest b with 2^b >= width (node_grid.cuh, keys)
    __host__ __device__ std::size_t pixelsPerImage() const { return std::size_t(width) * std::size_t(height); }
    __host__ __device__ std::size_t nodesPerImage() const { return std::size_t(gridWidth) * std::size_t(gridHeight); }
};

// The grid of a batch of images labeled by `rule`. Makes no CUDA call.
BlockGrid blockGridOf(int width, int height, int images, const PixelRule& rule);

// Whether the block kernels take this grid: keys below 2^31 (the rank flag),
// node lines of at most kLineThreads * 32 nodes (count_roots), and launch
// grids within CUDA's limits. Images that do not fit go to Stava & Benes'
// kernels (solve_patches, merge_patches, ...).
bool blockGridFits(const BlockGrid& grid);

// One labeling's volume nodes in device memory (volume_nodes.cuh):
struct VolumeNodes {
    volume::NodeGrid grid;
    std::uint32_t* bits;        // grid.lineWords(): the foreground, a bit per voxel
    std::uint32_t* foreground;  // grid.bundleWords(): each bundle word's OR of its lines (bits itself at 6)
    std::uint32_t* parents;     // grid.slots(): a key per node (count_roots: a root's rank in its line)
    std::uint16_t* roots;       // grid.bundleWords(): bit r, node r is a root (count_roots)
    std::uint32_t* lineCounts;  // height * depth + 1: roots whose first voxel is in the line, then 0
    std::uint32_t* lineOffsets; // height * depth + 1: roots in the lines before, then the count
};

// Passes that read the samples take them as `const void*`: packed elements
// of rule.bytesPerElement() bytes, read as the SampleCriterion of the rule
// (criterion.cuh), for which each such pass instantiates its kernels.

class StageTimer;

// What every pass of one labeling is handed besides its inputs and outputs.
struct PassContext {
    cudaStream_t stream;
    const CudaCheck& check;
    StageTimer& timer;
};

// Kernel 1 (Fig. 35.8): labels every patch in shared memory and writes the
// patch-local forests (roots at each component's first pixel in the patch).
class SolvePatchesPass {
public:
    static constexpr const char* kStage = "solve_patches";
    void run(const PassContext& context, const void* d_samples, std::uint32_t* d_labels, int width, int height,
             const PixelRule& rule);
    // A volume: one volume patch per block, solved by a union-find in shared
    // memory (roots at each component's first voxel in the patch).
    void run(const PassContext& context, const void* d_samples, std::uint32_t* d_labels, int width, int height,
             int depth, const PixelRule& rule);
};

// Kernel 2 (Fig. 35.10): unites the trees across the borders between the
// subBlockSize-sized blocks inside every group of kMergeFactor x kMergeFactor
// of them, for the whole image at once.
class MergePatchesPass {
public:
    static constexpr const char* kStage = "merge_patches";
    void run(const PassContext& context, const void* d_samples, std::uint32_t* d_labels, int width, int height,
             const PixelRule& rule, int subBlockSize);
    // A volume: unites the trees across every face between volume patches
    // (and so across their edges and corners) in one launch.
    void run(const PassContext& context, const void* d_samples, std::uint32_t* d_labels, int width, int height,
             int depth, const PixelRule& rule);
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
    // A binary volume labeled by the volume kernels (component_stats_volume.cu):
    // the table from its nodes, which the labeling left in `nodes`.
    void run(const PassContext& context, const VolumeNodes& nodes, unsigned char* storage, std::size_t count);

private:
    // Sums, right, bottom (and back) at 0; left, top (and front) at UINT32_MAX.
    static void startTable(const PassContext& context, unsigned char* storage, std::size_t count, int dimensions);
};

// The block kernels, one class per .cu file of the same name and the same
// stage names as the compute engine's passes (engine/src/backends/compute).
// Parents hold keys, one per node; masks the foreground mask of each node.
// A binary volume's siblings of the same passes are in <stage>_volume.cu:
// they label the nodes of volume_nodes.cuh (runs of bundle words), kept in
// VolumeNodes between the passes.


// local_merge: every patch solved in shared memory (runs found without
// atomics, then a union-find over the links that are left); every node
// leaves with its patch-local root in parents and its mask in masks.
class LocalMergePass {
public:
    static constexpr const char* kStage = "local_merge";
    void run(const PassContext& context, const void* d_samples, std::uint32_t* d_parents, std::uint8_t* d_masks,
             const BlockGrid& grid, const PixelRule& rule);
    // A binary volume (local_merge_volume.cu): every patch's nodes found and
    // united in shared memory; bits, foreground and each node's
    // patch-local root (as a volume key) in parents. Samples other than
    // bytes under binary as nonzero are first turned into the bits by a
    // kernel of their own (line_bits), under the same stage.
    void run(const PassContext& context, const void* d_samples, const VolumeNodes& nodes, const PixelRule& rule);
};

// merge_borders: unites the trees of the links that leave each patch.
class MergeBordersPass {
public:
    static constexpr const char* kStage = "merge_borders";
    void run(const PassContext& context, const void* d_samples, std::uint32_t* d_parents, const std::uint8_t* d_masks,
             const BlockGrid& grid, const PixelRule& rule);
    // A binary volume (merge_borders_volume.cu): the links that leave each
    // patch, as global unions.
    void run(const PassContext& context, const VolumeNodes& nodes);
};

// count_roots: ranks the roots of every pixel line (a root's entry becomes
// kRankFlag | rank), and the last block of each image turns the line counts
// into lineOffsets (height + 1 per image: the roots above each line, then
// the count) and writes the image's count into d_counts, and into
// d_callerCounts when that is not null. d_groupsDone: one zero per image,
// left zero.
class CountRootsPass {
public:
    static constexpr const char* kStage = "count_roots";
    void run(const PassContext& context, std::uint32_t* d_parents, const std::uint8_t* d_masks,
             std::uint32_t* d_lineCounts, std::uint32_t* d_lineOffsets, std::uint32_t* d_groupsDone,
             std::uint32_t* d_counts, std::uint32_t* d_callerCounts, const BlockGrid& grid);
    // A binary volume (count_roots_volume.cu): each bundle row ranks its
    // roots line by line (roots and parents), lineCounts gets every line's
    // count, and a scan over them gives lineOffsets, the count at
    // lineOffsets[lines]; it is also copied to d_count. d_scratch: CUB's
    // scan storage.
    void run(const PassContext& context, const VolumeNodes& nodes, std::uint32_t* d_count, void* d_scratch,
             std::size_t scratchBytes);
    // Scan storage for a volume of `lines` lines.
    static std::size_t volumeScratchBytes(std::size_t lines, const CudaCheck& check);
};

// final_labels: every pixel takes its component's number, 1..count in
// raster order of first pixels, background 0 (packed images of uint32).
class FinalLabelsPass {
public:
    static constexpr const char* kStage = "final_labels";
    void run(const PassContext& context, const std::uint32_t* d_parents, const std::uint8_t* d_masks,
             const std::uint32_t* d_lineOffsets, std::uint32_t* d_labels, const BlockGrid& grid);
    // A binary volume (final_labels_volume.cu): every voxel's number.
    void run(const PassContext& context, const VolumeNodes& nodes, std::uint32_t* d_labels);
};

// cudaSuccess when the kernels have machine code or PTX for the current
// device; cudaErrorNoKernelImageForDevice (or similar) when they were built
// for other architectures.
cudaError_t probeKernelImage();

}  // namespace glccl::cuda

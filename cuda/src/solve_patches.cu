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
// order, which becomes a root of the global forest (union_find.cuh,
// IndexForest).
//
// Volumes: the sibling kernel below labels one volume patch per block. There
// the fixed point above would take an iteration per step along the longest
// path in the patch, so it unites instead: every voxel joins its connected
// backward neighbours in the patch with the union of union_find.cuh on the
// shared labels (roots hang under smaller roots, so each patch component's
// root is its first voxel), and after one barrier every voxel reads its root.
// Two barriers, whatever the shapes in the patch.
//
// Binary volumes unite nodes instead of voxels: blocks whose foreground
// voxels always touch one another under the connectivity (the compute
// engine's nodes: 2x2x2 voxels at 26, 2x2x1 at 18, 2x1x1 at 6), so the
// union-find has an eighth, a quarter or half as many elements, each with
// the 13 backward neighbour nodes. A node links to a neighbour when a
// foreground voxel of each touch (nodeLinkVoxels), and is known by its
// first foreground voxel, so roots are still each component's first voxel.
//
// Past the paper: pixels outside the image (partial patches on the right and
// bottom edges) are background, and the criterion (criterion.cuh: every
// kernel is built per sample type and criterion) and connectivity come from
// connectivity.cuh instead of "equal segment values, Moore neighbourhood".

#include <type_traits>

#include "connectivity.cuh"
#include "passes.hpp"
#include "stage_timer.hpp"
#include "union_find.cuh"

namespace glccl::cuda {
namespace {

constexpr int kPatchPixels = kPatchSide * kPatchSide;
constexpr std::uint32_t kNoLabel = 0xFFFFFFFFu;

template <class Criterion>
__global__ void __launch_bounds__(kPatchPixels)
    solvePatchesKernel(const typename Criterion::Sample* __restrict__ image, std::uint32_t* __restrict__ labels,
                       int width, int height, int patchesX, PixelRule rule) {
    using Sample = typename Criterion::Sample;
    const Criterion criterion = Criterion::of(rule);
    __shared__ Sample sPixels[kPatchPixels];
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
    const Sample value = inImage ? image[pixel] : Sample{};
    sPixels[local] = value;
    __syncthreads();

    // Which neighbours in the patch connect, one bit per neighbourOffset: the
    // criterion is evaluated once, not in every iteration.
    const bool foreground = inImage && criterion.isForeground(value);
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
            if (criterion.connects(value, sPixels[ny * kPatchSide + nx])) links |= 1u << i;
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
        if (foreground) label = indexForest(sLabels).rootOf(label);
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

// A thread's place in its volume patch (one block per patch, a 1-D grid):
// the patch's first voxel, the thread's column (lx, ly) in the patch and
// (x, y) in the volume.
struct VolumePatchColumn {
    int patchX, patchY, patchZ, lx, ly, x, y;
    bool inRow;  // (x, y) lies in the volume
    __device__ VolumePatchColumn(unsigned patchesX, unsigned patchesY, int width, int height)
        : patchX(int(blockIdx.x % patchesX) * kVolumePatchX),
          patchY(int(blockIdx.x / patchesX % patchesY) * kVolumePatchY),
          patchZ(int(blockIdx.x / patchesX / patchesY) * kVolumePatchZ),
          lx(int(threadIdx.x)),
          ly(int(threadIdx.y)),
          x(patchX + lx),
          y(patchY + ly),
          inRow(x < width && y < height) {}
    // The volume's index of the voxel of patch-local index `local`
    // ((z * kVolumePatchY + y) * kVolumePatchX + x): the same raster order.
    __device__ std::uint32_t globalOf(std::uint32_t local, int width, int height) const {
        const std::size_t vx = std::size_t(patchX) + local % kVolumePatchX;
        const std::size_t vy = std::size_t(patchY) + local / kVolumePatchX % kVolumePatchY;
        const std::size_t vz = std::size_t(patchZ) + local / (kVolumePatchX * kVolumePatchY);
        return std::uint32_t((vz * std::size_t(height) + vy) * std::size_t(width) + vx);
    }
    // The labels of the column's voxels in the volume: a foreground voxel's
    // is the global index of its patch-local root, rootIn(lz) for the voxel
    // of patch slice lz; the others' kBackground.
    template <class RootIn>
    __device__ __forceinline__ void storeLabels(std::uint32_t* __restrict__ labels,
                                                const bool (&foreground)[kSlicesPerThread], int width, int height,
                                                int depth, RootIn rootIn) const {
#pragma unroll
        for (int s = 0; s < kSlicesPerThread; ++s) {
            const int lz = int(threadIdx.z) + s * kVolumeThreadsZ;
            const int z = patchZ + lz;
            if (!inRow || z >= depth) continue;
            std::uint32_t global = kBackground;
            if (foreground[s]) global = globalOf(rootIn(lz), width, height);
            labels[(std::size_t(z) * height + y) * width + x] = global;
        }
    }
};

template <class Criterion, int Connectivity>
__global__ void __launch_bounds__(kVolumeThreads)
    solvePatchesVolumeKernel(const typename Criterion::Sample* __restrict__ image, std::uint32_t* __restrict__ labels,
                             int width, int height, int depth, unsigned patchesX, unsigned patchesY, PixelRule rule) {
    using Sample = typename Criterion::Sample;
    const Criterion criterion = Criterion::of(rule);
    __shared__ Sample sVoxels[kVolumePatchVoxels];
    __shared__ std::uint32_t sLabels[kVolumePatchVoxels];

    const VolumePatchColumn column(patchesX, patchesY, width, height);
    const int patchZ = column.patchZ, lx = column.lx, ly = column.ly, x = column.x, y = column.y;
    const bool inRow = column.inRow;

    // Load this thread's voxels; those outside the volume never connect.
    Sample values[kSlicesPerThread];
    bool foreground[kSlicesPerThread];
#pragma unroll
    for (int s = 0; s < kSlicesPerThread; ++s) {
        const int lz = int(threadIdx.z) + s * kVolumeThreadsZ;
        const int z = patchZ + lz;
        const bool inVolume = inRow && z < depth;
        const std::uint32_t local = std::uint32_t((lz * kVolumePatchY + ly) * kVolumePatchX + lx);
        values[s] = inVolume ? image[(std::size_t(z) * height + y) * width + x] : Sample{};
        foreground[s] = inVolume && criterion.isForeground(values[s]);
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
            if (column.patchX + nx >= width || column.patchY + ny >= height) continue;
            const std::uint32_t neighbour = std::uint32_t((nz * kVolumePatchY + ny) * kVolumePatchX + nx);
            if (criterion.connects(values[s], sVoxels[neighbour]))
                indexForest(sLabels).unite<false>(local, neighbour);
        }
    }
    __syncthreads();

    // Patch-local root -> global index of the same voxel (same raster order).
    column.storeLabels(labels, foreground, width, height, depth, [&](int lz) {
        return indexForest(sLabels).rootOf(std::uint32_t((lz * kVolumePatchY + ly) * kVolumePatchX + lx));
    });
}

// The nodes of a binary volume at a connectivity, and how many a patch holds.
template <int Connectivity>
struct VolumeNode {
    static constexpr int kW = 2;
    static constexpr int kH = Connectivity == 6 ? 1 : 2;
    static constexpr int kD = Connectivity == 26 ? 2 : 1;
    static constexpr int kVoxels = kW * kH * kD;  // bit i of a node's mask: x fastest, then y, then z
    static constexpr int kX = kVolumePatchX / kW;
    static constexpr int kY = kVolumePatchY / kH;
    static constexpr int kZ = kVolumePatchZ / kD;
    static constexpr int kCount = kX * kY * kZ;
    static_assert(kVolumePatchX % kW == 0 && kVolumePatchY % kH == 0 && kVolumePatchZ % kD == 0, "whole nodes");
};

// The voxels of backward neighbour node d that voxel i of a node touches.
template <int Connectivity>
__host__ __device__ constexpr unsigned nodeLinkVoxels(int d, int i) {
    using N = VolumeNode<Connectivity>;
    const VoxelOffset o = backwardOffset(d);
    const int ix = i % N::kW, iy = i / N::kW % N::kH, iz = i / (N::kW * N::kH);
    unsigned voxels = 0;
    for (int j = 0; j < N::kVoxels; ++j) {
        const int dx = o.dx * N::kW + j % N::kW - ix;
        const int dy = o.dy * N::kH + j / N::kW % N::kH - iy;
        const int dz = o.dz * N::kD + j / (N::kW * N::kH) - iz;
        if (dx * dx > 1 || dy * dy > 1 || dz * dz > 1) continue;
        if (joinsAcross(Connectivity, (dx != 0) + (dy != 0) + (dz != 0))) voxels |= 1u << j;
    }
    return voxels;
}

// Can a node link to its backward neighbour d at all?
template <int Connectivity>
__host__ __device__ constexpr bool nodeDirectionLinks(int d) {
    for (int i = 0; i < VolumeNode<Connectivity>::kVoxels; ++i)
        if (nodeLinkVoxels<Connectivity>(d, i) != 0) return true;
    return false;
}

// The index of a backward offset in backwardOffset's list, -1 for others.
__host__ __device__ constexpr int backwardIndex(int dx, int dy, int dz) {
    for (int d = 0; d < 13; ++d) {
        const VoxelOffset o = backwardOffset(d);
        if (o.dx == dx && o.dy == dy && o.dz == dz) return d;
    }
    return -1;
}

// Each node shape's directions: every one at 26 (2x2x2 blocks), the 9
// faces and edges at 18 (2x2x1: no corner of one touches the next slice's
// block diagonally across), the 3 faces at 6 (2x1x1).
template <int Connectivity>
constexpr int nodeDirectionCount() {
    int count = 0;
    for (int d = 0; d < 13; ++d) count += nodeDirectionLinks<Connectivity>(d) ? 1 : 0;
    return count;
}
static_assert(nodeDirectionCount<26>() == 13 && nodeDirectionCount<18>() == 9 && nodeDirectionCount<6>() == 3,
              "node directions");
// Across the face x - 1 a 2x2x2 block's voxels with x = 0 touch the
// neighbour's with x = 1, whatever their y and z.
static_assert(nodeLinkVoxels<26>(0, 0) == 0xAAu && nodeLinkVoxels<26>(0, 1) == 0u, "node link voxels");

// Does a node of mask m link to its backward neighbour D of mask b?
template <int Connectivity, int D>
__device__ __forceinline__ bool nodesLink(unsigned m, unsigned b) {
    bool linked = false;
#pragma unroll
    for (int i = 0; i < VolumeNode<Connectivity>::kVoxels; ++i)
        linked |= ((m >> i) & 1u) != 0 && (nodeLinkVoxels<Connectivity>(D, i) & b) != 0;
    return linked;
}

// Backward neighbours E and D of a node, both linked to it: the direction
// from the later of the two back to the earlier (-1 where they are not
// neighbours, or no link can join them), and whether D is the later.
template <int Connectivity>
__host__ __device__ constexpr int directionBetween(int e, int d) {
    const VoxelOffset a = backwardOffset(e), b = backwardOffset(d);
    const int dx = a.dx - b.dx, dy = a.dy - b.dy, dz = a.dz - b.dz;  // E seen from D
    if (dx * dx > 1 || dy * dy > 1 || dz * dz > 1) return -1;
    const int later = backwardIndex(dx, dy, dz) >= 0 ? backwardIndex(dx, dy, dz) : backwardIndex(-dx, -dy, -dz);
    return later >= 0 && nodeDirectionLinks<Connectivity>(later) ? later : -1;
}
template <int Connectivity>
__host__ __device__ constexpr bool laterOfTwo(int e, int d) {
    const VoxelOffset a = backwardOffset(e), b = backwardOffset(d);
    return backwardIndex(a.dx - b.dx, a.dy - b.dy, a.dz - b.dz) >= 0;  // E is backward of D: D is later
}

// Calls f(std::integral_constant<int, I>) for I = First .. Last - 1.
template <int First, int Last, typename F>
__device__ __forceinline__ void forEachIndex(F&& f) {
    if constexpr (First < Last) {
        f(std::integral_constant<int, First>{});
        forEachIndex<First + 1, Last>(f);
    }
}

// The patch's node union-find (union_find.cuh): parents hold keys,
// patch-local voxel indices ((z * kVolumePatchY + y) * kVolumePatchX + x),
// so that the smaller key is the earlier voxel in raster order; a key's
// node is where its parent lives.
template <int Connectivity>
struct VolumeNodeSlots {
    __device__ __forceinline__ int slotOf(std::uint32_t key) const {
        using N = VolumeNode<Connectivity>;
        const int x = int(key % kVolumePatchX), y = int(key / kVolumePatchX % kVolumePatchY);
        const int z = int(key / (kVolumePatchX * kVolumePatchY));
        return ((z / N::kD) * N::kY + y / N::kH) * N::kX + x / N::kW;
    }
};
template <int Connectivity>
using VolumeNodeForest = KeyForest<VolumeNodeSlots<Connectivity>, PlainEntries>;

template <class Criterion, int Connectivity>
__global__ void __launch_bounds__(kVolumeThreads)
    solvePatchesVolumeNodesKernel(const typename Criterion::Sample* __restrict__ image,
                                  std::uint32_t* __restrict__ labels, int width, int height, int depth,
                                  unsigned patchesX, unsigned patchesY, PixelRule rule) {
    using N = VolumeNode<Connectivity>;
    const Criterion criterion = Criterion::of(rule);
    constexpr int kNodesPerThread = (N::kCount + kVolumeThreads - 1) / kVolumeThreads;
    __shared__ std::uint8_t sForeground[kVolumePatchVoxels];
    __shared__ std::uint8_t sMasks[N::kCount];
    __shared__ std::uint32_t sParents[N::kCount];

    const VolumePatchColumn column(patchesX, patchesY, width, height);
    const int patchZ = column.patchZ, lx = column.lx, ly = column.ly, x = column.x, y = column.y;
    const bool inRow = column.inRow;
    const int t = (int(threadIdx.z) * kVolumePatchY + ly) * kVolumePatchX + lx;

    // This thread's voxels (lines of the patch, as the voxel kernel loads
    // them); those outside the volume are background.
    bool foreground[kSlicesPerThread];
#pragma unroll
    for (int s = 0; s < kSlicesPerThread; ++s) {
        const int lz = int(threadIdx.z) + s * kVolumeThreadsZ;
        const int z = patchZ + lz;
        foreground[s] = inRow && z < depth && criterion.isForeground(image[(std::size_t(z) * height + y) * width + x]);
        sForeground[(lz * kVolumePatchY + ly) * kVolumePatchX + lx] = foreground[s];
    }
    __syncthreads();

    // Every node's mask, and its key (its first foreground voxel).
    unsigned masks[kNodesPerThread];
    std::uint32_t keys[kNodesPerThread];
#pragma unroll
    for (int k = 0; k < kNodesPerThread; ++k) {
        const int node = t + k * kVolumeThreads;
        masks[k] = 0;
        keys[k] = kNoLabel;
        if (node >= N::kCount) continue;
        const int nx = node % N::kX, ny = node / N::kX % N::kY, nz = node / (N::kX * N::kY);
#pragma unroll
        for (int i = 0; i < N::kVoxels; ++i) {
            const int vx = nx * N::kW + i % N::kW, vy = ny * N::kH + i / N::kW % N::kH;
            const int vz = nz * N::kD + i / (N::kW * N::kH);
            const std::uint32_t key = std::uint32_t((vz * kVolumePatchY + vy) * kVolumePatchX + vx);
            if (sForeground[key]) {
                if (masks[k] == 0) keys[k] = key;
                masks[k] |= 1u << i;
            }
        }
        sMasks[node] = std::uint8_t(masks[k]);
        sParents[node] = keys[k];
    }
    __syncthreads();

    // Unions with the linked backward neighbours in the patch, but those
    // another link implies (two linked neighbours that link to each other:
    // the later unites with the earlier itself) and those whose neighbour
    // reads the parent the last union read (one tree already).
#pragma unroll
    for (int k = 0; k < kNodesPerThread; ++k) {
        const int node = t + k * kVolumeThreads;
        if (node >= N::kCount || masks[k] == 0) continue;
        const int nx = node % N::kX, ny = node / N::kX % N::kY, nz = node / (N::kX * N::kY);
        const unsigned mask = masks[k];
        unsigned linked = 0;
        unsigned neighbourMasks[13] = {};
        std::uint32_t lastTarget = kNoLabel;
        forEachIndex<0, 13>([&](auto direction) {
            constexpr int D = decltype(direction)::value;
            if constexpr (nodeDirectionLinks<Connectivity>(D)) {
                constexpr VoxelOffset o = backwardOffset(D);
                const int bx = nx + o.dx, by = ny + o.dy, bz = nz + o.dz;
                // (Nodes past the volume have no foreground: they link to nothing.)
                if (bx < 0 || by < 0 || bz < 0 || bx >= N::kX || by >= N::kY) return;
                const int neighbour = (bz * N::kY + by) * N::kX + bx;
                const unsigned neighbourMask = sMasks[neighbour];
                if (!nodesLink<Connectivity, D>(mask, neighbourMask)) return;
                neighbourMasks[D] = neighbourMask;
                bool implied = false;
                forEachIndex<0, D>([&](auto earlier) {
                    constexpr int E = decltype(earlier)::value;
                    constexpr int between = directionBetween<Connectivity>(E, D);
                    if constexpr (between >= 0) {
                        if ((linked >> E) & 1u)
                            implied |= laterOfTwo<Connectivity>(E, D)
                                           ? nodesLink<Connectivity, between>(neighbourMask, neighbourMasks[E])
                                           : nodesLink<Connectivity, between>(neighbourMasks[E], neighbourMask);
                    }
                });
                linked |= 1u << D;
                if (implied) return;
                const std::uint32_t target = sParents[neighbour];
                if (target == lastTarget) return;
                lastTarget = target;
                VolumeNodeForest<Connectivity>{{}, {sParents}}.unite(keys[k], target);
            }
        });
    }
    __syncthreads();

    // Every node's root, then every voxel's: its node root's global index.
    std::uint32_t roots[kNodesPerThread];
#pragma unroll
    for (int k = 0; k < kNodesPerThread; ++k)
        roots[k] = masks[k] != 0 ? VolumeNodeForest<Connectivity>{{}, {sParents}}.rootHalving(keys[k]) : kNoLabel;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kNodesPerThread; ++k) {
        const int node = t + k * kVolumeThreads;
        if (node < N::kCount) sParents[node] = roots[k];
    }
    __syncthreads();
    column.storeLabels(labels, foreground, width, height, depth,
                       [&](int lz) { return sParents[((lz / N::kD) * N::kY + ly / N::kH) * N::kX + lx / N::kW]; });
}

template <class Criterion, int Connectivity>
void launchSolvePatchesVolume(const PassContext& context, const void* d_samples, std::uint32_t* d_labels, int width,
                              int height, int depth, const PixelRule& rule) {
    auto patches = [](int extent, int patch) { return (std::uint64_t(extent) + patch - 1) / std::uint64_t(patch); };
    const unsigned patchesX = unsigned(patches(width, kVolumePatchX));
    const unsigned patchesY = unsigned(patches(height, kVolumePatchY));
    const std::uint64_t patchesZ = patches(depth, kVolumePatchZ);
    // One-dimensional grid (gridDim.y and z stop at 65535): the pipeline's
    // voxel limit keeps the patch count far below gridDim.x's 2^31 - 1.
    const std::uint64_t blocks = std::uint64_t(patchesX) * patchesY * patchesZ;
    const dim3 threads(kVolumePatchX, kVolumePatchY, kVolumeThreadsZ);
    const auto* samples = static_cast<const typename Criterion::Sample*>(d_samples);
    if constexpr (Criterion::kBinary)
        solvePatchesVolumeNodesKernel<Criterion, Connectivity><<<unsigned(blocks), threads, 0, context.stream>>>(
            samples, d_labels, width, height, depth, patchesX, patchesY, rule);
    else
        solvePatchesVolumeKernel<Criterion, Connectivity><<<unsigned(blocks), threads, 0, context.stream>>>(
            samples, d_labels, width, height, depth, patchesX, patchesY, rule);
    context.check.launched("solvePatches (volume)", context.stream);
}

}  // namespace

void SolvePatchesPass::run(const PassContext& context, const void* d_samples, std::uint32_t* d_labels, int width,
                           int height, int depth, const PixelRule& rule) {
    auto scope = context.timer.scope(kStage);
    withSampleCriterion(rule, [&](auto criterion) {
        using Criterion = decltype(criterion);
        withVolumeConnectivity(rule.connectivity, [&](auto connectivity) {
            launchSolvePatchesVolume<Criterion, decltype(connectivity)::value>(context, d_samples, d_labels, width, height, depth,
                                                                       rule);
        });
    });
}

void SolvePatchesPass::run(const PassContext& context, const void* d_samples, std::uint32_t* d_labels, int width,
                           int height, const PixelRule& rule) {
    auto scope = context.timer.scope(kStage);
    const int patchesX = (width + kPatchSide - 1) / kPatchSide;
    const int patchesY = (height + kPatchSide - 1) / kPatchSide;
    // One-dimensional grid: gridDim.y would cap the height at 65535 patches.
    const unsigned blocks = unsigned(patchesX) * unsigned(patchesY);
    withSampleCriterion(rule, [&](auto criterion) {
        using Criterion = decltype(criterion);
        solvePatchesKernel<Criterion><<<blocks, dim3(kPatchSide, kPatchSide), 0, context.stream>>>(
            static_cast<const typename Criterion::Sample*>(d_samples), d_labels, width, height, patchesX, rule);
    });
    context.check.launched("solvePatches", context.stream);
}

cudaError_t probeKernelImage() {
    cudaFuncAttributes attributes{};
    return cudaFuncGetAttributes(&attributes, solvePatchesKernel<NonzeroBytes>);
}

}  // namespace glccl::cuda

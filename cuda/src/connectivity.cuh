#pragma once
// The one device-side test of which neighbouring pixels belong together,
// used by every kernel that reads the image (solve_patches, merge_patches), and
// the neighbourhoods of images and volumes.
// Mirrors glccl::isForeground / glccl::areConnected of the CPU reference:
//   Binary:    nonzero is foreground; foreground neighbours connect.
//   Segments:  0 is background; neighbours connect when their values are equal.
//   Threshold: every pixel is foreground; neighbours connect when every
//              channel differs by at most rule.threshold.
//
// Neighbour order, 4-neighbours first so that a loop over the first
// rule.connectivity entries covers both connectivities:
//
//        4 2 5
//        0 . 1
//        6 3 7

#include <cstdint>

#include <vector_types.h>

#include "passes.hpp"

namespace glccl::cuda {

struct Offset {
    int dx, dy;
};

__device__ __forceinline__ Offset neighbourOffset(int i) {
    constexpr Offset kOffsets[8] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {1, -1}, {-1, 1}, {1, 1}};
    return kOffsets[i];
}

// Volumes. The 13 neighbours that come before a voxel in raster order (z,
// then y, then x), faces first, then edges, then corners, so that the first
// backwardNeighbourCount(connectivity) entries are those of 6, 18 or 26:
//
//   slice z - 1:   c e c      slice z:   e f e      (f face, e edge,
//                  e f e                 f .        c corner)
//                  c e c
struct VoxelOffset {
    int dx, dy, dz;
};

__host__ __device__ constexpr VoxelOffset backwardOffset(int i) {
    constexpr VoxelOffset kOffsets[13] = {
        {-1, 0, 0},  {0, -1, 0}, {0, 0, -1},                                                          // faces
        {-1, -1, 0}, {1, -1, 0}, {-1, 0, -1}, {1, 0, -1}, {0, -1, -1}, {0, 1, -1},                    // edges
        {-1, -1, -1}, {1, -1, -1}, {-1, 1, -1}, {1, 1, -1}};                                          // corners
    return kOffsets[i];
}

__host__ __device__ constexpr int backwardNeighbourCount(int connectivity) {
    return connectivity == 6 ? 3 : connectivity == 18 ? 9 : 13;
}

// Whether voxels `nonzeroAxes` axes apart (1: a face, 2: an edge, 3: a
// corner) are neighbours under 6-, 18- or 26-connectivity.
__host__ __device__ constexpr bool joinsAcross(int connectivity, int nonzeroAxes) {
    return nonzeroAxes <= (connectivity == 6 ? 1 : connectivity == 18 ? 2 : 3);
}

__device__ __forceinline__ bool isNonzero(std::uint8_t v) { return v != 0; }
__device__ __forceinline__ bool isNonzero(uchar4 v) { return (v.x | v.y | v.z | v.w) != 0; }

// Largest difference over the channels.
__device__ __forceinline__ int channelDistance(std::uint8_t a, std::uint8_t b) { return abs(int(a) - int(b)); }
__device__ __forceinline__ int channelDistance(uchar4 a, uchar4 b) {
    return max(max(abs(int(a.x) - int(b.x)), abs(int(a.y) - int(b.y))),
               max(abs(int(a.z) - int(b.z)), abs(int(a.w) - int(b.w))));
}

template <typename Pixel>
__device__ __forceinline__ bool isForeground(Pixel v, const PixelRule& rule) {
    return rule.kind == PixelRuleKind::Threshold || isNonzero(v);
}

// Do the neighbouring pixels a and b belong to the same component? False
// whenever either is background. The caller checks that b is in the image.
template <typename Pixel>
__device__ __forceinline__ bool areConnected(Pixel a, Pixel b, const PixelRule& rule) {
    switch (rule.kind) {
        case PixelRuleKind::Binary: return isNonzero(a) && isNonzero(b);
        case PixelRuleKind::Segments: return isNonzero(a) && channelDistance(a, b) == 0;
        case PixelRuleKind::Threshold: return channelDistance(a, b) <= rule.threshold;
    }
    return false;
}

}  // namespace glccl::cuda

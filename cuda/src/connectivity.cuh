#pragma once
// The neighbourhoods of images and volumes, and (criterion.cuh, included
// here) the one device-side test of which neighbouring samples belong
// together, used by every kernel that reads samples.
//
// Neighbour order, 4-neighbours first so that a loop over the first
// rule.connectivity entries covers both connectivities:
//
//        4 2 5
//        0 . 1
//        6 3 7

#include <cstdint>
#include <type_traits>

#include <vector_types.h>

#include "criterion.cuh"
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

// The connectivity of a volume (6, 18, else 26) as a compile-time constant,
// for the volume launches.
template <class Launch>
void withVolumeConnectivity(int connectivity, Launch&& launch) {
    if (connectivity == 6) return launch(std::integral_constant<int, 6>{});
    if (connectivity == 18) return launch(std::integral_constant<int, 18>{});
    launch(std::integral_constant<int, 26>{});
}

}  // namespace glccl::cuda

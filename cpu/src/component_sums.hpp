#pragma once
// The component table accumulates in its own storage, run by run, and is
// finished once every run is in: while accumulating, width holds the
// rightmost x, height the lowest row y, depth the last slice z, and the three
// centroids hold the exact 64-bit sums of x, y and z (as bits: a double does
// not hold every such sum exactly).
// The same exact sums as canonical.cpp's computeComponents, so that the
// centroids are the same one rounding of sum / area.

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "glccl/types.hpp"

namespace glccl::cpu::detail {

inline std::uint64_t sumIn(double slot) {
    std::uint64_t sum;
    std::memcpy(&sum, &slot, sizeof sum);
    return sum;
}

inline void setSum(double& slot, std::uint64_t sum) { std::memcpy(&slot, &sum, sizeof sum); }

// The sum of x over the run [first, last]: first + last is even when the
// length is odd, so the halving is exact.
inline std::uint64_t sumOfX(std::uint32_t first, std::uint32_t last) {
    return (std::uint64_t(first) + last) * (std::uint64_t(last) - first + 1) / 2;
}

// Adds the run [first, last] of row y of slice z. Runs come in raster order,
// so an entry's first run holds its front slice and each later one its last
// slice so far (its rows are no order across slices). `starts`: this is the entry's
// first run, whatever the entry held before (masks, not branches: the
// first runs of noise come in no order a predictor learns).
inline void addRun(Component& c, bool starts, std::uint32_t first, std::uint32_t last, std::uint32_t y,
                   std::uint32_t z) {
    const std::uint64_t length = std::uint64_t(last) - first + 1;
    // Masks rather than conditions: compilers turn `starts ? a : b` of
    // loaded fields into branches.
    const std::uint32_t keep32 = std::uint32_t(starts) - 1u;  // all ones for an entry that goes on
    const std::uint64_t keep = std::uint64_t(starts) - 1u;
    const std::uint32_t far = ~keep32;                          // all ones for a new entry
    c.left = std::min(c.left | far, first);
    c.width = std::max(c.width & keep32, last);
    c.top = std::min(c.top | far, y);
    c.height = std::max(c.height & keep32, y);
    c.front = (c.front & keep32) | (z & far);
    c.depth = z;
    const std::uint64_t area = c.area, sumX = sumIn(c.centroidX), sumY = sumIn(c.centroidY), sumZ = sumIn(c.centroidZ);
    c.area = (area & keep) + length;
    setSum(c.centroidX, (sumX & keep) + sumOfX(first, last));
    setSum(c.centroidY, (sumY & keep) + std::uint64_t(y) * length);
    setSum(c.centroidZ, (sumZ & keep) + std::uint64_t(z) * length);
}

// Adds what another part of the input accumulated for the same component.
inline void addPart(Component& c, const Component& part) {
    if (part.area == 0) return;
    if (c.area == 0) {
        c = part;
        return;
    }
    c.left = std::min(c.left, part.left);
    c.width = std::max(c.width, part.width);
    c.top = std::min(c.top, part.top);
    c.height = std::max(c.height, part.height);
    c.front = std::min(c.front, part.front);
    c.depth = std::max(c.depth, part.depth);
    c.area += part.area;
    setSum(c.centroidX, sumIn(c.centroidX) + sumIn(part.centroidX));
    setSum(c.centroidY, sumIn(c.centroidY) + sumIn(part.centroidY));
    setSum(c.centroidZ, sumIn(c.centroidZ) + sumIn(part.centroidZ));
}

// The accumulated entry as the table row computeComponents gives.
inline void finishComponent(Component& c) {
    c.width = c.width - c.left + 1;
    c.height = c.height - c.top + 1;
    c.depth = c.depth - c.front + 1;
    c.centroidX = double(sumIn(c.centroidX)) / double(c.area);
    c.centroidY = double(sumIn(c.centroidY)) / double(c.area);
    c.centroidZ = double(sumIn(c.centroidZ)) / double(c.area);
}

}  // namespace glccl::cpu::detail

#pragma once
// The component table accumulates in its own storage, run by run, and is
// finished once every run is in: while accumulating, width holds the
// rightmost x, height the lowest row y, depth the last slice z, and the three
// centroids hold the exact 64-bit sums of x, y and z (as bits: a double does
// not hold every such sum exactly). area 0 marks an entry no run reached yet.
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

// Adds the run [first, last] of row y of slice z.
inline void addRun(Component& c, std::uint32_t first, std::uint32_t last, std::uint32_t y, std::uint32_t z) {
    const std::uint64_t length = std::uint64_t(last) - first + 1;
    const std::uint64_t sumX = (std::uint64_t(first) + last) * length / 2;  // even: first + last is even when length is odd
    if (c.area == 0) {
        c.left = first;
        c.width = last;
        c.top = c.height = y;
        c.front = c.depth = z;
        c.area = length;
        setSum(c.centroidX, sumX);
        setSum(c.centroidY, std::uint64_t(y) * length);
        setSum(c.centroidZ, std::uint64_t(z) * length);
        return;
    }
    c.left = std::min(c.left, first);
    c.width = std::max(c.width, last);
    c.top = std::min(c.top, y);
    c.height = std::max(c.height, y);
    c.front = std::min(c.front, z);
    c.depth = std::max(c.depth, z);
    c.area += length;
    setSum(c.centroidX, sumIn(c.centroidX) + sumX);
    setSum(c.centroidY, sumIn(c.centroidY) + std::uint64_t(y) * length);
    setSum(c.centroidZ, sumIn(c.centroidZ) + std::uint64_t(z) * length);
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

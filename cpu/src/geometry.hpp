#pragma once
// The shape of an input as the cpu engine walks it: rows of `width` elements,
// row r = z * height + y, slices one after the other; which earlier rows a
// row links to under a connectivity; and the stripes of rows the threads
// take.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "glccl/types.hpp"

namespace glccl::cpu::detail {

// An earlier row that a row (y, z) links to: (y + dy, z + dz), its elements
// joining those at most `reach` (0 or 1) apart along x. In raster order the
// elements a row has seen before it are its own earlier ones (the run itself)
// and these rows':
//      dz = 0: (y - 1)                    2-D 4 and 8, and a volume's slice
//      dz = -1: (y - 1), (y), (y + 1)     the slice before (6: only y)
// `steps` says exactly which: bit dx + 1 set where element x joins element
// x + dx of that row. The named connectivities join all within the reach
// (0b010 or 0b111); another neighbourhood may join any of them (0b001: only
// the element up and to the left), which its rule reads (NeighbourhoodRule).
struct NeighbourRow {
    int dy, dz, reach;
    std::uint32_t steps;
};

struct Geometry {
    std::int64_t width = 0, height = 0, depth = 0, rows = 0;
    NeighbourRow neighbours[4] = {};
    int neighbourCount = 0;
    // The farthest neighbour row back from any row: 1 in 2-D, height (6) or
    // height + 1 (18, 26) in a volume of several slices.
    std::int64_t backRows = 1;

    // The index of neighbour q of row r = z * height + y; -1 where it falls
    // outside the input.
    std::int64_t neighbourOf(std::int64_t r, std::int64_t y, std::int64_t z, const NeighbourRow& q) const {
        if (y + q.dy < 0 || y + q.dy >= height || z + q.dz < 0) return -1;
        return r + q.dz * height + q.dy;
    }
};

// The farthest neighbour row back from any row (Geometry::backRows).
inline void setBackRows(Geometry& g) {
    g.backRows = 1;
    if (g.depth > 1) {
        for (int q = 0; q < g.neighbourCount; ++q) {
            const NeighbourRow& n = g.neighbours[q];
            g.backRows = std::max<std::int64_t>(g.backRows, -(n.dz * g.height + n.dy));
        }
    }
}

inline Geometry makeGeometry(const Shape& shape, Connectivity connectivity) {
    Geometry g;
    g.width = shape.width;
    g.height = shape.height;
    g.depth = shape.depth;
    g.rows = shape.height * shape.depth;
    auto add = [&](int dy, int dz, int reach) {
        g.neighbours[g.neighbourCount++] = {dy, dz, reach, reach == 1 ? 0b111u : 0b010u};
    };
    switch (connectivity) {
        case Connectivity::Four: add(-1, 0, 0); break;
        case Connectivity::Eight: add(-1, 0, 1); break;
        case Connectivity::Six:
            add(-1, 0, 0);
            add(0, -1, 0);
            break;
        case Connectivity::Eighteen:
            add(-1, 0, 1);
            add(-1, -1, 0);
            add(0, -1, 1);
            add(1, -1, 0);
            break;
        case Connectivity::TwentySix:
            add(-1, 0, 1);
            add(-1, -1, 1);
            add(0, -1, 1);
            add(1, -1, 1);
            break;
    }
    setBackRows(g);
    return g;
}

// The geometry of any neighbourhood: each earlier row that some offset
// reaches, with the steps along x that join it.
inline Geometry makeGeometry(const Shape& shape, const Neighbourhood& neighbourhood) {
    Geometry g;
    g.width = shape.width;
    g.height = shape.height;
    g.depth = shape.depth;
    g.rows = shape.height * shape.depth;
    for (int dz = neighbourhood.dimensions() == 3 ? -1 : 0; dz <= 0; ++dz) {
        for (int dy = -1; dy <= (dz < 0 ? 1 : -1); ++dy) {
            std::uint32_t steps = 0;
            for (int dx = -1; dx <= 1; ++dx) steps |= std::uint32_t(neighbourhood.joins(dx, dy, dz)) << (dx + 1);
            if (steps != 0) g.neighbours[g.neighbourCount++] = {dy, dz, (steps & 0b101u) ? 1 : 0, steps};
        }
    }
    setBackRows(g);
    return g;
}

// The stripes: stripe s holds rows firstRow[s] .. firstRow[s + 1] - 1.
struct StripePlan {
    std::vector<std::int64_t> firstRow;  // stripes + 1 entries, the last one `rows`
    // Whether every stripe holds at least backRows rows, so that a row links
    // only to rows of its own stripe and the one before: borders can then be
    // merged in a tree, several at once.
    bool adjacentOnly = true;
    std::size_t stripes() const { return firstRow.size() - 1; }
};

// A stripe a thread, each of at least backRows rows where the input has
// that many. Images get up to four a thread, of 32 rows or more, so that
// threads which finish early take another (a stripe's cost follows its
// content, not its rows); their borders cost a row each. Volumes keep one a
// thread: a border there costs a slice, in time and in the scratch bound.
// None over maxStripeElements elements (a stripe's runs are numbered in 31
// bits).
// Plans into `plan`, reusing its storage.
inline void planStripes(const Geometry& g, int threads, std::uint64_t maxStripeElements, StripePlan& plan) {
    std::int64_t stripes = std::max<std::int64_t>(1, std::min<std::int64_t>(threads, g.rows / g.backRows));
    if (threads > 1 && g.backRows == 1) stripes = std::max(stripes, std::min<std::int64_t>(4 * std::int64_t(threads), g.rows / 32));
    const std::int64_t rowsCap = std::max<std::int64_t>(1, std::int64_t(maxStripeElements / std::uint64_t(g.width)));
    stripes = std::max(stripes, (g.rows + rowsCap - 1) / rowsCap);
    plan.firstRow.resize(std::size_t(stripes) + 1);
    for (std::int64_t s = 0; s <= stripes; ++s) {
        // rows * s may pass 63 bits only for inputs no machine holds; split in two steps anyway
        plan.firstRow[std::size_t(s)] = (g.rows / stripes) * s + (g.rows % stripes) * s / stripes;
    }
    plan.adjacentOnly = g.rows / stripes >= g.backRows;
}

}  // namespace glccl::cpu::detail

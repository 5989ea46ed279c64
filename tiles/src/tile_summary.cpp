// LabelTilesPass, its second half: what a labeled tile leaves for the
// border merge and the numbering. The tile's labeling follows the output
// contract (labels 1..n in raster order of first pixel, the table with box,
// area and centroid); this turns it into parts with image-space stats.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "glccl/error.hpp"
#include "pipeline_state.hpp"

namespace glccl {

void PartStats::add(const PartStats& o) {
    left = std::min(left, o.left);
    top = std::min(top, o.top);
    front = std::min(front, o.front);
    right = std::max(right, o.right);
    bottom = std::max(bottom, o.bottom);
    back = std::max(back, o.back);
    area += o.area;
    sumX += o.sumX;
    sumY += o.sumY;
    sumZ += o.sumZ;
}

Component PartStats::component() const {
    // One rounding of the exact sums, as glccl::computeComponents does, so
    // the doubles are the reference's bit for bit.
    Component c;
    c.left = left;
    c.top = top;
    c.width = right - left + 1;
    c.height = bottom - top + 1;
    c.area = area;
    c.centroidX = double(sumX) / double(area);
    c.centroidY = double(sumY) / double(area);
    c.front = front;
    c.depth = back - front + 1;
    c.centroidZ = double(sumZ) / double(area);
    return c;
}

namespace detail {

// A backend's table holds centroids, not sums. The sum comes back exactly:
// the centroid is S/A rounded once, c = (S/A)(1 + d1) with |d1| <= 2^-53,
// and c * A = S (1 + d1)(1 + d2) is within S * 2^-52 of S, below 1/2 while
// S < 2^51; llround then gives S. A tile's local sums stay below
// 2^30 pixels * 2^15 = 2^45 (kMaxTileSide). Should a backend's centroid not
// come from an integer sum at all, the distance says so.
std::uint64_t exactCoordinateSum(double centroid, std::uint64_t area, const char* axis) {
    const double product = centroid * double(area);
    const double sum = std::nearbyint(product);
    if (!(sum >= 0.0) || std::fabs(product - sum) > 1e-3 || sum >= 0x1p51)
        throw Error(std::string("glccl::labelTiled(): a tile's component has area ") + std::to_string(area) +
                    " and centroid " + axis + " " + std::to_string(centroid) +
                    ", which is no sum of integer coordinates; the backend's table is not exact");
    return std::uint64_t(sum);
}

PartStats partStatsOf(const TileRect& tile, const Component& c) {
    PartStats stats;
    stats.left = tile.x0 + c.left;
    stats.top = tile.y0 + c.top;
    stats.front = tile.z0 + c.front;
    stats.right = stats.left + c.width - 1;
    stats.bottom = stats.top + c.height - 1;
    stats.back = stats.front + c.depth - 1;
    stats.area = c.area;
    stats.sumX = exactCoordinateSum(c.centroidX, c.area, "x") + std::uint64_t(tile.x0) * c.area;
    stats.sumY = exactCoordinateSum(c.centroidY, c.area, "y") + std::uint64_t(tile.y0) * c.area;
    stats.sumZ = exactCoordinateSum(c.centroidZ, c.area, "z") + std::uint64_t(tile.z0) * c.area;
    return stats;
}

std::uint64_t tableFingerprint(const std::vector<Component>& table) {
    // FNV-1a over the fields, a row after the other.
    std::uint64_t hash = 14695981039346656037ull;
    const auto mix = [&hash](std::uint64_t value) {
        for (int b = 0; b < 8; ++b) {
            hash ^= (value >> (8 * b)) & 0xFF;
            hash *= 1099511628211ull;
        }
    };
    for (const Component& c : table) {
        mix(std::uint64_t(c.left) << 32 | c.top);
        mix(std::uint64_t(c.width) << 32 | c.height);
        mix(std::uint64_t(c.front) << 32 | c.depth);
        mix(c.area);
        for (const double centroid : {c.centroidX, c.centroidY, c.centroidZ}) {
            std::uint64_t bits = 0;
            std::memcpy(&bits, &centroid, sizeof bits);
            mix(bits);
        }
    }
    return hash;
}

TileSummary summarizeTile(const TilePlan& plan, const TileRect& tile, const Image& pixels, const std::uint32_t* labels,
                          const std::vector<Component>& table) {
    const std::string where = "glccl::labelTiled(): tile " + std::to_string(tile.index) + ": ";
    const std::uint32_t width = tile.width, height = tile.height, depth = tile.depth;
    const std::uint64_t lines = tile.lines();
    if (table.size() >= UINT32_MAX)
        throw Error(where + "the backend found " + std::to_string(table.size()) +
                    " components, more than uint32 tile labels hold");
    TileSummary summary;
    summary.count = std::uint32_t(table.size());
    summary.tableFingerprint = tableFingerprint(table);

    std::vector<std::uint32_t> firstCount(lines, 0);
    // Components in raster order of first element have non-decreasing top
    // rows in an image (a component's first pixel lies in its top row), and
    // non-decreasing front slices in a volume.
    const bool volume = plan.isVolume();
    std::uint32_t previous = 0;
    for (std::size_t i = 0; i < table.size(); ++i) {
        const std::uint32_t first = volume ? table[i].front : table[i].top;
        if (first >= (volume ? depth : height) || first < previous || table[i].area == 0)
            throw Error(where + "label " + std::to_string(i + 1) + " has " + (volume ? "front slice " : "top row ") +
                        std::to_string(first) + " after " + std::to_string(previous) +
                        "; labels must be in raster order of their first " + (volume ? "voxel" : "pixel"));
        previous = first;
        ++firstCount[volume ? std::uint64_t(first) * height : first];
    }
    if (volume) {
        // A component's first voxel lies in its front slice but not always
        // in its top row: the labels of the slice say which line it is in.
        // The labels first seen in slice z are the run of those whose front
        // is z, so only slices where a run starts are read, each until its
        // run is complete.
        std::uint32_t next = 1;
        for (std::uint32_t z = 0; z < depth; ++z) {
            const std::uint32_t end = next + firstCount[std::uint64_t(z) * height];
            firstCount[std::uint64_t(z) * height] = 0;
            for (std::uint32_t y = 0; y < height && next < end; ++y) {
                const std::uint64_t line = std::uint64_t(z) * height + y;
                const std::uint32_t* row = labels + line * width;
                for (std::uint32_t x = 0; x < width && next < end; ++x) {
                    if (row[x] < next) continue;
                    if (row[x] != next)
                        throw Error(where + "label " + std::to_string(row[x]) + " comes before label " +
                                    std::to_string(next) + " of " + std::to_string(summary.count) +
                                    "; labels must be 1..n in raster order of their first voxel");
                    ++firstCount[line];
                    ++next;
                }
            }
            if (next != end)
                throw Error(where + "its table has labels " + std::to_string(next) + " to " + std::to_string(end - 1) +
                            " begin in slice " + std::to_string(z) + ", but its labels there do not");
        }
    }
    summary.firstLabelOfRow.resize(std::size_t(lines) + 1);
    summary.firstLabelOfRow[0] = 1;
    for (std::uint64_t r = 0; r < lines; ++r) summary.firstLabelOfRow[r + 1] = summary.firstLabelOfRow[r] + firstCount[r];

    // The sides: `rows` lines of `length` pixels from `origin`, stepping
    // `along` within a line and `across` between lines (linear indices).
    struct Side {
        TileEdge* edge;
        std::uint64_t origin, along, length, across, rows;
    };
    const std::uint64_t slice = std::uint64_t(width) * height;
    std::vector<Side> sides = {
        {&summary.top, 0, 1, width, slice, depth},
        {&summary.bottom, std::uint64_t(height - 1) * width, 1, width, slice, depth},
        {&summary.left, 0, width, height, slice, depth},
        {&summary.right, width - 1, width, height, slice, depth},
    };
    if (plan.tilesZ() > 1) {
        sides.push_back({&summary.front, 0, 1, width, width, height});
        sides.push_back({&summary.back, std::uint64_t(depth - 1) * slice, 1, width, width, height});
    }

    // Parts: the distinct labels on the sides, ascending; partOf[label] is
    // a part's index + 1 (0 for the labels on no side).
    std::vector<std::uint32_t> partOf(std::size_t(summary.count) + 1, 0);
    for (const Side& side : sides)
        for (std::uint64_t r = 0; r < side.rows; ++r)
            for (std::uint64_t i = 0; i < side.length; ++i) {
                const std::uint32_t label = labels[side.origin + r * side.across + i * side.along];
                if (label > summary.count)
                    throw Error(where + "label " + std::to_string(label) + " is past the table's " +
                                std::to_string(summary.count) + " components");
                partOf[label] = 1;
            }
    partOf[0] = 0;
    std::vector<std::uint32_t>& parts = summary.partLabels;
    for (std::uint32_t label = 1; label <= summary.count; ++label)
        if (partOf[label] != 0) {
            parts.push_back(label);
            partOf[label] = std::uint32_t(parts.size());
        }

    for (const std::uint32_t label : parts) {
        const PartStats stats = partStatsOf(tile, table[label - 1]);
        summary.partStats.push_back(stats);
        // The tile line of the label's first pixel, as an image line.
        const std::uint64_t line = std::uint64_t(std::upper_bound(summary.firstLabelOfRow.begin(),
                                                                  summary.firstLabelOfRow.end(), label) -
                                                 summary.firstLabelOfRow.begin()) - 1;
        const std::uint64_t imageLine =
            (std::uint64_t(tile.z0) + line / height) * plan.imageHeight() + tile.y0 + line % height;
        summary.partKeys.push_back(PartKey{imageLine, tile.index, label});
    }

    // Sides as part indices (+1), and their pixels for the criterion.
    const std::size_t pixelBytes = std::size_t(pixels.channels) * std::size_t(pixels.bytesPerSample());
    for (const Side& side : sides) {
        TileEdge& edge = *side.edge;
        const std::size_t count = std::size_t(side.rows * side.length);
        edge.rows = std::size_t(side.rows);
        edge.parts.resize(count);
        edge.pixels.resize(count * pixelBytes);
        std::size_t i = 0;
        for (std::uint64_t r = 0; r < side.rows; ++r)
            for (std::uint64_t k = 0; k < side.length; ++k, ++i) {
                const std::uint64_t at = side.origin + r * side.across + k * side.along;
                edge.parts[i] = partOf[labels[at]];
                std::copy_n(pixels.pixels.data() + at * pixelBytes, pixelBytes, edge.pixels.data() + i * pixelBytes);
            }
    }
    return summary;
}

}  // namespace detail
}  // namespace glccl

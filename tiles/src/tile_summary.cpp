// LabelTilesPass, its second half: what a labeled tile leaves for the
// border merge and the numbering. The tile's labeling follows the output
// contract (labels 1..n in raster order of first pixel, the table with box,
// area and centroid); this turns it into parts with image-space stats.

#include <algorithm>
#include <cmath>
#include <string>

#include "glccl/error.hpp"
#include "pipeline_state.hpp"

namespace glccl {

void PartStats::add(const PartStats& o) {
    left = std::min(left, o.left);
    top = std::min(top, o.top);
    right = std::max(right, o.right);
    bottom = std::max(bottom, o.bottom);
    area += o.area;
    sumX += o.sumX;
    sumY += o.sumY;
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

TileSummary summarizeTile(const TileRect& tile, const Image& pixels, const Labeling& labeling) {
    const std::string where = "glccl::labelTiled(): tile " + std::to_string(tile.index) + ": ";
    const std::uint32_t width = tile.width, height = tile.height;
    if (labeling.width != int(width) || labeling.height != int(height) ||
        labeling.labels.size() != std::size_t(width) * height)
        throw Error(where + "the backend returned a " + std::to_string(labeling.width) + "x" +
                    std::to_string(labeling.height) + " labeling for a " + std::to_string(width) + "x" +
                    std::to_string(height) + " tile");
    TileSummary summary;
    const std::vector<Component>& table = labeling.components;
    summary.count = std::uint32_t(table.size());

    // Components in raster order of first pixel have non-decreasing top rows
    // (a component's first pixel lies in its top row).
    std::vector<std::uint32_t> firstCount(height, 0);
    std::uint32_t previousTop = 0;
    for (std::size_t i = 0; i < table.size(); ++i) {
        const std::uint32_t top = table[i].top;
        if (top >= height || top < previousTop || table[i].area == 0)
            throw Error(where + "label " + std::to_string(i + 1) + " has top row " + std::to_string(top) +
                        " after row " + std::to_string(previousTop) +
                        "; labels must be in raster order of their first pixel");
        previousTop = top;
        ++firstCount[top];
    }
    summary.firstLabelOfRow.resize(std::size_t(height) + 1);
    summary.firstLabelOfRow[0] = 1;
    for (std::uint32_t r = 0; r < height; ++r)
        summary.firstLabelOfRow[r + 1] = summary.firstLabelOfRow[r] + firstCount[r];

    // Parts: the distinct labels on the four edges.
    const std::uint32_t* labels = labeling.labels.data();
    auto at = [&](std::uint32_t x, std::uint32_t y) { return labels[std::size_t(y) * width + x]; };
    std::vector<std::uint32_t>& parts = summary.partLabels;
    for (std::uint32_t x = 0; x < width; ++x) {
        parts.push_back(at(x, 0));
        parts.push_back(at(x, height - 1));
    }
    for (std::uint32_t y = 0; y < height; ++y) {
        parts.push_back(at(0, y));
        parts.push_back(at(width - 1, y));
    }
    std::sort(parts.begin(), parts.end());
    parts.erase(std::unique(parts.begin(), parts.end()), parts.end());
    if (!parts.empty() && parts.front() == 0) parts.erase(parts.begin());
    if (!parts.empty() && parts.back() > summary.count)
        throw Error(where + "label " + std::to_string(parts.back()) + " is past the table's " +
                    std::to_string(summary.count) + " components");

    for (const std::uint32_t label : parts) {
        const Component& c = table[label - 1];
        PartStats stats;
        stats.left = tile.x0 + c.left;
        stats.top = tile.y0 + c.top;
        stats.right = stats.left + c.width - 1;
        stats.bottom = stats.top + c.height - 1;
        stats.area = c.area;
        stats.sumX = exactCoordinateSum(c.centroidX, c.area, "x") + std::uint64_t(tile.x0) * c.area;
        stats.sumY = exactCoordinateSum(c.centroidY, c.area, "y") + std::uint64_t(tile.y0) * c.area;
        summary.partStats.push_back(stats);
        summary.partKeys.push_back(PartKey{stats.top, tile.index, label});
    }

    // Edges as part indices (+1), and their pixels for the criterion.
    auto partIndex = [&](std::uint32_t label) -> std::uint32_t {
        if (label == 0) return 0;
        return std::uint32_t(std::lower_bound(parts.begin(), parts.end(), label) - parts.begin()) + 1;
    };
    const std::size_t pixelBytes = std::size_t(pixels.channels) * std::size_t(pixels.bytesPerSample());
    auto edge = [&](std::uint32_t x, std::uint32_t y, std::uint32_t dx, std::uint32_t dy, std::uint32_t length,
                    std::vector<std::uint32_t>& nodes, std::vector<std::uint8_t>& bytes) {
        nodes.resize(length);
        bytes.resize(length * pixelBytes);
        std::uint32_t lastLabel = 0, lastIndex = 0;
        for (std::uint32_t i = 0; i < length; ++i, x += dx, y += dy) {
            const std::uint32_t label = at(x, y);
            if (label != lastLabel) {
                lastLabel = label;
                lastIndex = partIndex(label);
            }
            nodes[i] = label == 0 ? 0 : lastIndex;
            std::copy_n(pixels.pixels.data() + (std::size_t(y) * width + x) * pixelBytes, pixelBytes,
                        bytes.data() + i * pixelBytes);
        }
    };
    edge(0, 0, 1, 0, width, summary.topEdge, summary.topPixels);
    edge(0, height - 1, 1, 0, width, summary.bottomEdge, summary.bottomPixels);
    edge(0, 0, 0, 1, height, summary.leftEdge, summary.leftPixels);
    edge(width - 1, 0, 0, 1, height, summary.rightEdge, summary.rightPixels);
    return summary;
}

}  // namespace detail
}  // namespace glccl

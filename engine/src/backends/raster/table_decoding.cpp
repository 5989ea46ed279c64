#include "table_decoding.hpp"

#include <utility>

#include "raster_constants.hpp"

namespace glccl::raster {

DecodedTable decodeTable(const DownloadedTable& block, int width, int height) {
    DecodedTable decoded;
    decoded.components.resize(block.count);
    decoded.sumX.resize(block.count);
    decoded.sumY.resize(block.count);
    const std::uint32_t coordinateMask = (1u << kIdCoordinateBits) - 1u;
    for (std::uint32_t i = 0; i < block.count; ++i) {
        const float* box = &block.boxes[std::size_t(i) * 4];
        const float* sum = &block.sums[std::size_t(i) * 4];
        Component& c = decoded.components[i];
        c.left = std::uint32_t(width - 1 - int(box[0]));
        c.top = std::uint32_t(height - 1 - int(box[1]));
        c.width = std::uint32_t(int(box[2])) - c.left + 1;
        c.height = std::uint32_t(int(box[3])) - c.top + 1;
        c.area = std::uint64_t(sum[0]);
        // Sums come relative to the root (component_table.frag); its ID gives
        // the root's pixel back (common.glsl, "IDs").
        const std::uint32_t id = block.roots[i] - kIdBase;
        const std::int64_t rootX = width - 1 - std::int64_t(id & coordinateMask);
        const std::int64_t rootY = height - 1 - std::int64_t(id >> kIdCoordinateBits);
        decoded.sumX[i] = std::int64_t(sum[1]) + std::int64_t(c.area) * rootX;
        decoded.sumY[i] = std::int64_t(sum[2]) + std::int64_t(c.area) * rootY;
        const double area = sum[0];
        if (area >= kExactFloatSum || area * (c.width - 1) >= kExactFloatSum || area * (c.height - 1) >= kExactFloatSum)
            decoded.largeLabels.push_back(i + 1);
    }
    return decoded;
}

void applyBitCounters(DecodedTable& decoded, const std::vector<std::uint64_t>& counters) {
    // Counter 0 is the area, 1 + b the pixels with bit b of x set,
    // 1 + kIdCoordinateBits + b those with bit b of y (component_bits.frag).
    constexpr int kCounters = 4 * kBitCounterTargets;
    for (std::size_t j = 0; j < decoded.largeLabels.size(); ++j) {
        const std::uint64_t* counter = &counters[j * kCounters];
        const std::uint32_t i = decoded.largeLabels[j] - 1;
        decoded.components[i].area = counter[0];
        decoded.sumX[i] = decoded.sumY[i] = 0;
        for (int bit = 0; bit < kIdCoordinateBits; ++bit) {
            decoded.sumX[i] += std::int64_t(counter[1 + bit] << bit);
            decoded.sumY[i] += std::int64_t(counter[1 + kIdCoordinateBits + bit] << bit);
        }
    }
}

std::vector<Component> withCentroids(DecodedTable decoded) {
    for (std::size_t i = 0; i < decoded.components.size(); ++i) {
        Component& c = decoded.components[i];
        c.centroidX = double(std::uint64_t(decoded.sumX[i])) / double(c.area);
        c.centroidY = double(std::uint64_t(decoded.sumY[i])) / double(c.area);
    }
    return std::move(decoded.components);
}

}  // namespace glccl::raster

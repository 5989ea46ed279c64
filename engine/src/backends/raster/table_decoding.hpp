#pragma once
// The component table on the host: from the downloaded block to Components,
// with the exact counts of component_bits where float sums are not exact.
// No GL here.

#include <cstdint>
#include <vector>

#include "download_table.hpp"
#include "glccl/types.hpp"

namespace glccl::raster {

// Components without centroids yet, and the 64-bit coordinate sums they come from.
struct DecodedTable {
    std::vector<Component> components;
    std::vector<std::int64_t> sumX, sumY;
    // Labels whose float sums are not exact (area, area * (width - 1) or
    // area * (height - 1) reached 2^24): component_bits counts these.
    std::vector<std::uint32_t> largeLabels;
};

// Decodes a table of an image of width x height pixels.
DecodedTable decodeTable(const DownloadedTable& block, int width, int height);

// Replaces the area and sums of decoded.largeLabels[j] with the exact counts
// at counters[32 * j] (ComponentBitsPass::run).
void applyBitCounters(DecodedTable& decoded, const std::vector<std::uint64_t>& counters);

// The components with their centroids.
std::vector<Component> withCentroids(DecodedTable decoded);

}  // namespace glccl::raster

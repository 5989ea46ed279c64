#pragma once
// The component table on the host: from the downloaded block to Components,
// with the exact counts of component_bits where float sums are not exact.
// No GL here.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "download_table.hpp"
#include "glccl/types.hpp"

namespace glccl::raster {

// The digits of an image of width x height pixels whose entries take at most
// `pointsPerEntry` points of at most `pointPixels` pixels each; bits 0 where
// they need more than 4 * (1 + kMaxDigitTargets) channels. `digitBits` > 0
// (tests) asks for digits of at most that many bits, every quantity in
// digits (none whole), so that small images take several digits too.
SumDigits sumDigitsFor(int width, int height, std::int64_t pointsPerEntry, int pointPixels, int digitBits = 0);

// The 64-bit coordinate sums of decoded components without centroids yet.
// Kept by the pipeline from call to call, like the components themselves,
// so that a table of a count met before is decoded without allocating.
struct DecodedSums {
    std::vector<std::int64_t> sumX, sumY;
    // Labels whose float sums are not exact (area, area * (width - 1) or
    // area * (height - 1) reached 2^24): component_bits counts these.
    std::vector<std::uint32_t> largeLabels;
};

// Decodes a table of an image of width x height pixels into `components`
// (every field of every entry written) and `sums`: with `digits`, the block's
// sums and digit channels (or its words) are exact and no label is large;
// without, sums relative to the root and the large labels listed.
void decodeTable(const DownloadedTable& block, int width, int height, std::vector<Component>& components,
                 DecodedSums& sums, const SumDigits* digits = nullptr);

// Replaces the area and sums of sums.largeLabels[j] with the exact counts
// at counters[32 * j] (ComponentBitsPass::run).
void applyBitCounters(const std::vector<std::uint64_t>& counters, std::vector<Component>& components,
                      DecodedSums& sums);

// The components' centroids from their sums.
void addCentroids(std::vector<Component>& components, const DecodedSums& sums);

}  // namespace glccl::raster

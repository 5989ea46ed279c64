#pragma once
// Deterministic generated images: the families used by tests, validate and bench.

#include <cstdint>
#include <string>
#include <vector>

#include "glccl/types.hpp"

namespace glccl {

// Family names: noise<percent> (noise50), large, dense_disks, sparse_disks,
// granularity<g>, corridor, spiral, comb, rings, staircase, checkerboard,
// zeros, ones. Returns a 1-channel binary image (0 / 255) of size w x h.
// Throws glccl::Error for an unknown family or a size outside 1..32768.
Image generateFamily(const std::string& family, int width, int height, std::uint64_t seed = 1);

// Every family name generateFamily accepts (noise and granularity with a few
// representative parameters).
std::vector<std::string> generatedFamilies();

// Random image for fuzz-like tests: `levels` distinct values (2 = binary
// 0/255) with the given probability of a nonzero pixel, `channels` 1 or 4.
Image randomImage(int width, int height, double density, int levels, int channels, std::uint64_t seed);

}  // namespace glccl

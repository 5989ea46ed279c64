#pragma once
// The canonical form of a labeling, shared by every backend: labels renumbered
// 1..N in raster order of each component's first element (slice by slice,
// line by line), and its table. Each function takes the 2-D image's width
// and height, or the Shape of an image or a volume.

#include <cstdint>
#include <vector>

#include "glccl/types.hpp"

namespace glccl {

// Renumbers any labeling (arbitrary nonzero ids per component, 0 background)
// in place into 1..N in raster order of first pixel; returns N.
std::uint32_t canonicalRelabel(int width, int height, std::vector<std::uint32_t>& labels);
std::uint32_t canonicalRelabel(const Shape& shape, std::vector<std::uint32_t>& labels);

// The component table of a canonical labeling (labels 1..count).
// Throws glccl::Error if a label is larger than count.
std::vector<Component> computeComponents(int width, int height, const std::vector<std::uint32_t>& labels,
                                         std::uint32_t count);
std::vector<Component> computeComponents(const Shape& shape, const std::vector<std::uint32_t>& labels,
                                         std::uint32_t count);

// A Labeling of labels already canonical (1..count), with its table.
Labeling canonicalLabeling(int width, int height, std::vector<std::uint32_t> labels, std::uint32_t count);
Labeling canonicalLabeling(const Shape& shape, std::vector<std::uint32_t> labels, std::uint32_t count);

// canonicalRelabel + computeComponents.
Labeling makeCanonical(int width, int height, std::vector<std::uint32_t> labels);
Labeling makeCanonical(const Shape& shape, std::vector<std::uint32_t> labels);

}  // namespace glccl

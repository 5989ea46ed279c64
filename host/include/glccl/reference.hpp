#pragma once
// The CPU reference labeler: the oracle for every test.

#include "glccl/types.hpp"

namespace glccl {

// Does the criterion connect pixel a to its neighbour b? Both are indices
// into image.pixels / channels. Also says whether a pixel is foreground.
bool isForeground(const Image& image, std::size_t pixel, const Criterion& criterion);
bool areConnected(const Image& image, std::size_t a, std::size_t b, const Criterion& criterion);

// Two-pass union-find labeling (Stava & Benes Fig. 35.3, Bester & Pulles
// Algorithm 1) with the canonical numbering and the component table.
// Throws glccl::Error for an empty image, a channel count other than 1 or 4,
// binary/segments on a 4-channel image, a connectivity other than 4 or 8
// (whyConnectivityDoesNotFit), or a volume (2-D images only for now).
// Cost: linear in the pixel count; one uint32 per pixel of extra memory.
Labeling labelReference(const Image& image, Connectivity connectivity, Criterion criterion);

}  // namespace glccl

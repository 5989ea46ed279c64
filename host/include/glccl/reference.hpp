#pragma once
// The CPU reference labeler: the oracle for every test.

#include "glccl/capabilities.hpp"
#include "glccl/types.hpp"

namespace glccl {

// Does the criterion connect pixel a to its neighbour b? Both are indices
// into image.pixels / channels. Also says whether a pixel is foreground.
bool isForeground(const Image& image, std::size_t pixel, const Criterion& criterion);
bool areConnected(const Image& image, std::size_t a, std::size_t b, const Criterion& criterion);

// Two-pass union-find labeling (Stava & Benes Fig. 35.3, Bester & Pulles
// Algorithm 1) of an image or a volume, with the canonical numbering and the
// component table. Throws glccl::Error for an empty image, a channel count
// other than 1 or 4, binary/segments on a 4-channel image, a connectivity
// that does not fit its dimensions (whyConnectivityDoesNotFit), or more
// components than uint32 labels number.
// Cost: linear in the element count; one uint32 per element of extra memory,
// 12 bytes per element from 2^32 - 1 elements on (a 64-bit forest, then the labels).
Labeling labelReference(const Image& image, Connectivity connectivity, Criterion criterion);
// The same with the neighbours of `neighbourhood` (any symmetric 3x3 or
// 3x3x3 block; whyNeighbourhoodDoesNotFit for its dimensions).
Labeling labelReference(const Image& image, const Neighbourhood& neighbourhood, Criterion criterion);

// What the reference takes (the reference backend's declaration): host
// memory (a GL texture by a download), every sample width, criterion,
// connectivity, neighbourhood and dimension, any extent.
EngineCapabilities referenceCapabilities();

namespace detail {
// labelReference with the 64-bit forest (`wideIndices`) or the 32-bit one,
// whatever the size: the tests run the 64-bit one on small inputs.
Labeling labelReference(const Image& image, Connectivity connectivity, Criterion criterion, bool wideIndices);
Labeling labelReference(const Image& image, const Neighbourhood& neighbourhood, Criterion criterion,
                        bool wideIndices);
}  // namespace detail

}  // namespace glccl

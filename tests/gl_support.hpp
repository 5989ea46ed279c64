#pragma once
// Shared by the gl_* tests: headless contexts (llvmpipe in CI) and the
// comparison of a GPU labeling with the CPU reference.

#include <catch2/catch.hpp>

#include <map>
#include <memory>

#include "glccl/compare.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/reference.hpp"

namespace glccl::test {

// One offscreen labeler per GL version for the whole test process.
inline OffscreenLabeler& offscreen(int major = 4, int minor = 5) {
    static std::map<int, std::unique_ptr<OffscreenLabeler>> labelers;
    auto& labeler = labelers[major * 10 + minor];
    if (!labeler) {
        HeadlessContext::Options options;
        options.major = major;
        options.minor = minor;
        labeler = std::make_unique<OffscreenLabeler>(options);
    }
    return *labeler;
}

inline std::string describeCase(const Image& image, Connectivity connectivity, const Criterion& criterion) {
    return std::to_string(image.width) + "x" + std::to_string(image.height) + "x" + std::to_string(image.channels) +
           " connectivity " + std::to_string(int(connectivity)) + " " + criterion.toString();
}

// Labels with the raster pipeline and requires the exact reference result.
inline void requireMatchesReference(OffscreenLabeler& labeler, const Image& image, Connectivity connectivity,
                                    const Criterion& criterion, const std::string& name = "") {
    const Labeling expected = labelReference(image, connectivity, criterion);
    const Labeling actual = labeler.label(image, connectivity, criterion);
    const Comparison comparison = compareLabelings(expected, actual);
    INFO(name << " " << describeCase(image, connectivity, criterion) << ": " << comparison.describe());
    REQUIRE(comparison.identical());
}

}  // namespace glccl::test

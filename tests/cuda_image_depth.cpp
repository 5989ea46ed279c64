// The CUDA path's host-image entries refuse what they cannot label, before
// any CUDA call (so these run without a GPU too): images of 16- or 32-bit
// samples, and binary with a level (the kernels treat binary as nonzero).
// Either would otherwise be a silently wrong answer: a 16-bit image read as
// bytes, a level ignored. Then, on a GPU, the 8-bit image the refusal leaves
// room for still matches the reference after a refused call.

#include <catch2/catch.hpp>

#include <string>

#include "cuda_support.hpp"
#include "glccl/compare.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/reference.hpp"

using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;

namespace {

// The error labelImage() gives, or "no error".
std::string labelImageError(const Image& image, Criterion criterion) {
    try {
        glccl::cuda::labelImage(image, Connectivity::Eight, criterion);
    } catch (const glccl::Error& error) {
        return error.what();
    }
    return "no error";
}

// A consistent image of `sampleBits`-bit samples with foreground and background.
Image deepImage(int width, int height, int channels, int sampleBits) {
    Image image(width, height, channels, sampleBits);
    for (std::size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = std::uint8_t(i % 3 == 0 ? 0 : 200);
    return image;
}

}  // namespace

TEST_CASE("cuda: labelImage refuses 16- and 32-bit images, naming the sample bits and the backends that take it",
          "[cuda][depth]") {
    const std::string entry = "glccl::cuda::labelImage(): ";
    for (int sampleBits : {16, 32}) {
        INFO(sampleBits << "-bit");
        const std::string bitsText = std::to_string(sampleBits) + "-bit samples";
        CHECK_THAT(labelImageError(deepImage(7, 5, 1, sampleBits), Criterion::binary()),
                   Catch::StartsWith(entry) && Catch::Contains(bitsText) && Catch::Contains("8-bit") &&
                       Catch::Contains("compute, raster or cpu"));
        CHECK_THAT(labelImageError(deepImage(7, 5, 1, sampleBits), Criterion::segments()),
                   Catch::StartsWith(entry) && Catch::Contains(bitsText));
        CHECK_THAT(labelImageError(deepImage(1, 1, 1, sampleBits), Criterion::binary()),
                   Catch::StartsWith(entry) && Catch::Contains(bitsText));
    }
    CHECK_THAT(labelImageError(deepImage(6, 2, 4, 16), Criterion::thresholded(3)),
               Catch::StartsWith(entry) && Catch::Contains("16-bit samples"));

    glccl::cuda::ImageLabeler labeler;
    glccl::Labeling result;
    try {
        labeler.label(deepImage(9, 9, 1, 16), Connectivity::Four, Criterion::binary(), result);
        FAIL("a 16-bit image was labeled");
    } catch (const glccl::Error& error) {
        CHECK_THAT(std::string(error.what()),
                   Catch::StartsWith("glccl::cuda::ImageLabeler::label(): ") && Catch::Contains("16-bit samples"));
    }
}

TEST_CASE("cuda: labelImage refuses binary with a level, naming the criterion", "[cuda][depth]") {
    const Image image = glccl::randomImage(11, 7, 0.5, 2, 1, 5);
    CHECK_THAT(labelImageError(image, Criterion::binaryAbove(100)),
               Catch::StartsWith("glccl::cuda::labelImage(): ") && Catch::Contains("binary:100") &&
                   Catch::Contains("compute, raster or cpu"));
}

TEST_CASE("cuda: an 8-bit image after a refused deeper one matches the reference", "[cuda][depth]") {
    glccl::test::requireCudaOrSkip();
    glccl::cuda::ImageLabeler labeler;
    glccl::Labeling result;
    CHECK_THROWS_AS(labeler.label(deepImage(33, 17, 1, 32), Connectivity::Eight, Criterion::binary(), result),
                    glccl::Error);
    const Image image = glccl::randomImage(33, 17, 0.45, 2, 1, 9);
    labeler.label(image, Connectivity::Eight, Criterion::binary(), result);
    const glccl::Labeling expected = glccl::labelReference(image, Connectivity::Eight, Criterion::binary());
    const glccl::Comparison comparison = glccl::compareLabelings(expected, result);
    INFO(comparison.describe());
    CHECK(comparison.identical());
}

// sampleRunsPerElement, what auto's host-memory rule reads of an image,
// against the reference: the runs of a row are the components of that row
// labeled alone (a one-row image at 4-connectivity).

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>

#include "glccl/capabilities.hpp"
#include "glccl/reference.hpp"

using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;

namespace {

Image randomImage(int width, int height, int sampleBits, std::uint64_t largest, std::mt19937_64& random) {
    Image image(width, height, 1, sampleBits);
    std::uniform_int_distribution<std::uint64_t> value(0, largest);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) image.setSample(x, y, 0, value(random) % 3 == 0 ? 0 : value(random));
    return image;
}

// The runs of every row, each row labeled alone by the reference.
std::uint64_t rowComponents(const Image& image, const Criterion& criterion) {
    std::uint64_t runs = 0;
    for (int y = 0; y < image.height; ++y) {
        Image row(image.width, 1, 1, image.sampleBits);
        for (int x = 0; x < image.width; ++x) row.setSample(x, 0, 0, image.sample(x, y, 0));
        runs += glccl::labelReference(row, Connectivity::Four, criterion).components.size();
    }
    return runs;
}

}  // namespace

TEST_CASE("run sample: every row of a short, narrow image is read, and its runs are the rows' components",
          "[host]") {
    std::mt19937_64 random(7);
    for (int sampleBits : {8, 16, 32, 64}) {
        const std::uint64_t largest = sampleBits == 8 ? 6 : 1000;
        for (const Criterion& criterion : {Criterion::binary(), Criterion::binaryAbove(3), Criterion::segments(),
                                           Criterion::withinDelta(2), Criterion::thresholded(2)}) {
            for (int trial = 0; trial < 5; ++trial) {
                const int width = 1 + int(random() % glccl::kRunSampleWidth);
                const int height = 1 + int(random() % glccl::kRunSampleRows);
                const Image image = randomImage(width, height, sampleBits, largest, random);
                INFO(sampleBits << "-bit " << criterion.toString() << " " << width << "x" << height);
                const double expected = double(rowComponents(image, criterion)) / double(width * height);
                CHECK(glccl::sampleRunsPerElement(image, criterion) == Approx(expected));
            }
        }
    }
}

TEST_CASE("run sample: a tall, wide image or a volume is read in rows and windows spread over all of it",
          "[host]") {
    // Runs only in the first half of the rows (of all slices), and only in
    // the left half of each row: windows spread over rows and width read as
    // many of each half, so the estimate is a quarter of the pattern's runs
    // per element; a sample from one corner would read all of it or none.
    const int width = 8 * glccl::kRunSampleWidth;
    for (const glccl::Shape& shape : {glccl::Shape::image(width, 2 * glccl::kRunSampleRows * 5),
                                      glccl::Shape::volume(width, 10, 2 * glccl::kRunSampleRows)}) {
        Image image(shape, 1, 8);
        const std::int64_t rows = std::int64_t(shape.height) * shape.depth;
        for (std::int64_t row = 0; row < rows / 2; ++row)
            for (int x = 0; x < width / 2; x += 4) image.setSample(std::size_t(row) * width + x, 0, 255);
        INFO(shape.width << "x" << shape.height << "x" << shape.depth);
        CHECK(glccl::sampleRunsPerElement(image, Criterion::binary()) == Approx(0.25 * 0.25).epsilon(0.02));
    }
}

// The delta criterion and 64-bit samples on the reference, against a flood
// fill written here from the contract alone (its own criterion test, its own
// neighbourhoods, its own numbering), in 2-D and 3-D.

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/reference.hpp"
#include "sample_support.hpp"

using Catch::Matchers::Contains;
using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;
using glccl::Shape;

namespace {

// The contract's criteria on one gray sample: binary is above the level,
// segments equal and nonzero, threshold within T (every element
// foreground), delta within D and both nonzero.
bool foreground(std::uint64_t v, const Criterion& criterion) {
    switch (criterion.kind) {
        case Criterion::Kind::Binary: return v > std::uint64_t(criterion.level);
        case Criterion::Kind::Threshold: return true;
        case Criterion::Kind::Segments:
        case Criterion::Kind::Delta: return v != 0;
    }
    return false;
}

bool joined(std::uint64_t a, std::uint64_t b, const Criterion& criterion) {
    if (!foreground(a, criterion) || !foreground(b, criterion)) return false;
    const std::uint64_t difference = a > b ? a - b : b - a;
    switch (criterion.kind) {
        case Criterion::Kind::Binary: return true;
        case Criterion::Kind::Segments: return a == b;
        case Criterion::Kind::Threshold: return difference <= std::uint64_t(criterion.threshold);
        case Criterion::Kind::Delta: return difference <= std::uint64_t(criterion.delta);
    }
    return false;
}

// Every offset of the neighbourhood: those whose coordinates differ by at
// most `reach` in sum (4 and 6: 1; 18: 2; 8 and 26: all).
std::vector<std::array<int, 3>> steps(Connectivity connectivity) {
    const bool volume = connectivity == Connectivity::Six || connectivity == Connectivity::Eighteen ||
                        connectivity == Connectivity::TwentySix;
    const int reach = connectivity == Connectivity::Four || connectivity == Connectivity::Six ? 1
                      : connectivity == Connectivity::Eighteen                                   ? 2
                                                                                                 : 3;
    std::vector<std::array<int, 3>> out;
    for (int dz = volume ? -1 : 0; dz <= (volume ? 1 : 0); ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int moved = (dx != 0) + (dy != 0) + (dz != 0);
                if (moved > 0 && moved <= reach) out.push_back({dx, dy, dz});
            }
    return out;
}

std::vector<std::uint32_t> floodFill(const Image& image, Connectivity connectivity, const Criterion& criterion) {
    const int w = image.width, h = image.height, d = image.depth;
    const auto index = [&](int x, int y, int z) { return (std::size_t(z) * h + y) * w + x; };
    std::vector<std::uint32_t> labels(image.shape().count(), 0);
    const auto neighbourhood = steps(connectivity);
    std::uint32_t count = 0;
    for (int sz = 0; sz < d; ++sz)
        for (int sy = 0; sy < h; ++sy)
            for (int sx = 0; sx < w; ++sx) {
                if (labels[index(sx, sy, sz)] != 0 || !foreground(image.sampleAt(sx, sy, sz), criterion)) continue;
                labels[index(sx, sy, sz)] = ++count;
                std::deque<std::array<int, 3>> queue = {{sx, sy, sz}};
                while (!queue.empty()) {
                    const auto [x, y, z] = queue.front();
                    queue.pop_front();
                    for (const auto& [dx, dy, dz] : neighbourhood) {
                        const int nx = x + dx, ny = y + dy, nz = z + dz;
                        if (nx < 0 || ny < 0 || nz < 0 || nx >= w || ny >= h || nz >= d) continue;
                        if (labels[index(nx, ny, nz)] != 0) continue;
                        if (!joined(image.sampleAt(x, y, z), image.sampleAt(nx, ny, nz), criterion)) continue;
                        labels[index(nx, ny, nz)] = count;
                        queue.push_back({nx, ny, nz});
                    }
                }
            }
    return labels;
}

// Values near a few centres (0, 1, 2^32 + 1 whose low half is 1, 2^63, the
// largest), spread by -2..2: equal, close and far neighbours, low halves that
// collide across 2^32, for samples of `sampleBits` (centres reduced to it).
Image clusteredSamples(const Shape& shape, int sampleBits, std::uint64_t seed) {
    return glccl::test::samplesNearCentres(
        shape, sampleBits, seed, 1,
        {0, 0, 1, (std::uint64_t(1) << 32) + 1, std::uint64_t(1) << 63, Image::largestSample(64)}, 2);
}

}  // namespace

TEST_CASE("criteria: delta parses, prints and is checked against the sample bits", "[host]") {
    CHECK(Criterion::parse("delta:0") == Criterion::withinDelta(0));
    CHECK(Criterion::parse("delta:7").toString() == "delta:7");
    CHECK(Criterion::parse("delta:4294967295") == Criterion::withinDelta(4294967295ll));
    for (const char* bad : {"delta", "delta:", "delta:-1", "delta:4294967296", "delta:1.5", "delta:+2"})
        CHECK_THROWS_WITH(Criterion::parse(bad), Contains("glccl::Criterion::parse()"));
    CHECK_THROWS_WITH(Criterion::parse("nothing"), Contains("\"delta:D\""));
    CHECK(Criterion::withinDelta(255).problemForSampleBits(8).empty());
    CHECK_THAT(Criterion::withinDelta(256).problemForSampleBits(8), Contains("the delta 256 is outside 0..255"));
    CHECK(Criterion::withinDelta(4294967295ll).problemForSampleBits(64).empty());
    CHECK(Criterion::thresholded(4294967295ll).problemForSampleBits(64).empty());
    CHECK_THAT(Criterion::binaryAbove(4294967296ll).problemForSampleBits(64),
               Contains("outside 0..4294967295, the numbers a criterion takes"));
    CHECK_THROWS_WITH(glccl::labelReference(Image(2, 2, 4, 8), Connectivity::Four, Criterion::withinDelta(1)),
                      Contains("glccl::labelReference()") && Contains("1-channel"));
}

TEST_CASE("criteria: 64-bit samples keep their full values", "[host]") {
    Image image(Shape::image(4, 1), 1, 64);
    const std::uint64_t values[] = {1, (std::uint64_t(1) << 32) + 1, ~std::uint64_t(0), ~std::uint64_t(0) - 3};
    for (std::size_t i = 0; i < 4; ++i) image.setSample(i, 0, values[i]);
    for (std::size_t i = 0; i < 4; ++i) CHECK(image.sample(i) == values[i]);
    CHECK(image.maxValue() == ~std::uint64_t(0));
    CHECK(image.isConsistent());
    // 1 and 2^32 + 1 share their low 32 bits: different segments, far apart.
    CHECK(glccl::labelReference(image, Connectivity::Four, Criterion::segments()).count() == 4);
    CHECK(glccl::labelReference(image, Connectivity::Four, Criterion::withinDelta(0)).count() == 4);
    CHECK(glccl::labelReference(image, Connectivity::Four, Criterion::withinDelta(3)).count() == 3);
    CHECK(glccl::labelReference(image, Connectivity::Four, Criterion::thresholded(4294967295ll)).count() == 3);
    CHECK(glccl::labelReference(image, Connectivity::Four, Criterion::binary()).count() == 1);
    CHECK(glccl::labelReference(image, Connectivity::Four, Criterion::binaryAbove(1)).count() == 1);
    CHECK(glccl::labelReference(image, Connectivity::Four, Criterion::binaryAbove(4294967295ll)).labels ==
          std::vector<std::uint32_t>{0, 1, 1, 1});
}

TEST_CASE("criteria: delta keeps 0 as background and joins values within D", "[host]") {
    Image image(Shape::image(6, 1), 1, 16);
    const std::uint64_t values[] = {3, 0, 1, 2, 5, 9};
    for (std::size_t i = 0; i < 6; ++i) image.setSample(i, 0, values[i]);
    const auto labels = [&](const Criterion& criterion) {
        return glccl::labelReference(image, Connectivity::Four, criterion).labels;
    };
    CHECK(labels(Criterion::withinDelta(0)) == std::vector<std::uint32_t>{1, 0, 2, 3, 4, 5});
    CHECK(labels(Criterion::withinDelta(1)) == std::vector<std::uint32_t>{1, 0, 2, 2, 3, 4});
    CHECK(labels(Criterion::withinDelta(3)) == std::vector<std::uint32_t>{1, 0, 2, 2, 2, 3});
    CHECK(labels(Criterion::withinDelta(4)) == std::vector<std::uint32_t>{1, 0, 2, 2, 2, 2});
    // delta:0 is segments.
    CHECK(labels(Criterion::withinDelta(0)) == labels(Criterion::segments()));
    // Threshold has no background: the 0 joins its neighbours.
    CHECK(labels(Criterion::thresholded(3)) == std::vector<std::uint32_t>{1, 1, 1, 1, 1, 2});
}

TEST_CASE("criteria: the reference equals a flood fill for every criterion at 8 to 64 bits, 2-D and 3-D", "[host]") {
    std::uint64_t seed = 7;
    for (int sampleBits : {8, 16, 32, 64}) {
        const std::int64_t top = std::int64_t(std::min<std::uint64_t>(Image::largestSample(sampleBits), 0xFFFFFFFFu));
        const Criterion criteria[] = {Criterion::binary(),        Criterion::binaryAbove(1),
                                      Criterion::binaryAbove(top), Criterion::segments(),
                                      Criterion::thresholded(0),  Criterion::thresholded(2),
                                      Criterion::thresholded(top), Criterion::withinDelta(0),
                                      Criterion::withinDelta(1),  Criterion::withinDelta(3),
                                      Criterion::withinDelta(top)};
        for (const Criterion& criterion : criteria) {
            for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
                for (auto [w, h] : {std::pair{1, 1}, {1, 17}, {23, 1}, {19, 13}, {48, 40}}) {
                    INFO(sampleBits << "-bit " << criterion.toString() << " " << int(connectivity) << " " << w << "x"
                                    << h);
                    const Image image = clusteredSamples(Shape::image(w, h), sampleBits, seed++);
                    CHECK(glccl::labelReference(image, connectivity, criterion).labels ==
                          floodFill(image, connectivity, criterion));
                }
            for (Connectivity connectivity : {Connectivity::Six, Connectivity::Eighteen, Connectivity::TwentySix})
                for (const Shape& shape : {Shape::volume(1, 1, 9), Shape::volume(7, 5, 1), Shape::volume(11, 9, 7)}) {
                    INFO(sampleBits << "-bit " << criterion.toString() << " " << int(connectivity) << " "
                                    << shape.width << "x" << shape.height << "x" << shape.depth);
                    const Image image = clusteredSamples(shape, sampleBits, seed++);
                    CHECK(glccl::labelReference(image, connectivity, criterion).labels ==
                          floodFill(image, connectivity, criterion));
                }
        }
    }
}

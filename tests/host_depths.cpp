// The CPU reference at every sample sampleBits (8, 16, 32 bits) and the criteria
// in the samples' units: binary (nonzero), binary:L (above L), segments
// (full values equal) and threshold:T. Checked against a flood fill written
// here from the definitions (breadth-first, numbering components in raster
// order of their first pixel), independent of the union-find under test.

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/reference.hpp"
#include "sample_support.hpp"

using Catch::Matchers::Contains;
using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;

namespace {

// The criterion from its definition, on the values of pixels p and q.
bool foreground(const Image& image, std::size_t p, const Criterion& criterion) {
    if (criterion.kind == Criterion::Kind::Threshold) return true;
    const std::int64_t level = criterion.kind == Criterion::Kind::Binary ? criterion.level : 0;
    for (int c = 0; c < image.channels; ++c)
        if (std::int64_t(image.sample(p, c)) > level) return true;
    return false;
}

bool joined(const Image& image, std::size_t p, std::size_t q, const Criterion& criterion) {
    if (!foreground(image, p, criterion) || !foreground(image, q, criterion)) return false;
    for (int c = 0; c < image.channels; ++c) {
        const std::int64_t a = image.sample(p, c), b = image.sample(q, c);
        if (criterion.kind == Criterion::Kind::Segments && a != b) return false;
        if (criterion.kind == Criterion::Kind::Threshold && std::llabs(a - b) > criterion.threshold) return false;
    }
    return true;
}

std::vector<std::uint32_t> floodFill(const Image& image, Connectivity connectivity, const Criterion& criterion) {
    const int w = image.width, h = image.height;
    std::vector<std::uint32_t> labels(std::size_t(w) * h, 0);
    std::uint32_t next = 0;
    for (int y0 = 0; y0 < h; ++y0)
        for (int x0 = 0; x0 < w; ++x0) {
            const std::size_t start = std::size_t(y0) * w + x0;
            if (labels[start] != 0 || !foreground(image, start, criterion)) continue;
            labels[start] = ++next;
            std::deque<std::pair<int, int>> queue{{x0, y0}};
            while (!queue.empty()) {
                const auto [x, y] = queue.front();
                queue.pop_front();
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        if ((dx == 0 && dy == 0) || (connectivity == Connectivity::Four && dx != 0 && dy != 0)) continue;
                        const int nx = x + dx, ny = y + dy;
                        if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                        const std::size_t p = std::size_t(y) * w + x, q = std::size_t(ny) * w + nx;
                        if (labels[q] != 0 || !joined(image, p, q, criterion)) continue;
                        labels[q] = next;
                        queue.push_back({nx, ny});
                    }
            }
        }
    return labels;
}

// Values drawn from a few clusters spread over the sampleBits's whole range, so
// that equal, nearly equal and far values all occur, across byte boundaries.
Image randomImage(int w, int h, int channels, int sampleBits, std::uint64_t seed) {
    Image image(w, h, channels, sampleBits);
    glccl::test::XorShift random(seed, 7);
    const std::uint64_t top = sampleBits == 32 ? 0xFFFFFFFFull : (1ull << sampleBits) - 1;
    const std::uint64_t centres[4] = {0, top / 3, top / 2 + 1, top};
    for (std::size_t i = 0; i < std::size_t(w) * h; ++i)
        for (int c = 0; c < channels; ++c) {
            const std::uint64_t centre = centres[random.next() % 4];
            const std::int64_t offset = std::int64_t(random.next() % 5) - 2;
            const std::int64_t v = std::clamp<std::int64_t>(std::int64_t(centre) + offset, 0, std::int64_t(top));
            image.setSample(i, c, std::uint32_t(v));
        }
    return image;
}

}  // namespace

TEST_CASE("depths: 16-bit segment ids past 255 and binary levels past 255", "[host]") {
    // 6x4: segment id 256 on the left half, 257 on the right.
    Image ids(6, 4, 1, 16);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 6; ++x) ids.setSample(x, y, 0, x < 3 ? 256 : 257);
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        CHECK(glccl::labelReference(ids, connectivity, Criterion::segments()).count() == 2);
        CHECK(glccl::labelReference(ids, connectivity, Criterion::binary()).count() == 1);
    }
    // A mask of 1, 2 and 300 in separate blobs: three components, as
    // skimage.measure.label counts them (values 1..255 are foreground).
    Image mask(7, 3, 1, 16);
    mask.setSample(0, 0, 0, 1);
    mask.setSample(3, 1, 0, 2);
    mask.setSample(6, 2, 0, 300);
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
        CHECK(glccl::labelReference(mask, connectivity, Criterion::binary()).count() == 3);
    CHECK(glccl::labelReference(mask, Connectivity::Eight, Criterion::binaryAbove(1)).count() == 2);
    CHECK(glccl::labelReference(mask, Connectivity::Eight, Criterion::binaryAbove(2)).count() == 1);
    CHECK(glccl::labelReference(mask, Connectivity::Eight, Criterion::binaryAbove(300)).count() == 0);
}

TEST_CASE("depths: the reference equals a flood fill at 8, 16 and 32 bits for every criterion", "[host]") {
    std::uint64_t seed = 1;
    for (int sampleBits : {8, 16, 32}) {
        const std::int64_t top = sampleBits == 32 ? 0xFFFFFFFFll : (1ll << sampleBits) - 1;
        const Criterion criteria[] = {Criterion::binary(), Criterion::binaryAbove(top / 3),
                                      Criterion::binaryAbove(top - 1), Criterion::segments(),
                                      Criterion::thresholded(0), Criterion::thresholded(2),
                                      Criterion::thresholded(top / 2)};
        for (const Criterion& criterion : criteria)
            for (int channels : {1, 4}) {
                if (channels == 4 && (criterion.kind != Criterion::Kind::Threshold || sampleBits == 32)) continue;
                for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
                    for (auto [w, h] : {std::pair{1, 1}, {1, 17}, {23, 1}, {19, 13}, {64, 40}}) {
                        INFO(sampleBits << "-bit, " << channels << " channels, " << criterion.toString() << ", "
                                   << int(connectivity) << "-connectivity, " << w << "x" << h);
                        const Image image = randomImage(w, h, channels, sampleBits, seed++);
                        CHECK(glccl::labelReference(image, connectivity, criterion).labels ==
                              floodFill(image, connectivity, criterion));
                    }
            }
    }
}

TEST_CASE("depths: criteria parse, print, and are checked against the sample bits", "[host]") {
    CHECK(Criterion::parse("binary") == Criterion::binary());
    CHECK(Criterion::parse("binary:0") == Criterion::binary());
    CHECK(Criterion::parse("binary:127") == Criterion::binaryAbove(127));
    CHECK(Criterion::parse("binary:127").toString() == "binary:127");
    CHECK(Criterion::parse("threshold:4294967295") == Criterion::thresholded(4294967295ll));
    CHECK(Criterion::parse("threshold:300").toString() == "threshold:300");
    for (const char* bad : {"binary:", "binary:-1", "binary:4294967296", "threshold:x", "threshold:+3",
                            "threshold:12345678901", "segments:2"})
        CHECK_THROWS_WITH(Criterion::parse(bad), Contains("glccl::Criterion::parse()"));

    CHECK(Criterion::thresholded(255).problemForSampleBits(8).empty());
    CHECK_THAT(Criterion::thresholded(256).problemForSampleBits(8), Contains("0..255"));
    CHECK(Criterion::thresholded(65535).problemForSampleBits(16).empty());
    CHECK_THAT(Criterion::binaryAbove(65536).problemForSampleBits(16), Contains("0..65535"));
    CHECK(Criterion::binaryAbove(4294967295ll).problemForSampleBits(32).empty());
    CHECK_THROWS_WITH(glccl::labelReference(Image(2, 2), Connectivity::Eight, Criterion::thresholded(300)),
                      Contains("glccl::labelReference()") && Contains("8-bit"));
}

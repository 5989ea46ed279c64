// 16- and 32-bit inputs on every GL backend and on the cpu backend (through
// the texture, as the command line runs it), against the CPU reference:
// full sample values compared, binary:L, thresholds in the samples' units,
// values that a float would merge (2^24 + 1 and up). Uploads keep every
// value (GL_R16, GL_RGBA16, GL_R32UI).

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "gl_support.hpp"
#include "glccl/error.hpp"
#include "glccl/texture.hpp"
#include "sample_support.hpp"

using namespace glccl;
using Catch::Matchers::Contains;
using glccl::test::labelWith;
using glccl::test::offscreen;
using glccl::test::session;

namespace {

constexpr Backend kBackends[] = {Backend::Cpu, Backend::Raster, Backend::Compute};
constexpr Connectivity kBoth[] = {Connectivity::Four, Connectivity::Eight};

void requireMatchesReference(const Image& image, Connectivity connectivity, const Criterion& criterion) {
    const Labeling expected = labelReference(image, connectivity, criterion);
    for (Backend backend : kBackends) {
        const Comparison comparison = compareLabelings(expected, labelWith(backend, image, connectivity, criterion));
        INFO(backendName(backend) << " " << image.sampleBits << "-bit " << glccl::test::describeCase(image, connectivity, criterion)
                                  << ": " << comparison.describe());
        REQUIRE(comparison.identical());
    }
}

// Values from a few clusters over the sampleBits's range (equal, close and far
// values, across byte boundaries); `hole` of them background.
Image clusteredImage(int w, int h, int channels, int sampleBits, std::uint64_t seed) {
    Image image(w, h, channels, sampleBits);
    glccl::test::XorShift random(seed, 3);
    const std::uint64_t top = sampleBits == 32 ? 0xFFFFFFFFull : (1ull << sampleBits) - 1;
    const std::uint64_t centres[5] = {0, 255, 256, top / 2 + 1, top};
    for (std::size_t i = 0; i < std::size_t(w) * h; ++i)
        for (int c = 0; c < channels; ++c) {
            const std::int64_t v = std::int64_t(centres[random.next() % 5]) + std::int64_t(random.next() % 3) - 1;
            image.setSample(i, c, std::uint32_t(std::clamp<std::int64_t>(v, 0, std::int64_t(top))));
        }
    return image;
}

}  // namespace

TEST_CASE("depths: 16-bit segment ids past 255 and binary levels past 255 on cpu, raster and compute", "[gl]") {
    Image ids(6, 4, 1, 16);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 6; ++x) ids.setSample(x, y, 0, x < 3 ? 256 : 257);
    Image mask(7, 3, 1, 16);
    mask.setSample(0, 0, 0, 1);
    mask.setSample(3, 1, 0, 2);
    mask.setSample(6, 2, 0, 300);
    for (Backend backend : kBackends)
        for (Connectivity connectivity : kBoth) {
            INFO(backendName(backend) << ", " << int(connectivity) << "-connectivity");
            CHECK(labelWith(backend, ids, connectivity, Criterion::segments()).count() == 2);
            CHECK(labelWith(backend, mask, connectivity, Criterion::binary()).count() == 3);
            CHECK(labelWith(backend, mask, connectivity, Criterion::binaryAbove(2)).count() == 1);
        }
}

TEST_CASE("depths: 32-bit values a float would merge stay apart on every backend", "[gl]") {
    // 2^24 and 2^24 + 1 are one float; 2^32 - 1 and 2^32 - 2 too.
    Image image(4, 2, 1, 32);
    const std::uint32_t values[8] = {16777216u, 16777217u, 16777217u, 0xFFFFFFFEu,
                                     16777216u, 16777217u, 0xFFFFFFFFu, 0xFFFFFFFEu};
    for (int i = 0; i < 8; ++i) image.setSample(std::size_t(i), 0, values[i]);
    for (Connectivity connectivity : kBoth) {
        requireMatchesReference(image, connectivity, Criterion::segments());
        requireMatchesReference(image, connectivity, Criterion::thresholded(0));
        requireMatchesReference(image, connectivity, Criterion::thresholded(1));
        requireMatchesReference(image, connectivity, Criterion::binaryAbove(16777216));
        requireMatchesReference(image, connectivity, Criterion::binaryAbove(0xFFFFFFFEll));
    }
    CHECK(labelReference(image, Connectivity::Four, Criterion::segments()).count() == 4);
}

TEST_CASE("depths: random 16- and 32-bit images, every criterion, match the reference", "[gl]") {
    std::uint64_t seed = 5;
    for (int sampleBits : {16, 32}) {
        const std::int64_t top = sampleBits == 32 ? 0xFFFFFFFFll : 65535;
        for (auto [w, h] : {std::pair{1, 1}, {1, 33}, {47, 1}, {61, 37}, {130, 67}})
            for (Connectivity connectivity : kBoth)
                for (const Criterion& criterion :
                     {Criterion::binary(), Criterion::binaryAbove(255), Criterion::binaryAbove(top / 2),
                      Criterion::segments(), Criterion::thresholded(1), Criterion::thresholded(256)})
                    requireMatchesReference(clusteredImage(w, h, 1, sampleBits, seed++), connectivity, criterion);
    }
    // 16-bit color (GL_RGBA16) under threshold.
    for (Connectivity connectivity : kBoth)
        for (std::int64_t t : {0, 1, 300})
            requireMatchesReference(clusteredImage(45, 31, 4, 16, seed++), connectivity, Criterion::thresholded(t));
}

TEST_CASE("depths: an ImageTexture keeps every sample and says its format", "[gl]") {
    offscreen().makeCurrent();
    const struct {
        int channels, sampleBits;
        unsigned format;
    } layouts[] = {{1, 8, 0x8229 /* GL_R8 */},    {4, 8, 0x8058 /* GL_RGBA8 */}, {1, 16, 0x822A /* GL_R16 */},
                   {4, 16, 0x805B /* GL_RGBA16 */}, {1, 32, 0x8236 /* GL_R32UI */}};
    for (const auto& layout : layouts) {
        const Image image = clusteredImage(19, 7, layout.channels, layout.sampleBits, 99);
        const ImageTexture texture(image);
        CHECK(texture.sampleBits() == layout.sampleBits);
        CHECK(texture.internalFormat() == layout.format);
        const Image back = texture.download();
        CHECK(back.sampleBits == image.sampleBits);
        CHECK(back.pixels == image.pixels);
    }
    CHECK_THROWS_WITH(ImageTexture(Image(2, 2, 4, 32)), Contains("32-bit color"));
}

TEST_CASE("depths: a threshold or level beyond the samples' range is an error on the GPU too", "[gl]") {
    for (Backend backend : {Backend::Raster, Backend::Compute, Backend::Cpu}) {
        INFO(backendName(backend));
        CHECK_THROWS_WITH(labelWith(backend, Image(3, 3), Connectivity::Eight, Criterion::thresholded(256)),
                          Contains("0..255"));
        CHECK_THROWS_WITH(labelWith(backend, Image(3, 3, 1, 16), Connectivity::Eight, Criterion::binaryAbove(70000)),
                          Contains("0..65535"));
    }
}

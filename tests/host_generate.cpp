// Generated image families: shape of the output, determinism, and the
// property each family is meant to have.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/reference.hpp"

using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;

namespace {

const std::vector<std::string> kRandomFamilies = {"noise10", "noise50", "noise90", "granularity4",
                                                  "granularity16", "large", "dense_disks", "sparse_disks"};

double foregroundFraction(const Image& image) {
    const auto on = std::count(image.pixels.begin(), image.pixels.end(), std::uint8_t(255));
    return double(on) / double(image.pixels.size());
}

std::size_t components(const Image& image, Connectivity connectivity) {
    return glccl::labelReference(image, connectivity, Criterion::binary()).count();
}

int fourNeighbours(const Image& image, int x, int y) {
    int n = 0;
    if (x > 0 && image.at(x - 1, y)) ++n;
    if (y > 0 && image.at(x, y - 1)) ++n;
    if (x + 1 < image.width && image.at(x + 1, y)) ++n;
    if (y + 1 < image.height && image.at(x, y + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("generate: every family at odd sizes is binary, sized and deterministic", "[host]") {
    const std::vector<std::string> families = glccl::generatedFamilies();
    for (const std::string& family : families) {
        for (auto [w, h] : {std::pair{1, 1}, {1, 41}, {41, 1}, {37, 53}, {200, 150}}) {
            INFO(family << " " << w << "x" << h);
            const Image image = glccl::generateFamily(family, w, h, 11);
            REQUIRE(image.width == w);
            REQUIRE(image.height == h);
            REQUIRE(image.channels == 1);
            REQUIRE(image.pixels.size() == std::size_t(w) * h);
            CHECK(std::all_of(image.pixels.begin(), image.pixels.end(), [](std::uint8_t v) { return v == 0 || v == 255; }));
            CHECK(glccl::generateFamily(family, w, h, 11).pixels == image.pixels);
        }
    }
}

TEST_CASE("generate: random families depend on the seed", "[host]") {
    for (const std::string& family : kRandomFamilies) {
        INFO(family);
        const Image a = glccl::generateFamily(family, 200, 150, 1);
        const Image b = glccl::generateFamily(family, 200, 150, 2);
        CHECK(a.pixels != b.pixels);
    }
    // The others are fixed patterns.
    for (const char* family : {"corridor", "spiral", "comb", "rings", "staircase", "checkerboard"}) {
        INFO(family);
        CHECK(glccl::generateFamily(family, 64, 48, 1).pixels == glccl::generateFamily(family, 64, 48, 99).pixels);
    }
}

TEST_CASE("generate: the family list", "[host]") {
    const std::vector<std::string> families = glccl::generatedFamilies();
    for (const char* name : {"noise10", "noise50", "noise90", "granularity4", "large", "dense_disks", "sparse_disks",
                             "corridor", "spiral", "comb", "rings", "staircase", "checkerboard", "zeros", "ones"}) {
        CHECK(std::find(families.begin(), families.end(), name) != families.end());
    }
    CHECK(std::set<std::string>(families.begin(), families.end()).size() == families.size());
}

TEST_CASE("generate: unknown names and bad sizes throw", "[host]") {
    using Catch::Matchers::Contains;
    using Catch::Matchers::StartsWith;
    for (const char* bad : {"", "noise", "noise101", "noise-1", "noise5x", "Noise50", "granularity0",
                            "granularity17", "granularity", "spirals", "disks", "noise0050"}) {
        INFO("'" << bad << "'");
        CHECK_THROWS_WITH(glccl::generateFamily(bad, 8, 8),
                          StartsWith("glccl::generateFamily(): ") && Contains("unknown family") &&
                              Contains("spiral") && Contains("checkerboard") && Contains("noise<"));
    }
    for (auto [w, h] : {std::pair{0, 5}, {5, 0}, {-1, 5}, {32769, 1}, {1, 32769}}) {
        CHECK_THROWS_WITH(glccl::generateFamily("zeros", w, h),
                          StartsWith("glccl::generateFamily(): ") && Contains("32768"));
    }
    CHECK_NOTHROW(glccl::generateFamily("noise0", 3, 3));
    CHECK_NOTHROW(glccl::generateFamily("noise100", 3, 3));
    CHECK_NOTHROW(glccl::generateFamily("granularity1", 3, 3));
    CHECK_NOTHROW(glccl::generateFamily("granularity16", 3, 3));
    CHECK_NOTHROW(glccl::generateFamily("ones", 32768, 1));
}

TEST_CASE("generate: fixed patterns", "[host]") {
    const Image zeros = glccl::generateFamily("zeros", 13, 7);
    CHECK(std::all_of(zeros.pixels.begin(), zeros.pixels.end(), [](std::uint8_t v) { return v == 0; }));
    const Image ones = glccl::generateFamily("ones", 13, 7);
    CHECK(std::all_of(ones.pixels.begin(), ones.pixels.end(), [](std::uint8_t v) { return v == 255; }));

    const Image board = glccl::generateFamily("checkerboard", 9, 6);
    for (int y = 0; y < 6; ++y) {
        for (int x = 0; x < 9; ++x) CHECK(board.at(x, y) == ((x + y) % 2 == 0 ? 255 : 0));
    }
    CHECK(components(board, Connectivity::Four) == 27);
    CHECK(components(board, Connectivity::Eight) == 1);
}

TEST_CASE("generate: noise and granularity densities", "[host]") {
    CHECK(foregroundFraction(glccl::generateFamily("noise0", 100, 100)) == 0.0);
    CHECK(foregroundFraction(glccl::generateFamily("noise100", 100, 100)) == 1.0);
    CHECK(foregroundFraction(glccl::generateFamily("noise10", 300, 200)) == Approx(0.10).margin(0.01));
    CHECK(foregroundFraction(glccl::generateFamily("noise50", 300, 200)) == Approx(0.50).margin(0.01));
    CHECK(foregroundFraction(glccl::generateFamily("noise90", 300, 200)) == Approx(0.90).margin(0.01));

    for (int g : {1, 3, 4, 16}) {
        INFO("granularity" << g);
        const Image image = glccl::generateFamily("granularity" + std::to_string(g), 301, 203, 3);
        CHECK(foregroundFraction(image) == Approx(0.5).margin(g <= 4 ? 0.03 : 0.08));
        // Every g x g block (clipped at the border) has one value.
        for (int y = 0; y < image.height; ++y) {
            for (int x = 0; x < image.width; ++x) {
                if (image.at(x, y) != image.at(x - x % g, y - y % g)) FAIL("(" << x << ", " << y << ") breaks its block");
            }
        }
    }
}

TEST_CASE("generate: corridor, spiral and comb are single long components", "[host]") {
    for (auto [w, h] : {std::pair{1, 1}, {2, 2}, {1, 30}, {30, 1}, {37, 53}, {64, 64}, {65, 64}, {200, 150}}) {
        INFO(w << "x" << h);
        for (const char* family : {"corridor", "spiral", "comb"}) {
            INFO(family);
            const Image image = glccl::generateFamily(family, w, h);
            CHECK(components(image, Connectivity::Four) == 1);
            CHECK(components(image, Connectivity::Eight) == 1);
            CHECK(foregroundFraction(image) >= 0.45);
        }
        // Corridor and spiral are paths: no pixel has more than two
        // foreground 4-neighbours, and at most two (the ends) have one.
        for (const char* family : {"corridor", "spiral"}) {
            INFO(family);
            const Image image = glccl::generateFamily(family, w, h);
            if (w * h < 3) continue;
            int ends = 0;
            for (int y = 0; y < h; ++y) {
                for (int x = 0; x < w; ++x) {
                    if (!image.at(x, y)) continue;
                    const int n = fourNeighbours(image, x, y);
                    CHECK(n <= 2);
                    if (n == 1) ++ends;
                }
            }
            CHECK(ends <= 2);
        }
    }
    // The spiral's first pixel is the corner, and the path is long: its
    // bounding box is the whole image.
    const Image s = glccl::generateFamily("spiral", 37, 53);
    const glccl::Labeling labeling = glccl::labelReference(s, Connectivity::Four, Criterion::binary());
    REQUIRE(labeling.count() == 1);
    CHECK(labeling.components[0].width == 37);
    CHECK(labeling.components[0].height == 53);
    // A comb has a spine on the bottom row and a tooth on every even column.
    const Image c = glccl::generateFamily("comb", 9, 5);
    for (int x = 0; x < 9; ++x) {
        CHECK(c.at(x, 4) == 255);
        CHECK(c.at(x, 0) == (x % 2 == 0 ? 255 : 0));
    }
}

TEST_CASE("generate: rings are concentric components", "[host]") {
    const Image image = glccl::generateFamily("rings", 200, 150);
    CHECK(image.at(100, 75) == 255);
    const std::size_t four = components(image, Connectivity::Four);
    const std::size_t eight = components(image, Connectivity::Eight);
    // A ring every four pixels from the centre to the farthest corner.
    CHECK(eight >= 20);
    CHECK(four >= eight);
    CHECK(foregroundFraction(image) == Approx(0.5).margin(0.05));
}

TEST_CASE("generate: staircases connect only diagonally", "[host]") {
    const Image image = glccl::generateFamily("staircase", 97, 61);
    const glccl::Labeling four = glccl::labelReference(image, Connectivity::Four, Criterion::binary());
    const glccl::Labeling eight = glccl::labelReference(image, Connectivity::Eight, Criterion::binary());
    // At 4-connectivity every component is a horizontal run.
    for (const glccl::Component& c : four.components) {
        CHECK(c.height == 1);
        CHECK(c.area == c.width);
    }
    // At 8-connectivity the runs chain into staircases spanning many rows.
    CHECK(eight.count() * 4 < four.count());
    const auto tallest = std::max_element(eight.components.begin(), eight.components.end(),
                                          [](const auto& a, const auto& b) { return a.height < b.height; });
    REQUIRE(tallest != eight.components.end());
    CHECK(tallest->height >= 20);
}

TEST_CASE("generate: disks and large objects", "[host]") {
    const Image dense = glccl::generateFamily("dense_disks", 1024, 512, 4);
    const Image sparse = glccl::generateFamily("sparse_disks", 1024, 512, 4);
    CHECK(foregroundFraction(dense) > foregroundFraction(sparse));
    CHECK(foregroundFraction(dense) > 0.2);
    CHECK(foregroundFraction(sparse) > 0.05);
    CHECK(foregroundFraction(sparse) < 0.4);
    // About 125 disks on half a tile: overlaps merge some of them.
    const std::size_t sparseCount = components(sparse, Connectivity::Eight);
    CHECK(sparseCount > 40);
    CHECK(sparseCount <= 125);

    for (std::uint64_t seed : {1, 2, 3}) {
        const Image large = glccl::generateFamily("large", 400, 300, seed);
        INFO("seed " << seed);
        CHECK(foregroundFraction(large) > 0.05);
        CHECK(foregroundFraction(large) < 0.95);
        CHECK(components(large, Connectivity::Eight) < 20);
    }
}

TEST_CASE("generate: randomImage", "[host]") {
    using Catch::Matchers::StartsWith;
    for (int levels : {2, 3, 5, 256}) {
        for (int channels : {1, 4}) {
            INFO(levels << " levels, " << channels << " channels");
            const Image image = glccl::randomImage(53, 37, 0.6, levels, channels, 8);
            REQUIRE(image.width == 53);
            REQUIRE(image.height == 37);
            REQUIRE(image.channels == channels);
            REQUIRE(image.pixels.size() == std::size_t(53) * 37 * channels);
            std::set<int> allowed;
            for (int k = 0; k < levels; ++k) allowed.insert(k * 255 / (levels - 1));
            std::size_t nonzero = 0;
            for (std::size_t p = 0; p < std::size_t(53) * 37; ++p) {
                bool any = false;
                for (int c = 0; c < channels; ++c) {
                    const int v = image.pixels[p * channels + c];
                    if (!allowed.count(v)) FAIL("value " << v << " is not one of the levels");
                    any = any || v != 0;
                }
                if (any) ++nonzero;
            }
            CHECK(double(nonzero) / (53.0 * 37.0) == Approx(0.6).margin(0.05));
            CHECK(glccl::randomImage(53, 37, 0.6, levels, channels, 8).pixels == image.pixels);
            CHECK(glccl::randomImage(53, 37, 0.6, levels, channels, 9).pixels != image.pixels);
        }
    }
    const Image binary = glccl::randomImage(20, 20, 0.5, 2, 1, 1);
    CHECK(std::all_of(binary.pixels.begin(), binary.pixels.end(), [](std::uint8_t v) { return v == 0 || v == 255; }));
    const Image none = glccl::randomImage(20, 20, 0.0, 4, 4, 1);
    CHECK(std::all_of(none.pixels.begin(), none.pixels.end(), [](std::uint8_t v) { return v == 0; }));
    const Image full = glccl::randomImage(20, 20, 1.0, 2, 1, 1);
    CHECK(std::all_of(full.pixels.begin(), full.pixels.end(), [](std::uint8_t v) { return v == 255; }));

    CHECK_THROWS_WITH(glccl::randomImage(0, 5, 0.5, 2, 1, 1), StartsWith("glccl::randomImage(): "));
    CHECK_THROWS_WITH(glccl::randomImage(5, 5, 1.5, 2, 1, 1), StartsWith("glccl::randomImage(): "));
    CHECK_THROWS_WITH(glccl::randomImage(5, 5, 0.5, 1, 1, 1), StartsWith("glccl::randomImage(): "));
    CHECK_THROWS_WITH(glccl::randomImage(5, 5, 0.5, 2, 3, 1), StartsWith("glccl::randomImage(): "));
}

TEST_CASE("generate: FamilyRows gives generateFamily's pixels in bands of any height", "[host][generate]") {
    // Bands of one row, of a few rows that do not divide the image, and the
    // whole image: the random families carry their generator's state from
    // band to band, the disks and large shapes reach across band edges.
    std::vector<std::string> families = glccl::generatedFamilies();
    families.push_back("granularity3");
    for (const std::string& family : families)
        for (const auto& [width, height] : {std::pair{1, 1}, std::pair{61, 47}, std::pair{1531, 101}, std::pair{7, 300}})
            for (std::uint64_t seed : {1u, 9u}) {
                const Image whole = glccl::generateFamily(family, width, height, seed);
                for (int bandRows : {1, 7, height}) {
                    INFO(family << " " << width << "x" << height << " seed " << seed << ", bands of " << bandRows);
                    glccl::FamilyRows rows(family, width, height, seed);
                    std::vector<std::uint8_t> streamed(std::size_t(width) * std::size_t(height), 0x5A);
                    while (rows.nextRow() < height) {
                        const std::int64_t count = std::min<std::int64_t>(bandRows, height - rows.nextRow());
                        rows.next(count, streamed.data() + std::size_t(rows.nextRow()) * std::size_t(width));
                    }
                    REQUIRE(streamed == whole.pixels);
                }
            }
}

TEST_CASE("generate: FamilyRows takes sides past 32768 and refuses bad sizes and bands", "[host][generate]") {
    using Catch::Matchers::Contains;
    using Catch::Matchers::StartsWith;
    // A row of 40000 pixels: a side generateFamily refuses.
    glccl::FamilyRows wide("noise50", 40000, 2, 3);
    std::vector<std::uint8_t> band(40000 * 2);
    wide.next(2, band.data());
    const auto on = std::count(band.begin(), band.end(), std::uint8_t(255));
    CHECK(on + std::count(band.begin(), band.end(), std::uint8_t(0)) == std::ptrdiff_t(band.size()));
    CHECK(on > 30000);
    CHECK(on < 50000);
    CHECK_THROWS_WITH(wide.next(1, band.data()), StartsWith("glccl::FamilyRows::next(): ") && Contains("expected 1..0"));
    for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{0, 5}, {5, 0}, {std::int64_t(1) << 31, 1}}) {
        CHECK_THROWS_WITH(glccl::FamilyRows("zeros", w, h),
                          StartsWith("glccl::FamilyRows(): ") && Contains("2147483647"));
    }
    CHECK_THROWS_WITH(glccl::FamilyRows("spirals", 4, 4), StartsWith("glccl::FamilyRows(): unknown family 'spirals'"));
}

TEST_CASE("generate: volume families are binary volumes of their size; hilbert is one thin component", "[host]") {
    for (const std::string& family : glccl::generatedVolumeFamilies()) {
        INFO(family);
        const glccl::Image volume = glccl::generateVolumeFamily(family, 37, 33, 35, 5);
        REQUIRE(volume.shape() == glccl::Shape::volume(37, 33, 35));
        REQUIRE(volume.pixels == glccl::generateVolumeFamily(family, 37, 33, 35, 5).pixels);
        CHECK(std::all_of(volume.pixels.begin(), volume.pixels.end(), [](std::uint8_t v) { return v == 0 || v == 255; }));
        CHECK(std::count(volume.pixels.begin(), volume.pixels.end(), 255) > 0);
    }
    // 2^4 points a side at spacing 2: 4096 points and the 4095 voxels between
    // them, one component even at 6-connectivity, and nothing but the curve.
    const glccl::Image curve = glccl::generateVolumeFamily("hilbert", 31, 31, 31);
    CHECK(std::count(curve.pixels.begin(), curve.pixels.end(), 255) == 4096 + 4095);
    CHECK(glccl::labelReference(curve, glccl::Connectivity::Six, glccl::Criterion::binary()).count() == 1);
    CHECK_THROWS_WITH(glccl::generateVolumeFamily("spiral", 4, 4, 4),
                      Catch::Matchers::StartsWith("glccl::generateVolumeFamily(): unknown family 'spiral'"));
}

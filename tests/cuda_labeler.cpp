// The CUDA path against the CPU reference, pixel for pixel and row for row of
// the component table: random images of sizes that cross tile and merge-level
// borders in every way, every connectivity, criterion and channel count, the
// generated families, and patterns aimed at the merging scheme (runs that
// cross every border, links only through tile corners).
//
// Needs a CUDA device; elsewhere each test prints why and is reported as
// skipped (cuda_support.hpp). The argument checks and the available()
// contract run everywhere.

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "glccl/compare.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/reference.hpp"
#include "cuda_support.hpp"

using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;

namespace {

const char* name(Connectivity connectivity) { return connectivity == Connectivity::Four ? "4" : "8"; }

// Labels `image` on the GPU and with the reference; both must be identical.
void checkAgainstReference(const Image& image, Connectivity connectivity, Criterion criterion,
                           const std::string& what) {
    INFO(what << ", " << image.width << "x" << image.height << "x" << image.channels << ", connectivity "
              << name(connectivity) << ", " << criterion.toString());
    const glccl::Labeling expected = glccl::labelReference(image, connectivity, criterion);
    const glccl::Labeling actual = glccl::cuda::labelImage(image, connectivity, criterion);
    const glccl::Comparison comparison = glccl::compareLabelings(expected, actual);
    INFO(comparison.describe());
    CHECK(comparison.identical());
}

struct Size {
    int width, height;
};

// 1x1 up to a few levels of merging: exact tile multiples, one more and one
// less (partial tiles), single rows and columns (no vertical or no
// horizontal borders), and sizes that end mid-group at each level.
const std::vector<Size> kOddSizes = {
    {1, 1},     {2, 2},      {1, 7},     {7, 1},    {1, 3000},  {3000, 1},  {31, 33},   {32, 32},
    {33, 31},   {64, 64},    {65, 63},   {127, 129}, {128, 128}, {129, 127}, {257, 129}, {513, 2},
    {2, 513},   {2049, 17},  {17, 2049}, {1000, 999}, {600, 2100},
};

Image pattern(int width, int height, bool (*on)(int x, int y)) {
    Image image(width, height, 1);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) image.at(x, y) = on(x, y) ? 255 : 0;
    }
    return image;
}

}  // namespace

TEST_CASE("cuda: available() gives a reason exactly when it says no", "[cuda]") {
    std::string why = "unchanged";
    const bool yes = glccl::cuda::available(&why);
    if (yes) {
        CHECK(why.empty());
        CHECK_FALSE(glccl::cuda::deviceName().empty());
    } else {
        WARN("CUDA not available: " << why);
        CHECK_FALSE(why.empty());
        CHECK(why != "unchanged");
    }
    CHECK(glccl::cuda::available() == yes);
}

TEST_CASE("cuda: invalid arguments are errors that name the entry", "[cuda]") {
    // Checked before any CUDA call, so this runs without a GPU too.
    auto message = [](const Image& image, Criterion criterion) {
        try {
            glccl::cuda::labelImage(image, Connectivity::Eight, criterion);
        } catch (const glccl::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string entry = "glccl::cuda::labelImage(): ";
    CHECK_THAT(message(Image(), Criterion::binary()), Catch::StartsWith(entry));
    CHECK_THAT(message(Image(4, 4, 3), Criterion::thresholded(1)), Catch::StartsWith(entry) && Catch::Contains("3"));
    CHECK_THAT(message(Image(4, 4, 4), Criterion::segments()), Catch::StartsWith(entry) && Catch::Contains("segments"));
    CHECK_THAT(message(Image(4, 4, 4), Criterion::binary()), Catch::StartsWith(entry));
    CHECK_THAT(message(Image(4, 4, 1), Criterion::thresholded(256)), Catch::StartsWith(entry) && Catch::Contains("256"));
    Image truncated(4, 4, 1);
    truncated.pixels.resize(5);
    CHECK_THAT(message(truncated, Criterion::binary()), Catch::StartsWith(entry) && Catch::Contains("5 bytes"));
}

TEST_CASE("cuda: random binary images of odd sizes match the reference", "[cuda][random]") {
    glccl::test::requireCudaOrSkip();
    std::uint64_t seed = 1;
    for (const Size& size : kOddSizes) {
        for (double density : {0.1, 0.45, 0.6, 0.9}) {
            const Image image = glccl::randomImage(size.width, size.height, density, 2, 1, seed++);
            for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
                checkAgainstReference(image, c, Criterion::binary(), "noise " + std::to_string(density));
            }
        }
    }
}

TEST_CASE("cuda: random segment images match the reference", "[cuda][random]") {
    glccl::test::requireCudaOrSkip();
    std::uint64_t seed = 100;
    for (const Size& size : kOddSizes) {
        for (int levels : {3, 8}) {
            const Image image = glccl::randomImage(size.width, size.height, 0.8, levels, 1, seed++);
            for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
                checkAgainstReference(image, c, Criterion::segments(), "segments, " + std::to_string(levels) + " levels");
                // The same image as binary: values differ but all connect.
                checkAgainstReference(image, c, Criterion::binary(), "segments image as binary");
            }
        }
    }
}

TEST_CASE("cuda: thresholds on 1 and 4 channels match the reference", "[cuda][random]") {
    glccl::test::requireCudaOrSkip();
    std::uint64_t seed = 200;
    for (const Size& size : kOddSizes) {
        // Gray: 18 levels 15 apart; thresholds below, at and above the step.
        const Image gray = glccl::randomImage(size.width, size.height, 0.9, 18, 1, seed++);
        // Color: 4 levels per channel 85 apart, every channel on its own.
        const Image color = glccl::randomImage(size.width, size.height, 0.95, 4, 4, seed++);
        for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
            for (int t : {0, 14, 15, 40}) checkAgainstReference(gray, c, Criterion::thresholded(t), "gray");
            for (int t : {0, 85, 170, 255}) checkAgainstReference(color, c, Criterion::thresholded(t), "color");
        }
    }
}

TEST_CASE("cuda: generated families match the reference", "[cuda][families]") {
    glccl::test::requireCudaOrSkip();
    for (const std::string& family : glccl::generatedFamilies()) {
        for (Size size : {Size{256, 256}, Size{999, 1001}, Size{2048, 2048}, Size{4100, 77}}) {
            const Image image = glccl::generateFamily(family, size.width, size.height, 7);
            for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
                checkAgainstReference(image, c, Criterion::binary(), family);
            }
        }
    }
}

TEST_CASE("cuda: patterns aimed at tile borders and merge levels match the reference", "[cuda][patterns]") {
    glccl::test::requireCudaOrSkip();
    struct Pattern {
        const char* name;
        bool (*on)(int x, int y);
    };
    const Pattern patterns[] = {
        // Every component crosses every horizontal (resp. vertical) border.
        {"columns", [](int x, int) { return x % 2 == 0; }},
        {"rows", [](int, int y) { return y % 2 == 0; }},
        // Pixel checkerboard: 4-connected, all isolated; 8-connected, one
        // component linked only through corners, tile corners included.
        {"pixel checkerboard", [](int x, int y) { return (x + y) % 2 == 0; }},
        // Diagonal lines: only corner links join them, so every line needs
        // the diagonal unions at tile corners (31, 31) -> (32, 32).
        {"diagonals", [](int x, int y) { return (x + y) % 7 == 0 || (x - y + 7000) % 11 == 0; }},
        // A serpentine: one component that turns at every tile border, so
        // its tree is rebuilt across every level.
        {"serpentine",
         [](int x, int y) {
             if (y % 2 == 0) return true;
             return (y / 2) % 2 == 0 ? x == 0 : x % 32 == 31;
         }},
        // Rings of 1-pixel walls around tile corners.
        {"frames", [](int x, int y) { return x % 32 == 31 || y % 32 == 31 || x % 32 == 0 || y % 32 == 0; }},
        {"all zero", [](int, int) { return false; }},
        {"all one", [](int, int) { return true; }},
    };
    for (const Pattern& p : patterns) {
        for (Size size : {Size{1, 1}, Size{33, 1}, Size{1, 65}, Size{97, 95}, Size{1031, 517}, Size{4096, 4096}}) {
            const Image image = pattern(size.width, size.height, p.on);
            for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
                checkAgainstReference(image, c, Criterion::binary(), p.name);
            }
        }
    }
}

TEST_CASE("cuda: a large noise image matches the reference", "[cuda][large]") {
    glccl::test::requireCudaOrSkip();
    const Image image = glccl::randomImage(4096, 4096, 0.5, 2, 1, 4096);
    for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
        checkAgainstReference(image, c, Criterion::binary(), "noise 4096");
    }
    const Image color = glccl::randomImage(3000, 2000, 1.0, 5, 4, 3000);
    checkAgainstReference(color, Connectivity::Eight, Criterion::thresholded(64), "color 3000x2000");
}

TEST_CASE("cuda: timings name every stage once, in the order each first ran", "[cuda]") {
    glccl::test::requireCudaOrSkip();
    const Image image = glccl::randomImage(300, 200, 0.5, 2, 1, 9);
    glccl::StageTimings timings;
    glccl::cuda::labelImage(image, Connectivity::Eight, Criterion::binary(), &timings);
    std::vector<std::string> names;
    for (const glccl::StageTime& t : timings) {
        names.push_back(t.stage);
        CHECK(t.milliseconds >= 0.0);
    }
    // 300x200 needs more than one merge level, so flatten_borders runs too.
    const std::vector<std::string> expected = {"solve_tiles",    "merge_tiles", "flatten_borders",
                                               "flatten_labels", "relabel",     "component_stats"};
    CHECK(names == expected);
}

TEST_CASE("cuda: a small mix of every pass, for the sanitizers", "[cuda][sanitize]") {
    glccl::test::requireCudaOrSkip();
    std::uint64_t seed = 300;
    for (Size size : {Size{1, 1}, Size{31, 33}, Size{257, 129}, Size{600, 333}, Size{2, 700}}) {
        const Image binary = glccl::randomImage(size.width, size.height, 0.55, 2, 1, seed++);
        const Image segments = glccl::randomImage(size.width, size.height, 0.8, 4, 1, seed++);
        const Image color = glccl::randomImage(size.width, size.height, 1.0, 4, 4, seed++);
        for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
            checkAgainstReference(binary, c, Criterion::binary(), "binary");
            checkAgainstReference(segments, c, Criterion::segments(), "segments");
            checkAgainstReference(segments, c, Criterion::thresholded(85), "gray threshold");
            checkAgainstReference(color, c, Criterion::thresholded(85), "color threshold");
        }
    }
}

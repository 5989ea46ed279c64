// The CPU reference against published cases of other CCL implementations:
// scipy.ndimage, scikit-image and OpenCV. Inputs and expected labels are
// copied from their test suites; all of them number components in raster
// order of the first pixel, as the glccl contract does.

#include <catch2/catch.hpp>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/reference.hpp"

using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;
using glccl::Labeling;

namespace {

Image grayImage(int width, int height, std::initializer_list<int> values) {
    REQUIRE(values.size() == std::size_t(width) * height);
    Image image(width, height, 1);
    std::size_t i = 0;
    for (int v : values) image.pixels[i++] = std::uint8_t(v);
    return image;
}

std::vector<std::uint32_t> labelsOf(std::initializer_list<int> values) {
    std::vector<std::uint32_t> labels;
    for (int v : values) labels.push_back(std::uint32_t(v));
    return labels;
}

Labeling label(const Image& image, Connectivity connectivity, Criterion criterion = Criterion::binary()) {
    return glccl::labelReference(image, connectivity, criterion);
}

struct Box {
    std::uint32_t left, top, width, height;
    std::uint64_t area;
};

void requireBox(const Labeling& labeling, std::uint32_t label, Box box) {
    INFO("label " << label);
    REQUIRE(label >= 1);
    REQUIRE(label <= labeling.count());
    const glccl::Component& c = labeling.components[label - 1];
    CHECK(c.left == box.left);
    CHECK(c.top == box.top);
    CHECK(c.width == box.width);
    CHECK(c.height == box.height);
    CHECK(c.area == box.area);
}

}  // namespace

// ---------------------------------------------------------------- scipy.ndimage
// scipy/ndimage/tests/test_measurements.py. ndimage.label's default structure
// is the cross (4-connectivity); generate_binary_structure(2, 2) is 8.

TEST_CASE("reference: scipy test_label08", "[host]") {
    const Image data = grayImage(6, 6, {1, 0, 0, 0, 0, 0,
                                        0, 0, 1, 1, 0, 0,
                                        0, 0, 1, 1, 1, 0,
                                        1, 1, 0, 0, 0, 0,
                                        1, 1, 0, 0, 0, 0,
                                        0, 0, 0, 1, 1, 0});
    const Labeling out = label(data, Connectivity::Four);
    CHECK(out.labels == labelsOf({1, 0, 0, 0, 0, 0,
                                  0, 0, 2, 2, 0, 0,
                                  0, 0, 2, 2, 2, 0,
                                  3, 3, 0, 0, 0, 0,
                                  3, 3, 0, 0, 0, 0,
                                  0, 0, 0, 4, 4, 0}));
    CHECK(out.count() == 4);
}

TEST_CASE("reference: scipy test_label09", "[host]") {
    const Image data = grayImage(6, 6, {1, 0, 0, 0, 0, 0,
                                        0, 0, 1, 1, 0, 0,
                                        0, 0, 1, 1, 1, 0,
                                        1, 1, 0, 0, 0, 0,
                                        1, 1, 0, 0, 0, 0,
                                        0, 0, 0, 1, 1, 0});
    const Labeling out = label(data, Connectivity::Eight);
    CHECK(out.labels == labelsOf({1, 0, 0, 0, 0, 0,
                                  0, 0, 2, 2, 0, 0,
                                  0, 0, 2, 2, 2, 0,
                                  2, 2, 0, 0, 0, 0,
                                  2, 2, 0, 0, 0, 0,
                                  0, 0, 0, 3, 3, 0}));
    CHECK(out.count() == 3);
}

TEST_CASE("reference: scipy test_label10", "[host]") {
    const Image data = grayImage(6, 4, {0, 0, 0, 0, 0, 0,
                                        0, 1, 1, 0, 1, 0,
                                        0, 1, 1, 1, 1, 0,
                                        0, 0, 0, 0, 0, 0});
    const Labeling out = label(data, Connectivity::Eight);
    CHECK(out.labels == labelsOf({0, 0, 0, 0, 0, 0,
                                  0, 1, 1, 0, 1, 0,
                                  0, 1, 1, 1, 1, 0,
                                  0, 0, 0, 0, 0, 0}));
    CHECK(out.count() == 1);
}

TEST_CASE("reference: scipy test_label11", "[host]") {
    // scipy repeats test_label08 for every dtype; here the foreground value
    // varies instead, since binary treats any nonzero value as foreground.
    for (int one : {1, 2, 127, 255}) {
        INFO("foreground value " << one);
        const int o = one;
        const Image data = grayImage(6, 6, {o, 0, 0, 0, 0, 0,
                                            0, 0, o, o, 0, 0,
                                            0, 0, o, o, o, 0,
                                            o, o, 0, 0, 0, 0,
                                            o, o, 0, 0, 0, 0,
                                            0, 0, 0, o, o, 0});
        const Labeling out = label(data, Connectivity::Four);
        CHECK(out.labels == labelsOf({1, 0, 0, 0, 0, 0,
                                      0, 0, 2, 2, 0, 0,
                                      0, 0, 2, 2, 2, 0,
                                      3, 3, 0, 0, 0, 0,
                                      3, 3, 0, 0, 0, 0,
                                      0, 0, 0, 4, 4, 0}));
        CHECK(out.count() == 4);
    }
}

TEST_CASE("reference: scipy test_label12", "[host]") {
    const Image data = grayImage(6, 5, {0, 0, 0, 0, 1, 1,
                                        0, 0, 0, 0, 0, 1,
                                        0, 0, 1, 0, 1, 1,
                                        0, 0, 1, 1, 1, 1,
                                        0, 0, 0, 1, 1, 0});
    const Labeling out = label(data, Connectivity::Four);
    CHECK(out.labels == labelsOf({0, 0, 0, 0, 1, 1,
                                  0, 0, 0, 0, 0, 1,
                                  0, 0, 1, 0, 1, 1,
                                  0, 0, 1, 1, 1, 1,
                                  0, 0, 0, 1, 1, 0}));
    CHECK(out.count() == 1);
}

TEST_CASE("reference: scipy test_label13", "[host]") {
    const Image data = grayImage(11, 4, {1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1,
                                         1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1,
                                         1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
                                         1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
    const Labeling out = label(data, Connectivity::Four);
    CHECK(out.labels == labelsOf({1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1,
                                  1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1,
                                  1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
                                  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}));
    CHECK(out.count() == 1);
}

TEST_CASE("reference: scipy gh-3025 improper merging", "[host]") {
    // test_gh_issue_3025: two blocks joined by a three-pixel diagonal bridge.
    Image d(320, 60, 1);
    for (int y = 0; y < 60; ++y) {
        for (int x = 0; x < 320; ++x) d.at(x, y) = (x < 257 || x >= 260) ? 1 : 0;
    }
    d.at(257, 36) = 1;
    d.at(258, 35) = 1;
    d.at(259, 35) = 1;
    CHECK(label(d, Connectivity::Eight).count() == 1);
    // At 4-connectivity (257, 36) touches (258, 35) only at a corner.
    CHECK(label(d, Connectivity::Four).count() == 2);
}

// ---------------------------------------------------------------- scikit-image
// skimage/measure/tests/test_ccomp.py. skimage.measure.label connects equal
// values (our "segments") with full connectivity (8) by default.

TEST_CASE("reference: skimage test_ccomp test_basic", "[host]") {
    const Image x = grayImage(6, 4, {0, 0, 3, 2, 1, 9,
                                     0, 1, 1, 9, 2, 9,
                                     0, 0, 1, 9, 9, 9,
                                     3, 1, 1, 5, 3, 0});
    const Labeling out = label(x, Connectivity::Eight, Criterion::segments());
    CHECK(out.labels == labelsOf({0, 0, 1, 2, 3, 4,
                                  0, 5, 5, 4, 2, 4,
                                  0, 0, 5, 4, 4, 4,
                                  6, 5, 5, 7, 8, 0}));
    CHECK(out.count() == 8);
    CHECK(x.at(2, 0) == 3);  // the input is left as it was

    // label(x, background=99): 0 is an ordinary value, which is threshold:0.
    // skimage's expectation is labels + 1, with the isolated 0 in the lower
    // right corner as a new label 10.
    const Labeling nobg = label(x, Connectivity::Eight, Criterion::thresholded(0));
    CHECK(nobg.labels == labelsOf({1, 1, 2, 3, 4, 5,
                                   1, 6, 6, 5, 3, 5,
                                   1, 1, 6, 5, 5, 5,
                                   7, 6, 6, 8, 9, 10}));
    CHECK(nobg.count() == 10);
}

TEST_CASE("reference: skimage test_ccomp test_diag", "[host]") {
    const Image x = grayImage(3, 3, {0, 0, 1,
                                     0, 1, 0,
                                     1, 0, 0});
    CHECK(label(x, Connectivity::Eight, Criterion::segments()).labels == labelsOf({0, 0, 1, 0, 1, 0, 1, 0, 0}));
}

TEST_CASE("reference: skimage test_ccomp test_4_vs_8", "[host]") {
    const Image x = grayImage(2, 2, {0, 1,
                                     1, 0});
    CHECK(label(x, Connectivity::Four, Criterion::segments()).labels == labelsOf({0, 1, 2, 0}));
    CHECK(label(x, Connectivity::Eight, Criterion::segments()).labels == labelsOf({0, 1, 1, 0}));
}

TEST_CASE("reference: skimage test_ccomp test_background", "[host]") {
    const Image x = grayImage(3, 3, {1, 0, 0,
                                     1, 1, 5,
                                     0, 0, 0});
    CHECK(label(x, Connectivity::Eight, Criterion::segments()).labels == labelsOf({1, 0, 0,
                                                                                   1, 1, 2,
                                                                                   0, 0, 0}));
}

TEST_CASE("reference: skimage test_ccomp test_background_two_regions", "[host]") {
    const Image x = grayImage(3, 3, {0, 0, 6,
                                     0, 0, 6,
                                     5, 5, 5});
    CHECK(label(x, Connectivity::Eight, Criterion::segments()).labels == labelsOf({0, 0, 1,
                                                                                   0, 0, 1,
                                                                                   2, 2, 2}));
}

TEST_CASE("reference: skimage test_ccomp test_background_one_region_center", "[host]") {
    const Image x = grayImage(3, 3, {0, 0, 0,
                                     0, 1, 0,
                                     0, 0, 0});
    CHECK(label(x, Connectivity::Four, Criterion::segments()).labels == labelsOf({0, 0, 0,
                                                                                  0, 1, 0,
                                                                                  0, 0, 0}));
}

TEST_CASE("reference: skimage test_ccomp test_return_num", "[host]") {
    const Image x = grayImage(3, 3, {1, 0, 6,
                                     0, 0, 6,
                                     5, 5, 5});
    CHECK(label(x, Connectivity::Eight, Criterion::segments()).count() == 3);
    // background=-1: every value, 0 included, is a region.
    CHECK(label(x, Connectivity::Eight, Criterion::thresholded(0)).count() == 4);
}

TEST_CASE("reference: skimage test_ccomp test_1D as a row and a column", "[host]") {
    const std::initializer_list<int> x = {0, 1, 2, 2, 1, 1, 0, 0};
    const std::vector<std::uint32_t> y = labelsOf({0, 1, 2, 2, 3, 3, 0, 0});
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        CHECK(label(grayImage(8, 1, x), connectivity, Criterion::segments()).labels == y);
        CHECK(label(grayImage(1, 8, x), connectivity, Criterion::segments()).labels == y);
    }
}

// ---------------------------------------------------------------- OpenCV
// modules/imgproc/test/test_connectedcomponents.cpp.

TEST_CASE("reference: opencv spaghetti_bbdt_sauf_stats", "[host]") {
    const Image img = grayImage(16, 16, {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0,
        0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0,
        0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0,
        0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0,
        0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0,
        0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0,
        0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1,
        0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1,
        0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 1,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
    const Labeling out = label(img, Connectivity::Eight);

    // OpenCV's row 0 is the background; the table here starts at label 1.
    // Labels 7..9 follow the CCL_SAUF / CCL_WU branch of the test, whose
    // numbering is the raster order of the contract.
    REQUIRE(out.count() == 10);
    requireBox(out, 1, {1, 1, 3, 3, 9});
    requireBox(out, 2, {1, 1, 8, 7, 40});
    requireBox(out, 3, {10, 2, 5, 2, 8});
    requireBox(out, 4, {11, 5, 3, 3, 9});
    requireBox(out, 5, {2, 9, 1, 1, 1});
    requireBox(out, 6, {12, 9, 1, 1, 1});
    requireBox(out, 7, {6, 10, 4, 2, 8});
    requireBox(out, 8, {0, 10, 16, 6, 21});
    requireBox(out, 9, {1, 11, 4, 2, 8});
    requireBox(out, 10, {9, 12, 5, 2, 7});

    // OpenCV's test checks no centroids; these sums are worked out by hand
    // from the picture above (centroid = exact sum / area).
    const auto& c = out.components;
    CHECK(c[0].centroidX == 2.0);
    CHECK(c[0].centroidY == 2.0);
    CHECK(c[1].centroidX == 212.0 / 40.0);
    CHECK(c[1].centroidY == 184.0 / 40.0);
    CHECK(c[2].centroidX == 12.0);
    CHECK(c[2].centroidY == 21.0 / 8.0);
    CHECK(c[6].centroidX == 7.5);
    CHECK(c[6].centroidY == 10.5);
    CHECK(c[7].centroidX == 195.0 / 21.0);
    CHECK(c[7].centroidY == 300.0 / 21.0);
    CHECK(c[9].centroidX == 78.0 / 7.0);
    CHECK(c[9].centroidY == 88.0 / 7.0);
}

namespace {

// OpenCV's chessboard_even / chessboard_odd inputs: 1 where (x + y) is even.
Image chessboard(int size) {
    Image image(size, size, 1);
    for (int y = 0; y < size; ++y) {
        for (int x = 0; x < size; ++x) image.at(x, y) = (x + y) % 2 == 0 ? 1 : 0;
    }
    return image;
}

}  // namespace

TEST_CASE("reference: opencv chessboard_odd", "[host]") {
    const Image input = chessboard(15);
    // output_4c of the OpenCV test: the maximum number of 4-connected labels.
    const std::vector<std::uint32_t> expected4 = labelsOf({
        1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8,
        0, 9, 0, 10, 0, 11, 0, 12, 0, 13, 0, 14, 0, 15, 0,
        16, 0, 17, 0, 18, 0, 19, 0, 20, 0, 21, 0, 22, 0, 23,
        0, 24, 0, 25, 0, 26, 0, 27, 0, 28, 0, 29, 0, 30, 0,
        31, 0, 32, 0, 33, 0, 34, 0, 35, 0, 36, 0, 37, 0, 38,
        0, 39, 0, 40, 0, 41, 0, 42, 0, 43, 0, 44, 0, 45, 0,
        46, 0, 47, 0, 48, 0, 49, 0, 50, 0, 51, 0, 52, 0, 53,
        0, 54, 0, 55, 0, 56, 0, 57, 0, 58, 0, 59, 0, 60, 0,
        61, 0, 62, 0, 63, 0, 64, 0, 65, 0, 66, 0, 67, 0, 68,
        0, 69, 0, 70, 0, 71, 0, 72, 0, 73, 0, 74, 0, 75, 0,
        76, 0, 77, 0, 78, 0, 79, 0, 80, 0, 81, 0, 82, 0, 83,
        0, 84, 0, 85, 0, 86, 0, 87, 0, 88, 0, 89, 0, 90, 0,
        91, 0, 92, 0, 93, 0, 94, 0, 95, 0, 96, 0, 97, 0, 98,
        0, 99, 0, 100, 0, 101, 0, 102, 0, 103, 0, 104, 0, 105, 0,
        106, 0, 107, 0, 108, 0, 109, 0, 110, 0, 111, 0, 112, 0, 113});
    const Labeling four = label(input, Connectivity::Four);
    CHECK(four.labels == expected4);
    CHECK(four.count() == 113);

    // output_8c is the input itself: one component.
    const Labeling eight = label(input, Connectivity::Eight);
    CHECK(eight.count() == 1);
    for (std::size_t i = 0; i < input.pixels.size(); ++i) CHECK(eight.labels[i] == input.pixels[i]);
}

TEST_CASE("reference: opencv chessboard_even", "[host]") {
    const Image input = chessboard(16);
    const Labeling four = label(input, Connectivity::Four);
    const Labeling eight = label(input, Connectivity::Eight);
    // output_4c numbers the 128 foreground squares 1..128 row by row
    // (1, 0, 2, 0, ... 8, 0 / 0, 9, 0, 10, ... / ...); output_8c is the input.
    CHECK(four.count() == 128);
    CHECK(eight.count() == 1);
    CHECK(four.at(0, 0) == 1);
    CHECK(four.at(14, 0) == 8);
    CHECK(four.at(1, 1) == 9);
    CHECK(four.at(15, 1) == 16);
    CHECK(four.at(0, 2) == 17);
    CHECK(four.at(4, 12) == 99);
    CHECK(four.at(6, 12) == 100);
    CHECK(four.at(15, 15) == 128);
    std::uint32_t next = 0;
    for (int y = 0; y < 16; ++y) {
        for (int x = 0; x < 16; ++x) {
            const bool on = (x + y) % 2 == 0;
            CHECK(four.at(x, y) == (on ? ++next : 0u));
            CHECK(eight.at(x, y) == (on ? 1u : 0u));
        }
    }
}

TEST_CASE("reference: opencv maxlabels_8conn_odd", "[host]") {
    // Foreground on even rows and even columns: 64 isolated pixels.
    Image input(15, 15, 1);
    for (int y = 0; y < 15; y += 2) {
        for (int x = 0; x < 15; x += 2) input.at(x, y) = 1;
    }
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        const Labeling out = label(input, connectivity);
        CHECK(out.count() == 64);
        CHECK(out.at(0, 0) == 1);
        CHECK(out.at(14, 0) == 8);
        CHECK(out.at(0, 2) == 9);
        CHECK(out.at(14, 14) == 64);
        CHECK(out.at(1, 0) == 0);
        CHECK(out.at(0, 1) == 0);
    }
}

// ---------------------------------------------------------------- edge shapes

TEST_CASE("reference: all-zero and all-one images", "[host]") {
    for (int w : {1, 2, 7, 33}) {
        for (int h : {1, 3, 16}) {
            INFO(w << "x" << h);
            Image zeros(w, h, 1);
            Image ones(w, h, 1);
            std::fill(ones.pixels.begin(), ones.pixels.end(), std::uint8_t(255));
            for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
                const Labeling z = label(zeros, connectivity);
                CHECK(z.count() == 0);
                CHECK(z.labels == std::vector<std::uint32_t>(std::size_t(w) * h, 0));

                const Labeling o = label(ones, connectivity);
                REQUIRE(o.count() == 1);
                CHECK(o.labels == std::vector<std::uint32_t>(std::size_t(w) * h, 1));
                const glccl::Component& c = o.components[0];
                CHECK(c.left == 0);
                CHECK(c.top == 0);
                CHECK(c.width == std::uint32_t(w));
                CHECK(c.height == std::uint32_t(h));
                CHECK(c.area == std::uint64_t(w) * h);
                CHECK(c.centroidX == (w - 1) / 2.0);
                CHECK(c.centroidY == (h - 1) / 2.0);

                // Under threshold every pixel is foreground, zeros included.
                CHECK(label(zeros, connectivity, Criterion::thresholded(0)).labels ==
                      std::vector<std::uint32_t>(std::size_t(w) * h, 1));
            }
        }
    }
}

TEST_CASE("reference: single row and single column", "[host]") {
    const std::initializer_list<int> runs = {1, 1, 0, 1, 0, 0, 1, 1, 1, 0};
    const std::vector<std::uint32_t> expected = labelsOf({1, 1, 0, 2, 0, 0, 3, 3, 3, 0});
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        const Labeling row = label(grayImage(10, 1, runs), connectivity);
        const Labeling column = label(grayImage(1, 10, runs), connectivity);
        CHECK(row.labels == expected);
        CHECK(column.labels == expected);
        REQUIRE(row.count() == 3);
        requireBox(row, 3, {6, 0, 3, 1, 3});
        requireBox(column, 3, {0, 6, 1, 3, 3});
        CHECK(row.components[2].centroidX == 7.0);
        CHECK(column.components[2].centroidY == 7.0);
    }
}

TEST_CASE("reference: the first pixel decides the number, not the root", "[host]") {
    // A U shape whose arms are joined only on the last row: a labeler that
    // numbered at the join, or by the right arm's root, would get 2 here.
    const Image u = grayImage(5, 4, {1, 0, 0, 1, 1,
                                     1, 0, 1, 0, 0,
                                     1, 0, 1, 0, 1,
                                     1, 1, 1, 0, 1});
    const Labeling out = label(u, Connectivity::Four);
    CHECK(out.labels == labelsOf({1, 0, 0, 2, 2,
                                  1, 0, 1, 0, 0,
                                  1, 0, 1, 0, 3,
                                  1, 1, 1, 0, 3}));
    const Labeling out8 = label(u, Connectivity::Eight);
    CHECK(out8.labels == labelsOf({1, 0, 0, 1, 1,
                                   1, 0, 1, 0, 0,
                                   1, 0, 1, 0, 2,
                                   1, 1, 1, 0, 2}));
}

// ---------------------------------------------------------------- criteria

TEST_CASE("reference: segments connect equal values only", "[host]") {
    const Image x = grayImage(4, 2, {7, 7, 8, 0,
                                     8, 8, 8, 7});
    CHECK(label(x, Connectivity::Four, Criterion::segments()).labels == labelsOf({1, 1, 2, 0,
                                                                                  2, 2, 2, 3}));
    // 8-connectivity changes nothing: every diagonal pair holds two
    // different values or belongs to one component already.
    CHECK(label(x, Connectivity::Eight, Criterion::segments()).labels == labelsOf({1, 1, 2, 0,
                                                                                   2, 2, 2, 3}));
    // Binary ignores the values.
    CHECK(label(x, Connectivity::Four, Criterion::binary()).labels == labelsOf({1, 1, 1, 0,
                                                                                1, 1, 1, 1}));
}

TEST_CASE("reference: threshold on gray compares neighbour differences", "[host]") {
    const Image x = grayImage(6, 1, {10, 12, 15, 30, 0, 255});
    CHECK(label(x, Connectivity::Four, Criterion::thresholded(2)).labels == labelsOf({1, 1, 2, 3, 4, 5}));
    CHECK(label(x, Connectivity::Four, Criterion::thresholded(3)).labels == labelsOf({1, 1, 1, 2, 3, 4}));
    CHECK(label(x, Connectivity::Four, Criterion::thresholded(30)).labels == labelsOf({1, 1, 1, 1, 1, 2}));
    CHECK(label(x, Connectivity::Four, Criterion::thresholded(255)).labels == labelsOf({1, 1, 1, 1, 1, 1}));

    // Chains join values further apart than T: 0-5-10 is one component at T=5.
    const Image chain = grayImage(3, 1, {0, 5, 10});
    CHECK(label(chain, Connectivity::Four, Criterion::thresholded(5)).count() == 1);
    CHECK(label(chain, Connectivity::Four, Criterion::thresholded(4)).count() == 3);
}

TEST_CASE("reference: threshold on RGBA needs every channel close", "[host]") {
    Image x(3, 2, 4);
    const std::uint8_t colors[6][4] = {
        {100, 100, 100, 255}, {104, 96, 100, 255}, {104, 96, 100, 250},   // row 0
        {100, 100, 110, 255}, {100, 100, 100, 255}, {0, 0, 0, 0}};        // row 1
    for (int i = 0; i < 6; ++i) std::copy(colors[i], colors[i] + 4, &x.pixels[std::size_t(i) * 4]);
    // T=4: (0,0)-(1,0) within 4 on every channel; (1,0)-(2,0) alpha differs
    // by 5; (0,0)-(0,1) blue differs by 10; (1,1) joins (0,0) through (1,0)
    // (differences 4, 4, 0, 0) and (0,0) itself (all equal).
    CHECK(label(x, Connectivity::Four, Criterion::thresholded(4)).labels == labelsOf({1, 1, 2,
                                                                                      3, 1, 4}));
    CHECK(label(x, Connectivity::Four, Criterion::thresholded(5)).labels == labelsOf({1, 1, 1,
                                                                                      2, 1, 3}));
    // 8-connectivity adds the diagonal (2,0)-(1,1): alpha differs by 5.
    CHECK(label(x, Connectivity::Eight, Criterion::thresholded(4)).labels == labelsOf({1, 1, 2,
                                                                                       3, 1, 4}));
    CHECK(label(x, Connectivity::Four, Criterion::thresholded(10)).labels == labelsOf({1, 1, 1,
                                                                                       1, 1, 2}));
}

TEST_CASE("reference: isForeground and areConnected", "[host]") {
    const Image x = grayImage(4, 1, {0, 3, 3, 9});
    CHECK_FALSE(glccl::isForeground(x, 0, Criterion::binary()));
    CHECK(glccl::isForeground(x, 1, Criterion::binary()));
    CHECK_FALSE(glccl::isForeground(x, 0, Criterion::segments()));
    CHECK(glccl::isForeground(x, 0, Criterion::thresholded(0)));

    CHECK_FALSE(glccl::areConnected(x, 0, 1, Criterion::binary()));
    CHECK(glccl::areConnected(x, 1, 2, Criterion::binary()));
    CHECK(glccl::areConnected(x, 2, 3, Criterion::binary()));
    CHECK(glccl::areConnected(x, 1, 2, Criterion::segments()));
    CHECK_FALSE(glccl::areConnected(x, 2, 3, Criterion::segments()));
    CHECK(glccl::areConnected(x, 0, 1, Criterion::thresholded(3)));
    CHECK_FALSE(glccl::areConnected(x, 0, 1, Criterion::thresholded(2)));
    CHECK(glccl::areConnected(x, 2, 3, Criterion::thresholded(6)));
    CHECK_FALSE(glccl::areConnected(x, 2, 3, Criterion::thresholded(5)));
}

TEST_CASE("reference: invalid inputs throw glccl::Error", "[host]") {
    using Catch::Matchers::Contains;
    Image rgba(4, 4, 4);
    CHECK_THROWS_WITH(glccl::labelReference(rgba, Connectivity::Four, Criterion::binary()),
                      Contains("glccl::labelReference(): ") && Contains("1-channel"));
    CHECK_THROWS_WITH(glccl::labelReference(rgba, Connectivity::Eight, Criterion::segments()),
                      Contains("4 channels"));
    CHECK_NOTHROW(glccl::labelReference(rgba, Connectivity::Eight, Criterion::thresholded(3)));

    CHECK_THROWS_AS(glccl::labelReference(Image(), Connectivity::Four, Criterion::binary()), glccl::Error);
    CHECK_THROWS_WITH(glccl::labelReference(Image(0, 5, 1), Connectivity::Four, Criterion::binary()),
                      Contains("empty"));
    CHECK_THROWS_WITH(glccl::labelReference(Image(3, 3, 3), Connectivity::Four, Criterion::thresholded(1)),
                      Contains("3 channels"));
    Image wrongSize(3, 3, 1);
    wrongSize.pixels.pop_back();
    CHECK_THROWS_AS(glccl::labelReference(wrongSize, Connectivity::Four, Criterion::binary()), glccl::Error);
    CHECK_THROWS_WITH(glccl::labelReference(Image(2, 2, 1), Connectivity::Four, Criterion::thresholded(256)),
                      Contains("256"));
}

// ---------------------------------------------------------------- vocabulary

TEST_CASE("types: Criterion::parse and toString", "[host]") {
    using Catch::Matchers::StartsWith;
    CHECK(Criterion::parse("binary") == Criterion::binary());
    CHECK(Criterion::parse("segments") == Criterion::segments());
    CHECK(Criterion::parse("threshold:0") == Criterion::thresholded(0));
    CHECK(Criterion::parse("threshold:17") == Criterion::thresholded(17));
    CHECK(Criterion::parse("threshold:255") == Criterion::thresholded(255));
    CHECK(Criterion::thresholded(42).toString() == "threshold:42");
    CHECK(Criterion::binary().toString() == "binary");
    CHECK(Criterion::segments().toString() == "segments");
    for (const char* text : {"binary", "segments", "threshold:0", "threshold:9", "threshold:200"}) {
        CHECK(Criterion::parse(text).toString() == text);
    }
    // Thresholds are in the units of the samples (up to 2^32 - 1 for 32-bit
    // images); labelReference checks them against the image's sampleBits.
    for (const char* bad : {"", "Binary", "binary ", "threshold", "threshold:", "threshold:4294967296",
                            "threshold:-1", "threshold:+3", "threshold:99999999999", "threshold:3x", "threshold: 3",
                            "segment"}) {
        INFO("'" << bad << "'");
        CHECK_THROWS_WITH(Criterion::parse(bad), StartsWith("glccl::Criterion::parse(): "));
    }
}

TEST_CASE("types: parseConnectivity", "[host]") {
    CHECK(glccl::parseConnectivity("4") == Connectivity::Four);
    CHECK(glccl::parseConnectivity("8") == Connectivity::Eight);
    for (const char* bad : {"", "5", "44", "four", " 4"}) {
        CHECK_THROWS_WITH(glccl::parseConnectivity(bad),
                          Catch::Matchers::StartsWith("glccl::parseConnectivity(): "));
    }
}

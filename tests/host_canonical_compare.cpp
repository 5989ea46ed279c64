// Canonical relabeling, the component table and the comparison of labelings.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "glccl/canonical.hpp"
#include "glccl/compare.hpp"
#include "glccl/error.hpp"
#include "glccl/reference.hpp"

using glccl::Component;
using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;
using glccl::Labeling;

namespace {

std::vector<std::uint32_t> labelsOf(std::initializer_list<std::uint32_t> values) { return values; }

Labeling labelingOf(int width, int height, std::vector<std::uint32_t> labels, std::vector<Component> components = {}) {
    Labeling labeling;
    labeling.width = width;
    labeling.height = height;
    labeling.labels = std::move(labels);
    labeling.components = std::move(components);
    return labeling;
}

Image randomBinary(std::mt19937_64& rng, int w, int h, int percent) {
    Image image(w, h, 1);
    for (std::uint8_t& p : image.pixels) p = int(rng() % 100) < percent ? 255 : 0;
    return image;
}

// Replaces label k by ids[k] (ids[0] stays 0).
std::vector<std::uint32_t> renamed(const std::vector<std::uint32_t>& labels, const std::vector<std::uint32_t>& ids) {
    std::vector<std::uint32_t> out(labels.size());
    for (std::size_t i = 0; i < labels.size(); ++i) out[i] = ids[labels[i]];
    return out;
}

// count distinct nonzero ids drawn from [lo, hi], plus ids[0] = 0.
std::vector<std::uint32_t> distinctIds(std::mt19937_64& rng, std::size_t count, std::uint64_t lo, std::uint64_t hi) {
    std::set<std::uint32_t> seen;
    std::vector<std::uint32_t> ids = {0};
    while (ids.size() < count + 1) {
        const auto id = std::uint32_t(lo + rng() % (hi - lo + 1));
        if (seen.insert(id).second) ids.push_back(id);
    }
    return ids;
}

}  // namespace

// ---------------------------------------------------------------- canonical

TEST_CASE("canonical: canonicalRelabel numbers by first pixel in raster order", "[host]") {
    std::vector<std::uint32_t> labels = labelsOf({0, 900, 900, 0,
                                                  5, 0, 900, 4000000000u,
                                                  5, 5, 0, 4000000000u});
    CHECK(glccl::canonicalRelabel(4, 3, labels) == 3);
    CHECK(labels == labelsOf({0, 1, 1, 0,
                              2, 0, 1, 3,
                              2, 2, 0, 3}));

    std::vector<std::uint32_t> small = labelsOf({3, 0, 1, 2, 3, 1});
    CHECK(glccl::canonicalRelabel(3, 2, small) == 3);
    CHECK(small == labelsOf({1, 0, 2, 3, 1, 2}));

    std::vector<std::uint32_t> empty(6, 0);
    CHECK(glccl::canonicalRelabel(2, 3, empty) == 0);
    CHECK(empty == std::vector<std::uint32_t>(6, 0));

    std::vector<std::uint32_t> maxId = {0xFFFFFFFFu};
    CHECK(glccl::canonicalRelabel(1, 1, maxId) == 1);
    CHECK(maxId == labelsOf({1}));
}

TEST_CASE("canonical: canonicalRelabel undoes any renaming of a reference labeling", "[host]") {
    std::mt19937_64 rng(99);
    for (int n = 0; n < 200; ++n) {
        const int w = 1 + int(rng() % 90), h = 1 + int(rng() % 90);
        const Image image = randomBinary(rng, w, h, int(rng() % 101));
        const Labeling reference =
            glccl::labelReference(image, n % 2 ? Connectivity::Four : Connectivity::Eight, Criterion::binary());
        const std::size_t count = reference.count();
        const std::uint64_t pixels = std::uint64_t(w) * h;
        INFO(w << "x" << h << " with " << count << " components, case " << n);

        // A permutation of 1..count: ids no larger than the pixel count.
        std::vector<std::uint32_t> permutation(count + 1);
        std::iota(permutation.begin(), permutation.end(), 0u);
        std::shuffle(permutation.begin() + 1, permutation.end(), rng);
        // Pixel addresses, as GPU labelers produce them.
        std::vector<std::uint32_t> addresses(count + 1, 0);
        for (std::size_t i = 0; i < reference.labels.size(); ++i) {
            if (reference.labels[i] != 0) addresses[reference.labels[i]] = std::uint32_t(i) + 1;
        }
        const std::vector<std::vector<std::uint32_t>> renamings = {
            permutation,
            addresses,
            distinctIds(rng, count, 1, 0xFFFFFFFFu),                 // arbitrary 32-bit ids
            distinctIds(rng, count, pixels + 1, pixels + 3 * count + 10),  // just above the pixel count
        };
        for (const auto& ids : renamings) {
            std::vector<std::uint32_t> labels = renamed(reference.labels, ids);
            CHECK(glccl::canonicalRelabel(w, h, labels) == count);
            CHECK(labels == reference.labels);
            const Labeling canonical = glccl::makeCanonical(w, h, renamed(reference.labels, ids));
            CHECK(canonical.labels == reference.labels);
            CHECK(canonical.components == reference.components);
        }
    }
}

TEST_CASE("canonical: canonicalRelabel with many distinct hashed ids", "[host]") {
    // Every pixel its own component with a large id: exercises the hash
    // map's growth far beyond its initial capacity.
    const int w = 300, h = 200;
    std::vector<std::uint32_t> labels(std::size_t(w) * h);
    for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = 0xFFFFFFFFu - std::uint32_t(i) * 7919u;
    CHECK(glccl::canonicalRelabel(w, h, labels) == std::uint32_t(w * h));
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (labels[i] != i + 1) FAIL("pixel " << i << " got " << labels[i]);
    }
}

TEST_CASE("canonical: computeComponents counts exactly", "[host]") {
    const std::vector<std::uint32_t> labels = labelsOf({1, 1, 0, 2,
                                                        0, 1, 0, 2,
                                                        3, 0, 0, 2});
    const std::vector<Component> table = glccl::computeComponents(4, 3, labels, 3);
    REQUIRE(table.size() == 3);
    // Label 1: (0,0) (1,0) (1,1): sums x 2, y 1.
    CHECK(table[0].left == 0);
    CHECK(table[0].top == 0);
    CHECK(table[0].width == 2);
    CHECK(table[0].height == 2);
    CHECK(table[0].area == 3);
    CHECK(table[0].centroidX == 2.0 / 3.0);
    CHECK(table[0].centroidY == 1.0 / 3.0);
    // Label 2: column 3, rows 0..2.
    CHECK(table[1].left == 3);
    CHECK(table[1].top == 0);
    CHECK(table[1].width == 1);
    CHECK(table[1].height == 3);
    CHECK(table[1].area == 3);
    CHECK(table[1].centroidX == 3.0);
    CHECK(table[1].centroidY == 1.0);
    // Label 3: the single pixel (0, 2).
    CHECK(table[2].left == 0);
    CHECK(table[2].top == 2);
    CHECK(table[2].width == 1);
    CHECK(table[2].height == 1);
    CHECK(table[2].area == 1);
    CHECK(table[2].centroidX == 0.0);
    CHECK(table[2].centroidY == 2.0);

    CHECK_THROWS_WITH(glccl::computeComponents(4, 3, labels, 2),
                      Catch::Matchers::StartsWith("glccl::computeComponents(): ") &&
                          Catch::Matchers::Contains("label 3"));
    CHECK_THROWS_AS(glccl::computeComponents(5, 3, labels, 3), glccl::Error);
    std::vector<std::uint32_t> wrong(5, 0);
    CHECK_THROWS_WITH(glccl::canonicalRelabel(2, 2, wrong), Catch::Matchers::StartsWith("glccl::canonicalRelabel(): "));
}

TEST_CASE("canonical: centroids are one rounding of the exact sums, whatever order the pixels come in", "[host]") {
    // A 3-pixel component at x = 0, 1, 1 sums to 2: the centroid must be the
    // double nearest to 2/3, not an accumulation of rounded terms.
    const std::vector<Component> small = glccl::computeComponents(2, 2, labelsOf({1, 1, 0, 1}), 1);
    CHECK(small[0].centroidX == 2.0 / 3.0);
    CHECK(small[0].centroidY == 1.0 / 3.0);

    // One component of one run per row (a component's pixels need not touch
    // for the table): the same runs dealt to the rows in many orders, so the
    // pixels reach the accumulation in a different order each time. Every
    // order must give the double nearest to the exact quotient, computed here
    // from integer sums over the pixels one by one.
    struct Run {
        int start, length;
    };
    std::mt19937_64 rng(35);
    const int width = 30011, rows = 61;
    std::vector<Run> runs;
    for (int i = 0; i < rows; ++i) {
        const int length = 1 + int(rng() % 700);
        runs.push_back({int(rng() % std::uint64_t(width - length)), length});
    }
    std::set<double> runningMeans;  // an order-dependent average, for contrast
    for (int order = 0; order < 40; ++order) {
        std::shuffle(runs.begin(), runs.end(), rng);
        std::vector<std::uint32_t> labels(std::size_t(width) * rows, 0);
        std::uint64_t area = 0, sumX = 0, sumY = 0;
        double runningMean = 0.0;
        for (int y = 0; y < rows; ++y) {
            for (int x = runs[y].start; x < runs[y].start + runs[y].length; ++x) {
                labels[std::size_t(y) * width + std::size_t(x)] = 1;
                ++area;
                sumX += std::uint64_t(x);
                sumY += std::uint64_t(y);
                runningMean += (double(x) - runningMean) / double(area);
            }
        }
        runningMeans.insert(runningMean);
        const std::vector<Component> table = glccl::computeComponents(width, rows, labels, 1);
        INFO("order " << order << ": area " << area << ", sums " << sumX << ", " << sumY);
        REQUIRE(table.size() == 1);
        CHECK(table[0].area == area);
        // IEEE division of two exactly representable integers rounds once.
        CHECK(table[0].centroidX == double(sumX) / double(area));
        CHECK(table[0].centroidY == double(sumY) / double(area));
    }
    // The orders differ where it matters: a running average lands on
    // different doubles, so agreeing every time is not an accident of order.
    CHECK(runningMeans.size() > 1);
}

// ---------------------------------------------------------------- compare

TEST_CASE("compare: identical labelings", "[host]") {
    // Two labelings built independently: the reference's, and one written
    // out by hand for the same two dots (4-connectivity).
    Image dots(5, 4, 1);
    dots.at(1, 1) = dots.at(3, 2) = 255;
    const Labeling reference = glccl::labelReference(dots, Connectivity::Four, Criterion::binary());
    Component first, second;
    first.left = first.top = 1;
    first.width = first.height = 1;
    first.area = 1;
    first.centroidX = first.centroidY = 1.0;
    second.left = 3;
    second.top = 2;
    second.width = second.height = 1;
    second.area = 1;
    second.centroidX = 3.0;
    second.centroidY = 2.0;
    const Labeling byHand = labelingOf(5, 4,
                                       labelsOf({0, 0, 0, 0, 0,
                                                 0, 1, 0, 0, 0,
                                                 0, 0, 0, 2, 0,
                                                 0, 0, 0, 0, 0}),
                                       {first, second});

    const glccl::Comparison c = glccl::compareLabelings(reference, byHand);
    CHECK(c.sameSize);
    CHECK(c.identicalLabels);
    CHECK(c.samePartition);
    CHECK(c.identicalTables);
    CHECK(c.identical());
    CHECK(c.differingPixels == 0);
    CHECK(c.firstX == -1);
    CHECK(c.firstY == -1);
    CHECK(c.describe() == "identical");

    // One pixel more in the hand-written copy is found, where it is.
    Labeling grown = byHand;
    grown.labels[2 * 5 + 4] = 2;
    const glccl::Comparison d = glccl::compareLabelings(reference, grown);
    CHECK_FALSE(d.identicalLabels);
    CHECK_FALSE(d.identical());
    CHECK(d.differingPixels == 1);
    CHECK(d.firstX == 4);
    CHECK(d.firstY == 2);
    CHECK(d.expectedAtFirst == 0);
    CHECK(d.actualAtFirst == 2);
    CHECK(d.describe() != "identical");
}

TEST_CASE("compare: same partition with another numbering", "[host]") {
    const Labeling expected = labelingOf(3, 2, labelsOf({1, 1, 0, 2, 0, 3}));
    const Labeling actual = labelingOf(3, 2, labelsOf({7, 7, 0, 9, 0, 8}));
    const glccl::Comparison c = glccl::compareLabelings(expected, actual);
    CHECK(c.sameSize);
    CHECK_FALSE(c.identicalLabels);
    CHECK(c.samePartition);
    CHECK(c.identicalTables);  // both tables are empty here
    CHECK_FALSE(c.identical());
    CHECK(c.differingPixels == 4);
    CHECK(c.firstX == 0);
    CHECK(c.firstY == 0);
    CHECK(c.expectedAtFirst == 1);
    CHECK(c.actualAtFirst == 7);
    CHECK_THAT(c.describe(), Catch::Matchers::Contains("same partition") && Catch::Matchers::Contains("(0, 0)") &&
                                 Catch::Matchers::Contains("4 pixels"));
}

TEST_CASE("compare: different partitions", "[host]") {
    const Labeling expected = labelingOf(4, 1, labelsOf({1, 1, 2, 2}));
    SECTION("two components merged") {
        const glccl::Comparison c = glccl::compareLabelings(expected, labelingOf(4, 1, labelsOf({1, 1, 1, 1})));
        CHECK_FALSE(c.samePartition);
        CHECK(c.differingPixels == 2);
        CHECK(c.firstX == 2);
        CHECK(c.expectedAtFirst == 2);
        CHECK(c.actualAtFirst == 1);
        CHECK_THAT(c.describe(), Catch::Matchers::Contains("different partition"));
    }
    SECTION("one component split") {
        // Every actual id meets one expected id, but not the other way round.
        const glccl::Comparison c = glccl::compareLabelings(expected, labelingOf(4, 1, labelsOf({1, 3, 2, 2})));
        CHECK_FALSE(c.samePartition);
        CHECK(c.differingPixels == 1);
        CHECK(c.firstX == 1);
        CHECK(c.firstY == 0);
    }
    SECTION("background disagrees") {
        const glccl::Comparison c = glccl::compareLabelings(expected, labelingOf(4, 1, labelsOf({1, 1, 2, 0})));
        CHECK_FALSE(c.samePartition);
        CHECK(c.differingPixels == 1);
        CHECK(c.firstX == 3);
        CHECK(c.actualAtFirst == 0);
    }
    SECTION("first differing pixel on a later row") {
        const Labeling e = labelingOf(3, 3, labelsOf({1, 0, 2, 1, 0, 2, 1, 1, 1}));
        const Labeling a = labelingOf(3, 3, labelsOf({1, 0, 2, 1, 0, 2, 1, 2, 1}));
        const glccl::Comparison c = glccl::compareLabelings(e, a);
        CHECK_FALSE(c.samePartition);
        CHECK(c.differingPixels == 1);
        CHECK(c.firstX == 1);
        CHECK(c.firstY == 2);
        CHECK(c.expectedAtFirst == 1);
        CHECK(c.actualAtFirst == 2);
    }
}

TEST_CASE("compare: tables are compared too", "[host]") {
    Component one;
    one.area = 2;
    one.width = 2;
    one.height = 1;
    one.centroidX = 0.5;
    Component other = one;
    other.centroidX = 0.5000000000000001;
    const Labeling e = labelingOf(2, 1, labelsOf({1, 1}), {one});
    const Labeling a = labelingOf(2, 1, labelsOf({1, 1}), {other});
    const glccl::Comparison c = glccl::compareLabelings(e, a);
    CHECK(c.identicalLabels);
    CHECK(c.samePartition);
    CHECK_FALSE(c.identicalTables);
    CHECK_FALSE(c.identical());
    CHECK_THAT(c.describe(), Catch::Matchers::Contains("tables differ"));
}

TEST_CASE("compare: different sizes", "[host]") {
    const Labeling e = labelingOf(2, 3, std::vector<std::uint32_t>(6, 1));
    const Labeling a = labelingOf(3, 2, std::vector<std::uint32_t>(6, 1));
    const glccl::Comparison c = glccl::compareLabelings(e, a);
    CHECK_FALSE(c.sameSize);
    CHECK_FALSE(c.identical());
    CHECK_FALSE(c.samePartition);
    CHECK_THAT(c.describe(), Catch::Matchers::Contains("size"));
    CHECK_THROWS_WITH(glccl::compareLabelings(e, labelingOf(3, 3, std::vector<std::uint32_t>(6, 1))),
                      Catch::Matchers::StartsWith("glccl::compareLabelings(): "));
}

TEST_CASE("compare: renamed reference labelings have the same partition", "[host]") {
    std::mt19937_64 rng(4242);
    for (int n = 0; n < 100; ++n) {
        const int w = 1 + int(rng() % 60), h = 1 + int(rng() % 60);
        const Labeling reference =
            glccl::labelReference(randomBinary(rng, w, h, 55), Connectivity::Eight, Criterion::binary());
        std::vector<std::uint32_t> ids = distinctIds(rng, reference.count(), 1, 0xFFFFFFFFu);
        Labeling renamedLabeling = labelingOf(w, h, renamed(reference.labels, ids), reference.components);
        glccl::Comparison c = glccl::compareLabelings(reference, renamedLabeling);
        CHECK(c.samePartition);
        if (reference.count() == 0) continue;
        // Give one pixel of some component the id of another component.
        if (reference.count() >= 2) {
            std::size_t i = 0;
            while (reference.labels[i] == 0) ++i;
            renamedLabeling.labels[i] = ids[reference.labels[i] == 1 ? 2 : 1];
            c = glccl::compareLabelings(reference, renamedLabeling);
            CHECK_FALSE(c.samePartition);
        }
    }
}

TEST_CASE("compare: diffImage colors", "[host]") {
    const Labeling e = labelingOf(4, 1, labelsOf({0, 1, 1, 0}));
    const Labeling a = labelingOf(4, 1, labelsOf({0, 1, 2, 3}));
    const Image diff = glccl::diffImage(e, a);
    REQUIRE(diff.width == 4);
    REQUIRE(diff.height == 1);
    REQUIRE(diff.channels == 4);
    auto rgba = [&](int x) {
        return std::vector<int>{diff.at(x, 0, 0), diff.at(x, 0, 1), diff.at(x, 0, 2), diff.at(x, 0, 3)};
    };
    CHECK(rgba(0) == std::vector<int>{0, 0, 0, 255});       // both background
    CHECK(rgba(2) == std::vector<int>{255, 0, 0, 255});     // labels differ
    CHECK(rgba(3) == std::vector<int>{255, 0, 0, 255});     // background against a label
    // Agreement on a label is a dark gray, distinct from black and red.
    const std::vector<int> agree = rgba(1);
    CHECK(agree[0] == agree[1]);
    CHECK(agree[1] == agree[2]);
    CHECK(agree[0] > 0);
    CHECK(agree[0] < 128);
    CHECK(agree[3] == 255);

    CHECK_THROWS_WITH(glccl::diffImage(e, labelingOf(2, 2, labelsOf({0, 0, 0, 0}))),
                      Catch::Matchers::StartsWith("glccl::diffImage(): "));
}

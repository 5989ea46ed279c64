// The reference labeler against a second, independent oracle: a breadth-first
// flood fill written here from the contract alone, with its own criterion
// test, its own numbering and its own component table.

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <vector>

#include "glccl/generate.hpp"
#include "glccl/reference.hpp"
#include "sanitizer_support.hpp"

using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;
using glccl::Labeling;

namespace {

struct OracleComponent {
    int minX, minY, maxX, maxY;
    std::uint64_t area, sumX, sumY;
};

struct OracleResult {
    std::vector<std::uint32_t> labels;
    std::vector<OracleComponent> components;
};

// The contract's criteria, restated: binary, segments and delta look at the
// single gray channel (0 is background); threshold has no background and
// compares every channel.
bool oracleForeground(const Image& image, int x, int y, const Criterion& criterion) {
    if (criterion.kind == Criterion::Kind::Threshold) return true;
    return image.at(x, y) != 0;
}

bool oracleJoined(const Image& image, int x0, int y0, int x1, int y1, const Criterion& criterion) {
    if (!oracleForeground(image, x0, y0, criterion) || !oracleForeground(image, x1, y1, criterion)) return false;
    switch (criterion.kind) {
        case Criterion::Kind::Binary: return true;
        case Criterion::Kind::Segments: return image.at(x0, y0) == image.at(x1, y1);
        case Criterion::Kind::Threshold:
            for (int c = 0; c < image.channels; ++c) {
                if (std::abs(image.at(x0, y0, c) - image.at(x1, y1, c)) > criterion.threshold) return false;
            }
            return true;
        case Criterion::Kind::Delta: return std::abs(image.at(x0, y0) - image.at(x1, y1)) <= criterion.delta;
    }
    return false;
}

// Seeds are taken in raster order, so a component is numbered when its first
// pixel in raster order is reached: the contract's numbering by construction.
OracleResult floodFill(const Image& image, Connectivity connectivity, const Criterion& criterion) {
    const int w = image.width, h = image.height;
    OracleResult result;
    result.labels.assign(std::size_t(w) * h, 0);
    std::vector<std::pair<int, int>> steps = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    if (connectivity == Connectivity::Eight) steps.insert(steps.end(), {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}});

    // Breadth-first: a component's pixels in the order reached, taken from
    // `head` on (one buffer for every component).
    std::vector<std::pair<int, int>> queue;
    for (int sy = 0; sy < h; ++sy) {
        for (int sx = 0; sx < w; ++sx) {
            if (result.labels[std::size_t(sy) * w + sx] != 0 || !oracleForeground(image, sx, sy, criterion)) continue;
            const auto label = std::uint32_t(result.components.size() + 1);
            OracleComponent c{sx, sy, sx, sy, 0, 0, 0};
            queue.assign(1, {sx, sy});
            result.labels[std::size_t(sy) * w + sx] = label;
            for (std::size_t head = 0; head < queue.size(); ++head) {
                const auto [x, y] = queue[head];
                c.minX = std::min(c.minX, x);
                c.maxX = std::max(c.maxX, x);
                c.minY = std::min(c.minY, y);
                c.maxY = std::max(c.maxY, y);
                c.area += 1;
                c.sumX += std::uint64_t(x);
                c.sumY += std::uint64_t(y);
                for (const auto& [dx, dy] : steps) {
                    const int nx = x + dx, ny = y + dy;
                    if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                    std::uint32_t& neighbour = result.labels[std::size_t(ny) * w + nx];
                    if (neighbour != 0 || !oracleJoined(image, x, y, nx, ny, criterion)) continue;
                    neighbour = label;
                    queue.emplace_back(nx, ny);
                }
            }
            result.components.push_back(c);
        }
    }
    return result;
}

std::string describeImage(const Image& image) {
    std::ostringstream out;
    out << image.width << "x" << image.height << "x" << image.channels;
    if (image.pixels.size() <= 64) {
        out << " {";
        for (std::uint8_t v : image.pixels) out << int(v) << ",";
        out << "}";
    }
    return out.str();
}

// Returns true when everything matched; reports only the first mismatch so
// that a failure does not print thousands of lines.
bool matchesOracle(const Image& image, Connectivity connectivity, const Criterion& criterion) {
    const Labeling actual = glccl::labelReference(image, connectivity, criterion);
    const OracleResult expected = floodFill(image, connectivity, criterion);
    INFO(describeImage(image) << " connectivity " << int(connectivity) << " " << criterion.toString());
    if (actual.width != image.width || actual.height != image.height) {
        FAIL_CHECK("size " << actual.width << "x" << actual.height);
        return false;
    }
    for (std::size_t i = 0; i < expected.labels.size(); ++i) {
        if (actual.labels[i] != expected.labels[i]) {
            FAIL_CHECK("pixel " << i << ": reference " << actual.labels[i] << ", oracle " << expected.labels[i]);
            return false;
        }
    }
    if (actual.components.size() != expected.components.size()) {
        FAIL_CHECK("reference has " << actual.components.size() << " components, oracle "
                                    << expected.components.size());
        return false;
    }
    for (std::size_t i = 0; i < expected.components.size(); ++i) {
        const OracleComponent& e = expected.components[i];
        const glccl::Component& a = actual.components[i];
        const bool same = a.left == std::uint32_t(e.minX) && a.top == std::uint32_t(e.minY) &&
                          a.width == std::uint32_t(e.maxX - e.minX + 1) &&
                          a.height == std::uint32_t(e.maxY - e.minY + 1) && a.area == e.area &&
                          a.centroidX == double(e.sumX) / double(e.area) &&
                          a.centroidY == double(e.sumY) / double(e.area);
        if (!same) {
            FAIL_CHECK("component " << i + 1 << " differs: reference left " << a.left << " top " << a.top
                                    << " size " << a.width << "x" << a.height << " area " << a.area);
            return false;
        }
    }
    return true;
}

// Inputs come from the test's own generator so that the oracle never
// depends on code under test.
// The random images' count: under AddressSanitizer a fifth of it, which
// still gives each density and level count a few images of every kind of
// width and height; the optimized build runs them all, for the value
// patterns the rest adds.
constexpr int randomImages(int count) { return glccl::test::kAddressSanitizer ? count / 5 : count; }

Image randomTestImage(std::mt19937_64& rng, int channels) {
    const int w = 1 + int(rng() % 64);
    const int h = 1 + int(rng() % 64);
    const int levels = 2 + int(rng() % 4);  // 2..5
    // Densities from empty to full, with the percolation region well covered.
    static const int kDensities[] = {0, 5, 20, 40, 50, 55, 60, 70, 85, 100};
    const int density = kDensities[rng() % 10];
    Image image(w, h, channels);
    for (std::size_t i = 0; i < std::size_t(w) * h; ++i) {
        if (int(rng() % 100) >= density) continue;
        for (int c = 0; c < channels; ++c) {
            // Nonzero levels for gray; any level per channel for color.
            const int level = channels == 1 ? 1 + int(rng() % (levels - 1)) : int(rng() % levels);
            image.pixels[i * channels + c] = std::uint8_t(level * 255 / (levels - 1));
        }
    }
    return image;
}

}  // namespace

TEST_CASE("reference: matches a flood-fill oracle on random gray images", "[host]") {
    std::mt19937_64 rng(20240611);
    const Criterion criteria[] = {Criterion::binary(),         Criterion::segments(),
                                  Criterion::thresholded(0),   Criterion::thresholded(1),
                                  Criterion::thresholded(63),  Criterion::thresholded(64),
                                  Criterion::thresholded(127), Criterion::thresholded(255)};
    int checked = 0;
    for (int n = 0; n < randomImages(1500); ++n) {
        const Image image = randomTestImage(rng, 1);
        for (const Criterion& criterion : criteria) {
            for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
                if (!matchesOracle(image, connectivity, criterion)) return;
                ++checked;
            }
        }
    }
    CHECK(checked == randomImages(1500) * 8 * 2);
}

TEST_CASE("reference: matches a flood-fill oracle on random RGBA images", "[host]") {
    std::mt19937_64 rng(77);
    const Criterion criteria[] = {Criterion::thresholded(0), Criterion::thresholded(63), Criterion::thresholded(85),
                                  Criterion::thresholded(128), Criterion::thresholded(255)};
    int checked = 0;
    for (int n = 0; n < randomImages(1000); ++n) {
        const Image image = randomTestImage(rng, 4);
        for (const Criterion& criterion : criteria) {
            for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
                if (!matchesOracle(image, connectivity, criterion)) return;
                ++checked;
            }
        }
    }
    CHECK(checked == randomImages(1000) * 5 * 2);
}

TEST_CASE("reference: matches a flood-fill oracle on generated families", "[host]") {
    for (const std::string& family : glccl::generatedFamilies()) {
        for (auto [w, h] : {std::pair{1, 1}, {1, 57}, {61, 1}, {37, 53}, {200, 150}}) {
            const Image image = glccl::generateFamily(family, w, h, 5);
            INFO(family << " " << w << "x" << h);
            for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
                CHECK(matchesOracle(image, connectivity, Criterion::binary()));
            }
        }
    }
}

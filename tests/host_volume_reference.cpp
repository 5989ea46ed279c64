// The CPU reference on volumes (6-, 18- and 26-connectivity) against a
// breadth-first flood fill written here from the definitions alone: a
// component is the set of foreground voxels reached through neighbours the
// criterion connects; components are numbered by their first voxel in
// raster order (z, then y, then x), as scipy.ndimage.label numbers them.
// The oracle shares no code with the reference: other neighbour sets, other
// traversal, its own table. tests/python/test_volumes.py checks the same
// against scipy itself.

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "glccl/compare.hpp"
#include "glccl/error.hpp"
#include "glccl/reference.hpp"
#include "volume_support.hpp"

using namespace glccl;

using glccl::test::kVolumeConnectivities;
using glccl::test::randomTestVolume;
using glccl::test::setVoxel;

namespace {

// The value of sample c of voxel i, from the bytes as Image stores them.
std::uint64_t valueAt(const Image& image, std::size_t i, int c) { return image.sample(i, c); }

bool foreground(const Image& image, std::size_t i, const Criterion& criterion) {
    if (criterion.kind == Criterion::Kind::Threshold) return true;
    const std::uint64_t level = criterion.kind == Criterion::Kind::Binary ? std::uint64_t(criterion.level) : 0;
    for (int c = 0; c < image.channels; ++c)
        if (valueAt(image, i, c) > level) return true;
    return false;
}

bool joined(const Image& image, std::size_t a, std::size_t b, const Criterion& criterion) {
    if (!foreground(image, a, criterion) || !foreground(image, b, criterion)) return false;
    for (int c = 0; c < image.channels; ++c) {
        const auto va = std::int64_t(valueAt(image, a, c)), vb = std::int64_t(valueAt(image, b, c));
        if (criterion.kind == Criterion::Kind::Segments && va != vb) return false;
        if (criterion.kind == Criterion::Kind::Threshold && std::llabs(va - vb) > criterion.threshold) return false;
    }
    return true;
}

// Every neighbour offset of the connectivity, both sides: the faces (one
// coordinate differs), the edges (two) and the corners (three).
std::vector<std::array<int, 3>> neighbourhood(Connectivity connectivity) {
    const int most = connectivity == Connectivity::Six ? 1 : connectivity == Connectivity::Eighteen ? 2 : 3;
    std::vector<std::array<int, 3>> offsets;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int differing = (dx != 0) + (dy != 0) + (dz != 0);
                if (differing >= 1 && differing <= most) offsets.push_back({dx, dy, dz});
            }
    return offsets;
}

Labeling floodFill(const Image& image, Connectivity connectivity, const Criterion& criterion) {
    const int w = image.width, h = image.height, d = image.depth;
    const auto offsets = neighbourhood(connectivity);
    Labeling out;
    out.width = w, out.height = h, out.depth = d, out.dimensions = 3;
    out.labels.assign(std::size_t(w) * h * d, 0);
    std::uint32_t next = 0;
    for (int z = 0; z < d; ++z)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const std::size_t start = (std::size_t(z) * h + y) * w + x;
                if (out.labels[start] != 0 || !foreground(image, start, criterion)) continue;
                const std::uint32_t label = ++next;
                out.labels[start] = label;
                std::deque<std::array<int, 3>> queue{{x, y, z}};
                std::uint64_t sx = 0, sy = 0, sz = 0, area = 0;
                int x0 = x, x1 = x, y0 = y, y1 = y, z0 = z, z1 = z;
                while (!queue.empty()) {
                    const auto [cx, cy, cz] = queue.front();
                    queue.pop_front();
                    const std::size_t at = (std::size_t(cz) * h + cy) * w + cx;
                    sx += cx, sy += cy, sz += cz, ++area;
                    x0 = std::min(x0, cx), x1 = std::max(x1, cx), y0 = std::min(y0, cy), y1 = std::max(y1, cy);
                    z0 = std::min(z0, cz), z1 = std::max(z1, cz);
                    for (const auto& o : offsets) {
                        const int nx = cx + o[0], ny = cy + o[1], nz = cz + o[2];
                        if (nx < 0 || ny < 0 || nz < 0 || nx >= w || ny >= h || nz >= d) continue;
                        const std::size_t n = (std::size_t(nz) * h + ny) * w + nx;
                        if (out.labels[n] != 0 || !joined(image, at, n, criterion)) continue;
                        out.labels[n] = label;
                        queue.push_back({nx, ny, nz});
                    }
                }
                Component c;
                c.left = std::uint32_t(x0), c.top = std::uint32_t(y0), c.front = std::uint32_t(z0);
                c.width = std::uint32_t(x1 - x0 + 1), c.height = std::uint32_t(y1 - y0 + 1);
                c.depth = std::uint32_t(z1 - z0 + 1);
                c.area = area;
                c.centroidX = double(sx) / double(area);
                c.centroidY = double(sy) / double(area);
                c.centroidZ = double(sz) / double(area);
                out.components.push_back(c);
            }
    return out;
}

void requireSame(const Image& volume, Connectivity connectivity, const Criterion& criterion) {
    INFO(volume.width << "x" << volume.height << "x" << volume.depth << ", " << volume.sampleBits << "-bit, "
                      << glccl::neighbourCount(connectivity) << "-connectivity, " << criterion.toString());
    const Labeling expected = floodFill(volume, connectivity, criterion);
    // Both forests: 32-bit indices, and the 64-bit ones of volumes past 2^32
    // voxels (too large for a test), here on the same small volumes.
    for (bool wide : {false, true}) {
        INFO((wide ? "64" : "32") << "-bit forest");
        const Labeling actual = glccl::detail::labelReference(volume, connectivity, criterion, wide);
        REQUIRE(actual.shape() == volume.shape());
        REQUIRE(actual.labels == expected.labels);
        REQUIRE(actual.components.size() == expected.components.size());
        for (std::size_t i = 0; i < expected.components.size(); ++i) {
            INFO("component " << i + 1);
            REQUIRE(actual.components[i] == expected.components[i]);
        }
    }
}

}  // namespace

TEST_CASE("volumes: the reference equals a flood fill on random volumes of odd sizes and densities", "[host]") {
    std::uint32_t seed = 1;
    for (const auto& size : std::vector<std::array<int, 3>>{{7, 5, 3}, {13, 11, 9}, {1, 1, 17}, {17, 1, 1},
                                                             {1, 19, 1}, {9, 8, 1}, {16, 16, 16}, {31, 3, 5}}) {
        for (double density : {0.1, 0.3, 0.5, 0.8}) {
            const Image volume = randomTestVolume(size[0], size[1], size[2], density, seed++);
            for (Connectivity c : kVolumeConnectivities) requireSame(volume, c, Criterion::binary());
        }
    }
}

TEST_CASE("volumes: corners and edges alone separate 6-, 18- and 26-connectivity", "[host]") {
    // Pairs of voxels, apart from each other: one touching only at a corner,
    // two only along an edge, one across a face. 26 joins every pair, 18 all
    // but the corner pair, 6 the face pair only.
    Image volume(Shape::volume(13, 3, 3));
    const auto set = [&](int x, int y, int z) { volume.setSample((std::size_t(z) * 3 + y) * 13 + x, 0, 255); };
    set(0, 0, 0), set(1, 1, 1);    // corner
    set(4, 0, 0), set(5, 1, 0);    // edge (in one slice)
    set(8, 0, 0), set(8, 0, 1);    // face
    set(11, 2, 1), set(11, 1, 2);  // edge (across slices)
    const std::size_t expected[] = {4, 5, 7};  // components at 26, 18, 6
    int i = 0;
    for (Connectivity c : {Connectivity::TwentySix, Connectivity::Eighteen, Connectivity::Six}) {
        requireSame(volume, c, Criterion::binary());
        CHECK(glccl::labelReference(volume, c, Criterion::binary()).count() == expected[i++]);
    }
}

TEST_CASE("volumes: a helix, a comb of slices and one-slice volumes", "[host]") {
    // A helix that turns through every slice: one component at every
    // connectivity, whose first voxel is in slice 0.
    Image helix(Shape::volume(21, 21, 40));
    for (int z = 0; z < 40; ++z) {
        const double a = z * 0.4;
        const int x = 10 + int(std::lround(8 * std::cos(a))), y = 10 + int(std::lround(8 * std::sin(a)));
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) helix.setSample((std::size_t(z) * 21 + y + dy) * 21 + x + dx, 0, 1);
    }
    // A comb: teeth in alternate slices joined by a spine along the back.
    Image comb(Shape::volume(9, 6, 11));
    for (int z = 0; z < 11; ++z)
        for (int y = 0; y < 6; ++y)
            for (int x = 0; x < 9; ++x)
                if (y == 5 || (z % 2 == 0 && x % 2 == 0)) comb.setSample((std::size_t(z) * 6 + y) * 9 + x, 0, 1);
    for (Connectivity c : kVolumeConnectivities) {
        requireSame(helix, c, Criterion::binary());
        requireSame(comb, c, Criterion::binary());
        requireSame(randomTestVolume(23, 17, 1, 0.5, 77), c, Criterion::binary());
    }
}

TEST_CASE("volumes: every criterion and sample width", "[host]") {
    std::uint32_t seed = 100;
    for (int bits : {8, 16, 32}) {
        const Image segments = randomTestVolume(11, 9, 7, 0.7, seed++, bits, 3);
        Image levels = randomTestVolume(11, 9, 7, 1.0, seed++, bits, 40);
        for (Connectivity c : kVolumeConnectivities) {
            requireSame(segments, c, Criterion::segments());
            requireSame(segments, c, Criterion::binary());
            requireSame(levels, c, Criterion::binaryAbove(levels.maxValue() - 20));
            requireSame(levels, c, Criterion::thresholded(7));
        }
    }
}

TEST_CASE("volumes: the reference refuses what it cannot label, by name", "[host]") {
    CHECK_THROWS_WITH(glccl::labelReference(Image(Shape::volume(0, 4, 4)), Connectivity::Six, Criterion::binary()),
                      "glccl::labelReference(): the volume is empty (0x4x4)");
    Image lying(Shape::volume(3, 3, 3));
    lying.pixels.pop_back();
    CHECK_THROWS_AS(glccl::labelReference(lying, Connectivity::Six, Criterion::binary()), glccl::Error);
}

TEST_CASE("volumes: labelings of volumes compare voxel by voxel, the first difference named in x, y, z", "[host]") {
    const Image volume = randomTestVolume(9, 7, 5, 0.5, 42);
    const Labeling expected = glccl::labelReference(volume, Connectivity::TwentySix, Criterion::binary());
    CHECK(glccl::compareLabelings(expected, expected).identical());
    Labeling changed = expected;
    const std::size_t at = (std::size_t(3) * 7 + 4) * 9 + 6;  // (6, 4, 3)
    changed.labels[at] = changed.labels[at] == 0 ? 1 : 0;
    const glccl::Comparison c = glccl::compareLabelings(expected, changed);
    CHECK_FALSE(c.identicalLabels);
    CHECK(c.differingPixels == 1);
    CHECK((c.firstX == 6 && c.firstY == 4 && c.firstZ == 3));
    CHECK_THAT(c.describe(), Catch::Contains("1 voxels differ, the first at (6, 4, 3)"));
    const Image difference = glccl::diffImage(expected, changed);
    CHECK((difference.width == 9 && difference.height == 7 * 5));
    CHECK(difference.pixels[at * 4] == 255);  // red where they differ
    Labeling slice = expected;
    slice.depth = 1, slice.dimensions = 2, slice.height = 7 * 5;
    CHECK_FALSE(glccl::compareLabelings(expected, slice).sameSize);
}

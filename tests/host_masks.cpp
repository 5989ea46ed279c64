// Neighbourhoods other than the named connectivities (scipy.ndimage's
// structure: any symmetric 3x3 or 3x3x3 block): the reference against a
// flood fill written here, over every neighbour of the block; the cpu
// engine against the reference, labels and table byte for byte, at several
// thread counts and with stripes shorter than a link reaches back; the
// refusals of both.

#include <catch2/catch.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "glccl/cpu_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/reference.hpp"
#include "labeler_detail.hpp"
#include "labeling_check.hpp"
#include "sample_support.hpp"

using glccl::Component;
using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;
using glccl::Labeling;
using glccl::test::requireSameLabeling;
using glccl::Neighbourhood;
using glccl::Shape;

namespace {

constexpr std::uint64_t kSalt = 0x3A5C5;

// The offsets of the block whose opposite comes later in raster order: one
// of each symmetric pair.
std::vector<int> firstOfPairs(int dimensions) {
    std::vector<int> bits;
    for (int dz = dimensions == 3 ? -1 : 0; dz <= (dimensions == 3 ? 1 : 0); ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const bool before = dz < 0 || (dz == 0 && (dy < 0 || (dy == 0 && dx < 0)));
                if (before) bits.push_back(Neighbourhood::bitOf(dx, dy, dz));
            }
    return bits;
}

// The symmetric block whose pairs are the bits of `pairs` (bit i: pair i of
// firstOfPairs), both offsets of each set.
Neighbourhood symmetric(int dimensions, std::uint32_t pairs) {
    const std::vector<int> firsts = firstOfPairs(dimensions);
    const int centre = Neighbourhood::bitOf(0, 0, 0);
    std::uint32_t mask = 0;
    for (std::size_t i = 0; i < firsts.size(); ++i)
        if ((pairs >> i) & 1u) mask |= (std::uint32_t(1) << firsts[i]) | (std::uint32_t(1) << (2 * centre - firsts[i]));
    return Neighbourhood::fromMask(dimensions, mask);
}

// Every symmetric 3x3 block (2^4 of them) and a sample of the 2^13 3x3x3
// ones, with the named among them.
std::vector<Neighbourhood> imageNeighbourhoods() {
    std::vector<Neighbourhood> all;
    for (std::uint32_t pairs = 0; pairs < 16; ++pairs) all.push_back(symmetric(2, pairs));
    return all;
}

std::vector<Neighbourhood> volumeNeighbourhoods(int count, std::uint64_t seed) {
    std::vector<Neighbourhood> some{symmetric(3, 0), symmetric(3, (1u << 13) - 1)};
    glccl::test::XorShift random(seed, kSalt);
    while (int(some.size()) < count) some.push_back(symmetric(3, std::uint32_t(random.next() % (1u << 13))));
    return some;
}

// The first element of `image` in raster order: whether it is foreground and
// whether two elements connect, for binary (nonzero) and segments (equal
// nonzero values), written here rather than taken from the reference.
bool foreground(const Image& image, std::size_t i) { return image.sample(i) != 0; }
bool connected(const Image& image, const Criterion& criterion, std::size_t a, std::size_t b) {
    if (!foreground(image, a) || !foreground(image, b)) return false;
    return criterion.kind == Criterion::Kind::Binary || image.sample(a) == image.sample(b);
}

// Labels by flood fill from each unlabeled foreground element in raster
// order, over every offset of the block (both of each pair): components
// come numbered by their first element, as glccl numbers them.
std::vector<std::uint32_t> floodFill(const Image& image, const Neighbourhood& neighbourhood,
                                     const Criterion& criterion, std::uint32_t& count) {
    const std::int64_t w = image.width, h = image.height, d = image.depth;
    std::vector<std::uint32_t> labels(image.shape().count(), 0);
    count = 0;
    for (std::size_t start = 0; start < labels.size(); ++start) {
        if (labels[start] != 0 || !foreground(image, start)) continue;
        labels[start] = ++count;
        std::deque<std::size_t> queue{start};
        while (!queue.empty()) {
            const std::size_t i = queue.front();
            queue.pop_front();
            const std::int64_t x = std::int64_t(i) % w, y = std::int64_t(i) / w % h, z = std::int64_t(i) / (w * h);
            for (int dz = -1; dz <= 1; ++dz)
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        if (neighbourhood.dimensions() == 2 && dz != 0) continue;
                        if ((dx == 0 && dy == 0 && dz == 0) || !neighbourhood.joins(dx, dy, dz)) continue;
                        const std::int64_t nx = x + dx, ny = y + dy, nz = z + dz;
                        if (nx < 0 || ny < 0 || nz < 0 || nx >= w || ny >= h || nz >= d) continue;
                        const auto n = std::size_t((nz * h + ny) * w + nx);
                        if (labels[n] == 0 && connected(image, criterion, i, n)) {
                            labels[n] = count;
                            queue.push_back(n);
                        }
                    }
        }
    }
    return labels;
}

// Values 0..levels-1 (0 the background) at `density` percent foreground.
Image randomImage(const Shape& shape, int bits, int density, std::uint64_t levels, std::uint64_t seed) {
    Image image(shape, 1, bits);
    glccl::test::XorShift random(seed, kSalt + 1);
    for (std::size_t i = 0; i < shape.count(); ++i) {
        const bool on = int(random.next() % 100) < density;
        image.setSample(i, 0, on ? 1 + random.next() % (levels - 1) : 0);
    }
    return image;
}

std::vector<Shape> imageShapes() {
    return {Shape::image(1, 1),  Shape::image(1, 23), Shape::image(23, 1),   Shape::image(2, 2),
            Shape::image(17, 13), Shape::image(64, 5), Shape::image(65, 33), Shape::image(130, 9)};
}

std::vector<Shape> volumeShapes() {
    return {Shape::volume(1, 1, 1), Shape::volume(1, 1, 9), Shape::volume(9, 1, 1), Shape::volume(1, 7, 3),
            Shape::volume(7, 6, 5), Shape::volume(13, 4, 9), Shape::volume(66, 3, 4), Shape::volume(2, 2, 12)};
}

std::string describe(const Image& image, const Neighbourhood& neighbourhood, const Criterion& criterion) {
    std::string text = std::to_string(image.width) + "x" + std::to_string(image.height);
    if (image.dimensions == 3) text += "x" + std::to_string(image.depth);
    return text + " c" + std::to_string(image.channels) + " " + std::to_string(image.sampleBits) + "-bit, " +
           neighbourhood.toString() + ", " + criterion.toString();
}

// One labeler per thread count for the whole run, its threads kept.
glccl::cpu::Labeler& labelerWith(int threads) {
    static std::vector<std::unique_ptr<glccl::cpu::Labeler>> labelers(8);
    if (!labelers[std::size_t(threads)]) labelers[std::size_t(threads)] = std::make_unique<glccl::cpu::Labeler>(threads);
    return *labelers[std::size_t(threads)];
}

// The cpu engine at 1, 2, 3 and 7 threads, and with stripes of a row or a
// few elements (more stripes than threads, shorter than a slice), against
// the reference.
void requireCpuLikeReference(const Image& image, const Neighbourhood& neighbourhood, const Criterion& criterion) {
    const Labeling expected = glccl::labelReference(image, neighbourhood, criterion);
    for (int threads : {1, 2, 3, 7}) {
        for (std::uint64_t stripeLimit : {std::uint64_t(0), std::uint64_t(image.width), std::uint64_t(1)}) {
            INFO(describe(image, neighbourhood, criterion) << ", " << threads << " threads, stripes of at most "
                                                           << stripeLimit << " elements (0: any)");
            std::vector<std::uint32_t> labels(image.shape().count(), 0xDEADBEEFu);
            std::vector<Component> table(3);
            glccl::cpu::Options options;
            options.threads = threads;
            glccl::cpu::Labeler& labeler = labelerWith(threads);
            std::uint32_t count;
            if (stripeLimit == 0) {
                count = labeler.label(image, neighbourhood, criterion, labels.data(), table, options);
            } else {
                glccl::cpu::detail::ScopedStripeLimit scoped(stripeLimit);
                count = labeler.label(image, neighbourhood, criterion, labels.data(), table, options);
            }
            requireSameLabeling(expected, labels, table, count);
        }
    }
}

}  // namespace

TEST_CASE("neighbourhoods: the named connectivities are blocks, and blocks are checked", "[host]") {
    CHECK(Neighbourhood(Connectivity::Four).toString() == "4");
    CHECK(Neighbourhood(Connectivity::Four).joins(0, -1));
    CHECK_FALSE(Neighbourhood(Connectivity::Four).joins(1, 1));
    CHECK(Neighbourhood(Connectivity::Eighteen).joins(1, 1, 0));
    CHECK_FALSE(Neighbourhood(Connectivity::Eighteen).joins(1, 1, 1));
    CHECK(Neighbourhood(Connectivity::TwentySix).joins(1, 1, 1));
    for (Connectivity c : {Connectivity::Four, Connectivity::Eight, Connectivity::Six, Connectivity::Eighteen,
                           Connectivity::TwentySix}) {
        const Neighbourhood n = Neighbourhood::fromMask(glccl::dimensionsOf(c), Neighbourhood(c).mask());
        CHECK(n.isNamed());
        CHECK(n.named() == c);
    }
    // The centre is no neighbour; a vertical line is none of the named.
    const std::uint32_t line = (1u << Neighbourhood::bitOf(0, -1)) | (1u << Neighbourhood::bitOf(0, 1));
    const Neighbourhood vertical = Neighbourhood::fromMask(2, line | (1u << Neighbourhood::bitOf(0, 0)));
    CHECK(vertical.mask() == line);
    CHECK_FALSE(vertical.isNamed());
    CHECK(vertical.toString() == "[[0, 1, 0], [0, 0, 0], [0, 1, 0]]");
    CHECK_THROWS_WITH(Neighbourhood::fromMask(2, 1u << Neighbourhood::bitOf(0, -1)),
                      Catch::Contains("is not symmetric"));
    CHECK_THROWS_WITH(Neighbourhood::fromMask(2, 1u << Neighbourhood::bitOf(0, 0, 1)),
                      Catch::Contains("outside the 3x3 block"));
    CHECK_THROWS_WITH(Neighbourhood::fromMask(4, 0), Catch::Contains("2 or 3 dimensions"));

    // A 3x3 block labels images, a 3x3x3 one volumes: both labelers refuse the other.
    std::vector<std::uint32_t> labels(8);
    std::vector<Component> table;
    const Image volume(Shape::volume(2, 2, 2));
    CHECK_THROWS_WITH(glccl::labelReference(volume, vertical, Criterion::binary()),
                      Catch::Contains("is 3x3, for 2-D images; a volume takes a 3x3x3 one"));
    CHECK_THROWS_WITH(glccl::cpu::label(volume, vertical, Criterion::binary(), labels.data(), table),
                      Catch::Contains("glccl::cpu::Labeler::label(): the neighbourhood"));
    const Image image(Shape::image(4, 2));
    CHECK_THROWS_WITH(glccl::cpu::label(image, symmetric(3, 5), Criterion::binary(), labels.data(), table),
                      Catch::Contains("is 3x3x3, for volumes; a 2-D image takes a 3x3 one"));
}

namespace {

void requireLikeFloodFill(const Image& image, const Neighbourhood& neighbourhood, const Criterion& criterion,
                          int density) {
    INFO(describe(image, neighbourhood, criterion) << ", " << density << "% foreground");
    std::uint32_t count = 0;
    const std::vector<std::uint32_t> expected = floodFill(image, neighbourhood, criterion, count);
    const Labeling labeling = glccl::labelReference(image, neighbourhood, criterion);
    REQUIRE(labeling.count() == count);
    REQUIRE(labeling.labels == expected);
}

}  // namespace

TEST_CASE("neighbourhoods: the reference equals a flood fill over every block", "[host]") {
    std::uint64_t seed = 1;
    for (const Criterion& criterion : {Criterion::binary(), Criterion::segments()}) {
        for (const Shape& shape : imageShapes()) {
            for (const Neighbourhood& neighbourhood : imageNeighbourhoods()) {
                for (int density : {30, 60, 90}) {
                    requireLikeFloodFill(randomImage(shape, 8, density, 4, ++seed), neighbourhood, criterion,
                                         density);
                }
            }
        }
        for (const Shape& shape : volumeShapes()) {
            for (const Neighbourhood& neighbourhood : volumeNeighbourhoods(12, seed)) {
                for (int density : {30, 70}) {
                    requireLikeFloodFill(randomImage(shape, 8, density, 4, ++seed), neighbourhood, criterion,
                                         density);
                }
            }
        }
    }
}

TEST_CASE("cpu engine: every 3x3 block, binary and segments, equals the reference at every thread count",
          "[host][cpu]") {
    std::uint64_t seed = 100;
    for (const Shape& shape : imageShapes()) {
        for (const Neighbourhood& neighbourhood : imageNeighbourhoods()) {
            for (int density : {25, 55, 85}) {
                requireCpuLikeReference(randomImage(shape, 8, density, 2, ++seed), neighbourhood, Criterion::binary());
                requireCpuLikeReference(randomImage(shape, 16, density, 4, ++seed), neighbourhood,
                                        Criterion::segments());
            }
        }
    }
}

TEST_CASE("cpu engine: random 3x3x3 blocks equal the reference at every thread count", "[host][cpu]") {
    std::uint64_t seed = 200;
    for (const Shape& shape : volumeShapes()) {
        for (const Neighbourhood& neighbourhood : volumeNeighbourhoods(10, seed)) {
            for (int density : {30, 75}) {
                requireCpuLikeReference(randomImage(shape, 8, density, 2, ++seed), neighbourhood, Criterion::binary());
                requireCpuLikeReference(randomImage(shape, 32, density, 3, ++seed), neighbourhood,
                                        Criterion::segments());
            }
        }
    }
}

TEST_CASE("cpu engine: blocks with every criterion and sample width equal the reference", "[host][cpu]") {
    std::uint64_t seed = 300;
    const std::vector<Neighbourhood> images = imageNeighbourhoods();
    const std::vector<Neighbourhood> volumes = volumeNeighbourhoods(6, seed);
    for (int bits : {8, 16, 32, 64}) {
        const std::uint64_t top = Image::largestSample(bits);
        const std::vector<Criterion> criteria{Criterion::binaryAbove(2), Criterion::thresholded(3),
                                              Criterion::withinDelta(2)};
        for (const Criterion& criterion : criteria) {
            for (const Shape& shape : {Shape::image(37, 11), Shape::image(70, 4)}) {
                const Image image =
                    glccl::test::samplesNearCentres(shape, bits, ++seed, kSalt, {0, 3, 9, top / 2, top}, 2);
                for (const Neighbourhood& neighbourhood : images) requireCpuLikeReference(image, neighbourhood, criterion);
            }
            const Shape shape = Shape::volume(9, 7, 5);
            const Image volume =
                glccl::test::samplesNearCentres(shape, bits, ++seed, kSalt, {0, 3, 9, top / 2, top}, 2);
            for (const Neighbourhood& neighbourhood : volumes) requireCpuLikeReference(volume, neighbourhood, criterion);
        }
    }
    // Threshold on colour: every channel within T.
    Image colour(Shape::image(23, 9), 4, 8);
    glccl::test::XorShift random(seed, kSalt + 2);
    for (std::uint8_t& sample : colour.pixels) sample = std::uint8_t(random.next() % 3 * 40 + random.next() % 3);
    for (const Neighbourhood& neighbourhood : images)
        requireCpuLikeReference(colour, neighbourhood, Criterion::thresholded(2));
}

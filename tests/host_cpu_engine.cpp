// The cpu engine (glccl_cpu) against the reference labeler: labels and table
// byte for byte, on random images and volumes of many densities, odd and
// degenerate shapes, the hard patterns (checkerboards, spirals, combs, bars
// that every stripe border cuts), every connectivity, criterion and sample
// width, at thread counts from 1 to more than the rows; its refusals against
// the reference's; cancellation; a labeler reused across inputs.

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "glccl/cpu_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/reference.hpp"
#include "labeler_detail.hpp"
#include "labeling_check.hpp"
#include "thread_pool.hpp"
#include "sample_support.hpp"

using glccl::Component;
using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;
using glccl::Labeling;
using glccl::Shape;

namespace {

constexpr std::uint64_t kSalt = 0xC0CE11;

std::vector<int> threadCounts() { return {1, 2, 3, 7, 16, glccl::cpu::defaultThreads()}; }

// One labeler per thread count for the whole run: the tests label thousands
// of small inputs, and starting threads for each would cost more than the
// labeling (the one-call entry, glccl::cpu::label, is tested on its own).
glccl::cpu::Labeler& labelerWith(int threads) {
    static std::vector<std::pair<int, std::unique_ptr<glccl::cpu::Labeler>>> labelers;
    for (auto& [count, labeler] : labelers)
        if (count == threads) return *labeler;
    labelers.emplace_back(threads, std::make_unique<glccl::cpu::Labeler>(threads));
    return *labelers.back().second;
}

std::string describe(const Image& image, Connectivity connectivity, const Criterion& criterion) {
    std::string text = std::to_string(image.width) + "x" + std::to_string(image.height);
    if (image.dimensions == 3) text += "x" + std::to_string(image.depth);
    return text + " c" + std::to_string(image.channels) + " " + std::to_string(image.sampleBits) + "-bit, " +
           std::to_string(glccl::neighbourCount(connectivity)) + "-connected, " + criterion.toString();
}

// Labels and table of `labeler` (by default the shared one of `threads`
// threads) equal the reference's; every label is written (the array starts
// as junk) and the table's old rows do not leak (it starts as junk too).
void requireLikeReference(const Labeling& expected, const Image& image, Connectivity connectivity,
                          const Criterion& criterion, int threads, glccl::cpu::Labeler* labeler = nullptr) {
    INFO(describe(image, connectivity, criterion) << ", " << threads << " threads");
    std::vector<std::uint32_t> labels(image.shape().count(), 0xDEADBEEFu);
    Component junk;
    junk.left = junk.top = junk.width = junk.height = 77;
    junk.area = 99;
    std::vector<Component> table(expected.count() / 2 + 3, junk);
    glccl::cpu::Options options;
    options.threads = threads;
    glccl::cpu::Labeler& with = labeler ? *labeler : labelerWith(threads);
    const std::uint32_t count = with.label(image, connectivity, criterion, labels.data(), table, options);
    glccl::test::requireSameLabeling(expected, labels, table, count);
}

void checkAllThreadCounts(const Image& image, Connectivity connectivity, const Criterion& criterion) {
    const Labeling expected = glccl::labelReference(image, connectivity, criterion);
    for (int threads : threadCounts()) requireLikeReference(expected, image, connectivity, criterion, threads);
}

std::vector<Connectivity> connectivitiesOf(const Image& image) {
    if (image.dimensions == 3) return {Connectivity::Six, Connectivity::Eighteen, Connectivity::TwentySix};
    return {Connectivity::Four, Connectivity::Eight};
}

// A 1-channel binary input (0 / 255) of `shape` from a pattern.
template <class Pattern>
Image pattern(const Shape& shape, Pattern&& on) {
    Image image(shape, 1, 8);
    std::size_t i = 0;
    for (std::int64_t z = 0; z < shape.depth; ++z)
        for (std::int64_t y = 0; y < shape.height; ++y)
            for (std::int64_t x = 0; x < shape.width; ++x) image.pixels[i++] = on(x, y, z) ? 255 : 0;
    return image;
}

// Random values of `bits` bits near a few centres: runs of equal, close and
// far values for segments, threshold and delta; zeros for their background.
Image nearCentres(const Shape& shape, int bits, std::uint64_t seed, std::uint64_t spread) {
    const std::uint64_t top = Image::largestSample(bits);
    return glccl::test::samplesNearCentres(shape, bits, seed, kSalt, {0, 3, 40, top / 2, top - 2, top}, spread);
}

// 4 channels of `bits` bits, each channel near a few centres.
Image colourNearCentres(const Shape& shape, int bits, std::uint64_t seed, std::uint64_t spread) {
    Image image(shape, 4, bits);
    glccl::test::XorShift random(seed, kSalt + 4);
    const std::uint64_t top = Image::largestSample(bits);
    const std::uint64_t centres[3] = {0, top / 3, top - spread};
    for (std::size_t i = 0; i < shape.count(); ++i) {
        const std::uint64_t pick = random.next() % 3;
        for (int c = 0; c < 4; ++c) image.setSample(i, c, centres[(pick + std::uint64_t(c == 3)) % 3] + random.next() % (spread + 1));
    }
    return image;
}

std::vector<Shape> oddImageShapes() {
    return {Shape::image(1, 1),  Shape::image(1, 57),  Shape::image(57, 1),  Shape::image(2, 2),
            Shape::image(37, 23), Shape::image(64, 3),  Shape::image(65, 5),  Shape::image(63, 17),
            Shape::image(129, 31), Shape::image(200, 150)};
}

std::vector<Shape> oddVolumeShapes() {
    return {Shape::volume(1, 1, 1),  Shape::volume(1, 1, 40), Shape::volume(40, 1, 1), Shape::volume(1, 9, 3),
            Shape::volume(5, 1, 7),  Shape::volume(13, 11, 9), Shape::volume(33, 17, 6), Shape::volume(20, 20, 1),
            Shape::volume(70, 3, 4), Shape::volume(2, 2, 30)};
}

}  // namespace

TEST_CASE("cpu engine: binary images of every density and odd shape equal the reference", "[host][cpu]") {
    std::uint64_t seed = 1;
    for (const Shape& shape : oddImageShapes()) {
        for (double density : {0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0}) {
            const Image image = glccl::randomImage(int(shape.width), int(shape.height), density, 2, 1, seed++);
            for (Connectivity c : connectivitiesOf(image)) checkAllThreadCounts(image, c, Criterion::binary());
        }
    }
}

TEST_CASE("cpu engine: binary volumes of every density and odd shape equal the reference", "[host][cpu]") {
    std::uint64_t seed = 100;
    for (const Shape& shape : oddVolumeShapes()) {
        for (double density : {0.0, 0.2, 0.5, 0.8, 1.0}) {
            const Image image =
                glccl::randomVolume(int(shape.width), int(shape.height), int(shape.depth), density, 2, seed++);
            for (Connectivity c : connectivitiesOf(image)) checkAllThreadCounts(image, c, Criterion::binary());
        }
    }
}

TEST_CASE("cpu engine: checkerboards, spirals, combs, stripes and bars cut by every border", "[host][cpu]") {
    std::vector<Image> images;
    for (const char* family : {"checkerboard", "spiral", "comb", "rings", "staircase", "corridor", "dense_disks"})
        images.push_back(glccl::generateFamily(family, 97, 61, 3));
    const Shape shape = Shape::image(90, 70);
    images.push_back(pattern(shape, [](auto x, auto y, auto) { return (x + y) % 2 == 0; }));
    images.push_back(pattern(shape, [](auto x, auto, auto) { return x % 3 != 2; }));  // bars across every border
    images.push_back(pattern(shape, [](auto, auto y, auto) { return y % 2 == 0; }));  // one-row stripes
    images.push_back(pattern(shape, [](auto x, auto y, auto) { return (x + y) % 7 == 0 || (x - y) % 11 == 0; }));
    // A U that closes only in the last row: the merge must join what scan kept apart.
    images.push_back(pattern(shape, [](auto x, auto y, auto) { return x % 10 == 0 || y == 69; }));
    // Diagonal ladders: joined at 8 only through corners, some across borders.
    images.push_back(pattern(shape, [](auto x, auto y, auto) { return (x + 2 * y) % 5 == 0; }));
    for (const Image& image : images)
        for (Connectivity c : connectivitiesOf(image)) checkAllThreadCounts(image, c, Criterion::binary());

    const Shape volume = Shape::volume(23, 19, 17);
    std::vector<Image> volumes;
    volumes.push_back(pattern(volume, [](auto x, auto y, auto z) { return (x + y + z) % 2 == 0; }));
    volumes.push_back(pattern(volume, [](auto x, auto y, auto z) { return (x + y) % 2 == 0 && z % 3 != 1; }));
    volumes.push_back(pattern(volume, [](auto x, auto y, auto) { return x % 4 == 0 || y % 5 == 0; }));
    volumes.push_back(pattern(volume, [](auto x, auto y, auto z) { return (x + y + 2 * z) % 4 == 0; }));
    volumes.push_back(pattern(volume, [](auto x, auto y, auto z) { return x == z || y == (z * 2) % 19; }));
    volumes.push_back(glccl::generateVolumeFamily("hilbert", 16, 16, 16, 1));
    volumes.push_back(glccl::generateVolumeFamily("blobs", 24, 20, 18, 2));
    for (const Image& image : volumes)
        for (Connectivity c : connectivitiesOf(image)) checkAllThreadCounts(image, c, Criterion::binary());
}

TEST_CASE("cpu engine: the generated families at sizes with many rows a stripe", "[host][cpu]") {
    for (const char* family : {"noise50", "noise20", "dense_disks", "sparse_disks", "large", "granularity4"}) {
        const Image image = glccl::generateFamily(family, 517, 389, 2);
        for (Connectivity c : connectivitiesOf(image)) checkAllThreadCounts(image, c, Criterion::binary());
    }
    for (const char* family : {"noise30", "balls", "blobs"}) {
        const Image volume = glccl::generateVolumeFamily(family, 45, 38, 41, 2);
        for (Connectivity c : connectivitiesOf(volume)) checkAllThreadCounts(volume, c, Criterion::binary());
    }
}

TEST_CASE("cpu engine: labels written with non-temporal stores (inputs of 64 MiB of labels and more)", "[host][cpu]") {
    glccl::cpu::detail::ScopedStreamedLabels streamed;
    std::uint64_t seed = 90;
    for (const Shape& shape : {Shape::image(1, 1), Shape::image(131, 77), Shape::image(3, 50), Shape::volume(21, 17, 9)}) {
        for (double density : {0.2, 0.6, 1.0}) {
            const Image image = shape.dimensions == 3
                                    ? glccl::randomVolume(int(shape.width), int(shape.height), int(shape.depth),
                                                          density, 2, seed++)
                                    : glccl::randomImage(int(shape.width), int(shape.height), density, 2, 1, seed++);
            for (Connectivity c : connectivitiesOf(image)) checkAllThreadCounts(image, c, Criterion::binary());
        }
        const Image values = nearCentres(shape, 8, seed++, 1);
        for (Connectivity c : connectivitiesOf(values)) checkAllThreadCounts(values, c, Criterion::segments());
    }
}

TEST_CASE("cpu engine: binary above a level, every sample width", "[host][cpu]") {
    std::uint64_t seed = 7;
    for (int bits : {8, 16, 32, 64}) {
        const std::uint64_t top = Image::largestSample(bits);
        const std::uint64_t topLevel = std::min<std::uint64_t>(top, 0xFFFFFFFFu);
        for (const Shape& shape : {Shape::image(131, 29), Shape::image(1, 70), Shape::volume(19, 13, 7)}) {
            const Image image = nearCentres(shape, bits, seed++, 3);
            for (std::uint64_t level : {std::uint64_t(0), std::uint64_t(2), std::uint64_t(40), topLevel / 2, topLevel - 1, topLevel}) {
                for (Connectivity c : connectivitiesOf(image))
                    checkAllThreadCounts(image, c, Criterion::binaryAbove(std::int64_t(level)));
            }
        }
    }
}

// [sweep]: the threads are those of every other case; ThreadSanitizer runs skip it (run-tests.sh).
TEST_CASE("cpu engine: segments, delta and gray threshold, every sample width", "[host][cpu][sweep]") {
    std::uint64_t seed = 20;
    for (int bits : {8, 16, 32, 64}) {
        const std::uint64_t top = std::min<std::uint64_t>(Image::largestSample(bits), 0xFFFFFFFFu);
        // Widths past 128 take the 64-element vector tests (every chunk but a row's first and a short last).
        for (const Shape& shape : {Shape::image(1, 1), Shape::image(77, 41), Shape::image(1, 60), Shape::image(60, 1),
                                   Shape::image(200, 23), Shape::volume(15, 12, 9), Shape::volume(9, 1, 8),
                                   Shape::volume(131, 6, 5)}) {
            for (std::uint64_t spread : {0, 2}) {
                const Image image = nearCentres(shape, bits, seed++, spread);
                for (Connectivity c : connectivitiesOf(image)) {
                    checkAllThreadCounts(image, c, Criterion::segments());
                    for (std::uint64_t d : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(3), top})
                        checkAllThreadCounts(image, c, Criterion::withinDelta(std::int64_t(d)));
                    for (std::uint64_t t : {std::uint64_t(0), std::uint64_t(2), std::uint64_t(40), top})
                        checkAllThreadCounts(image, c, Criterion::thresholded(std::int64_t(t)));
                }
            }
        }
    }
}

TEST_CASE("cpu engine: colour threshold on 4 channels, every sample width", "[host][cpu]") {
    std::uint64_t seed = 40;
    for (int bits : {8, 16, 32, 64}) {
        for (const Shape& shape : {Shape::image(53, 37), Shape::image(1, 31), Shape::image(197, 21),
                                   Shape::volume(11, 9, 7), Shape::volume(130, 5, 4)}) {
            const Image image = colourNearCentres(shape, bits, seed++, 3);
            for (Connectivity c : connectivitiesOf(image)) {
                for (std::int64_t t : {0, 1, 3, 100}) checkAllThreadCounts(image, c, Criterion::thresholded(t));
            }
        }
    }
    const Image rgba = glccl::randomImage(171, 43, 0.6, 5, 4, 9);
    for (Connectivity c : connectivitiesOf(rgba))
        for (std::int64_t t : {0, 60, 255}) checkAllThreadCounts(rgba, c, Criterion::thresholded(t));
}

TEST_CASE("cpu engine: stripes shorter than the rows a link reaches back (huge-input paths)", "[host][cpu]") {
    // Stripes of one or a few rows, more of them than threads: borders are
    // merged one after the other and links reach past the stripe before.
    std::uint64_t seed = 60;
    for (std::uint64_t limit : {1u, 40u, 100u}) {
        glccl::cpu::detail::ScopedStripeLimit scoped(limit);
        INFO("stripes of at most " << limit << " elements");
        for (const Shape& shape : {Shape::image(37, 23), Shape::volume(13, 7, 6), Shape::volume(6, 5, 9)}) {
            for (double density : {0.3, 0.6, 0.9}) {
                const Image image = shape.dimensions == 3
                                        ? glccl::randomVolume(int(shape.width), int(shape.height), int(shape.depth),
                                                              density, 2, seed++)
                                        : glccl::randomImage(int(shape.width), int(shape.height), density, 2, 1, seed++);
                for (Connectivity c : connectivitiesOf(image)) checkAllThreadCounts(image, c, Criterion::binary());
            }
            const Image values = nearCentres(shape, 16, seed++, 1);
            for (Connectivity c : connectivitiesOf(values)) {
                checkAllThreadCounts(values, c, Criterion::segments());
                checkAllThreadCounts(values, c, Criterion::withinDelta(2));
            }
        }
    }
}

TEST_CASE("cpu engine: a labeler reused across sizes, kinds and thread counts equals fresh ones", "[host][cpu]") {
    glccl::cpu::Labeler labeler(3);
    CHECK(labeler.threads() == 3);
    std::uint64_t seed = 80;
    for (int round = 0; round < 2; ++round) {
        for (const Shape& shape : {Shape::image(120, 90), Shape::image(7, 3), Shape::volume(17, 15, 13),
                                   Shape::image(120, 90), Shape::image(1, 1)}) {
            const Image binary = shape.dimensions == 3
                                     ? glccl::randomVolume(int(shape.width), int(shape.height), int(shape.depth), 0.5,
                                                           2, seed++)
                                     : glccl::randomImage(int(shape.width), int(shape.height), 0.5, 2, 1, seed++);
            const Image values = nearCentres(shape, 32, seed++, 1);
            for (Connectivity c : connectivitiesOf(binary)) {
                for (int threads : {0, 1, 5}) {
                    requireLikeReference(glccl::labelReference(binary, c, Criterion::binary()), binary, c,
                                         Criterion::binary(), threads, &labeler);
                    requireLikeReference(glccl::labelReference(values, c, Criterion::withinDelta(1)), values, c,
                                         Criterion::withinDelta(1), threads, &labeler);
                }
            }
        }
    }
}

TEST_CASE("cpu engine: the one-call entry starts and ends its own threads", "[host][cpu]") {
    const Image image = glccl::randomImage(101, 67, 0.5, 2, 1, 11);
    const Labeling expected = glccl::labelReference(image, Connectivity::Four, Criterion::binary());
    for (int threads : {0, 1, 3}) {
        std::vector<std::uint32_t> labels(image.shape().count());
        std::vector<Component> table;
        glccl::cpu::Options options;
        options.threads = threads;
        CHECK(glccl::cpu::label(image, Connectivity::Four, Criterion::binary(), labels.data(), table, options) ==
              expected.count());
        CHECK(labels == expected.labels);
        CHECK(table == expected.components);
    }
}

TEST_CASE("cpu engine: refuses what the reference refuses, for the same reason", "[host][cpu]") {
    struct Case {
        Image image;
        Connectivity connectivity;
        Criterion criterion;
    };
    Image volume(Shape::volume(4, 4, 3));
    Image rgba(5, 5, 4, 8);
    Image wide(5, 5, 1, 16);
    Image narrow(5, 5, 1, 8);
    Image channels3(5, 5, 1, 8);
    channels3.channels = 3;
    Image bits12(5, 5, 1, 8);
    bits12.sampleBits = 12;
    Image empty(0, 5, 1, 8);
    Image emptyVolume(Shape::volume(3, 3, 0));
    const std::vector<Case> cases = {
        {narrow, Connectivity::Six, Criterion::binary()},
        {volume, Connectivity::Eight, Criterion::binary()},
        {narrow, static_cast<Connectivity>(5), Criterion::binary()},
        {empty, Connectivity::Four, Criterion::binary()},
        {emptyVolume, Connectivity::Six, Criterion::binary()},
        {channels3, Connectivity::Four, Criterion::thresholded(1)},
        {bits12, Connectivity::Four, Criterion::binary()},
        {rgba, Connectivity::Four, Criterion::binary()},
        {rgba, Connectivity::Eight, Criterion::segments()},
        {rgba, Connectivity::Four, Criterion::withinDelta(3)},
        {narrow, Connectivity::Four, Criterion::thresholded(256)},
        {narrow, Connectivity::Four, Criterion::binaryAbove(300)},
        {narrow, Connectivity::Four, Criterion::withinDelta(-1)},
        {wide, Connectivity::Eight, Criterion::thresholded(65536)},
    };
    for (const Case& c : cases) {
        std::string expected;
        try {
            glccl::labelReference(c.image, c.connectivity, c.criterion);
        } catch (const glccl::Error& error) {
            expected = error.what();
        }
        INFO("reference: " << expected);
        REQUIRE(expected.rfind("glccl::labelReference(): ", 0) == 0);
        std::vector<std::uint32_t> labels(16 * 16 * 4);
        std::vector<Component> table;
        const glccl::ImageView view(c.image.shape(), c.image.channels, c.image.sampleBits, labels.data());
        try {
            glccl::cpu::label(view, c.connectivity, c.criterion, labels.data(), table);
            FAIL("the cpu engine labeled what the reference refuses");
        } catch (const glccl::Error& error) {
            const std::string message = error.what();
            REQUIRE(message.rfind("glccl::cpu::Labeler::label(): ", 0) == 0);
            CHECK(message.substr(std::string("glccl::cpu::Labeler::label(): ").size()) ==
                  expected.substr(std::string("glccl::labelReference(): ").size()));
        }
    }

    // What only a view can get wrong: null pointers, a 2-D image deeper than one slice.
    std::vector<std::uint32_t> labels(25);
    std::vector<Component> table;
    CHECK_THROWS_WITH(glccl::cpu::label(glccl::ImageView(5, 5, 1, 8, nullptr), Connectivity::Four, Criterion::binary(),
                                        labels.data(), table),
                      Catch::StartsWith("glccl::cpu::Labeler::label(): "));
    CHECK_THROWS_WITH(glccl::cpu::label(narrow, Connectivity::Four, Criterion::binary(), nullptr, table),
                      Catch::StartsWith("glccl::cpu::Labeler::label(): "));
    glccl::ImageView deep = narrow;
    deep.depth = 2;
    CHECK_THROWS_WITH(glccl::cpu::label(deep, Connectivity::Four, Criterion::binary(), labels.data(), table),
                      Catch::StartsWith("glccl::cpu::Labeler::label(): "));
}

TEST_CASE("cpu engine: cancellation throws glccl::Cancelled, and a callback that never cancels changes nothing",
          "[host][cpu]") {
    const Image image = glccl::randomImage(300, 200, 0.5, 2, 1, 5);
    const Labeling expected = glccl::labelReference(image, Connectivity::Eight, Criterion::binary());
    std::vector<std::uint32_t> labels(image.shape().count());
    std::vector<Component> table;
    glccl::cpu::Labeler labeler(4);
    for (int after : {0, 1, 2, 3, 4, 5}) {  // every call polls at least six times: once before each parallel step
        INFO("cancelled at poll " << after);
        int polls = 0;
        glccl::cpu::Options options;
        options.cancelled = [&] { return polls++ >= after; };
        CHECK_THROWS_AS(labeler.label(image, Connectivity::Eight, Criterion::binary(), labels.data(), table, options),
                        glccl::Cancelled);
    }
    // The labeler is whole after being cancelled.
    int polls = 0;
    glccl::cpu::Options options;
    options.cancelled = [&] { return ++polls < 0; };
    const std::uint32_t count =
        labeler.label(image, Connectivity::Eight, Criterion::binary(), labels.data(), table, options);
    CHECK(polls > 0);
    CHECK(count == expected.count());
    CHECK(labels == expected.labels);
    CHECK(table == expected.components);
}

TEST_CASE("cpu engine: the thread pool runs every task once, back to back, and passes on a failure", "[host][cpu]") {
    glccl::cpu::detail::ThreadPool pool(3);
    pool.grow(6);
    CHECK(pool.threads() == 6);
    glccl::test::XorShift random(5, kSalt);
    for (int run = 0; run < 3000; ++run) {
        const std::size_t count = random.next() % 40;
        const int width = 1 + int(random.next() % 8);
        std::vector<std::atomic<int>> done(count);
        std::atomic<int> outside{0};
        pool.run(count, width, [&](std::size_t i, int worker) {
            done[i].fetch_add(1);
            if (worker >= std::min(width, 6)) outside.fetch_add(1);
        });
        for (std::size_t i = 0; i < count; ++i) REQUIRE(done[i].load() == 1);
        REQUIRE(outside.load() == 0);
    }
    std::atomic<int> ran{0};
    CHECK_THROWS_WITH(pool.run(10, 6,
                               [&](std::size_t i, int) {
                                   ran.fetch_add(1);
                                   if (i == 4) throw glccl::Error("task 4 failed");
                               }),
                      "task 4 failed");
    CHECK(ran.load() == 10);
}

TEST_CASE("cpu engine: stage timings, thread defaults and scratch bounds", "[host][cpu]") {
    CHECK(glccl::cpu::defaultThreads() >= 1);
    CHECK(glccl::cpu::Labeler().threads() == glccl::cpu::defaultThreads());
    const Image image = glccl::randomImage(64, 64, 0.5, 2, 1, 3);
    std::vector<std::uint32_t> labels(image.shape().count());
    std::vector<Component> table;
    glccl::StageTimings timings;
    glccl::cpu::Options options;
    options.timings = &timings;
    glccl::cpu::label(image, Connectivity::Four, Criterion::binary(), labels.data(), table, options);
    std::vector<std::string> stages;
    for (const glccl::StageTime& t : timings) stages.push_back(t.stage);
    CHECK(stages == std::vector<std::string>{"scan", "merge", "number", "final"});

    // Scratch grows with the width and slice, not with the rows or slices.
    const auto bytes = [](const Shape& shape, Connectivity c) {
        return glccl::cpu::scratchBytes(shape, 1, 8, c, Criterion::binary(), 16);
    };
    CHECK(bytes(Shape::image(1000, 10000), Connectivity::Eight) == bytes(Shape::image(1000, 100000), Connectivity::Eight));
    CHECK(bytes(Shape::image(8192, 8192), Connectivity::Four) < std::uint64_t(8192) * 8192);
    CHECK(bytes(Shape::volume(512, 512, 512), Connectivity::TwentySix) ==
          bytes(Shape::volume(512, 512, 4096), Connectivity::TwentySix));
    CHECK(bytes(Shape::volume(512, 512, 512), Connectivity::Six) < bytes(Shape::volume(1024, 1024, 512), Connectivity::Six));
    CHECK(glccl::cpu::scratchBytes(Shape::image(0, 5), 1, 8, Connectivity::Four, Criterion::binary(), 2) == 0);
}

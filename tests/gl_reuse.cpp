// Repeated labeling reuses its resources: frames of one size, then another
// size, then the first again, through the buffer-reusing calls, every result
// equal to the CPU reference and no GL error, on every backend that runs here
// (the cuda backend's own reuse tests are in cuda_labeler.cpp).

#include <catch2/catch.hpp>

#include "gl_support.hpp"
#include "glccl/generate.hpp"
#include "glccl/texture.hpp"

using namespace glccl;
using glccl::test::backendsHere;
using glccl::test::offscreen;
using glccl::test::session;

TEST_CASE("reuse: frames of one size, another size, the first again, into one Labeling", "[reuse]") {
    const std::vector<std::pair<int, int>> sizes = {{97, 61}, {97, 61}, {97, 61}, {130, 33}, {130, 33}, {97, 61}};
    for (Backend backend : backendsHere()) {
        LabelOptions options;
        options.backend = backend;
        options.connectivity = Connectivity::Eight;
        Labeling out;  // reused across frames, as a batch or a video would
        std::uint64_t seed = 1;
        for (const auto& [width, height] : sizes) {
            const Image image = generateFamily(seed % 2 ? "noise50" : "dense_disks", width, height, seed);
            ++seed;
            session().label(image, options, out);
            const Comparison comparison = compareLabelings(labelReference(image, options.connectivity, options.criterion), out);
            INFO(backendName(backend) << " frame " << seed - 1 << " " << width << "x" << height << ": "
                                      << comparison.describe());
            REQUIRE(session().backend() == backend);
            REQUIRE(comparison.identical());
        }
    }
}

TEST_CASE("reuse: components(out) and downloadLabels(out) fill caller storage like the value forms", "[reuse]") {
    const Image image = generateFamily("sparse_disks", 301, 157, 7);
    const Labeling expected = labelReference(image, Connectivity::Four, Criterion::binary());
    for (Backend backend : backendsHere()) {
        LabelOptions options;
        options.backend = backend;
        options.connectivity = Connectivity::Four;
        offscreen().makeCurrent();
        const ImageTexture texture(image);
        Labeler& labeler = offscreen().labeler();
        labeler.label(texture.id(), options);
        // Storage from a larger, different frame: every entry must be overwritten.
        std::vector<Component> table(expected.count() + 50, Component{1, 2, 3, 4, 5, 6.0, 7.0});
        std::vector<std::uint32_t> labels(std::size_t(image.width) * image.height + 99, 0xDEADBEEFu);
        offscreen().makeCurrent();
        labeler.components(table);
        labeler.downloadLabels(labels);
        Labeling actual;
        actual.width = image.width;
        actual.height = image.height;
        actual.labels = labels;
        actual.components = table;
        const Comparison comparison = compareLabelings(expected, actual);
        INFO(backendName(backend) << ": " << comparison.describe());
        labeler.forget(texture.id());  // before the texture goes: the cuda backend's registration
        REQUIRE(comparison.identical());
    }
}

TEST_CASE("reuse: components(out) of frames of one count keeps the caller's storage", "[reuse]") {
    // The engines' reuse contract: a frame whose component count is
    // unchanged allocates nothing, so `out` keeps its storage.
    const Image image = generateFamily("sparse_disks", 640, 480, 3);
    const Labeling expected = labelReference(image, Connectivity::Eight, Criterion::binary());
    REQUIRE(expected.count() > 1);
    for (Backend backend : {Backend::Compute, Backend::Raster}) {
        if (!whyUnavailable(backend, offscreen().context().info()).empty()) continue;
        LabelOptions options;
        options.backend = backend;
        options.connectivity = Connectivity::Eight;
        offscreen().makeCurrent();
        const ImageTexture texture(image);
        Labeler& labeler = offscreen().labeler();
        std::vector<Component> table;
        const Component* storage = nullptr;
        std::size_t capacity = 0;
        for (int frame = 0; frame < 3; ++frame) {
            offscreen().makeCurrent();
            labeler.label(texture.id(), options);
            labeler.components(table);
            INFO(backendName(backend) << " frame " << frame);
            REQUIRE(table == expected.components);
            if (frame == 0) {
                storage = table.data();
                capacity = table.capacity();
            } else {
                CHECK(table.data() == storage);
                CHECK(table.capacity() == capacity);
            }
        }
        labeler.forget(texture.id());
    }
}

// The Session with the cuda backend: host images go to CUDA directly (no
// texture, no interop, no GL context). They must equal the
// CPU reference; a batch of frames of one size, another, the first again
// reuses its buffers; what the cuda backend cannot label is refused in the
// texture route's words; the Session's destruction gives back the device
// memory of its CUDA route.
//
// Needs a CUDA device; elsewhere each test prints why and is reported as
// skipped.

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cuda_support.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/session.hpp"

using namespace glccl;

namespace {

using test::cudaOptions;

std::unique_ptr<Session> sessionOrSkip() {
    test::requireCudaOrSkip();
    return std::make_unique<Session>();
}

}  // namespace

TEST_CASE("cuda: the Session labels host images through CUDA like the reference, frames reusing one Labeling",
          "[cuda][offscreen]") {
    const auto offscreen = sessionOrSkip();
    // Sizes that change and come back (buffers kept, then remade), with
    // every criterion the cuda backend takes, 1 and 4 channels.
    struct Frame {
        int width, height, channels;
        Criterion criterion;
    };
    const std::vector<Frame> frames = {
        {97, 61, 1, Criterion::binary()},       {97, 61, 1, Criterion::segments()},
        {130, 33, 1, Criterion::thresholded(90)}, {130, 33, 4, Criterion::thresholded(120)},
        {97, 61, 1, Criterion::binary()},       {1, 1, 1, Criterion::binary()},
        {1, 300, 1, Criterion::segments()},     {2049, 1025, 1, Criterion::binary()},
        {97, 61, 4, Criterion::thresholded(60)},
    };
    std::mt19937_64 random(2026);
    Labeling out;  // reused, as a batch reuses it
    std::vector<Component> components;
    for (const Connectivity connectivity : {Connectivity::Eight, Connectivity::Four}) {
        for (std::size_t i = 0; i < frames.size(); ++i) {
            const Frame& f = frames[i];
            const Image image = f.criterion.kind == Criterion::Kind::Segments
                                    ? randomImage(f.width, f.height, 0.6, 4, 1, random())
                                    : randomImage(f.width, f.height, 0.5, 2, f.channels, random());
            const LabelOptions options = cudaOptions(connectivity, f.criterion);
            offscreen->label(image, options, out);
            CHECK(offscreen->backend() == Backend::Cuda);
            test::checkMatchesReference(image, connectivity, f.criterion, out, "frame " + std::to_string(i));
            // The caller-storage entry, with storage of another frame's size.
            std::vector<std::uint32_t> labels(std::size_t(image.width) * image.height, 0xDEADBEEFu);
            components.assign(3, Component{1, 2, 3, 4, 5, 6.0, 7.0});
            offscreen->label(ImageView(image), options, labels.data(), components);
            Labeling viewed;
            viewed.width = image.width;
            viewed.height = image.height;
            viewed.labels = labels;
            viewed.components = components;
            test::checkMatchesReference(image, connectivity, f.criterion, viewed, "view of frame " + std::to_string(i));
        }
    }
    // A table past kParallelTableEntries (decoded and copied by the copy
    // threads): a checkerboard at 4-connectivity, 90 000 components.
    const Image board = generateFamily("checkerboard", 600, 300);
    offscreen->label(board, cudaOptions(Connectivity::Four, Criterion::binary()), out);
    test::checkMatchesReference(board, Connectivity::Four, Criterion::binary(), out, "checkerboard");
    CHECK(test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: the Session takes deeper samples, binary:L and delta to CUDA, like the reference",
          "[cuda][offscreen]") {
    const auto offscreen = sessionOrSkip();
    std::mt19937_64 random(2027);
    Labeling out;
    for (int bits : {16, 32, 64}) {
        // Random levels 0..4 spread over the range: 4 * step apart, step a
        // quarter of the top (and 0 stays 0).
        const Image levels = randomImage(211, 97, 0.7, 5, 1, random());
        Image image(levels.width, levels.height, 1, bits);
        const std::uint64_t step = Image::largestSample(bits) / 4;
        for (std::size_t i = 0; i < image.shape().count(); ++i) image.setSample(i, 0, levels.sample(i) % 5 * step);
        for (const Criterion& criterion :
             {Criterion::segments(), Criterion::binaryAbove(3), Criterion::withinDelta(0), Criterion::thresholded(7)})
            for (const Connectivity connectivity : {Connectivity::Eight, Connectivity::Four}) {
                offscreen->label(image, cudaOptions(connectivity, criterion), out);
                CHECK(offscreen->backend() == Backend::Cuda);
                test::checkMatchesReference(image, connectivity, criterion, out, std::to_string(bits) + "-bit");
            }
    }
}

TEST_CASE("cuda: the Session refuses what the cuda backend cannot label, in the texture route's words",
          "[cuda][offscreen]") {
    const auto offscreen = sessionOrSkip();
    Image color(40, 30, 4, 64);
    for (std::size_t i = 0; i < color.pixels.size(); ++i) color.pixels[i] = std::uint8_t(i % 5 ? 0 : 9);
    CHECK_THROWS_WITH(offscreen->label(color, cudaOptions(Connectivity::Eight, Criterion::thresholded(3))),
                      Catch::Contains("the cuda backend labels color of 8-, 16- or 32-bit samples, not 64-bit"));
    const Image image = randomImage(40, 30, 0.5, 2, 1, 5);
    CHECK_THROWS_WITH(offscreen->label(image, cudaOptions(Connectivity::Eight, Criterion::thresholded(300))),
                      Catch::Contains("the threshold 300 is outside 0..255"));
    // A refused call leaves the next one exact.
    Labeling out;
    offscreen->label(image, cudaOptions(Connectivity::Eight, Criterion::binary()), out);
    test::checkMatchesReference(image, Connectivity::Eight, Criterion::binary(), out, "after refusals");
}

TEST_CASE("cuda: a destroyed Session gives back the device memory of its CUDA route", "[cuda][offscreen]") {
    test::requireCudaOrSkip();
    const Image image = randomImage(4096, 2048, 0.5, 2, 1, 401);
    auto session = [&] {
        Session offscreen;
        Labeling out;
        for (int frame = 0; frame < 3; ++frame) offscreen.label(image, cudaOptions(Connectivity::Eight, Criterion::binary()), out);
        CHECK(out.count() > 0);
    };
    session();  // warm-up: the CUDA context's own lazy allocations
    const std::size_t freeBefore = test::freeDeviceMemory();
    session();
    const std::size_t freeAfter = test::freeDeviceMemory();
    INFO("free device memory before " << freeBefore << ", after " << freeAfter);
    CHECK(freeAfter + test::kMemorySlack >= freeBefore);
    CHECK(test::cudaErrorNow() == "cudaSuccess");
}

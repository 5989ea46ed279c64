// The CUDA path on GL textures through CUDA-GL interop (TextureLabeler and
// the one-call labelGlTexture), in a headless EGL context, checked against
// the CPU reference by reading the label texture back through GL: every
// criterion, channel count and texture format the engine reads, refused
// textures, frames that reuse the
// labeler's buffers and registrations, textures deleted and re-created
// between calls, and a labeler's destruction giving everything back.
//
// Needs a CUDA device and an EGL context on the same GPU; elsewhere each test
// prints why and is reported as skipped (cuda_support.hpp). The argument
// checks run everywhere.

#include <catch2/catch.hpp>

#include <algorithm>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cuda_support.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "sample_support.hpp"

using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;
using glccl::cuda::ResourceCounts;
using glccl::cuda::TextureLabeler;
using glccl::test::messageOf;

TEST_CASE("cuda: TextureLabeler refuses bad arguments before any CUDA or GL call", "[cuda][interop]") {
    // Runs without a GPU and without a context: nothing here reaches CUDA.
    TextureLabeler labeler;
    const std::string entry = "glccl::cuda::TextureLabeler::label(): ";
    auto label = [&](unsigned input, unsigned format, unsigned labels, int width, int height, Criterion criterion) {
        return messageOf([&] {
            labeler.label(input, format, labels, width, height, Connectivity::Eight, criterion);
        });
    };
    const unsigned r8 = 0x8229, rgba8 = 0x8058, r32f = 0x822E;  // GL_R8, GL_RGBA8, GL_R32F
    CHECK_THAT(label(1, r32f, 2, 8, 8, Criterion::binary()),
               Catch::StartsWith(entry) && Catch::Contains("GL_R8, GL_R8UI, GL_R16, GL_R32UI, GL_RG32UI"));
    CHECK_THAT(label(1, rgba8, 2, 8, 8, Criterion::binary()), Catch::StartsWith(entry) && Catch::Contains("binary"));
    CHECK_THAT(label(1, r8, 2, 0, 8, Criterion::binary()), Catch::StartsWith(entry) && Catch::Contains("0x8"));
    CHECK_THAT(label(0, r8, 2, 8, 8, Criterion::binary()), Catch::StartsWith(entry) && Catch::Contains("inputTexture"));
    CHECK_THAT(label(1, r8, 0, 8, 8, Criterion::binary()), Catch::StartsWith(entry) && Catch::Contains("labelTexture"));
    CHECK_THAT(label(3, r8, 3, 8, 8, Criterion::binary()), Catch::StartsWith(entry) && Catch::Contains("both"));
    CHECK_THAT(messageOf([&] { labeler.reserve(8, 8, 3); }),
               Catch::StartsWith("glccl::cuda::TextureLabeler::reserve(): ") && Catch::Contains("3 channels"));
    CHECK(labeler.resourceCounts() == ResourceCounts{});
    CHECK(labeler.table().empty());
}

#ifdef GLCCL_CUDA_TEST_HAVE_CONTEXT

using glccl::test::TestTexture;

TEST_CASE("cuda: labelGlTexture labels GL textures like the reference", "[cuda][interop]") {
    glccl::test::requireCudaOrSkip();
    const auto context = glccl::test::contextOrSkip();
    INFO("GL on " << context->info().renderer << " (" << context->platform() << "), CUDA on "
                  << glccl::cuda::deviceName());

    struct Case {
        Image image;
        Connectivity connectivity;
        Criterion criterion;
    };
    const Case cases[] = {
        {glccl::randomImage(1, 1, 1.0, 2, 1, 1), Connectivity::Eight, Criterion::binary()},
        {glccl::randomImage(33, 1, 0.5, 2, 1, 2), Connectivity::Four, Criterion::binary()},
        {glccl::randomImage(1000, 999, 0.55, 2, 1, 3), Connectivity::Eight, Criterion::binary()},
        {glccl::randomImage(1000, 999, 0.55, 2, 1, 3), Connectivity::Four, Criterion::binary()},
        {glccl::randomImage(513, 257, 0.9, 4, 1, 4), Connectivity::Eight, Criterion::segments()},
        {glccl::randomImage(257, 129, 1.0, 4, 4, 5), Connectivity::Eight, Criterion::thresholded(85)},
        {glccl::generateFamily("spiral", 777, 555, 6), Connectivity::Four, Criterion::binary()},
    };
    for (const Case& c : cases) {
        const Image& image = c.image;
        const auto input = glccl::test::upload(image);
        const TestTexture labelTexture(GL_R32UI, image.width, image.height);
        GLCCL_CHECK_NO_GL_ERROR();
        const std::vector<glccl::Component> table = glccl::cuda::labelGlTexture(
            input->name(), labelTexture.name(), image.width, image.height, image.channels, c.connectivity,
            c.criterion);
        const glccl::Labeling actual =
            glccl::test::readLabeling(labelTexture.name(), image.width, image.height, table);
        GLCCL_CHECK_NO_GL_ERROR();
        glccl::test::checkMatchesReference(image, c.connectivity, c.criterion, actual, "labelGlTexture");
    }
}

TEST_CASE("cuda: TextureLabeler labels every texture format it reads like the reference", "[cuda][interop]") {
    glccl::test::requireCudaOrSkip();
    const auto context = glccl::test::contextOrSkip();
    const int width = 157, height = 93;
    TextureLabeler labeler;
    const TestTexture labelTexture(GL_R32UI, width, height);
    auto check = [&](GLuint texture, unsigned format, const Image& image, Criterion criterion) {
        for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
            INFO("format " << format << ", " << image.sampleBits << "-bit, " << image.channels << " channel(s)");
            const std::vector<glccl::Component> table = labeler.label(
                texture, format, labelTexture.name(), width, height, connectivity, criterion);
            const glccl::Labeling actual = glccl::test::readLabeling(labelTexture.name(), width, height, table);
            GLCCL_CHECK_NO_GL_ERROR();
            glccl::test::checkMatchesReference(image, connectivity, criterion, actual, "TextureLabeler");
        }
    };
    // GL_R8, GL_R16, GL_R32UI and GL_RG32UI (glccl::ImageTexture's formats),
    // samples at the edges of their range.
    std::uint64_t seed = 40;
    for (int bits : {8, 16, 32, 64}) {
        const std::uint64_t top = Image::largestSample(bits), half = std::uint64_t(1) << (bits - 1);
        const Image image = glccl::test::samplesNearCentres(glccl::Shape::image(width, height), bits, seed++, 0x7E,
                                                            {0, 1, half - 1, half, top - 1, top}, 1);
        const glccl::ImageTexture texture(image);
        for (const Criterion& criterion : {Criterion::binary(), Criterion::binaryAbove(1), Criterion::segments(),
                                           Criterion::thresholded(1), Criterion::withinDelta(1)})
            check(texture.id(), texture.internalFormat(), image, criterion);
    }
    // GL_R8UI: an integer texture, filled by hand.
    {
        const Image image = glccl::randomImage(width, height, 0.7, 5, 1, seed++);
        const TestTexture texture(GL_R8UI, width, height);
        glBindTexture(GL_TEXTURE_2D, texture.name());
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RED_INTEGER, GL_UNSIGNED_BYTE, image.pixels.data());
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        glBindTexture(GL_TEXTURE_2D, 0);
        for (const Criterion& criterion : {Criterion::segments(), Criterion::binaryAbove(100)})
            check(texture.name(), GL_R8UI, image, criterion);
    }
    // GL_RGBA16 under threshold.
    {
        Image image(width, height, 4, 16);
        glccl::test::XorShift random(seed++, 0x7F);
        for (std::size_t i = 0; i < image.shape().count(); ++i)
            for (int c = 0; c < 4; ++c) image.setSample(i, c, 65530 + random.next() % 6);
        const glccl::ImageTexture texture(image);
        CHECK(texture.internalFormat() == GL_RGBA16);
        for (int threshold : {0, 2, 5}) check(texture.id(), GL_RGBA16, image, Criterion::thresholded(threshold));
    }
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: labelGlTexture refuses textures of the wrong format or size", "[cuda][interop]") {
    glccl::test::requireCudaOrSkip();
    const auto context = glccl::test::contextOrSkip();
    const Image image = glccl::randomImage(64, 48, 0.5, 2, 1, 11);
    const auto input = glccl::test::upload(image);
    const TestTexture rightLabels(GL_R32UI, 64, 48);
    const TestTexture wrongFormat(GL_R8, 64, 48);
    const TestTexture wrongSize(GL_R32UI, 48, 64);
    auto message = [&](GLuint in, GLuint out, int channels) {
        return messageOf([&] {
            glccl::cuda::labelGlTexture(in, out, 64, 48, channels, Connectivity::Eight,
                                        channels == 1 ? Criterion::binary() : Criterion::thresholded(1));
        });
    };
    const std::string entry = "glccl::cuda::labelGlTexture(): ";
    CHECK_THAT(message(input->name(), wrongFormat.name(), 1), Catch::StartsWith(entry) && Catch::Contains("GL_R32UI"));
    CHECK_THAT(message(input->name(), wrongSize.name(), 1), Catch::StartsWith(entry) && Catch::Contains("48x64"));
    CHECK_THAT(message(input->name(), rightLabels.name(), 4), Catch::StartsWith(entry) && Catch::Contains("GL_RGBA8"));
    CHECK_THAT(message(0, rightLabels.name(), 1), Catch::StartsWith(entry) && Catch::Contains("inputTexture"));
    // A failed call leaves nothing registered or mapped: the next one works.
    CHECK(message(input->name(), rightLabels.name(), 1) == "no error");
    GLCCL_CHECK_NO_GL_ERROR();
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: TextureLabeler reuses its buffers and registrations across frames and sizes", "[cuda][interop]") {
    glccl::test::requireCudaOrSkip();
    const auto context = glccl::test::contextOrSkip();

    // A renderer's life: frames of one size (new contents every frame, the
    // same two textures), then another size, then the first size again with
    // new textures, then color frames at that size.
    struct Phase {
        int width, height, channels;
        Connectivity connectivity;
        Criterion criterion;
    };
    const Phase phases[] = {
        {640, 480, 1, Connectivity::Eight, Criterion::binary()},
        {333, 1001, 1, Connectivity::Four, Criterion::binary()},
        {640, 480, 1, Connectivity::Eight, Criterion::segments()},
        {640, 480, 4, Connectivity::Eight, Criterion::thresholded(85)},
    };
    constexpr int kFrames = 12;
    TextureLabeler labeler;
    labeler.reserve(640, 480, 1);
    std::uint64_t seed = 1000;
    std::size_t mostSoFar = 0;  // components: a table longer than every earlier one may grow its buffers once
    for (const Phase& phase : phases) {
        INFO("phase " << phase.width << "x" << phase.height << "x" << phase.channels);
        TestTexture input(glccl::test::formatFor(phase.channels), phase.width, phase.height);
        TestTexture labels(GL_R32UI, phase.width, phase.height);
        ResourceCounts afterFirstFrame;
        for (int frame = 0; frame < kFrames; ++frame) {
            INFO("frame " << frame);
            const Image image = glccl::randomImage(phase.width, phase.height, phase.channels == 1 ? 0.45 : 1.0,
                                                   phase.channels == 1 ? 3 : 4, phase.channels, seed++);
            glccl::test::fill(input.name(), image);
            const ResourceCounts before = labeler.resourceCounts();
            const auto& table = labeler.label(input.name(), glccl::test::formatFor(phase.channels), labels.name(),
                                              phase.width, phase.height, phase.connectivity, phase.criterion);
            const glccl::Labeling actual = glccl::test::readLabeling(labels.name(), phase.width, phase.height, table);
            GLCCL_CHECK_NO_GL_ERROR();
            CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
            glccl::test::checkMatchesReference(image, phase.connectivity, phase.criterion, actual, "frame");

            const ResourceCounts now = labeler.resourceCounts();
            INFO(glccl::test::describe(now) << ", after the first frame " << glccl::test::describe(afterFirstFrame));
            const bool longestYet = table.size() > mostSoFar;
            mostSoFar = std::max(mostSoFar, table.size());
            if (frame == 0) {
                // Registered on first sight: at most the two new textures.
                CHECK(now.registrations - before.registrations <= 2);
                afterFirstFrame = now;
            } else if (longestYet) {
                CHECK(now.registrations == afterFirstFrame.registrations);
                afterFirstFrame = now;
            } else {
                CHECK(now == afterFirstFrame);
            }
        }
        // The host deletes these textures: the documented way first.
        labeler.forget(input.name());
        labeler.forget(labels.name());
    }
    GLCCL_CHECK_NO_GL_ERROR();
}

TEST_CASE("cuda: TextureLabeler times the texture copies around the kernels", "[cuda][interop]") {
    glccl::test::requireCudaOrSkip();
    const auto context = glccl::test::contextOrSkip();
    // A renderer's call costs the copies between its textures and the
    // pipeline's buffers as well as the kernels: its timings name them
    // first and last, and its labels are still the reference's.
    const Image image = glccl::randomImage(300, 200, 0.5, 2, 1, 77);
    TestTexture input(glccl::test::formatFor(1), image.width, image.height);
    TestTexture labels(GL_R32UI, image.width, image.height);
    glccl::test::fill(input.name(), image);
    TextureLabeler labeler;
    glccl::StageTimings timings;
    const auto& table = labeler.label(input.name(), glccl::test::formatFor(1), labels.name(), image.width,
                                      image.height, Connectivity::Eight, Criterion::binary(), &timings);
    glccl::test::checkMatchesReference(image, Connectivity::Eight, Criterion::binary(),
                                       glccl::test::readLabeling(labels.name(), image.width, image.height, table),
                                       "timed");
    std::vector<std::string> names;
    for (const glccl::StageTime& t : timings) {
        names.push_back(t.stage);
        CHECK(t.milliseconds >= 0.0);
    }
    const std::vector<std::string> expected = {"copy_input",   "local_merge",     "merge_borders", "count_roots",
                                               "final_labels", "component_stats", "copy_labels"};
    CHECK(names == expected);
}

TEST_CASE("cuda: TextureLabeler allocates nothing per frame after reserve()", "[cuda][interop]") {
    glccl::test::requireCudaOrSkip();
    const auto context = glccl::test::contextOrSkip();
    const int width = 1920, height = 1080;
    TestTexture input(GL_R8, width, height);
    TestTexture labels(GL_R32UI, width, height);
    TextureLabeler labeler;
    labeler.reserve(width, height, 1);
    const ResourceCounts reserved = labeler.resourceCounts();
    CHECK(reserved.registrations == 0);
    for (int frame = 0; frame < 10; ++frame) {
        // Disks on a background: well under the table room reserve() makes.
        const Image image = glccl::generateFamily("dense_disks", width, height, std::uint64_t(frame + 1));
        glccl::test::fill(input.name(), image);
        const auto& table = labeler.label(input.name(), GL_R8, labels.name(), width, height, Connectivity::Eight,
                                          Criterion::binary());
        const glccl::Labeling actual = glccl::test::readLabeling(labels.name(), width, height, table);
        glccl::test::checkMatchesReference(image, Connectivity::Eight, Criterion::binary(), actual, "1080p frame");
        const ResourceCounts now = labeler.resourceCounts();
        INFO("frame " << frame << ": " << glccl::test::describe(now) << " after reserve() "
                                 << glccl::test::describe(reserved));
        CHECK(now.deviceAllocations == reserved.deviceAllocations);
        CHECK(now.hostAllocations == reserved.hostAllocations);
        CHECK(now.registrations == 2);  // both textures, on the first frame only
    }
    GLCCL_CHECK_NO_GL_ERROR();
}

TEST_CASE("cuda: textures deleted or re-created between calls give the right labels or a clear error",
          "[cuda][interop]") {
    glccl::test::requireCudaOrSkip();
    const auto context = glccl::test::contextOrSkip();
    TextureLabeler labeler;
    const TestTexture labelsA(GL_R32UI, 300, 200);
    const TestTexture labelsB(GL_R32UI, 170, 390);
    auto labelAndCheck = [&](GLuint input, GLuint labels, const Image& image, const char* what) {
        const auto& table = labeler.label(input, GL_R8, labels, image.width, image.height, Connectivity::Eight,
                                          Criterion::binary());
        const glccl::Labeling actual = glccl::test::readLabeling(labels, image.width, image.height, table);
        glccl::test::checkMatchesReference(image, Connectivity::Eight, Criterion::binary(), actual, what);
    };
    // Where the driver keeps a replaced texture's storage behind a new
    // registration (the H200's 580 driver does, for a re-used name or storage
    // re-specified in place), the call must fail with the mismatch named,
    // never label the old storage.
    auto labelOrClearError = [&](GLuint input, GLuint labels, const Image& image, const char* what) {
        try {
            labelAndCheck(input, labels, image, what);
        } catch (const glccl::Error& error) {
            WARN(what << ": " << error.what());
            CHECK_THAT(std::string(error.what()), Catch::StartsWith("glccl::cuda::TextureLabeler::label(): ") &&
                                                      Catch::Contains("but the image is"));
        }
    };
    const Image imageA = glccl::randomImage(300, 200, 0.5, 2, 1, 21);
    const Image imageA2 = glccl::randomImage(300, 200, 0.5, 2, 1, 22);
    const Image imageB = glccl::randomImage(170, 390, 0.5, 2, 1, 23);

    // Deleted without forget(), re-created at another size (GL may hand out
    // the same name): the key differs, so it is registered anew.
    auto first = glccl::test::upload(imageA);
    labelAndCheck(first->name(), labelsA.name(), imageA, "first texture");
    first->destroy();
    auto second = glccl::test::upload(imageB);
    labelOrClearError(second->name(), labelsB.name(), imageB, "re-created at another size");

    // Deleted and then passed again: not a texture any more, a clear error
    // (unless GL has reused the name in between, which it cannot have here).
    const GLuint deleted = second->name();
    second->destroy();
    CHECK_THAT(messageOf([&] {
                   labeler.label(deleted, GL_R8, labelsB.name(), 170, 390, Connectivity::Eight, Criterion::binary());
               }),
               Catch::StartsWith("glccl::cuda::TextureLabeler::label(): ") && Catch::Contains("not a texture"));

    // forget() before deleting, then a new texture of the same size and
    // format (possibly the same name): read from the new storage.
    auto third = glccl::test::upload(imageA);
    labelAndCheck(third->name(), labelsA.name(), imageA, "third texture");
    labeler.forget(third->name());
    third->destroy();
    auto fourth = glccl::test::upload(imageA2);
    labelAndCheck(fourth->name(), labelsA.name(), imageA2, "re-created after forget()");

    // Storage replaced in place at another size (glTexImage2D): re-registered
    // by the key; and back again.
    TestTexture mutableInput(GL_R8, 300, 200, true);
    glccl::test::fill(mutableInput.name(), imageA);
    labelAndCheck(mutableInput.name(), labelsA.name(), imageA, "mutable texture");
    mutableInput.respecify(GL_R8, 170, 390);
    // NVIDIA's driver refuses to re-specify a texture CUDA holds registered
    // (GL_INVALID_OPERATION; the texture keeps its storage): the header asks
    // for forget() first. Where a driver allows it, the call must still be
    // right or fail clearly.
    if (const GLenum refused = glGetError(); refused == GL_NO_ERROR) {
        glccl::test::fill(mutableInput.name(), imageB);
        labelOrClearError(mutableInput.name(), labelsB.name(), imageB, "re-specified at another size");
    } else {
        WARN("re-specifying a registered texture: " << glccl::test::glErrorName(refused));
    }
    labeler.forget(mutableInput.name());
    mutableInput.respecify(GL_R8, 300, 200);
    glccl::test::fill(mutableInput.name(), imageA2);
    labelOrClearError(mutableInput.name(), labelsA.name(), imageA2, "re-specified back after forget()");

    // Storage replaced in place at the same size: forget() first, as the
    // header asks.
    labeler.forget(mutableInput.name());
    mutableInput.respecify(GL_R8, 300, 200);
    glccl::test::fill(mutableInput.name(), imageA);
    labelOrClearError(mutableInput.name(), labelsA.name(), imageA, "re-specified at the same size after forget()");

    GLCCL_CHECK_NO_GL_ERROR();
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

// What the driver does where the header says the host must call forget():
// reported, not asserted (run with "[probe]"). Either outcome is allowed by
// the contract; these say whether the forget() is actually needed on this
// driver.
TEST_CASE("cuda: probe: same-name, same-size re-creation and re-specification without forget()",
          "[.][probe][cuda][interop]") {
    glccl::test::requireCudaOrSkip();
    const auto context = glccl::test::contextOrSkip();
    TextureLabeler labeler;
    const TestTexture labels(GL_R32UI, 256, 256);
    const Image before = glccl::randomImage(256, 256, 0.5, 2, 1, 31);
    const Image after = glccl::randomImage(256, 256, 0.5, 2, 1, 32);
    auto matches = [&](GLuint input, const Image& image) {
        try {
            const auto& table =
                labeler.label(input, GL_R8, labels.name(), 256, 256, Connectivity::Eight, Criterion::binary());
            const glccl::Labeling actual = glccl::test::readLabeling(labels.name(), 256, 256, table);
            const glccl::Labeling expected =
                glccl::labelReference(image, Connectivity::Eight, Criterion::binary());
            return std::string(glccl::compareLabelings(expected, actual).identical() ? "right labels"
                                                                                     : "WRONG labels (stale storage)");
        } catch (const glccl::Error& e) {
            return std::string("error: ") + e.what();
        }
    };

    auto original = glccl::test::upload(before);
    const GLuint name = original->name();
    CHECK(matches(name, before) == "right labels");
    original->destroy();
    auto recreated = glccl::test::upload(after);
    WARN("delete + re-create (" << (recreated->name() == name ? "same name" : "another name")
                                << "), same size, no forget(): " << matches(recreated->name(), after));

    TestTexture mutableInput(GL_R8, 256, 256, true);
    glccl::test::fill(mutableInput.name(), before);
    CHECK(matches(mutableInput.name(), before) == "right labels");
    mutableInput.respecify(GL_R8, 256, 256);
    glccl::test::fill(mutableInput.name(), after);
    WARN("glTexImage2D at the same size, no forget(): " << matches(mutableInput.name(), after));
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: a destroyed TextureLabeler leaves nothing registered or allocated", "[cuda][interop]") {
    glccl::test::requireCudaOrSkip();
    const auto context = glccl::test::contextOrSkip();
    // Large enough that a texture kept alive by a forgotten registration, or
    // a buffer not freed, shows in the driver's free memory.
    const int width = 4096, height = 2048;
    const Image image = glccl::randomImage(width, height, 0.5, 2, 1, 41);
    auto session = [&] {
        auto input = glccl::test::upload(image);
        TestTexture labels(GL_R32UI, width, height);
        {
            TextureLabeler labeler;
            labeler.reserve(width, height, 1);
            for (int frame = 0; frame < 3; ++frame) {
                labeler.label(input->name(), GL_R8, labels.name(), width, height, Connectivity::Eight,
                              Criterion::binary());
            }
            CHECK(labeler.resourceCounts().registrations == 2);
        }
        // The textures go after the labeler: with a registration left, CUDA
        // would keep their storage.
        input->destroy();
        labels.destroy();
        glFinish();
    };
    session();  // warm-up: the context's own lazy allocations
    const std::size_t freeBefore = glccl::test::freeDeviceMemory();
    session();
    const std::size_t freeAfter = glccl::test::freeDeviceMemory();
    INFO("free device memory before " << freeBefore << ", after " << freeAfter);
    // A forgotten registration or buffer would hold 40 MiB or more; the
    // slack only absorbs the driver's page granularity.
    CHECK(freeAfter + glccl::test::kMemorySlack >= freeBefore);
    GLCCL_CHECK_NO_GL_ERROR();
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

#else

TEST_CASE("cuda: labelGlTexture labels GL textures like the reference", "[cuda][interop]") {
    glccl::test::skipTest("CUDA-GL interop: this build has no glccl/context.hpp (the GL engine) to make a context");
}

#endif

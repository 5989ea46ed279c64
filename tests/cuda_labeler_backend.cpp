// glccl::Labeler with the cuda backend: the CUDA path labels the host's own
// GL texture through interop, with the same result as the reference; frames
// reuse the engine's buffers and registrations; host textures replaced
// between frames and backends switched between sizes stay exact; and a
// destroyed Labeler leaves nothing registered or allocated.
#include <catch2/catch.hpp>

#include "gl.hpp"  // the engine's GL entry points, before any other GL header

#include <cstdint>
#include <string>
#include <vector>

#include "cuda_support.hpp"
#include "glccl/compare.hpp"
#include "glccl/context.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/generate.hpp"
#include "glccl/labeler.hpp"
#include "glccl/reference.hpp"

using namespace glccl;

namespace {

using test::cudaOptions;

// Labels `texture` (holding `image`) and checks labels, table and count
// against the reference.
void labelAndCheck(Labeler& labeler, GLuint texture, const Image& image, const LabelOptions& options,
                   const std::string& what) {
    const std::uint32_t count = labeler.label(texture, options);
    Labeling actual;
    actual.width = image.width;
    actual.height = image.height;
    actual.components = labeler.components();
    actual.labels = labeler.downloadLabels();
    CHECK(count == actual.components.size());
    test::checkMatchesReference(image, options.connectivity, options.criterion, actual, what);
}

}  // namespace

TEST_CASE("cuda: Labeler with the CUDA backend labels the host texture like the reference", "[cuda]") {
    test::requireCudaOrSkip();
    HeadlessContext context;
    for (const char* family : {"noise50", "spiral", "dense_disks"}) {
        const Image image = generateFamily(family, 301, 197, 3);
        GLuint texture = 0;
        glGenTextures(1, &texture);
        glBindTexture(GL_TEXTURE_2D, texture);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, image.width, image.height, 0, GL_RED, GL_UNSIGNED_BYTE, image.pixels.data());
        Labeler labeler;
        for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
            LabelOptions options;
            options.connectivity = connectivity;
            options.backend = GpuBackend::Cuda;
            options.timings = true;
            const std::uint32_t count = labeler.label(texture, options);
            Labeling actual;
            actual.width = image.width;
            actual.height = image.height;
            actual.labels = labeler.downloadLabels();
            actual.components = labeler.components();
            const Labeling expected = labelReference(image, connectivity, Criterion::binary());
            INFO(family << " connectivity " << int(connectivity) << ": " << compareLabelings(expected, actual).describe());
            CHECK(count == expected.count());
            CHECK(compareLabelings(expected, actual).identical());
            CHECK_FALSE(labeler.stageTimings().empty());
        }
        glDeleteTextures(1, &texture);
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("cuda: Labeler frames of one size, then another, then the first again, all exact", "[cuda]") {
    test::requireCudaOrSkip();
    const auto context = test::contextOrSkip();
    Labeler labeler;
    // The host's two textures live through the whole run; each is updated
    // in place every frame, as a renderer would.
    test::TestTexture first(GL_R8, 800, 600);
    test::TestTexture second(GL_R8, 513, 1025);
    struct Phase {
        const test::TestTexture& texture;
        int width, height;
        Connectivity connectivity;
    };
    const Phase phases[] = {
        {first, 800, 600, Connectivity::Eight},
        {second, 513, 1025, Connectivity::Four},
        {first, 800, 600, Connectivity::Four},
    };
    std::uint64_t seed = 100;
    for (const Phase& phase : phases) {
        const LabelOptions options = cudaOptions(phase.connectivity);
        labeler.reserve(phase.width, phase.height, options);
        for (int frame = 0; frame < 16; ++frame) {
            const Image image = randomImage(phase.width, phase.height, 0.5, 2, 1, seed++);
            test::fill(phase.texture.name(), image);
            labelAndCheck(labeler, phase.texture.name(), image, options,
                          std::to_string(phase.width) + "x" + std::to_string(phase.height) + " frame " +
                              std::to_string(frame));
            CHECK(labeler.backend() == Backend::Cuda);
        }
        GLCCL_CHECK_NO_GL_ERROR();
    }
    CHECK(test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: Labeler's labels come down from the device buffer equal to the label texture", "[cuda]") {
    // The cuda engine's own download (its device buffer through page-locked
    // chunks of 8 MiB): 2049 x 1501 labels are 12.3 MB, two chunks, the
    // second short. Read both ways and against the reference.
    test::requireCudaOrSkip();
    const auto context = test::contextOrSkip();
    Labeler labeler;
    test::TestTexture texture(GL_R8, 2049, 1501);
    std::vector<std::uint32_t> labels, fromTexture(std::size_t(2049) * 1501);
    for (std::uint64_t seed : {1, 2}) {
        const Image image = randomImage(2049, 1501, 0.55, 2, 1, seed);
        test::fill(texture.name(), image);
        const LabelOptions options = cudaOptions();
        labelAndCheck(labeler, texture.name(), image, options, "2049x1501 seed " + std::to_string(seed));
        labeler.downloadLabels(labels);
        glBindTexture(GL_TEXTURE_2D, labeler.labelTexture());
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        glGetTexImage(GL_TEXTURE_2D, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, fromTexture.data());
        glBindTexture(GL_TEXTURE_2D, 0);
        CHECK(labels == fromTexture);
    }
    std::vector<std::uint32_t> tooFew(100);
    REQUIRE_THROWS_WITH(labeler.downloadLabels(tooFew.data(), tooFew.size()),
                        Catch::Contains("room for 100 labels given"));
    GLCCL_CHECK_NO_GL_ERROR();
    CHECK(test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: Labeler on host textures deleted and re-created between frames", "[cuda]") {
    test::requireCudaOrSkip();
    const auto context = test::contextOrSkip();
    Labeler labeler;
    const LabelOptions options = cudaOptions();
    const Image small = randomImage(320, 240, 0.5, 2, 1, 200);
    const Image large = randomImage(640, 480, 0.5, 2, 1, 201);

    // Deleted, and a new one (GL may reuse the name) at another size: the
    // registration follows the size.
    auto texture = test::upload(small);
    labelAndCheck(labeler, texture->name(), small, options, "first texture");
    texture->destroy();
    texture = test::upload(large);
    labelAndCheck(labeler, texture->name(), large, options, "re-created at another size");

    // Deleted and passed again: the Labeler's own check refuses it.
    const GLuint deleted = texture->name();
    texture->destroy();
    std::string message = "no error";
    try {
        labeler.label(deleted, options);
    } catch (const Error& e) {
        message = e.what();
    }
    CHECK_THAT(message, Catch::StartsWith("glccl::Labeler::label(): ") && Catch::Contains("not a texture"));

    // And the Labeler still works afterwards.
    texture = test::upload(small);
    labelAndCheck(labeler, texture->name(), small, options, "after the error");
    GLCCL_CHECK_NO_GL_ERROR();
    CHECK(test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: Labeler switching backends and sizes between frames stays exact", "[cuda]") {
    test::requireCudaOrSkip();
    const auto context = test::contextOrSkip();
    // The Labeler replaces its label texture when the size changes, whichever
    // backend runs; GL may give the new texture the old one's name. The cuda
    // engine's registration of the old texture must not be reused for it.
    Labeler labeler;
    const Image a = randomImage(400, 300, 0.5, 2, 1, 300);
    const Image b = randomImage(300, 400, 0.5, 2, 1, 301);
    const auto textureA = test::upload(a);
    const auto textureB = test::upload(b);
    LabelOptions cpu = cudaOptions();
    cpu.backend = Backend::Cpu;
    for (int round = 0; round < 3; ++round) {
        labelAndCheck(labeler, textureA->name(), a, cudaOptions(), "cuda at 400x300");
        labelAndCheck(labeler, textureB->name(), b, cpu, "cpu at 300x400");
        labelAndCheck(labeler, textureA->name(), a, cudaOptions(), "cuda at 400x300 again");
        labelAndCheck(labeler, textureB->name(), b, cudaOptions(), "cuda at 300x400");
    }
    GLCCL_CHECK_NO_GL_ERROR();
    CHECK(test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: a destroyed Labeler leaves nothing registered or allocated", "[cuda]") {
    test::requireCudaOrSkip();
    const auto context = test::contextOrSkip();
    const Image image = randomImage(4096, 2048, 0.5, 2, 1, 400);
    auto session = [&] {
        auto texture = test::upload(image);
        {
            Labeler labeler;
            labeler.reserve(image.width, image.height, cudaOptions());
            for (int frame = 0; frame < 3; ++frame) {
                labeler.label(texture->name(), cudaOptions());
                CHECK_FALSE(labeler.components().empty());
            }
        }
        // After the Labeler: a registration left behind would keep the
        // texture's storage alive.
        texture->destroy();
        glFinish();
    };
    session();  // warm-up: the context's own lazy allocations
    const std::size_t freeBefore = test::freeDeviceMemory();
    session();
    const std::size_t freeAfter = test::freeDeviceMemory();
    INFO("free device memory before " << freeBefore << ", after " << freeAfter);
    CHECK(freeAfter + test::kMemorySlack >= freeBefore);
    GLCCL_CHECK_NO_GL_ERROR();
    CHECK(test::cudaErrorNow() == "cudaSuccess");
}

// labelGlTexture: the CUDA path reading a GL texture and writing a GL_R32UI
// label texture through CUDA-GL interop, in a headless EGL context, checked
// against the CPU reference by reading the label texture back through GL.
//
// Needs a CUDA device and an EGL context on the same GPU; elsewhere the test
// prints why and is reported as skipped (cuda_support.hpp).

#include <catch2/catch.hpp>

#if __has_include("glccl/context.hpp")
#define GLCCL_CUDA_TEST_HAVE_CONTEXT 1
#include <GL/glew.h>

#include "glccl/context.hpp"
#endif

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glccl/compare.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/reference.hpp"
#include "cuda_support.hpp"

using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;

#ifdef GLCCL_CUDA_TEST_HAVE_CONTEXT
namespace {

const char* glErrorName(GLenum error) {
    switch (error) {
        case GL_NO_ERROR: return "GL_NO_ERROR";
        case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
        case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
        case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
        case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
        case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
        default: return "unknown GL error";
    }
}

#define GLCCL_CHECK_NO_GL_ERROR() CHECK(std::string(glErrorName(glGetError())) == "GL_NO_ERROR")

// An immutable 2D texture owned by the test.
class TestTexture {
public:
    TestTexture(GLenum internalFormat, int width, int height) {
        glGenTextures(1, &name_);
        glBindTexture(GL_TEXTURE_2D, name_);
        glTexStorage2D(GL_TEXTURE_2D, 1, internalFormat, width, height);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glBindTexture(GL_TEXTURE_2D, 0);
    }
    TestTexture(const TestTexture&) = delete;
    TestTexture& operator=(const TestTexture&) = delete;
    ~TestTexture() { glDeleteTextures(1, &name_); }
    GLuint name() const { return name_; }

private:
    GLuint name_ = 0;
};

// The image as GL_R8 (1 channel) or GL_RGBA8 (4 channels), rows as stored.
std::unique_ptr<TestTexture> upload(const Image& image) {
    auto texture = std::make_unique<TestTexture>(image.channels == 1 ? GL_R8 : GL_RGBA8, image.width, image.height);
    glBindTexture(GL_TEXTURE_2D, texture->name());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, image.width, image.height, image.channels == 1 ? GL_RED : GL_RGBA,
                    GL_UNSIGNED_BYTE, image.pixels.data());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glBindTexture(GL_TEXTURE_2D, 0);
    return texture;
}

std::vector<std::uint32_t> readLabels(const TestTexture& texture, int width, int height) {
    std::vector<std::uint32_t> labels(std::size_t(width) * height, 0xDEADBEEFu);
    glBindTexture(GL_TEXTURE_2D, texture.name());
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, labels.data());
    glBindTexture(GL_TEXTURE_2D, 0);
    return labels;
}

std::unique_ptr<glccl::HeadlessContext> makeContext(std::string* why) {
    try {
        return std::make_unique<glccl::HeadlessContext>();
    } catch (const glccl::Error& e) {
        *why = e.what();
        return nullptr;
    }
}

}  // namespace

TEST_CASE("cuda: labelGlTexture labels GL textures like the reference", "[cuda][interop]") {
    glccl::test::requireCudaOrSkip();
    std::string why;
    const auto context = makeContext(&why);
    if (!context) glccl::test::skipTest("CUDA-GL interop needs a headless GL context: " + why);
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
        INFO(image.width << "x" << image.height << "x" << image.channels << ", " << c.criterion.toString()
                         << ", connectivity " << int(c.connectivity));
        const auto input = upload(image);
        const TestTexture labelTexture(GL_R32UI, image.width, image.height);
        GLCCL_CHECK_NO_GL_ERROR();

        glccl::Labeling actual;
        actual.width = image.width;
        actual.height = image.height;
        actual.components = glccl::cuda::labelGlTexture(input->name(), labelTexture.name(), image.width,
                                                        image.height, image.channels, c.connectivity, c.criterion);
        actual.labels = readLabels(labelTexture, image.width, image.height);
        GLCCL_CHECK_NO_GL_ERROR();

        const glccl::Labeling expected = glccl::labelReference(image, c.connectivity, c.criterion);
        const glccl::Comparison comparison = glccl::compareLabelings(expected, actual);
        INFO(comparison.describe());
        CHECK(comparison.identical());
    }
}

TEST_CASE("cuda: labelGlTexture refuses textures of the wrong format or size", "[cuda][interop]") {
    glccl::test::requireCudaOrSkip();
    std::string why;
    const auto context = makeContext(&why);
    if (!context) glccl::test::skipTest("CUDA-GL interop needs a headless GL context: " + why);
    const Image image = glccl::randomImage(64, 48, 0.5, 2, 1, 11);
    const auto input = upload(image);
    const TestTexture rightLabels(GL_R32UI, 64, 48);
    const TestTexture wrongFormat(GL_R8, 64, 48);
    const TestTexture wrongSize(GL_R32UI, 48, 64);
    auto message = [&](GLuint in, GLuint out, int channels) {
        try {
            glccl::cuda::labelGlTexture(in, out, 64, 48, channels, Connectivity::Eight,
                                        channels == 1 ? Criterion::binary() : Criterion::thresholded(1));
        } catch (const glccl::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string entry = "glccl::cuda::labelGlTexture(): ";
    CHECK_THAT(message(input->name(), wrongFormat.name(), 1), Catch::StartsWith(entry) && Catch::Contains("GL_R32UI"));
    CHECK_THAT(message(input->name(), wrongSize.name(), 1), Catch::StartsWith(entry) && Catch::Contains("48x64"));
    CHECK_THAT(message(input->name(), rightLabels.name(), 4), Catch::StartsWith(entry) && Catch::Contains("GL_RGBA8"));
    CHECK_THAT(message(0, rightLabels.name(), 1), Catch::StartsWith(entry) && Catch::Contains("inputTexture"));
    // A failed call leaves nothing registered or mapped: the next one works.
    CHECK(message(input->name(), rightLabels.name(), 1) == "no error");
    GLCCL_CHECK_NO_GL_ERROR();
}

#else

TEST_CASE("cuda: labelGlTexture labels GL textures like the reference", "[cuda][interop]") {
    glccl::test::skipTest("CUDA-GL interop: this build has no glccl/context.hpp (the GL engine) to make a context");
}

#endif

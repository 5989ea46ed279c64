#pragma once
// Shared by the cuda_* tests: the one place that decides whether a CUDA test
// can run here, and skips it (tests/skip.hpp) with the driver's reason when
// not; the check of a result against the CPU reference; device-memory
// accounting; and, where the GL engine is built, a headless context and
// test-owned textures for the interop tests.

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "glccl/compare.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/reference.hpp"
#include "skip.hpp"

#if __has_include("glccl/context.hpp")
#define GLCCL_CUDA_TEST_HAVE_CONTEXT 1
#include "gl.hpp"  // the engine's GL entry points, before any other GL header
using namespace glccl::gl_functions;

#include "glccl/context.hpp"
#include "glccl/labeler.hpp"
#include "glccl/texture.hpp"
#endif

namespace glccl::test {

// Device memory a test allocates, freed when it goes out of scope.
struct CudaFree {
    void operator()(void* p) const { cudaFree(p); }
};
using DeviceMemory = std::unique_ptr<void, CudaFree>;

inline DeviceMemory deviceAllocate(std::size_t bytes) {
    void* p = nullptr;
    REQUIRE(cudaMalloc(&p, bytes == 0 ? 1 : bytes) == cudaSuccess);
    return DeviceMemory(p);
}

// The message of the glccl::Error `call` throws, or "no error".
template <class Call>
std::string messageOf(Call&& call) {
    try {
        call();
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

// Returns when a CUDA device is usable; otherwise skips the calling test.
inline void requireCudaOrSkip() {
    std::string why;
    if (!cuda::available(&why)) skipTest("no usable CUDA device: " + why);
}

// `actual` (labels and table) must equal the CPU reference's labeling of
// `image`, byte for byte.
inline void checkMatchesReference(const Image& image, Connectivity connectivity, Criterion criterion,
                                  const Labeling& actual, const std::string& what) {
    INFO(what << ", " << image.width << "x" << image.height << "x" << image.channels << ", connectivity "
              << int(connectivity) << ", " << criterion.toString());
    const Labeling expected = labelReference(image, connectivity, criterion);
    const Comparison comparison = compareLabelings(expected, actual);
    INFO(comparison.describe());
    CHECK(comparison.identical());
}

// "{device 3, host 2, registrations 0}", for INFO.
inline std::string describe(const cuda::ResourceCounts& c) {
    return "{device " + std::to_string(c.deviceAllocations) + ", host " + std::to_string(c.hostAllocations) +
           ", registrations " + std::to_string(c.registrations) + "}";
}

// What two readings of freeDeviceMemory() may differ by without anything
// having leaked: a couple of the driver's 2 MiB pages.
constexpr std::size_t kMemorySlack = std::size_t(4) << 20;

// Free device memory as the driver reports it. Compare two readings taken
// after the same warm-up: the context's lazy allocations (module loading on a
// kernel's first launch, interop state) are made by then.
inline std::size_t freeDeviceMemory() {
    std::size_t free = 0, total = 0;
    REQUIRE(cudaMemGetInfo(&free, &total) == cudaSuccess);
    return free;
}

// No CUDA error pending (sticky or not).
inline std::string cudaErrorNow() {
    const cudaError_t status = cudaGetLastError();
    return status == cudaSuccess ? "cudaSuccess" : cudaGetErrorName(status);
}

#ifdef GLCCL_CUDA_TEST_HAVE_CONTEXT

inline const char* glErrorName(GLenum error) {
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

// Labeler options that ask for the cuda backend.
inline LabelOptions cudaOptions(Connectivity connectivity = Connectivity::Eight,
                                Criterion criterion = Criterion::binary()) {
    LabelOptions options;
    options.connectivity = connectivity;
    options.criterion = criterion;
    options.backend = Backend::Cuda;
    return options;
}

#define GLCCL_CHECK_NO_GL_ERROR() CHECK(std::string(glccl::test::glErrorName(glGetError())) == "GL_NO_ERROR")

// A headless context on the CUDA device's GPU, or a skip where EGL lists no
// device here (headlessDevices() says why). Where it lists one, a context
// that cannot be made fails the test.
inline std::unique_ptr<HeadlessContext> contextOrSkip() {
    std::string whyNoDevice;
    if (headlessDevices(&whyNoDevice).empty())
        skipTest("CUDA-GL interop needs a headless GL context on an EGL device: " + whyNoDevice);
    return std::make_unique<HeadlessContext>();
}

inline GLenum formatFor(int channels) { return channels == 1 ? GL_R8 : GL_RGBA8; }

// A 2-D texture owned by the test, with immutable storage (glTexStorage2D)
// or, with mutable true, storage that glTexImage2D may replace later.
class TestTexture {
public:
    TestTexture(GLenum internalFormat, int width, int height, bool mutableStorage = false) {
        glGenTextures(1, &name_);
        glBindTexture(GL_TEXTURE_2D, name_);
        if (mutableStorage) {
            respecify(internalFormat, width, height);
        } else {
            glTexStorage2D(GL_TEXTURE_2D, 1, internalFormat, width, height);
        }
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glBindTexture(GL_TEXTURE_2D, 0);
    }
    TestTexture(const TestTexture&) = delete;
    TestTexture& operator=(const TestTexture&) = delete;
    ~TestTexture() { destroy(); }
    GLuint name() const { return name_; }

    // New storage for a mutable texture (glTexImage2D), contents undefined.
    void respecify(GLenum internalFormat, int width, int height) const {
        glBindTexture(GL_TEXTURE_2D, name_);
        const bool integer = internalFormat == GL_R32UI;
        const GLenum format = integer ? GL_RED_INTEGER : internalFormat == GL_RGBA8 ? GL_RGBA : GL_RED;
        glTexImage2D(GL_TEXTURE_2D, 0, GLint(internalFormat), width, height, 0, format,
                     integer ? GL_UNSIGNED_INT : GL_UNSIGNED_BYTE, nullptr);
        glBindTexture(GL_TEXTURE_2D, 0);
    }

    void destroy() {
        if (name_ != 0) glDeleteTextures(1, &name_);
        name_ = 0;
    }

private:
    GLuint name_ = 0;
};

// The image's pixels into level 0 of `texture` (GL_R8 or GL_RGBA8, the
// image's size), rows as stored.
inline void fill(GLuint texture, const Image& image) {
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, image.width, image.height, image.channels == 1 ? GL_RED : GL_RGBA,
                    GL_UNSIGNED_BYTE, image.pixels.data());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glBindTexture(GL_TEXTURE_2D, 0);
}

inline std::unique_ptr<TestTexture> upload(const Image& image) {
    auto texture = std::make_unique<TestTexture>(formatFor(image.channels), image.width, image.height);
    fill(texture->name(), image);
    return texture;
}

// Level 0 of a GL_R32UI texture, read back through GL.
inline std::vector<std::uint32_t> readLabels(GLuint texture, int width, int height) {
    std::vector<std::uint32_t> labels(std::size_t(width) * height, 0xDEADBEEFu);
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, labels.data());
    glBindTexture(GL_TEXTURE_2D, 0);
    return labels;
}

// The labeling as the tests compare it: labels read back from the texture,
// the table the labeler returned.
inline Labeling readLabeling(GLuint labelTexture, int width, int height, const std::vector<Component>& table) {
    Labeling labeling;
    labeling.width = width;
    labeling.height = height;
    labeling.labels = readLabels(labelTexture, width, height);
    labeling.components = table;
    return labeling;
}

#endif

}  // namespace glccl::test

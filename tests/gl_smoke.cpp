// The GL foundations on a headless context: context, texture round trips,
// program errors, GL error translation.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "gl_error.hpp"
#include "gl_objects.hpp"
#include "gl_support.hpp"
#include "glccl/error.hpp"
#include "glccl/route.hpp"
#include "program.hpp"

using namespace glccl;

namespace {

// Never destroyed: see offscreen() in gl_support.hpp.
HeadlessContext& sharedContext() {
    static HeadlessContext* context = new HeadlessContext();
    context->makeCurrent();
    return *context;
}

// Version order: major first, so 2.3 is older than 3.3 and 4.0 newer (for
// the test's own checks of a real context).
bool atLeast(const ContextInfo& info, int major, int minor) {
    return info.major > major || (info.major == major && info.minor >= minor);
}

}  // namespace

TEST_CASE("gl smoke: the router's version check orders major before minor", "[gl]") {
    // The engines' declarations (capabilitiesOf) are what decide: raster
    // needs OpenGL 3.3, compute 4.3.
    auto version = [](int major, int minor) {
        ContextInfo info;
        info.major = major;
        info.minor = minor;
        info.version = std::to_string(major) + "." + std::to_string(minor);
        info.maxTextureSize = 4096;
        return info;
    };
    auto runs = [&](Backend backend, int major, int minor) {
        const ContextInfo info = version(major, minor);
        return capabilitiesOf(backend, &info).whyNotHere.empty();
    };
    CHECK(runs(Backend::Raster, 3, 3));
    CHECK(runs(Backend::Raster, 4, 0));
    CHECK(runs(Backend::Raster, 4, 6));
    CHECK_FALSE(runs(Backend::Raster, 2, 3));
    CHECK_FALSE(runs(Backend::Raster, 2, 9));
    CHECK_FALSE(runs(Backend::Raster, 3, 2));
    CHECK(runs(Backend::Compute, 4, 3));
    CHECK(runs(Backend::Compute, 5, 0));
    CHECK_FALSE(runs(Backend::Compute, 4, 2));
    CHECK_FALSE(runs(Backend::Compute, 3, 9));
}

TEST_CASE("gl smoke: headless context is a core profile of at least 3.3", "[gl]") {
    const ContextInfo& info = sharedContext().info();
    INFO("renderer " << info.renderer << ", version " << info.version << ", platform " << sharedContext().platform());
    WARN("GL renderer: " << info.renderer << " | " << info.version << " | " << sharedContext().platform());
    CHECK(info.coreProfile);
    CHECK(atLeast(info, 3, 3));
    CHECK(info.maxTextureSize >= 4096);
    CHECK_FALSE(info.renderer.empty());
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("gl smoke: a 3.3 core context can be requested", "[gl]") {
    HeadlessContext::Options options;
    options.major = 3;
    options.minor = 3;
    HeadlessContext context(options);
    CHECK(context.info().coreProfile);
    CHECK(atLeast(context.info(), 3, 3));
    sharedContext();
}

TEST_CASE("gl smoke: texture upload and download round trips", "[gl]") {
    sharedContext();
    const int width = 37, height = 11;  // odd sizes catch row-alignment mistakes
    SECTION("R8") {
        std::vector<std::uint8_t> pixels(width * height);
        for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = std::uint8_t(i * 7 + 3);
        auto texture = gl::Texture::allocate(GL_R8, width, height, "test");
        texture.upload(pixels.data(), GL_RED, GL_UNSIGNED_BYTE);
        std::vector<std::uint8_t> back(pixels.size(), 0xEE);
        texture.download(back.data(), GL_RED, GL_UNSIGNED_BYTE);
        CHECK(back == pixels);
    }
    SECTION("R32F keeps every bit of normal floats") {
        std::vector<float> pixels(width * height);
        for (std::size_t i = 0; i < pixels.size(); ++i) {
            const std::uint32_t bits = 0x00800000u + std::uint32_t(i) * 2654435761u % 0x3F000000u;
            std::memcpy(&pixels[i], &bits, 4);
        }
        auto texture = gl::Texture::allocate(GL_R32F, width, height, "test");
        texture.upload(pixels.data(), GL_RED, GL_FLOAT);
        std::vector<float> back(pixels.size(), -1.0f);
        texture.download(back.data(), GL_RED, GL_FLOAT);
        CHECK(std::memcmp(back.data(), pixels.data(), pixels.size() * 4) == 0);
    }
    SECTION("R32UI, and a rectangle read through a framebuffer") {
        std::vector<std::uint32_t> pixels(width * height);
        for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = std::uint32_t(i) * 2654435761u;
        auto texture = gl::Texture::allocate(GL_R32UI, width, height, "test");
        texture.upload(pixels.data(), GL_RED_INTEGER, GL_UNSIGNED_INT);
        std::vector<std::uint32_t> back(pixels.size(), 0);
        texture.download(back.data(), GL_RED_INTEGER, GL_UNSIGNED_INT);
        CHECK(back == pixels);
        std::vector<std::uint32_t> rect(5 * 3, 0);
        gl::readTextureRect(texture, 2, 4, 5, 3, GL_RED_INTEGER, GL_UNSIGNED_INT, rect.data());
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 5; ++x) CHECK(rect[y * 5 + x] == pixels[(4 + y) * width + 2 + x]);
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("gl smoke: a shader compile error names the stage and the driver log", "[gl]") {
    sharedContext();
    gl::ProgramBuilder builder("broken_stage");
    builder.vertexSource("void main() { gl_Position = vec4(0.0); }\n")
        .fragmentSource("out vec4 color;\nvoid main() { color = undefinedThing; }\n");
    try {
        builder.build();
        FAIL("a broken shader compiled");
    } catch (const Error& error) {
        const std::string message = error.what();
        INFO(message);
        CHECK(message.find("broken_stage") != std::string::npos);
        CHECK(message.find("<fragment source>") != std::string::npos);
        CHECK(message.find("undefinedThing") != std::string::npos);
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("gl smoke: GL errors become exceptions with their names", "[gl]") {
    sharedContext();
    glBindTexture(GL_TEXTURE_2D, 0xFFFFFF);  // not a texture name: GL_INVALID_OPERATION in core
    try {
        checkGlError("test call");
        FAIL("no error reported");
    } catch (const Error& error) {
        CHECK(std::string(error.what()).find("test call: GL_INVALID_OPERATION") != std::string::npos);
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("gl smoke: an empty texture size is refused", "[gl]") {
    sharedContext();
    CHECK_THROWS_AS(gl::Texture::allocate(GL_R8, 0, 5, "test"), Error);
}

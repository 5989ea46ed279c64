// The page's module: a WebGL2 context on the page's canvas, a glccl::Labeler
// in it (the raster engine: the one GL engine WebGL2 can run), and a C
// interface for the page's script:
//
//   glccl_web_start(canvas)        the context and the Labeler; 0, or -1 and
//                                  glccl_web_result() says why
//   glccl_web_label(png, bytes, c) decodes the PNG, labels it with
//                                  connectivity c (4 or 8); 0 or -1
//   glccl_web_result()             JSON: the image, the component count and
//                                  table, the timings, the reference's
//                                  verdict, the context; or the error
//   glccl_web_labels()             the last labels, width x height uint32,
//                                  row 0 first
//
// The PNG is read as `glccl label` reads it for the binary criterion
// (host/src/read_png.cpp): a gray file as one channel of its samples; a
// color file as its luma as libpng gives it, its gamma (gAMA, sRGB) and
// sBIT included (png_luma.hpp); alpha dropped. 16-bit samples go up as
// GL_R32UI, since WebGL2 has no GL_R16; the labels are those of the same
// samples.
#include <emscripten/emscripten.h>
#include <emscripten/html5.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/labeler.hpp"
#include "glccl/reference.hpp"
#include "glccl/texture.hpp"
#include "png_luma.hpp"

#define STBI_ONLY_PNG
#define STBI_NO_STDIO
#define STB_IMAGE_IMPLEMENTATION
#include "stb_image.h"

namespace {

struct Session {
    EMSCRIPTEN_WEBGL_CONTEXT_HANDLE context = 0;
    std::unique_ptr<glccl::Labeler> labeler;
};

Session session;
std::string result = "{}";
std::vector<std::uint32_t> labels;

std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            out += escaped;
            continue;
        }
        out += c;
    }
    return out + "\"";
}

int fail(const std::string& why) {
    result = "{\"ok\":false,\"error\":" + quoted(why) + "}";
    return -1;
}

// A decoded PNG as `glccl label` reads it for the binary criterion: one
// channel, 8-bit, or 16-bit samples widened to 32 bits.
glccl::Image decodePng(const std::uint8_t* bytes, int size) {
    int width = 0, height = 0, fileChannels = 0;
    if (!stbi_info_from_memory(bytes, size, &width, &height, &fileChannels))
        throw glccl::Error(std::string("not a PNG stb_image reads: ") + stbi_failure_reason());
    const bool wide = stbi_is_16_bit_from_memory(bytes, size) != 0;
    const bool color = fileChannels >= 3;
    const int channels = color ? 3 : 1;
    const std::size_t count = std::size_t(width) * std::size_t(height);
    // stb_image gives the file's samples as they are; the luma is libpng's
    // (a gray file's samples are taken as they are, and need no tables).
    const glccl::web::ColorToLuma luma(color ? glccl::web::lumaRulesOf(bytes, std::size_t(size))
                                             : glccl::web::LumaRules{});
    glccl::Image image(width, height, 1, wide ? 32 : 8);
    if (wide) {
        std::unique_ptr<stbi_us, void (*)(void*)> samples(
            stbi_load_16_from_memory(bytes, size, &width, &height, &fileChannels, channels), stbi_image_free);
        if (!samples) throw glccl::Error(std::string("PNG: ") + stbi_failure_reason());
        auto* out = reinterpret_cast<std::uint32_t*>(image.pixels.data());
        for (std::size_t i = 0; i < count; ++i) {
            const stbi_us* p = samples.get() + i * std::size_t(channels);
            out[i] = color ? luma.luma16(p[0], p[1], p[2]) : p[0];
        }
    } else {
        std::unique_ptr<stbi_uc, void (*)(void*)> samples(
            stbi_load_from_memory(bytes, size, &width, &height, &fileChannels, channels), stbi_image_free);
        if (!samples) throw glccl::Error(std::string("PNG: ") + stbi_failure_reason());
        std::uint8_t* out = image.pixels.data();
        for (std::size_t i = 0; i < count; ++i) {
            const stbi_uc* p = samples.get() + i * std::size_t(channels);
            out[i] = color ? luma.luma8(p[0], p[1], p[2]) : p[0];
        }
    }
    return image;
}

std::string componentRows(const std::vector<glccl::Component>& table) {
    std::ostringstream out;
    out.precision(17);
    out << '[';
    for (std::size_t i = 0; i < table.size(); ++i) {
        const glccl::Component& c = table[i];
        out << (i ? "," : "") << '[' << c.left << ',' << c.top << ',' << c.width << ',' << c.height << ',' << c.area
            << ',' << c.centroidX << ',' << c.centroidY << ']';
    }
    out << ']';
    return out.str();
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE int glccl_web_start(const char* canvas) {
    EmscriptenWebGLContextAttributes attributes;
    emscripten_webgl_init_context_attributes(&attributes);
    attributes.majorVersion = 2;
    attributes.minorVersion = 0;
    attributes.alpha = false;
    attributes.depth = true;
    attributes.stencil = true;  // the raster engine's root routing
    attributes.antialias = false;
    attributes.enableExtensionsByDefault = false;
    session.context = emscripten_webgl_create_context(canvas, &attributes);
    if (session.context <= 0) return fail("this browser offers no WebGL2 context");
    emscripten_webgl_make_context_current(session.context);
    // WebGL enables an extension when it is asked for: float targets and
    // float blending, which the raster engine renders its IDs and table with.
    for (const char* extension : {"EXT_color_buffer_float", "EXT_float_blend"}) {
        if (!emscripten_webgl_enable_extension(session.context, extension))
            return fail(std::string("this browser's WebGL2 lacks ") + extension +
                        ", which the raster engine needs");
    }
    try {
        session.labeler = std::make_unique<glccl::Labeler>();
    } catch (const std::exception& error) {
        return fail(error.what());
    }
    return 0;
}

EMSCRIPTEN_KEEPALIVE int glccl_web_label(const std::uint8_t* png, int bytes, int connectivity) {
    if (!session.labeler) return fail("glccl_web_start() did not succeed");
    try {
        double start = emscripten_get_now();
        const glccl::Image image = decodePng(png, bytes);
        const double decodeMs = emscripten_get_now() - start;

        start = emscripten_get_now();
        glccl::ImageTexture texture(image);
        const double uploadMs = emscripten_get_now() - start;

        glccl::LabelOptions options;
        options.backend = glccl::Backend::Raster;
        options.connectivity = connectivity == 4 ? glccl::Connectivity::Four : glccl::Connectivity::Eight;
        glccl::Labeler& labeler = *session.labeler;
        // The first call at a size makes the engine's targets (and, the
        // first time, compiles its programs); the second is a frame's cost.
        // The count is read back, so each call has waited for its passes.
        start = emscripten_get_now();
        labeler.label(texture.id(), image.width, image.height, texture.internalFormat(), options);
        const double firstMs = emscripten_get_now() - start;
        start = emscripten_get_now();
        const std::uint32_t count =
            labeler.label(texture.id(), image.width, image.height, texture.internalFormat(), options);
        const double labelMs = emscripten_get_now() - start;

        start = emscripten_get_now();
        const std::vector<glccl::Component> table = labeler.components();
        const double tableMs = emscripten_get_now() - start;
        start = emscripten_get_now();
        labeler.downloadLabels(labels);
        const double downloadMs = emscripten_get_now() - start;

        // The oracle, on the same samples in wasm: the page says whether the
        // GPU's labels and table are its own.
        start = emscripten_get_now();
        const glccl::Labeling reference =
            glccl::labelReference(image, options.connectivity, glccl::Criterion::binary());
        const double referenceMs = emscripten_get_now() - start;
        const bool same = reference.labels == labels && reference.components == table;

        const glccl::ContextInfo& info = labeler.contextInfo();
        std::ostringstream out;
        out.precision(6);
        out << "{\"ok\":true,\"width\":" << image.width << ",\"height\":" << image.height
            << ",\"sampleBits\":" << image.sampleBits << ",\"connectivity\":" << (connectivity == 4 ? 4 : 8)
            << ",\"count\":" << count << ",\"backend\":" << quoted(glccl::backendName(labeler.backend()))
            << ",\"context\":{\"version\":" << quoted(info.version) << ",\"renderer\":" << quoted(info.renderer)
            << "},\"ms\":{\"decode\":" << decodeMs << ",\"upload\":" << uploadMs << ",\"firstLabel\":" << firstMs
            << ",\"label\":" << labelMs << ",\"table\":" << tableMs << ",\"download\":" << downloadMs
            << ",\"reference\":" << referenceMs << "},\"reference\":{\"count\":" << reference.components.size()
            << ",\"same\":" << (same ? "true" : "false") << "},\"components\":" << componentRows(table) << '}';
        result = out.str();
        return 0;
    } catch (const std::exception& error) {
        labels.clear();
        return fail(error.what());
    }
}

EMSCRIPTEN_KEEPALIVE const char* glccl_web_result() { return result.c_str(); }

EMSCRIPTEN_KEEPALIVE const std::uint32_t* glccl_web_labels() { return labels.data(); }

}  // extern "C"

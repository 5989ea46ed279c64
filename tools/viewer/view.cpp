#include <GL/glew.h>  // before any other GL header

#include "view.hpp"

#include <algorithm>
#include <cmath>

#include "glccl/error.hpp"

// stb_easy_font.h defines every function static; the ones this file does not
// call would each warn as unused.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include <stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace glccl::viewer {

namespace {

// Shader bodies: buildProgram (gl_objects.hpp) puts the #version line in
// front of them.

// The location of `name` in `program`, which it makes current.
GLint uniform(const GlHandle& program, const char* name) {
    glUseProgram(program.id());
    return glGetUniformLocation(program.id(), name);
}

// Draws one triangle that covers the viewport; the vertex shader makes its
// corners from gl_VertexID, so no vertex buffer is needed.
constexpr const char* kFullViewportVertex = R"glsl(void main() {
    vec2 corner = vec2(float((gl_VertexID & 1) << 2), float((gl_VertexID & 2) << 1));
    gl_Position = vec4(corner - 1.0, 0.0, 1.0);
}
)glsl";

// Metaballs: each blob adds r^2 / d^2 to a field; the blobs' outline is the
// level 1 of that field, so nearby blobs merge smoothly and split again.
constexpr const char* kBlobFragment = R"glsl(const int kBlobs = 9;
uniform vec3 blobs[kBlobs];  // x, y (pixels, row 0 first), radius
uniform int bands;
out vec4 value;
void main() {
    vec2 p = gl_FragCoord.xy;
    float field = 0.0;
    for (int i = 0; i < kBlobs; ++i) {
        vec2 d = p - blobs[i].xy;
        field += blobs[i].z * blobs[i].z / max(dot(d, d), 1e-3);
    }
    // Values are exact multiples of 1/255, so the GL_R8 texels are exact.
    float level = bands != 0 ? 32.0 * floor(clamp(field * 4.0, 0.0, 7.0)) : (field >= 1.0 ? 255.0 : 0.0);
    value = vec4(level / 255.0, 0.0, 0.0, 1.0);
}
)glsl";

// glccl::labelColor (host/src/image_io.cpp) in GLSL, integer for integer, so
// the screen shows the colors of the glccl command's --color pictures.
// The label views' fragment shaders are this function and a main() of their own.
constexpr const char* kLabelColor = R"glsl(uvec3 labelColor(uint label) {
    if (label == 0u) return uvec3(0u);
    uint hue = label * 0x9E3779B9u;
    uint hash = label * 0x85EBCA6Bu;
    hash ^= hash >> 13u;
    hash *= 0xC2B2AE35u;
    hash ^= hash >> 16u;
    uint saturation = 150u + (hash & 0xFFu) * 105u / 255u;
    uint value = 190u + ((hash >> 8u) & 0xFFu) * 65u / 255u;
    // hue * 6 is a 64-bit product on the host: its high word is the sector,
    // bits 24..31 of its low word the fraction. The high word is rebuilt
    // from 16-bit halves, GLSL 3.30 having no 64-bit integers.
    uint sector = ((hue >> 16u) * 6u + (((hue & 0xFFFFu) * 6u) >> 16u)) >> 16u;
    uint fraction = ((hue * 6u) >> 24u) & 0xFFu;
    uint v = value;
    uint p = value * (255u - saturation) / 255u;
    uint q = value * (255u - saturation * fraction / 255u) / 255u;
    uint t = value * (255u - saturation * (255u - fraction) / 255u) / 255u;
    switch (sector) {
        case 0u: return uvec3(v, t, p);
        case 1u: return uvec3(q, v, p);
        case 2u: return uvec3(p, v, t);
        case 3u: return uvec3(p, q, v);
        case 4u: return uvec3(t, p, v);
        default: return uvec3(v, p, q);
    }
}

)glsl";

// An image's labels, or one slice of a volume's (VOLUME defined), fill the
// viewport; the window's top row shows image row 0.
constexpr const char* kLabelFragment = R"glsl(#ifdef VOLUME
uniform usampler3D labels;
uniform int slice;
#else
uniform usampler2D labels;
#endif
uniform ivec4 viewport;  // x, y, width, height of the viewport in window pixels
out vec4 color;
void main() {
    ivec2 size = textureSize(labels, 0).xy;
    ivec2 pixel = ivec2(gl_FragCoord.xy) - viewport.xy;
    ivec2 texel = ivec2(pixel.x * size.x / viewport.z, (viewport.w - 1 - pixel.y) * size.y / viewport.w);
#ifdef VOLUME
    uint label = texelFetch(labels, ivec3(texel, slice), 0).r;
#else
    uint label = texelFetch(labels, texel, 0).r;
#endif
    color = vec4(vec3(labelColor(label)) / 255.0, 1.0);
}
)glsl";

// Positions in pixels of a w x h area, y down, mapped onto the viewport.
constexpr const char* kPixelVertex = R"glsl(uniform vec2 area;
layout(location = 0) in vec2 position;
void main() { gl_Position = vec4(position.x / area.x * 2.0 - 1.0, 1.0 - position.y / area.y * 2.0, 0.0, 1.0); }
)glsl";

constexpr const char* kSolidFragment = R"glsl(uniform vec4 solid;
out vec4 color;
void main() { color = solid; }
)glsl";

GlHandle positionsOnly(const GlHandle& buffer) {
    GlHandle vertexArray = GlHandle::create(GlHandle::Kind::VertexArray);
    glBindVertexArray(vertexArray.id());
    glBindBuffer(GL_ARRAY_BUFFER, buffer.id());
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    glBindVertexArray(0);
    return vertexArray;
}

void uploadAndBind(const GlHandle& program, const GlHandle& vertexArray, const GlHandle& buffer,
                   const std::vector<float>& data) {
    glUseProgram(program.id());
    glBindVertexArray(vertexArray.id());
    glBindBuffer(GL_ARRAY_BUFFER, buffer.id());
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(data.size() * sizeof(float)), data.data(), GL_STREAM_DRAW);
}

}  // namespace

BlobScene::BlobScene(int width, int height, Output output)
    : texture_(Image(width, height)),
      framebuffer_(framebufferFor(texture_, "the scene")),
      program_(buildProgram("the blob scene", kFullViewportVertex, kBlobFragment)),
      vertexArray_(GlHandle::create(GlHandle::Kind::VertexArray)),
      output_(output) {}

void BlobScene::render(double seconds) {
    const float w = float(texture_.width()), h = float(texture_.height());
    const float side = std::min(w, h);
    // Each blob runs its own Lissajous path; incommensurate speeds make the
    // blobs meet, merge and part again all the time.
    float blobs[9 * 3];
    for (int i = 0; i < 9; ++i) {
        const double t = seconds * (0.35 + 0.07 * i);
        blobs[3 * i + 0] = w * float(0.5 + 0.40 * std::sin(t * 1.3 + 0.9 * i));
        blobs[3 * i + 1] = h * float(0.5 + 0.38 * std::sin(t * 1.7 + 2.1 * i + 0.4));
        blobs[3 * i + 2] = side * float(0.045 + 0.015 * (i % 4));
    }
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, framebuffer_.id());
    glViewport(0, 0, texture_.width(), texture_.height());
    glUniform3fv(uniform(program_, "blobs"), 9, blobs);
    glUniform1i(uniform(program_, "bands"), output_ == Output::Bands ? 1 : 0);
    glBindVertexArray(vertexArray_.id());
    glDrawArrays(GL_TRIANGLES, 0, 3);
}

LabelView::LabelView()
    : image_(buildProgram("the label view", kFullViewportVertex, std::string(kLabelColor) + kLabelFragment)),
      volume_(buildProgram("the slice view", kFullViewportVertex,
                           "#define VOLUME\n" + std::string(kLabelColor) + kLabelFragment)),
      vertexArray_(GlHandle::create(GlHandle::Kind::VertexArray)) {}

void LabelView::draw(unsigned labelTexture) { draw(image_, GL_TEXTURE_2D, labelTexture); }

void LabelView::drawSlice(unsigned labelTexture, int slice) {
    glUniform1i(uniform(volume_, "slice"), slice);
    draw(volume_, GL_TEXTURE_3D, labelTexture);
}

void LabelView::draw(const GlHandle& program, unsigned target, unsigned labelTexture) {
    GLint viewport[4] = {};
    glGetIntegerv(GL_VIEWPORT, viewport);
    glUniform4i(uniform(program, "viewport"), viewport[0], viewport[1], viewport[2], viewport[3]);
    glUniform1i(uniform(program, "labels"), 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(target, labelTexture);
    glBindVertexArray(vertexArray_.id());
    glDrawArrays(GL_TRIANGLES, 0, 3);
}

BoxOverlay::BoxOverlay()
    : program_(buildProgram("the box overlay", kPixelVertex, kSolidFragment)),
      vertices_(GlHandle::create(GlHandle::Kind::Buffer)),
      vertexArray_(positionsOnly(vertices_)) {}

void BoxOverlay::draw(const std::vector<Component>& components, int imageWidth, int imageHeight) {
    if (components.empty()) return;
    // Through the centres of the boxes' outermost pixels, so the outline lies on them.
    corners_.clear();
    for (const Component& c : components) {
        const float left = float(c.left) + 0.5f, top = float(c.top) + 0.5f;
        const float right = float(c.left + c.width) - 0.5f, bottom = float(c.top + c.height) - 0.5f;
        corners_.insert(corners_.end(), {left, top, right, top, right, bottom, left, bottom});
    }
    uploadAndBind(program_, vertexArray_, vertices_, corners_);
    glUniform2f(uniform(program_, "area"), float(imageWidth), float(imageHeight));
    glUniform4f(uniform(program_, "solid"), 1.0f, 1.0f, 1.0f, 1.0f);
    for (std::size_t i = 0; i < components.size(); ++i) glDrawArrays(GL_LINE_LOOP, GLint(4 * i), 4);
}

TextOverlay::TextOverlay()
    : program_(buildProgram("the text overlay", kPixelVertex, kSolidFragment)),
      vertices_(GlHandle::create(GlHandle::Kind::Buffer)),
      vertexArray_(positionsOnly(vertices_)) {}

void TextOverlay::draw(const std::string& text, float x, float y, float scale, int viewportWidth,
                       int viewportHeight) {
    // stb_easy_font writes quads of 16-byte vertices (x, y, z, rgba); it
    // needs about 270 bytes per character.
    std::vector<char> chars(text.begin(), text.end());
    chars.push_back('\0');
    quads_.assign(chars.size() * 300 + 64, 0);
    // Shrinks the text to fit the viewport's width rather than cutting it off.
    const int textWidth = stb_easy_font_width(chars.data());
    if (textWidth > 0 && x + float(textWidth) * scale > float(viewportWidth) - x)
        scale = std::max(0.5f, (float(viewportWidth) - 2.0f * x) / float(textWidth));
    unsigned char white[4] = {255, 255, 255, 255};
    const int quads = stb_easy_font_print(0.0f, 0.0f, chars.data(), white, quads_.data(), int(quads_.size()));
    triangles_.clear();
    for (int q = 0; q < quads; ++q) {
        float corner[4][2];
        for (int v = 0; v < 4; ++v) {
            const float* vertex = reinterpret_cast<const float*>(quads_.data() + (4 * q + v) * 16);
            corner[v][0] = x + vertex[0] * scale;
            corner[v][1] = y + vertex[1] * scale;
        }
        for (int v : {0, 1, 2, 0, 2, 3}) triangles_.insert(triangles_.end(), {corner[v][0], corner[v][1]});
    }
    if (triangles_.empty()) return;
    uploadAndBind(program_, vertexArray_, vertices_, triangles_);
    glUniform2f(uniform(program_, "area"), float(viewportWidth), float(viewportHeight));
    glUniform4f(uniform(program_, "solid"), 0.9f, 0.9f, 0.9f, 1.0f);
    glDrawArrays(GL_TRIANGLES, 0, GLsizei(triangles_.size() / 2));
}

}  // namespace glccl::viewer

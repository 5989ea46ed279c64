#pragma once
// The viewer's own GL drawing, the "host renderer" glccl is embedded in: a
// scene rendered into a mask texture, the label texture shown in color, the
// component boxes and a text line. Each piece owns its GL objects through
// the engine's wrappers (gl_objects.hpp) and draws into the framebuffer and
// viewport bound by the caller.

#include <string>
#include <vector>

#include "gl_objects.hpp"
#include "glccl/types.hpp"

namespace glccl::viewer {

// Compiles and links a GLSL 3.30 core program; throws glccl::Error with the
// driver's log naming `name`.
gl::Program buildProgram(const std::string& name, const char* vertexSource, const char* fragmentSource);

// Moving, merging and splitting blobs (metaballs), rendered into a GL_R8
// texture. The picture depends only on the time given, never on the clock,
// so a frame number reproduces a frame.
class BlobScene {
public:
    enum class Output {
        Mask,   // 255 inside a blob, 0 outside: for the binary criterion
        Bands,  // the field in 8 levels (0, 32, ..., 224): for segments and threshold
    };
    BlobScene(int width, int height, Output output);
    void render(double seconds);
    const gl::Texture& texture() const { return target_.texture; }

private:
    gl::RenderTarget target_;
    gl::Program program_;
    gl::VertexArray vertexArray_;
    Output output_;
};

// Draws a GL_R32UI label texture into the current viewport, each label in
// the color glccl::labelColor gives it (exactly: integer arithmetic in the
// shader), background black.
class LabelView {
public:
    LabelView();
    void draw(GLuint labelTexture);

private:
    gl::Program program_;
    gl::VertexArray vertexArray_;
};

// Component bounding boxes as white line loops over the label view.
class BoxOverlay {
public:
    BoxOverlay();
    // imageWidth x imageHeight is the label image the viewport shows.
    void draw(const std::vector<Component>& components, int imageWidth, int imageHeight);

private:
    gl::Program program_;
    gl::Buffer vertices_;
    gl::VertexArray vertexArray_;  // after vertices_: made from it
    std::vector<float> corners_;
};

// One or more lines of text (stb_easy_font glyphs drawn as triangles).
class TextOverlay {
public:
    TextOverlay();
    // Draws at pixel (x, y) of the current viewport (y down), `scale` pixels per
    // font unit, or smaller where the text would not fit the viewport.
    void draw(const std::string& text, float x, float y, float scale, int viewportWidth, int viewportHeight);

private:
    gl::Program program_;
    gl::Buffer vertices_;
    gl::VertexArray vertexArray_;  // after vertices_: made from it
    std::vector<char> quads_;
    std::vector<float> triangles_;
};

}  // namespace glccl::viewer

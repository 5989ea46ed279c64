#pragma once
// The viewer's own GL drawing, the "host renderer" glccl is embedded in: a
// scene rendered into a mask texture, the label texture shown in color, the
// component boxes and a text line. Each piece owns its GL objects through
// the viewer's handles (gl_objects.hpp) and glccl's ImageTexture, and draws
// into the framebuffer and viewport bound by the caller.

#include <string>
#include <vector>

#include "gl_objects.hpp"
#include "glccl/texture.hpp"
#include "glccl/types.hpp"

namespace glccl::viewer {

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
    const ImageTexture& texture() const { return texture_; }

private:
    ImageTexture texture_;  // GL_R8
    GlHandle framebuffer_;
    GlHandle program_;
    GlHandle vertexArray_;
    Output output_;
};

// Draws a GL_R32UI label texture (or a slice of a 3-D one) into the current viewport, each label in
// the color glccl::labelColor gives it (exactly: integer arithmetic in the
// shader), background black.
class LabelView {
public:
    LabelView();
    void draw(unsigned labelTexture);
    // Slice `slice` of a GL_R32UI 3-D label texture.
    void drawSlice(unsigned labelTexture, int slice);

private:
    void draw(const GlHandle& program, unsigned target, unsigned labelTexture);
    GlHandle image_;
    GlHandle volume_;
    GlHandle vertexArray_;
};

// Component bounding boxes as white line loops over the label view.
class BoxOverlay {
public:
    BoxOverlay();
    // imageWidth x imageHeight is the label image the viewport shows.
    void draw(const std::vector<Component>& components, int imageWidth, int imageHeight);

private:
    GlHandle program_;
    GlHandle vertices_;
    GlHandle vertexArray_;  // after vertices_: made from it
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
    GlHandle program_;
    GlHandle vertices_;
    GlHandle vertexArray_;  // after vertices_: made from it
    std::vector<char> quads_;
    std::vector<float> triangles_;
};

}  // namespace glccl::viewer

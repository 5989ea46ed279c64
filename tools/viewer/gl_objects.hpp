#pragma once
// The viewer's own GL objects: move-only owners of the buffers, vertex
// arrays, framebuffers and programs it draws with, made and deleted here
// only. A renderer that embeds glccl brings its own; glccl hands it a label
// texture and a table, and creates or deletes nothing of the renderer's.

#include <string>

#include "glccl/texture.hpp"

namespace glccl::viewer {

// Owns one GL object of the current context; a moved-from or
// default-constructed handle holds 0. Destroy it while its context is
// current (the object is deleted then).
class GlHandle {
public:
    enum class Kind { None, Buffer, VertexArray, Framebuffer, Program };

    GlHandle() = default;
    // A new buffer or vertex array (Kind::Buffer, Kind::VertexArray); throws
    // glccl::Error for the other kinds, which have their own functions below.
    static GlHandle create(Kind kind);

    GlHandle(GlHandle&& other) noexcept;
    GlHandle& operator=(GlHandle&& other) noexcept;
    GlHandle(const GlHandle&) = delete;
    GlHandle& operator=(const GlHandle&) = delete;
    ~GlHandle();

    unsigned id() const { return id_; }
    Kind kind() const { return kind_; }

private:
    friend GlHandle framebufferFor(const ImageTexture& texture, const std::string& what);
    friend GlHandle buildProgram(const std::string& name, const std::string& vertexSource,
                                 const std::string& fragmentSource);
    GlHandle(Kind kind, unsigned id) : id_(id), kind_(kind) {}
    void reset();

    unsigned id_ = 0;
    Kind kind_ = Kind::None;
};

// A framebuffer that renders into `texture` (color attachment 0), checked
// complete. Leaves the framebuffer bindings as it found them. Throws
// glccl::Error ("glccl::viewer::framebufferFor(): ...") naming `what` and the
// framebuffer status.
GlHandle framebufferFor(const ImageTexture& texture, const std::string& what);

// Compiles and links a GLSL 3.30 core program from the bodies of a vertex
// and a fragment shader (no #version line: it is put in front of each).
// Bind vertex inputs with layout(location = N). Throws glccl::Error
// ("glccl::viewer::buildProgram(): ...") naming `name`, the shader and the
// driver's log.
GlHandle buildProgram(const std::string& name, const std::string& vertexSource, const std::string& fragmentSource);

// Throws glccl::Error("<where>: GL_OUT_OF_MEMORY ...") when the current
// context has a GL error pending (every pending error is cleared).
void checkGlError(const std::string& where);

}  // namespace glccl::viewer

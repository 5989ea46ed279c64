#pragma once
// GL objects for programs that draw around glccl in their own context (the
// viewer example): move-only owners made and deleted by the engine's own
// wrappers, so that nothing outside them calls glGen* or glDelete*, and
// GLSL programs built by the engine's program builder, so that a compile or
// link error reads the same wherever it happens.

#include <memory>
#include <string>

#include "glccl/texture.hpp"

namespace glccl {

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
    ~GlHandle() = default;

    unsigned id() const { return id_; }
    Kind kind() const { return kind_; }

private:
    friend GlHandle framebufferFor(const ImageTexture& texture, const std::string& what);
    friend GlHandle buildProgram(const std::string& name, const std::string& vertexSource,
                                 const std::string& fragmentSource);
    GlHandle(Kind kind, unsigned id, std::shared_ptr<void> owner)
        : owner_(std::move(owner)), id_(id), kind_(kind) {}

    std::shared_ptr<void> owner_;  // the engine's wrapper, which deletes the object
    unsigned id_ = 0;
    Kind kind_ = Kind::None;
};

// A framebuffer that renders into `texture` (color attachment 0), checked
// complete. Throws glccl::Error naming `what` and the framebuffer status.
GlHandle framebufferFor(const ImageTexture& texture, const std::string& what);

// Compiles and links a GLSL 3.30 core program from the bodies of a vertex
// and a fragment shader (no #version line: the engine's prologue and shared
// GLSL files come first, as for its own stages). Bind vertex inputs with
// layout(location = N). Throws glccl::Error naming `name`, the shader and the
// driver's log.
GlHandle buildProgram(const std::string& name, const std::string& vertexSource, const std::string& fragmentSource);

// Throws glccl::Error("<where>: GL_OUT_OF_MEMORY", ...) when the current
// context has a GL error pending (every pending error is cleared).
void checkGlError(const std::string& where);

}  // namespace glccl

#include "glccl/gl_handle.hpp"

#include <utility>

#include "gl_error.hpp"
#include "gl_objects.hpp"
#include "glccl/error.hpp"
#include "program.hpp"

namespace glccl {

GlHandle::GlHandle(GlHandle&& other) noexcept
    : owner_(std::move(other.owner_)), id_(std::exchange(other.id_, 0)), kind_(std::exchange(other.kind_, Kind::None)) {}

GlHandle& GlHandle::operator=(GlHandle&& other) noexcept {
    if (this != &other) {
        owner_ = std::move(other.owner_);
        id_ = std::exchange(other.id_, 0);
        kind_ = std::exchange(other.kind_, Kind::None);
    }
    return *this;
}

GlHandle GlHandle::create(Kind kind) {
    switch (kind) {
        case Kind::Buffer: {
            auto buffer = std::make_shared<gl::Buffer>(gl::Buffer::create());
            return GlHandle(kind, buffer->id(), buffer);
        }
        case Kind::VertexArray: {
            auto vertexArray = std::make_shared<gl::VertexArray>(gl::VertexArray::create());
            return GlHandle(kind, vertexArray->id(), vertexArray);
        }
        default:
            throw Error("glccl::GlHandle::create(): buffers and vertex arrays only; framebuffers come from "
                        "framebufferFor(), programs from buildProgram()");
    }
}

GlHandle framebufferFor(const ImageTexture& texture, const std::string& what) {
    if (texture.id() == 0) throw Error("glccl::framebufferFor(): " + what + ": the texture is empty");
    const gl::Texture target =
        gl::Texture::borrow(texture.id(), texture.channels() == 1 ? GL_R8 : GL_RGBA8, texture.width(), texture.height());
    const gl::Texture* targets[] = {&target};
    auto framebuffer = std::make_shared<gl::Framebuffer>(gl::multipleTargetFramebuffer(targets, 1, what));
    return GlHandle(GlHandle::Kind::Framebuffer, framebuffer->id(), framebuffer);
}

GlHandle buildProgram(const std::string& name, const std::string& vertexSource, const std::string& fragmentSource) {
    auto program = std::make_shared<gl::Program>(
        gl::ProgramBuilder(name).vertexSource(vertexSource).fragmentSource(fragmentSource).build());
    return GlHandle(GlHandle::Kind::Program, program->id(), program);
}

}  // namespace glccl

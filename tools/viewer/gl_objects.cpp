#include <GL/glew.h>  // before any other GL header

#include "gl_objects.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "glccl/error.hpp"

namespace glccl::viewer {

namespace {

std::string hexadecimal(GLenum value) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%04X", unsigned(value));
    return text;
}

std::string glErrorName(GLenum code) {
    switch (code) {
        case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
        case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
        case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
        case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
        case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
        default: return "GL error " + hexadecimal(code);
    }
}

std::string framebufferStatusName(GLenum status) {
    switch (status) {
        case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT";
        case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT";
        case GL_FRAMEBUFFER_UNSUPPORTED: return "GL_FRAMEBUFFER_UNSUPPORTED";
        default: return "framebuffer status " + hexadecimal(status);
    }
}

// The info log of a shader or program: `get` is glGetShaderInfoLog or
// glGetProgramInfoLog, `length` its GL_INFO_LOG_LENGTH.
template <class GetLog>
std::string infoLog(GLuint id, GLint length, GetLog get) {
    std::vector<char> log(std::size_t(std::max(length, 1)), '\0');
    get(id, GLsizei(log.size()), nullptr, log.data());
    return log.data();
}

// One compiled shader, deleted when it goes (after the program links).
struct Shader {
    GLuint id = 0;
    Shader(GLenum type, const std::string& body, const std::string& name) {
        const char* kind = type == GL_VERTEX_SHADER ? "vertex" : "fragment";
        const std::string source = "#version 330 core\n" + body;
        const char* text = source.c_str();
        id = glCreateShader(type);
        glShaderSource(id, 1, &text, nullptr);
        glCompileShader(id);
        GLint compiled = GL_FALSE, length = 0;
        glGetShaderiv(id, GL_COMPILE_STATUS, &compiled);
        if (compiled == GL_TRUE) return;
        glGetShaderiv(id, GL_INFO_LOG_LENGTH, &length);
        const std::string log = infoLog(id, length, glGetShaderInfoLog);
        glDeleteShader(id);
        throw Error("glccl::viewer::buildProgram(): " + name + ": the " + kind + " shader does not compile: " + log);
    }
    ~Shader() { glDeleteShader(id); }
    Shader(const Shader&) = delete;
    Shader& operator=(const Shader&) = delete;
};

}  // namespace

GlHandle::GlHandle(GlHandle&& other) noexcept
    : id_(std::exchange(other.id_, 0)), kind_(std::exchange(other.kind_, Kind::None)) {}

GlHandle& GlHandle::operator=(GlHandle&& other) noexcept {
    if (this != &other) {
        reset();
        id_ = std::exchange(other.id_, 0);
        kind_ = std::exchange(other.kind_, Kind::None);
    }
    return *this;
}

GlHandle::~GlHandle() { reset(); }

void GlHandle::reset() {
    switch (kind_) {
        case Kind::Buffer: glDeleteBuffers(1, &id_); break;
        case Kind::VertexArray: glDeleteVertexArrays(1, &id_); break;
        case Kind::Framebuffer: glDeleteFramebuffers(1, &id_); break;
        case Kind::Program: glDeleteProgram(id_); break;
        case Kind::None: break;
    }
    id_ = 0;
    kind_ = Kind::None;
}

GlHandle GlHandle::create(Kind kind) {
    GLuint id = 0;
    switch (kind) {
        case Kind::Buffer: glGenBuffers(1, &id); return GlHandle(kind, id);
        case Kind::VertexArray: glGenVertexArrays(1, &id); return GlHandle(kind, id);
        default:
            throw Error("glccl::viewer::GlHandle::create(): buffers and vertex arrays only; framebuffers come from "
                        "framebufferFor(), programs from buildProgram()");
    }
}

GlHandle framebufferFor(const ImageTexture& texture, const std::string& what) {
    if (texture.id() == 0) throw Error("glccl::viewer::framebufferFor(): " + what + ": the texture is empty");
    GLint drawn = 0, read = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &drawn);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read);
    GLuint id = 0;
    glGenFramebuffers(1, &id);
    GlHandle framebuffer(GlHandle::Kind::Framebuffer, id);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, id);
    glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture.id(), 0);
    const GLenum status = glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(drawn));
    glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(read));
    if (status != GL_FRAMEBUFFER_COMPLETE)
        throw Error("glccl::viewer::framebufferFor(): " + what + ": " + framebufferStatusName(status));
    return framebuffer;
}

GlHandle buildProgram(const std::string& name, const std::string& vertexSource, const std::string& fragmentSource) {
    const Shader vertex(GL_VERTEX_SHADER, vertexSource, name);
    const Shader fragment(GL_FRAGMENT_SHADER, fragmentSource, name);
    GlHandle program(GlHandle::Kind::Program, glCreateProgram());
    glAttachShader(program.id(), vertex.id);
    glAttachShader(program.id(), fragment.id);
    glLinkProgram(program.id());
    GLint linked = GL_FALSE, length = 0;
    glGetProgramiv(program.id(), GL_LINK_STATUS, &linked);
    if (linked != GL_TRUE) {
        glGetProgramiv(program.id(), GL_INFO_LOG_LENGTH, &length);
        throw Error("glccl::viewer::buildProgram(): " + name + ": the program does not link: " +
                    infoLog(program.id(), length, glGetProgramInfoLog));
    }
    glDetachShader(program.id(), vertex.id);
    glDetachShader(program.id(), fragment.id);
    return program;
}

void checkGlError(const std::string& where) {
    // At most 64: a lost context may report an error on every call.
    std::string names;
    for (int i = 0; i < 64; ++i) {
        const GLenum code = glGetError();
        if (code == GL_NO_ERROR) break;
        names += (names.empty() ? "" : ", ") + glErrorName(code);
    }
    if (!names.empty()) throw Error(where + ": " + names);
}

}  // namespace glccl::viewer

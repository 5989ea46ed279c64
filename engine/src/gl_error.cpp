#include "gl_error.hpp"

#include "glccl/error.hpp"

namespace glccl {

namespace {

thread_local std::string pendingDebugMessage;

void APIENTRY onDebugMessage(GLenum, GLenum type, GLuint, GLenum severity, GLsizei, const GLchar* message,
                               const void*) {
    if (type == GL_DEBUG_TYPE_ERROR || severity == GL_DEBUG_SEVERITY_HIGH) {
        if (pendingDebugMessage.empty()) pendingDebugMessage = message ? message : "";
    }
}

}  // namespace

const char* glErrorName(GLenum code) {
    switch (code) {
        case GL_NO_ERROR: return "GL_NO_ERROR";
        case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
        case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
        case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
        case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
        case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
        case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
        case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
        default: return "unknown GL error";
    }
}

void checkGlError(const std::string& where) {
    const GLenum code = glGetError();
    std::string message;
    if (code != GL_NO_ERROR) {
        message = where + ": " + glErrorName(code);
        clearGlErrors();
    }
    if (!pendingDebugMessage.empty()) {
        message += (message.empty() ? where + ": " : " (") + pendingDebugMessage + (message.empty() ? "" : ")");
        pendingDebugMessage.clear();
    }
    if (!message.empty()) throw Error(message);
}

void clearGlErrors() {
    for (int i = 0; i < 64 && glGetError() != GL_NO_ERROR; ++i) {
    }
}

void installDebugMessageHandler() {
    if (!glDebugMessageCallback) return;
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    glDebugMessageCallback(onDebugMessage, nullptr);
}

}  // namespace glccl

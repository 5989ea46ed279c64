#pragma once
// The one place the engine includes the GL loader.
#include <GL/glew.h>

#include <cstring>

namespace glccl::gl {

// Whether the current context lists `name` among its extensions. GLEW's own
// flags are no proof: with glewExperimental (context.cpp) GLEW raises a flag
// whenever the extension's entry points load, listed or not.
inline bool hasExtension(const char* name) {
    GLint count = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &count);
    for (GLint i = 0; i < count; ++i) {
        const auto* listed = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, GLuint(i)));
        if (listed != nullptr && std::strcmp(listed, name) == 0) return true;
    }
    return false;
}

}  // namespace glccl::gl

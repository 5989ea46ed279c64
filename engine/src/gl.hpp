#pragma once
// The one place the engine includes OpenGL. The headers give types and
// numbers only: every entry point is a pointer in namespace glccl, resolved
// at run time (gl_runtime.cpp), so nothing of glccl links an OpenGL, EGL or
// loader library and a machine without them runs the cpu engine.
#include <GL/glcorearb.h>

#include <cstring>
#include <string>

#include "gl_entry_points.hpp"

// glccl::glBindTexture and so on. Code outside namespace glccl (tests,
// tools) names them with `using namespace glccl::gl_functions;`.
namespace glccl {
inline namespace gl_functions {

#define GLCCL_DECLARE_GL_ENTRY_POINT(type, name) extern type name;
GLCCL_GL_ENTRY_POINTS(GLCCL_DECLARE_GL_ENTRY_POINT)
#undef GLCCL_DECLARE_GL_ENTRY_POINT

}  // namespace gl_functions
}  // namespace glccl

namespace glccl::gl {

// Whether the current context lists `name` among its extensions.
inline bool hasExtension(const char* name) {
    GLint count = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &count);
    for (GLint i = 0; i < count; ++i) {
        const auto* listed = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, GLuint(i)));
        if (listed != nullptr && std::strcmp(listed, name) == 0) return true;
    }
    return false;
}

// Whether the current context is OpenGL ES (GL_VERSION "OpenGL ES ..."):
// the raster engine replaces there what ES lacks.
inline bool isEs() {
    const auto* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    return version != nullptr && std::strncmp(version, "OpenGL ES", 9) == 0;
}

// Pixel stores ES does not have (byte swapping, bit order, packed images):
// querying or setting them there is an error, and their neutral values are
// the only ones ES knows.
inline bool desktopOnlyPixelStore(GLenum name) {
    return name == GL_PACK_SWAP_BYTES || name == GL_PACK_LSB_FIRST || name == GL_PACK_IMAGE_HEIGHT ||
           name == GL_PACK_SKIP_IMAGES || name == GL_UNPACK_SWAP_BYTES || name == GL_UNPACK_LSB_FIRST;
}

// The address of any GL entry point for the current context (an extension's
// too), null where there is none; after loadGlFunctions().
void* procAddress(const char* name);

// Empty where the system's OpenGL library opens; else what the loader said,
// for an error message.
std::string runtimeMissing();

}  // namespace glccl::gl

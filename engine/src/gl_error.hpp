#pragma once
// GL errors translated to names and turned into glccl::Error.

#include <string>

#include "gl.hpp"

namespace glccl {

const char* glErrorName(GLenum code);

// Throws glccl::Error("<where>: GL_INVALID_OPERATION ...") if glGetError()
// reports an error or a KHR_debug error message arrived since the last check.
void checkGlError(const std::string& where);

// Drains pending errors without throwing (used before giving control back).
void clearGlErrors();

// In a debug context, routes KHR_debug messages of type ERROR into the next
// checkGlError(). Does nothing where KHR_debug is unavailable.
void installDebugMessageHandler();

}  // namespace glccl

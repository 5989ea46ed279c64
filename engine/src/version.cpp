#include "glccl/version.hpp"

// GLCCL_VERSION is set on the glccl target from project(VERSION), so the
// string cannot drift from the version the package files are installed as.
#ifndef GLCCL_VERSION
#error "GLCCL_VERSION must be defined by the build (engine/CMakeLists.txt)"
#endif

namespace glccl {

const char* versionString() { return GLCCL_VERSION; }

}  // namespace glccl

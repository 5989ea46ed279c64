#include "pass_check.hpp"

#include <string>

#include "gl_error.hpp"

namespace glccl::backends {

void checkPass(bool enabled, const char* engine, const char* stage) {
    if (!enabled) return;
    glFinish();
    checkGlError(std::string("glccl: ") + engine + " stage " + stage);
}

}  // namespace glccl::backends

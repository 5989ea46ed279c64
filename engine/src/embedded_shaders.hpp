#pragma once
// The GLSL files of glsl/, embedded at build time (cmake/EmbedShaders.cmake).

#include <cstddef>
#include <string>

namespace glccl::detail {

struct EmbeddedShader {
    const char* name;    // file name in glsl/, e.g. "vertical_runs.frag"
    const char* source;
};
extern const EmbeddedShader kEmbeddedShaders[];
extern const std::size_t kEmbeddedShaderCount;

// The source of glsl/<name> (or of the file of that name in
// Tuning::shaderDir, where it has one); throws glccl::Error if there is no
// such file.
std::string shaderSource(const std::string& name);

}  // namespace glccl::detail

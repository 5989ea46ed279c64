#pragma once
// Builds programs from glsl/ files: "#version" + defines + the shared
// include files + the stage file. Render programs (GLSL 3.30, GLSL ES 3.00
// in an ES context) include criterion.glsl and common.glsl, compute
// programs (GLSL 4.30, GLSL ES 3.10 or 3.20 in an ES context)
// criterion.glsl, compute_common.glsl (a binary volume's passes
// volume_nodes.glsl instead) and union_find.glsl. Compile and link failures
// throw glccl::Error with the stage name, the file and line, and the
// driver's log.

#include <string>
#include <utility>
#include <vector>

#include "gl_objects.hpp"

namespace glccl::gl {

class ProgramBuilder {
public:
    explicit ProgramBuilder(std::string stage) : stage_(std::move(stage)) {}

    ProgramBuilder& define(const std::string& name, const std::string& value = "1");
    ProgramBuilder& define(const std::string& name, int value) { return define(name, std::to_string(value)); }
    // An `#extension NAME : enable` line after `#version`, for desktop
    // render programs (ES's prologue sets precisions first).
    ProgramBuilder& extension(std::string name) { extensions_.push_back(std::move(name)); return *this; }
    // A render program of an ES 3.1+ context as GLSL ES 3.10 rather than
    // 3.00 (textureGather).
    ProgramBuilder& glslEs310() { glslEs310_ = true; return *this; }
    // Stage files by name in glsl/; a vertex shader is required, the fragment
    // shader too (core profile). `common.glsl` is prepended to both.
    ProgramBuilder& vertex(std::string file) { vertexFile_ = std::move(file); return *this; }
    ProgramBuilder& fragment(std::string file) { fragmentFile_ = std::move(file); return *this; }
    // A compute program instead (OpenGL 4.3, OpenGL ES 3.1), from one stage
    // file, with `common` as its shared file.
    ProgramBuilder& compute(std::string file, std::string common = "compute_common.glsl") {
        computeFile_ = std::move(file);
        computeCommon_ = std::move(common);
        return *this;
    }
    // Source text instead of a file (tests, tools).
    ProgramBuilder& vertexSource(std::string text) { vertexText_ = std::move(text); return *this; }
    ProgramBuilder& fragmentSource(std::string text) { fragmentText_ = std::move(text); return *this; }
    // Fragment outputs bound to draw buffers in this order (before linking).
    ProgramBuilder& output(std::string name) { outputs_.push_back(std::move(name)); return *this; }

    Program build() const;

private:
    std::string stage_;
    std::vector<std::pair<std::string, std::string>> defines_;
    std::vector<std::string> extensions_;
    bool glslEs310_ = false;
    std::string vertexFile_, fragmentFile_, vertexText_, fragmentText_, computeFile_, computeCommon_;
    std::vector<std::string> outputs_;
};

}  // namespace glccl::gl

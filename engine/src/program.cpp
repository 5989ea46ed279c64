#include "program.hpp"

#include <cstring>

#include "embedded_shaders.hpp"
#include "gl_error.hpp"
#include "glccl/error.hpp"

namespace glccl::detail {

const char* shaderSource(const std::string& name) {
    for (std::size_t i = 0; i < kEmbeddedShaderCount; ++i)
        if (name == kEmbeddedShaders[i].name) return kEmbeddedShaders[i].source;
    throw Error("glccl: no shader file glsl/" + name + " is embedded in this build");
}

}  // namespace glccl::detail

namespace glccl::gl {

namespace {

// Source strings are numbered with #line so the driver's log names them:
// 0 = the generated prologue, 1 = common.glsl, 2 = the stage file.
constexpr const char* kSourceNames = "source 0 is the prologue, 1 is common.glsl, 2 is the stage file";

std::string infoLog(GLuint object, bool isProgram) {
    GLint length = 0;
    if (isProgram) glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length);
    else glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
    std::string log(std::size_t(length > 0 ? length : 1), '\0');
    if (isProgram) glGetProgramInfoLog(object, length, nullptr, log.data());
    else glGetShaderInfoLog(object, length, nullptr, log.data());
    log.resize(std::strlen(log.c_str()));
    return log;
}

// Compiles one shader; the returned wrapper owns it.
Object<ShaderTraits> compile(GLenum type, const std::string& text, const std::string& stage, const std::string& file) {
    auto shader = Object<ShaderTraits>::adopt(glCreateShader(type));
    if (!shader) throw Error("glccl: stage " + stage + ": glCreateShader failed");
    const char* source = text.c_str();
    glShaderSource(shader.id(), 1, &source, nullptr);
    glCompileShader(shader.id());
    GLint ok = GL_FALSE;
    glGetShaderiv(shader.id(), GL_COMPILE_STATUS, &ok);
    if (!ok)
        throw Error("glccl: stage " + stage + ": compiling " + file + " failed (" + kSourceNames + "):\n" +
                    infoLog(shader.id(), false));
    return shader;
}

}  // namespace

ProgramBuilder& ProgramBuilder::define(const std::string& name, const std::string& value) {
    defines_.emplace_back(name, value);
    return *this;
}

Program ProgramBuilder::build() const {
    std::string prologue = "#version 330 core\n";
    for (const auto& [name, value] : defines_) prologue += "#define " + name + " " + value + "\n";

    const std::string vertexName = vertexFile_.empty() ? "<vertex source>" : vertexFile_;
    const std::string fragmentName = fragmentFile_.empty() ? "<fragment source>" : fragmentFile_;
    const std::string vertexBody = vertexFile_.empty() ? vertexText_ : detail::shaderSource(vertexFile_);
    const std::string fragmentBody = fragmentFile_.empty() ? fragmentText_ : detail::shaderSource(fragmentFile_);
    const std::string common = detail::shaderSource("common.glsl");
    auto assemble = [&](const char* stageDefine, const std::string& body) {
        return prologue + "#define " + stageDefine + " 1\n#line 1 1\n" + common + "\n#line 1 2\n" + body;
    };
    const auto vertexShader = compile(GL_VERTEX_SHADER, assemble("STAGE_VERTEX", vertexBody), stage_, vertexName);
    const auto fragmentShader =
        compile(GL_FRAGMENT_SHADER, assemble("STAGE_FRAGMENT", fragmentBody), stage_, fragmentName);
    auto program = Object<ProgramTraits>::create();
    glAttachShader(program.id(), vertexShader.id());
    glAttachShader(program.id(), fragmentShader.id());
    for (std::size_t i = 0; i < outputs_.size(); ++i) glBindFragDataLocation(program.id(), GLuint(i), outputs_[i].c_str());
    glLinkProgram(program.id());
    glDetachShader(program.id(), vertexShader.id());
    glDetachShader(program.id(), fragmentShader.id());
    GLint linked = GL_FALSE;
    glGetProgramiv(program.id(), GL_LINK_STATUS, &linked);
    if (!linked)
        throw Error("glccl: stage " + stage_ + ": linking " + vertexName + " + " + fragmentName +
                    " failed:\n" + infoLog(program.id(), true));
    checkGlError("glccl: stage " + stage_ + ": building the program");
    return Program(std::move(program), stage_);
}

}  // namespace glccl::gl

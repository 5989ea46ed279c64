#include "program.hpp"

#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "embedded_shaders.hpp"
#include "gl_error.hpp"
#include "glccl/error.hpp"
#include "glccl/tuning.hpp"

namespace glccl::detail {

namespace {

// Tuning::shaderDir, for work on the shaders: a file of that folder
// replaces the embedded one of its name, read whenever a program is built.
std::optional<std::string> overriddenSource(const std::string& name) {
    const std::string folder = tuning().shaderDir;
    if (folder.empty()) return std::nullopt;
    std::ifstream file(folder + "/" + name, std::ios::binary);
    if (!file) return std::nullopt;
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

}  // namespace

// A shader folder's file with its `#include "name.glsl"` lines replaced as
// the build replaces them in the embedded files (cmake/EmbedShaders.cmake):
// the included file's text, its lines numbered 10001, ... (20001, ... for a
// second include), then the stage file's next line number again.
std::string expandIncludes(const std::string& text) {
    std::istringstream lines(text);
    std::string out, line;
    int number = 0, included = 0;
    while (std::getline(lines, line)) {
        ++number;
        const std::string prefix = "#include \"";
        if (line.rfind(prefix, 0) == 0 && line.find('"', prefix.size()) != std::string::npos) {
            const std::string file = line.substr(prefix.size(), line.find('"', prefix.size()) - prefix.size());
            std::string inserted = shaderSource(file);
            if (inserted.empty() || inserted.back() != '\n') inserted += '\n';
            out += "#line " + std::to_string(++included) + "0001\n" + inserted + "#line " + std::to_string(number + 1) + "\n";
        } else {
            out += line + '\n';
        }
    }
    return out;
}

std::string shaderSource(const std::string& name) {
    if (std::optional<std::string> text = overriddenSource(name)) return expandIncludes(*text);
    for (std::size_t i = 0; i < kEmbeddedShaderCount; ++i)
        if (name == kEmbeddedShaders[i].name) return kEmbeddedShaders[i].source;
    throw Error("no shader file glsl/" + name + " is embedded in this build");
}

}  // namespace glccl::detail

namespace glccl::gl {

namespace {

// Compute programs take the union-find of every compute stage and the work
// group's scan between their common file and the stage file.
constexpr const char* kForest = "union_find.glsl";
constexpr const char* kGroupScan = "group_scan.glsl";

// Compute programs ask for the subgroup operations where the context has
// them: a stage that uses them tests the extension's macro
// (GL_KHR_shader_subgroup_arithmetic) and keeps a path without them, the
// one contexts without these extensions (llvmpipe) compile, or is built
// only where the context reports them (measure_medium with MEDIUM_STRIPS,
// TermGatherer).
// Enabling an extension a context lacks is a warning, not an error.
constexpr const char* kSubgroupExtensions =
    "#extension GL_KHR_shader_subgroup_basic : enable\n"
    "#extension GL_KHR_shader_subgroup_ballot : enable\n"
    "#extension GL_KHR_shader_subgroup_arithmetic : enable\n";

// OpenGL ES 3.0 (and WebGL2) shaders: GLSL ES 3.00, whose fragment stage
// has no default float precision and no stage a default one for integer
// samplers. highp everywhere: IDs are float bit patterns and labels 32-bit
// integers, exact only at full precision.
constexpr const char* kEsPrologue =
    "#version 300 es\n"
    "precision highp float;\n"
    "precision highp int;\n"
    "precision highp sampler2D;\n"
    "precision highp usampler2D;\n"
    "precision highp isampler2D;\n"
    "precision highp sampler3D;\n"
    "precision highp usampler3D;\n";

// OpenGL ES 3.1 and 3.2 compute programs: GLSL ES 3.10 (3.20), whose
// image and sampler types have no default precision; highp for the same
// reason as above. imageAtomicMin on the parents image is core in ES 3.2
// and OES_shader_image_atomic's in 3.1. GLSL_ES tells the files the few
// places where GLSL ES says things otherwise.
std::string esComputePrologue() {
    GLint minor = 0;
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    std::string text =
        minor >= 2 ? "#version 320 es\n" : "#version 310 es\n#extension GL_OES_shader_image_atomic : enable\n";
    text += kSubgroupExtensions;
    text += "precision highp float;\n"
            "precision highp int;\n";
    for (const char* type : {"image2D", "uimage2D", "iimage2D", "image3D", "uimage3D", "iimage3D", "uimage2DArray",
                             "sampler2D", "usampler2D", "isampler2D", "sampler3D", "usampler3D", "isampler3D"})
        text += std::string("precision highp ") + type + ";\n";
    return text + "#define GLSL_ES 1\n";
}

// GLSL ES takes only constant expressions after `const`, where GLSL 4.30
// takes any for a local: the compute files' read-only locals (the indented
// declarations that start with `const`) lose the qualifier there.
std::string withoutLocalConst(const std::string& text) {
    std::istringstream lines(text);
    std::string out, line;
    while (std::getline(lines, line)) {
        const std::size_t first = line.find_first_not_of(" \t");
        if (first != 0 && first != std::string::npos && line.compare(first, 6, "const ") == 0) line.erase(first, 6);
        out += line + '\n';
    }
    return out;
}

// ES leaves a point's size undefined unless the vertex stage writes
// gl_PointSize (desktop takes glPointSize's): the stage's main is renamed
// and wrapped by one that writes POINT_SIZE, 1 unless the stage file
// defines it.
constexpr const char* kEsVertexRename = "#define main glcclStageMain\n";
constexpr const char* kEsVertexWrapper =
    "\n#undef main\n"
    "#ifndef POINT_SIZE\n"
    "#define POINT_SIZE 1.0\n"
    "#endif\n"
    "void main() {\n"
    "    glcclStageMain();\n"
    "    gl_PointSize = POINT_SIZE;\n"
    "}\n";

// Source strings are numbered with #line so the driver's log names them:
// 0 = the generated prologue, 1 = criterion.glsl, 2 = the backend's common
// file, then (compute) 3 = union_find.glsl and 4 = group_scan.glsl, and the
// stage file last.
std::string sourceNames(const char* common, bool compute) {
    return std::string("source 0 is the prologue, 1 is criterion.glsl, 2 is ") + common +
           (compute ? std::string(", 3 is ") + kForest + ", 4 is " + kGroupScan + ", 5 is the stage file"
                    : ", 3 is the stage file");
}

// The prologue's defines, then the shared files and the stage file, each
// numbered for the driver's log.
std::string assemble(const std::string& prologue, const char* common, const std::string& body, bool compute) {
    std::string text = prologue + "#line 1 1\n" + detail::shaderSource("criterion.glsl") + "\n#line 1 2\n" +
                       detail::shaderSource(common);
    if (compute) {
        text += std::string("\n#line 1 3\n") + detail::shaderSource(kForest) + "\n#line 1 4\n" +
                detail::shaderSource(kGroupScan);
    }
    return text + "\n#line 1 " + (compute ? "5" : "3") + "\n" + body;
}

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
Object<ShaderTraits> compile(GLenum type, const std::string& text, const std::string& stage, const std::string& file,
                             const char* common, bool compute) {
    auto shader = Object<ShaderTraits>::adopt(glCreateShader(type));
    if (!shader) throw Error("stage " + stage + ": glCreateShader failed");
    const char* source = text.c_str();
    glShaderSource(shader.id(), 1, &source, nullptr);
    glCompileShader(shader.id());
    GLint ok = GL_FALSE;
    glGetShaderiv(shader.id(), GL_COMPILE_STATUS, &ok);
    if (!ok)
        throw Error("stage " + stage + ": compiling " + file + " failed (" + sourceNames(common, compute) + "):\n" +
                    infoLog(shader.id(), false));
    return shader;
}

}  // namespace

ProgramBuilder& ProgramBuilder::define(const std::string& name, const std::string& value) {
    defines_.emplace_back(name, value);
    return *this;
}

Program ProgramBuilder::build() const {
    std::string defines;
    for (const auto& [name, value] : defines_) defines += "#define " + name + " " + value + "\n";
    auto program = Object<ProgramTraits>::create();
    std::vector<Object<ShaderTraits>> shaders;
    std::string linked;
    if (!computeFile_.empty()) {
        const char* common = computeCommon_.c_str();
        const bool es = isEs();
        const std::string prologue =
            es ? esComputePrologue() : "#version 430 core\n" + std::string(kSubgroupExtensions);
        std::string text = assemble(prologue + defines, common, detail::shaderSource(computeFile_), true);
        if (es) text = withoutLocalConst(text);
        shaders.push_back(compile(GL_COMPUTE_SHADER, text, stage_, computeFile_, common, true));
        linked = computeFile_;
    } else {
        constexpr const char* kCommon = "common.glsl";
        const bool es = isEs();
        std::string extensions;
        if (!es)
            for (const std::string& name : extensions_) extensions += "#extension " + name + " : enable\n";
        std::string esPrologue = kEsPrologue;
        if (glslEs310_) esPrologue.replace(esPrologue.find("300 es"), 6, "310 es");
        const std::string prologue = (es ? esPrologue : "#version 330 core\n" + extensions) + defines;
        const std::string vertexName = vertexFile_.empty() ? "<vertex source>" : vertexFile_;
        const std::string fragmentName = fragmentFile_.empty() ? "<fragment source>" : fragmentFile_;
        const std::string vertexBody = vertexFile_.empty() ? vertexText_ : detail::shaderSource(vertexFile_);
        const std::string fragmentBody = fragmentFile_.empty() ? fragmentText_ : detail::shaderSource(fragmentFile_);
        const std::string vertexText =
            es ? assemble(prologue + "#define STAGE_VERTEX 1\n" + kEsVertexRename, kCommon, vertexBody, false) +
                     kEsVertexWrapper
               : assemble(prologue + "#define STAGE_VERTEX 1\n", kCommon, vertexBody, false);
        shaders.push_back(compile(GL_VERTEX_SHADER, vertexText, stage_, vertexName, kCommon, false));
        shaders.push_back(compile(GL_FRAGMENT_SHADER,
                                  assemble(prologue + "#define STAGE_FRAGMENT 1\n", kCommon, fragmentBody, false),
                                  stage_, fragmentName, kCommon, false));
        // ES has no glBindFragDataLocation: there the stage files' layout
        // qualifiers, which say the same, place the outputs.
        if (!es)
            for (std::size_t i = 0; i < outputs_.size(); ++i)
                glBindFragDataLocation(program.id(), GLuint(i), outputs_[i].c_str());
        linked = vertexName + " + " + fragmentName;
    }
    for (const auto& shader : shaders) glAttachShader(program.id(), shader.id());
    glLinkProgram(program.id());
    for (const auto& shader : shaders) glDetachShader(program.id(), shader.id());
    GLint ok = GL_FALSE;
    glGetProgramiv(program.id(), GL_LINK_STATUS, &ok);
    if (!ok) throw Error("stage " + stage_ + ": linking " + linked + " failed:\n" + infoLog(program.id(), true));
    checkGlError("stage " + stage_ + ": building the program");
    return Program(std::move(program), stage_);
}

}  // namespace glccl::gl

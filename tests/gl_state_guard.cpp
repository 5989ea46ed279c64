// Embedding: a host renderer's GL state survives a labeling. The test plays a
// hostile host: it sets an unusual value for every piece of state listed in
// glccl/labeler.hpp (plus a few the engine must not touch at all), labels
// under that state, and requires every value back as it was, no GL error, and
// labels equal to the CPU reference, so the passes also ran correctly under
// that state (the guard neutralised it rather than the state being ignored).
// Every backend that says it can run in the context labels under that state,
// so an engine that joins glccl is held to the same list without a new test.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gl.hpp"  // the engine's GL entry points, before any other GL header

#include "gl_error.hpp"
#include "glccl/compare.hpp"
#include "glccl/context.hpp"
#include "glccl/generate.hpp"
#include "glccl/labeler.hpp"
#include "glccl/reference.hpp"
#include "glccl/route.hpp"
#include "skip.hpp"

using namespace glccl;

namespace {

constexpr int kTextureUnits = 16;  // the units labeler.hpp promises to restore
constexpr int kClipDistances = 8;
constexpr int kDrawBuffers = 8;     // draw buffers, image units and indexed buffer
constexpr int kImageUnits = 8;      // bindings labeler.hpp promises to restore
constexpr int kBufferBindings = 8;

// Which state exists in a context, by its version.
struct Features {
    bool perDrawBufferBlend = false;  // OpenGL 4.0: glBlendEquationi, glBlendFunci
    bool compute = false;             // OpenGL 4.3: image units, storage buffers, indirect dispatch

    explicit Features(const ContextInfo& info)
        : perDrawBufferBlend(info.major >= 4),
          compute(info.major > 4 || (info.major == 4 && info.minor >= 3)) {}
};

// The host's blend state of each draw buffer: every buffer differs from every
// other and from what the passes set (GL_MAX / GL_FUNC_ADD with GL_ONE, GL_ONE),
// so restoring one buffer's values to another, or leaving the passes' values,
// shows. Buffer 0 holds the values set by the global calls.
struct DrawBufferState {
    bool blend;
    GLboolean colorMask[4];
    GLenum equationRgb, equationAlpha, srcRgb, dstRgb, srcAlpha, dstAlpha;
};
const DrawBufferState kDrawBufferStates[kDrawBuffers] = {
    {true, {1, 0, 1, 0}, GL_FUNC_REVERSE_SUBTRACT, GL_MAX, GL_SRC_ALPHA_SATURATE, GL_ONE_MINUS_CONSTANT_COLOR,
     GL_DST_COLOR, GL_CONSTANT_ALPHA},
    {true, {0, 1, 0, 1}, GL_MIN, GL_FUNC_ADD, GL_ZERO, GL_SRC_COLOR, GL_ONE, GL_DST_ALPHA},
    {false, {1, 1, 0, 0}, GL_FUNC_SUBTRACT, GL_MIN, GL_DST_ALPHA, GL_ONE_MINUS_SRC_COLOR, GL_CONSTANT_COLOR, GL_ZERO},
    {false, {0, 0, 1, 1}, GL_MAX, GL_FUNC_REVERSE_SUBTRACT, GL_ONE_MINUS_DST_COLOR, GL_ONE, GL_SRC_ALPHA,
     GL_ONE_MINUS_SRC_ALPHA},
    {true, {1, 0, 0, 0}, GL_FUNC_ADD, GL_FUNC_SUBTRACT, GL_CONSTANT_ALPHA, GL_DST_COLOR, GL_ONE_MINUS_DST_ALPHA,
     GL_SRC_COLOR},
    {true, {0, 1, 1, 1}, GL_MIN, GL_MAX, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE_MINUS_CONSTANT_ALPHA, GL_ONE},
    {false, {0, 0, 0, 0}, GL_MAX, GL_MIN, GL_ONE, GL_ONE_MINUS_CONSTANT_ALPHA, GL_ZERO, GL_ONE_MINUS_DST_COLOR},
    {true, {1, 1, 1, 0}, GL_FUNC_SUBTRACT, GL_FUNC_REVERSE_SUBTRACT, GL_SRC_COLOR, GL_CONSTANT_COLOR,
     GL_ONE_MINUS_CONSTANT_COLOR, GL_SRC_ALPHA},
};

// The host's pixel-store parameters: none the default, so a download or
// upload that relies on the defaults without setting them reads or writes the
// wrong bytes unless the guard neutralised them.
struct HostPixelStore {
    const char* name;
    GLenum parameter;
    GLint value;
};
const HostPixelStore kHostPixelStore[] = {
    {"GL_PACK_SWAP_BYTES", GL_PACK_SWAP_BYTES, GL_TRUE},     {"GL_PACK_LSB_FIRST", GL_PACK_LSB_FIRST, GL_TRUE},
    {"GL_PACK_ROW_LENGTH", GL_PACK_ROW_LENGTH, 7},           {"GL_PACK_IMAGE_HEIGHT", GL_PACK_IMAGE_HEIGHT, 5},
    {"GL_PACK_SKIP_ROWS", GL_PACK_SKIP_ROWS, 3},             {"GL_PACK_SKIP_PIXELS", GL_PACK_SKIP_PIXELS, 2},
    {"GL_PACK_SKIP_IMAGES", GL_PACK_SKIP_IMAGES, 1},         {"GL_PACK_ALIGNMENT", GL_PACK_ALIGNMENT, 2},
    {"GL_UNPACK_SWAP_BYTES", GL_UNPACK_SWAP_BYTES, GL_TRUE}, {"GL_UNPACK_LSB_FIRST", GL_UNPACK_LSB_FIRST, GL_TRUE},
    {"GL_UNPACK_ROW_LENGTH", GL_UNPACK_ROW_LENGTH, 9},       {"GL_UNPACK_IMAGE_HEIGHT", GL_UNPACK_IMAGE_HEIGHT, 6},
    {"GL_UNPACK_SKIP_ROWS", GL_UNPACK_SKIP_ROWS, 4},         {"GL_UNPACK_SKIP_PIXELS", GL_UNPACK_SKIP_PIXELS, 1},
    {"GL_UNPACK_SKIP_IMAGES", GL_UNPACK_SKIP_IMAGES, 2},     {"GL_UNPACK_ALIGNMENT", GL_UNPACK_ALIGNMENT, 8},
};

// Every queried value by a readable name, so a failure names the state.
using Snapshot = std::map<std::string, std::vector<double>>;

void addIntegers(Snapshot& s, const std::string& name, GLenum pname, int count = 1) {
    // Sentinel-filled: a driver that returns fewer values leaves the rest equal in both snapshots.
    std::vector<GLint> values(std::size_t(count), -12345);
    glGetIntegerv(pname, values.data());
    s[name].assign(values.begin(), values.end());
}

void addFloats(Snapshot& s, const std::string& name, GLenum pname, int count = 1) {
    std::vector<GLfloat> values(std::size_t(count), -12345.0f);
    glGetFloatv(pname, values.data());
    s[name].assign(values.begin(), values.end());
}

void addDoubles(Snapshot& s, const std::string& name, GLenum pname, int count = 1) {
    std::vector<GLdouble> values(std::size_t(count), -12345.0);
    glGetDoublev(pname, values.data());
    s[name] = values;
}

void addBooleans(Snapshot& s, const std::string& name, GLenum pname, int count = 1) {
    std::vector<GLboolean> values(std::size_t(count), GLboolean(7));
    glGetBooleanv(pname, values.data());
    s[name].assign(values.begin(), values.end());
}

// The indexed forms: one entry of an indexed state (draw buffer, image unit, binding point).
void addIndexedInteger(Snapshot& s, const std::string& name, GLenum pname, int index) {
    GLint64 value = -12345;
    glGetInteger64i_v(pname, GLuint(index), &value);
    s[name] = {double(value)};
}

void addIndexedBooleans(Snapshot& s, const std::string& name, GLenum pname, int index, int count) {
    std::vector<GLboolean> values(std::size_t(count), GLboolean(7));
    glGetBooleani_v(pname, GLuint(index), values.data());
    s[name].assign(values.begin(), values.end());
}

// "draw buffer 3 GL_BLEND_EQUATION_RGB", "image unit 2 GL_IMAGE_BINDING_NAME".
std::string indexed(const char* what, int index, const char* pname) {
    return std::string(what) + " " + std::to_string(index) + " " + pname;
}

struct NamedCapability {
    const char* name;
    GLenum capability;
};

const std::vector<NamedCapability>& capabilities() {
    static const std::vector<NamedCapability> list = {
        {"GL_SCISSOR_TEST", GL_SCISSOR_TEST},
        {"GL_BLEND", GL_BLEND},
        {"GL_DEPTH_TEST", GL_DEPTH_TEST},
        {"GL_STENCIL_TEST", GL_STENCIL_TEST},
        {"GL_CULL_FACE", GL_CULL_FACE},
        {"GL_PROGRAM_POINT_SIZE", GL_PROGRAM_POINT_SIZE},
        {"GL_RASTERIZER_DISCARD", GL_RASTERIZER_DISCARD},
        {"GL_COLOR_LOGIC_OP", GL_COLOR_LOGIC_OP},
        {"GL_FRAMEBUFFER_SRGB", GL_FRAMEBUFFER_SRGB},
        {"GL_MULTISAMPLE", GL_MULTISAMPLE},
        {"GL_SAMPLE_ALPHA_TO_COVERAGE", GL_SAMPLE_ALPHA_TO_COVERAGE},
        {"GL_SAMPLE_COVERAGE", GL_SAMPLE_COVERAGE},
        {"GL_POLYGON_OFFSET_FILL", GL_POLYGON_OFFSET_FILL},
        {"GL_DEPTH_CLAMP", GL_DEPTH_CLAMP},
        {"GL_PRIMITIVE_RESTART", GL_PRIMITIVE_RESTART},
        {"GL_DITHER", GL_DITHER},
    };
    return list;
}

// Reads every piece of state the test sets that the context has. Leaves the
// active texture unit as it found it.
Snapshot snapshot(const Features& features) {
    Snapshot s;
    for (const NamedCapability& c : capabilities()) s[std::string("enabled ") + c.name] = {double(glIsEnabled(c.capability))};
    for (int i = 0; i < kClipDistances; ++i)
        s["enabled GL_CLIP_DISTANCE" + std::to_string(i)] = {double(glIsEnabled(GLenum(GL_CLIP_DISTANCE0 + i)))};

    addIntegers(s, "GL_CURRENT_PROGRAM", GL_CURRENT_PROGRAM);
    addIntegers(s, "GL_VERTEX_ARRAY_BINDING", GL_VERTEX_ARRAY_BINDING);
    addIntegers(s, "GL_DRAW_FRAMEBUFFER_BINDING", GL_DRAW_FRAMEBUFFER_BINDING);
    addIntegers(s, "GL_READ_FRAMEBUFFER_BINDING", GL_READ_FRAMEBUFFER_BINDING);
    addIntegers(s, "GL_RENDERBUFFER_BINDING", GL_RENDERBUFFER_BINDING);
    addIntegers(s, "GL_VIEWPORT", GL_VIEWPORT, 4);
    addIntegers(s, "GL_SCISSOR_BOX", GL_SCISSOR_BOX, 4);

    addIntegers(s, "GL_BLEND_EQUATION_RGB", GL_BLEND_EQUATION_RGB);
    addIntegers(s, "GL_BLEND_EQUATION_ALPHA", GL_BLEND_EQUATION_ALPHA);
    addIntegers(s, "GL_BLEND_SRC_RGB", GL_BLEND_SRC_RGB);
    addIntegers(s, "GL_BLEND_DST_RGB", GL_BLEND_DST_RGB);
    addIntegers(s, "GL_BLEND_SRC_ALPHA", GL_BLEND_SRC_ALPHA);
    addIntegers(s, "GL_BLEND_DST_ALPHA", GL_BLEND_DST_ALPHA);
    addFloats(s, "GL_BLEND_COLOR", GL_BLEND_COLOR, 4);

    addIntegers(s, "GL_DEPTH_FUNC", GL_DEPTH_FUNC);
    addBooleans(s, "GL_DEPTH_WRITEMASK", GL_DEPTH_WRITEMASK);
    addDoubles(s, "GL_DEPTH_RANGE", GL_DEPTH_RANGE, 2);
    addDoubles(s, "GL_DEPTH_CLEAR_VALUE", GL_DEPTH_CLEAR_VALUE);

    addIntegers(s, "GL_STENCIL_FUNC", GL_STENCIL_FUNC);
    addIntegers(s, "GL_STENCIL_REF", GL_STENCIL_REF);
    addIntegers(s, "GL_STENCIL_VALUE_MASK", GL_STENCIL_VALUE_MASK);
    addIntegers(s, "GL_STENCIL_FAIL", GL_STENCIL_FAIL);
    addIntegers(s, "GL_STENCIL_PASS_DEPTH_FAIL", GL_STENCIL_PASS_DEPTH_FAIL);
    addIntegers(s, "GL_STENCIL_PASS_DEPTH_PASS", GL_STENCIL_PASS_DEPTH_PASS);
    addIntegers(s, "GL_STENCIL_WRITEMASK", GL_STENCIL_WRITEMASK);
    addIntegers(s, "GL_STENCIL_BACK_FUNC", GL_STENCIL_BACK_FUNC);
    addIntegers(s, "GL_STENCIL_BACK_REF", GL_STENCIL_BACK_REF);
    addIntegers(s, "GL_STENCIL_BACK_VALUE_MASK", GL_STENCIL_BACK_VALUE_MASK);
    addIntegers(s, "GL_STENCIL_BACK_FAIL", GL_STENCIL_BACK_FAIL);
    addIntegers(s, "GL_STENCIL_BACK_PASS_DEPTH_FAIL", GL_STENCIL_BACK_PASS_DEPTH_FAIL);
    addIntegers(s, "GL_STENCIL_BACK_PASS_DEPTH_PASS", GL_STENCIL_BACK_PASS_DEPTH_PASS);
    addIntegers(s, "GL_STENCIL_BACK_WRITEMASK", GL_STENCIL_BACK_WRITEMASK);
    addIntegers(s, "GL_STENCIL_CLEAR_VALUE", GL_STENCIL_CLEAR_VALUE);

    addBooleans(s, "GL_COLOR_WRITEMASK", GL_COLOR_WRITEMASK, 4);
    addFloats(s, "GL_COLOR_CLEAR_VALUE", GL_COLOR_CLEAR_VALUE, 4);

    addIntegers(s, "GL_ACTIVE_TEXTURE", GL_ACTIVE_TEXTURE);
    GLint active = 0;
    glGetIntegerv(GL_ACTIVE_TEXTURE, &active);
    for (int unit = 0; unit < kTextureUnits; ++unit) {
        glActiveTexture(GLenum(GL_TEXTURE0 + unit));
        addIntegers(s, "unit " + std::to_string(unit) + " GL_TEXTURE_BINDING_2D", GL_TEXTURE_BINDING_2D);
        addIntegers(s, "unit " + std::to_string(unit) + " GL_TEXTURE_BINDING_3D", GL_TEXTURE_BINDING_3D);
        addIntegers(s, "unit " + std::to_string(unit) + " GL_TEXTURE_BINDING_2D_ARRAY", GL_TEXTURE_BINDING_2D_ARRAY);
        addIntegers(s, "unit " + std::to_string(unit) + " GL_SAMPLER_BINDING", GL_SAMPLER_BINDING);
    }
    glActiveTexture(GLenum(active));

    addFloats(s, "GL_POINT_SIZE", GL_POINT_SIZE);
    addIntegers(s, "GL_POLYGON_MODE", GL_POLYGON_MODE, 2);
    for (const HostPixelStore& p : kHostPixelStore) addIntegers(s, p.name, p.parameter);
    addIntegers(s, "GL_PIXEL_PACK_BUFFER_BINDING", GL_PIXEL_PACK_BUFFER_BINDING);
    addIntegers(s, "GL_PIXEL_UNPACK_BUFFER_BINDING", GL_PIXEL_UNPACK_BUFFER_BINDING);

    for (int i = 0; i < kDrawBuffers; ++i) {
        s[indexed("draw buffer", i, "enabled GL_BLEND")] = {double(glIsEnabledi(GL_BLEND, GLuint(i)))};
        addIndexedBooleans(s, indexed("draw buffer", i, "GL_COLOR_WRITEMASK"), GL_COLOR_WRITEMASK, i, 4);
        if (!features.perDrawBufferBlend) continue;
        addIndexedInteger(s, indexed("draw buffer", i, "GL_BLEND_EQUATION_RGB"), GL_BLEND_EQUATION_RGB, i);
        addIndexedInteger(s, indexed("draw buffer", i, "GL_BLEND_EQUATION_ALPHA"), GL_BLEND_EQUATION_ALPHA, i);
        addIndexedInteger(s, indexed("draw buffer", i, "GL_BLEND_SRC_RGB"), GL_BLEND_SRC_RGB, i);
        addIndexedInteger(s, indexed("draw buffer", i, "GL_BLEND_DST_RGB"), GL_BLEND_DST_RGB, i);
        addIndexedInteger(s, indexed("draw buffer", i, "GL_BLEND_SRC_ALPHA"), GL_BLEND_SRC_ALPHA, i);
        addIndexedInteger(s, indexed("draw buffer", i, "GL_BLEND_DST_ALPHA"), GL_BLEND_DST_ALPHA, i);
    }

    addIntegers(s, "GL_UNIFORM_BUFFER_BINDING", GL_UNIFORM_BUFFER_BINDING);
    for (int i = 0; i < kBufferBindings; ++i) {
        addIndexedInteger(s, indexed("uniform buffer", i, "GL_UNIFORM_BUFFER_BINDING"), GL_UNIFORM_BUFFER_BINDING, i);
        addIndexedInteger(s, indexed("uniform buffer", i, "GL_UNIFORM_BUFFER_START"), GL_UNIFORM_BUFFER_START, i);
        addIndexedInteger(s, indexed("uniform buffer", i, "GL_UNIFORM_BUFFER_SIZE"), GL_UNIFORM_BUFFER_SIZE, i);
    }
    if (features.compute) {
        for (int i = 0; i < kImageUnits; ++i) {
            for (const auto& [name, pname] : {std::pair{"GL_IMAGE_BINDING_NAME", GL_IMAGE_BINDING_NAME},
                                              std::pair{"GL_IMAGE_BINDING_LEVEL", GL_IMAGE_BINDING_LEVEL},
                                              std::pair{"GL_IMAGE_BINDING_LAYERED", GL_IMAGE_BINDING_LAYERED},
                                              std::pair{"GL_IMAGE_BINDING_LAYER", GL_IMAGE_BINDING_LAYER},
                                              std::pair{"GL_IMAGE_BINDING_ACCESS", GL_IMAGE_BINDING_ACCESS},
                                              std::pair{"GL_IMAGE_BINDING_FORMAT", GL_IMAGE_BINDING_FORMAT}})
                addIndexedInteger(s, indexed("image unit", i, name), GLenum(pname), i);
        }
        addIntegers(s, "GL_SHADER_STORAGE_BUFFER_BINDING", GL_SHADER_STORAGE_BUFFER_BINDING);
        for (int i = 0; i < kBufferBindings; ++i) {
            addIndexedInteger(s, indexed("storage buffer", i, "GL_SHADER_STORAGE_BUFFER_BINDING"),
                              GL_SHADER_STORAGE_BUFFER_BINDING, i);
            addIndexedInteger(s, indexed("storage buffer", i, "GL_SHADER_STORAGE_BUFFER_START"),
                              GL_SHADER_STORAGE_BUFFER_START, i);
            addIndexedInteger(s, indexed("storage buffer", i, "GL_SHADER_STORAGE_BUFFER_SIZE"),
                              GL_SHADER_STORAGE_BUFFER_SIZE, i);
        }
        addIntegers(s, "GL_DISPATCH_INDIRECT_BUFFER_BINDING", GL_DISPATCH_INDIRECT_BUFFER_BINDING);
    }

    // Not in the documented list because the engine never changes them; a
    // change here would be an undocumented side effect.
    addIntegers(s, "GL_ARRAY_BUFFER_BINDING", GL_ARRAY_BUFFER_BINDING);
    addIntegers(s, "GL_CULL_FACE_MODE", GL_CULL_FACE_MODE);
    addIntegers(s, "GL_FRONT_FACE", GL_FRONT_FACE);
    addIntegers(s, "GL_LOGIC_OP_MODE", GL_LOGIC_OP_MODE);
    addIntegers(s, "GL_PRIMITIVE_RESTART_INDEX", GL_PRIMITIVE_RESTART_INDEX);
    addFloats(s, "GL_POLYGON_OFFSET_FACTOR", GL_POLYGON_OFFSET_FACTOR);
    addFloats(s, "GL_POLYGON_OFFSET_UNITS", GL_POLYGON_OFFSET_UNITS);
    addFloats(s, "GL_SAMPLE_COVERAGE_VALUE", GL_SAMPLE_COVERAGE_VALUE);
    addBooleans(s, "GL_SAMPLE_COVERAGE_INVERT", GL_SAMPLE_COVERAGE_INVERT);
    return s;
}

std::string describeNames(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
    return out.empty() ? "none" : out;
}

std::string describe(const std::vector<double>& values) {
    std::ostringstream out;
    for (std::size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
    return out.str();
}

// Every entry of `actual` equals `expected`, reported per state name.
void requireSameState(const Snapshot& expected, const Snapshot& actual, const std::string& when) {
    REQUIRE(expected.size() == actual.size());
    std::string differences;
    for (const auto& [name, values] : expected) {
        const auto found = actual.find(name);
        if (found == actual.end()) differences += "\n  " + name + ": missing";
        else if (found->second != values)
            differences += "\n  " + name + ": was " + describe(values) + ", now " + describe(found->second);
    }
    INFO("state changed " << when << ":" << differences);
    CHECK(differences.empty());
}

void requireNoGlError(const std::string& when) {
    const GLenum error = glGetError();
    INFO("glGetError() " << when << ": " << glccl::glErrorName(error));
    REQUIRE(error == GL_NO_ERROR);
}

GLuint compileShader(GLenum type, const char* source) {
    const GLuint shader = glCreateShader(type);
    glShaderSource(shader, 1, &source, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    REQUIRE(ok == GL_TRUE);
    return shader;
}

// The objects of a pretend host renderer, deleted when the test case ends.
struct HostObjects {
    GLuint program = 0, vertexArray = 0, arrayBuffer = 0, packBuffer = 0, unpackBuffer = 0;
    GLuint drawFramebuffer = 0, readFramebuffer = 0, renderbuffer = 0, sampler = 0;
    GLuint attachments[2] = {};
    GLuint unitTextures[kTextureUnits] = {};
    GLuint unitVolumes[kTextureUnits] = {}, unitArrays[kTextureUnits] = {};  // GL_TEXTURE_3D, GL_TEXTURE_2D_ARRAY
    GLuint input = 0;
    // Two buffers for the indexed bindings and a third for the generic one.
    GLuint uniformBuffers[3] = {}, storageBuffers[3] = {}, dispatchBuffer = 0;
    GLuint imageTextures[2] = {};  // GL_R32UI 2-D, GL_RGBA8 2-D array: see kImageUnitStates

    HostObjects() = default;
    HostObjects(const HostObjects&) = delete;
    HostObjects& operator=(const HostObjects&) = delete;
    ~HostObjects() {
        glDeleteProgram(program);
        glDeleteVertexArrays(1, &vertexArray);
        glDeleteBuffers(1, &arrayBuffer);
        glDeleteBuffers(1, &packBuffer);
        glDeleteBuffers(1, &unpackBuffer);
        glDeleteFramebuffers(1, &drawFramebuffer);
        glDeleteFramebuffers(1, &readFramebuffer);
        glDeleteRenderbuffers(1, &renderbuffer);
        glDeleteSamplers(1, &sampler);
        glDeleteTextures(2, attachments);
        glDeleteTextures(kTextureUnits, unitTextures);
        glDeleteTextures(kTextureUnits, unitVolumes);
        glDeleteTextures(kTextureUnits, unitArrays);
        glDeleteTextures(1, &input);
        glDeleteBuffers(3, uniformBuffers);
        glDeleteBuffers(3, storageBuffers);
        glDeleteBuffers(1, &dispatchBuffer);
        glDeleteTextures(2, imageTextures);
    }
};

// The host's image units: both textures, every access, levels, layers and formats.
struct ImageUnitState {
    int texture;  // index into HostObjects::imageTextures
    GLint level;
    GLboolean layered;
    GLint layer;
    GLenum access, format;
};
const ImageUnitState kImageUnitStates[kImageUnits] = {
    {0, 0, GL_FALSE, 0, GL_READ_WRITE, GL_R32UI}, {1, 1, GL_TRUE, 0, GL_READ_ONLY, GL_RGBA8},
    {0, 1, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32F},  {1, 0, GL_FALSE, 2, GL_READ_WRITE, GL_R32UI},
    {0, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA8UI}, {1, 1, GL_FALSE, 1, GL_WRITE_ONLY, GL_RGBA8},
    {1, 0, GL_TRUE, 0, GL_READ_ONLY, GL_RG16F},   {0, 1, GL_FALSE, 0, GL_READ_WRITE, GL_R32I},
};

// The host's indexed buffer bindings (uniform and storage alike), in units of
// the target's offset alignment: whole buffers, ranges, and one left unbound.
struct BufferBindingState {
    int buffer;   // index into the host's buffers; -1: unbound
    int offset;   // times the offset alignment; with size 0: glBindBufferBase
    int size;     // bytes
};
const BufferBindingState kBufferBindingStates[kBufferBindings] = {
    {0, 0, 0}, {1, 1, 32}, {0, 2, 48}, {1, 0, 0}, {0, 5, 16}, {-1, 0, 0}, {1, 0, 0}, {0, 7, 128},
};
constexpr GLsizeiptr kHostBufferBytes = 16384;

// Binds the buffers of `kBufferBindingStates` to `target`'s indexed binding
// points, then buffers[2] to its generic binding.
void bindHostBuffers(GLenum target, GLenum alignmentName, GLuint (&buffers)[3]) {
    GLint alignment = 1;
    glGetIntegerv(alignmentName, &alignment);
    REQUIRE(8 * GLsizeiptr(alignment) + 128 <= kHostBufferBytes);
    for (GLuint& buffer : buffers) {
        glGenBuffers(1, &buffer);
        glBindBuffer(target, buffer);
        glBufferData(target, kHostBufferBytes, nullptr, GL_STATIC_DRAW);
    }
    for (int i = 0; i < kBufferBindings; ++i) {
        const BufferBindingState& b = kBufferBindingStates[i];
        if (b.buffer < 0) glBindBufferBase(target, GLuint(i), 0);
        else if (b.size == 0) glBindBufferBase(target, GLuint(i), buffers[b.buffer]);
        else glBindBufferRange(target, GLuint(i), buffers[b.buffer], GLintptr(b.offset) * alignment, b.size);
    }
    glBindBuffer(target, buffers[2]);
}

// The snapshot holds kBufferBindingStates for `target`.
void requireHostBuffers(const Snapshot& s, const char* what, const std::string& pname, GLenum alignmentName,
                        const GLuint (&buffers)[3]) {
    GLint alignment = 1;
    glGetIntegerv(alignmentName, &alignment);
    CHECK(s.at(pname + "_BINDING") == std::vector<double>{double(buffers[2])});
    for (int i = 0; i < kBufferBindings; ++i) {
        const BufferBindingState& b = kBufferBindingStates[i];
        INFO(what << " binding " << i);
        CHECK(s.at(indexed(what, i, (pname + "_BINDING").c_str())) ==
              std::vector<double>{b.buffer < 0 ? 0.0 : double(buffers[b.buffer])});
        CHECK(s.at(indexed(what, i, (pname + "_START").c_str())) ==
              std::vector<double>{b.size == 0 ? 0.0 : double(b.offset) * alignment});
        CHECK(s.at(indexed(what, i, (pname + "_SIZE").c_str())) == std::vector<double>{double(b.size)});
    }
}

GLuint makeProgram() {
    const GLuint vertex = compileShader(GL_VERTEX_SHADER,
                                        "#version 330 core\n"
                                        "in vec2 position;\n"
                                        "void main() { gl_Position = vec4(position, 0.0, 1.0); gl_PointSize = 9.0; }\n");
    const GLuint fragment = compileShader(GL_FRAGMENT_SHADER,
                                          "#version 330 core\n"
                                          "out vec4 color;\n"
                                          "void main() { color = vec4(1.0, 0.0, 1.0, 1.0); }\n");
    const GLuint program = glCreateProgram();
    glAttachShader(program, vertex);
    glAttachShader(program, fragment);
    glLinkProgram(program);
    glDeleteShader(vertex);
    glDeleteShader(fragment);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    REQUIRE(ok == GL_TRUE);
    return program;
}

GLuint makeTexture(GLenum internalFormat, GLenum format, int width, int height, const void* pixels) {
    GLuint texture = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GLint(internalFormat), width, height, 0, format, GL_UNSIGNED_BYTE, pixels);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    return texture;
}

// Creates the host's objects and leaves the context in the hostile state.
// The input texture is uploaded first, while the pixel-store state is still sane.
void setHostileState(HostObjects& host, const Image& image, const Features& features) {
    host.input = makeTexture(GL_R8, GL_RED, image.width, image.height, image.pixels.data());
    // Smoothing filters on the input would break texel-exact reads if the guard left them active.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);

    host.program = makeProgram();
    glUseProgram(host.program);
    glGenVertexArrays(1, &host.vertexArray);
    glBindVertexArray(host.vertexArray);
    glGenBuffers(1, &host.arrayBuffer);
    glBindBuffer(GL_ARRAY_BUFFER, host.arrayBuffer);
    const float triangle[] = {-1.0f, -1.0f, 1.0f, -1.0f, 0.0f, 1.0f};
    glBufferData(GL_ARRAY_BUFFER, sizeof triangle, triangle, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);

    const std::uint8_t texel[4] = {10, 20, 30, 40};
    for (int i = 0; i < 2; ++i) host.attachments[i] = makeTexture(GL_RGBA8, GL_RGBA, 1, 1, texel);
    glGenFramebuffers(1, &host.drawFramebuffer);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, host.drawFramebuffer);
    glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, host.attachments[0], 0);
    glGenFramebuffers(1, &host.readFramebuffer);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, host.readFramebuffer);
    glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, host.attachments[1], 0);
    glGenRenderbuffers(1, &host.renderbuffer);
    glBindRenderbuffer(GL_RENDERBUFFER, host.renderbuffer);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, 4, 4);

    // A texture on every unit and a linear, repeating sampler on some: a
    // sampler overrides the texture's own parameters unless the guard unbinds it.
    // Each unit also holds a 3-D texture and a 2-D array texture of its own.
    glGenTextures(kTextureUnits, host.unitVolumes);
    glGenTextures(kTextureUnits, host.unitArrays);
    for (int unit = 0; unit < kTextureUnits; ++unit) {
        glActiveTexture(GLenum(GL_TEXTURE0 + unit));
        host.unitTextures[unit] = makeTexture(GL_RGBA8, GL_RGBA, 1, 1, texel);
        glBindTexture(GL_TEXTURE_3D, host.unitVolumes[unit]);
        glTexImage3D(GL_TEXTURE_3D, 0, GL_RGBA8, 1, 1, 2, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
        glBindTexture(GL_TEXTURE_2D_ARRAY, host.unitArrays[unit]);
        glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_RGBA8, 1, 1, 3, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    }
    glGenSamplers(1, &host.sampler);
    glSamplerParameteri(host.sampler, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glSamplerParameteri(host.sampler, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glSamplerParameteri(host.sampler, GL_TEXTURE_WRAP_S, GL_REPEAT);
    for (GLuint unit : {0u, 1u, 3u, 15u}) glBindSampler(unit, host.sampler);
    glActiveTexture(GL_TEXTURE5);

    // Bound only now: with an unpack buffer bound, the uploads above would read from it.
    glGenBuffers(1, &host.packBuffer);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, host.packBuffer);
    glBufferData(GL_PIXEL_PACK_BUFFER, 64, nullptr, GL_STREAM_READ);
    glGenBuffers(1, &host.unpackBuffer);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, host.unpackBuffer);
    glBufferData(GL_PIXEL_UNPACK_BUFFER, 64, nullptr, GL_STREAM_DRAW);

    for (const NamedCapability& c : capabilities()) glEnable(c.capability);
    glDisable(GL_DITHER);       // on by default
    glDisable(GL_MULTISAMPLE);  // on by default
    for (int i : {0, 2, 5, 7}) glEnable(GLenum(GL_CLIP_DISTANCE0 + i));

    glBlendEquationSeparate(GL_FUNC_REVERSE_SUBTRACT, GL_MAX);
    glBlendFuncSeparate(GL_SRC_ALPHA_SATURATE, GL_ONE_MINUS_CONSTANT_COLOR, GL_DST_COLOR, GL_CONSTANT_ALPHA);
    glBlendColor(0.125f, 0.25f, 0.375f, 0.5f);

    glDepthFunc(GL_GEQUAL);
    glDepthMask(GL_FALSE);
    glDepthRange(0.2, 0.7);
    glClearDepth(0.3);

    glStencilFuncSeparate(GL_FRONT, GL_LEQUAL, 3, 0x5A);
    glStencilOpSeparate(GL_FRONT, GL_INVERT, GL_INCR_WRAP, GL_DECR);
    glStencilMaskSeparate(GL_FRONT, 0x3C);
    glStencilFuncSeparate(GL_BACK, GL_NOTEQUAL, 7, 0xA5);
    glStencilOpSeparate(GL_BACK, GL_DECR_WRAP, GL_REPLACE, GL_ZERO);
    glStencilMaskSeparate(GL_BACK, 0xC3);
    glClearStencil(5);

    glScissor(3, 4, 50, 60);
    glViewport(5, 6, 70, 80);
    glColorMask(GL_TRUE, GL_FALSE, GL_TRUE, GL_FALSE);
    // Draw buffers 1..7 each their own (buffer 0 keeps the values of the global
    // calls above). Enable and mask are per buffer since 3.0.
    for (int i = 1; i < kDrawBuffers; ++i) {
        const DrawBufferState& d = kDrawBufferStates[i];
        const auto index = GLuint(i);
        if (d.blend) glEnablei(GL_BLEND, index);
        else glDisablei(GL_BLEND, index);
        glColorMaski(index, d.colorMask[0], d.colorMask[1], d.colorMask[2], d.colorMask[3]);
        if (!features.perDrawBufferBlend) continue;
        glBlendEquationSeparatei(index, d.equationRgb, d.equationAlpha);
        glBlendFuncSeparatei(index, d.srcRgb, d.dstRgb, d.srcAlpha, d.dstAlpha);
    }
    glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
    glPointSize(3.0f);
    glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);

    for (const HostPixelStore& p : kHostPixelStore) glPixelStorei(p.parameter, p.value);

    glCullFace(GL_FRONT_AND_BACK);
    glFrontFace(GL_CW);
    glLogicOp(GL_XOR);
    glPrimitiveRestartIndex(77);
    glPolygonOffset(1.5f, 2.5f);
    glSampleCoverage(0.5f, GL_TRUE);

    bindHostBuffers(GL_UNIFORM_BUFFER, GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT, host.uniformBuffers);
    if (!features.compute) return;
    bindHostBuffers(GL_SHADER_STORAGE_BUFFER, GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, host.storageBuffers);
    glGenBuffers(1, &host.dispatchBuffer);
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, host.dispatchBuffer);
    const GLuint groups[3] = {1, 1, 1};
    glBufferData(GL_DISPATCH_INDIRECT_BUFFER, sizeof groups, groups, GL_STATIC_DRAW);

    // Created on the active unit (5), whose 2-D and array bindings go back
    // to what they were.
    glGenTextures(2, host.imageTextures);
    GLint previous2d = 0, previousArray = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous2d);
    glGetIntegerv(GL_TEXTURE_BINDING_2D_ARRAY, &previousArray);
    glBindTexture(GL_TEXTURE_2D, host.imageTextures[0]);
    glTexStorage2D(GL_TEXTURE_2D, 2, GL_R32UI, 4, 4);
    glBindTexture(GL_TEXTURE_2D, GLuint(previous2d));
    glBindTexture(GL_TEXTURE_2D_ARRAY, host.imageTextures[1]);
    glTexStorage3D(GL_TEXTURE_2D_ARRAY, 2, GL_RGBA8, 4, 4, 3);
    glBindTexture(GL_TEXTURE_2D_ARRAY, GLuint(previousArray));
    for (int i = 0; i < kImageUnits; ++i) {
        const ImageUnitState& u = kImageUnitStates[i];
        glBindImageTexture(GLuint(i), host.imageTextures[u.texture], u.level, u.layered, u.layer, u.access, u.format);
    }
}

// The snapshot really holds the hostile values (so comparing snapshots is not vacuous).
void requireHostileValues(const Snapshot& s, const HostObjects& host, const Features& features) {
    CHECK(s.at("enabled GL_RASTERIZER_DISCARD") == std::vector<double>{1});
    CHECK(s.at("enabled GL_DITHER") == std::vector<double>{0});
    CHECK(s.at("enabled GL_CLIP_DISTANCE7") == std::vector<double>{1});
    CHECK(s.at("GL_CURRENT_PROGRAM") == std::vector<double>{double(host.program)});
    CHECK(s.at("GL_DRAW_FRAMEBUFFER_BINDING") == std::vector<double>{double(host.drawFramebuffer)});
    CHECK(s.at("GL_READ_FRAMEBUFFER_BINDING") == std::vector<double>{double(host.readFramebuffer)});
    CHECK(s.at("GL_BLEND_EQUATION_RGB") == std::vector<double>{GL_FUNC_REVERSE_SUBTRACT});
    CHECK(s.at("GL_DEPTH_FUNC") == std::vector<double>{GL_GEQUAL});
    CHECK(s.at("GL_DEPTH_WRITEMASK") == std::vector<double>{0});
    CHECK(s.at("GL_DEPTH_RANGE")[0] == Approx(0.2));
    CHECK(s.at("GL_DEPTH_RANGE")[1] == Approx(0.7));
    CHECK(s.at("GL_DEPTH_CLEAR_VALUE")[0] == Approx(0.3));
    CHECK(s.at("GL_STENCIL_BACK_WRITEMASK") == std::vector<double>{0xC3});
    CHECK(s.at("GL_SCISSOR_BOX") == std::vector<double>{3, 4, 50, 60});
    CHECK(s.at("GL_VIEWPORT") == std::vector<double>{5, 6, 70, 80});
    CHECK(s.at("GL_COLOR_WRITEMASK") == std::vector<double>{1, 0, 1, 0});
    CHECK(s.at("GL_ACTIVE_TEXTURE") == std::vector<double>{GL_TEXTURE5});
    CHECK(s.at("unit 15 GL_TEXTURE_BINDING_2D") == std::vector<double>{double(host.unitTextures[15])});
    CHECK(s.at("unit 15 GL_TEXTURE_BINDING_3D") == std::vector<double>{double(host.unitVolumes[15])});
    CHECK(s.at("unit 0 GL_TEXTURE_BINDING_2D_ARRAY") == std::vector<double>{double(host.unitArrays[0])});
    CHECK(s.at("unit 5 GL_TEXTURE_BINDING_2D_ARRAY") == std::vector<double>{double(host.unitArrays[5])});
    CHECK(s.at("unit 3 GL_SAMPLER_BINDING") == std::vector<double>{double(host.sampler)});
    CHECK(s.at("GL_POINT_SIZE") == std::vector<double>{3});
    CHECK(s.at("GL_POLYGON_MODE")[0] == GL_LINE);
    for (const HostPixelStore& p : kHostPixelStore) CHECK(s.at(p.name) == std::vector<double>{double(p.value)});
    CHECK(s.at("GL_PIXEL_UNPACK_BUFFER_BINDING") == std::vector<double>{double(host.unpackBuffer)});

    for (int i = 0; i < kDrawBuffers; ++i) {
        const DrawBufferState& d = kDrawBufferStates[i];
        INFO("draw buffer " << i);
        CHECK(s.at(indexed("draw buffer", i, "enabled GL_BLEND")) == std::vector<double>{double(d.blend)});
        CHECK(s.at(indexed("draw buffer", i, "GL_COLOR_WRITEMASK")) ==
              std::vector<double>(std::begin(d.colorMask), std::end(d.colorMask)));
        if (!features.perDrawBufferBlend) continue;
        CHECK(s.at(indexed("draw buffer", i, "GL_BLEND_EQUATION_RGB")) == std::vector<double>{double(d.equationRgb)});
        CHECK(s.at(indexed("draw buffer", i, "GL_BLEND_EQUATION_ALPHA")) ==
              std::vector<double>{double(d.equationAlpha)});
        CHECK(s.at(indexed("draw buffer", i, "GL_BLEND_SRC_RGB")) == std::vector<double>{double(d.srcRgb)});
        CHECK(s.at(indexed("draw buffer", i, "GL_BLEND_DST_RGB")) == std::vector<double>{double(d.dstRgb)});
        CHECK(s.at(indexed("draw buffer", i, "GL_BLEND_SRC_ALPHA")) == std::vector<double>{double(d.srcAlpha)});
        CHECK(s.at(indexed("draw buffer", i, "GL_BLEND_DST_ALPHA")) == std::vector<double>{double(d.dstAlpha)});
    }
    requireHostBuffers(s, "uniform buffer", "GL_UNIFORM_BUFFER", GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT,
                       host.uniformBuffers);
    if (!features.compute) return;
    requireHostBuffers(s, "storage buffer", "GL_SHADER_STORAGE_BUFFER", GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT,
                       host.storageBuffers);
    CHECK(s.at("GL_DISPATCH_INDIRECT_BUFFER_BINDING") == std::vector<double>{double(host.dispatchBuffer)});
    for (int i = 0; i < kImageUnits; ++i) {
        const ImageUnitState& u = kImageUnitStates[i];
        INFO("image unit " << i);
        CHECK(s.at(indexed("image unit", i, "GL_IMAGE_BINDING_NAME")) ==
              std::vector<double>{double(host.imageTextures[u.texture])});
        CHECK(s.at(indexed("image unit", i, "GL_IMAGE_BINDING_LEVEL")) == std::vector<double>{double(u.level)});
        CHECK(s.at(indexed("image unit", i, "GL_IMAGE_BINDING_LAYERED")) == std::vector<double>{double(u.layered)});
        CHECK(s.at(indexed("image unit", i, "GL_IMAGE_BINDING_LAYER")) == std::vector<double>{double(u.layer)});
        CHECK(s.at(indexed("image unit", i, "GL_IMAGE_BINDING_ACCESS")) == std::vector<double>{double(u.access)});
        CHECK(s.at(indexed("image unit", i, "GL_IMAGE_BINDING_FORMAT")) == std::vector<double>{double(u.format)});
    }
}

void requireMatchesReference(const Image& image, Connectivity connectivity, std::uint32_t count,
                             std::vector<Component> components, std::vector<std::uint32_t> labels) {
    const Labeling expected = labelReference(image, connectivity, Criterion::binary());
    Labeling actual;
    actual.width = image.width;
    actual.height = image.height;
    actual.components = std::move(components);
    actual.labels = std::move(labels);
    CHECK(count == expected.count());
    const Comparison comparison = compareLabelings(expected, actual);
    INFO("connectivity " << int(connectivity) << ": " << comparison.describe());
    REQUIRE(comparison.identical());
}

// Labels under the hostile state with every backend that can run in a
// `major`.`minor` core context and requires the state back after each call.
// With `exactly`, the context must be that version and no newer (the Mesa
// version override pins it); a driver that ignores the override skips.
void labelUnderHostileState(int major, int minor, bool exactly) {
    HeadlessContext::Options options;
    options.major = major;
    options.minor = minor;
    HeadlessContext context(options);
    loadGlFunctions();
    const ContextInfo& info = context.info();
    INFO("context " << info.version << " (" << info.renderer << ")");
    if (exactly && (info.major != major || info.minor != minor)) {
        // Only Mesa reads MESA_GL_VERSION_OVERRIDE; elsewhere this run cannot check what it is named for.
        if (info.version.find("Mesa") == std::string::npos)
            test::skipTest("asked for exactly OpenGL " + std::to_string(major) + "." + std::to_string(minor) +
                           " core, the driver gave " + info.version + " (it ignores MESA_GL_VERSION_OVERRIDE)");
        FAIL("Mesa gave OpenGL " << info.major << "." << info.minor << ", not the pinned " << major << "." << minor);
    }
    REQUIRE((info.major > major || (info.major == major && info.minor >= minor)));
    const Features features(info);

    // Odd sizes, many components of every shape, and corner contacts that
    // 4- and 8-connectivity treat differently.
    const Image image = randomImage(83, 47, 0.45, 2, 1, 2024);
    HostObjects host;
    setHostileState(host, image, features);
    requireNoGlError("after setting the host state");
    const Snapshot before = snapshot(features);
    requireHostileValues(before, host, features);

    std::vector<std::string> ran;
    {
        Labeler labeler;
        requireSameState(before, snapshot(features), "by the Labeler constructor");
        for (Backend backend : concreteBackends()) {
            const std::string name = backendName(backend);
            const std::string why = whyUnavailable(backend, labeler.contextInfo());
            if (!why.empty()) {
                UNSCOPED_INFO("the " << name << " backend cannot run here: " << why);
                continue;
            }
            ran.push_back(name);
            for (Connectivity connectivity : {Connectivity::Eight, Connectivity::Four}) {
                const std::string when = "by the " + name + " backend's ";
                LabelOptions labelOptions;
                labelOptions.backend = backend;
                labelOptions.connectivity = connectivity;
                const std::uint32_t count = labeler.label(host.input, labelOptions);
                CHECK(labeler.backend() == backend);
                requireSameState(before, snapshot(features), when + "label()");
                std::vector<Component> components = labeler.components();
                requireSameState(before, snapshot(features), when + "components()");
                std::vector<std::uint32_t> labels = labeler.downloadLabels();
                requireSameState(before, snapshot(features), when + "downloadLabels()");
                requireNoGlError("after labeling with the " + name + " backend");
                INFO("the " << name << " backend");
                requireMatchesReference(image, connectivity, count, std::move(components), std::move(labels));
            }
        }
    }
    requireSameState(before, snapshot(features), "by the Labeler destructor");
    requireNoGlError("after the Labeler was destroyed");
    // The CPU backend renders nothing: at least one engine that draws or
    // dispatches must have met the hostile state, or the test proved little.
    INFO("backends that ran: " << describeNames(ran));
    CHECK(std::any_of(ran.begin(), ran.end(), [](const std::string& name) { return name != backendName(Backend::Cpu); }));
}

}  // namespace

TEST_CASE("gl state: a labeling in a 4.5 core context restores every documented piece of host state", "[gl][state]") {
    labelUnderHostileState(4, 5, false);
}

// Hidden from discovery: tests/CMakeLists.txt runs it once per pinned version
// (MESA_GL_VERSION_OVERRIDE=3.3, 4.2), where it asserts it got exactly that.
TEST_CASE("gl state: a labeling in the core context MESA_GL_VERSION_OVERRIDE pins restores every documented piece "
          "of host state",
          "[gl][state][.]") {
    const char* pinned = std::getenv("MESA_GL_VERSION_OVERRIDE");
    INFO("MESA_GL_VERSION_OVERRIDE=" << (pinned ? pinned : "(unset)"));
    REQUIRE(pinned != nullptr);
    int major = 0, minor = 0;
    REQUIRE(std::sscanf(pinned, "%d.%d", &major, &minor) == 2);
    labelUnderHostileState(major, minor, true);
}

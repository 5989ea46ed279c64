#pragma once
// Saves the GL state the passes touch and restores it on destruction, so a
// host renderer finds its context as it left it (the list is documented in
// glccl/labeler.hpp). On entry it also sets the neutral state the passes
// assume (no culling, fill mode, no clip planes, no sampler objects, default
// pixel-store parameters and no pixel buffers...).

#include <array>

#include "gl.hpp"
#include "pixel_store.hpp"

namespace glccl {

// Texture units the passes use: 0 .. kTextureUnitsUsed - 1.
constexpr int kTextureUnitsUsed = 16;
// Draw buffers whose blend and color-mask state is kept one by one. Every
// OpenGL 3.0+ context has at least 8 (GL_MAX_DRAW_BUFFERS); the engine's
// passes write to at most 3.
constexpr int kDrawBuffersSaved = 8;
// Image units and indexed shader-storage / uniform buffer bindings the
// compute passes may use: 0 .. 7, the least every OpenGL 4.3 context has.
constexpr int kImageUnitsSaved = 8;
constexpr int kBufferBindingsSaved = 8;

class StateGuard {
public:
    StateGuard();
    ~StateGuard();
    StateGuard(const StateGuard&) = delete;
    StateGuard& operator=(const StateGuard&) = delete;

private:
    struct Capability {
        GLenum name;
        GLboolean enabled;
    };
    struct Stencil {
        GLint func, ref, valueMask, fail, depthFail, depthPass, writeMask;
    };
    // One draw buffer's blending and color mask. Enable and mask are per
    // buffer since OpenGL 3.0; equations and functions since 4.0.
    struct DrawBuffer {
        GLboolean blend = GL_FALSE;
        GLboolean colorMask[4] = {GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE};
        GLint equationRgb = 0, equationAlpha = 0, srcRgb = 0, dstRgb = 0, srcAlpha = 0, dstAlpha = 0;
    };
    // What glBindImageTexture set on one image unit.
    struct ImageUnit {
        GLint texture = 0, level = 0, layered = GL_FALSE, layer = 0, access = GL_READ_ONLY, format = GL_R8;
    };
    // One indexed buffer binding: size 0 means the whole buffer (glBindBufferBase).
    struct IndexedBuffer {
        GLint buffer = 0;
        GLint64 start = 0, size = 0;
    };

    // Whether the context has this capability or pixel store (ES lacks some).
    bool has(GLenum capability) const;
    bool hasPixelStore(GLenum name) const;
    void saveDrawBuffers();
    void restoreDrawBuffers() const;
    void saveBufferAndImageBindings();
    void restoreBufferAndImageBindings() const;
    static constexpr std::array<GLenum, 24> kCapabilities = {
        GL_SCISSOR_TEST,        GL_BLEND,          GL_DEPTH_TEST,        GL_STENCIL_TEST,
        GL_CULL_FACE,           GL_PROGRAM_POINT_SIZE, GL_RASTERIZER_DISCARD, GL_COLOR_LOGIC_OP,
        GL_FRAMEBUFFER_SRGB,    GL_MULTISAMPLE,    GL_SAMPLE_ALPHA_TO_COVERAGE, GL_SAMPLE_COVERAGE,
        GL_POLYGON_OFFSET_FILL, GL_DEPTH_CLAMP,    GL_PRIMITIVE_RESTART, GL_DITHER,
        GL_CLIP_DISTANCE0,      GL_CLIP_DISTANCE1, GL_CLIP_DISTANCE2,    GL_CLIP_DISTANCE3,
        GL_CLIP_DISTANCE4,      GL_CLIP_DISTANCE5, GLenum(GL_CLIP_DISTANCE0 + 6), GLenum(GL_CLIP_DISTANCE0 + 7)};

    std::array<Capability, kCapabilities.size()> capabilities_{};
    GLint program_ = 0, vertexArray_ = 0, drawFramebuffer_ = 0, readFramebuffer_ = 0;
    GLint viewport_[4] = {}, scissorBox_[4] = {};
    GLfloat blendColor_[4] = {};
    GLint depthFunc_ = 0;
    GLboolean depthMask_ = GL_TRUE;
    GLdouble depthRange_[2] = {0.0, 1.0};
    GLdouble depthClear_ = 1.0;
    Stencil stencilFront_{}, stencilBack_{};
    GLint stencilClear_ = 0;
    GLfloat colorClear_[4] = {};
    GLint activeTexture_ = GL_TEXTURE0;
    // Per unit its 2-D binding and sampler; the 3-D and 2-D array bindings
    // of unit 0, where glccl binds volumes and the component table.
    std::array<GLint, kTextureUnitsUsed> textures_{}, samplers_{};
    GLint texture3d_ = 0, textureArray_ = 0;
    GLfloat pointSize_ = 1.0f;
    GLint polygonMode_[2] = {GL_FILL, GL_FILL};
    GLint packBuffer_ = 0, unpackBuffer_ = 0;
    std::array<GLint, gl::kPixelStores.size()> pixelStore_{};  // the passes assume the initial values

    // The context's version decides which of the state below exists.
    bool es_ = false;                  // OpenGL ES 3: the state desktop GL alone has is left alone
    bool perDrawBufferBlend_ = false;  // OpenGL 4.0: glBlendEquationi, glBlendFunci
    bool computeState_ = false;        // OpenGL 4.3, ES 3.1: image units, storage buffers, indirect dispatch
    std::array<DrawBuffer, kDrawBuffersSaved> drawBuffers_{};
    std::array<IndexedBuffer, kBufferBindingsSaved> uniformBuffers_{};  // OpenGL 3.1: every context we run in
    GLint uniformBuffer_ = 0;
    std::array<ImageUnit, kImageUnitsSaved> imageUnits_{};
    std::array<IndexedBuffer, kBufferBindingsSaved> storageBuffers_{};
    GLint storageBuffer_ = 0, dispatchIndirectBuffer_ = 0;
};

}  // namespace glccl

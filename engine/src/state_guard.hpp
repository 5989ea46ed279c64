#pragma once
// Saves the GL state the passes touch and restores it on destruction, so a
// host renderer finds its context as it left it (the list is documented in
// glccl/labeler.hpp). On entry it also sets the neutral state the passes
// assume (no culling, fill mode, no clip planes, no sampler objects...).

#include <array>

#include "gl.hpp"

namespace glccl {

// Texture units the passes use: 0 .. kTextureUnitsUsed - 1.
constexpr int kTextureUnitsUsed = 16;

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
    GLint blendEquationRgb_ = 0, blendEquationAlpha_ = 0;
    GLint blendSrcRgb_ = 0, blendDstRgb_ = 0, blendSrcAlpha_ = 0, blendDstAlpha_ = 0;
    GLfloat blendColor_[4] = {};
    GLint depthFunc_ = 0;
    GLboolean depthMask_ = GL_TRUE;
    GLdouble depthRange_[2] = {0.0, 1.0};
    GLdouble depthClear_ = 1.0;
    Stencil stencilFront_{}, stencilBack_{};
    GLint stencilClear_ = 0;
    GLboolean colorMask_[4] = {GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE};
    GLfloat colorClear_[4] = {};
    GLint activeTexture_ = GL_TEXTURE0;
    std::array<GLint, kTextureUnitsUsed> textures_{}, samplers_{};
    GLfloat pointSize_ = 1.0f;
    GLint polygonMode_[2] = {GL_FILL, GL_FILL};
    GLint packAlignment_ = 4, unpackAlignment_ = 4, packRowLength_ = 0, unpackRowLength_ = 0;
    GLint packBuffer_ = 0, unpackBuffer_ = 0;
};

}  // namespace glccl

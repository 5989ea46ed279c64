#include "state_guard.hpp"

namespace glccl {

namespace {

void setCapability(GLenum name, bool enabled) {
    if (enabled) glEnable(name);
    else glDisable(name);
}

}  // namespace

StateGuard::StateGuard() {
    for (std::size_t i = 0; i < kCapabilities.size(); ++i)
        capabilities_[i] = {kCapabilities[i], glIsEnabled(kCapabilities[i])};
    glGetIntegerv(GL_CURRENT_PROGRAM, &program_);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vertexArray_);
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &drawFramebuffer_);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &readFramebuffer_);
    glGetIntegerv(GL_VIEWPORT, viewport_);
    glGetIntegerv(GL_SCISSOR_BOX, scissorBox_);
    glGetIntegerv(GL_BLEND_EQUATION_RGB, &blendEquationRgb_);
    glGetIntegerv(GL_BLEND_EQUATION_ALPHA, &blendEquationAlpha_);
    glGetIntegerv(GL_BLEND_SRC_RGB, &blendSrcRgb_);
    glGetIntegerv(GL_BLEND_DST_RGB, &blendDstRgb_);
    glGetIntegerv(GL_BLEND_SRC_ALPHA, &blendSrcAlpha_);
    glGetIntegerv(GL_BLEND_DST_ALPHA, &blendDstAlpha_);
    glGetFloatv(GL_BLEND_COLOR, blendColor_);
    glGetIntegerv(GL_DEPTH_FUNC, &depthFunc_);
    glGetBooleanv(GL_DEPTH_WRITEMASK, &depthMask_);
    glGetDoublev(GL_DEPTH_RANGE, depthRange_);
    glGetDoublev(GL_DEPTH_CLEAR_VALUE, &depthClear_);
    auto readStencil = [](Stencil& s, GLenum func, GLenum ref, GLenum valueMask, GLenum fail, GLenum depthFail,
                          GLenum depthPass, GLenum writeMask) {
        glGetIntegerv(func, &s.func);
        glGetIntegerv(ref, &s.ref);
        glGetIntegerv(valueMask, &s.valueMask);
        glGetIntegerv(fail, &s.fail);
        glGetIntegerv(depthFail, &s.depthFail);
        glGetIntegerv(depthPass, &s.depthPass);
        glGetIntegerv(writeMask, &s.writeMask);
    };
    readStencil(stencilFront_, GL_STENCIL_FUNC, GL_STENCIL_REF, GL_STENCIL_VALUE_MASK, GL_STENCIL_FAIL,
                GL_STENCIL_PASS_DEPTH_FAIL, GL_STENCIL_PASS_DEPTH_PASS, GL_STENCIL_WRITEMASK);
    readStencil(stencilBack_, GL_STENCIL_BACK_FUNC, GL_STENCIL_BACK_REF, GL_STENCIL_BACK_VALUE_MASK,
                GL_STENCIL_BACK_FAIL, GL_STENCIL_BACK_PASS_DEPTH_FAIL, GL_STENCIL_BACK_PASS_DEPTH_PASS,
                GL_STENCIL_BACK_WRITEMASK);
    glGetIntegerv(GL_STENCIL_CLEAR_VALUE, &stencilClear_);
    glGetBooleanv(GL_COLOR_WRITEMASK, colorMask_);
    glGetFloatv(GL_COLOR_CLEAR_VALUE, colorClear_);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &activeTexture_);
    for (int unit = 0; unit < kTextureUnitsUsed; ++unit) {
        glActiveTexture(GLenum(GL_TEXTURE0 + unit));
        glGetIntegerv(GL_TEXTURE_BINDING_2D, &textures_[unit]);
        glGetIntegerv(GL_SAMPLER_BINDING, &samplers_[unit]);
        glBindSampler(GLuint(unit), 0);  // a host sampler would override the textures' own parameters
    }
    glGetFloatv(GL_POINT_SIZE, &pointSize_);
    glGetIntegerv(GL_POLYGON_MODE, polygonMode_);
    glGetIntegerv(GL_PACK_ALIGNMENT, &packAlignment_);
    glGetIntegerv(GL_UNPACK_ALIGNMENT, &unpackAlignment_);
    glGetIntegerv(GL_PACK_ROW_LENGTH, &packRowLength_);
    glGetIntegerv(GL_UNPACK_ROW_LENGTH, &unpackRowLength_);
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &packBuffer_);
    glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &unpackBuffer_);

    // The neutral state every pass starts from.
    for (GLenum name : kCapabilities) glDisable(name);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glDepthMask(GL_FALSE);
    glStencilMask(0xFF);
    glDepthRange(0.0, 1.0);
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    glPointSize(1.0f);
}

StateGuard::~StateGuard() {
    for (const Capability& c : capabilities_) setCapability(c.name, c.enabled == GL_TRUE);
    glUseProgram(GLuint(program_));
    glBindVertexArray(GLuint(vertexArray_));
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(drawFramebuffer_));
    glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(readFramebuffer_));
    glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
    glScissor(scissorBox_[0], scissorBox_[1], scissorBox_[2], scissorBox_[3]);
    glBlendEquationSeparate(GLenum(blendEquationRgb_), GLenum(blendEquationAlpha_));
    glBlendFuncSeparate(GLenum(blendSrcRgb_), GLenum(blendDstRgb_), GLenum(blendSrcAlpha_), GLenum(blendDstAlpha_));
    glBlendColor(blendColor_[0], blendColor_[1], blendColor_[2], blendColor_[3]);
    glDepthFunc(GLenum(depthFunc_));
    glDepthMask(depthMask_);
    glDepthRange(depthRange_[0], depthRange_[1]);
    glClearDepth(depthClear_);
    auto writeStencil = [](GLenum face, const Stencil& s) {
        glStencilFuncSeparate(face, GLenum(s.func), s.ref, GLuint(s.valueMask));
        glStencilOpSeparate(face, GLenum(s.fail), GLenum(s.depthFail), GLenum(s.depthPass));
        glStencilMaskSeparate(face, GLuint(s.writeMask));
    };
    writeStencil(GL_FRONT, stencilFront_);
    writeStencil(GL_BACK, stencilBack_);
    glClearStencil(stencilClear_);
    glColorMask(colorMask_[0], colorMask_[1], colorMask_[2], colorMask_[3]);
    glClearColor(colorClear_[0], colorClear_[1], colorClear_[2], colorClear_[3]);
    for (int unit = 0; unit < kTextureUnitsUsed; ++unit) {
        glActiveTexture(GLenum(GL_TEXTURE0 + unit));
        glBindTexture(GL_TEXTURE_2D, GLuint(textures_[unit]));
        glBindSampler(GLuint(unit), GLuint(samplers_[unit]));
    }
    glActiveTexture(GLenum(activeTexture_));
    glPointSize(pointSize_);
    glPolygonMode(GL_FRONT_AND_BACK, GLenum(polygonMode_[0]));
    glPixelStorei(GL_PACK_ALIGNMENT, packAlignment_);
    glPixelStorei(GL_UNPACK_ALIGNMENT, unpackAlignment_);
    glPixelStorei(GL_PACK_ROW_LENGTH, packRowLength_);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, unpackRowLength_);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, GLuint(packBuffer_));
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, GLuint(unpackBuffer_));
}

}  // namespace glccl

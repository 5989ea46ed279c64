#include "state_guard.hpp"

namespace glccl {

namespace {

void setCapability(GLenum name, bool enabled) {
    if (enabled) glEnable(name);
    else glDisable(name);
}

void saveIndexedBuffer(GLenum binding, GLenum start, GLenum size, GLuint index, GLint& buffer, GLint64& offset,
                       GLint64& length) {
    glGetIntegeri_v(binding, index, &buffer);
    glGetInteger64i_v(start, index, &offset);
    glGetInteger64i_v(size, index, &length);
}

// glBindBufferBase leaves start and size 0 (the whole buffer), glBindBufferRange
// a size above 0; each is undone by the same call.
void restoreIndexedBuffer(GLenum target, GLuint index, GLint buffer, GLint64 start, GLint64 size) {
    if (buffer != 0 && size > 0) glBindBufferRange(target, index, GLuint(buffer), GLintptr(start), GLsizeiptr(size));
    else glBindBufferBase(target, index, GLuint(buffer));
}

// Capabilities ES 3.0 does not have: querying or setting them there is an
// error. Logic ops, sRGB writes, depth clamping, clip distances and the
// desktop forms of point sizing and primitive restart are desktop's only.
bool desktopCapability(GLenum name) {
    switch (name) {
        case GL_PROGRAM_POINT_SIZE:
        case GL_COLOR_LOGIC_OP:
        case GL_FRAMEBUFFER_SRGB:
        case GL_MULTISAMPLE:
        case GL_DEPTH_CLAMP:
        case GL_PRIMITIVE_RESTART: return true;
        default: return name >= GL_CLIP_DISTANCE0 && name < GL_CLIP_DISTANCE0 + 8;
    }
}

}  // namespace

bool StateGuard::has(GLenum capability) const { return !es_ || !desktopCapability(capability); }
bool StateGuard::hasPixelStore(GLenum name) const { return !es_ || !gl::desktopOnlyPixelStore(name); }

StateGuard::StateGuard() {
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    es_ = gl::isEs();
    perDrawBufferBlend_ = !es_ && major >= 4;
    computeState_ = es_ ? major > 3 || (major == 3 && minor >= 1) : major > 4 || (major == 4 && minor >= 3);

    for (std::size_t i = 0; i < kCapabilities.size(); ++i)
        capabilities_[i] = {kCapabilities[i], has(kCapabilities[i]) ? glIsEnabled(kCapabilities[i]) : GLboolean(GL_FALSE)};
    glGetIntegerv(GL_CURRENT_PROGRAM, &program_);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vertexArray_);
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &drawFramebuffer_);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &readFramebuffer_);
    glGetIntegerv(GL_VIEWPORT, viewport_);
    glGetIntegerv(GL_SCISSOR_BOX, scissorBox_);
    glGetFloatv(GL_BLEND_COLOR, blendColor_);
    glGetIntegerv(GL_DEPTH_FUNC, &depthFunc_);
    glGetBooleanv(GL_DEPTH_WRITEMASK, &depthMask_);
    if (es_) {
        // ES has the float forms only.
        GLfloat range[2] = {0, 1}, clear = 1;
        glGetFloatv(GL_DEPTH_RANGE, range);
        glGetFloatv(GL_DEPTH_CLEAR_VALUE, &clear);
        depthRange_[0] = range[0];
        depthRange_[1] = range[1];
        depthClear_ = clear;
    } else {
        glGetDoublev(GL_DEPTH_RANGE, depthRange_);
        glGetDoublev(GL_DEPTH_CLEAR_VALUE, &depthClear_);
    }
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
    glGetFloatv(GL_COLOR_CLEAR_VALUE, colorClear_);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &activeTexture_);
    for (int unit = 0; unit < kTextureUnitsUsed; ++unit) {
        glActiveTexture(GLenum(GL_TEXTURE0 + unit));
        glGetIntegerv(GL_TEXTURE_BINDING_2D, &textures_[unit]);
        glGetIntegerv(GL_SAMPLER_BINDING, &samplers_[unit]);
        glBindSampler(GLuint(unit), 0);  // a host sampler would override the textures' own parameters
    }
    // Unit 0 is active during a call: the one unit on which glccl binds 3-D
    // and 2-D array textures (a volume's input, the component table), so
    // those two bindings are saved there alone.
    glActiveTexture(GL_TEXTURE0);
    glGetIntegerv(GL_TEXTURE_BINDING_3D, &texture3d_);
    glGetIntegerv(GL_TEXTURE_BINDING_2D_ARRAY, &textureArray_);
    if (!es_) {  // ES has neither: points are sized by the vertex stage, polygons always filled
        glGetFloatv(GL_POINT_SIZE, &pointSize_);
        glGetIntegerv(GL_POLYGON_MODE, polygonMode_);
    }
    for (std::size_t i = 0; i < gl::kPixelStores.size(); ++i)
        if (hasPixelStore(gl::kPixelStores[i].name)) glGetIntegerv(gl::kPixelStores[i].name, &pixelStore_[i]);
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &packBuffer_);
    glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &unpackBuffer_);
    saveDrawBuffers();
    saveBufferAndImageBindings();

    // The neutral state every pass starts from.
    for (GLenum name : kCapabilities)
        if (has(name)) glDisable(name);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glDepthMask(GL_FALSE);
    glStencilMask(0xFF);
    if (es_) {
        glDepthRangef(0.0f, 1.0f);
    } else {
        glDepthRange(0.0, 1.0);
        glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
        glPointSize(1.0f);
    }
    for (const gl::PixelStore& p : gl::kPixelStores)
        if (hasPixelStore(p.name)) glPixelStorei(p.name, p.initial);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}

StateGuard::~StateGuard() {
    for (const Capability& c : capabilities_)
        if (has(c.name)) setCapability(c.name, c.enabled == GL_TRUE);
    restoreDrawBuffers();
    glUseProgram(GLuint(program_));
    glBindVertexArray(GLuint(vertexArray_));
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(drawFramebuffer_));
    glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(readFramebuffer_));
    glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
    glScissor(scissorBox_[0], scissorBox_[1], scissorBox_[2], scissorBox_[3]);
    glBlendColor(blendColor_[0], blendColor_[1], blendColor_[2], blendColor_[3]);
    glDepthFunc(GLenum(depthFunc_));
    glDepthMask(depthMask_);
    if (es_) {
        glDepthRangef(GLfloat(depthRange_[0]), GLfloat(depthRange_[1]));
        glClearDepthf(GLfloat(depthClear_));
    } else {
        glDepthRange(depthRange_[0], depthRange_[1]);
        glClearDepth(depthClear_);
    }
    auto writeStencil = [](GLenum face, const Stencil& s) {
        glStencilFuncSeparate(face, GLenum(s.func), s.ref, GLuint(s.valueMask));
        glStencilOpSeparate(face, GLenum(s.fail), GLenum(s.depthFail), GLenum(s.depthPass));
        glStencilMaskSeparate(face, GLuint(s.writeMask));
    };
    writeStencil(GL_FRONT, stencilFront_);
    writeStencil(GL_BACK, stencilBack_);
    glClearStencil(stencilClear_);
    glClearColor(colorClear_[0], colorClear_[1], colorClear_[2], colorClear_[3]);
    for (int unit = 0; unit < kTextureUnitsUsed; ++unit) {
        glActiveTexture(GLenum(GL_TEXTURE0 + unit));
        glBindTexture(GL_TEXTURE_2D, GLuint(textures_[unit]));
        glBindSampler(GLuint(unit), GLuint(samplers_[unit]));
    }
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_3D, GLuint(texture3d_));
    glBindTexture(GL_TEXTURE_2D_ARRAY, GLuint(textureArray_));
    glActiveTexture(GLenum(activeTexture_));
    if (!es_) {
        glPointSize(pointSize_);
        glPolygonMode(GL_FRONT_AND_BACK, GLenum(polygonMode_[0]));
    }
    for (std::size_t i = 0; i < gl::kPixelStores.size(); ++i)
        if (hasPixelStore(gl::kPixelStores[i].name)) glPixelStorei(gl::kPixelStores[i].name, pixelStore_[i]);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, GLuint(packBuffer_));
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, GLuint(unpackBuffer_));
    restoreBufferAndImageBindings();
}

void StateGuard::saveDrawBuffers() {
    if (es_) {
        // ES 3.0 has one blend enable, mask, equation and function for
        // every draw buffer (the indexed forms are ES 3.2's).
        DrawBuffer& d = drawBuffers_[0];
        d.blend = glIsEnabled(GL_BLEND);
        glGetBooleanv(GL_COLOR_WRITEMASK, d.colorMask);
        glGetIntegerv(GL_BLEND_EQUATION_RGB, &d.equationRgb);
        glGetIntegerv(GL_BLEND_EQUATION_ALPHA, &d.equationAlpha);
        glGetIntegerv(GL_BLEND_SRC_RGB, &d.srcRgb);
        glGetIntegerv(GL_BLEND_DST_RGB, &d.dstRgb);
        glGetIntegerv(GL_BLEND_SRC_ALPHA, &d.srcAlpha);
        glGetIntegerv(GL_BLEND_DST_ALPHA, &d.dstAlpha);
        return;
    }
    for (int i = 0; i < kDrawBuffersSaved; ++i) {
        DrawBuffer& d = drawBuffers_[std::size_t(i)];
        const auto index = GLuint(i);
        d.blend = glIsEnabledi(GL_BLEND, index);
        glGetBooleani_v(GL_COLOR_WRITEMASK, index, d.colorMask);
        if (perDrawBufferBlend_) {
            glGetIntegeri_v(GL_BLEND_EQUATION_RGB, index, &d.equationRgb);
            glGetIntegeri_v(GL_BLEND_EQUATION_ALPHA, index, &d.equationAlpha);
            glGetIntegeri_v(GL_BLEND_SRC_RGB, index, &d.srcRgb);
            glGetIntegeri_v(GL_BLEND_DST_RGB, index, &d.dstRgb);
            glGetIntegeri_v(GL_BLEND_SRC_ALPHA, index, &d.srcAlpha);
            glGetIntegeri_v(GL_BLEND_DST_ALPHA, index, &d.dstAlpha);
        } else {
            // Before 4.0 one equation and one function serve every buffer.
            glGetIntegerv(GL_BLEND_EQUATION_RGB, &d.equationRgb);
            glGetIntegerv(GL_BLEND_EQUATION_ALPHA, &d.equationAlpha);
            glGetIntegerv(GL_BLEND_SRC_RGB, &d.srcRgb);
            glGetIntegerv(GL_BLEND_DST_RGB, &d.dstRgb);
            glGetIntegerv(GL_BLEND_SRC_ALPHA, &d.srcAlpha);
            glGetIntegerv(GL_BLEND_DST_ALPHA, &d.dstAlpha);
        }
    }
}

void StateGuard::restoreDrawBuffers() const {
    // Buffer 0's values go to every buffer first (the global calls), which
    // also covers buffers past kDrawBuffersSaved on a context that has more;
    // then each saved buffer gets its own.
    const DrawBuffer& first = drawBuffers_[0];
    glBlendEquationSeparate(GLenum(first.equationRgb), GLenum(first.equationAlpha));
    glBlendFuncSeparate(GLenum(first.srcRgb), GLenum(first.dstRgb), GLenum(first.srcAlpha), GLenum(first.dstAlpha));
    glColorMask(first.colorMask[0], first.colorMask[1], first.colorMask[2], first.colorMask[3]);
    if (es_) return;  // the blend enable is among the capabilities
    for (int i = 0; i < kDrawBuffersSaved; ++i) {
        const DrawBuffer& d = drawBuffers_[std::size_t(i)];
        const auto index = GLuint(i);
        if (d.blend == GL_TRUE) glEnablei(GL_BLEND, index);
        else glDisablei(GL_BLEND, index);
        glColorMaski(index, d.colorMask[0], d.colorMask[1], d.colorMask[2], d.colorMask[3]);
        if (perDrawBufferBlend_) {
            glBlendEquationSeparatei(index, GLenum(d.equationRgb), GLenum(d.equationAlpha));
            glBlendFuncSeparatei(index, GLenum(d.srcRgb), GLenum(d.dstRgb), GLenum(d.srcAlpha), GLenum(d.dstAlpha));
        }
    }
}

void StateGuard::saveBufferAndImageBindings() {
    for (int i = 0; i < kBufferBindingsSaved; ++i) {
        IndexedBuffer& b = uniformBuffers_[std::size_t(i)];
        saveIndexedBuffer(GL_UNIFORM_BUFFER_BINDING, GL_UNIFORM_BUFFER_START, GL_UNIFORM_BUFFER_SIZE, GLuint(i),
                          b.buffer, b.start, b.size);
    }
    glGetIntegerv(GL_UNIFORM_BUFFER_BINDING, &uniformBuffer_);
    if (!computeState_) return;
    for (int i = 0; i < kImageUnitsSaved; ++i) {
        ImageUnit& u = imageUnits_[std::size_t(i)];
        const auto unit = GLuint(i);
        glGetIntegeri_v(GL_IMAGE_BINDING_NAME, unit, &u.texture);
        glGetIntegeri_v(GL_IMAGE_BINDING_LEVEL, unit, &u.level);
        glGetIntegeri_v(GL_IMAGE_BINDING_LAYERED, unit, &u.layered);
        glGetIntegeri_v(GL_IMAGE_BINDING_LAYER, unit, &u.layer);
        glGetIntegeri_v(GL_IMAGE_BINDING_ACCESS, unit, &u.access);
        glGetIntegeri_v(GL_IMAGE_BINDING_FORMAT, unit, &u.format);
    }
    for (int i = 0; i < kBufferBindingsSaved; ++i) {
        IndexedBuffer& b = storageBuffers_[std::size_t(i)];
        saveIndexedBuffer(GL_SHADER_STORAGE_BUFFER_BINDING, GL_SHADER_STORAGE_BUFFER_START,
                          GL_SHADER_STORAGE_BUFFER_SIZE, GLuint(i), b.buffer, b.start, b.size);
    }
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &storageBuffer_);
    glGetIntegerv(GL_DISPATCH_INDIRECT_BUFFER_BINDING, &dispatchIndirectBuffer_);
}

void StateGuard::restoreBufferAndImageBindings() const {
    // Indexed bindings first: glBindBufferBase/Range also move the generic
    // binding of their target, which is restored after them.
    for (int i = 0; i < kBufferBindingsSaved; ++i) {
        const IndexedBuffer& b = uniformBuffers_[std::size_t(i)];
        restoreIndexedBuffer(GL_UNIFORM_BUFFER, GLuint(i), b.buffer, b.start, b.size);
    }
    glBindBuffer(GL_UNIFORM_BUFFER, GLuint(uniformBuffer_));
    if (!computeState_) return;
    for (int i = 0; i < kImageUnitsSaved; ++i) {
        const ImageUnit& u = imageUnits_[std::size_t(i)];
        glBindImageTexture(GLuint(i), GLuint(u.texture), u.level, GLboolean(u.layered), u.layer, GLenum(u.access),
                           GLenum(u.format));
    }
    for (int i = 0; i < kBufferBindingsSaved; ++i) {
        const IndexedBuffer& b = storageBuffers_[std::size_t(i)];
        restoreIndexedBuffer(GL_SHADER_STORAGE_BUFFER, GLuint(i), b.buffer, b.start, b.size);
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, GLuint(storageBuffer_));
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, GLuint(dispatchIndirectBuffer_));
}

}  // namespace glccl

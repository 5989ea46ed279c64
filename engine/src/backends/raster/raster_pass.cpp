#include "raster_pass.hpp"

#include "backends/criterion_defines.hpp"
#include "backends/pass_check.hpp"
#include "program.hpp"

namespace glccl::raster {

void bindTexture(TextureSlot slot, const gl::Texture& texture) {
    glActiveTexture(GLenum(GL_TEXTURE0 + slot.unit));
    glBindTexture(GL_TEXTURE_2D, texture.id());
}

void RasterPrograms::select(Connectivity connectivity, const Criterion& criterion, GLenum inputFormat,
                            const RasterGrid& grid) {
    backends::checkCriterion(criterion, inputFormat);
    connectivity_ = connectivity;
    criterion_ = criterion;
    inputFormat_ = inputFormat;
    grid_ = grid;
    variant_ = backends::criterionVariant(connectivity, criterion, inputFormat);
}

gl::Program& RasterPrograms::use(const ProgramSpec& spec) {
    auto found = programs_.find({&spec, variant_});
    if (found == programs_.end()) {
        gl::ProgramBuilder builder(spec.name);
        backends::defineCriterion(builder, connectivity_, criterion_, inputFormat_);
        const NodeSize shape = NodeSize::of(connectivity_, criterion_);
        builder.define("NODE_W", shape.width);
        builder.define("NODE_H", shape.height);
        defineSharedConstants(builder);
        builder.vertex(spec.vertexFile).fragment(spec.fragmentFile);
        for (const char* output : spec.outputs) builder.output(output);
        found = programs_.emplace(std::pair{&spec, variant_}, builder.build()).first;
        gl::Program& program = found->second;
        program.use();
        program.set(kInputSlot.uniform, kInputSlot.unit);
        program.set(kNodeGraphSlot.uniform, kNodeGraphSlot.unit);
        for (const TextureSlot& slot : spec.textures) program.set(slot.uniform, slot.unit);
    }
    gl::Program& program = found->second;
    program.use();
    program.set("imageSize", grid_.width, grid_.height);
    program.set("gridSize", grid_.gridWidth, grid_.gridHeight);
    program.set("scanSize", grid_.scanWidth(), grid_.scanHeight());
    backends::setCriterionNumber(program, criterion_, inputFormat_);
    return program;
}

void PassContext::checkPass(const char* stage) const { backends::checkPass(checkEachPass, "raster", stage); }

void setRenderState(const RenderState& state) {
    if (state.blendEquation == GL_NONE) {
        glDisable(GL_BLEND);
    } else {
        glEnable(GL_BLEND);
        glBlendEquation(state.blendEquation);
        glBlendFunc(GL_ONE, GL_ONE);
    }
    if (state.depthFunc == GL_NONE) {
        glDisable(GL_DEPTH_TEST);
    } else {
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(state.depthFunc);
    }
    glDepthMask(state.depthWrite ? GL_TRUE : GL_FALSE);
    const GLboolean color = state.colorWrite ? GL_TRUE : GL_FALSE;
    glColorMask(color, color, color, color);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_SCISSOR_TEST);
}

void beginPass(const gl::RenderTarget& target) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target.framebuffer.id());
    glViewport(0, 0, target.width(), target.height());
}

void drawFullscreen() { glDrawArrays(GL_TRIANGLES, 0, 3); }

void drawPoints(std::int64_t count) {
    if (count > 0) glDrawArrays(GL_POINTS, 0, GLsizei(count));
}

void copyTarget(const gl::RenderTarget& from, const gl::RenderTarget& to) {
    glBindFramebuffer(GL_READ_FRAMEBUFFER, from.framebuffer.id());
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, to.framebuffer.id());
    glBlitFramebuffer(0, 0, from.width(), from.height(), 0, 0, to.width(), to.height(), GL_COLOR_BUFFER_BIT,
                      GL_NEAREST);
}

bool anySamplesPassed(const gl::Query& query, const std::function<void()>& draw) {
    glBeginQuery(GL_ANY_SAMPLES_PASSED, query.id());
    draw();
    glEndQuery(GL_ANY_SAMPLES_PASSED);
    GLuint any = 0;
    glGetQueryObjectuiv(query.id(), GL_QUERY_RESULT, &any);
    return any != 0;
}

}  // namespace glccl::raster

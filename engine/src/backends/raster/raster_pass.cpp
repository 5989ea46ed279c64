#include "raster_pass.hpp"

#include "backends/criterion_defines.hpp"
#include "backends/pass_check.hpp"
#include "program.hpp"

namespace glccl::raster {

void bindTexture(TextureSlot slot, const gl::Texture& texture) {
    glActiveTexture(GLenum(GL_TEXTURE0 + slot.unit));
    glBindTexture(GL_TEXTURE_2D, texture.id());
}

ProgramConstant bindRootLabels(const LabeledGrid& grid) {
    if (grid.rootsByScan) {
        bindTexture(kRootMasksSlot, grid.rootMasks);
        bindTexture(kRootOffsetsSlot, grid.rootOffsets);
    } else {
        bindTexture(kRootLabelsSlot, grid.rootLabels);
    }
    return {"ROOT_LABELS_BY_SCAN", grid.rootsByScan ? 1 : 0};
}

void RasterPrograms::select(Connectivity connectivity, const Criterion& criterion, GLenum inputFormat,
                            const RasterGrid& grid) {
    backends::checkCriterion(criterion, inputFormat);
    connectivity_ = connectivity;
    criterion_ = criterion;
    inputFormat_ = inputFormat;
    grid_ = grid;
    variant_ = backends::criterionVariant(connectivity, criterion, inputFormat);
    if (!gathers_) {
        GLint minor = 0;
        glGetIntegerv(GL_MINOR_VERSION, &minor);
        gathers_ = gl::isEs() ? minor >= 1 : gl::hasExtension("GL_ARB_texture_gather");
    }
}

gl::Program& RasterPrograms::use(const ProgramSpec& spec, const std::vector<ProgramConstant>& constants) {
    const NodeSize shape = NodeSize::of(connectivity_, criterion_);
    std::string variant = (spec.readsInput ? variant_ : backends::noInputVariant(connectivity_, shape)) +
                          " tileRows=" + std::to_string(grid_.tileRows) +
                          " runRows=" + std::to_string(grid_.tileRunRows);
    for (const ProgramConstant& constant : constants)
        variant += std::string(" ") + constant.name + "=" + std::to_string(constant.value);
    auto found = programs_.find({&spec, variant});
    if (found == programs_.end()) {
        gl::ProgramBuilder builder(spec.name);
        if (spec.readsInput) backends::defineCriterion(builder, connectivity_, criterion_, inputFormat_);
        else backends::defineNoInput(builder, connectivity_);
        if ((spec.readsInput || spec.gathersIds) && *gathers_)
            builder.extension("GL_ARB_texture_gather")
                .glslEs310()
                .define(spec.readsInput ? "GATHER_INPUT" : "GATHER_IDS");
        builder.define("NODE_W", shape.width);
        builder.define("NODE_H", shape.height);
        builder.define("SLOT_SEGMENT_W", slotSegmentWidth(shape.height));
        const int tileRows = grid_.tileRows, runRows = grid_.tileRunRows;
        builder.define("TILE_ROWS", tileRows);
        builder.define("RUN_ENTRY_BITS", runEntryBitsFor(tileRows));
        builder.define("RUN_ROWS", runRows);
        builder.define("RUN_OUTPUTS", runRows * runTargetsFor(tileRows));
        builder.define("LEAD_TEXELS", leadTexelsFor(tileRows, runRows));
        defineSharedConstants(builder);
        for (const char* name : spec.defines) builder.define(name);
        for (const ProgramConstant& constant : constants) builder.define(constant.name, constant.value);
        builder.vertex(spec.vertexFile).fragment(spec.fragmentFile);
        for (const char* output : spec.outputs) builder.output(output);
        found = programs_.emplace(std::pair{&spec, variant}, builder.build()).first;
        gl::Program& program = found->second;
        program.use();
        program.set(kInputSlot.uniform, kInputSlot.unit);
        program.set(kNodeGraphSlot.uniform, kNodeGraphSlot.unit);
        program.set(kRootMasksSlot.uniform, kRootMasksSlot.unit);
        program.set(kRootOffsetsSlot.uniform, kRootOffsetsSlot.unit);
        for (const TextureSlot& slot : spec.textures) program.set(slot.uniform, slot.unit);
    }
    gl::Program& program = found->second;
    program.use();
    program.set("imageSize", grid_.width, grid_.height);
    program.set("gridSize", grid_.gridWidth, grid_.gridHeight);
    program.set("scanSize", grid_.scanWidth(), grid_.scanHeight());
    if (spec.readsInput) backends::setCriterionNumber(program, criterion_, inputFormat_);
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

namespace {
IssuedWork issued;
std::int64_t viewportTexels = 0;
}  // namespace

IssuedWork& issuedWork() { return issued; }

void countWait() { ++issued.waits; }

void setViewport(int width, int height) {
    glViewport(0, 0, width, height);
    viewportTexels = std::int64_t(width) * height;
}

void beginPass(const gl::RenderTarget& target) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target.framebuffer.id());
    setViewport(target.width(), target.height());
}

void drawFullscreen() {
    glDrawArrays(GL_TRIANGLES, 0, 3);
    ++issued.draws;
    issued.fragments += viewportTexels;
}

void drawPoints(std::int64_t count) {
    if (count <= 0) return;
    glDrawArrays(GL_POINTS, 0, GLsizei(count));
    ++issued.draws;
    issued.points += count;
}

void copyTarget(const gl::RenderTarget& from, const gl::RenderTarget& to) {
    ++issued.copies;
    glBindFramebuffer(GL_READ_FRAMEBUFFER, from.framebuffer.id());
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, to.framebuffer.id());
    glBlitFramebuffer(0, 0, from.width(), from.height(), 0, 0, to.width(), to.height(), GL_COLOR_BUFFER_BIT,
                      GL_NEAREST);
}

#ifdef __EMSCRIPTEN__
namespace {

const ProgramSpec kAnyFragment{"any_fragment", "fullscreen.vert", "any_fragment.frag", {"fragColor"}, {}};

// The probe's stencil and marks, of the last viewport probed: one WebGL
// context per page module.
struct FragmentProbe {
    gl::Renderbuffer stencil;
    gl::RenderTarget marks;
};

bool anyFragmentInWebGl(const PassContext& context, const std::function<void()>& draw) {
    draw();
    GLint viewport[4] = {0, 0, 0, 0}, framebuffer = 0, program = 0;
    glGetIntegerv(GL_VIEWPORT, viewport);
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &framebuffer);
    glGetIntegerv(GL_CURRENT_PROGRAM, &program);
    const int width = viewport[2], height = viewport[3];
    static FragmentProbe probe;
    if (probe.marks.width() != width || probe.marks.height() != height) {
        probe.marks = {};
        probe.stencil = gl::allocateRenderbuffer(GL_DEPTH24_STENCIL8, width, height, "the fragment probe");
        probe.marks = gl::RenderTarget::allocate(GL_R8, width, height, "the fragment probe", probe.stencil.id(),
                                                 GL_DEPTH_STENCIL_ATTACHMENT);
    }
    GLboolean blend = glIsEnabled(GL_BLEND), mask[4] = {GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE};
    glGetBooleanv(GL_COLOR_WRITEMASK, mask);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, probe.marks.framebuffer.id());
    glViewport(0, 0, width, height);
    const GLfloat zero[4] = {0, 0, 0, 0};
    glClearBufferfv(GL_COLOR, 0, zero);
    glStencilMask(0xFF);
    glClearStencil(0);
    glClear(GL_STENCIL_BUFFER_BIT);
    // The same fragments mark the stencil (the callers' draws test no depth)...
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    glEnable(GL_STENCIL_TEST);
    glStencilFunc(GL_ALWAYS, 1, 0xFF);
    glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
    draw();
    // ...and become 1 in the marks, read back.
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glStencilFunc(GL_EQUAL, 1, 0xFF);
    glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
    context.programs.use(kAnyFragment);
    drawFullscreen();
    glDisable(GL_STENCIL_TEST);
    std::vector<std::uint8_t> texels(std::size_t(width) * std::size_t(height) * 4);
    gl::readTextureRect(probe.marks.texture, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, texels.data());
    bool any = false;
    for (std::size_t i = 0; i < texels.size() && !any; i += 4) any = texels[i] != 0;
    // The pass's own state back.
    glUseProgram(GLuint(program));
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(framebuffer));
    glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
    glColorMask(mask[0], mask[1], mask[2], mask[3]);
    if (blend) glEnable(GL_BLEND);
    return any;
}

}  // namespace
#endif

bool anySamplesPassed(const PassContext& context, const gl::Query& query, const std::function<void()>& draw) {
#ifdef __EMSCRIPTEN__
    (void)query;
    return anyFragmentInWebGl(context, draw);
#else
    (void)context;
    glBeginQuery(GL_ANY_SAMPLES_PASSED, query.id());
    draw();
    glEndQuery(GL_ANY_SAMPLES_PASSED);
    GLuint any = 0;
    glGetQueryObjectuiv(query.id(), GL_QUERY_RESULT, &any);
    countWait();
    return any != 0;
#endif
}

}  // namespace glccl::raster

#include "component_table.hpp"

namespace glccl::raster {

namespace {
const ProgramSpec kComponentTable{"component_table", "component_table.vert", "component_table.frag",
                                  {"box", "sums", "root"}, {kIdsSlot, kRootLabelsSlot}};
const ProgramSpec kComponentTableRuns{"component_table_runs", "component_table_runs.vert", "component_table.frag",
                                      {"box", "sums", "root"}, {kIdsSlot, kRootLabelsSlot}, {"TABLE_RUNS"}};
// Draw buffers of the table's framebuffer.
constexpr GLuint kBoxes = 0, kSums = 1, kRoots = 2;
}  // namespace

ComponentTablePass::ComponentTablePass() {
    GLint major = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    es_ = gl::isEs();
    perDrawBufferBlend_ = !es_ && major >= 4;
}

void ComponentTablePass::run(const PassContext& context, const LabeledGrid& grid, const TableTargets& table,
                             bool byRuns) {
    auto scope = context.timer.scope(kStage);
    bindTexture(kNodeGraphSlot, grid.nodeGraph);
    bindTexture(kIdsSlot, grid.ids);
    auto& program = context.programs.use(byRuns ? kComponentTableRuns : kComponentTable);
    program.set("tableSize", table.width, table.height);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, table.framebuffer.id());
    glViewport(0, 0, table.width, table.height);
    setRenderState({GL_MAX});
    const float zero[4] = {0, 0, 0, 0};
    for (GLint target : {kBoxes, kSums, kRoots}) glClearBufferfv(GL_COLOR, target, zero);
    bindTexture(kRootLabelsSlot, grid.rootLabels);
    const std::int64_t nodes = std::int64_t(grid.grid.gridWidth) * grid.grid.gridHeight;
    if (perDrawBufferBlend_) {
        glBlendEquationi(kBoxes, GL_MAX);
        glBlendEquationi(kSums, GL_FUNC_ADD);
        glBlendEquationi(kRoots, GL_MAX);
        drawPoints(nodes);
    } else if (es_) {
        // ES 3.0 has neither per-draw-buffer blending nor per-draw-buffer
        // masks: the draw buffers themselves say which targets each draw
        // writes.
        const GLenum boxesAndRoots[] = {GL_COLOR_ATTACHMENT0, GL_NONE, GL_COLOR_ATTACHMENT2};
        const GLenum sumsAlone[] = {GL_NONE, GL_COLOR_ATTACHMENT1, GL_NONE};
        const GLenum all[] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1, GL_COLOR_ATTACHMENT2};
        glDrawBuffers(3, boxesAndRoots);
        drawPoints(nodes);
        glBlendEquation(GL_FUNC_ADD);
        glDrawBuffers(3, sumsAlone);
        drawPoints(nodes);
        glDrawBuffers(3, all);
    } else {
        // Boxes and roots with the sums masked, then the sums alone.
        glColorMaski(kSums, GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        drawPoints(nodes);
        glBlendEquation(GL_FUNC_ADD);
        glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        glColorMaski(kSums, GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        drawPoints(nodes);
    }
    context.checkPass(kStage);
}

}  // namespace glccl::raster

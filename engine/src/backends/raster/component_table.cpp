#include "component_table.hpp"

#include <algorithm>

namespace glccl::raster {

namespace {
const ProgramSpec kComponentTable{"component_table", "component_table.vert", "component_table.frag",
                                  {"box", "sums", "root"}, {kIdsSlot, kRootLabelsSlot}};
const ProgramSpec kComponentTableRuns{"component_table_runs", "component_table_runs.vert", "component_table.frag",
                                      {"box", "sums", "root"}, {kIdsSlot, kRootLabelsSlot}, {"TABLE_RUNS"}};
constexpr TextureSlot kFirstsSlot{"firsts", 3};
const ProgramSpec kComponentTableFirsts{"component_table_firsts", "fullscreen.vert", "component_table_firsts.frag",
                                        {"fragFirsts"}, {kIdsSlot}};
const ProgramSpec kComponentTableMost{"component_table_most", "component_table_most.vert", "write_scatter.frag",
                                      {"fragColor"}, {kFirstsSlot}};
const ProgramSpec kComponentTableSlots{"component_table_slots", "component_table_slots.vert", "component_table.frag",
                                       {"box", "sums", "root"}, {kIdsSlot, kRootLabelsSlot, kFirstsSlot}};
constexpr TextureSlot kBoxCopiesSlot{"boxCopies", 0};
constexpr TextureSlot kSumCopiesSlot{"sumCopies", 1};
constexpr TextureSlot kRootCopiesSlot{"rootCopies", 2};
const ProgramSpec kComponentTableFold{"component_table_fold", "fullscreen.vert", "component_table_fold.frag",
                                      {"box", "sums", "root"}, {kBoxCopiesSlot, kSumCopiesSlot, kRootCopiesSlot}};
// Draw buffers of the table's framebuffer.
constexpr GLuint kBoxes = 0, kSums = 1, kRoots = 2;
}  // namespace

ComponentTablePass::ComponentTablePass() {
    GLint major = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    es_ = gl::isEs();
    perDrawBufferBlend_ = !es_ && major >= 4;
}

int ComponentTablePass::slotsPerSegment(const PassContext& context, const gl::RenderTarget& firsts,
                                        const gl::RenderTarget& most) {
    auto& mark = context.programs.use(kComponentTableFirsts);
    mark.set("quadDepth", 0.0f);
    beginPass(firsts);
    setRenderState({});
    drawFullscreen();

    beginPass(most);
    const float zero[4] = {0, 0, 0, 0};
    glClearBufferfv(GL_COLOR, 0, zero);
    setRenderState({GL_MAX});
    bindTexture(kFirstsSlot, firsts.texture);
    context.programs.use(kComponentTableMost);
    drawPoints(std::int64_t(firsts.width()) * firsts.height());
    float slots = 0;
    gl::readTextureRect(most.texture, 0, 0, 1, 1, GL_RED, GL_FLOAT, &slots);
    countWait();
    return std::max(1, int(slots));
}

void ComponentTablePass::run(const PassContext& context, const LabeledGrid& grid, const TableTargets& table,
                             Points points, const gl::RenderTarget& firsts, const gl::RenderTarget& most,
                             const Copies& copies) {
    auto scope = context.timer.scope(kStage);
    bindTexture(kNodeGraphSlot, grid.nodeGraph);
    bindTexture(kIdsSlot, grid.ids);
    std::int64_t vertices = std::int64_t(grid.grid.gridWidth) * grid.grid.gridHeight;
    int slots = 0;
    if (points == Points::Slots) {
        slots = slotsPerSegment(context, firsts, most);
        vertices = std::int64_t(firsts.width()) * firsts.height() * slots;
    }
    auto& program = context.programs.use(points == Points::Slots  ? kComponentTableSlots
                                         : points == Points::Runs ? kComponentTableRuns
                                                                  : kComponentTable);
    if (points == Points::Slots) program.set("slots", slots);
    const bool spread = copies.count > 1;
    const TableTargets& target = spread ? copies.targets : table;
    const int rows = spread ? copies.rows : table.height;
    program.set("tableSize", table.width, rows);
    program.set("tableSpread", copies.count);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target.framebuffer.id());
    setViewport(table.width, rows * copies.count);
    setRenderState({GL_MAX});
    const float zero[4] = {0, 0, 0, 0};
    for (GLint target : {kBoxes, kSums, kRoots}) glClearBufferfv(GL_COLOR, target, zero);
    bindTexture(kRootLabelsSlot, grid.rootLabels);
    if (perDrawBufferBlend_) {
        glBlendEquationi(kBoxes, GL_MAX);
        glBlendEquationi(kSums, GL_FUNC_ADD);
        glBlendEquationi(kRoots, GL_MAX);
        drawPoints(vertices);
    } else if (es_) {
        // ES 3.0 has neither per-draw-buffer blending nor per-draw-buffer
        // masks: the draw buffers themselves say which targets each draw
        // writes.
        const GLenum boxesAndRoots[] = {GL_COLOR_ATTACHMENT0, GL_NONE, GL_COLOR_ATTACHMENT2};
        const GLenum sumsAlone[] = {GL_NONE, GL_COLOR_ATTACHMENT1, GL_NONE};
        const GLenum all[] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1, GL_COLOR_ATTACHMENT2};
        glDrawBuffers(3, boxesAndRoots);
        drawPoints(vertices);
        glBlendEquation(GL_FUNC_ADD);
        glDrawBuffers(3, sumsAlone);
        drawPoints(vertices);
        glDrawBuffers(3, all);
    } else {
        // Boxes and roots with the sums masked, then the sums alone.
        glColorMaski(kSums, GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        drawPoints(vertices);
        glBlendEquation(GL_FUNC_ADD);
        glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        glColorMaski(kSums, GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        drawPoints(vertices);
    }
    if (spread) {
        // The copies folded into the table's first rows, every texel written.
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, table.framebuffer.id());
        setViewport(table.width, copies.rows);
        setRenderState({});
        auto& fold = context.programs.use(kComponentTableFold);
        fold.set("quadDepth", 0.0f);
        fold.set("spread", copies.count);
        fold.set("tableRows", copies.rows);
        bindTexture(kBoxCopiesSlot, copies.targets.boxes.texture);
        bindTexture(kSumCopiesSlot, copies.targets.sums.texture);
        bindTexture(kRootCopiesSlot, copies.targets.roots.texture);
        drawFullscreen();
    }
    context.checkPass(kStage);
}

}  // namespace glccl::raster

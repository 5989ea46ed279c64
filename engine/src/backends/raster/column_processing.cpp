#include "column_processing.hpp"

#include <algorithm>

namespace glccl::raster {

namespace {
constexpr TextureSlot kColumnsSlot{"columns", 1};
constexpr TextureSlot kRootsSlot{"roots", 1};
constexpr const char* kBlockWidth = "blockWidth";
constexpr const char* kColumnInBlock = "columnInBlock";
constexpr const char* kColumnGroup = "columnGroup";
constexpr const char* kScatterGroup = "scatterGroup";
const ProgramSpec kGather{"column_processing_gather", "column_processing_gather.vert", "write_scatter.frag",
                          {"fragColor"}, {kColumnsSlot}};
const ProgramSpec kUpdate{"column_processing_update", "column_processing_update.vert",
                          "column_processing_update.frag", {"fragColor"}, {kRootsSlot}};
const ProgramSpec kColumnProcessingScatter{"column_processing_scatter", "column_processing_scatter.vert", "write_scatter.frag",
                           {"fragColor"}, {kColumnsSlot}};
const ProgramSpec kAccumulatedGather{"column_processing_gather", "column_processing_gather.vert", "write_scatter.frag",
                                    {"fragColor"}, {kColumnsSlot}, {"COLUMN_ACCUMULATORS"}};
constexpr TextureSlot kOddColumnsSlot{"oddColumns", 2};
const ProgramSpec kMerge{"column_processing_merge", "fullscreen.vert", "column_processing_merge.frag", {"fragColor"},
                         {kColumnsSlot, kOddColumnsSlot}};
const ProgramSpec kScatterAll{"column_processing_scatter", "column_processing_scatter.vert", "write_scatter.frag",
                              {"fragColor"}, {kColumnsSlot, kOddColumnsSlot}, {"COLUMN_ACCUMULATORS", "ALL_COLUMNS"}};
const ProgramSpec kPoints{"column_processing_points", "column_processing_points.vert", "write_scatter.frag",
                          {"fragColor"}, {kColumnsSlot}};

// Update column: reads A, writes column `column` of every block into B.
void updateColumn(gl::Program& update, int column, int blocks, const gl::RenderTarget& roots,
                  const gl::RenderTarget& columns) {
    beginPass(columns);
    bindTexture(kRootsSlot, roots.texture);
    glDisable(GL_BLEND);
    update.use();
    update.set(kColumnInBlock, column);
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, blocks);
    ++issuedWork().draws;
    issuedWork().fragments += std::int64_t(blocks) * columns.height();
}

// A draw of `count` points that reads B, blends into A and marks every root
// it changes (depth 1.0): scatter back, or the fused draw below.
void drawMarkingPoints(gl::Program& program, int column, std::int64_t count, const gl::RenderTarget& roots,
                       const gl::RenderTarget& columns) {
    beginPass(roots);
    bindTexture(kColumnsSlot, columns.texture);
    glEnable(GL_BLEND);
    glEnable(GL_DEPTH_TEST);
    glDepthMask(GL_TRUE);
    program.use();
    program.set(kColumnInBlock, column);
    drawPoints(count);
    glDepthMask(GL_FALSE);
    glDisable(GL_DEPTH_TEST);
}

// Scatter back of column `column` (none for column 0) and gather neighbour of
// column + 1 (none past the block) in one draw.
void drawFusedPoints(gl::Program& points, int column, int blockWidth, std::int64_t gatherVertices,
                     std::int64_t scatterVertices, const gl::RenderTarget& roots, const gl::RenderTarget& columns) {
    drawMarkingPoints(points, column,
                      (column > 0 ? scatterVertices : 0) + (column + 1 < blockWidth ? gatherVertices : 0), roots,
                      columns);
}
}  // namespace

void ColumnProcessingPass::run(const PassContext& context, const gl::Texture& nodeGraph, int blockWidth,
                               const gl::RenderTarget& roots, const gl::RenderTarget& columns, bool fusedPoints,
                               int group, int scatterGroup) {
    auto scope = context.timer.scope(kStage);
    const int blocks = ceilDiv(roots.width(), blockWidth);
    // One vertex per `group` nodes of a column of every block (the scatter
    // back's per `scatterGroup`).
    const std::int64_t columnVertices = std::int64_t(blocks) * ceilDiv(roots.height(), group);
    const std::int64_t scatterVertices = std::int64_t(blocks) * ceilDiv(roots.height(), scatterGroup);
    auto& gather = context.programs.use(kGather);
    auto& update = context.programs.use(kUpdate);
    auto& scatter = context.programs.use(kColumnProcessingScatter);
    auto& points = context.programs.use(kPoints);
    for (auto* program : {&gather, &update, &scatter, &points}) program->set(kBlockWidth, blockWidth);
    for (auto* program : {&gather, &scatter, &points}) program->set(kColumnGroup, group);
    for (auto* program : {&scatter, &points}) program->set(kScatterGroup, scatterGroup);
    bindTexture(kNodeGraphSlot, nodeGraph);

    // No root is marked yet: scatter-back marks at depth 1.0.
    beginPass(roots);
    setRenderState({GL_NONE, GL_NONE, true});
    // glClearBufferfv rather than glClearDepth: ES has only glClearDepthf,
    // which desktop 3.3 lacks.
    const float unmarked = 0.0f;
    glClearBufferfv(GL_DEPTH, 0, &unmarked);
    // Gather's state; the loop switches what update column and scatter-back change.
    setRenderState({GL_MAX, GL_NONE, false});
    glDepthFunc(GL_ALWAYS);
    if (fusedPoints) {
        drawFusedPoints(points, 0, blockWidth, columnVertices, scatterVertices, roots, columns);
        for (int column = 1; column < blockWidth; ++column) {
            updateColumn(update, column, blocks, roots, columns);
            drawFusedPoints(points, column, blockWidth, columnVertices, scatterVertices, roots, columns);
        }
        context.checkPass(kStage);
        return;
    }
    for (int column = 1; column < blockWidth; ++column) {
        // Gather neighbour: reads B, blends into A.
        beginPass(roots);
        bindTexture(kColumnsSlot, columns.texture);
        glEnable(GL_BLEND);
        gather.use();
        gather.set(kColumnInBlock, column);
        drawPoints(columnVertices);

        updateColumn(update, column, blocks, roots, columns);

        drawMarkingPoints(scatter, column, scatterVertices, roots, columns);
    }
    context.checkPass(kStage);
}

void ColumnProcessingPass::runAccumulated(const PassContext& context, const gl::Texture& nodeGraph, int blockWidth,
                                          const gl::RenderTarget& merged, const gl::RenderTarget& odd,
                                          const gl::RenderTarget& even, int group, int scatterGroup) {
    auto scope = context.timer.scope(kStage);
    const int blocks = ceilDiv(merged.width(), blockWidth);
    const std::int64_t columnVertices = std::int64_t(blocks) * ceilDiv(merged.height(), group);
    const int columns = std::min(blockWidth, merged.width());  // in the block
    auto& gather = context.programs.use(kAccumulatedGather);
    gather.set(kBlockWidth, blockWidth);
    gather.set(kColumnGroup, group);
    bindTexture(kNodeGraphSlot, nodeGraph);
    setRenderState({GL_MAX});
    const gl::RenderTarget* parities[2] = {&even, &odd};
    for (int column = 1; column < columns; ++column) {
        // Gather neighbour: reads the previous column's parity, blends into this one's.
        beginPass(*parities[column % 2]);
        bindTexture(kColumnsSlot, parities[1 - column % 2]->texture);
        gather.set(kColumnInBlock, column);
        drawPoints(columnVertices);
    }

    bindTexture(kColumnsSlot, even.texture);
    bindTexture(kOddColumnsSlot, odd.texture);
    auto& merge = context.programs.use(kMerge);
    merge.set(kBlockWidth, blockWidth);
    beginPass(merged);
    setRenderState({GL_NONE, GL_NONE, true});
    const float unmarked = 0.0f;
    glClearBufferfv(GL_DEPTH, 0, &unmarked);
    setRenderState({});
    drawFullscreen();

    // Scatter back, marking the roots it changes (depth 1.0).
    auto& scatter = context.programs.use(kScatterAll);
    scatter.set(kBlockWidth, blockWidth);
    scatter.set(kScatterGroup, scatterGroup);
    setRenderState({GL_MAX, GL_ALWAYS, true});
    drawPoints(std::int64_t(blocks) * ceilDiv(merged.height(), scatterGroup) * (columns - 1));
    setRenderState({});
    context.checkPass(kStage);
}

}  // namespace glccl::raster

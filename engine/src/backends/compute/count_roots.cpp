#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::compute {

namespace {
// Its work group size follows the grid's width (countRootsThreads).
const ProgramSpec kCountRoots{CountRootsPass::kStage, [](gl::ProgramBuilder& builder, int lineThreads) {
                                  builder.define("LINE_THREADS", lineThreads);
                              }};
const ProgramSpec kCountRootsVolume{CountRootsPass::kStage,
                                    [](gl::ProgramBuilder& builder, int lineThreads) {
                                        builder.define("LINE_THREADS", lineThreads);
                                    },
                                    "count_roots_volume_grid.comp"};
}  // namespace

// glsl/count_roots.comp (count_roots_volume_grid.comp): one work group per
// node line ranks its roots; the last group to finish numbers the lines. The
// count is read back: label() returns it, and the table is sized by it.
std::uint32_t CountRootsPass::run(const PassContext& context) {
    const ComputeResources& r = context.resources;
    // Bundle nodes are a word's runs, not one node per grid cell: their roots
    // are flattened first and ranked a bundle row at a time.
    if (r.bundles) return runBundles(context);
    {
        auto scope = context.timer.scope(kStage);
        context.programs.use(r.volume ? kCountRootsVolume : kCountRoots, r, countRootsThreads(r.gridWidth));
        bindNodeData(r);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLineCountsBuffer, r.lineCounts.id());
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLineOffsetsBuffer, r.lineOffsets.id());
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kGroupsDoneBuffer, r.groupsDone.id());
        // A volume: one work group per node line (y, z).
        dispatch(r.gridHeight, r.gridDepth);
        context.checkPass(kStage);
    }
    return readCount(r);
}

std::uint32_t CountRootsPass::readCount(const ComputeResources& r) {
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    std::uint32_t count = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, r.lineOffsets.id());
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, GLintptr(r.lines()) * 4, 4, &count);
    return count;
}

}  // namespace glccl::compute

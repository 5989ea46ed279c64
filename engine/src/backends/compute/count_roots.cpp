#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::backends::compute {

// glsl/count_roots.comp: one work group per node row ranks its roots; the
// last group to finish numbers the rows. The count is read back: label()
// returns it, and the table is sized by it.
std::uint32_t countRoots(Frame& frame) {
    const ComputeResources& r = frame.resources;
    {
        auto scope = frame.timer.scope("count_roots");
        frame.programs.use("count_roots", r);
        bindNodeData(r);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kRowCountsBuffer, r.rowCounts.id());
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kRowOffsetsBuffer, r.rowOffsets.id());
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kGroupsDoneBuffer, r.groupsDone.id());
        dispatch(r.gridHeight, 1);
    }
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    std::uint32_t count = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, r.rowOffsets.id());
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, GLintptr(r.height) * 4, 4, &count);
    return count;
}

}  // namespace glccl::backends::compute

#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::backends::compute {

// glsl/scan_rows.comp: one work group scans the rows' root counts. The
// count is read back: label() returns it, and the table is sized by it.
std::uint32_t scanRows(Frame& frame) {
    const ComputeResources& r = frame.resources;
    {
        auto scope = frame.timer.scope("scan_rows");
        frame.programs.use("scan_rows", r);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kRowCountsBuffer, r.rowCounts.id());
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kRowOffsetsBuffer, r.rowOffsets.id());
        dispatch(1, 1);
    }
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    std::uint32_t count = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, r.rowOffsets.id());
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, GLintptr(r.height) * 4, 4, &count);
    return count;
}

}  // namespace glccl::backends::compute

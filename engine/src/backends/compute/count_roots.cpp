#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::backends::compute {

// glsl/count_roots.comp: one work group per node row ranks its roots.
void countRoots(Frame& frame) {
    auto scope = frame.timer.scope("count_roots");
    frame.programs.use("count_roots", frame.resources);
    bindNodeImages(frame.resources, GL_READ_WRITE);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kRowCountsBuffer, frame.resources.rowCounts.id());
    dispatch(frame.resources.gridHeight, 1);
}

}  // namespace glccl::backends::compute

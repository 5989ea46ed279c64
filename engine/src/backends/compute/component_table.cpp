#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::backends::compute {

// glsl/component_table.comp: boxes, areas and sums, reduced per tile first.
void componentTable(Frame& frame) {
    auto scope = frame.timer.scope("component_table");
    const ComputeResources& r = frame.resources;
    frame.programs.use("component_table", r);
    bindNodeImages(r, GL_READ_ONLY);
    glBindImageTexture(kTableImage, r.table.id(), 0, GL_TRUE, 0, GL_READ_WRITE, GL_R32UI);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kRowOffsetsBuffer, r.rowOffsets.id());
    dispatch(tilesAcross(r), tilesDown(r));
}

}  // namespace glccl::backends::compute

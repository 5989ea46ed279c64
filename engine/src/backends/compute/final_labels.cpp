#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::backends::compute {

// glsl/final_labels.comp: every pixel takes its component's number, and the
// component table is summed on the way (reduced per label tile first).
void finalLabels(Frame& frame, const gl::Texture& labels, std::uint32_t count) {
    auto scope = frame.timer.scope("final_labels");
    ComputeResources& r = frame.resources;
    r.tableDirty = count;
    frame.programs.use("final_labels", r);
    bindNodeData(r);
    glBindImageTexture(kLabelsImage, labels.id(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32UI);
    glBindImageTexture(kTableImage, r.table.id(), 0, GL_TRUE, 0, GL_READ_WRITE, GL_R32UI);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kRowOffsetsBuffer, r.rowOffsets.id());
    dispatch(labelTilesAcross(r), labelTilesDown(r));
}

}  // namespace glccl::backends::compute

#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::compute {

namespace {
// final_labels reads the finished parents.
const ProgramSpec kFinalLabelsVolume{FinalLabelsPass::kStage,
                                     [](gl::ProgramBuilder& builder, int) { builder.define("PARENTS_READONLY"); },
                                     "final_labels_volume.comp", "volume_nodes.glsl", false};
}  // namespace

// glsl/final_labels_volume.comp: every voxel of a binary volume takes its
// component's number, and the table is summed on the way (reduced per
// label brick first).
void FinalLabelsPass::runVolume(const PassContext& context, const gl::Texture& labels, std::uint32_t count) {
    auto scope = context.timer.scope(kStage);
    ComputeResources& r = context.resources;
    r.tableDirty = count;
    r.tableDirtyZ = count;
    context.programs.use(kFinalLabelsVolume, r);
    bindNodeData(r);
    bindImage(kLabelsImage, labels, GL_WRITE_ONLY, GL_R32UI);
    glBindImageTexture(kTableImage, r.table.id(), 0, GL_TRUE, 0, GL_READ_WRITE, GL_R32UI);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLineOffsetsBuffer, r.lineOffsets.id());
    dispatch(labelBricks(r));
    context.checkPass(kStage);
}

}  // namespace glccl::compute

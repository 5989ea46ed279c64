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
// label patch first).
void FinalLabelsPass::runVolume(const PassContext& context, const gl::Texture& labels, std::uint32_t count) {
    label(context, kFinalLabelsVolume, bundleLabelPatches(context.resources), labels, count);
}

}  // namespace glccl::compute

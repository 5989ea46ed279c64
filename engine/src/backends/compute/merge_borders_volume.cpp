#include "compute_passes.hpp"

namespace glccl::compute {

namespace {
const ProgramSpec kMergeBordersVolume{MergeBordersPass::kStage, [](gl::ProgramBuilder&, int) {},
                                      "merge_borders_volume.comp", "volume_nodes.glsl", false};
}  // namespace

// glsl/merge_borders_volume.comp: the links that leave each patch of a
// binary volume, as global unions, one work group per patch.
void MergeBordersPass::runVolume(const PassContext& context) {
    auto scope = context.timer.scope(kStage);
    const ComputeResources& r = context.resources;
    context.programs.use(kMergeBordersVolume, r);
    bindNodeData(r);
    dispatch(bundlePatches(r));
    context.checkPass(kStage);
}

}  // namespace glccl::compute

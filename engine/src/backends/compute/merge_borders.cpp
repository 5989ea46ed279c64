#include "compute_passes.hpp"

namespace glccl::compute {

namespace {
// The programs of local_merge's three node kinds (local_merge.cpp says why
// they differ). Bundle nodes link by the bits local_merge left: that program
// reads no samples.
const ProgramSpec kMergeBorders{MergeBordersPass::kStage, [](gl::ProgramBuilder&, int) {}, nullptr, nullptr, true};
const ProgramSpec kMergeBordersVolume{MergeBordersPass::kStage, [](gl::ProgramBuilder&, int) {},
                                      "merge_borders_volume_grid.comp", nullptr, true};
const ProgramSpec kMergeBordersBundles{MergeBordersPass::kStage, [](gl::ProgramBuilder&, int) {},
                                       "merge_borders_volume.comp", "volume_nodes.glsl"};
}  // namespace

// glsl/merge_borders.comp (merge_borders_volume_grid.comp,
// merge_borders_volume.comp): the links that leave each patch, as global
// unions.
void MergeBordersPass::run(const PassContext& context, const gl::Texture& input) {
    auto scope = context.timer.scope(kStage);
    const ComputeResources& r = context.resources;
    gl::Program& program =
        context.programs.use(r.bundles ? kMergeBordersBundles : r.volume ? kMergeBordersVolume : kMergeBorders, r);
    if (!r.bundles) bindInput(program, input);
    bindNodeData(r);
    dispatch(r.bundles ? bundlePatches(r) : patches(r));
    context.checkPass(kStage);
}

}  // namespace glccl::compute

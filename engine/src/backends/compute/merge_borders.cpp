#include "compute_passes.hpp"

namespace glccl::compute {

namespace {
const ProgramSpec kMergeBorders{MergeBordersPass::kStage, [](gl::ProgramBuilder&, int) {}};
const ProgramSpec kMergeBordersVolume{MergeBordersPass::kStage, [](gl::ProgramBuilder&, int) {},
                                      "merge_borders_volume_grid.comp"};
}  // namespace

// glsl/merge_borders.comp: the links that cross patch borders, as global
// unions.
void MergeBordersPass::run(const PassContext& context, const gl::Texture& input) {
    auto scope = context.timer.scope(kStage);
    const ComputeResources& r = context.resources;
    bindInput(context.programs.use(r.volume ? kMergeBordersVolume : kMergeBorders, r), input);
    bindNodeData(r);
    dispatch(patches(r));
    context.checkPass(kStage);
}

}  // namespace glccl::compute

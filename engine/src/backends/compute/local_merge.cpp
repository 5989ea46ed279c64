#include <algorithm>

#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::compute {

namespace {
// One stage, three programs: the node grid of an image (2x2 blocks gathered
// from the texture), of a volume (3-D textures have no gather; 13 backward
// neighbours) and a binary volume's bundle nodes (runs of bit words, whose
// links bit operations find a word at a time). local_merge writes parents
// (and the bundles' bits and foreground) and never reads them from memory.
const ProgramSpec kLocalMerge{LocalMergePass::kStage,
                              [](gl::ProgramBuilder& builder, int) { builder.define("PARENTS_WRITEONLY"); }, nullptr,
                              nullptr, true};
const ProgramSpec kLocalMergeVolume{LocalMergePass::kStage,
                                    [](gl::ProgramBuilder& builder, int) { builder.define("PARENTS_WRITEONLY"); },
                                    "local_merge_volume_grid.comp", nullptr, true};
const ProgramSpec kLocalMergeBundles{LocalMergePass::kStage,
                                     [](gl::ProgramBuilder& builder, int) {
                                         builder.define("PARENTS_WRITEONLY").define("NODES_WRITEONLY");
                                     },
                                     "local_merge_volume.comp", "volume_nodes.glsl", true};
}  // namespace

// glsl/local_merge.comp (local_merge_volume_grid.comp, local_merge_volume.comp):
// each node's foreground, then union-find inside each patch in shared
// memory. On the way it zeroes the table entries the last labeling summed
// into (ComputeResources::tableDirty), so that final_labels' sums start from
// zero without a pass of their own.
void LocalMergePass::run(const PassContext& context, const gl::Texture& input) {
    auto scope = context.timer.scope(kStage);
    ComputeResources& r = context.resources;
    gl::Program& program =
        context.programs.use(r.bundles ? kLocalMergeBundles : r.volume ? kLocalMergeVolume : kLocalMerge, r);
    bindInput(program, input);
    bindNodeData(r);
    // A volume's pass zeroes the z fields too, of the entries any volume
    // summed into.
    program.set("clearCount", unsigned(r.volume ? std::max(r.tableDirty, r.tableDirtyZ) : r.tableDirty));
    glBindImageTexture(kTableImage, r.table.id(), 0, GL_TRUE, 0, GL_WRITE_ONLY, GL_R32UI);
    dispatch(r.bundles ? bundlePatches(r) : patches(r));
    if (r.volume) r.tableDirtyZ = 0;
    r.tableDirty = 0;
    context.checkPass(kStage);
}

}  // namespace glccl::compute

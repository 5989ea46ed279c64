#include <algorithm>

#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::compute {

namespace {
// local_merge writes bits, foreground and parents and never reads them from
// memory.
const ProgramSpec kLocalMergeVolume{LocalMergePass::kStage,
                                    [](gl::ProgramBuilder& builder, int) {
                                        builder.define("PARENTS_WRITEONLY").define("NODES_WRITEONLY");
                                    },
                                    "local_merge_volume.comp", "volume_nodes.glsl"};
}  // namespace

// glsl/local_merge_volume.comp: a binary volume's bits and bundle nodes, one
// work group per patch, united in shared memory. On the way it zeroes the
// table entries the last labelings summed into, z fields included, as
// local_merge.comp does.
void LocalMergePass::runVolume(const PassContext& context, const gl::Texture& input) {
    auto scope = context.timer.scope(kStage);
    ComputeResources& r = context.resources;
    gl::Program& program = context.programs.use(kLocalMergeVolume, r);
    bindInput(program, input);
    bindNodeData(r);
    program.set("clearCount", unsigned(std::max(r.tableDirty, r.tableDirtyZ)));
    glBindImageTexture(kTableImage, r.table.id(), 0, GL_TRUE, 0, GL_WRITE_ONLY, GL_R32UI);
    dispatch(bundlePatches(r));
    r.tableDirty = 0;
    r.tableDirtyZ = 0;
    context.checkPass(kStage);
}

}  // namespace glccl::compute

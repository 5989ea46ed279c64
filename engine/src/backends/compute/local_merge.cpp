#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::backends::compute {

// glsl/local_merge.comp: each node's foreground mask, then union-find inside
// each tile in shared memory. On the way it zeroes the table entries the
// last labeling summed into (ComputeResources::tableDirty), so that
// final_labels' sums start from zero without a pass of their own.
void localMerge(Frame& frame, const gl::Texture& input) {
    auto scope = frame.timer.scope("local_merge");
    ComputeResources& r = frame.resources;
    gl::Program& program = frame.programs.use("local_merge", r);
    bindInput(program, input);
    bindNodeData(r);
    program.set("clearCount", unsigned(r.tableDirty));
    glBindImageTexture(kTableImage, r.table.id(), 0, GL_TRUE, 0, GL_WRITE_ONLY, GL_R32UI);
    dispatch(tilesAcross(r), tilesDown(r));
    r.tableDirty = 0;
}

}  // namespace glccl::backends::compute

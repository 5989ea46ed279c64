#include "compute_passes.hpp"

namespace glccl::backends::compute {

// glsl/local_merge.comp: each node's foreground mask, then union-find inside
// each tile in shared memory.
void localMerge(Frame& frame, const gl::Texture& input) {
    auto scope = frame.timer.scope("local_merge");
    bindInput(frame.programs.use("local_merge", frame.resources), input);
    bindNodeImages(frame.resources, GL_WRITE_ONLY);
    dispatch(tilesAcross(frame.resources), tilesDown(frame.resources));
}

}  // namespace glccl::backends::compute

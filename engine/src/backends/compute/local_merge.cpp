#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::backends::compute {

// glsl/local_merge.comp: the criterion per node, then union-find inside each
// tile in shared memory.
void localMerge(Frame& frame, const gl::Texture& input) {
    auto scope = frame.timer.scope("local_merge");
    gl::Program& program = frame.programs.use("local_merge", frame.resources);
    program.set("inputImage", kInputUnit);
    glActiveTexture(GL_TEXTURE0 + kInputUnit);
    glBindTexture(GL_TEXTURE_2D, input.id());
    bindNodeImages(frame.resources, GL_WRITE_ONLY);
    dispatch(tilesAcross(frame.resources), tilesDown(frame.resources));
}

}  // namespace glccl::backends::compute

#include "compute_passes.hpp"

namespace glccl::backends::compute {

// glsl/merge_borders.comp: the links that cross tile borders, as global unions.
void mergeBorders(Frame& frame, const gl::Texture& input) {
    auto scope = frame.timer.scope("merge_borders");
    bindInput(frame.programs.use("merge_borders", frame.resources), input);
    bindNodeData(frame.resources);
    dispatch(tilesAcross(frame.resources), tilesDown(frame.resources));
}

}  // namespace glccl::backends::compute

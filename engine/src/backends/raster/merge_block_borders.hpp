#pragma once
#include "raster_pass.hpp"

namespace glccl::raster {

// merge_block_borders (merge_block_borders.vert, O'Connell §9): roots linked
// across the borders of column processing's blocks. The paper scatters
// across the borders; here each node beside a border links its root to a
// larger connected label, in rounds, then compresses.
class MergeBlockBordersPass {
public:
    static constexpr const char* kStage = "merge_block_borders";
    MergeBlockBordersPass() : query_(gl::Query::create()) {}
    // Labels in `ids` (compressed) on entry and exit; `scratch` is the
    // grid's size. Nothing to do with a single block. `rounds` 0: until a
    // round links nothing (an occlusion query, a wait for the GPU each
    // round); N: N rounds, unchecked (Tuning::rasterBorderRounds), and
    // resolve_links links what they leave.
    void run(const PassContext& context, const gl::Texture& nodeGraph, int blockWidth, const gl::RenderTarget& ids,
             const gl::RenderTarget& scratch, int rounds = 0);

private:
    gl::Query query_;
};

}  // namespace glccl::raster

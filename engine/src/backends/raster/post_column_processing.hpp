#pragma once
#include "raster_pass.hpp"

namespace glccl::raster {

// post_column_processing (post_column_processing.frag, O'Connell §6): the
// roots column processing marked, then every node, follow their pointers to
// their roots.
class PostColumnProcessingPass {
public:
    static constexpr const char* kStage = "post_column_processing";
    // `ids` is column processing's roots (A), `scratch` its columns (B): the
    // marked roots are updated from A into B, which holds every other node's
    // value, then every node of B is followed to its root, back into A.
    void run(const PassContext& context, const gl::RenderTarget& ids, const gl::RenderTarget& scratch);
    // Every node of `from` follows its pointers to its root, into `to`: the
    // compression step after each link round of the merging stages.
    static void compress(const PassContext& context, const gl::RenderTarget& from, const gl::RenderTarget& to);
};

}  // namespace glccl::raster

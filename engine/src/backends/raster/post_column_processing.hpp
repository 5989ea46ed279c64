#pragma once
#include "raster_pass.hpp"

namespace glccl::raster {

// post_column_processing (post_column_processing.frag, O'Connell §6): the
// roots column processing marked, then every node, follow their pointers to
// their roots.
class PostColumnProcessingPass {
public:
    static constexpr const char* kStage = "post_column_processing";
    // `roots` and `labels` are column processing's results, sharing the
    // depth buffer of marks: the marked roots are updated from `roots` into
    // `labels`, which holds every other node's value (or, with `evenColumns`,
    // the odd columns' values, the even columns' being there), then every
    // node is followed to its root, into `ids` (which may be `roots`).
    void run(const PassContext& context, const gl::RenderTarget& roots, const gl::RenderTarget& labels,
             const gl::RenderTarget& ids, const gl::RenderTarget* evenColumns = nullptr);
    // Every node of `from` follows its pointers to its root, into `to`: the
    // compression step after each link round of the merging stages.
    static void compress(const PassContext& context, const gl::RenderTarget& from, const gl::RenderTarget& to);
    // The same into both draw buffers of `to` (the grid's size); with
    // `markedOnly`, only the nodes marked in its depth buffer (1.0).
    static void compressTwice(const PassContext& context, const gl::RenderTarget& from, const gl::Framebuffer& to,
                              bool markedOnly = false);
    // Every node of `from` to its root's value, two fetches, into `to`: after
    // resolve_links' rounds that follow the marked roots only, where every
    // node holds a marked root and every marked root its root.
    static void compressTileRoots(const PassContext& context, const gl::RenderTarget& from,
                                  const gl::RenderTarget& to);
};

}  // namespace glccl::raster

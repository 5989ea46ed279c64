#pragma once
#include "raster_pass.hpp"

namespace glccl::raster {

// column_processing (O'Connell §5 and §9): vertical runs merged left to
// right, column by column, in every block of `blockWidth` columns at once.
// Per column: gather neighbour, update column, scatter back
// (column_processing_gather.vert, column_processing_update.vert/.frag,
// column_processing_scatter.vert), the paper's two-texture ping-pong of its
// Fig. 5.7:
//
//     roots   (A): blended into by gather and scatter-back (GL_MAX);
//                  its depth buffer marks the roots scatter-back changed
//     columns (B): the processed columns, rewritten by update column
//
//     block 0          block 1          ...
//     | c0 c1 .. cW-1 | c0 c1 .. cW-1 |      column c of every block per step
class ColumnProcessingPass {
public:
    static constexpr const char* kStage = "column_processing";
    // `roots` and `columns` both hold the vertical runs on entry and share
    // the depth buffer of root marks. With `fusedPoints`, scatter back of
    // column c and gather neighbour of column c + 1 are one draw
    // (column_processing_points.vert, Tuning::rasterColumnDraws 2): two
    // draws a column instead of three, the same vertices. Each point draw
    // has a vertex per `group` nodes (consecutive rows) of a column
    // (Tuning::rasterColumnGroup), which raises one root for the group: a
    // group-th of the vertices, some links left to resolve_links.
    void run(const PassContext& context, const gl::Texture& nodeGraph, int blockWidth, const gl::RenderTarget& roots,
             const gl::RenderTarget& columns, bool fusedPoints, int group);
};

}  // namespace glccl::raster

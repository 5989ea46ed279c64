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
    // group-th of the vertices, some links left to resolve_links. The
    // scatter back's vertices are per `scatterGroup` nodes
    // (Tuning::rasterScatterGroup), the gathers' per `group`.
    void run(const PassContext& context, const gl::Texture& nodeGraph, int blockWidth, const gl::RenderTarget& roots,
             const gl::RenderTarget& columns, bool fusedPoints, int group, int scatterGroup);
    // One draw a column (Tuning::rasterColumnDraws 1): no update column.
    // The gathers into even columns blend into `even`, those into odd
    // columns into `odd`, so the gather into column c reads column c - 1's
    // labels from the texture it does not draw into: its run tops, still
    // the vertical runs there, and their values (column_processing.glsl,
    // COLUMN_ACCUMULATORS). After the last column, every node's value from
    // its column's texture is drawn into `merged` (column_processing_merge.frag)
    // and one draw scatters back every column into it, marking the roots it
    // raises. `odd` and `even` hold the vertical runs on entry; `merged`
    // and `odd` share the depth buffer of root marks.
    void runAccumulated(const PassContext& context, const gl::Texture& nodeGraph, int blockWidth,
                        const gl::RenderTarget& merged, const gl::RenderTarget& odd, const gl::RenderTarget& even,
                        int group, int scatterGroup);
};

}  // namespace glccl::raster

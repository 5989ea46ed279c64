#pragma once
#include "raster_pass.hpp"

namespace glccl::raster {

// component_table (component_table[_runs].vert, component_table.frag, O'Connell §7): boxes, areas
// and coordinate sums scattered into the compact table, entry k - 1 for
// label k. Boxes keep maxima (GL_MAX), sums add (GL_FUNC_ADD): one draw where
// blending can differ per draw buffer (OpenGL 4.0), two masked draws of the
// same program in a 3.3 context.
class ComponentTablePass {
public:
    static constexpr const char* kStage = "component_table";
    ComponentTablePass();
    // `byRuns`: a point per run of one root along a row segment
    // (component_table_runs.vert, Tuning::rasterTable runs), found from two
    // texels a vertex; otherwise a point per root and segment, found by
    // walking the segment.
    void run(const PassContext& context, const LabeledGrid& grid, const TableTargets& table, bool byRuns = false);

private:
    bool perDrawBufferBlend_ = false;  // glBlendEquationi: OpenGL 4.0
    bool es_ = false;                  // OpenGL ES: draw buffers select the targets
};

}  // namespace glccl::raster

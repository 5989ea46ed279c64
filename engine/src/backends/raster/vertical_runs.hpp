#pragma once
#include "raster_pass.hpp"

namespace glccl::raster {

// vertical_runs (vertical_runs.frag, O'Connell §4): IDs encoded, and every
// node pointed at the top of its vertical run by pointer jumping, `hops`
// hops per pass (RasterPipeline::runHops, Tuning::rasterRunHops).
class VerticalRunsPass {
public:
    static constexpr const char* kStage = "vertical_runs";
    // Passes that take every node of a grid `height` nodes high to the top
    // of its run, `hops` more each.
    static int passesFor(int height, int hops);
    // Writes the runs into `runs` and a copy into `copy` (column processing
    // reads one and blends into the other); both are the grid's size.
    void run(const PassContext& context, const gl::Texture& nodeGraph, const gl::RenderTarget& runs,
             const gl::RenderTarget& copy, int hops = kHops);
    // Writes the runs into both draw buffers of `both` (column processing's
    // two textures with one draw a column) in the last pass, so no copy.
    // The passes before ping-pong between `last`, which the last pass
    // reads (not in `both`), and `earlier` (which may be in `both`); all
    // are the grid's size.
    void runInto(const PassContext& context, const gl::Texture& nodeGraph, const gl::Framebuffer& both,
                 const gl::RenderTarget& last, const gl::RenderTarget& earlier, int hops = kHops);
};

}  // namespace glccl::raster

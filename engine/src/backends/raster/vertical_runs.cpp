#include "vertical_runs.hpp"

namespace glccl::raster {

namespace {
const ProgramSpec kVerticalRuns{"vertical_runs", "fullscreen.vert", "vertical_runs.frag", {"fragColor"}, {kIdsSlot}};
}  // namespace

void VerticalRunsPass::run(const PassContext& context, const gl::Texture& nodeGraph, const gl::RenderTarget& runs,
                           const gl::RenderTarget& copy, int hops) {
    auto scope = context.timer.scope(kStage);
    setRenderState({});
    auto& program = context.programs.use(kVerticalRuns);
    bindTexture(kNodeGraphSlot, nodeGraph);
    // Each pass multiplies the distance covered by `hops`.
    program.set("hops", hops);
    int passes = 1;
    for (std::int64_t reach = hops; reach < runs.height() - 1; reach *= hops) ++passes;
    // Ping-pong between the two targets, so that the last pass writes `runs`.
    const gl::RenderTarget* targets[2] = {&runs, &copy};
    for (int pass = 0; pass < passes; ++pass) {
        const int target = (passes - 1 - pass) % 2;
        beginPass(*targets[target]);
        bindTexture(kIdsSlot, targets[1 - target]->texture);
        program.set("passIndex", pass);
        drawFullscreen();
    }
    copyTarget(runs, copy);
    context.checkPass(kStage);
}

}  // namespace glccl::raster

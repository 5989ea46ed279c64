#include "vertical_runs.hpp"

namespace glccl::raster {

namespace {
const ProgramSpec kVerticalRuns{"vertical_runs", "fullscreen.vert", "vertical_runs.frag", {"fragColor"}, {kIdsSlot}};
const ProgramSpec kVerticalRunsTwice{"vertical_runs", "fullscreen.vert", "vertical_runs.frag", {"fragColor", "fragCopy"},
                                     {kIdsSlot}, {"TWO_TARGETS"}};

// Passes 0 .. count - 1 of `program`, each reading the other target's
// IDs, in ping-pong between `last` and `other` so that pass count - 1
// writes `last`.
void pingPong(gl::Program& program, const gl::RenderTarget& last, const gl::RenderTarget& other, int count) {
    const gl::RenderTarget* targets[2] = {&last, &other};
    for (int pass = 0; pass < count; ++pass) {
        const int target = (count - 1 - pass) % 2;
        beginPass(*targets[target]);
        bindTexture(kIdsSlot, targets[1 - target]->texture);
        program.set("passIndex", pass);
        drawFullscreen();
    }
}
}  // namespace

int VerticalRunsPass::passesFor(int height, int hops) {
    int passes = 1;
    for (std::int64_t reach = hops; reach < height - 1; reach *= hops) ++passes;
    return passes;
}

void VerticalRunsPass::run(const PassContext& context, const gl::Texture& nodeGraph, const gl::RenderTarget& runs,
                           const gl::RenderTarget& copy, int hops) {
    auto scope = context.timer.scope(kStage);
    setRenderState({});
    auto& program = context.programs.use(kVerticalRuns);
    bindTexture(kNodeGraphSlot, nodeGraph);
    // Each pass multiplies the distance covered by `hops`.
    program.set("hops", hops);
    pingPong(program, runs, copy, passesFor(runs.height(), hops));
    copyTarget(runs, copy);
    context.checkPass(kStage);
}

void VerticalRunsPass::runInto(const PassContext& context, const gl::Texture& nodeGraph, const gl::Framebuffer& both,
                               const gl::RenderTarget& last, const gl::RenderTarget& earlier, int hops) {
    auto scope = context.timer.scope(kStage);
    setRenderState({});
    auto& program = context.programs.use(kVerticalRuns);
    bindTexture(kNodeGraphSlot, nodeGraph);
    program.set("hops", hops);
    const int passes = passesFor(last.height(), hops);
    // The pass before the last writes `last`, the one before it `earlier`, and so on.
    pingPong(program, last, earlier, passes - 1);
    auto& twice = context.programs.use(kVerticalRunsTwice);
    twice.set("hops", hops);
    twice.set("passIndex", passes - 1);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, both.id());
    setViewport(last.width(), last.height());
    bindTexture(kIdsSlot, last.texture);
    drawFullscreen();
    context.checkPass(kStage);
}

}  // namespace glccl::raster

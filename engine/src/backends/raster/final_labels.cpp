#include "final_labels.hpp"

namespace glccl::raster {

namespace {
const ProgramSpec kFinalLabels{"final_labels", "fullscreen.vert", "final_labels.frag", {"fragLabel"},
                               {kIdsSlot, kRootLabelsSlot}};
}  // namespace

void FinalLabelsPass::run(const PassContext& context, const LabeledGrid& grid, const gl::Framebuffer& labels) {
    auto scope = context.timer.scope(kStage);
    setRenderState({});
    context.programs.use(kFinalLabels, {bindRootLabels(grid)});
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, labels.id());
    setViewport(grid.grid.width, grid.grid.height);
    bindTexture(kNodeGraphSlot, grid.nodeGraph);
    bindTexture(kIdsSlot, grid.ids);
    drawFullscreen();
    context.checkPass(kStage);
}

}  // namespace glccl::raster

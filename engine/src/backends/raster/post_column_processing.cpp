#include "post_column_processing.hpp"

namespace glccl::raster {

namespace {
constexpr const char* kQuadDepth = "quadDepth";
const ProgramSpec kFollowRoots{"post_column_processing", "fullscreen.vert", "post_column_processing.frag",
                               {"fragColor"}, {kIdsSlot}};
}  // namespace

void PostColumnProcessingPass::run(const PassContext& context, const gl::RenderTarget& ids,
                                   const gl::RenderTarget& scratch) {
    auto scope = context.timer.scope(kStage);
    auto& follow = context.programs.use(kFollowRoots);
    // Only the roots scatter-back marked (depth 1.0) pass GL_EQUAL.
    beginPass(scratch);
    bindTexture(kIdsSlot, ids.texture);
    setRenderState({GL_NONE, GL_EQUAL});
    follow.set(kQuadDepth, 1.0f);
    drawFullscreen();
    compress(context, scratch, ids);
    context.checkPass(kStage);
}

void PostColumnProcessingPass::compress(const PassContext& context, const gl::RenderTarget& from,
                                        const gl::RenderTarget& to) {
    auto& follow = context.programs.use(kFollowRoots);
    beginPass(to);
    bindTexture(kIdsSlot, from.texture);
    setRenderState({});
    follow.set(kQuadDepth, 0.0f);
    drawFullscreen();
}

}  // namespace glccl::raster

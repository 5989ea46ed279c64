#include "count_roots.hpp"

namespace glccl::raster {

namespace {
const ProgramSpec kCountRoots{"count_roots", "fullscreen.vert", "count_roots.frag", {}, {kIdsSlot}};
}  // namespace

std::uint32_t CountRootsPass::run(const PassContext& context, const gl::RenderTarget& ids,
                                  const gl::RenderTarget& scratch) {
    auto scope = context.timer.scope(kStage);
    context.programs.use(kCountRoots);
    beginPass(scratch);
    bindTexture(kIdsSlot, ids.texture);
    setRenderState({GL_NONE, GL_NONE, false, false});
    glBeginQuery(GL_SAMPLES_PASSED, query_.id());
    drawFullscreen();
    glEndQuery(GL_SAMPLES_PASSED);
    GLuint64 roots = 0;
    glGetQueryObjectui64v(query_.id(), GL_QUERY_RESULT, &roots);
    countWait();
    context.checkPass(kStage);
    return std::uint32_t(roots);
}

}  // namespace glccl::raster

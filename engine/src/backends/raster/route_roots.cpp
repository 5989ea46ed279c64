#include "route_roots.hpp"

#include <cmath>

namespace glccl::raster {

namespace {
constexpr TextureSlot kRoutedSlot{"routed", 1};
constexpr TextureSlot kRoutedLabelsSlot{"routedLabels", 2};
constexpr const char* kSide = "side";
const ProgramSpec kRoute{"route_roots", "route_roots.vert", "write_scatter.frag", {"fragColor"}, {kIdsSlot}};
const ProgramSpec kRank{"route_roots_rank", "fullscreen.vert", "route_roots_rank.frag", {"fragLabel"}, {kRoutedSlot}};
const ProgramSpec kRouteRootsScatter{"route_roots_scatter", "route_roots_scatter.vert", "write_label.frag", {"fragLabel"},
                           {kRoutedSlot, kRoutedLabelsSlot}};
}  // namespace

void RouteRootsPass::run(const PassContext& context, const gl::RenderTarget& ids, std::uint32_t roots,
                         const RoutingTargets& routing, const gl::RenderTarget& rootLabels) {
    if (roots == 0) return;
    auto scope = context.timer.scope(kStage);
    const int side = int(std::ceil(std::sqrt(double(roots))));

    // Stencil 1..M over the block, one texel at a time.
    beginPass(routing.routed);
    setRenderState({});
    const float zero[4] = {0, 0, 0, 0};
    glClearBufferfv(GL_COLOR, 0, zero);
    glStencilMask(0xFF);
    glEnable(GL_SCISSOR_TEST);
    for (std::uint32_t i = 0; i < roots; ++i) {
        glScissor(int(i) % side, int(i) / side, 1, 1);
        glClearStencil(GLint(i + 1));
        glClear(GL_STENCIL_BUFFER_BIT);
    }
    glDisable(GL_SCISSOR_TEST);

    // Every root a point over the whole block: the stencil lets one through per texel.
    auto& route = context.programs.use(kRoute);
    bindTexture(kIdsSlot, ids.texture);
    setViewport(side, side);
    glEnable(GL_STENCIL_TEST);
    glStencilFunc(GL_EQUAL, 1, 0xFF);
    glStencilOp(GL_DECR, GL_DECR, GL_DECR);
    if (context.es) {
        route.set("pointSize", float(side));
        drawPoints(std::int64_t(ids.width()) * ids.height());
    } else {
        glPointSize(float(side));
        drawPoints(std::int64_t(ids.width()) * ids.height());
        glPointSize(1.0f);
    }
    glDisable(GL_STENCIL_TEST);

    // Each routed root's rank in raster order: its label.
    auto& rank = context.programs.use(kRank);
    rank.set(kSide, side);
    rank.set("routedCount", int(roots));
    beginPass(routing.labels);
    setViewport(side, side);
    bindTexture(kRoutedSlot, routing.routed.texture);
    drawFullscreen();

    // The labels back to the roots' places.
    auto& scatter = context.programs.use(kRouteRootsScatter);
    scatter.set(kSide, side);
    beginPass(rootLabels);
    bindTexture(kRoutedSlot, routing.routed.texture);
    bindTexture(kRoutedLabelsSlot, routing.labels.texture);
    drawPoints(roots);
    context.checkPass(kStage);
}

}  // namespace glccl::raster

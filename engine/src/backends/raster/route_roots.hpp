#pragma once
#include "raster_pass.hpp"

namespace glccl::raster {

// route_roots (route_roots.vert, route_roots_rank.frag,
// route_roots_scatter.vert; O'Connell §8): up to kMaxRoutedRoots roots are
// gathered into a small block by stencil routing, ranked there in raster
// order, and each label goes back to its root's place in the scan grid.
class RouteRootsPass {
public:
    static constexpr const char* kStage = "route_roots";
    // Writes the label of each of the `roots` roots of `ids` into
    // `rootLabels` (other texels keep what they held).
    void run(const PassContext& context, const gl::RenderTarget& ids, std::uint32_t roots,
             const RoutingTargets& routing, const gl::RenderTarget& rootLabels);
};

}  // namespace glccl::raster

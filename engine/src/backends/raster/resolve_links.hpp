#pragma once
#include "raster_pass.hpp"

namespace glccl::raster {

// resolve_links (resolve_links_count.frag, resolve_links_link.vert): the
// exactness loop. The paper's column processing can lose a link when a
// scatter-back overwrites a root (its Fig. 5.8: N + M components for N).
// Until an occlusion query finds no connected neighbours with different
// labels, roots are linked across every connection and compressed again.
// Each round removes at least one root, so it ends; usually after a round
// or two.
class ResolveLinksPass {
public:
    static constexpr const char* kStage = "resolve_links";
    ResolveLinksPass() : query_(gl::Query::create()) {}
    // Labels in `ids` (compressed) on entry and exit; `scratch` is the
    // grid's size. Returns the rounds it needed.
    int run(const PassContext& context, const gl::Texture& nodeGraph, const gl::RenderTarget& ids,
            const gl::RenderTarget& scratch);

private:
    gl::Query query_;
};

// A link round of merge_block_borders and resolve_links: `ids` copied into
// `scratch`, then the points of `link` (common.glsl, linkToLargestNeighbour)
// blended into it with GL_MAX, so roots move to larger connected labels.
// Returns whether any point was drawn, i.e. whether anything was linked.
bool linkRoots(const PassContext& context, gl::Program& link, const gl::RenderTarget& ids,
               const gl::RenderTarget& scratch, std::int64_t points, const gl::Query& query);

}  // namespace glccl::raster

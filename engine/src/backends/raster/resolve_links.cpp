#include "resolve_links.hpp"

#include "post_column_processing.hpp"

namespace glccl::raster {

namespace {
const ProgramSpec kCount{"resolve_links_count", "fullscreen.vert", "resolve_links_count.frag", {}, {kIdsSlot}};
const ProgramSpec kLink{"resolve_links_link", "resolve_links_link.vert", "write_scatter.frag", {"fragColor"},
                        {kIdsSlot}};
}  // namespace

bool linkRoots(const PassContext& context, gl::Program& link, const gl::RenderTarget& ids,
               const gl::RenderTarget& scratch, std::int64_t points, const gl::Query& query) {
    copyTarget(ids, scratch);
    beginPass(scratch);
    bindTexture(kIdsSlot, ids.texture);
    link.use();
    setRenderState({GL_MAX});
    return anySamplesPassed(context, query, [&] { drawPoints(points); });
}

int ResolveLinksPass::run(const PassContext& context, const gl::Texture& nodeGraph, const gl::RenderTarget& ids,
                          const gl::RenderTarget& scratch) {
    auto scope = context.timer.scope(kStage);
    auto& count = context.programs.use(kCount);
    auto& link = context.programs.use(kLink);
    bindTexture(kNodeGraphSlot, nodeGraph);
    int rounds = 0;
    for (;;) {
        // Nodes with a connected neighbour of another label; nothing is written.
        beginPass(scratch);
        bindTexture(kIdsSlot, ids.texture);
        count.use();
        setRenderState({GL_NONE, GL_NONE, false, false});
        if (!anySamplesPassed(context, query_, drawFullscreen)) break;
        ++rounds;
        linkRoots(context, link, ids, scratch, std::int64_t(ids.width()) * ids.height(), query_);
        PostColumnProcessingPass::compress(context, scratch, ids);
    }
    context.checkPass(kStage);
    return rounds;
}

}  // namespace glccl::raster

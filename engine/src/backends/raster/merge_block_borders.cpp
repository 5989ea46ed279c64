#include "merge_block_borders.hpp"

#include "post_column_processing.hpp"
#include "resolve_links.hpp"

namespace glccl::raster {

namespace {
const ProgramSpec kLinkBorders{"merge_block_borders", "merge_block_borders.vert", "write_scatter.frag", {"fragColor"},
                               {kIdsSlot}};
// A root takes only the largest label offered, so a component spanning
// several blocks may need a few rounds; each is cheap (border nodes only)
// next to a round of resolve_links over the whole grid, which catches
// whatever is left after this bound.
constexpr int kMaxRounds = 64;
}  // namespace

void MergeBlockBordersPass::run(const PassContext& context, const gl::Texture& nodeGraph, int blockWidth,
                                const gl::RenderTarget& ids, const gl::RenderTarget& scratch, int rounds) {
    const int blocks = ceilDiv(ids.width(), blockWidth);
    if (blocks < 2) return;
    auto scope = context.timer.scope(kStage);
    auto& link = context.programs.use(kLinkBorders);
    link.set("blockWidth", blockWidth);
    bindTexture(kNodeGraphSlot, nodeGraph);
    // Two columns of nodes per border; without a bound, an occlusion query
    // over the links tells when a round linked nothing.
    const std::int64_t borderNodes = std::int64_t(blocks - 1) * 2 * ids.height();
    const bool checked = rounds == 0;
    for (int round = 0; round < (checked ? kMaxRounds : rounds); ++round) {
        if (!linkRoots(context, link, ids, scratch, borderNodes, checked ? &query_ : nullptr)) break;
        PostColumnProcessingPass::compress(context, scratch, ids);
    }
    context.checkPass(kStage);
}

}  // namespace glccl::raster

#include "post_column_processing.hpp"

namespace glccl::raster {

namespace {
constexpr const char* kQuadDepth = "quadDepth";
const ProgramSpec kFollowRoots{"post_column_processing", "fullscreen.vert", "post_column_processing.frag",
                               {"fragColor"}, {kIdsSlot}};
const ProgramSpec kFollowRootsTwice{"post_column_processing", "fullscreen.vert", "post_column_processing.frag",
                                    {"fragColor", "fragCopy"}, {kIdsSlot}, {"TWO_TARGETS"}};
const ProgramSpec kFollowTileRoots{"post_column_processing", "fullscreen.vert", "post_column_processing.frag",
                                   {"fragColor"}, {kIdsSlot}, {"TILE_ROOTS"}};
constexpr TextureSlot kEvenColumnsSlot{"evenColumns", 2};
const ProgramSpec kFollowMerged{"post_column_processing", "fullscreen.vert", "post_column_processing.frag",
                                {"fragColor"}, {kIdsSlot, kEvenColumnsSlot}, {"EVEN_COLUMNS"}};

// Every node of `from` through `program` (a compression of one target),
// into `to`.
void followInto(const PassContext& context, const ProgramSpec& program, const gl::RenderTarget& from,
                const gl::RenderTarget& to) {
    auto& follow = context.programs.use(program);
    beginPass(to);
    bindTexture(kIdsSlot, from.texture);
    setRenderState({});
    follow.set(kQuadDepth, 0.0f);
    drawFullscreen();
}
}  // namespace

void PostColumnProcessingPass::run(const PassContext& context, const gl::RenderTarget& roots,
                                   const gl::RenderTarget& labels, const gl::RenderTarget& ids,
                                   const gl::RenderTarget* evenColumns) {
    auto scope = context.timer.scope(kStage);
    auto& follow = context.programs.use(kFollowRoots);
    // Only the marked roots (depth 1.0) pass GL_EQUAL.
    beginPass(labels);
    bindTexture(kIdsSlot, roots.texture);
    setRenderState({GL_NONE, GL_EQUAL});
    follow.set(kQuadDepth, 1.0f);
    drawFullscreen();
    if (evenColumns == nullptr) {
        compress(context, labels, ids);
    } else {
        auto& followMerged = context.programs.use(kFollowMerged);
        beginPass(ids);
        bindTexture(kIdsSlot, labels.texture);
        bindTexture(kEvenColumnsSlot, evenColumns->texture);
        setRenderState({});
        followMerged.set(kQuadDepth, 0.0f);
        drawFullscreen();
    }
    context.checkPass(kStage);
}

void PostColumnProcessingPass::compress(const PassContext& context, const gl::RenderTarget& from,
                                        const gl::RenderTarget& to) {
    followInto(context, kFollowRoots, from, to);
}

void PostColumnProcessingPass::compressTileRoots(const PassContext& context, const gl::RenderTarget& from,
                                                 const gl::RenderTarget& to) {
    followInto(context, kFollowTileRoots, from, to);
}

void PostColumnProcessingPass::compressTwice(const PassContext& context, const gl::RenderTarget& from,
                                             const gl::Framebuffer& to, bool markedOnly) {
    auto& follow = context.programs.use(kFollowRootsTwice);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, to.id());
    setViewport(from.width(), from.height());
    bindTexture(kIdsSlot, from.texture);
    setRenderState({GL_NONE, markedOnly ? GLenum(GL_EQUAL) : GLenum(GL_NONE)});
    follow.set(kQuadDepth, markedOnly ? 1.0f : 0.0f);
    drawFullscreen();
}

}  // namespace glccl::raster

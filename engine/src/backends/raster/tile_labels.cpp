#include "tile_labels.hpp"

namespace glccl::raster {

namespace {
constexpr TextureSlot kTileLinksSlot{"tileLinks", 1};
constexpr TextureSlot kTileNodesSlot{"tileNodes", 2};
constexpr TextureSlot kTileLeadSlot{"tileLead", 3};
constexpr TextureSlot kTileRunsSlots[] = {{"tileRuns0", 3},  {"tileRuns1", 5},  {"tileRuns2", 6},
                                          {"tileRuns3", 7},  {"tileRuns4", 8},  {"tileRuns5", 9},
                                          {"tileRuns6", 10}, {"tileRuns7", 11}};
static_assert(kMaxRunTargets <= 8);
const ProgramSpec kMasks{"tile_labels_masks", "fullscreen.vert", "tile_labels_masks.frag", {"fragLinks", "fragNodes"},
                         {}};
const ProgramSpec kLead{"tile_labels_lead", "fullscreen.vert", "tile_labels_lead.frag", {"fragLead"}, {kTileLinksSlot}};
const ProgramSpec kRuns{"tile_labels_runs", "fullscreen.vert", "tile_labels_runs.frag",
                        {"fragRuns0", "fragRuns1", "fragRuns2", "fragRuns3", "fragRuns4", "fragRuns5", "fragRuns6",
                         "fragRuns7"},
                        {kTileLinksSlot, kTileNodesSlot, kTileLeadSlot}};
const ProgramSpec kLabels{"tile_labels", "fullscreen.vert", "tile_labels.frag",
                          {"fragColor", "fragCopy"},
                          {kTileLinksSlot, kTileNodesSlot, kTileRunsSlots[0], kTileRunsSlots[1], kTileRunsSlots[2],
                           kTileRunsSlots[3], kTileRunsSlots[4], kTileRunsSlots[5], kTileRunsSlots[6],
                           kTileRunsSlots[7]}};
}  // namespace

void TileLabelsPass::run(const PassContext& context, const gl::Texture& nodeGraph, const TileTargets& tiles,
                         const gl::Framebuffer& ids) {
    auto scope = context.timer.scope(kStage);
    const int tilesAcross = tiles.links.width(), rows = tiles.links.height();
    setRenderState({});
    bindTexture(kNodeGraphSlot, nodeGraph);
    context.programs.use(kMasks);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, tiles.masks.id());
    setViewport(tilesAcross, rows);
    drawFullscreen();
    bindTexture(kTileLinksSlot, tiles.links);
    if (tiles.leadTexels() > 0) {
        context.programs.use(kLead);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, tiles.lead.framebuffer.id());
        setViewport(tiles.lead.width(), tiles.lead.height());
        drawFullscreen();
        bindTexture(kTileLeadSlot, tiles.lead.texture);
    }
    context.programs.use(kRuns);
    bindTexture(kTileNodesSlot, tiles.nodes);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, tiles.runFramebuffer.id());
    setViewport(tilesAcross, ceilDiv(rows, tiles.runRows));
    drawFullscreen();
    context.programs.use(kLabels);
    for (int i = 0; i < tiles.runOutputs(); ++i) bindTexture(kTileRunsSlots[i], tiles.runs[i]);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, ids.id());
    setViewport(nodeGraph.width(), nodeGraph.height());
    setRenderState({GL_NONE, GL_ALWAYS, true});  // every root's mark written
    drawFullscreen();
    context.checkPass(kStage);
}

}  // namespace glccl::raster

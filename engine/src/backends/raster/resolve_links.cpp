#include "resolve_links.hpp"

#include <algorithm>

#include "glccl/error.hpp"
#include "post_column_processing.hpp"

namespace glccl::raster {

namespace {
constexpr TextureSlot kLinkValuesSlot{"linkValues", 2};
constexpr const char* kLinkGroup = "linkGroup";
const ProgramSpec kResolveLinksCount{"resolve_links_count", "fullscreen.vert", "resolve_links_count.frag", {}, {kIdsSlot}};
const ProgramSpec kLink{"resolve_links_link", "resolve_links_link.vert", "write_scatter.frag", {"fragColor"},
                        {kIdsSlot}};
const ProgramSpec kLinkTileBorders{"resolve_links_link", "resolve_links_link.vert", "write_scatter.frag",
                                   {"fragColor"}, {kIdsSlot}, {"TILE_BORDERS"}};
const ProgramSpec kValues{"resolve_links_values", "fullscreen.vert", "resolve_links_values.frag", {"fragLink"},
                          {kIdsSlot}};
const ProgramSpec kResolveLinksScatter{"resolve_links_scatter", "resolve_links_scatter.vert", "write_scatter.frag",
                           {"fragColor"}, {kLinkValuesSlot}};
}  // namespace

bool linkRoots(const PassContext& context, gl::Program& link, const gl::RenderTarget& ids,
               const gl::RenderTarget& scratch, std::int64_t points, const gl::Query* query) {
    copyTarget(ids, scratch);
    beginPass(scratch);
    bindTexture(kIdsSlot, ids.texture);
    link.use();
    setRenderState({GL_MAX});
    if (query == nullptr) {
        drawPoints(points);
        return true;
    }
    return anySamplesPassed(context, *query, [&] { drawPoints(points); });
}

bool ResolveLinksPass::settled(int& rounds) {
    if (batch_ == 0) return true;
    GLuint more = 0;
    glGetQueryObjectuiv(checks_[std::size_t(lastCheck_)].id(), GL_QUERY_RESULT, &more);
    countWait();
    // The batch's other checks are done by now.
    for (int i = 0; i < batch_; ++i) {
        GLuint linked = 0;
        glGetQueryObjectuiv(checks_[std::size_t(i)].id(), GL_QUERY_RESULT, &linked);
        rounds += linked != 0 ? 1 : 0;
    }
    batch_ = 0;
    return more == 0;
}

int ResolveLinksPass::run(const PassContext& context, const gl::Texture& nodeGraph, const gl::RenderTarget& ids,
                          const Targets& targets, const Settings& settings, bool deferLastCheck) {
    const bool linksInFragments = settings.linksInFragments, checkInDraw = settings.checkInDraw;
    const int group = settings.group, ahead = settings.ahead;
    const gl::RenderTarget& scratch = targets.scratch;
    const gl::RenderTarget& values = targets.values;
    auto scope = context.timer.scope(kStage);
    // The link draw's vertices: one per square of group × group nodes.
    const std::int64_t squares = std::int64_t(ceilDiv(ids.width(), group)) * ceilDiv(ids.height(), group);
    // ... or one per node of a tile's right column and bottom row.
    const int tileRows = std::max(settings.tileRows, 1);
    const std::int64_t borderNodes = std::int64_t(ceilDiv(ids.width(), kTileWidth)) * ceilDiv(ids.height(), tileRows) *
                                     (tileRows + kTileWidth - 1);
    // Far more rounds than a labeling can need: a round that finds a link
    // points a root at another tree, so there are fewer roots after it (or,
    // where a chain was not yet followed to its end, shorter chains), and
    // there are no more roots than nodes. Only a fault in a stage or the
    // driver gets past it: an error then rather than a loop that never ends.
    const std::int64_t maxRounds = 2 * std::int64_t(ids.width()) * ids.height() + 64;
    bindTexture(kNodeGraphSlot, nodeGraph);
    int rounds = 0;
    batch_ = 0;
    const auto withinBound = [&] {
        if (rounds > maxRounds)
            throw Error("glccl: the raster engine's resolve_links found links left after " + std::to_string(rounds) +
                        " rounds, more than a " + std::to_string(ids.width()) + "x" + std::to_string(ids.height()) +
                        " node grid can need: a fault in the GPU driver or a shader (GLCCL_SHADER_DIR?)");
    };
    if (linksInFragments) {
        auto& find = context.programs.use(kValues);
        auto& scatter = context.programs.use(kResolveLinksScatter);
        scatter.set(kLinkGroup, group);
        const float zero[4] = {0, 0, 0, 0};
        for (;;) {
            // Each node's link, where a forward neighbour's label differs;
            // any fragment written means a link is left.
            beginPass(values);
            setRenderState({});
            glClearBufferfv(GL_COLOR, 0, zero);
            bindTexture(kIdsSlot, ids.texture);
            find.use();
            if (!anySamplesPassed(context, query_, drawFullscreen)) break;
            ++rounds;
            withinBound();
            copyTarget(ids, scratch);
            beginPass(scratch);
            bindTexture(kLinkValuesSlot, values.texture);
            scatter.use();
            setRenderState({GL_MAX});
            drawPoints(squares);
            PostColumnProcessingPass::compress(context, scratch, ids);
        }
    } else {
        auto& count = context.programs.use(kResolveLinksCount);
        auto& link = context.programs.use(settings.tileRows > 0 ? kLinkTileBorders : kLink);
        if (settings.tileRows == 0) link.set(kLinkGroup, group);
        const std::int64_t linkPoints = settings.tileRows > 0 ? borderNodes : squares;
        // After tile_labels, with the check in the link draw, only the
        // marked roots follow their chains a round: a node's label is its
        // root's root (two fetches, resolve_links_link.vert), and every
        // node is followed to its root once, after the rounds. Only the
        // marked nodes of the link targets are read then: points land on
        // roots, and chains go from root to root.
        const bool markedOnly = leavesLabelsInScratch(settings);
        // Round k links into linkTargets[k % 2]; its compression writes
        // `ids` and the other, the next round's.
        const gl::RenderTarget* linkTargets[2] = {&scratch, &values};
        const gl::Framebuffer* compressTargets[2] = {&targets.idsAndValues, &targets.idsAndScratch};
        int turn = 0;
        if (!markedOnly) copyTarget(ids, scratch);
        // The link draw's state, into this round's target.
        const auto beginLink = [&] {
            beginPass(*linkTargets[turn]);
            bindTexture(kIdsSlot, ids.texture);
            link.use();
            setRenderState({GL_MAX});
        };
        // The link draw, under `query` if any.
        const auto linkInto = [&](const gl::Query* query) {
            beginLink();
            if (query != nullptr) glBeginQuery(GL_ANY_SAMPLES_PASSED, query->id());
            drawPoints(linkPoints);
            if (query != nullptr) glEndQuery(GL_ANY_SAMPLES_PASSED);
        };
        const auto compressRound = [&] {
            PostColumnProcessingPass::compressTwice(context, *linkTargets[turn], *compressTargets[turn], markedOnly);
            turn = 1 - turn;
        };
        // Conditional rendering (desktop OpenGL 3.0): a round's draws are
        // discarded by the GPU where the check before them passed nothing,
        // which discards the next check too, so the rounds after the last
        // link cost no draw and the host waits once per batch.
        const bool batched = ahead > 1 && !context.es && glBeginConditionalRender != nullptr;
        if (batched) while (int(checks_.size()) < ahead + 1) checks_.push_back(gl::Query::create());
        // The link draw under the query is the check: a point is drawn
        // exactly where connected neighbours differ, so the last round's
        // draw, which links nothing, ends the loop.
        if (checkInDraw && batched) {
            // Round k's link draw under checks_[k], on the one before it
            // (the batch's first round follows a check the host read), and
            // its compression on its own: two draws a round.
            for (;;) {
                for (int i = 0; i < ahead; ++i) {
                    if (i > 0) glBeginConditionalRender(checks_[std::size_t(i) - 1].id(), GL_QUERY_WAIT);
                    linkInto(&checks_[std::size_t(i)]);
                    if (i > 0) glEndConditionalRender();
                    glBeginConditionalRender(checks_[std::size_t(i)].id(), GL_QUERY_WAIT);
                    compressRound();
                    glEndConditionalRender();
                }
                batch_ = ahead;
                lastCheck_ = ahead - 1;
                if (deferLastCheck) break;  // settled() reads it
                if (settled(rounds)) break;
                withinBound();
            }
        }
        while (checkInDraw && !batched) {
            beginLink();
            if (!anySamplesPassed(context, query_, [&] { drawPoints(linkPoints); })) break;
            ++rounds;
            withinBound();
            compressRound();
        }
        // The check: nodes with a connected neighbour of another label;
        // nothing is written.
        const auto beginCheck = [&] {
            beginPass(scratch);
            bindTexture(kIdsSlot, ids.texture);
            count.use();
            setRenderState({GL_NONE, GL_NONE, false, false});
        };
        // The check under `query`.
        const auto check = [&](const gl::Query& query) {
            beginCheck();
            glBeginQuery(GL_ANY_SAMPLES_PASSED, query.id());
            drawFullscreen();
            glEndQuery(GL_ANY_SAMPLES_PASSED);
        };
        if (!checkInDraw && batched) {
            check(checks_[0]);
            batch_ = 0;
            for (;;) {
                for (int i = 0; i < ahead; ++i) {
                    glBeginConditionalRender(checks_[std::size_t(i)].id(), GL_QUERY_WAIT);
                    linkInto(nullptr);
                    compressRound();
                    check(checks_[std::size_t(i) + 1]);
                    glEndConditionalRender();
                }
                batch_ = ahead;
                lastCheck_ = ahead;
                if (deferLastCheck) break;  // settled() reads it
                if (settled(rounds)) break;
                withinBound();
                std::swap(checks_[0], checks_[std::size_t(ahead)]);
            }
        }
        while (!checkInDraw && !batched) {
            beginCheck();
            if (!anySamplesPassed(context, query_, drawFullscreen)) break;
            ++rounds;
            withinBound();
            linkInto(nullptr);
            compressRound();
        }
        // Two fetches a node: its tile root's value, that root's root.
        if (markedOnly) PostColumnProcessingPass::compressTileRoots(context, ids, scratch);
    }
    context.checkPass(kStage);
    return rounds;
}

}  // namespace glccl::raster

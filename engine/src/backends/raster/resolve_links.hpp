#pragma once
#include <vector>

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
    // How the rounds link and check (Tuning's rasterResolve, rasterResolveGroup,
    // rasterResolveCheck and rasterResolveAhead, and rasterLocal tiles):
    struct Settings {
        // A fragment pass finds each node's link into `values` and is the
        // check (resolve_links_values.frag); otherwise a fragment pass
        // checks and the link draw's vertices find the links.
        bool linksInFragments = false;
        // The link draw has a vertex per square of `group` × `group` nodes,
        // which raises one root a round.
        int group = 2;
        // Without linksInFragments, where not 0: the labels came from
        // tile_labels, whose tiles have this many rows, so connected nodes
        // of a tile hold one label, and the link draw has a vertex per node
        // of each tile's right column and bottom row instead
        // (resolve_links_link.vert, TILE_BORDERS).
        int tileRows = 0;
        // Without linksInFragments: the link draw itself runs under the
        // occlusion query instead of a check pass before it.
        bool checkInDraw = false;
        // Without linksInFragments, in a desktop context: rounds issued per
        // wait for the GPU, each round's draws under conditional rendering
        // on the check before them, the host reading the batch's last check.
        int ahead = 1;
    };
    // Labels in `ids` (compressed) on entry and exit; `scratch` and
    // `values` are the grid's size. Returns the rounds it needed. With
    // `deferLastCheck`, the first batch's last check is not read: the
    // caller queues what comes next, then asks settled().
    //
    // Without `linksInFragments` the link draws blend into `scratch` and
    // `values` in turn, and each compression writes the labels into `ids`
    // and the next round's target at once (`idsAndScratch`,
    // `idsAndValues`), so one copy of `ids` starts the rounds.
    struct Targets {
        const gl::RenderTarget& scratch;
        const gl::RenderTarget& values;
        const gl::Framebuffer& idsAndScratch;
        const gl::Framebuffer& idsAndValues;
    };
    int run(const PassContext& context, const gl::Texture& nodeGraph, const gl::RenderTarget& ids,
            const Targets& targets, const Settings& settings, bool deferLastCheck = false);
    // After tile_labels, with the check in the link draw, the rounds follow
    // only the roots' chains, `scratch` holding the first link target on
    // entry (tile_labels writes both); every node is followed to its root
    // once at the end, into `scratch`, where the labels then are (`ids`
    // keeps each node's tile root).
    static bool leavesLabelsInScratch(const Settings& settings) {
        return settings.tileRows > 0 && settings.checkInDraw && !settings.linksInFragments;
    }
    // Reads the last check of the batch run() left unread, if any (a wait
    // for the GPU), adding the batch's rounds to `rounds`: true where no
    // link is left; false where run() must go on.
    bool settled(int& rounds);

private:
    // Rounds of the batch whose checks are unread; 0: none.
    int batch_ = 0;
    // The batch's check that tells whether links are left: checks_[batch_]
    // (check passes, the one after the last round) or checks_[batch_ - 1]
    // (link draws, the last one's).
    int lastCheck_ = 0;
    gl::Query query_;
    // The checks of a batch of rounds issued ahead: ahead + 1. checks_[k]
    // for k < batch_ says whether round k linked.
    std::vector<gl::Query> checks_;
};

// A link round of merge_block_borders and resolve_links: `ids` copied into
// `scratch`, then the points of `link` (common.glsl, linkToLargestNeighbour)
// blended into it with GL_MAX, so roots move to larger connected labels.
// With a query, returns whether any point was drawn, i.e. whether anything
// was linked (a wait for the GPU); without, returns true.
bool linkRoots(const PassContext& context, gl::Program& link, const gl::RenderTarget& ids,
               const gl::RenderTarget& scratch, std::int64_t points, const gl::Query* query);

}  // namespace glccl::raster

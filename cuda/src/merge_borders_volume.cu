// merge_borders, for a binary volume: the sibling of merge_borders.cu. A
// body of its own: a bundle word's links leave the patch by its relations'
// words and a word's runs, not by a border of blocks. One thread block per
// patch of local_merge_volume, one thread per bundle word;
// each unites, in the global forest (volume_forest.cuh), the links of its
// word that local_merge left because they leave the patch: to the bundles
// of its relations outside the patch, to the words beside theirs across the
// patch's x faces, and to the word before it in its own bundle across the
// patch's low x face. Warps with no word on a face return at once. As in
// local_merge, the lanes find links in step and the whole warp unites them
// (WarpLinks); a link whose two nodes read the same parent (one tree), or
// the two parents the lane's last link read, is skipped. The union of
// node_grid.cuh is complete when its thread finishes, so one launch merges
// every face.

#include "stage_timer.hpp"
#include "volume_forest.cuh"

namespace glccl::cuda {
namespace {

using namespace volume;

constexpr int kWarp = 32;
// Links per warp (WarpLinks): two node slots. 128, as the 2-D local_merge's
// queue: more rounds of links per flush than at 64.
constexpr int kQueue = 128;

template <int Connectivity>
__global__ void __launch_bounds__(Patch<Connectivity>::kThreads)
    mergeBordersVolumeKernel(VolumeNodes nodes, unsigned patchesX, unsigned patchesY) {
    using B = Patch<Connectivity>;
    constexpr int kLines = B::kLines;
    __shared__ uint2 sQueue[B::kThreads / kWarp][kQueue];  // each warp's links (WarpLinks)

    const NodeGrid& g = nodes.grid;
    const PatchPlace<Connectivity> place(patchesX, patchesY);
    const int t = place.t, w = place.w, by = place.by, bz = place.bz;
    const std::uint32_t wx = place.wx, gby = place.gby, gbz = place.gbz;
    const bool inside = place.inside(g);
    // Only the patch's faces have links out: its first and last word, its
    // first and last bundle row, its first bundle slice.
    const bool lowX = w == 0 && wx > 0, highX = w == B::kWords - 1 && wx + 1 < g.wordsX;
    const bool onFace = inside && (lowX || highX || by == 0 || by == B::kBundlesY - 1 || bz == 0);
    const std::size_t word = onFace ? g.bundleWord(wx, gby, gbz) : 0;
    const std::uint32_t p = onFace ? __ldg(&nodes.foreground[word]) : 0u;
    if (!__any_sync(kFullWarp, p != 0u)) return;  // the whole warp

    const VolumeForest<Connectivity> forest{{g, nodes.foreground}, nodes.parents};
    std::uint32_t lines[kLines];
    if (p != 0u) {
        loadBundleLines<Connectivity>(g, nodes.bits, wx, gby, gbz, lines);
    } else {
#pragma unroll
        for (int l = 0; l < kLines; ++l) lines[l] = 0u;
    }

    auto slotAt = [&](std::size_t bundleWord, std::uint32_t foreground, int bit) {
        return std::uint32_t(NodeGrid::slotOf(bundleWord, runAt(foreground, bit)));
    };
    // As in local_merge: links found in step and united by the whole warp;
    // one tree, or the lane's last link's two parents, need no union.
    WarpLinks<uint2, kQueue> links{sQueue[t / kWarp], t % kWarp};
    auto unite = [&](const uint2& link) {
        const std::uint32_t a = forest.load(link.x), b = forest.load(link.y);
        if (a != b) forest.unite(a, b);
    };
    std::uint32_t lastA = kNoKey, lastB = kNoKey;
    auto offer = [&](bool has, std::uint32_t u, std::uint32_t v) {  // in every lane
        if (has) {
            const std::uint32_t a = forest.load(u), b = forest.load(v);
            has = a != b && !(a == lastA && b == lastB);
            if (has) lastA = a, lastB = b;
        }
        links.push(has, make_uint2(u, v), unite);
    };

    // The word before in the same bundle, across the patch's low x face.
    {
        const std::uint32_t before = lowX && (p & 1u) != 0u ? __ldg(&nodes.foreground[word - 1]) : 0u;
        const bool has = (before >> 31) != 0u;
        offer(has, has ? slotAt(word, p, 0) : 0u, has ? slotAt(word - 1, before, 31) : 0u);
    }
    forEachIndex<0, relationCount(Connectivity)>([&](auto index) {
        constexpr Relation kRelation = relationOf(Connectivity, decltype(index)::value);
        constexpr int kTerms = kRelation.terms;
        const int vby = by + kRelation.dy, vbz = bz + kRelation.dz;  // in the patch's bundles
        const std::int64_t gvby = std::int64_t(gby) + kRelation.dy, gvbz = std::int64_t(gbz) + kRelation.dz;
        const bool inVolume = p != 0u && gvby >= 0 && gvby < std::int64_t(g.bundlesY) && gvbz >= 0;
        const bool vOutside = inVolume && (vby < 0 || vby >= B::kBundlesY || vbz < 0);
        const bool beforeOutside = inVolume && wx > 0 && (vOutside || w == 0);
        const bool afterOutside = inVolume && wx + 1 < g.wordsX && (vOutside || w == B::kWords - 1);
        const std::size_t vWord = inVolume ? g.bundleWord(wx, std::uint32_t(gvby), std::uint32_t(gvbz)) : 0;
        std::uint32_t fu[kTerms], fv[kTerms];
        bool across[kTerms];
        TermLinks asked[kTerms];
        std::uint32_t v[kLines];
#pragma unroll
        for (int l = 0; l < kLines; ++l) v[l] = 0u;
        if (vOutside) loadBundleLines<Connectivity>(g, nodes.bits, wx, std::uint32_t(gvby), std::uint32_t(gvbz), v);
#pragma unroll
        for (int k = 0; k < kTerms; ++k) {
            fu[k] = linesOf(lines, kRelation.term[k].uLines);
            fv[k] = linesOf(v, kRelation.term[k].vLines);
            across[k] = kRelation.term[k].across;
            asked[k] = termLinks(fu[k], fv[k], across[k]);
        }
        // pv is 0 unless V is outside the patch.
        const std::uint32_t pv = vOutside ? __ldg(&nodes.foreground[vWord]) : 0u;
        auto uSlot = [&](int x) { return slotAt(word, p, x); };
        auto vSlot = [&](int x) { return slotAt(vWord, pv, x); };
        offerTermLinks(asked, fu, fv, across, offer, uSlot, vSlot);
        // One step across the word's edges, to the words beside V's.
#pragma unroll
        for (int k = 0; k < kTerms; ++k) {
            if (!kRelation.term[k].across) continue;
            std::uint32_t b[kLines], a[kLines];
            const bool lowAsks = beforeOutside && (fu[k] & 1u) != 0u;
            const bool highAsks = afterOutside && (fu[k] >> 31) != 0u;
            if (lowAsks) loadBundleLines<Connectivity>(g, nodes.bits, wx - 1, std::uint32_t(gvby), std::uint32_t(gvbz), b);
            if (highAsks) loadBundleLines<Connectivity>(g, nodes.bits, wx + 1, std::uint32_t(gvby), std::uint32_t(gvbz), a);
            const bool low = lowAsks && (linesOf(b, kRelation.term[k].vLines) >> 31) != 0u;
            offer(low, low ? slotAt(word, p, 0) : 0u,
                  low ? slotAt(vWord - 1, __ldg(&nodes.foreground[vWord - 1]), 31) : 0u);
            const bool high = highAsks && (linesOf(a, kRelation.term[k].vLines) & 1u) != 0u;
            offer(high, high ? slotAt(word, p, 31) : 0u,
                  high ? slotAt(vWord + 1, __ldg(&nodes.foreground[vWord + 1]), 0) : 0u);
        }
        if constexpr (kRelation.kissLines != 0) {
            // Where the two bundles' runs kiss (volume_nodes.cuh, kissesOf),
            // and the kiss lines one step across the word's edges.
            std::uint32_t touchUV = 0u, touchVU = 0u;
#pragma unroll
            for (int l = 0; l < kLines; ++l) {
                if (((kRelation.kissLines >> l) & 1u) == 0u) continue;
                touchUV |= lines[l] & (v[l] >> 1);
                touchVU |= v[l] & (lines[l] >> 1);
            }
            constexpr std::uint8_t kKiss = kRelation.kissLines;
            const bool lowAsks = beforeOutside && (linesOf(lines, kKiss) & 1u) != 0u;
            const bool highAsks = afterOutside && (linesOf(lines, kKiss) >> 31) != 0u;
            std::uint32_t b[kLines], a[kLines];
            if (lowAsks) loadBundleLines<Connectivity>(g, nodes.bits, wx - 1, std::uint32_t(gvby), std::uint32_t(gvbz), b);
            if (highAsks) loadBundleLines<Connectivity>(g, nodes.bits, wx + 1, std::uint32_t(gvby), std::uint32_t(gvbz), a);
            bool low = false, high = false;
#pragma unroll
            for (int l = 0; l < kLines; ++l) {
                if (((kKiss >> l) & 1u) == 0u) continue;
                low |= lowAsks && (lines[l] & 1u) != 0u && (b[l] >> 31) != 0u;
                high |= highAsks && (lines[l] >> 31) != 0u && (a[l] & 1u) != 0u;
            }
            offer(low, low ? slotAt(word, p, 0) : 0u,
                  low ? slotAt(vWord - 1, __ldg(&nodes.foreground[vWord - 1]), 31) : 0u);
            offer(high, high ? slotAt(word, p, 31) : 0u,
                  high ? slotAt(vWord + 1, __ldg(&nodes.foreground[vWord + 1]), 0) : 0u);
            offerKisses(kissesOf(p, pv, touchUV, touchVU), offer, uSlot, vSlot);
        }
    });
    links.flush(unite);
}

}  // namespace

void MergeBordersPass::run(const PassContext& context, const VolumeNodes& nodes) {
    auto scope = context.timer.scope(kStage);
    const NodeGrid& g = nodes.grid;
    withVolumeConnectivity(g.connectivity, [&](auto connectivity) {
        constexpr int C = decltype(connectivity)::value;
        const PatchLaunch<C> launch = PatchLaunch<C>::of(g);
        mergeBordersVolumeKernel<C><<<launch.blocks, Patch<C>::kThreads, 0, context.stream>>>(nodes, launch.patchesX,
                                                                                               launch.patchesY);
    });
    context.check.launched("mergeBorders (volume)", context.stream);
}

}  // namespace glccl::cuda

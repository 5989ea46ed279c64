#pragma once
// Stage "merge": the links scan recorded from the first rows of each stripe
// (up to a slice and a row in a volume) to runs of earlier stripes, joined
// in the union-find across stripes (NodeForest). Where every stripe holds
// at least the rows a link reaches back, a border touches its two stripes
// only and the borders are merged as a tree: 1, 3, 5, ... at once, then 2,
// 6, 10, ..., then 4, 12, ...; each round's borders join disjoint groups of
// stripes. Otherwise one after the other. Then every external root is
// resolved to its global root, stripe by stripe in order, for number.

#include "engine.hpp"

namespace glccl::cpu::detail {

inline void mergeBorder(const EngineContext& ctx, const NodeForest& forest, std::size_t b) {
    const Stripe& stripe = ctx.stripe(b);
    std::size_t t = b - 1;
    std::size_t link = 0;
    for (const BorderRow& group : stripe.borderRows) {
        // The stripe of the linked row: the one before, or before that
        // where stripes are shorter than a link's reach.
        while (group.row < ctx.stripe(t).firstRow) --t;
        while (group.row >= ctx.stripe(t).endRow) ++t;
        const Stripe& other = ctx.stripe(t);
        const std::int64_t tailRow = other.endRow - std::int64_t(other.tailFirstRuns.size());
        const std::uint32_t first = other.tailFirstRuns[std::size_t(group.row - tailRow)];
        for (; link < group.linkEnd; ++link) {
            const BorderLink& l = stripe.borderLinks[link];
            forest.unite(nodeOf(b, l.run), nodeOf(t, first + l.index));
        }
    }
}

inline void mergeStripes(const EngineContext& ctx) {
    const std::size_t stripes = ctx.stripePlan->stripes();
    std::vector<std::uint32_t*> runs;
    const NodeForest forest = nodeForest(ctx, runs);
    if (ctx.stripePlan->adjacentOnly) {
        for (std::size_t step = 1; step < stripes; step *= 2) {
            const std::size_t borders = (stripes - 1 - step) / (2 * step) + 1;
            ctx.parallel(borders, [&](std::size_t i, WorkerScratch&) { mergeBorder(ctx, forest, step * (2 * i + 1)); });
        }
    } else {
        for (std::size_t b = 1; b < stripes; ++b) {
            ctx.checkCancelled();
            mergeBorder(ctx, forest, b);
        }
    }
    // External roots to global roots; the stripes before are resolved by
    // then, so each find is one hop past the local root.
    for (std::size_t s = 1; s < stripes; ++s) {
        for (Node& n : ctx.stripe(s).external) n = forest.find(n);
    }
}

}  // namespace glccl::cpu::detail

#pragma once
// Stage "merge": the links scan left out, from the first rows of a stripe
// (up to a slice and a row in a volume) to rows of earlier stripes, joined in
// the union-find across stripes (uniteGlobal). Where every stripe holds at
// least the rows a link reaches back, a border touches its two stripes only
// and the borders are merged as a tree: 1, 3, 5, ... at once, then 2, 6,
// 10, ..., then 4, 12, ...; each round's borders join disjoint groups of
// stripes. Otherwise one after the other. Then every external root is
// resolved to its global root, stripe by stripe in order, for number.

#include "engine.hpp"

namespace glccl::cpu::detail {

template <class Rule>
void mergeBorder(const Rule& rule, const EngineContext& ctx, std::size_t b, WorkerScratch& scratch) {
    const Geometry& g = ctx.geometry;
    const Stripe& stripe = ctx.stripe(b);
    const std::int64_t border = stripe.firstRow;
    const std::int64_t low = std::max<std::int64_t>(0, border - g.backRows);

    // Run numbers of the rows before the border: counted, then numbered back
    // from the end of each stripe they belong to.
    const std::size_t span = std::size_t(border - low);
    scratch.rowFirst.resize(span);
    scratch.rowStripe.resize(span);
    std::size_t t = b - 1;
    std::uint32_t remaining = ctx.stripe(t).runCount;
    for (std::int64_t r = border - 1; r >= low; --r) {
        while (r < ctx.stripe(t).firstRow) remaining = ctx.stripe(--t).runCount;
        remaining -= countRuns(rule, ctx.row(r), g.width);
        scratch.rowFirst[std::size_t(r - low)] = remaining;
        scratch.rowStripe[std::size_t(r - low)] = std::uint32_t(t);
    }

    for (RowRuns& slot : scratch.slots) slot.row = -1;
    RowWindow<Rule> window{rule, ctx, scratch};
    std::uint32_t next = 0;
    const std::int64_t end = std::min(stripe.endRow, border + g.backRows);
    for (std::int64_t r = border; r < end; ++r) {
        int neighbourSlot[4];
        window.prepare(r, [&](std::int64_t n) { return n < border; }, neighbourSlot);
        const RowRuns& runs = scratch.slots[0];
        for (int q = 0; q < g.neighbourCount; ++q) {
            if (neighbourSlot[q] < 0) continue;
            const RowRuns& above = scratch.slots[neighbourSlot[q]];
            const std::size_t at = std::size_t(above.row - low);
            const std::uint64_t other = scratch.rowStripe[at];
            linkRows(rule, runs, ctx.row(r), next, above, ctx.row(above.row), scratch.rowFirst[at],
                     g.neighbours[q].reach, [&](std::uint32_t a, std::uint32_t c) {
                         uniteGlobal(ctx, nodeOf(b, a), nodeOf(other, c));
                     });
        }
        next += runs.count;
    }
}

template <class Rule>
void mergeStripes(const Rule& rule, const EngineContext& ctx) {
    const std::size_t stripes = ctx.plan.stripes();
    if (ctx.plan.adjacentOnly) {
        for (std::size_t step = 1; step < stripes; step *= 2) {
            const std::size_t borders = (stripes - 1 - step) / (2 * step) + 1;
            ctx.parallel(borders, [&](std::size_t i, WorkerScratch& scratch) {
                mergeBorder(rule, ctx, step * (2 * i + 1), scratch);
            });
        }
    } else {
        for (std::size_t b = 1; b < stripes; ++b) {
            ctx.checkCancelled();
            mergeBorder(rule, ctx, b, (*ctx.workers)[0]);
        }
    }
    // External roots to global roots; the stripes before are resolved by
    // then, so each find is one hop past the local root.
    for (std::size_t s = 1; s < stripes; ++s) {
        for (Node& n : ctx.stripe(s).external) n = findGlobal(ctx, n);
    }
}

}  // namespace glccl::cpu::detail

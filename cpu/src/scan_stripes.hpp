#pragma once
// Stage "scan": each stripe, on its own thread, numbers its runs in raster
// order and joins the connected ones of its own rows in a union-find over
// run numbers, kept in the stripe's stretch of the label array (engine.hpp).
// Links to rows of earlier stripes are left to merge.

#include "engine.hpp"

namespace glccl::cpu::detail {

template <class Rule>
void scanStripe(const Rule& rule, const EngineContext& ctx, Stripe& stripe, WorkerScratch& scratch) {
    const Geometry& g = ctx.geometry;
    for (RowRuns& slot : scratch.slots) slot.row = -1;
    RowWindow<Rule> window{rule, ctx, scratch};
    std::uint32_t* entries = stripe.entries;
    const std::size_t ring = scratch.firstRuns.size();
    std::uint32_t next = 0;
    for (std::int64_t r = stripe.firstRow; r < stripe.endRow; ++r) {
        int neighbourSlot[4];
        window.prepare(r, [&](std::int64_t n) { return n >= stripe.firstRow; }, neighbourSlot);
        const RowRuns& runs = scratch.slots[0];
        scratch.firstRuns[std::size_t(r) % ring] = next;
        for (std::uint32_t i = 0; i < runs.count; ++i) entries[next + i] = next + i;
        for (int q = 0; q < g.neighbourCount; ++q) {
            if (neighbourSlot[q] < 0) continue;
            const RowRuns& above = scratch.slots[neighbourSlot[q]];
            linkRows(rule, runs, ctx.row(r), next, above, ctx.row(above.row),
                     scratch.firstRuns[std::size_t(above.row) % ring], g.neighbours[q].reach,
                     [entries](std::uint32_t a, std::uint32_t b) { uniteLocal(entries, a, b); });
        }
        next += runs.count;
    }
    stripe.runCount = next;
}

template <class Rule>
void scanStripes(const Rule& rule, const EngineContext& ctx) {
    ctx.parallel(ctx.plan.stripes(), [&](std::size_t s, WorkerScratch& scratch) {
        scanStripe(rule, ctx, ctx.stripe(s), scratch);
    });
}

}  // namespace glccl::cpu::detail

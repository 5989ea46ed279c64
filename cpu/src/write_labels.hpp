#pragma once
// Stage "final": each stripe, on its own thread, writes its labels from the
// last row up and from the right (so that the codes still to be read lie
// before what is written; engine.hpp) and adds each run to the table: its
// own components' rows directly (no other stripe writes them), the
// components first met in earlier stripes into a small table of its own.
// Then those small tables are added in, on the calling thread, and the
// table is finished in parallel.

#include <algorithm>

#include "component_sums.hpp"
#include "engine.hpp"

namespace glccl::cpu::detail {

template <class Rule>
void writeStripe(const Rule& rule, const EngineContext& ctx, Stripe& stripe, WorkerScratch& scratch) {
    const Geometry& g = ctx.geometry;
    RowRuns& runs = scratch.slots[0];
    runs.row = -1;
    const std::uint32_t* entries = stripe.entries;
    Component* table = ctx.table->data();
    const std::uint32_t firstLabel = std::uint32_t(stripe.firstLabel);
    stripe.externalTable.assign(stripe.external.size(), Component{});
    // The stripe's own rows of the table start empty (a reused table keeps
    // the previous call's rows).
    for (std::uint32_t i = 0; i < stripe.rootCount; ++i) table[firstLabel + i].area = 0;
    std::uint32_t next = stripe.runCount;
    for (std::int64_t r = stripe.endRow - 1; r >= stripe.firstRow; --r) {
        const auto y = std::uint32_t(r % g.height), z = std::uint32_t(r / g.height);
        extractRuns(rule, ctx.row(r), g.width, runs);
        next -= runs.count;
        std::uint32_t* out = ctx.labelRow(r);
        std::uint32_t end = std::uint32_t(g.width);  // written from here on
        for (std::uint32_t i = runs.count; i-- > 0;) {
            const std::uint32_t code = entries[next + i];
            const std::uint32_t first = runs.first[i], last = runs.last[i];
            std::fill(out + last + 1, out + end, 0u);
            std::uint32_t label;
            if (code & kExternal) {
                const std::uint32_t j = code & ~kExternal;
                label = stripe.externalLabel[j];
                addRun(stripe.externalTable[j], first, last, y, z);
            } else {
                label = firstLabel + code;
                addRun(table[label - 1], first, last, y, z);
            }
            std::fill(out + first, out + last + 1, label);
            end = first;
        }
        std::fill(out, out + end, 0u);
    }
}

template <class Rule>
void writeLabels(const Rule& rule, const EngineContext& ctx) {
    const std::size_t stripes = ctx.plan.stripes();
    ctx.parallel(stripes, [&](std::size_t s, WorkerScratch& scratch) {
        writeStripe(rule, ctx, ctx.stripe(s), scratch);
    });
    std::vector<Component>& table = *ctx.table;
    for (std::size_t s = 1; s < stripes; ++s) {
        const Stripe& stripe = ctx.stripe(s);
        for (std::size_t j = 0; j < stripe.external.size(); ++j)
            addPart(table[stripe.externalLabel[j] - 1], stripe.externalTable[j]);
    }
    const std::size_t parts = std::min<std::size_t>(std::size_t(ctx.threads), table.size() / 4096 + 1);
    ctx.parallel(parts, [&](std::size_t p, WorkerScratch&) {
        const std::size_t from = table.size() * p / parts, to = table.size() * (p + 1) / parts;
        for (std::size_t i = from; i < to; ++i) finishComponent(table[i]);
    });
}

}  // namespace glccl::cpu::detail

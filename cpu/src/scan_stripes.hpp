#pragma once
// Stage "scan": each stripe, on its own thread, numbers its runs in raster
// order and joins the connected ones of its own rows in a union-find over
// run numbers, kept in the stripe's stretch of the label array (engine.hpp).
// Links to rows of earlier stripes are left to merge.

#include "engine.hpp"

namespace glccl::cpu::detail {

// The neighbour rows of a row in the stripe, as linkRuns reads them.
struct AboveRows {
    const RowRuns* runs[4];
    std::uint32_t first[4];  // number of the first run of each
    std::uint32_t reach[4];
    int count = 0;
};

// Joins the tree of run `other` to the tree being built for new run k,
// whose smallest root so far is `root` (k itself while it has none).
inline void joinTree(std::uint32_t* entries, std::uint32_t k, std::uint32_t& root, std::uint32_t other) {
    other = findLocal(entries, other);
    if (other < root) {
        if (root != k) entries[root] = other;
        root = other;
    } else if (other > root) {
        entries[other] = root;
    }
}

// Links the new runs of row r (numbered from `first`) to the runs of the
// `Rows` neighbour rows in `above`: each run takes the smallest root among
// those it connects to (its own number when none) and joins the others to
// it. Rows is a template argument so that the loops over rows unroll.
template <int Rows, class Rule>
void linkRuns(const Rule& rule, const EngineContext& ctx, std::int64_t r, std::uint32_t first,
              std::uint32_t* entries, const RowRuns& runs, const AboveRows& above) {
    const auto lastElement = std::uint32_t(ctx.geometry.width - 1);
    if constexpr (Rule::kBinary) {
        // Every run a binary run touches connects: the touching ones are
        // counted from the neighbour row's start bits, without a search.
        for (std::uint32_t i = 0; i < runs.count; ++i) {
            const std::uint32_t k = first + i;
            std::uint32_t root = k;
            for (int q = 0; q < Rows; ++q) {
                const std::uint32_t from = runs.first[i] - std::min(runs.first[i], above.reach[q]);
                const std::uint32_t to = std::min(runs.last[i] + above.reach[q], lastElement);
                std::uint32_t begin, end;
                above.runs[q]->touching(from, to, begin, end);
                for (std::uint32_t j = begin; j < end; ++j) joinTree(entries, k, root, above.first[q] + j);
            }
            entries[k] = root;
        }
    } else {
        const std::uint8_t* row = ctx.row(r);
        std::uint32_t next[4] = {};
        for (std::uint32_t i = 0; i < runs.count; ++i) {
            const std::uint32_t k = first + i;
            std::uint32_t root = k;
            for (int q = 0; q < Rows; ++q) {
                const RowRuns& b = *above.runs[q];
                const std::int64_t from = std::int64_t(runs.first[i]) - above.reach[q];
                const std::int64_t to = std::int64_t(runs.last[i]) + above.reach[q];
                std::uint32_t j = next[q];
                while (j < b.count && std::int64_t(b.last[j]) < from) ++j;
                // Runs of these criteria may lie side by side and share the
                // runs they touch: the next run starts from the first that touched.
                next[q] = j;
                for (; j < b.count && std::int64_t(b.first[j]) <= to; ++j) {
                    if (rule.runsConnect(row, runs.span(i), ctx.row(b.row), b.span(j), int(above.reach[q])))
                        joinTree(entries, k, root, above.first[q] + j);
                }
            }
            entries[k] = root;
        }
    }
}

template <class Rule>
void scanStripe(const Rule& rule, const EngineContext& ctx, Stripe& stripe, WorkerScratch& scratch) {
    const Geometry& g = ctx.geometry;
    for (RowRuns& slot : scratch.slots) slot.row = -1;
    RowWindow<Rule> window{rule, ctx, scratch};
    const std::size_t ring = scratch.firstRuns.size();
    std::uint32_t next = 0;
    for (std::int64_t r = stripe.firstRow; r < stripe.endRow; ++r) {
        int neighbourSlot[4];
        window.prepare(r, [&](std::int64_t n) { return n >= stripe.firstRow; }, neighbourSlot);
        scratch.firstRuns[std::size_t(r) % ring] = next;
        AboveRows above;
        for (int q = 0; q < g.neighbourCount; ++q) {
            if (neighbourSlot[q] < 0) continue;
            const RowRuns& runs = scratch.slots[neighbourSlot[q]];
            above.runs[above.count] = &runs;
            above.first[above.count] = scratch.firstRuns[std::size_t(runs.row) % ring];
            above.reach[above.count] = std::uint32_t(g.neighbours[q].reach);
            ++above.count;
        }
        const RowRuns& runs = scratch.slots[0];
        std::uint32_t* entries = stripe.entries;
        switch (above.count) {
            case 0: linkRuns<0>(rule, ctx, r, next, entries, runs, above); break;
            case 1: linkRuns<1>(rule, ctx, r, next, entries, runs, above); break;
            case 2: linkRuns<2>(rule, ctx, r, next, entries, runs, above); break;
            case 3: linkRuns<3>(rule, ctx, r, next, entries, runs, above); break;
            default: linkRuns<4>(rule, ctx, r, next, entries, runs, above); break;
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

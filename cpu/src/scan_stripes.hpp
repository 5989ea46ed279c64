#pragma once
// Stage "scan": each stripe, on its own thread, numbers its runs in raster
// order and joins the connected ones of its own rows in a union-find over
// run numbers (RunForest), kept in the stripe's stretch of the label array
// (engine.hpp).
// The links of its first rows to rows of earlier stripes are found here too
// (in parallel, reading the input there) but only recorded, by the run's
// place in its row: merge joins them once every stripe has its numbers.

#include "engine.hpp"

namespace glccl::cpu::detail {

// Neighbour rows of a row, as the scan links to them.
struct AboveRows {
    const RowRuns* runs[4];
    std::uint32_t first[4];  // inside the stripe: the number of each row's first run
    std::uint32_t reach[4];
    std::uint32_t steps[4];  // NeighbourRow::steps
    int count = 0;
};

// Calls visit(j) for every run j of row b (runs `b`, input `rowB`) that run i
// of row a connects to, their elements at most `reach` apart along x (and
// of those, at the `steps` a neighbourhood's rule joins). The runs that
// touch are counted from b's start bits, not searched; binary runs connect
// whenever they touch, other criteria test the pair.
template <class Rule, class Visit>
inline void forEachConnectedRun(const Rule& rule, const RowRuns& a, const std::uint8_t* rowA, std::uint32_t i,
                                const RowRuns& b, const std::uint8_t* rowB, std::uint32_t reach,
                                std::uint32_t steps, std::uint32_t lastElement, Visit&& visit) {
    const std::uint32_t from = a.first[i] - std::min(a.first[i], reach);
    const std::uint32_t to = std::min(a.last[i] + reach, lastElement);
    std::uint32_t begin, end;
    b.touching(from, to, begin, end);
    for (std::uint32_t j = begin; j < end; ++j) {
        if constexpr (Rule::kStepped) {
            if (rule.runsConnectAt(rowA, a.span(i), rowB, b.span(j), steps)) visit(j);
        } else if (Rule::kBinary || rule.runsConnect(rowA, a.span(i), rowB, b.span(j), int(reach))) {
            visit(j);
        }
    }
}

// Joins the tree of run `other` to the tree being built for new run k,
// whose smallest root so far is `root` (k itself while it has none). k's
// own entry is written once its neighbours are joined, and every run it
// links to comes earlier: while it is its own root it takes other's.
inline void joinTree(const RunForest& forest, std::uint32_t k, std::uint32_t& root, std::uint32_t other) {
    // Most neighbours of a run in a large component hang right under its root.
    if (forest.entries.parent(other) == root) return;
    other = forest.find(other);
    root = root == k ? other : forest.linkRoots(root, other);
}

// Links binary runs to the runs of a neighbour row that they touch, found
// from the rows' words rather than run by run. Where both rows are
// foreground, each stretch lies in one run of either row, and each pair of
// runs that overlap overlaps in one such stretch: the stretches' first
// elements name the pairs. At reach 1 (8, 18, 26) runs also touch at a
// corner: a run of one row that ends where a run of the other starts one
// element later. Only the pairs that touch cost a count (no run that touches
// nothing costs anything), and the positions come 64 at a time.
inline void linkTouchingPairs(const RunForest& forest, std::uint32_t first, const RowRuns& runs,
                              const RowRuns& above, std::uint32_t aboveFirst, std::uint32_t reach, std::size_t words,
                              std::uint32_t* positions) {
    const auto unitePairs = [&](const std::uint32_t* end, std::uint32_t rowShift, std::uint32_t aboveShift) {
        for (const std::uint32_t* x = positions; x < end; ++x)
            forest.unite(first + runs.startsUpTo(*x + rowShift) - 1, aboveFirst + above.startsUpTo(*x + aboveShift) - 1);
    };
    std::uint32_t* end = positions;
    std::uint64_t carry = 0;
    for (std::size_t w = 0; w < words; ++w) {
        const std::uint64_t both = runs.foreground[w] & above.foreground[w];
        end = writeBitPositions(both & ~((both << 1) | carry), std::uint32_t(64 * w), end);
        carry = both >> 63;
    }
    unitePairs(end, 0, 0);
    if (reach == 0) return;
    // Corners: bit x of `ends & (starts >> 1)`, one row's run ending at x and
    // the other's starting at x + 1.
    const auto ends = [](const RowRuns& r, std::size_t w, std::size_t words) {
        const std::uint64_t next = w + 1 < words ? r.foreground[w + 1] : 0;
        return r.foreground[w] & ~((r.foreground[w] >> 1) | (next << 63));
    };
    const auto startsAfter = [](const RowRuns& r, std::size_t w, std::size_t words) {
        const std::uint64_t next = w + 1 < words ? r.starts[w + 1] : 0;
        return (r.starts[w] >> 1) | (next << 63);
    };
    end = positions;
    for (std::size_t w = 0; w < words; ++w)
        end = writeBitPositions(ends(runs, w, words) & startsAfter(above, w, words), std::uint32_t(64 * w), end);
    unitePairs(end, 0, 1);
    end = positions;
    for (std::size_t w = 0; w < words; ++w)
        end = writeBitPositions(ends(above, w, words) & startsAfter(runs, w, words), std::uint32_t(64 * w), end);
    unitePairs(end, 1, 0);
}

// Links the new runs of row r (numbered from `first`) to the runs of the
// `Rows` neighbour rows in `above`. Binary runs: the touching pairs, from
// the rows' words. Other criteria: each run takes the smallest root among
// the runs it connects to (its own number when none) and joins the others
// to it. Rows is a template argument so that the loops over rows unroll.
template <int Rows, class Rule>
void linkRuns(const Rule& rule, const EngineContext& ctx, std::int64_t r, std::uint32_t first,
              std::uint32_t* entries, const RowRuns& runs, const AboveRows& above, WorkerScratch& scratch) {
    if constexpr (Rule::kBinary) {
        for (std::uint32_t i = 0; i < runs.count; ++i) entries[first + i] = first + i;
        const std::size_t words = std::size_t((ctx.geometry.width + 63) / 64);
        for (int q = 0; q < Rows; ++q)
            linkTouchingPairs(runForest(entries), first, runs, *above.runs[q], above.first[q], above.reach[q], words,
                              scratch.overlaps.data());
        return;
    }
    const auto lastElement = std::uint32_t(ctx.geometry.width - 1);
    const std::uint8_t* row = ctx.row(r);
    const RunForest forest = runForest(entries);
    for (std::uint32_t i = 0; i < runs.count; ++i) {
        const std::uint32_t k = first + i;
        std::uint32_t root = k;
        for (int q = 0; q < Rows; ++q) {
            const RowRuns& b = *above.runs[q];
            forEachConnectedRun(rule, runs, row, i, b, ctx.row(b.row), above.reach[q], above.steps[q], lastElement,
                                [&](std::uint32_t j) { joinTree(forest, k, root, above.first[q] + j); });
        }
        entries[k] = root;
    }
}

// Records the links of the runs of row r (numbered from `first`) to the runs
// of its neighbour rows in earlier stripes.
template <class Rule>
void recordBorderLinks(const Rule& rule, const EngineContext& ctx, std::int64_t r, std::uint32_t first,
                       const RowRuns& runs, const AboveRows& outside, Stripe& stripe) {
    const auto lastElement = std::uint32_t(ctx.geometry.width - 1);
    const std::uint8_t* row = ctx.row(r);
    for (int q = 0; q < outside.count; ++q) {
        const RowRuns& b = *outside.runs[q];
        for (std::uint32_t i = 0; i < runs.count; ++i) {
            forEachConnectedRun(rule, runs, row, i, b, ctx.row(b.row), outside.reach[q], outside.steps[q],
                                lastElement,
                                [&](std::uint32_t j) { stripe.borderLinks.push_back({first + i, j}); });
        }
        stripe.borderRows.push_back({b.row, stripe.borderLinks.size()});
    }
}

template <class Rule>
void scanStripe(const Rule& rule, const EngineContext& ctx, Stripe& stripe, WorkerScratch& scratch) {
    const Geometry& g = ctx.geometry;
    for (RowRuns& slot : scratch.slots) slot.row = -1;
    RowWindow<Rule> window{rule, ctx, scratch};
    const std::size_t ring = scratch.firstRuns.size();
    stripe.borderLinks.clear();
    stripe.borderRows.clear();
    std::uint32_t next = 0;
    for (std::int64_t r = stripe.firstRow; r < stripe.endRow; ++r) {
        int neighbourSlot[4];
        window.prepare(r, neighbourSlot);
        scratch.firstRuns[std::size_t(r) % ring] = next;
        AboveRows inside, outside;
        for (int q = 0; q < g.neighbourCount; ++q) {
            if (neighbourSlot[q] < 0) continue;
            const RowRuns& runs = scratch.slots[neighbourSlot[q]];
            AboveRows& rows = runs.row >= stripe.firstRow ? inside : outside;
            rows.runs[rows.count] = &runs;
            rows.first[rows.count] = scratch.firstRuns[std::size_t(runs.row) % ring];
            rows.reach[rows.count] = std::uint32_t(g.neighbours[q].reach);
            rows.steps[rows.count] = g.neighbours[q].steps;
            ++rows.count;
        }
        const RowRuns& runs = scratch.slots[0];
        std::uint32_t* entries = stripe.entries;
        switch (inside.count) {
            case 0: linkRuns<0>(rule, ctx, r, next, entries, runs, inside, scratch); break;
            case 1: linkRuns<1>(rule, ctx, r, next, entries, runs, inside, scratch); break;
            case 2: linkRuns<2>(rule, ctx, r, next, entries, runs, inside, scratch); break;
            case 3: linkRuns<3>(rule, ctx, r, next, entries, runs, inside, scratch); break;
            default: linkRuns<4>(rule, ctx, r, next, entries, runs, inside, scratch); break;
        }
        if (outside.count > 0) recordBorderLinks(rule, ctx, r, next, runs, outside, stripe);
        next += runs.count;
        if ((r - stripe.firstRow) % kProgressRows == kProgressRows - 1) ctx.rowsDone(kProgressRows);
    }
    ctx.rowsDone((stripe.endRow - stripe.firstRow) % kProgressRows);
    stripe.runCount = next;
    // The first run of each of its last rows, for the links of later stripes.
    const std::int64_t tail = std::min(g.backRows, stripe.endRow - stripe.firstRow);
    stripe.tailFirstRuns.resize(std::size_t(tail));
    for (std::int64_t t = 0; t < tail; ++t)
        stripe.tailFirstRuns[std::size_t(t)] = scratch.firstRuns[std::size_t(stripe.endRow - tail + t) % ring];
}

template <class Rule>
void scanStripes(const Rule& rule, const EngineContext& ctx) {
    ctx.parallel(ctx.stripePlan->stripes(), [&](std::size_t s, WorkerScratch& scratch) {
        scanStripe(rule, ctx, ctx.stripe(s), scratch);
    });
}

}  // namespace glccl::cpu::detail

#pragma once
// Stage "final": each stripe, on its own thread, writes its labels over its
// codes (engine.hpp) and adds each run to the table: its own components'
// rows directly (no other stripe writes them; they are met in label order,
// which the caches follow), the components first met in earlier stripes into
// a small table of its own.
// Then those small tables are added in, on the calling thread, and the
// table is finished in parallel.

#include <algorithm>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "component_sums.hpp"
#include "engine.hpp"
#include "glccl/cpu_labeler.hpp"

namespace glccl::cpu::detail {

// Stores `value` at out[0..7].
inline void storeEight(std::uint32_t* out, std::uint32_t value) {
#if defined(__SSE2__)
    const __m128i v = _mm_set1_epi32(int(value));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 4), v);
#else
    for (int i = 0; i < 8; ++i) out[i] = value;
#endif
}

// Writes `value` over [from, to), where the eight elements from `from` on
// may be written whatever `to` is (they are written again later, and no
// code lies there): the short runs and gaps that noise is made of then cost
// two stores and no loop whose length a predictor guesses.
inline void fillShort(std::uint32_t* from, std::uint32_t* to, std::uint32_t value) {
    storeEight(from, value);
    if (to - from > 8) std::fill(from + 8, to, value);
}

// Copies `count` labels of a row to `out` with non-temporal stores where the
// row is aligned for them: labels larger than the caches would otherwise be
// read into them before they are overwritten, twice the memory traffic.
inline void streamRow(std::uint32_t* out, const std::uint32_t* row, std::size_t count) {
    std::size_t i = 0;
#if defined(__SSE2__)
    for (; i < count && (reinterpret_cast<std::uintptr_t>(out + i) & 15) != 0; ++i) out[i] = row[i];
    for (; i + 4 <= count; i += 4)
        _mm_stream_si128(reinterpret_cast<__m128i*>(out + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i)));
#endif
    for (; i < count; ++i) out[i] = row[i];
}

template <class Rule>
void writeStripe(const Rule& rule, const EngineContext& ctx, Stripe& stripe, WorkerScratch& scratch) {
    const Geometry& g = ctx.geometry;
    RowRuns& runs = scratch.slots[0];
    runs.row = -1;
    const std::uint32_t* codes = stripe.codes;
    Component* table = ctx.table->data();
    const auto firstLabel = std::uint32_t(stripe.firstLabel);
    // A component's first run is met before its others, and ranks come in
    // order: the run whose code is the next rank starts the component's row.
    std::uint32_t nextRank = 1;
    stripe.externalTable.assign(stripe.external.size(), Component{});
    std::uint32_t next = 0;
    // Each run's label, and each row's first run, where they are kept.
    const bool keepRuns = ctx.runStarts && !ctx.runStarts->empty();
    std::uint32_t* runLabels = keepRuns ? ctx.runLabels->data() + stripe.runBase : nullptr;
    std::uint64_t* runStarts = keepRuns ? ctx.runStarts->data() : nullptr;
    for (std::int64_t r = stripe.firstRow; r < stripe.endRow; ++r) {
        const auto y = std::uint32_t(r % g.height), z = std::uint32_t(r / g.height);
        std::uint64_t* foreground = ctx.foregroundRow(r);
        extractRuns<false>(rule, ctx.row(r), g.width, runs, foreground);
        if (foreground) foreground[ctx.foregroundStride - 1] = 0;
        if (keepRuns) runStarts[r] = stripe.runBase + next;
        // Streamed rows are made in the worker's row first, where no code lies.
        std::uint32_t* out = ctx.streamLabels ? scratch.rowLabels.data() : ctx.labelRow(r);
        std::uint32_t* written = out;
        for (std::uint32_t i = 0; i < runs.count; ++i) {
            const std::uint32_t k = next + i;
            const std::uint32_t code = codes[k];
            const std::uint32_t first = runs.first[i], last = runs.last[i];
            std::uint32_t label;
            if (code & kExternal) {
                Component& part = stripe.externalTable[code & ~kExternal];
                label = stripe.externalLabel[code & ~kExternal];
                addRun(part, part.area == 0, first, last, y, z);
            } else {
                label = firstLabel + code;
                const bool starts = code == nextRank;
                nextRank += starts;
                addRun(table[label - 1], starts, first, last, y, z);
            }
            if (keepRuns) runLabels[k] = label;
            // Up to the next run's code everything may be written (engine.hpp).
            std::uint32_t* const run = out + first;
            if (ctx.streamLabels || run + 8 <= codes + k + 1) {
                fillShort(written, run, 0);
                fillShort(run, out + last + 1, label);
            } else {
                std::fill(written, run, 0u);
                std::fill(run, out + last + 1, label);
            }
            written = out + last + 1;
        }
        std::fill(written, out + g.width, 0u);
        if (ctx.streamLabels) streamRow(ctx.labelRow(r), out, std::size_t(g.width));
        next += runs.count;
        if ((r - stripe.firstRow) % kProgressRows == kProgressRows - 1) ctx.rowsDone(kProgressRows);
    }
    ctx.rowsDone((stripe.endRow - stripe.firstRow) % kProgressRows);
#if defined(__SSE2__)
    if (ctx.streamLabels) _mm_sfence();  // the streamed stores before the stage ends
#endif
}

template <class Rule>
void writeLabels(const Rule& rule, const EngineContext& ctx) {
    const std::size_t stripes = ctx.stripePlan->stripes();
    if (ctx.runStarts) {
        std::uint64_t runs = 0;
        for (std::size_t s = 0; s < stripes; ++s) {
            ctx.stripe(s).runBase = runs;
            runs += ctx.stripe(s).runCount;
        }
        const Geometry& g = ctx.geometry;
        if (runs * kElementsPerRunLabel <= std::uint64_t(g.width) * std::uint64_t(g.rows)) {
            ctx.runLabels->resize(runs);
            ctx.runStarts->resize(std::size_t(g.rows) + 1);
            ctx.runStarts->back() = runs;
        } else {
            ctx.runLabels->clear();
            ctx.runStarts->clear();
        }
    }
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

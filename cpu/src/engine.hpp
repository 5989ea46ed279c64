#pragma once
// What the cpu engine's stages share: the input, the stripes with their
// forests of runs, the workers' scratch, and the entries of the two
// union-finds (inside a stripe, and across stripes).
//
// A stripe's runs are numbered 0, 1, ... in raster order. Run k's entry is
// element k of the stripe's own stretch of the label array (a stripe of E
// elements has at most E runs, so the entries fit where its labels will go):
// the label array is the forest, and no other per-element memory is needed.
// An entry holds, by stage:
//   scan, merge   the run's parent: a smaller run of the stripe, or itself
//                 for a root; or kExternal | j for a root that merge joined
//                 to a run of an earlier stripe, external[j]
//   number        the run's code: its root's rank among the stripe's roots
//                 (1, 2, ...), or kExternal | j; then the codes move to the
//                 end of the stretch (codes), run k to E - R + k of a stripe
//                 of E elements and R runs
//   final         the labels, written forwards over the codes: the runs after
//                 run k have at least R - 1 - k elements after its last one,
//                 so its last element lies at E - R + k or before, and no code
//                 is overwritten before it is read

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "geometry.hpp"
#include "glccl/error.hpp"
#include "glccl/key_forest.hpp"
#include "glccl/progress.hpp"
#include "glccl/types.hpp"
#include "row_runs.hpp"
#include "thread_pool.hpp"

namespace glccl::cpu::detail {

constexpr std::uint32_t kExternal = 0x80000000u;
// Rows a stripe's scan and final do between two reports of progress.
constexpr std::int64_t kProgressRows = 64;
// A stripe's elements at most: its runs and their codes stay below kExternal.
constexpr std::uint64_t kMaxStripeElements = kExternal - 1;

// A run anywhere: its stripe in the high 32 bits, its number in the low.
// Ordered as the raster order of the runs' first elements.
using Node = std::uint64_t;
inline Node nodeOf(std::uint64_t stripe, std::uint32_t run) { return (stripe << 32) | run; }
inline std::uint32_t stripeOf(Node n) { return std::uint32_t(n >> 32); }
inline std::uint32_t runOf(Node n) { return std::uint32_t(n); }

// A link scan found from run `run` of a stripe to run `index` of a row of an
// earlier stripe (counted in its row: that stripe's numbers are not known
// while the stripes are scanned side by side). The row is its group's.
struct BorderLink {
    std::uint32_t run;
    std::uint32_t index;
};

// The links to one row of an earlier stripe: they end at linkEnd.
struct BorderRow {
    std::int64_t row;
    std::size_t linkEnd;
};

struct Stripe {
    std::int64_t firstRow = 0, endRow = 0;
    std::uint32_t* entries = nullptr;  // the label array from the stripe's first element on
    std::uint32_t* codes = nullptr;    // number, final: where the codes moved
    std::uint32_t runCount = 0;
    std::uint64_t runBase = 0;  // final: the runs of the stripes before (EngineContext::runLabels)
    std::uint32_t rootCount = 0;  // components whose first run is here
    std::uint64_t firstLabel = 0;  // labels of the stripes before: its roots are firstLabel + 1, ...
    std::vector<BorderLink> borderLinks;       // scan: links of its first rows to earlier stripes,
    std::vector<BorderRow> borderRows;         // in groups by the row they reach
    std::vector<std::uint32_t> tailFirstRuns;  // scan: the first run of each of its last rows (up to backRows)
    std::vector<Node> external;  // merge: where its joined roots went; number: their global roots
    std::vector<std::uint32_t> externalLabel;  // number: the label of external[j]
    std::vector<Component> externalTable;  // final: what its runs add to external[j]'s component
};

// A worker's scratch: the runs of the rows a row links to (one slot per row
// it may look at: itself and four neighbours), and the run numbers of the
// rows since the farthest a link reaches back.
struct WorkerScratch {
    RowRuns slots[5];
    std::vector<std::uint32_t> firstRuns;  // scan: first run number of row r at r % size
    std::vector<std::uint32_t> rowLabels;  // final: a row of labels before it is streamed out
    std::vector<std::uint32_t> overlaps;   // scan: where a row and a neighbour row start to overlap

    void reserve(std::int64_t maxRuns, std::int64_t width, std::int64_t backRows) {
        for (RowRuns& slot : slots) slot.reserve(maxRuns, width);
        if (firstRuns.size() < std::size_t(backRows + 1)) firstRuns.resize(std::size_t(backRows + 1));
        if (rowLabels.size() < std::size_t(width) + kSlack) rowLabels.resize(std::size_t(width) + kSlack);
        if (overlaps.size() < std::size_t(maxRuns) + kSlack) overlaps.resize(std::size_t(maxRuns) + kSlack);
    }
};

struct EngineContext {
    const std::uint8_t* pixels = nullptr;
    std::size_t elementBytes = 0;
    Geometry geometry;
    const StripePlan* stripePlan = nullptr;
    std::uint32_t* labels = nullptr;
    std::vector<Stripe>* stripes = nullptr;
    std::vector<WorkerScratch>* workers = nullptr;
    ThreadPool* pool = nullptr;
    int threads = 1;
    std::vector<Component>* table = nullptr;
    bool streamLabels = false;  // final writes the labels with non-temporal stores
    // Where set, final copies each row's foreground words here, a row
    // foregroundStride words apart (Options::foreground).
    std::uint64_t* foreground = nullptr;
    std::size_t foregroundStride = 0;
    // Where set (with foreground), final writes each run's label into
    // runLabels and each row's first run's index into runStarts, sized by
    // writeLabels (Options::runLabels).
    std::vector<std::uint32_t>* runLabels = nullptr;
    std::vector<std::uint64_t>* runStarts = nullptr;
    const std::function<bool()>* cancelled = nullptr;
    StageTimings* timings = nullptr;
    LabelProgress* progress = nullptr;
    const char* entry = "glccl::cpu::Labeler::label(): ";

    const std::uint8_t* row(std::int64_t r) const {
        return pixels + std::size_t(r) * std::size_t(geometry.width) * elementBytes;
    }
    std::uint32_t* labelRow(std::int64_t r) const { return labels + std::size_t(r) * std::size_t(geometry.width); }
    std::uint64_t* foregroundRow(std::int64_t r) const {
        return foreground ? foreground + std::size_t(r) * foregroundStride : nullptr;
    }
    Stripe& stripe(std::size_t s) const { return (*stripes)[s]; }

    // `rows` more rows of the current stage done (any thread): scan and final
    // tell it every kProgressRows rows of a stripe.
    void rowsDone(std::int64_t rows) const {
        if (progress) progress->advance(std::uint64_t(rows));
    }

    // Throws glccl::Cancelled when the caller's callback asks to stop.
    void checkCancelled() const {
        if (cancelled && *cancelled && (*cancelled)()) throw Cancelled(std::string(entry) + "cancelled");
    }
    // task(i, scratch) for i in 0..count-1 on the threads; the calling
    // thread polls the callback before each task it takes.
    template <class Task>
    void parallel(std::size_t count, const Task& task) const {
        checkCancelled();
        std::atomic<bool> stop{false};
        const auto guarded = [&](std::size_t i, int worker) {
            if (stop.load(std::memory_order_relaxed)) return;
            if (worker == 0 && cancelled && *cancelled && (*cancelled)()) {
                stop.store(true, std::memory_order_relaxed);
                return;
            }
            task(i, (*workers)[std::size_t(worker)]);
        };
        pool->run(count, threads, guarded);
        if (stop.load()) throw Cancelled(std::string(entry) + "cancelled");
    }
};

// The union-find inside a stripe being scanned (glccl/key_forest.hpp): its
// runs' entries in the stripe's stretch of the label array, parents smaller
// runs. Scan joins nothing across stripes, so no entry is external yet.
struct StripeRuns {
    using Key = std::uint32_t;
    std::uint32_t* entries;
    std::uint32_t parent(std::uint32_t run) const { return entries[run]; }
    void halve(std::uint32_t run, std::uint32_t grandparent) const { entries[run] = grandparent; }
    void link(std::uint32_t root, std::uint32_t to) const { entries[root] = to; }
    static bool earlier(std::uint32_t a, std::uint32_t b) { return a < b; }
};
using RunForest = glccl::detail::KeyForest<StripeRuns>;
inline RunForest runForest(std::uint32_t* entries) { return {{entries}}; }

// The union-find across stripes (glccl/key_forest.hpp) over every run as a
// Node. A run's entry names a run of its own stripe, so a root that merge
// joins to a run of an earlier stripe holds kExternal | j instead, its
// parent the stripe's external[j]; a halving that would point a run at
// another stripe's run where its entry is not external keeps the old parent.
struct StripeNodes {
    using Key = Node;
    std::uint32_t* const* runs;  // each stripe's entries
    Stripe* stripes;
    Node parent(Node n) const {
        const std::uint32_t entry = runs[stripeOf(n)][runOf(n)];
        if (entry & kExternal) return stripes[stripeOf(n)].external[entry & ~kExternal];
        return (n & ~Node(UINT32_MAX)) | entry;
    }
    void halve(Node n, Node grandparent) const {
        std::uint32_t& entry = runs[stripeOf(n)][runOf(n)];
        if (entry & kExternal) stripes[stripeOf(n)].external[entry & ~kExternal] = grandparent;
        else if (stripeOf(grandparent) == stripeOf(n)) entry = runOf(grandparent);
    }
    void link(Node root, Node to) const {
        std::uint32_t& entry = runs[stripeOf(root)][runOf(root)];
        if (stripeOf(to) == stripeOf(root)) {
            entry = runOf(to);
        } else {
            std::vector<Node>& external = stripes[stripeOf(root)].external;
            entry = kExternal | std::uint32_t(external.size());
            external.push_back(to);
        }
    }
    static bool earlier(Node a, Node b) { return a < b; }
};
using NodeForest = glccl::detail::KeyForest<StripeNodes>;
// `runs`: each stripe's entries, kept by the caller while the forest is used.
inline NodeForest nodeForest(const EngineContext& ctx, std::vector<std::uint32_t*>& runs) {
    runs.resize(ctx.stripes->size());
    for (std::size_t s = 0; s < runs.size(); ++s) runs[s] = ctx.stripe(s).entries;
    return {{runs.data(), ctx.stripes->data()}};
}

// The rows a row links to, as slots of the worker's scratch holding their
// runs: slot 0 the row itself.
template <class Rule>
struct RowWindow {
    const Rule& rule;
    const EngineContext& ctx;
    WorkerScratch& scratch;

    // Makes slot 0 row r's runs, and returns in `rows` the slot of each
    // neighbour q (-1 where it is outside the input).
    void prepare(std::int64_t r, int rows[4]) {
        const Geometry& g = ctx.geometry;
        const std::int64_t y = r % g.height, z = r / g.height;
        std::int64_t wanted[5] = {r, -1, -1, -1, -1};
        for (int q = 0; q < g.neighbourCount; ++q) {
            const std::int64_t n = g.neighbourOf(r, y, z, g.neighbours[q]);
            wanted[q + 1] = n;
        }
        // Keep the slots of wanted rows, refill the others.
        bool kept[5] = {};
        int slotOf[5] = {-1, -1, -1, -1, -1};
        for (int w = 0; w < 5; ++w) {
            if (wanted[w] < 0) continue;
            for (int s = 0; s < 5; ++s) {
                if (scratch.slots[s].row == wanted[w]) {
                    slotOf[w] = s;
                    kept[s] = true;
                }
            }
        }
        for (int w = 0; w < 5; ++w) {
            if (wanted[w] < 0 || slotOf[w] >= 0) continue;
            int s = 0;
            while (kept[s]) ++s;
            kept[s] = true;
            slotOf[w] = s;
            extractRuns(rule, ctx.row(wanted[w]), g.width, scratch.slots[s]);
            scratch.slots[s].row = wanted[w];
        }
        // Slot 0 is row r (swapped into place, vectors moved not copied).
        if (slotOf[0] != 0) {
            std::swap(scratch.slots[0], scratch.slots[slotOf[0]]);
            for (int w = 1; w < 5; ++w) {
                if (slotOf[w] == 0) slotOf[w] = slotOf[0];
            }
            slotOf[0] = 0;
        }
        for (int q = 0; q < 4; ++q) rows[q] = slotOf[q + 1];
    }
};

}  // namespace glccl::cpu::detail

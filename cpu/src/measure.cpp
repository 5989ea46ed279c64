// The cpu engine's measurement (glccl/measure.hpp): three passes over fixed
// chunks of rows on a team of threads.
//   1. labels: the largest, none negative, which are present (skipped for
//      an engine's labeling, labels 1..n);
//   2. element counts and boxes (skipped for an engine's labeling, whose
//      table has them);
//   3. the requested terms (measure_chunks.hpp).
// For labels few beside the image, passes 1 to 3 are one read of them
// (totalsInOnePass), or passes 1 and 2 where 3 cannot be joined to them.

#include <glccl/cpu_labeler.hpp>
#include <glccl/error.hpp>
#include <glccl/measure.hpp>
#include <glccl/measure_team.hpp>

#include "measure_gather.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include <unistd.h>

namespace glccl {

namespace {

using cpu::detail::ThreadPool;
using namespace cpu::measure;

std::string where() { return "glccl::measureRegions(): "; }

// Calls f(const T*) with the labels as their element type.
template <class F>
void withLabels(const LabelSamples& l, F&& f) {
    const void* d = l.data;
    switch (l.bytes * (l.isSigned ? -1 : 1)) {
    case 1: f(static_cast<const std::uint8_t*>(d)); break;
    case 2: f(static_cast<const std::uint16_t*>(d)); break;
    case 4: f(static_cast<const std::uint32_t*>(d)); break;
    case 8: f(static_cast<const std::uint64_t*>(d)); break;
    case -1: f(static_cast<const std::int8_t*>(d)); break;
    case -2: f(static_cast<const std::int16_t*>(d)); break;
    case -4: f(static_cast<const std::int32_t*>(d)); break;
    default: f(static_cast<const std::int64_t*>(d)); break;
    }
}

// Region index of a label value: its rank among the present labels
// (ascending); label 0 a region only where the background is measured.
struct RegionIndex {
    enum class Mode { Consecutive, Dense, Sparse } mode = Mode::Consecutive;
    bool background = false;
    std::vector<std::int64_t> table;      // Dense: by label value
    std::vector<std::uint64_t> sorted;    // Sparse: the present labels
    // Consecutive labels of a caller's table of `most` regions, or null:
    // labels past it are no region, and set *past (a pass of their own
    // would read every label once more).
    std::atomic<bool>* past = nullptr;
    std::uint64_t most = 0;

    // Row `flatRow` of labels `in` as region indices of type Id (32-bit
    // ones only where the regions fit them).
    template <class T, class Id>
    void fill(const T* in, std::int64_t w, Id* out) const {
        switch (mode) {
        case Mode::Consecutive: {
            // Label v is region v - 1, the background (0) kNoRegion (-1):
            // one subtraction, no branch (noise's labels change at random).
            static_assert(kNoRegion == -1);
            const Id shift = background ? 0 : 1;
            if (!past) {
                for (std::int64_t x = 0; x < w; ++x) out[x] = Id(in[x]) - shift;
                break;
            }
            std::uint64_t over = 0;
            for (std::int64_t x = 0; x < w; ++x) {
                over |= std::uint64_t(std::uint64_t(in[x]) > most);
                out[x] = Id(in[x]) - shift;
            }
            if (over) {
                for (std::int64_t x = 0; x < w; ++x)
                    if (std::uint64_t(in[x]) > most) out[x] = Id(kNoRegion);
                past->store(true, std::memory_order_relaxed);
            }
            break;
        }
        case Mode::Dense:
            for (std::int64_t x = 0; x < w; ++x) out[x] = Id(table[std::size_t(in[x])]);
            break;
        default: {
            T last = 0;
            std::int64_t lastIndex = kNoRegion;
            bool started = false;
            for (std::int64_t x = 0; x < w; ++x) {
                if (!started || in[x] != last) {
                    started = true;
                    last = in[x];
                    const auto it = std::lower_bound(sorted.begin(), sorted.end(), std::uint64_t(last));
                    lastIndex = it != sorted.end() && *it == std::uint64_t(last) ? std::int64_t(it - sorted.begin()) : kNoRegion;
                }
                out[x] = Id(lastIndex);
            }
        }
        }
    }
};

void checkShape(const Shape& shape) {
    if (shape.dimensions != 2 && shape.dimensions != 3) throw Error(where() + "regions are measured in 2-D and 3-D images");
    if (shape.dimensions == 2 && shape.depth != 1)
        throw Error(where() + "a 2-D shape has depth 1, not " + std::to_string(shape.depth) + " (Shape::volume for a volume)");
    for (int a = 0; a < shape.dimensions; ++a)
        if (shape.extent(a) <= 0 || shape.extent(a) > (std::int64_t(1) << 24))
            throw Error(where() + "every side must be 1 to 2^24 elements, not " + std::to_string(shape.extent(a)));
}

void checkIntensity(const IntensitySamples& s, const Shape& shape) {
    if (s.shape.width != shape.width || s.shape.height != shape.height || s.shape.depth != shape.depth ||
        s.shape.dimensions != shape.dimensions)
        throw Error(where() + "the intensity image's shape differs from the labels'");
    if (s.channels < 1) throw Error(where() + "the intensity image has no channel");
    if (!s.data) throw Error(where() + "the intensity samples are null");
    const bool ok = s.kind == SampleKind::Float ? (s.bytes == 4 || s.bytes == 8)
                                                : (s.bytes == 1 || s.bytes == 2 || s.bytes == 4 || s.bytes == 8);
    if (!ok) throw Error(where() + "intensity samples of " + std::to_string(s.bytes) + " bytes are not read");
}

int bitLength(unsigned __int128 v) {
    int bits = 0;
    while (v) {
        ++bits;
        v >>= 1;
    }
    return bits;
}

// Pass 3 with the accumulator and intensity type the request needs.
template <class Acc>
void gatherWith(const Pass& pass, const IntensitySamples* s, ThreadPool& pool, int threads, RegionTotals& totals) {
    if (!s || pass.q.channels == 0) {
        gatherTerms<Acc>(pass, NoIntensity{}, pool, threads, totals);
        return;
    }
    auto run = [&](auto typed) {
        using T = std::remove_const_t<std::remove_pointer_t<decltype(typed)>>;
        Intensity<T> in;
        in.data = typed;
        in.channels = s->channels;
        in.size = std::size_t(pass.grid.w * pass.grid.h * pass.grid.d) * std::size_t(s->channels);
        gatherTerms<Acc>(pass, in, pool, threads, totals);
    };
    const void* d = s->data;
    if (s->kind == SampleKind::Float) {
        if (s->bytes == 4) run(static_cast<const float*>(d));
        else run(static_cast<const double*>(d));
        return;
    }
    const bool sg = s->kind == SampleKind::Signed;
    switch (s->bytes) {
    case 1: sg ? run(static_cast<const std::int8_t*>(d)) : run(static_cast<const std::uint8_t*>(d)); break;
    case 2: sg ? run(static_cast<const std::int16_t*>(d)) : run(static_cast<const std::uint16_t*>(d)); break;
    case 4: sg ? run(static_cast<const std::int32_t*>(d)) : run(static_cast<const std::uint32_t*>(d)); break;
    default: sg ? run(static_cast<const std::int64_t*>(d)) : run(static_cast<const std::uint64_t*>(d)); break;
    }
}

// Bits of a product of the requested coordinate powers, for coordinates
// below `extent`.
int coordinateBitsOf(const Grid& g, const TermRequest& q, std::int64_t extent) {
    auto degreeOf = [&](int level) { return level == 4 ? 3 * g.dims : level; };
    return bitLength((unsigned __int128)extent) * std::max(degreeOf(q.momentLevel), degreeOf(q.weightedMomentLevel));
}
// Bits a chunk's sums reach, for coordinates below `extent` from their
// origin (throws past what is summed exactly).
int bitsNeeded(const Grid& g, const TermRequest& q, std::int64_t extent) {
    const int coordinateBits = coordinateBitsOf(g, q, extent);
    if (coordinateBits > 120)
        throw Error(where() + "the moments of a region " + std::to_string(extent) + " elements across exceed what is summed exactly");
    const int chunkBits = bitLength((unsigned __int128)(g.rowsPerChunk * g.w)) + 1;
    const int intensityBits = q.channels && q.intensityKind != SampleKind::Float ? q.intensityBits : 0;
    return chunkBits + std::max({coordinateBits, coordinateBits + (q.weightedMomentLevel ? intensityBits : 0), 2 * intensityBits});
}

// Pass 3 and the totals, for regions whose counts and boxes are known.
// `asBits`: a binary labeling's labels (LabelSamples::foregroundConnected,
// 32-bit, 2-D), read as bits of its foreground, with the foreground and
// run labels it gives; null: the labels are read as ids.
RegionTotals totalsOf(const Grid& g, const Owned& owned, const TermRequest& q, Boxes boxes, std::vector<std::uint64_t> labels,
                      const RowFill& fill, const RowFill32* fill32, const IntensitySamples* intensity, ThreadPool& pool,
                      int threads, const Shape& shape, const PiecePlace* piece, const LabelSamples* asBits = nullptr) {
    RegionTotals totals;
    totals.request = q;
    totals.regions = labels.size();
    totals.labels = std::move(labels);
    const Shape whole = piece ? piece->whole : shape;
    for (int a = whole.dimensions - 1; a >= 0; --a) totals.imageExtents.push_back(whole.extent(a));
    if (q.any()) {
        Pass pass{g, owned, q, boxes, fill, fill32, TermRequest::exponents(q.momentLevel, g.dims),
                  TermRequest::exponents(q.weightedMomentLevel, g.dims)};
        pass.whole = piece == nullptr;
        if (asBits) {
            pass.foregroundLabels = static_cast<const std::uint32_t*>(asBits->data);
            pass.foregroundBits = asBits->foreground;
            if (pass.foregroundBits && asBits->runStarts) {
                pass.runLabels = asBits->runLabels;
                pass.runStarts = asBits->runStarts;
            }
        }
        // The region of the most elements, where it has at least a row's.
        std::uint64_t most = std::uint64_t(g.w);
        for (std::size_t r = 0; r < totals.regions; ++r)
            if (boxes.counts[r] >= most) {
                most = boxes.counts[r];
                pass.dominant = std::int64_t(r);
            }
        // The accumulator that holds every sum a chunk reaches.
        std::int64_t extent = 1;
        for (std::size_t r = 0; r < totals.regions; ++r)
            for (std::size_t a = 0; a < 3 && boxes.counts[r] > 0; ++a) extent = std::max(extent, boxes.max[r][a] - boxes.min[r][a] + 1);
        if (piece)  // pieces' sums are re-centred on boxes up to the whole image
            for (int a = 0; a < whole.dimensions; ++a) extent = std::max(extent, whole.extent(a));
        if (bitsNeeded(g, q, extent) < 126) gatherWith<__int128>(pass, intensity, pool, threads, totals);
        else gatherWith<Int256>(pass, intensity, pool, threads, totals);
    }
    totals.counts = std::move(boxes.counts);
    totals.boxMin = std::move(boxes.min);
    totals.boxMax = std::move(boxes.max);
    if (piece) {
        // Boxes and the extrema's positions in the whole image's coordinates.
        for (std::size_t r = 0; r < totals.regions; ++r)
            for (std::size_t a = 0; a < 3 && totals.counts[r] > 0; ++a) {
                totals.boxMin[r][a] += piece->origin[a];
                totals.boxMax[r][a] += piece->origin[a];
            }
        auto toWhole = [&](std::uint64_t flat) {
            const std::int64_t x = std::int64_t(flat % std::uint64_t(g.w)) + piece->origin[0];
            const std::int64_t y = std::int64_t(flat / std::uint64_t(g.w) % std::uint64_t(g.h)) + piece->origin[1];
            const std::int64_t z = std::int64_t(flat / std::uint64_t(g.w * g.h)) + piece->origin[2];
            return std::uint64_t((z * whole.height + y) * whole.width + x);
        };
        for (auto& at : totals.intensityMinAt) at = toWhole(at);
        for (auto& at : totals.intensityMaxAt) at = toWhole(at);
    }
    return totals;
}

// The process's team and the lock a measurement holds it by.
struct SharedTeam {
    std::mutex mutex;
    ThreadPool* pool = nullptr;
    pid_t owner = 0;

    static SharedTeam& get() {
        static SharedTeam team;
        return team;
    }
    // The team of at least `threads` workers; the caller holds `mutex`. A
    // child process (fork) starts a team of its own: the parent's threads
    // are not in it. Left to the end of the process, its workers asleep (a
    // forked child's copy holds no threads to end).
    ThreadPool& grown(int threads) {
        if (!pool || owner != getpid()) {
            pool = new ThreadPool(threads);
            owner = getpid();
        }
        pool->grow(threads);
        return *pool;
    }
};

// The workers of one measurement: the process's team, kept from call to
// call (starting a thread, and the first touches of its stack and heap,
// cost about what a small image's pass does), or a team of its own where
// another measurement holds that one.
class Team {
public:
    explicit Team(int threads) : lock_(SharedTeam::get().mutex, std::try_to_lock) {
        if (lock_.owns_lock()) {
            pool_ = &SharedTeam::get().grown(threads);
        } else {
            own_ = std::make_unique<ThreadPool>(threads);
            pool_ = own_.get();
        }
    }
    ThreadPool& pool() { return *pool_; }

private:
    std::unique_lock<std::mutex> lock_;
    std::unique_ptr<ThreadPool> own_;
    ThreadPool* pool_ = nullptr;
};

int teamSize(int threads, const Grid& g) {
    if (const std::string why = whyThreadsRefused(threads); !why.empty()) throw Error(where() + "threads are " + why);
    if (threads == 0) threads = cpu::defaultThreads();
    return int(std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(threads), g.chunks)));
}

// Pass 2: counts and boxes of the owned elements. Each worker gathers the
// regions of every chunk it takes in one set of slots, kept from chunk to
// chunk (no table per chunk: with many tiny regions, fresh tables cost more
// than the counting); counts add and boxes widen in any order, so the
// workers' slots are merged in any order too.
Boxes boxesOf(const Grid& g, const Owned& owned, std::size_t n, const RowFill& fill, ThreadPool& pool, int threads) {
    Boxes boxes;
    reserveMapped(boxes.counts, n);
    reserveMapped(boxes.min, n);
    reserveMapped(boxes.max, n);
    boxes.counts.assign(n, 0);
    const std::int64_t big = std::numeric_limits<std::int64_t>::max();
    boxes.min.assign(n, {big, big, big});
    boxes.max.assign(n, {-1, -1, -1});
    struct Part {
        std::vector<std::int64_t> region;
        std::vector<std::uint64_t> count;
        std::vector<std::array<std::int64_t, 3>> min, max;
        std::vector<std::int32_t> slotOf;  // dense: by region
        std::unordered_map<std::int64_t, std::size_t> sparse;
        std::vector<std::int64_t> row;
        std::vector<std::uint64_t> runBits;
    };
    std::vector<Part> parts(static_cast<std::size_t>(threads));
    const bool dense = n <= ChunkTable<__int128>::kDenseRegions;
    pool.run(g.chunks, threads, [&](std::size_t chunk, int worker) {
        Part& p = parts[std::size_t(worker)];
        if (p.row.empty()) {
            reserveMapped(p.row, std::size_t(g.w));
            p.row.resize(std::size_t(g.w));
            if (dense) {
                reserveMapped(p.slotOf, n);
                p.slotOf.assign(n, -1);
            }
            // About the share of regions one worker meets, so that the
            // slots rarely grow.
            const std::size_t guess = std::min<std::size_t>(n, n / std::size_t(threads) + 1024);
            reserveMapped(p.region, guess);
            reserveMapped(p.count, guess);
            reserveMapped(p.min, guess);
            reserveMapped(p.max, guess);
        }
        std::int64_t* row = p.row.data();
        std::int64_t last = kNoRegion;
        std::size_t lastSlot = 0;
        for (std::int64_t flat = g.chunkBegin(chunk); flat < g.chunkEnd(chunk); ++flat) {
            const std::int64_t y = flat % g.h, z = flat / g.h;
            if (!owned.row(y, z)) continue;
            fill(flat, row);
            forEachRun(row, owned.begin[0], owned.end[0], p.runBits, [&](std::int64_t x, std::int64_t x1, std::int64_t r) {
                if (r != last) {
                    const std::size_t fresh = p.region.size();
                    if (dense) {
                        std::int32_t& found = p.slotOf[std::size_t(r)];
                        if (found < 0) found = std::int32_t(fresh);
                        lastSlot = std::size_t(found);
                    } else {
                        lastSlot = p.sparse.emplace(r, fresh).first->second;
                    }
                    if (lastSlot == fresh) {
                        p.region.push_back(r);
                        p.count.push_back(0);
                        p.min.push_back({x, y, z});
                        p.max.push_back({x1 - 1, y, z});
                    }
                    last = r;
                }
                const std::size_t s = lastSlot;
                p.count[s] += std::uint64_t(x1 - x);
                p.min[s] = {std::min(p.min[s][0], x), std::min(p.min[s][1], y), std::min(p.min[s][2], z)};
                p.max[s] = {std::max(p.max[s][0], x1 - 1), std::max(p.max[s][1], y), std::max(p.max[s][2], z)};
            });
        }
    });
    for (Part& p : parts) {
        for (std::size_t s = 0; s < p.region.size(); ++s) {
            const std::size_t r = std::size_t(p.region[s]);
            boxes.counts[r] += p.count[s];
            for (std::size_t a = 0; a < 3; ++a) {
                boxes.min[r][a] = std::min(boxes.min[r][a], p.min[s][a]);
                boxes.max[r][a] = std::max(boxes.max[r][a], p.max[s][a]);
            }
        }
        p = Part();
    }
    return boxes;
}

// Label values below this many are counted by value (a worker's table of
// them, about 60 bytes a value, is cleared and merged whole).
constexpr std::size_t kFewLabels = std::size_t(1) << 16;

// Which label values are present, and each one's count and box of owned
// elements, by label value.
struct ByValue {
    std::vector<char> seen;
    std::vector<std::uint64_t> count;
    std::vector<std::array<std::int64_t, 3>> min, max;
    void grow(std::size_t values) {
        const std::int64_t big = std::numeric_limits<std::int64_t>::max();
        reserveMapped(seen, values);
        reserveMapped(count, values);
        reserveMapped(min, values);
        reserveMapped(max, values);
        seen.resize(values, 0);
        count.resize(values, 0);
        min.resize(values, {big, big, big});
        max.resize(values, {-1, -1, -1});
    }
};

// Whether a label of in[0, w) is `limit` or more (negative ones wrap to
// beyond it). Labels of 4 bytes compared 4 at a time.
template <class T>
bool past(const T* in, std::int64_t w, std::size_t limit) {
    std::int64_t x = 0;
    bool beyond = false;
#if defined(__SSE2__)
    if constexpr (sizeof(T) == 4) {
        if (limit <= (std::size_t(1) << 31)) {
            // Unsigned v >= limit, as signed compares of v and limit - 1 with their top bits flipped.
            const __m128i top = _mm_set1_epi32(std::int32_t(0x80000000u));
            const __m128i last = _mm_set1_epi32(std::int32_t(std::uint32_t(limit - 1) ^ 0x80000000u));
            __m128i any = _mm_setzero_si128();
            for (; x + 4 <= w; x += 4) {
                const __m128i v = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + x)), top);
                any = _mm_or_si128(any, _mm_cmpgt_epi32(v, last));
            }
            beyond = _mm_movemask_epi8(any) != 0;
        }
    }
#endif
    for (; x < w; ++x) beyond |= std::uint64_t(std::int64_t(in[x])) >= limit;
    return beyond;
}

// Bits x - x0 set for x in [from, to) where in[x] != in[x - 1] (from >= 1,
// to - x0 <= 64); labels of 4 bytes compared 4 at a time.
template <class T>
std::uint64_t runStarts(const T* in, std::int64_t from, std::int64_t to, std::int64_t x0) {
    std::uint64_t starts = 0;
    std::int64_t x = from;
#if defined(__SSE2__)
    if constexpr (sizeof(T) == 4)
        for (; x + 4 <= to; x += 4) {
            const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + x));
            const __m128i before = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + x - 1));
            const std::uint64_t same = std::uint64_t(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(here, before))));
            starts |= (~same & 15) << (x - x0);
        }
#endif
    for (; x < to; ++x) starts |= std::uint64_t(in[x] != in[x - 1]) << (x - x0);
    return starts;
}

// Passes 1 and 2 in one, for labels all below `limit`: one read of the
// labels, as runs of equal values, where the largest label, which are
// present and the counts and boxes take three. Nothing where a label is
// negative or `limit` or more (the workers stop at the first such row).
// Counts add and boxes widen in any order, so the workers' tables are
// merged in any order too.
template <class T>
std::optional<ByValue> countsByValue(const Grid& g, const Owned& owned, std::size_t limit, const T* data, ThreadPool& pool,
                                     int threads) {
    struct Part {
        ByValue t;
        bool started = false;
    };
    std::vector<Part> parts(static_cast<std::size_t>(threads));
    std::atomic<bool> beyond{false};
    pool.run(g.chunks, threads, [&](std::size_t chunk, int worker) {
        Part& p = parts[std::size_t(worker)];
        if (!p.started) {
            p.started = true;
            p.t.grow(std::min<std::size_t>(limit, 1024));
        }
        for (std::int64_t flat = g.chunkBegin(chunk); flat < g.chunkEnd(chunk); ++flat) {
            if (beyond.load(std::memory_order_relaxed)) return;
            const std::int64_t y = flat % g.h, z = flat / g.h;
            const T* in = data + flat * g.w;
            if (past(in, g.w, limit)) {
                beyond.store(true, std::memory_order_relaxed);
                return;
            }
            // Every element says which labels are present (a piece's margin
            // too); the owned ones alone are counted.
            const bool ownedRow = owned.row(y, z);
            const std::int64_t ownBegin = owned.begin[0], ownEnd = owned.end[0];
            auto run = [&](std::int64_t x, std::int64_t x1) {
                const std::size_t v = std::size_t(in[x]);
                if (v >= p.t.seen.size()) p.t.grow(std::min(limit, std::max(v + 1, 2 * p.t.seen.size())));
                p.t.seen[v] = 1;
                const std::int64_t a = std::max(x, ownBegin), b = std::min(x1, ownEnd);
                if (!ownedRow || a >= b) return;
                p.t.count[v] += std::uint64_t(b - a);
                auto& lo = p.t.min[v];
                auto& hi = p.t.max[v];
                lo = {std::min(lo[0], a), std::min(lo[1], y), std::min(lo[2], z)};
                hi = {std::max(hi[0], b - 1), std::max(hi[1], y), std::max(hi[2], z)};
            };
            // Runs from the labels as they are: where each starts, marked in
            // words of bits without a branch an element (noise's runs end at
            // random), then one call a run.
            std::int64_t start = 0;
            for (std::int64_t x0 = 0; x0 < g.w; x0 += 64) {
                const std::int64_t xEnd = std::min(g.w, x0 + 64);
                std::uint64_t starts = runStarts(in, std::max<std::int64_t>(x0, 1), xEnd, x0);
                for (; starts; starts &= starts - 1) {
                    const std::int64_t x = x0 + __builtin_ctzll(starts);
                    run(start, x);
                    start = x;
                }
            }
            run(start, g.w);
        }
    });
    if (beyond) return std::nullopt;
    std::size_t values = 1;
    for (const Part& p : parts)
        for (std::size_t v = p.t.seen.size(); v > values; --v)
            if (p.t.seen[v - 1]) {
                values = v;
                break;
            }
    ByValue all;
    all.grow(values);
    for (Part& p : parts) {
        for (std::size_t v = 0; v < std::min(values, p.t.seen.size()); ++v) {
            all.seen[v] |= p.t.seen[v];
            all.count[v] += p.t.count[v];
            for (std::size_t a = 0; a < 3; ++a) {
                all.min[v][a] = std::min(all.min[v][a], p.t.min[v][a]);
                all.max[v][a] = std::max(all.max[v][a], p.t.max[v][a]);
            }
        }
        p = Part();
    }
    return all;
}

// Passes 1 to 3 in one read of the labels (Pass::onePass), for labels all
// below `limit` rounded down to a power of 2 in a whole image: the regions'
// counts and boxes gathered with their terms, which are summed from the
// image's origin and moved to the boxes' corners after. Nothing where a
// label is negative or past that (the workers stop at the first such row),
// or where the chunks' slots, every region's in every chunk it crosses, grow
// past what gatherTerms holds.
template <class T>
std::optional<RegionTotals> totalsInOnePass(const Grid& g, const Owned& owned, const TermRequest& q, std::size_t limit,
                                            bool backgroundIsRegion, const T* data, const IntensitySamples* intensity,
                                            ThreadPool& pool, int threads, const Shape& shape) {
    const std::int64_t extent = std::max({g.w, g.h, g.d});
    // A power of 2, so that a row's labels are checked by or-ing them (in
    // vectors; a comparison of 64-bit integers is not one before SSE4.2).
    const std::uint64_t cap = std::uint64_t(1) << (63 - __builtin_clzll(std::uint64_t(limit)));
    std::atomic<bool> beyond{false};
    // Label v's id is v less the shift: labels 1..n give ids 0..n-1, and
    // the background, where not measured, kNoRegion.
    const std::int64_t shift = backgroundIsRegion ? 0 : 1;
    auto fillInto = [&](std::int64_t flatRow, auto* out) {
        using Id = std::remove_pointer_t<decltype(out)>;
        const T* in = data + flatRow * g.w;
        const std::int64_t w = g.w;
        const Id less = Id(shift);
        std::uint64_t bits = 0;
        using Bits = std::make_unsigned_t<Id>;  // past the cap an id may wrap: it is replaced below
        for (std::int64_t x = 0; x < w; ++x) {
            out[x] = Id(Bits(in[x]) - Bits(less));
            bits |= std::uint64_t(std::int64_t(in[x]));  // negative ones wrap past the cap
        }
        if (bits >= cap) {
            // Ids the tables have no room for are not handed on.
            beyond.store(true, std::memory_order_relaxed);
            std::fill(out, out + w, Id(kNoRegion));
        }
    };
    const RowFill fill = [&](std::int64_t flatRow, std::int64_t* out) { fillInto(flatRow, out); };
    const RowFill32 fill32 = [&](std::int64_t flatRow, std::int32_t* out) { fillInto(flatRow, out); };
    RegionTotals totals;
    totals.request = q;
    for (int a = shape.dimensions - 1; a >= 0; --a) totals.imageExtents.push_back(shape.extent(a));
    const Boxes unknown;
    Pass pass{g, owned, q, unknown, fill, &fill32, TermRequest::exponents(q.momentLevel, g.dims),
              TermRequest::exponents(q.weightedMomentLevel, g.dims)};
    pass.whole = true;
    pass.onePass = true;
    pass.ids = std::size_t(cap);
    pass.labelShift = shift;
    pass.abandon = &beyond;
    if (bitsNeeded(g, q, extent) < 126) gatherWith<__int128>(pass, intensity, pool, threads, totals);
    else gatherWith<Int256>(pass, intensity, pool, threads, totals);
    if (beyond.load(std::memory_order_relaxed)) return std::nullopt;
    return totals;
}

TermRequest requestOf(const MeasureOptions& options, int dimensions, const IntensitySamples* intensity) {
    int bits = 8, channels = 0;
    SampleKind kind = SampleKind::Unsigned;
    if (intensity) {
        bits = intensity->bytes * 8;
        kind = intensity->kind;
        channels = intensity->channels;
    }
    TermRequest q = termsFor(options.properties.properties, dimensions, channels, kind, bits);
    q.intensityChannelAxis = options.intensityChannelAxis;
    return q;
}

}  // namespace

void startMeasuringTeam(int threads) {
    SharedTeam& team = SharedTeam::get();
    std::unique_lock<std::mutex> lock(team.mutex, std::try_to_lock);
    if (lock.owns_lock()) team.grown(threads > 0 ? threads : cpu::defaultThreads());
}

RegionTotals measureTerms(const LabelSamples& labels, const IntensitySamples* intensity, const TermRequest& request,
                          int threads, bool backgroundIsRegion, const PiecePlace* piece) {
    checkShape(labels.shape);
    if (!labels.data) throw Error(where() + "the labels are null");
    if (labels.bytes != 1 && labels.bytes != 2 && labels.bytes != 4 && labels.bytes != 8)
        throw Error(where() + "labels of " + std::to_string(labels.bytes) + " bytes are not read");
    if (intensity) checkIntensity(*intensity, labels.shape);
    if (request.channels > 0 && !intensity) throw Error(where() + "the properties asked need an intensity image");

    const Grid g(labels.shape);
    Owned owned;
    owned.end = {g.w, g.h, g.d};
    if (piece) {
        for (std::size_t a = 0; a < 3; ++a) {
            const std::int64_t extent = a == 0 ? g.w : a == 1 ? g.h : g.d;
            if (piece->ownBegin[a] < 0 || piece->ownBegin[a] > piece->ownEnd[a] || piece->ownEnd[a] > extent)
                throw Error(where() + "the owned range of a piece must lie inside it");
            owned.begin[a] = piece->ownBegin[a];
            owned.end[a] = piece->ownEnd[a];
        }
        checkShape(piece->whole);
    }
    threads = teamSize(threads, g);
    Team team(threads);
    ThreadPool& pool = team.pool();

    // Pass 1: the largest label, none negative; which are present.
    RegionIndex index;
    index.background = backgroundIsRegion;
    std::vector<std::uint64_t> present;  // ascending
    std::optional<ByValue> fused;        // passes 1 and 2 in one, for few labels
    std::optional<RegionTotals> once;    // passes 1 to 3 in one
    withLabels(labels, [&](auto data) {
        using T = std::remove_const_t<std::remove_pointer_t<decltype(data)>>;
        auto rangeOf = [&](std::size_t chunk) {
            return std::pair<std::size_t, std::size_t>(std::size_t(g.chunkBegin(chunk) * g.w), std::size_t(g.chunkEnd(chunk) * g.w));
        };
        // Labels few beside the image (a worker's table by value at most a
        // quarter of the image's elements) in runs: passes 1 and 2 in one
        // read, unless the last row already holds a label past them
        // (labels numbered in raster order) or changes label more than
        // once in 8 elements (noise, whose runs cost the one read what the
        // passes over every element cost, and divide less well among
        // threads).
        const std::size_t limit = std::min<std::size_t>(kFewLabels, std::size_t(labels.shape.count()) / (4 * std::size_t(threads)));
        bool few = limit > 0;
        std::int64_t changes = 0;
        const T* lastRow = data + (g.rows - 1) * g.w;
        for (std::int64_t x = 0; x < g.w; ++x) {
            few &= std::uint64_t(std::int64_t(lastRow[x])) < limit;
            changes += x > 0 && lastRow[x] != lastRow[x - 1];
        }
        if (few && changes * 8 <= g.w) {
            // Passes 1 to 3 in one where the sums of powers of coordinates
            // from the image's origin move to the boxes' corners exactly:
            // in a whole image (a piece's margin counts apart), and for
            // integer sums (floating-point intensity-weighted moments
            // would round differently).
            const bool floatWeighted = request.weightedMomentLevel > 0 && request.channels > 0 && request.intensityKind == SampleKind::Float;
            const bool fits = coordinateBitsOf(g, request, std::max({g.w, g.h, g.d})) <= 120;
            if (!piece && request.any() && !floatWeighted && fits) {
                once = totalsInOnePass(g, owned, request, limit, backgroundIsRegion, data, intensity, pool, threads, labels.shape);
                if (once) return;
            } else {
                fused = countsByValue(g, owned, limit, data, pool, threads);
            }
        }
        if (fused) {
            index.mode = RegionIndex::Mode::Dense;
            index.table.assign(fused->seen.size(), kNoRegion);
            for (std::size_t v = 0; v < fused->seen.size(); ++v)
                if (fused->seen[v] && (v != 0 || backgroundIsRegion)) {
                    index.table[v] = std::int64_t(present.size());
                    present.push_back(v);
                }
            // Labels 1..n (0..n with the background), as a labeling numbers
            // them: each one's region is the label less one, without the
            // table's look-up an element.
            const std::uint64_t first = backgroundIsRegion ? 0 : 1;
            if (present.empty() || present.back() == first + present.size() - 1) {
                index.mode = RegionIndex::Mode::Consecutive;
                index.table = {};
            }
            return;
        }
        std::vector<T> chunkMax(g.chunks, 0), chunkMin(g.chunks, 0);
        pool.run(g.chunks, threads, [&](std::size_t chunk, int) {
            const auto [a, b] = rangeOf(chunk);
            T lo = data[a], hi = data[a];
            for (std::size_t i = a; i < b; ++i) {
                lo = std::min(lo, data[i]);
                hi = std::max(hi, data[i]);
            }
            chunkMin[chunk] = lo;
            chunkMax[chunk] = hi;
        });
        const T smallest = *std::min_element(chunkMin.begin(), chunkMin.end());
        if (smallest < T(0)) throw Error(where() + "labels must not be negative; the smallest is " + std::to_string(std::int64_t(smallest)));
        const std::uint64_t maxLabel = std::uint64_t(*std::max_element(chunkMax.begin(), chunkMax.end()));
        // A table by label value where it is small beside the image (at most
        // 2^27 entries: a label image past memory, mapped, needs no more).
        const std::uint64_t denseEntries = std::min<std::uint64_t>(std::uint64_t(1) << 27, labels.shape.count() / 2);
        if (maxLabel <= std::max<std::uint64_t>(std::uint64_t(1) << 20, denseEntries)) {
            std::vector<std::atomic<unsigned char>> seen(std::size_t(maxLabel) + 1);
            pool.run(g.chunks, threads, [&](std::size_t chunk, int) {
                const auto [a, b] = rangeOf(chunk);
                // A store for every element, no branch: labels that change
                // at random (noise, tiny regions) would mispredict one.
                for (std::size_t i = a; i < b; ++i) seen[std::size_t(data[i])].store(1, std::memory_order_relaxed);
            });
            index.mode = RegionIndex::Mode::Dense;
            index.table.assign(std::size_t(maxLabel) + 1, kNoRegion);
            for (std::uint64_t v = 0; v <= maxLabel; ++v)
                if (seen[std::size_t(v)].load(std::memory_order_relaxed) && (v != 0 || backgroundIsRegion)) {
                    index.table[std::size_t(v)] = std::int64_t(present.size());
                    present.push_back(v);
                }
        } else {
            std::vector<std::vector<std::uint64_t>> found(g.chunks);
            pool.run(g.chunks, threads, [&](std::size_t chunk, int) {
                const auto [a, b] = rangeOf(chunk);
                auto& out = found[chunk];
                for (std::size_t i = a; i < b; ++i)
                    if (out.empty() || out.back() != std::uint64_t(data[i])) out.push_back(std::uint64_t(data[i]));
                std::sort(out.begin(), out.end());
                out.erase(std::unique(out.begin(), out.end()), out.end());
            });
            for (auto& f : found) present.insert(present.end(), f.begin(), f.end());
            std::sort(present.begin(), present.end());
            present.erase(std::unique(present.begin(), present.end()), present.end());
            if (!backgroundIsRegion && !present.empty() && present.front() == 0) present.erase(present.begin());
            index.mode = RegionIndex::Mode::Sparse;
            index.sorted = present;
        }
    });
    if (once) return std::move(*once);
    const RowFill fill = [&](std::int64_t flatRow, std::int64_t* out) {
        withLabels(labels, [&](auto data) { index.fill(data + flatRow * g.w, g.w, out); });
    };
    const RowFill32 fill32 = [&](std::int64_t flatRow, std::int32_t* out) {
        withLabels(labels, [&](auto data) { index.fill(data + flatRow * g.w, g.w, out); });
    };
    Boxes boxes;
    if (fused) {
        const std::int64_t big = std::numeric_limits<std::int64_t>::max();
        boxes.counts.assign(present.size(), 0);
        boxes.min.assign(present.size(), {big, big, big});
        boxes.max.assign(present.size(), {-1, -1, -1});
        for (std::size_t r = 0; r < present.size(); ++r) {
            const std::size_t v = std::size_t(present[r]);
            boxes.counts[r] = fused->count[v];
            boxes.min[r] = fused->min[v];
            boxes.max[r] = fused->max[v];
        }
        fused.reset();
    } else {
        boxes = boxesOf(g, owned, present.size(), fill, pool, threads);
    }
    const RowFill32* narrow = present.size() < kRegions32 ? &fill32 : nullptr;
    return totalsOf(g, owned, request, std::move(boxes), std::move(present), fill, narrow, intensity, pool, threads, labels.shape, piece);
}

PropertyTable measureRegions(const LabelSamples& labels, const IntensitySamples* intensity, const MeasureOptions& options) {
    const TermRequest q = requestOf(options, labels.shape.dimensions, intensity);
    const RegionTotals totals = measureTerms(labels, intensity, q, options.threads, options.backgroundIsRegion);
    return finalizeProperties(totals, options.properties, options.threads);
}

RegionTotals measureComponentTerms(const LabelSamples& labels, const std::vector<Component>& components,
                                   const IntensitySamples* intensity, const TermRequest& request, int threads) {
    const Shape shape = labels.shape;
    checkShape(shape);
    if (!labels.data || labels.isSigned || (labels.bytes != 4 && labels.bytes != 8))
        throw Error("glccl::measureComponentTerms(): the labels must be unsigned 32- or 64-bit");
    if (intensity) checkIntensity(*intensity, shape);
    if (request.channels > 0 && !intensity) throw Error(where() + "the properties asked need an intensity image");
    const Grid g(shape);
    threads = teamSize(threads, g);
    Team team(threads);
    ThreadPool& pool = team.pool();
    const std::size_t n = components.size();
    // The components' labels, counts and boxes as the table's totals give
    // them (filled by several threads, in fresh memory mapped at once).
    RegionTotals table = tableTotals(shape, components, request, threads);
    Boxes boxes{std::move(table.counts), std::move(table.boxMin), std::move(table.boxMax)};
    std::vector<std::uint64_t> labelValues = std::move(table.labels);
    RegionIndex index;  // Consecutive: labels 1..n
    std::atomic<bool> past{false};
    index.past = &past;
    index.most = n;
    auto fillInto = [&](std::int64_t flatRow, auto* out) {
        if (labels.bytes == 4) index.fill(static_cast<const std::uint32_t*>(labels.data) + flatRow * g.w, g.w, out);
        else index.fill(static_cast<const std::uint64_t*>(labels.data) + flatRow * g.w, g.w, out);
    };
    const RowFill fill = [&](std::int64_t flatRow, std::int64_t* out) { fillInto(flatRow, out); };
    const RowFill32 fill32 = [&](std::int64_t flatRow, std::int32_t* out) { fillInto(flatRow, out); };
    Owned owned;
    owned.end = {g.w, g.h, g.d};
    const RowFill32* narrow = n < kRegions32 ? &fill32 : nullptr;
    const bool asBits = labels.foregroundConnected && labels.bytes == 4 && shape.dimensions == 2;
    RegionTotals totals = totalsOf(g, owned, request, std::move(boxes), std::move(labelValues), fill, narrow, intensity, pool,
                                   threads, shape, nullptr, asBits ? &labels : nullptr);
    if (past.load(std::memory_order_relaxed))
        throw Error("glccl::measureComponentTerms(): a label is past the table's " + std::to_string(n) +
                    " components (labels 1..n measure the table's n components)");
    return totals;
}

PropertyTable measureComponents(const LabelSamples& labels, const std::vector<Component>& components,
                                const IntensitySamples* intensity, const MeasureOptions& options) {
    const TermRequest q = requestOf(options, labels.shape.dimensions, intensity);
    return finalizeProperties(measureComponentTerms(labels, components, intensity, q, options.threads), options.properties,
                              options.threads);
}

PropertyTable measureLabeling(const Labeling& labeling, const IntensitySamples* intensity, const MeasureOptions& options) {
    if (labeling.labels.size() != labeling.shape().count()) throw Error("glccl::measureLabeling(): the labels do not fill the shape");
    LabelSamples labels;
    labels.shape = labeling.shape();
    labels.data = labeling.labels.data();
    labels.bytes = 4;
    return measureComponents(labels, labeling.components, intensity, options);
}

}  // namespace glccl

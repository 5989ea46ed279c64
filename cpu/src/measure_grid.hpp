#pragma once
// What the cpu engine's measuring passes share: the image cut into chunks of
// rows, the part of it a measurement counts, the region index of every
// element row by row, and the local configurations' contributions.

#include <glccl/types.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <iterator>
#include <type_traits>
#include <vector>

#include "row_ranges.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace glccl::cpu::measure {

#if defined(__SSE2__)
// The lanes of two 64-bit integers that are equal (SSE2 compares 32-bit
// halves only): all ones where both halves are.
inline __m128i equal64(__m128i a, __m128i b) {
    const __m128i e = _mm_cmpeq_epi32(a, b);
    return _mm_and_si128(e, _mm_shuffle_epi32(e, _MM_SHUFFLE(2, 3, 0, 1)));
}
inline __m128i load2(const std::int64_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
// Bit i set where lane i of `mask` (a comparison's result) is.
inline std::uint64_t bits2(__m128i mask) { return std::uint64_t(_mm_movemask_pd(_mm_castsi128_pd(mask))); }

// Rows of region ids (Id: std::int32_t or std::int64_t) in vectors of
// `count` lanes: loads, lane-wise equality (all ones where equal), the
// lanes' bits of a comparison.
template <class Id>
struct Lanes;
template <>
struct Lanes<std::int64_t> {
    static constexpr int count = 2;
    static __m128i load(const std::int64_t* p) { return load2(p); }
    static __m128i all(std::int64_t v) { return _mm_set1_epi64x(v); }
    static __m128i equal(__m128i a, __m128i b) { return equal64(a, b); }
    static std::uint64_t bits(__m128i mask) { return bits2(mask); }
};
template <>
struct Lanes<std::int32_t> {
    static constexpr int count = 4;
    static __m128i load(const std::int32_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
    static __m128i all(std::int32_t v) { return _mm_set1_epi32(v); }
    static __m128i equal(__m128i a, __m128i b) { return _mm_cmpeq_epi32(a, b); }
    static std::uint64_t bits(__m128i mask) { return std::uint64_t(_mm_movemask_ps(_mm_castsi128_ps(mask))); }
};
#endif

// The first x in [x, end) with row[x] == v, or end.
template <class Id>
inline std::int64_t nextEqual(const Id* row, std::int64_t x, std::int64_t end, Id v) {
#if defined(__SSE2__)
    using L = Lanes<Id>;
    const __m128i want = L::all(v);
    for (; x + L::count <= end; x += L::count) {
        const std::uint64_t m = L::bits(L::equal(L::load(row + x), want));
        if (m) return x + __builtin_ctzll(m);
    }
#endif
    for (; x < end; ++x)
        if (row[x] == v) return x;
    return end;
}

// populate() (row_ranges.hpp) is not for the inputs: walking pages already
// mapped (an array in memory) costs about what it saves on a mapped file's
// first read.

// Below this many bytes, memory is not populated: a small block most often
// comes from pages the heap has mapped already, where the call costs more
// than it saves.
constexpr std::size_t kPopulateBytes = std::size_t(1) << 16;

// Room for n elements in v, its pages mapped at once (populate) where v
// has to move to a large block; v's elements are kept.
template <class T, class A>
void reserveMapped(std::vector<T, A>& v, std::size_t n) {
    if (v.capacity() >= n) return;
    std::vector<T, A> fresh;
    fresh.reserve(std::max(n, 2 * v.capacity()));
    if (fresh.capacity() * sizeof(T) >= kPopulateBytes) populate(fresh.data(), fresh.capacity() * sizeof(T), true);
    fresh.insert(fresh.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
    v.swap(fresh);
}

constexpr std::int64_t kNoRegion = -1;
// Elements per chunk, and rows at the least: fixed, never derived from the
// thread count, so that the order floating-point sums are added in is too.
// A chunk's first rows are read again for its borders and windows, and a
// region that crosses chunks is added up once more for each: so a wide
// image's chunks are still a few dozen rows tall.
constexpr std::int64_t kChunkElements = std::int64_t(1) << 16;
constexpr std::int64_t kChunkRows = 64;

// The image's geometry and its chunks: blocks of consecutive rows (rows of
// every slice in turn, row (y, z) being row z * h + y).
struct Grid {
    std::int64_t w = 0, h = 0, d = 1;
    int dims = 2;
    std::int64_t rows = 0;  // h * d
    std::int64_t rowsPerChunk = 1;
    std::size_t chunks = 0;
    explicit Grid(const Shape& s) : w(s.width), h(s.height), d(s.dimensions == 3 ? s.depth : 1), dims(s.dimensions) {
        rows = h * d;
        rowsPerChunk = std::max<std::int64_t>(kChunkRows, kChunkElements / std::max<std::int64_t>(w, 1));
        chunks = std::size_t((rows + rowsPerChunk - 1) / rowsPerChunk);
    }
    std::int64_t chunkBegin(std::size_t c) const { return std::int64_t(c) * rowsPerChunk; }
    std::int64_t chunkEnd(std::size_t c) const { return std::min(rows, chunkBegin(c) + rowsPerChunk); }
};

// The elements a measurement counts, as array ranges [begin, end) along x,
// y, z: the whole array, or the part of a piece it owns (PiecePlace). The
// 2x2 (2x2x2) windows counted are those whose far corner is owned, and where
// the owned part reaches the array's end, those past it too.
struct Owned {
    std::array<std::int64_t, 3> begin{0, 0, 0}, end{0, 0, 0};
    bool row(std::int64_t y, std::int64_t z) const { return y >= begin[1] && y < end[1] && z >= begin[2] && z < end[2]; }
    bool window(std::int64_t v, int axis, std::int64_t extent) const {
        const auto a = std::size_t(axis);
        return (v >= begin[a] && v < end[a]) || (v == extent && end[a] == extent);
    }
};

// Element counts and boxes (inclusive, x y z) by region; a region a piece's
// margin alone holds has count 0 and an empty box.
struct Boxes {
    std::vector<std::uint64_t> counts;
    std::vector<std::array<std::int64_t, 3>> min, max;
};

// Writes the region indices of row `flatRow` (kNoRegion for elements of no
// region), as Id: 32-bit ones where the regions fit them (half the bytes
// and twice the lanes of 64-bit ones for every pass over a row).
template <class Id>
using RowFillOf = std::function<void(std::int64_t flatRow, Id* out)>;
using RowFill = RowFillOf<std::int64_t>;
using RowFill32 = RowFillOf<std::int32_t>;
// Regions up to this many have 32-bit ids.
constexpr std::size_t kRegions32 = std::size_t(1) << 31;

// The runs' first elements of row[begin, end) (end > begin) in words of
// bits, bit x - begin: in `starts` every run's (an element unlike the one
// before it, and the first), in `regionStarts` those of a region's runs
// (not kNoRegion). Without a branch an element: the runs of noise end at
// random, where a loop comparing element to element mispredicts at every
// end.
template <class Id>
[[gnu::always_inline]] inline void markRuns(const Id* row, std::int64_t begin, std::int64_t end, std::uint64_t* starts,
                                            std::uint64_t* regionStarts) {
    const std::size_t words = std::size_t((end - begin + 63) / 64);
    for (std::size_t k = 0; k < words; ++k) {
        const std::int64_t x0 = begin + std::int64_t(k) * 64, xEnd = std::min(end, x0 + 64);
        std::uint64_t s = 0, rs = 0;
        if (k == 0) {
            s = 1;
            rs = std::uint64_t(row[begin] != kNoRegion);
        }
        std::int64_t x = k == 0 ? begin + 1 : x0;
#if defined(__SSE2__)
        using L = Lanes<Id>;
        const __m128i none = L::all(Id(kNoRegion));
        constexpr std::uint64_t lanes = (std::uint64_t(1) << L::count) - 1;
        if constexpr (std::is_same_v<Id, std::int32_t>) {
            // 16 ids a step: four comparisons' masks packed to bytes, one
            // movemask and one shift each for the run and region starts.
            for (; x + 16 <= xEnd; x += 16) {
                __m128i same[4], blank[4];
                for (int i = 0; i < 4; ++i) {
                    const __m128i here = L::load(row + x + 4 * i);
                    same[i] = L::equal(here, L::load(row + x + 4 * i - 1));
                    blank[i] = L::equal(here, none);
                }
                auto bits16 = [](const __m128i* m) {
                    return std::uint64_t(std::uint32_t(
                        _mm_movemask_epi8(_mm_packs_epi16(_mm_packs_epi32(m[0], m[1]), _mm_packs_epi32(m[2], m[3])))));
                };
                const std::uint64_t first = ~bits16(same) & 0xffff;
                s |= first << (x - x0);
                rs |= (first & ~bits16(blank)) << (x - x0);
            }
        }
        for (; x + L::count <= xEnd; x += L::count) {
            const __m128i here = L::load(row + x);
            const std::uint64_t first = ~L::bits(L::equal(here, L::load(row + x - 1))) & lanes;
            s |= first << (x - x0);
            rs |= (first & ~L::bits(L::equal(here, none))) << (x - x0);
        }
#endif
        for (; x < xEnd; ++x) {
            const std::uint64_t first = std::uint64_t(row[x] != row[x - 1]);
            s |= first << (x - x0);
            rs |= (first & std::uint64_t(row[x] != kNoRegion)) << (x - x0);
        }
        starts[k] = s;
        regionStarts[k] = rs;
    }
}

// The runs' first elements of row[begin, end) marked (markRuns) in
// `bits`: its first (end - begin + 63) / 64 words the row's `starts`, the
// next as many its `regionStarts`. Returns that count of words.
template <class Id>
[[gnu::always_inline]] inline std::size_t markRow(const Id* row, std::int64_t begin, std::int64_t end, std::vector<std::uint64_t>& bits) {
    if (end <= begin) return 0;
    const std::size_t words = std::size_t((end - begin + 63) / 64);
    if (bits.size() < 2 * words) {
        reserveMapped(bits, 2 * words);
        bits.resize(2 * words);
    }
    markRuns(row, begin, end, bits.data(), bits.data() + words);
    return words;
}

// Calls f(x, x1, r) for every run [x, x1) of elements of one region r (not
// kNoRegion) in row[begin, end), left to right, from the runs' first
// elements that markRow marked in `bits` (`words` words of each kind); r is
// row[x] (row: the row's ids, or what gives the region at an element).
// Inlined, and f with it where it asks to be: a call a run, reading f's
// captures through its closure, costs about what a short run's sums do.
template <class Row, class F>
[[gnu::always_inline]] inline void forEachMarkedRun(Row&& row, std::int64_t begin, std::int64_t end, const std::uint64_t* bits,
                                                    std::size_t words, F&& f) {
    const std::uint64_t* starts = bits;                // a run's first element
    const std::uint64_t* regionStarts = bits + words;  // a region's run's first element
    for (std::size_t k = 0; k < words; ++k)
        for (std::uint64_t m = regionStarts[k]; m; m &= m - 1) {
            const int b = __builtin_ctzll(m);
            const std::int64_t x = begin + std::int64_t(k) * 64 + b;
            // The next run's first element: after bit b of word k, or in a later word.
            std::size_t j = k;
            std::uint64_t later = b == 63 ? 0 : starts[k] >> (b + 1) << (b + 1);
            while (!later && ++j < words) later = starts[j];
            f(x, later ? begin + std::int64_t(j) * 64 + __builtin_ctzll(later) : end, std::int64_t(row[x]));
        }
}

// markRow, then forEachMarkedRun: the row's `starts` in `bits` after the call.
template <class Id, class F>
[[gnu::always_inline]] inline void forEachRun(const Id* row, std::int64_t begin, std::int64_t end, std::vector<std::uint64_t>& bits, F&& f) {
    const std::size_t words = markRow(row, begin, end, bits);
    forEachMarkedRun(row, begin, end, bits.data(), words, f);
}

// Region indices of rows, computed once and kept while a chunk reads around
// them. Holds more rows than a chunk's loop keeps at once (5 in 2-D, 4 in
// 3-D), so that a row handed out stays valid for the loop's iteration. The
// rows live in `storage`, which a worker keeps from chunk to chunk: a fresh
// allocation a chunk costs page faults and the heap's trimming.
template <class Id>
class RowIndices {
public:
    RowIndices(const Grid& g, const RowFillOf<Id>& fill, std::vector<Id>& storage) : g_(g), fill_(fill) {
        if (storage.size() < slots_.size() * std::size_t(g.w)) {
            reserveMapped(storage, slots_.size() * std::size_t(g.w));
            storage.resize(slots_.size() * std::size_t(g.w));
        }
        for (std::size_t i = 0; i < slots_.size(); ++i) slots_[i].values = storage.data() + i * std::size_t(g.w);
    }
    // The row's indices, or nullptr outside the image.
    const Id* row(std::int64_t y, std::int64_t z) {
        if (y < 0 || y >= g_.h || z < 0 || z >= g_.d) return nullptr;
        const std::int64_t id = z * g_.h + y;
        for (auto& s : slots_)
            if (s.id == id) return s.values;
        Slot& s = slots_[next_];
        next_ = (next_ + 1) % slots_.size();
        s.id = id;
        fill_(id, s.values);
        return s.values;
    }

private:
    struct Slot {
        std::int64_t id = -1;
        Id* values = nullptr;
    };
    const Grid& g_;
    const RowFillOf<Id>& fill_;
    std::array<Slot, 10> slots_;
    std::size_t next_ = 0;
};


}  // namespace glccl::cpu::measure

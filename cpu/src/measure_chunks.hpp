#pragma once
// The cpu engine's third measuring pass: the requested terms of every
// region, chunk by chunk, in coordinates local to each region's box.
//
// A chunk gathers the totals of the regions it touches in slots. A region
// whose span (the rows its elements and windows lie in) is inside the chunk
// gets those as its totals; the slots of a region spanning chunks are kept
// and added chunk by chunk in chunk order afterwards. Integer sums are exact
// in any order and floating-point ones are added in a fixed order, so every
// thread count gives the same totals. Where the boxes are not known before
// (Pass::onePass), the slots gather counts and boxes too, every slot is
// kept, and the sums of coordinate powers move to the boxes' corners once
// all are added.
//
// Templates over the accumulator (Acc: __int128 where every sum a chunk
// reaches fits, Int256 otherwise) and the intensity's element type.

#include <glccl/error.hpp>
#include <glccl/region_properties.hpp>

#include "measure_grid.hpp"
#include "thread_pool.hpp"

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace glccl::cpu::measure {

// The accumulators' arithmetic, for both kinds of Acc.
inline void add(__int128& a, __int128 v) { a += v; }
// A 128-bit value added to 256 bits in place (modulo 2^256, as Int256's
// own addition): inlined, where Int256's += is a call, for the totals'
// many additions of a chunk's 128-bit sums.
inline void add(Int256& a, __int128 v) {
#if defined(__x86_64__)
    // One chain of four additions with carry: v's two limbs, then its sign
    // in both upper limbs.
    const unsigned long long fill = v < 0 ? ~0ull : 0ull;
    unsigned long long r0, r1, r2, r3;
    unsigned char c = _addcarry_u64(0, a.limb[0], static_cast<unsigned long long>(v), &r0);
    c = _addcarry_u64(c, a.limb[1], static_cast<unsigned long long>(static_cast<unsigned __int128>(v) >> 64), &r1);
    c = _addcarry_u64(c, a.limb[2], fill, &r2);
    _addcarry_u64(c, a.limb[3], fill, &r3);
    a.limb[0] = r0;
    a.limb[1] = r1;
    a.limb[2] = r2;
    a.limb[3] = r3;
#else
    const unsigned __int128 low = (static_cast<unsigned __int128>(a.limb[1]) << 64) | a.limb[0];
    const unsigned __int128 sum = low + static_cast<unsigned __int128>(v);
    const std::uint64_t fill = v < 0 ? ~std::uint64_t(0) : 0;  // v's upper limbs
    const unsigned __int128 high = (static_cast<unsigned __int128>(a.limb[3]) << 64) | a.limb[2];
    const unsigned __int128 upper = high + ((static_cast<unsigned __int128>(fill) << 64) | fill) + (sum < low ? 1 : 0);
    a.limb[0] = std::uint64_t(sum);
    a.limb[1] = std::uint64_t(sum >> 64);
    a.limb[2] = std::uint64_t(upper);
    a.limb[3] = std::uint64_t(upper >> 64);
#endif
}
inline void add(Int256& a, const Int256& v) { a += v; }
inline __int128 times(__int128 a, __int128 b, const __int128*) { return a * b; }
inline Int256 times(__int128 a, __int128 b, const Int256*) { return Int256::of(a) * Int256::of(b); }
inline __int128 times(__int128 a, __int128 b) { return a * b; }
inline Int256 times(const Int256& a, __int128 b) { return a * Int256::of(b); }
inline DoubleDouble exactDD(__int128 v) {
    // Below 2^53 in magnitude a double holds v exactly, converted by the
    // processor rather than the library's 128-bit conversions.
    constexpr __int128 kExact = __int128(1) << 53;
    if (v < kExact && v > -kExact) return {double(std::int64_t(v)), 0.0};
    const double hi = double(v);
    return {hi, double(v - __int128(hi))};
}

// Sums of x^0..x^3 over x = a..b (Faulhaber), exactly: in 64 bits where
// they fit (a division of 128-bit integers costs more than the run).
[[gnu::always_inline]] inline void powerSums(std::int64_t a, std::int64_t b, __int128 s[4]) {
    if (b < (std::int64_t(1) << 20)) {
        auto f1 = [](std::int64_t m) { return m * (m + 1) / 2; };
        auto f2 = [](std::int64_t m) { return m * (m + 1) * (2 * m + 1) / 6; };
        const std::int64_t a1 = f1(a - 1), b1 = f1(b);
        s[0] = b - a + 1;
        s[1] = b1 - a1;
        s[2] = f2(b) - f2(a - 1);
        s[3] = __int128(b1) * b1 - __int128(a1) * a1;
        return;
    }
    auto f1 = [](__int128 m) { return m * (m + 1) / 2; };
    auto f2 = [](__int128 m) { return m * (m + 1) * (2 * m + 1) / 6; };
    s[0] = b - a + 1;
    s[1] = f1(b) - f1(a - 1);
    s[2] = f2(b) - f2(a - 1);
    s[3] = f1(b) * f1(b) - f1(a - 1) * f1(a - 1);
}

// Sums of x^0..x^3 over x = a..b for 0 <= a <= b < 2^15, exactly in 64
// bits (each below 2^60): with n = b - a + 1,
//   sum x   = (a + b) n / 2                     (a + b and n differ in parity)
//   sum x^2 = n (2a^2 + 2ab + 2b^2 - a + b) / 6
//   sum x^3 = T(b)^2 - T(a - 1)^2 = sum x * (b (b + 1) + a (a - 1)) / 2,
// T(m) = m (m + 1) / 2. The division by 6 is exact: a halving, then a
// product by the inverse of 3 modulo 2^64.
[[gnu::always_inline]] inline void shortPowerSums(std::uint64_t a, std::uint64_t b, std::int64_t s[4]) {
    constexpr std::uint64_t kInverse3 = 0xaaaaaaaaaaaaaaabu;  // 3 kInverse3 = 1 modulo 2^64
    const std::uint64_t n = b - a + 1;
    const std::uint64_t s1 = (a + b) * n >> 1;
    s[0] = std::int64_t(n);
    s[1] = std::int64_t(s1);
    s[2] = std::int64_t((n * (2 * (a * a + a * b + b * b) + b - a) >> 1) * kInverse3);
    s[3] = std::int64_t(s1 * ((b * (b + 1) + a * (a - 1)) >> 1));
}

// Sums s[k] of x^k (k = 0..3) made sums of (x - d)^k, for x >= d and each
// result below 2^63, exactly: the binomial expansion in arithmetic modulo
// 2^64, whose wrapped intermediates cancel.
[[gnu::always_inline]] inline void shiftPowerSums(std::int64_t s[4], std::uint64_t d) {
    const std::uint64_t s0 = std::uint64_t(s[0]), s1 = std::uint64_t(s[1]), s2 = std::uint64_t(s[2]), s3 = std::uint64_t(s[3]);
    const std::uint64_t d2 = d * d;
    s[1] = std::int64_t(s1 - d * s0);
    s[2] = std::int64_t(s2 - 2 * d * s1 + d2 * s0);
    s[3] = std::int64_t(s3 - 3 * d * s2 + 3 * d2 * s1 - d2 * d * s0);
}

// An intensity image read as its element type T (none: no intensity).
struct NoIntensity {
    static constexpr bool present = false, floating = false, narrow = false;
    using Value = __int128;
    using Sample = void;
    int channels = 0;
    Value at(std::size_t, int) const { return 0; }
};
template <class T>
struct Intensity {
    static constexpr bool present = true, floating = std::is_floating_point_v<T>;
    // Integers of at most 16 bits, whose sums over a run fit 64 bits.
    static constexpr bool narrow = !floating && sizeof(T) <= 2;
    using Value = std::conditional_t<floating, double, __int128>;
    using Sample = T;
    const T* data = nullptr;
    int channels = 1;
    std::size_t size = 0;  // samples in data (elements x channels)
    Value at(std::size_t element, int c) const { return Value(data[element * std::size_t(channels) + std::size_t(c)]); }
    const T* samples(std::size_t element, int c) const { return data + element * std::size_t(channels) + std::size_t(c); }
};
// Sums of n integer samples of at most 16 bits, p[0], p[step], ..., and of
// their squares: a square fits 32 bits, and a run's sums 64 bits (2^24
// elements), so that a run of one channel (step 1) is summed in vectors.
template <class T>
inline void narrowSums(const T* p, std::int64_t n, std::ptrdiff_t step, std::int64_t& sum, std::int64_t& squares) {
    static_assert(std::is_integral_v<T> && sizeof(T) <= 2);
    using Wide = std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>;
    std::int64_t s = 0;
    std::uint64_t q = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const Wide v = Wide(p[i * step]);
        s += v;
        q += std::uint64_t(Wide(v * v));
    }
    sum = s;
    squares = std::int64_t(q);
}

// Adds to out[k] (k = 0..3) the sums of v (a + i)^k over the n integer
// samples v = p[i step] of at most 16 bits of a run whose first element is
// `a` columns from its origin (0 <= a, a + n <= 2^24), exactly. Taken in
// blocks of 16: a block's sums of v i^j (i < 16) fit 64 bits, and are
// moved to its offset b by the binomial expansion,
//   sum v (b + i)^3 = S3 + 3b S2 + 3b^2 S1 + b^3 S0,
// a few 128-bit products a block instead of four a sample.
template <class T>
inline void weightedPowerSums(const T* p, std::int64_t n, std::ptrdiff_t step, std::int64_t a, __int128 out[4]) {
    static_assert(std::is_integral_v<T> && sizeof(T) <= 2);
    constexpr std::int64_t kBlock = 16;
    if (n <= kBlock && a + n <= (std::int64_t(1) << 21)) {
        // A short run (noise's) near its origin: x^3 < 2^63, and 16 of
        // v x^2 fit 64 bits, so each sample costs products of 64-bit
        // integers and no block is moved.
        std::int64_t s0 = 0, s1 = 0, s2 = 0;
        __int128 s3 = 0;
        for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t v = std::int64_t(p[i * step]), x = a + i, x2 = x * x;
            s0 += v;
            s1 += v * x;
            s2 += v * x2;
            s3 += __int128(v) * (x2 * x);
        }
        out[0] += s0;
        out[1] += s1;
        out[2] += s2;
        out[3] += s3;
        return;
    }
    for (std::int64_t start = 0; start < n; start += kBlock) {
        const std::int64_t m = std::min(kBlock, n - start);
        const T* q = p + start * step;
        std::int64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (std::int64_t i = 0; i < m; ++i) {
            const std::int64_t v = std::int64_t(q[i * step]);
            s0 += v;
            s1 += v * i;
            s2 += v * (i * i);
            s3 += v * (i * i * i);
        }
        // |S_j| < 2^16 16^(j + 1), b < 2^24: b S0, b S1, b S2 and b^2 fit 64 bits.
        const std::int64_t b = a + start, b2 = b * b;
        out[0] += s0;
        out[1] += s1 + b * s0;
        out[2] += s2 + 2 * (b * s1) + __int128(b2) * s0;
        out[3] += s3 + 3 * __int128(b * s2) + 3 * (__int128(b2) * s1) + __int128(b2) * b * s0;
    }
}

// The smallest and largest of n integer samples p[0], p[step], ..., as
// their own type (compared in vectors for one channel), and the index of
// the first sample equal to v.
template <class T>
inline std::pair<T, T> sampleRange(const T* p, std::int64_t n, std::ptrdiff_t step) {
    T lo = p[0], hi = p[0];
    for (std::int64_t i = 1; i < n; ++i) {
        const T v = p[i * step];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    return {lo, hi};
}
template <class T>
inline std::int64_t firstEqual(const T* p, std::int64_t n, std::ptrdiff_t step, T v) {
    std::int64_t i = 0;
    while (i < n && p[i * step] != v) ++i;
    return i;
}

#if defined(__SSE2__)
// A run of one channel of unsigned integers of at most 16 bits: its sums,
// smallest and largest samples and (Positions) their first offsets, 8 samples a step
// in vectors, the last step's lanes past the run masked off, with no branch
// on the samples. Noise's runs are a few elements long and end at random,
// where a loop of one sample a step over each run (four: sums, extrema,
// two first positions) mispredicts at every end; a long run is read in
// fewer steps, where SSE2 has no unsigned 16-bit comparisons or 32-bit
// products for the compiler's own vectors. Reads up to kRunLanes - 1
// samples past the run: the caller makes sure they are in the array.
constexpr std::int64_t kRunLanes = 8;
struct RunSamples {
    std::int64_t sum = 0, squares = 0;
    std::uint16_t lowest = 0, highest = 0;
    std::int64_t lowestAt = 0, highestAt = 0;
};
template <class T>
[[gnu::always_inline]] inline __m128i loadLanes(const T* p) {
    static_assert(std::is_unsigned_v<T> && sizeof(T) <= 2);
    if constexpr (sizeof(T) == 2) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    else return _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)), _mm_setzero_si128());
}
// Every lane of `lo` (`hi`) its least (greatest) signed 16-bit lane.
[[gnu::always_inline]] inline void spreadExtrema(__m128i& lo, __m128i& hi) {
    lo = _mm_min_epi16(lo, _mm_shuffle_epi32(lo, 0x4e));
    hi = _mm_max_epi16(hi, _mm_shuffle_epi32(hi, 0x4e));
    lo = _mm_min_epi16(lo, _mm_shuffle_epi32(lo, 0xb1));
    hi = _mm_max_epi16(hi, _mm_shuffle_epi32(hi, 0xb1));
    lo = _mm_shuffle_epi32(_mm_shufflelo_epi16(_mm_min_epi16(lo, _mm_shufflelo_epi16(lo, 0xb1)), 0), 0);
    hi = _mm_shuffle_epi32(_mm_shufflelo_epi16(_mm_max_epi16(hi, _mm_shufflelo_epi16(hi, 0xb1)), 0), 0);
}
// A run's sums of samples and squares from its samples moved down by 2^15
// (s = v - 2^15, signed 16-bit lanes, as the extrema compare them): pairs
// of lanes multiplied and added in one step (_mm_madd_epi16), where the
// unsigned samples would need their products' high and low halves apart.
// Then sum v = sum s + 2^15 n and sum v^2 = sum s^2 + 2^16 sum s + 2^30 n.
// A step adds at most 2^16 to a lane of sum s in magnitude: ShiftedSums
// takes fewer than 2^13 steps.
struct ShiftedSums {
    __m128i sum = _mm_setzero_si128();      // 32-bit lanes, signed
    __m128i squares = _mm_setzero_si128();  // 64-bit lanes
    [[gnu::always_inline]] void add(__m128i s) {
        const __m128i zero = _mm_setzero_si128();
        sum = _mm_add_epi32(sum, _mm_madd_epi16(s, _mm_set1_epi16(1)));
        // A pair's squares add up to at most 2^31: unsigned 32 bits.
        const __m128i q = _mm_madd_epi16(s, s);
        squares = _mm_add_epi64(squares, _mm_add_epi64(_mm_unpacklo_epi32(q, zero), _mm_unpackhi_epi32(q, zero)));
    }
    // Adds the sums of n samples to out's.
    [[gnu::always_inline]] void into(RunSamples& out, std::int64_t n) const {
        __m128i t = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0x4e));
        t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xb1));
        const std::int64_t shifted = _mm_cvtsi128_si32(t);
        std::uint64_t q;
        _mm_storel_epi64(reinterpret_cast<__m128i*>(&q), _mm_add_epi64(squares, _mm_unpackhi_epi64(squares, squares)));
        out.sum += shifted + (n << 15);
        out.squares += std::int64_t(q) + shifted * (std::int64_t(1) << 16) + (n << 30);
    }
};
// runSamples for a run of at most kRunLanes samples (most of noise's): one
// step, inlined, its vectors kept for the first positions.
template <bool Positions, class T>
[[gnu::always_inline]] inline RunSamples shortRunSamples(const T* p, std::int64_t n) {
    const __m128i bias = _mm_set1_epi16(std::int16_t(-0x8000));
    const __m128i live = _mm_cmpgt_epi16(_mm_set1_epi16(std::int16_t(n)), _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7));
    // The samples moved down by 2^15 (lanes past the run 0): see ShiftedSums.
    const __m128i s = _mm_and_si128(_mm_xor_si128(loadLanes(p), bias), live);
    ShiftedSums sums;
    sums.add(s);
    RunSamples out;
    sums.into(out, n);
    const __m128i forMin = _mm_or_si128(s, _mm_andnot_si128(live, _mm_set1_epi16(0x7fff)));
    const __m128i forMax = _mm_or_si128(s, _mm_andnot_si128(live, bias));
    __m128i lo = forMin, hi = forMax;
    spreadExtrema(lo, hi);
    out.lowest = std::uint16_t(_mm_cvtsi128_si32(lo) ^ 0x8000);
    out.highest = std::uint16_t(_mm_cvtsi128_si32(hi) ^ 0x8000);
    // Lanes past the run hold the far end of each order: the first lane
    // equal to an extremum is the run's.
    if constexpr (Positions) {
        out.lowestAt = __builtin_ctz(unsigned(_mm_movemask_epi8(_mm_cmpeq_epi16(forMin, lo)))) / 2;
        out.highestAt = __builtin_ctz(unsigned(_mm_movemask_epi8(_mm_cmpeq_epi16(forMax, hi)))) / 2;
    }
    return out;
}
// runSamples' whole steps of 16 bytes (8-bit samples) from `from` to
// `end` at most: the sums by _mm_sad_epu8 and by products of the halves
// widened to 16 bits (a step's squares add at most 2^18 to a 32-bit lane:
// a segment's 2^11 steps fit), the extrema by unsigned byte comparisons,
// folded into lo and hi (runSamples' lanes, moved down by 2^15). Into
// out's sums; returns where the steps stopped.
inline std::int64_t byteSteps(const std::uint8_t* p, std::int64_t from, std::int64_t end, RunSamples& out, __m128i& lo,
                              __m128i& hi) {
    if (from + 16 > end) return from;
    const __m128i zero = _mm_setzero_si128();
    __m128i sums = zero, squares = zero, least = _mm_set1_epi8(char(0xff)), most = zero;
    std::int64_t i = from;
    for (; i + 16 <= end; i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
        sums = _mm_add_epi64(sums, _mm_sad_epu8(v, zero));
        const __m128i a = _mm_unpacklo_epi8(v, zero), b = _mm_unpackhi_epi8(v, zero);
        squares = _mm_add_epi32(squares, _mm_add_epi32(_mm_madd_epi16(a, a), _mm_madd_epi16(b, b)));
        least = _mm_min_epu8(least, v);
        most = _mm_max_epu8(most, v);
    }
    std::uint64_t two[2];
    _mm_storeu_si128(reinterpret_cast<__m128i*>(two), sums);
    out.sum += std::int64_t(two[0] + two[1]);
    const __m128i q = _mm_add_epi64(_mm_unpacklo_epi32(squares, zero), _mm_unpackhi_epi32(squares, zero));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(two), q);
    out.squares += std::int64_t(two[0] + two[1]);
    // The bytes' extrema as 16-bit lanes moved down by 2^15, as lo and hi hold theirs.
    const __m128i bias = _mm_set1_epi16(std::int16_t(-0x8000));
    lo = _mm_min_epi16(lo, _mm_min_epi16(_mm_xor_si128(_mm_unpacklo_epi8(least, zero), bias),
                                         _mm_xor_si128(_mm_unpackhi_epi8(least, zero), bias)));
    hi = _mm_max_epi16(hi, _mm_max_epi16(_mm_xor_si128(_mm_unpacklo_epi8(most, zero), bias),
                                         _mm_xor_si128(_mm_unpackhi_epi8(most, zero), bias)));
    return i;
}
template <bool Positions, class T>
inline RunSamples runSamples(const T* p, std::int64_t n) {
    const __m128i lane = _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7);
    // Extrema are compared as signed 16-bit lanes (SSE2 has no unsigned
    // ones): the samples moved down by 2^15, lanes past the run at the far
    // end of the order for each.
    const __m128i bias = _mm_set1_epi16(std::int16_t(-0x8000));
    const __m128i top = _mm_set1_epi16(0x7fff);
    // A segment's sums in ShiftedSums (2^12 steps at most); the whole steps
    // with no lanes past the run to mask.
    constexpr std::int64_t kSegment = std::int64_t(1) << 12;
    RunSamples out;
    __m128i lo = top, hi = bias;
    for (std::int64_t segment = 0; segment < n; segment += kSegment * kRunLanes) {
        const std::int64_t end = std::min(n, segment + kSegment * kRunLanes);
        ShiftedSums sums;
        std::int64_t i = segment;
        if constexpr (sizeof(T) == 1) i = byteSteps(p, i, end, out, lo, hi);
        const std::int64_t shiftedFrom = i;  // the samples before it were summed as bytes
        for (; i + kRunLanes <= end; i += kRunLanes) {
            const __m128i s = _mm_xor_si128(loadLanes(p + i), bias);
            sums.add(s);
            lo = _mm_min_epi16(lo, s);
            hi = _mm_max_epi16(hi, s);
        }
        if (i < end) {
            const __m128i live = _mm_cmpgt_epi16(_mm_set1_epi16(std::int16_t(end - i)), lane);
            const __m128i s = _mm_and_si128(_mm_xor_si128(loadLanes(p + i), bias), live);
            sums.add(s);
            lo = _mm_min_epi16(lo, _mm_or_si128(s, _mm_andnot_si128(live, top)));
            hi = _mm_max_epi16(hi, _mm_or_si128(s, _mm_andnot_si128(live, bias)));
        }
        sums.into(out, end - shiftedFrom);
    }
    // Every lane the extremum, then its first lane in the run.
    spreadExtrema(lo, hi);
    out.lowest = std::uint16_t(_mm_cvtsi128_si32(lo) ^ 0x8000);
    out.highest = std::uint16_t(_mm_cvtsi128_si32(hi) ^ 0x8000);
    auto first = [&](__m128i value) {
        for (std::int64_t i = 0;; i += kRunLanes) {
            const __m128i live = _mm_cmpgt_epi16(_mm_set1_epi16(std::int16_t(std::min<std::int64_t>(n - i, kRunLanes))), lane);
            const __m128i s = _mm_xor_si128(_mm_and_si128(loadLanes(p + i), live), bias);
            const unsigned m = unsigned(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi16(s, value), live)));
            if (m) return i + __builtin_ctz(m) / 2;
        }
    };
    if constexpr (Positions) {
        out.lowestAt = first(lo);
        out.highestAt = first(hi);
    }
    return out;
}
#endif

#if defined(__SSE2__)
// The perimeter's classes (kClass in gatherChunk) of the border elements
// of region r among row[x, x + n) of border rows b0 (above), b1, b2
// (below), for n <= kPerimeterLanes, 4 elements a step with no branch on
// the neighbours or the run's end: noise's runs are short and their
// border elements come at random. Counts of classes 0, 1, 2 in bits 0,
// 8, 16. Reads b*[x - 1, x + kPerimeterLanes]: the caller makes sure they
// are in the rows (padded by one element on each side).
constexpr std::int64_t kPerimeterLanes = 8;
[[gnu::always_inline]] inline std::uint32_t perimeterClasses(const std::int32_t* b0, const std::int32_t* b1, const std::int32_t* b2, std::int64_t x,
                                      std::int64_t n, std::int32_t r) {
    const __m128i want = _mm_set1_epi32(r);
    const __m128i lane = _mm_setr_epi32(0, 1, 2, 3);
    auto is = [&](const std::int32_t* row, std::int64_t at) {
        return _mm_cmpeq_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + at)), want);
    };
    auto equals = [](__m128i a, int v) { return _mm_cmpeq_epi32(a, _mm_set1_epi32(v)); };
    __m128i counts = _mm_setzero_si128();
    for (std::int64_t i = 0; i < n; i += 4) {
        const std::int64_t at = x + i;
        const __m128i live = _mm_and_si128(_mm_cmpgt_epi32(_mm_set1_epi32(std::int32_t(n - i)), lane), is(b1, at));
        // Minus the neighbours of the region along the edges, at the corners.
        const __m128i edges = _mm_add_epi32(_mm_add_epi32(is(b1, at - 1), is(b1, at + 1)), _mm_add_epi32(is(b0, at), is(b2, at)));
        const __m128i corners =
            _mm_add_epi32(_mm_add_epi32(is(b0, at - 1), is(b0, at + 1)), _mm_add_epi32(is(b2, at - 1), is(b2, at + 1)));
        const __m128i e1 = equals(edges, -1);
        const __m128i class0 = _mm_and_si128(_mm_or_si128(equals(edges, -2), equals(edges, -3)), _mm_cmpgt_epi32(corners, _mm_set1_epi32(-3)));
        const __m128i class1 = _mm_or_si128(_mm_and_si128(equals(edges, 0), equals(corners, -2)), _mm_and_si128(e1, equals(corners, -3)));
        const __m128i class2 = _mm_and_si128(e1, _mm_or_si128(equals(corners, -1), equals(corners, -2)));
        const __m128i one = _mm_or_si128(_mm_or_si128(_mm_and_si128(class0, _mm_set1_epi32(1)), _mm_and_si128(class1, _mm_set1_epi32(1 << 8))),
                                         _mm_and_si128(class2, _mm_set1_epi32(1 << 16)));
        counts = _mm_add_epi32(counts, _mm_and_si128(live, one));
    }
    counts = _mm_add_epi32(counts, _mm_shuffle_epi32(counts, 0x4e));
    counts = _mm_add_epi32(counts, _mm_shuffle_epi32(counts, 0xb1));
    return std::uint32_t(_mm_cvtsi128_si32(counts));
}
#endif

#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GLCCL_ROW_PERIMETER_CLASSES 1
// The perimeter's classes (kClass in gatherChunk) of every border element
// of a row at once, b1 between the border rows b0 (above) and b2 (below),
// each w elements: bit x of classes(k)[x / 64] for class k = 0, 1, 2 (the
// word after the last zero: classesIn reads it). A run's classes are then
// three masked popcounts (classesIn) rather than its elements'
// neighbourhoods compared run by run (perimeterClasses): cheaper where
// runs are dense, as in noise; a row of a few long runs costs less run by
// run.
//
// Each neighbour relation is a word of bits, an element a bit, found 16
// elements a step with no branch on the neighbours (noise's border
// elements come at random): x's left and right neighbours from one mask of
// x against x - 1; the row below's three relations (x against x - 1, x, x
// + 1 below) are the next row's relations with its row above, kept for it.
// The neighbours along the edges and at the corners are then counted in
// bits (adders over words) and the classes read from the counts. A step
// where b1 (b0 for the relations with the row above) is background alone
// gets no relations: only an element of a region counts its neighbours,
// and no background equals it. Reads b*[-1, w rounded up to 16]: the
// caller pads the rows with kNoRegion.
constexpr std::int64_t kRowClassPad = 16;

// The row-wide passes' steps (RowPerimeterClasses, rowTouches): four ids
// from p; 16 ids from p into r, true where all are background (-1, a step
// those passes skip: it holds no region's element); bit i of 16
// comparisons' results, four lanes in each of m[0..3]; and 16 ids' three
// neighbours in the next row (compareNeighbours16).
inline __m128i loadIds4(const std::int32_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline bool loadIds16(const std::int32_t* p, __m128i* r) {
    for (int i = 0; i < 4; ++i) r[i] = loadIds4(p + 4 * i);
    const __m128i all = _mm_and_si128(_mm_and_si128(r[0], r[1]), _mm_and_si128(r[2], r[3]));
    return _mm_movemask_epi8(_mm_cmpeq_epi32(all, _mm_set1_epi32(-1))) == 0xffff;
}
inline std::uint64_t bits16(const __m128i* m) {
    return std::uint64_t(std::uint32_t(_mm_movemask_epi8(_mm_packs_epi16(_mm_packs_epi32(m[0], m[1]), _mm_packs_epi32(m[2], m[3])))));
}
// Of 16 ids r of one row and the row `other` beside it (from the same x):
// each id against the other row's element below (above) it, and the ones
// to its left and right, into m[0], m[1], m[2].
inline void compareNeighbours16(const __m128i* r, const std::int32_t* other, __m128i (*m)[4]) {
    for (int i = 0; i < 4; ++i) {
        const std::int32_t* p = other + 4 * i;
        m[0][i] = _mm_cmpeq_epi32(r[i], loadIds4(p));
        m[1][i] = _mm_cmpeq_epi32(r[i], loadIds4(p - 1));
        m[2][i] = _mm_cmpeq_epi32(r[i], loadIds4(p + 1));
    }
}

// The perimeter's classes (kClass in gatherChunk) of the border elements
// `live`, a bit each, from their border neighbours of their region along
// the edges (a, b, c, d) and at the corners (e, f, g, h), each a word of
// bits: the neighbours counted by adders over words, the classes read
// from the counts. Into class0..class2.
inline void classWords(std::uint64_t live, std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d,
                       std::uint64_t e, std::uint64_t f, std::uint64_t g, std::uint64_t h, std::uint64_t& class0,
                       std::uint64_t& class1, std::uint64_t& class2) {
    // Adds four words of bits: the count's bits 0, 1, 2.
    auto count = [](std::uint64_t w, std::uint64_t x, std::uint64_t y, std::uint64_t z, std::uint64_t n[3]) {
        const std::uint64_t wx = w ^ x, yz = y ^ z;
        n[0] = wx ^ yz;
        n[1] = ((w & x) ^ (y & z)) | (wx & yz);  // two pairs of ones: 4, bit 1 clear
        n[2] = w & x & y & z;
    };
    std::uint64_t edges[3], corners[3];
    count(a, b, c, d, edges);
    count(e, f, g, h, corners);
    const std::uint64_t e0 = ~(edges[0] | edges[1] | edges[2]), e1 = edges[0] & ~edges[1] & ~edges[2],
                        e23 = edges[1] & ~edges[2];
    const std::uint64_t cUpTo2 = ~corners[2] & ~(corners[0] & corners[1]),
                        c2 = ~corners[0] & corners[1] & ~corners[2], c3 = corners[0] & corners[1],
                        c12 = (corners[0] ^ corners[1]) & ~corners[2];
    class0 = live & e23 & cUpTo2;
    class1 = live & ((e0 & c2) | (e1 & c3));
    class2 = live & e1 & c12;
}

// Word k of a row of bits (words + 1 words, the last zero) as each
// element's neighbour before it sees it (bit x: element x - 1, 0 at x = 0)
// and as its neighbour after it does (bit x: element x + 1).
[[gnu::always_inline]] inline std::uint64_t bitsBefore(const std::uint64_t* b, std::size_t k) {
    const std::uint64_t before = k ? 1 : 0;  // the word before exists
    return (b[k] << 1) | ((b[k - before] >> 63) & before);
}
[[gnu::always_inline]] inline std::uint64_t bitsAfter(const std::uint64_t* b, std::size_t k) {
    return (b[k] >> 1) | (b[k + 1] << 63);
}

// classWords of word k of the border elements of one region, rows of bits
// (words + 1 words, the last zero): c the row's, u and d those of the rows
// above and below.
[[gnu::always_inline]] inline void borderClassWords(const std::uint64_t* u, const std::uint64_t* c, const std::uint64_t* d,
                                                    std::size_t k, std::uint64_t& class0, std::uint64_t& class1,
                                                    std::uint64_t& class2) {
    classWords(c[k], bitsBefore(c, k), bitsAfter(c, k), u[k], d[k], bitsBefore(u, k), bitsAfter(u, k), bitsBefore(d, k),
               bitsAfter(d, k), class0, class1, class2);
}

// Word k of the runs of one region's bits `m` that touch its runs in the
// row above (bits `a`), as rowTouches marks them: `starts` m's run starts
// in the word; a run's count is that of `first` plus that of `last` in it.
// Rows of words + 1 words, the last zero.
[[gnu::always_inline]] inline void touchWords(const std::uint64_t* m, const std::uint64_t* a, std::size_t k, std::uint64_t starts,
                                              std::uint64_t& first, std::uint64_t& last) {
    const std::uint64_t aLeft = bitsBefore(a, k), aRight = bitsAfter(a, k);  // a[x - 1], a[x + 1]
    const std::uint64_t ends = m[k] & ~bitsAfter(m, k);
    first = m[k] & ((starts & (aLeft | a[k])) | (~starts & a[k] & ~aLeft));
    last = ends & aRight & ~a[k];
}

class RowPerimeterClasses {
public:
    void resize(std::size_t words) {
        if (words_ == words) return;
        words_ = words;
        bits_.assign(kArrays * (words + 1), 0);
    }
    // `aboveKept`: the row before was classified here and was b0 (so that
    // its relations with the row below are b1's with b0).
    void classify(const std::int32_t* b0, const std::int32_t* b1, const std::int32_t* b2, std::int64_t w, bool aboveKept) {
        if (!aboveKept) relations(b0, b1, w, at(kUp), at(kUp + 1), at(kUp + 2), at(kLeft), at(kLive));
        relations(b1, b2, w, at(kDown), at(kDown + 1), at(kDown + 2), at(kLeft), at(kLive));
        const std::uint64_t *upSame = at(kUp), *upLeft = at(kUp + 1), *upRight = at(kUp + 2);
        const std::uint64_t *downSame = at(kDown), *downLeft = at(kDown + 1), *downRight = at(kDown + 2);
        const std::uint64_t *left = at(kLeft), *live = at(kLive);
        std::uint64_t *class0 = at(kClasses), *class1 = at(kClasses + 1), *class2 = at(kClasses + 2);
        for (std::size_t k = 0; k < words_; ++k) {
            // x against x - 1 above is x - 1's relation "x + 1 below" of the row above.
            const std::uint64_t upLeftOf = bitsBefore(upRight, k), upRightOf = bitsAfter(upLeft, k), rightOf = bitsAfter(left, k);
            classWords(live[k], left[k], rightOf, upSame[k], downSame[k], upLeftOf, upRightOf, downLeft[k],
                       downRight[k], class0[k], class1[k], class2[k]);
        }
        // The row below's relations are the next row's with its row above.
        for (std::size_t a = 0; a < 3; ++a) std::swap_ranges(at(kUp + a), at(kUp + a) + words_ + 1, at(kDown + a));
    }
    const std::uint64_t* classes(std::size_t k) const { return bits_.data() + (kClasses + k) * (words_ + 1); }

private:
    // Bit x of the relations of row a with row b below it: a[x] equal to
    // b[x] (same), to b[x - 1] (left), to b[x + 1] (right); and of a alone:
    // a[x] equal to a[x - 1] (along), a region's element (live).
    static void relations(const std::int32_t* a, const std::int32_t* b, std::int64_t w, std::uint64_t* same, std::uint64_t* left,
                          std::uint64_t* right, std::uint64_t* along, std::uint64_t* live) {
        const __m128i none = _mm_set1_epi32(-1);
        const std::size_t words = std::size_t((w + 63) / 64);
        for (std::size_t k = 0; k < words; ++k) {
            std::uint64_t found[5] = {0, 0, 0, 0, 0};
            const std::int64_t x0 = std::int64_t(k) * 64;
            for (int step = 0; step < 4 && x0 + 16 * step < w; ++step) {
                const std::int64_t x = x0 + 16 * step;
                __m128i r[4];
                if (loadIds16(a + x, r)) continue;
                __m128i m[5][4];
                compareNeighbours16(r, b + x, m);
                for (int i = 0; i < 4; ++i) {
                    m[3][i] = _mm_cmpeq_epi32(r[i], loadIds4(a + x + 4 * i - 1));
                    m[4][i] = _mm_cmpeq_epi32(r[i], none);
                }
                const int shift = 16 * step;
                for (int j = 0; j < 4; ++j) found[j] |= bits16(m[j]) << shift;
                found[4] |= (~bits16(m[4]) & 0xffff) << shift;
            }
            same[k] = found[0];
            left[k] = found[1];
            right[k] = found[2];
            along[k] = found[3];
            live[k] = found[4];
        }
    }
    // The arrays, words_ + 1 words each: relations with the row above
    // (same, left, right), with the row below, along the row, live, classes.
    static constexpr std::size_t kUp = 0, kDown = 3, kLeft = 6, kLive = 7, kClasses = 8, kArrays = 11;
    std::uint64_t* at(std::size_t array) { return bits_.data() + array * (words_ + 1); }
    std::size_t words_ = 0;
    std::vector<std::uint64_t> bits_;
};

// The bits of [x, x1) set in the words `bits` (and the word after the
// last, read where the run ends in the last word), counted. Reads 8 bytes
// from x's byte for a run of up to 57 elements: little-endian words.
[[gnu::always_inline]] inline std::uint64_t classesIn(const std::uint64_t* bits, std::int64_t x, std::int64_t x1) {
    const std::int64_t n = x1 - x;
    if (n <= 57) {
        std::uint64_t v;
        std::memcpy(&v, reinterpret_cast<const unsigned char*>(bits) + (x >> 3), sizeof v);
        return std::uint64_t(__builtin_popcountll((v >> (x & 7)) & (~std::uint64_t(0) >> (64 - n))));
    }
    std::uint64_t count = 0;
    for (std::int64_t p = x; p < x1;) {
        const int b = int(p & 63);
        const std::int64_t span = std::min<std::int64_t>(64 - b, x1 - p);
        std::uint64_t m = bits[p >> 6] >> b;
        if (span < 64) m &= (std::uint64_t(1) << span) - 1;
        count += std::uint64_t(__builtin_popcountll(m));
        p += span;
    }
    return count;
}
#endif

// The runs of region r in row `above` (w elements) that 8-touch the run
// [x, x + n) of the row below: the places p in [x - 1, x + n] inside the
// row that hold r where p is the first place or above[p - 1] is not r, one
// place a run. 4-byte ids 4 places a step with no branch on the row or the
// run's end (noise's runs are short and the runs above them end at random,
// where walking a list of them mispredicts); places whose step would read
// past the row's ends one at a time. For short runs: a long one reads
// every place (touchingMarkedRuns reads the starts).
constexpr std::int64_t kTouchingLanes = 8;
template <class Id>
[[gnu::always_inline]] inline int touchingRuns(const Id* above, std::int64_t w, std::int64_t x, std::int64_t n, Id r) {
    const std::int64_t first = std::max<std::int64_t>(x - 1, 0), end = std::min(x + n + 1, w);
    int count = 0;
#if defined(__SSE2__)
    if constexpr (std::is_same_v<Id, std::int32_t>) {
        const std::int64_t places = end - first;
        // Steps read above[first - 1, first + places rounded up to 4).
        if (first >= 1 && first + ((places + 3) & ~std::int64_t(3)) <= w) {
            const __m128i want = _mm_set1_epi32(r);
            const __m128i lane = _mm_setr_epi32(0, 1, 2, 3);
            // The first place counts whether or not a run starts there.
            __m128i counted = _mm_setr_epi32(-1, 0, 0, 0);
            __m128i total = _mm_setzero_si128();
            for (std::int64_t i = 0; i < places; i += 4) {
                const std::int32_t* p = above + first + i;
                const __m128i here = _mm_cmpeq_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), want);
                const __m128i before =
                    _mm_andnot_si128(counted, _mm_cmpeq_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p - 1)), want));
                const __m128i live = _mm_cmpgt_epi32(_mm_set1_epi32(std::int32_t(places - i)), lane);
                total = _mm_sub_epi32(total, _mm_and_si128(live, _mm_andnot_si128(before, here)));
                counted = _mm_setzero_si128();
            }
            total = _mm_add_epi32(total, _mm_shuffle_epi32(total, 0x4e));
            total = _mm_add_epi32(total, _mm_shuffle_epi32(total, 0xb1));
            return _mm_cvtsi128_si32(total);
        }
    }
#endif
    for (std::int64_t p = first; p < end; ++p) count += int(above[p] == r && (p == first || above[p - 1] != r));
    return count;
}

// touchingRuns from the row above's run starts (markRuns' `starts` of the
// whole row): the first place, and each place after it where a run
// starts, one word of 64 places at a time; for long runs, over which few
// runs above start.
template <class Id>
inline int touchingMarkedRuns(const Id* above, const std::uint64_t* starts, std::int64_t w, std::int64_t x, std::int64_t n, Id r) {
    const std::int64_t first = std::max<std::int64_t>(x - 1, 0), end = std::min(x + n + 1, w);
    int count = int(above[first] == r);
    for (std::int64_t p = first + 1; p < end;) {
        const int b = int(p & 63);
        const std::int64_t span = std::min<std::int64_t>(64 - b, end - p);
        std::uint64_t m = starts[p >> 6] >> b;
        if (span < 64) m &= (std::uint64_t(1) << span) - 1;
        for (; m; m &= m - 1) count += int(above[p + __builtin_ctzll(m)] == r);
        p += span;
    }
    return count;
}

#if defined(GLCCL_ROW_PERIMETER_CLASSES)
// touchingRuns of every run of a row at once (row of w 4-byte ids under
// `above`; `starts` its runs' first elements, markRuns' words): a run
// [x, x1)'s count is classesIn(first, x, x1) + classesIn(last, x, x1), so
// that a dense row's runs count with two masked popcounts each. With
// same[p] = (row[p] == above[p]), and the row's element against the one
// above to its left (aboveLeft) and right (aboveRight), a run of region r
// touches the runs of r above whose first place in [x - 1, x1] is: x - 1
// (aboveLeft[x]) or x (same[x]), counted at x; p in (x, x1) with same[p]
// and not same[p - 1]; x1 (aboveRight[x1 - 1], not same[x1 - 1]), counted
// at x1 - 1 in `last`. 16 elements a step; a step of background alone
// gets no bits (it holds no run). first and last hold words + 1 words,
// the last zero (classesIn reads it).
inline void rowTouches(const std::int32_t* row, const std::int32_t* above, std::int64_t w, const std::uint64_t* starts,
                       std::size_t words, std::uint64_t* first, std::uint64_t* last) {
    std::uint64_t sameBefore = 0;  // the word before's same bits
    for (std::size_t k = 0; k < words; ++k) {
        std::uint64_t same = 0, left = 0, right = 0;
        const std::int64_t x0 = std::int64_t(k) * 64;
        for (std::int64_t x = x0; x < std::min(x0 + 64, w); x += 16) {
            const int shift = int(x - x0);
            if (x >= 1 && x + 17 <= w) {
                __m128i r[4];
                if (loadIds16(row + x, r)) continue;
                __m128i m[3][4];
                compareNeighbours16(r, above + x, m);
                same |= bits16(m[0]) << shift;
                left |= bits16(m[1]) << shift;
                right |= bits16(m[2]) << shift;
            } else {
                // The row's ends, where a step would read past them.
                for (std::int64_t p = x; p < std::min(x + 16, w); ++p) {
                    const std::uint64_t bit = std::uint64_t(1) << (p - x0);
                    if (row[p] == above[p]) same |= bit;
                    if (p >= 1 && row[p] == above[p - 1]) left |= bit;
                    if (p + 1 < w && row[p] == above[p + 1]) right |= bit;
                }
            }
        }
        const std::uint64_t start = starts[k];
        // A run's last element: the next element starts a run (the row's
        // last element has no right neighbour above).
        const std::uint64_t end = (start >> 1) | (k + 1 < words ? starts[k + 1] << 63 : 0);
        const std::uint64_t sameBeforeBits = (same << 1) | (sameBefore >> 63);
        first[k] = (start & (left | same)) | (~start & same & ~sameBeforeBits);
        last[k] = end & right & ~same;
        sameBefore = same;
    }
    first[words] = 0;
    last[words] = 0;
}
#endif

#if defined(GLCCL_ROW_PERIMETER_CLASSES)
// The sums of b^0..b^3 over the set bits b of a 64-bit word, from its 16
// nibbles: lane k of table[i][n] holds the sum of b^k over the set bits
// of the nibble value n at bits [4i, 4i + 4). A word's sums fit 32 bits
// (the sum of b^3 over b < 64 is 4064256).
struct NibblePowers {
    alignas(16) std::uint32_t table[16][16][4];
    NibblePowers() {
        for (std::uint32_t i = 0; i < 16; ++i)
            for (std::uint32_t n = 0; n < 16; ++n) {
                std::uint32_t* to = table[i][n];
                to[0] = to[1] = to[2] = to[3] = 0;
                for (std::uint32_t j = 0; j < 4; ++j)
                    if (n >> j & 1) {
                        const std::uint32_t b = 4 * i + j;
                        to[0] += 1;
                        to[1] += b;
                        to[2] += b * b;
                        to[3] += b * b * b;
                    }
            }
    }
};
inline const NibblePowers& nibblePowers() {
    static const NibblePowers powers;
    return powers;
}
// The sums of x^0..x^3 (modulo 2^64) over the set bits x of mask[0, words),
// x counted from bit 0 of mask[0], added to s.
inline void maskPowerSums(const std::uint64_t* mask, std::size_t words, std::uint64_t s[4]) {
    const NibblePowers& powers = nibblePowers();
    for (std::size_t k = 0; k < words; ++k) {
        const std::uint64_t m = mask[k];
        if (!m) continue;
        __m128i acc = _mm_setzero_si128();
        for (int i = 0; i < 16; ++i)
            acc = _mm_add_epi32(acc, _mm_load_si128(reinterpret_cast<const __m128i*>(powers.table[i][(m >> (4 * i)) & 15])));
        alignas(16) std::uint32_t l[4];
        _mm_store_si128(reinterpret_cast<__m128i*>(l), acc);
        // The word's sums moved to its first bit x0: (x0 + b)^k expanded.
        const std::uint64_t x0 = std::uint64_t(k) * 64, l0 = l[0], l1 = l[1], l2 = l[2], l3 = l[3];
        s[0] += l0;
        s[1] += x0 * l0 + l1;
        s[2] += x0 * (x0 * l0 + 2 * l1) + l2;
        s[3] += x0 * (x0 * (x0 * l0 + 3 * l1) + 3 * l2) + l3;
    }
}

// Bit x of mask[x / 64] set where row[x] == r, for the w elements of a row
// (the word after the last zero); 16 ids a step. Returns whether any is.
inline bool regionBits(const std::int32_t* row, std::int64_t w, std::int32_t r, std::uint64_t* mask) {
    const std::size_t words = std::size_t((w + 63) / 64);
    const __m128i want = _mm_set1_epi32(r);
    std::uint64_t any = 0;
    for (std::size_t k = 0; k < words; ++k) {
        const std::int64_t x0 = std::int64_t(k) * 64, xEnd = std::min(x0 + 64, w);
        std::uint64_t m = 0;
        std::int64_t x = x0;
        for (; x + 16 <= xEnd; x += 16) {
            __m128i e[4];
            for (int i = 0; i < 4; ++i) e[i] = _mm_cmpeq_epi32(loadIds4(row + x + 4 * i), want);
            m |= bits16(e) << (x - x0);
        }
        for (; x < xEnd; ++x) m |= std::uint64_t(row[x] == r) << (x - x0);
        mask[k] = m;
        any |= m;
    }
    mask[words] = 0;
    return any != 0;
}

// The regions of a row of labels 1..n (label v: region v - 1), as
// forEachMarkedRun reads a row's.
struct LabelRegions {
    const std::uint32_t* labels;
    std::int64_t operator[](std::int64_t x) const { return std::int64_t(labels[x]) - 1; }
};
// The same from the labels of the row's runs in order (Pass::runLabels),
// which forEachMarkedRun reads one a run, left to right.
struct RunLabelRegions {
    const std::uint32_t* next;
    std::int64_t operator[](std::int64_t) { return std::int64_t(*next++) - 1; }
};

// The elements a row's run needs to itself for ForegroundRows to read its
// first element alone rather than the whole row.
constexpr std::int64_t kScatteredRunWidth = 256;

// The rows of a binary labeling's labels in 8-connectivity as words of bits
// (Pass::foregroundLabels): there any two 8-adjacent elements of the
// foreground hold one label, so an element's neighbours of its region are
// its neighbours of the foreground, a run of the foreground is a run of one
// region, and each run's label is read once, at its first element. Per
// row, for the whole row at once: its runs' first elements, the
// perimeter's classes of its border elements and the runs above that its
// runs touch, each a word of 64 elements (words + 1 words, the last zero:
// classesIn reads it). Rows are kept by index, so that a row's bits are
// made once for the rows around it.
class ForegroundRows {
public:
    // `bits`: the foreground's rows given (LabelSamples::foreground), or
    // null: each read from the labels as a row is asked for.
    void reset(const std::uint32_t* labels, const std::uint64_t* bits, std::int64_t w, std::int64_t h) {
        labels_ = labels;
        given_ = bits;
        w_ = w;
        h_ = h;
        words_ = std::size_t((w + 63) / 64);
        const std::size_t size = kArrays * (words_ + 1);
        if (bits_.size() != size) bits_.assign(size, 0);
        for (auto& id : rowOf_) id = kNone;
    }
    // Row y's runs' first elements (`starts`, as markRuns marks them: of
    // the background's runs too) then those of the foreground's runs
    // (`regionStarts`), words_ words each, into `marks` (markRow's layout).
    void markRuns(std::int64_t y, std::vector<std::uint64_t>& marks) {
        if (marks.size() < 2 * words_) marks.resize(2 * words_);
        const std::uint64_t* f = foreground(y);
        for (std::size_t k = 0; k < words_; ++k) {
            // Where f[x] differs from f[x - 1], and the row's first element.
            const std::uint64_t changes = (f[k] ^ bitsBefore(f, k)) | (k ? 0 : 1);
            marks[k] = changes & validBits(k);
            marks[words_ + k] = changes & f[k];
        }
    }
    // With the foreground's rows given, row y's labels read into the
    // caches before its runs' first elements are read one at a time: the
    // lines of those elements (`regionStarts`, as markRuns marks them, `runs`
    // of them) where they are few, else the whole row in order, which the
    // processor streams faster than it serves scattered misses.
    void warmRunLabels(std::int64_t y, const std::uint64_t* regionStarts, std::int64_t runs) {
        if (!given_) return;
        const std::uint32_t* row = labels_ + y * w_;
        std::uint32_t sum = 0;
        if (runs * kScatteredRunWidth > w_) {
            for (std::int64_t x = 0; x < w_; x += 16) sum += row[x];
        } else {
            for (std::size_t k = 0; k < words_; ++k)
                for (std::uint64_t starts = regionStarts[k]; starts; starts &= starts - 1)
                    sum += row[std::int64_t(k) * 64 + __builtin_ctzll(starts)];
        }
        sink_ += sum;
    }
    // The perimeter's classes of row y's border elements: class k's bits.
    void perimeterClasses(std::int64_t y, std::uint64_t* class0, std::uint64_t* class1, std::uint64_t* class2) {
        const std::uint64_t *u = border(y - 1), *c = border(y), *d = border(y + 1);
        for (std::size_t k = 0; k < words_; ++k) {
            if (!c[k]) {  // no border element: most words of an image of few regions
                class0[k] = class1[k] = class2[k] = 0;
                continue;
            }
            borderClassWords(u, c, d, k, class0[k], class1[k], class2[k]);
        }
        class0[words_] = class1[words_] = class2[words_] = 0;
    }
    // The runs of row y - 1 that row y's runs 8-touch, as rowTouches counts
    // them: a run [x, x1)'s count is classesIn(first, x, x1) +
    // classesIn(last, x, x1).
    void touches(std::int64_t y, std::uint64_t* first, std::uint64_t* last) {
        const std::uint64_t *m = foreground(y), *a = foreground(y - 1);
        for (std::size_t k = 0; k < words_; ++k) {
            if (!m[k]) {
                first[k] = last[k] = 0;
                continue;
            }
            const std::uint64_t starts = m[k] & ~bitsBefore(m, k);
            touchWords(m, a, k, starts, first[k], last[k]);
        }
        first[words_] = last[words_] = 0;
    }
    // The Crofton classes (`classOf`: windowShares().crofton) of the 2x2
    // windows whose far corner is on row y, x = 0..w (elements x - 1 and x
    // of rows y - 1 and y), the window at bit x: `near[k]` class k's
    // windows with an element on row y, of that row's run there; `far[k]`
    // those with elements on row y - 1 alone, of its run. As a window holds
    // the foreground of one region, its configuration is the foreground's.
    // 5 arrays of words_ + 2 words each (classesIn reads to bit w and the
    // word after).
    void croftonClasses(std::int64_t y, const std::array<int, 16>& classOf, std::uint64_t* near, std::uint64_t* far) {
        const std::uint64_t *f1 = foreground(y), *f0 = foreground(y - 1);
        const std::size_t stride = words_ + 2;
        std::fill_n(near, 5 * stride, 0);
        std::fill_n(far, 5 * stride, 0);
        for (std::size_t k = 0; k <= words_; ++k) {
            const std::uint64_t a = f1[k], b = f0[k];
            const std::uint64_t c = bitsBefore(f1, k), d = bitsBefore(f0, k);
            if (!(a | b | c | d)) continue;
            for (int config = 1; config < 16; ++config) {
                const int cls = classOf[std::size_t(config)];
                if (cls < 0) continue;
                const std::uint64_t m = (config & 1 ? a : ~a) & (config & 2 ? b : ~b) & (config & 4 ? c : ~c) & (config & 8 ? d : ~d);
                (config & 5 ? near : far)[std::size_t(cls) * stride + k] |= m;
            }
        }
    }

private:
    static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
    // Slots 0..4: foreground rows; 5..7: border rows; 8: a row of zeros.
    static constexpr std::size_t kForeground = 5, kBorder = 3, kArrays = kForeground + kBorder + 1;
    std::uint64_t validBits(std::size_t k) const {
        const std::int64_t left = w_ - std::int64_t(k) * 64;
        return left >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << left) - 1;
    }
    std::uint64_t* at(std::size_t slot) { return bits_.data() + slot * (words_ + 1); }
    const std::uint64_t* zeros() { return at(kArrays - 1); }
    // Bit x set where row y's label is not 0; zeros outside the image.
    const std::uint64_t* foreground(std::int64_t y) {
        if (y < 0 || y >= h_) return zeros();
        if (given_) return given_ + std::size_t(y) * (words_ + 1);
        const std::size_t slot = std::size_t(y % std::int64_t(kForeground));
        std::uint64_t* bits = at(slot);
        if (rowOf_[slot] != y) {
            rowOf_[slot] = y;
            regionBits(reinterpret_cast<const std::int32_t*>(labels_ + y * w_), w_, 0, bits);
            for (std::size_t k = 0; k < words_; ++k) bits[k] = ~bits[k] & validBits(k);
        }
        return bits;
    }
    // Row y's border elements: of the foreground, with a 4-neighbour outside it.
    const std::uint64_t* border(std::int64_t y) {
        if (y < 0 || y >= h_) return zeros();
        const std::size_t slot = kForeground + std::size_t(y % std::int64_t(kBorder));
        std::uint64_t* bits = at(slot);
        if (rowOf_[slot] != y) {
            const std::uint64_t *u = foreground(y - 1), *c = foreground(y), *d = foreground(y + 1);
            rowOf_[slot] = y;
            for (std::size_t k = 0; k < words_; ++k) {
                bits[k] = c[k] & ~(u[k] & d[k] & bitsBefore(c, k) & bitsAfter(c, k));
            }
            bits[words_] = 0;
        }
        return bits;
    }
    const std::uint32_t* labels_ = nullptr;
    const std::uint64_t* given_ = nullptr;
    std::uint32_t sink_ = 0;  // warmRunLabels' reads summed, so that they are made
    std::int64_t w_ = 0, h_ = 0;
    std::size_t words_ = 0;
    std::vector<std::uint64_t> bits_;
    std::array<std::int64_t, kForeground + kBorder> rowOf_{};
};

// The sums, least and greatest of the samples p[x] (one channel of
// unsigned integers of at most 16 bits) where bit x of `mask` is set, x
// in [0, w), w <= 2^15: 8 samples a step in vectors as runSamples reads a
// run, a step of no such element passed over; no positions (firstMasked
// finds them where an extremum is new). Reads p[0, w) only.
template <class T>
inline RunSamples maskedSamples(const T* p, std::int64_t w, const std::uint64_t* mask) {
    const __m128i bias = _mm_set1_epi16(std::int16_t(-0x8000));
    const __m128i top = _mm_set1_epi16(0x7fff);
    const __m128i laneBits = _mm_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128);
    ShiftedSums sums;
    __m128i lo = top, hi = bias;
    std::int64_t n = 0, x = 0;
    for (; x + kRunLanes <= w; x += kRunLanes) {
        const unsigned m = unsigned(mask[x >> 6] >> (x & 63)) & 0xffu;
        if (!m) continue;
        n += __builtin_popcount(m);
        const __m128i live = _mm_cmpeq_epi16(_mm_and_si128(_mm_set1_epi16(std::int16_t(m)), laneBits), laneBits);
        const __m128i v = _mm_and_si128(_mm_xor_si128(loadLanes(p + x), bias), live);
        sums.add(v);
        lo = _mm_min_epi16(lo, _mm_or_si128(v, _mm_andnot_si128(live, top)));
        hi = _mm_max_epi16(hi, _mm_or_si128(v, _mm_andnot_si128(live, bias)));
    }
    RunSamples out;
    sums.into(out, n);
    spreadExtrema(lo, hi);
    std::uint32_t lowest = std::uint16_t(_mm_cvtsi128_si32(lo) ^ 0x8000), highest = std::uint16_t(_mm_cvtsi128_si32(hi) ^ 0x8000);
    if (n == 0) {  // the tail's first element sets them
        lowest = 0xffff;
        highest = 0;
    }
    for (; x < w; ++x)
        if (mask[x >> 6] >> (x & 63) & 1) {
            const std::uint32_t v = p[x];
            out.sum += v;
            out.squares += std::int64_t(v * v);
            lowest = std::min(lowest, v);
            highest = std::max(highest, v);
        }
    out.lowest = std::uint16_t(lowest);
    out.highest = std::uint16_t(highest);
    return out;
}

// The first x with bit x of `mask` set and p[x] == v (one is).
template <class T>
inline std::int64_t firstMasked(const T* p, const std::uint64_t* mask, T v) {
    for (std::size_t k = 0;; ++k)
        for (std::uint64_t m = mask[k]; m; m &= m - 1) {
            const std::int64_t x = std::int64_t(k) * 64 + __builtin_ctzll(m);
            if (p[x] == v) return x;
        }
}
#endif

// a < b in the minimum's order and a > b in the maximum's: a NaN is beyond
// every number both ways, as numpy's minimum and maximum find a NaN.
inline bool below(double a, double b) { return a < b || (std::isnan(a) && !std::isnan(b)); }
inline bool below(__int128 a, __int128 b) { return a < b; }
inline bool above(double a, double b) { return a > b || (std::isnan(a) && !std::isnan(b)); }

// What a measurement gathers, per slot.
struct Layout {
    std::size_t moments = 0, weighted = 0, channels = 0;
    bool floats = false;
    // Terms without a slot where not requested: a slot's fewer arrays grow
    // for each of very many tiny regions.
    bool perimeter = false, crofton = false, euler = false, extrema = false;
    bool positions = false;  // the extrema's first positions (minAt, maxAt) too
    bool boxes = false;  // counts and boxes too (Pass::onePass)
};

// Totals of regions, one slot each, in flat arrays.
template <class Acc>
struct Slots {
    Layout layout;
    std::vector<std::int64_t> region;
    std::vector<std::uint64_t> count;          // x 1, layout.boxes
    std::vector<std::array<std::int64_t, 3>> boxMin, boxMax;
    std::vector<Acc> moments;                  // x layout.moments
    std::vector<std::uint64_t> perimeter;      // x 3
    std::vector<std::uint64_t> crofton;        // x 5
    std::vector<std::int64_t> euler;           // x 1
    std::vector<Acc> sum, squares;             // x channels, integer intensities
    std::vector<DoubleDouble> sumF, squaresF;  // x channels, floating-point ones
    std::vector<__int128> minI, maxI;          // x channels
    std::vector<double> minF, maxF;            // x channels
    std::vector<std::uint64_t> minAt, maxAt;   // x channels
    std::vector<char> seen;                    // x 1: extrema set
    std::vector<Acc> weighted;                 // x channels x layout.weighted
    std::vector<DoubleDouble> weightedF;

    std::size_t size() const { return region.size(); }
    // The bytes its arrays hold.
    std::size_t bytes() const {
        auto of = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
        return of(region) + of(count) + of(boxMin) + of(boxMax) + of(moments) + of(perimeter) + of(crofton) + of(euler) +
               of(sum) + of(squares) + of(sumF) + of(squaresF) + of(minI) + of(maxI) + of(minF) + of(maxF) + of(minAt) +
               of(maxAt) + of(seen) + of(weighted) + of(weightedF);
    }
    void clear() {
        region.clear();
        count.clear(); boxMin.clear(); boxMax.clear();
        moments.clear(); perimeter.clear(); crofton.clear(); euler.clear();
        sum.clear(); squares.clear(); sumF.clear(); squaresF.clear();
        minI.clear(); maxI.clear(); minF.clear(); maxF.clear(); minAt.clear(); maxAt.clear(); seen.clear();
        weighted.clear(); weightedF.clear();
    }
    // Room for `slots` slots in every array in use, each array's pages
    // mapped at once (reserveMapped).
    void reserve(std::size_t slots) {
        const Layout& l = layout;
        const std::size_t c = l.channels;
        reserveMapped(region, slots);
        reserveMapped(seen, slots);
        if (l.boxes) {
            reserveMapped(count, slots);
            reserveMapped(boxMin, slots);
            reserveMapped(boxMax, slots);
        }
        if (l.moments) reserveMapped(moments, slots * l.moments);
        if (l.perimeter) reserveMapped(perimeter, slots * 3);
        if (l.crofton) reserveMapped(crofton, slots * 5);
        if (l.euler) reserveMapped(euler, slots);
        if (!c) return;
        if (l.floats) {
            reserveMapped(sumF, slots * c);
            reserveMapped(squaresF, slots * c);
            if (l.weighted) reserveMapped(weightedF, slots * c * l.weighted);
            if (l.extrema) {
                reserveMapped(minF, slots * c);
                reserveMapped(maxF, slots * c);
            }
        } else {
            reserveMapped(sum, slots * c);
            reserveMapped(squares, slots * c);
            if (l.weighted) reserveMapped(weighted, slots * c * l.weighted);
            if (l.extrema) {
                reserveMapped(minI, slots * c);
                reserveMapped(maxI, slots * c);
            }
        }
        if (l.positions) {
            reserveMapped(minAt, slots * c);
            reserveMapped(maxAt, slots * c);
        }
    }
    // A new slot, every total zero.
    std::size_t add(std::int64_t r) {
        const Layout& l = layout;
        if (region.size() == region.capacity()) reserve(2 * region.size() + 16);
        region.push_back(r);
        if (l.boxes) {
            const std::int64_t big = std::numeric_limits<std::int64_t>::max();
            count.push_back(0);
            boxMin.push_back({big, big, big});
            boxMax.push_back({-1, -1, -1});
        }
        if (l.moments) moments.resize(moments.size() + l.moments);
        if (l.perimeter) perimeter.resize(perimeter.size() + 3);
        if (l.crofton) crofton.resize(crofton.size() + 5);
        if (l.euler) euler.push_back(0);
        seen.push_back(0);
        if (l.channels) {
            if (l.floats) {
                sumF.resize(sumF.size() + l.channels);
                squaresF.resize(squaresF.size() + l.channels);
                if (l.weighted) weightedF.resize(weightedF.size() + l.channels * l.weighted);
                if (l.extrema) {
                    minF.resize(minF.size() + l.channels);
                    maxF.resize(maxF.size() + l.channels);
                }
            } else {
                sum.resize(sum.size() + l.channels);
                squares.resize(squares.size() + l.channels);
                if (l.weighted) weighted.resize(weighted.size() + l.channels * l.weighted);
                if (l.extrema) {
                    minI.resize(minI.size() + l.channels);
                    maxI.resize(maxI.size() + l.channels);
                }
            }
            if (l.positions) {
                minAt.resize(minAt.size() + l.channels);
                maxAt.resize(maxAt.size() + l.channels);
            }
        }
        return region.size() - 1;
    }
    // Slot s of `from` copied to a new slot.
    void append(const Slots& from, std::size_t s) {
        const Layout& l = layout;
        auto copy = [s](auto& to, const auto& src, std::size_t width) {
            to.insert(to.end(), src.begin() + std::ptrdiff_t(s * width), src.begin() + std::ptrdiff_t((s + 1) * width));
        };
        region.push_back(from.region[s]);
        if (l.boxes) {
            copy(count, from.count, 1);
            copy(boxMin, from.boxMin, 1);
            copy(boxMax, from.boxMax, 1);
        }
        copy(moments, from.moments, l.moments);
        if (l.perimeter) copy(perimeter, from.perimeter, 3);
        if (l.crofton) copy(crofton, from.crofton, 5);
        if (l.euler) copy(euler, from.euler, 1);
        copy(seen, from.seen, 1);
        if (l.channels) {
            if (l.floats) {
                copy(sumF, from.sumF, l.channels);
                copy(squaresF, from.squaresF, l.channels);
                copy(weightedF, from.weightedF, l.channels * l.weighted);
                if (l.extrema) {
                    copy(minF, from.minF, l.channels);
                    copy(maxF, from.maxF, l.channels);
                }
            } else {
                copy(sum, from.sum, l.channels);
                copy(squares, from.squares, l.channels);
                copy(weighted, from.weighted, l.channels * l.weighted);
                if (l.extrema) {
                    copy(minI, from.minI, l.channels);
                    copy(maxI, from.maxI, l.channels);
                }
            }
            if (l.positions) {
                copy(minAt, from.minAt, l.channels);
                copy(maxAt, from.maxAt, l.channels);
            }
        }
    }
};

// A worker's slots for the chunk it gathers, found by region.
template <class Acc>
class ChunkTable {
public:
    // Regions up to this many are found through a dense index (4 bytes each
    // per worker), more through a hash map.
    static constexpr std::size_t kDenseRegions = std::size_t(1) << 22;

    // `regions` regions, or with `grown`, regions up to that many whose
    // index grows as they come (one pass: most images have far fewer).
    ChunkTable(const Layout& layout, std::size_t regions, bool grown = false) : denseIndex_(regions <= kDenseRegions) {
        slots.layout = layout;
        if (denseIndex_) {
            const std::size_t first = grown ? std::min<std::size_t>(regions, 1024) : regions;
            reserveMapped(dense_, first);
            dense_.assign(first, -1);
        }
    }
    // Whether reset() makes this table one of `regions` regions: the same
    // kind of index.
    bool resettable(std::size_t regions) const { return denseIndex_ == (regions <= kDenseRegions); }
    // This table, kept from a measurement before, made one of `regions`
    // regions of `layout` (resettable()): its slots emptied, its index of
    // every region unset (clear() leaves it so, and the entries past its
    // size are made unset), its scratch kept but for a row's entries,
    // whose arrays grow together for one request's terms (emptied, their
    // memory kept), as the table constructed would be.
    void reset(const Layout& layout, std::size_t regions, bool grown) {
        clear();
        slots.layout = layout;
        const std::size_t first = grown ? std::min<std::size_t>(regions, 1024) : regions;
        if (denseIndex_ && dense_.size() < first) dense_.resize(first, -1);
        scratch.entryOf.clear();
        scratch.entrySlot.clear();
        scratch.entryPowers.clear();
        scratch.entryPowers64.clear();
        scratch.entryWeighted.clear();
        scratch.entryWeightedF.clear();
    }
    // The entries of its index and slots' region list: what keeping it costs.
    std::size_t heldRegions() const { return dense_.size() + slots.region.capacity(); }
    [[gnu::always_inline]] std::size_t of(std::int64_t r) {
        if (r == last_) return lastSlot_;
        std::size_t s;
        if (denseIndex_) {
            if (std::size_t(r) >= dense_.size()) dense_.resize(std::max(std::size_t(r) + 1, 2 * dense_.size()), -1);
            std::int32_t& d = dense_[std::size_t(r)];
            if (d < 0) d = std::int32_t(slots.add(r));
            s = std::size_t(d);
        } else {
            const auto found = sparse_.find(r);
            if (found != sparse_.end()) s = found->second;
            else sparse_.emplace(r, s = slots.add(r));
        }
        last_ = r;
        lastSlot_ = s;
        return s;
    }
    void clear() {
        if (denseIndex_)
            for (std::int64_t r : slots.region) dense_[std::size_t(r)] = -1;
        sparse_.clear();
        slots.clear();
        last_ = kNoRegion;
    }
    Slots<Acc> slots;
    // What gatherChunk works in, kept from chunk to chunk (see RowIndices).
    struct Scratch {
        // Rows of ids and border rows, as the ids' type.
        template <class Id>
        struct Rows {
            std::vector<Id> rows, border, noBorder;
        };
        Rows<std::int64_t> rows64;
        Rows<std::int32_t> rows32;
        template <class Id>
        Rows<Id>& rowsOf() {
            if constexpr (std::is_same_v<Id, std::int32_t>) return rows32;
            else return rows64;
        }
        std::vector<std::int32_t> entryOf;
        std::vector<std::size_t> entrySlot;
        std::vector<__int128> entryPowers;
        std::vector<std::int64_t> entryPowers64;
        std::vector<Acc> entryWeighted;
        std::vector<DoubleDouble> entryWeightedF;
        std::vector<std::uint64_t> runBits;
        std::vector<std::uint64_t> startsAbove, regionStartsAbove;  // the row above's run starts (Euler numbers)
#if defined(GLCCL_ROW_PERIMETER_CLASSES)
        RowPerimeterClasses perimeterRows;
        std::vector<std::uint64_t> touches;  // a dense row's rowTouches, first then last
        std::vector<std::uint64_t> dominantBits;  // a dense row's elements of Pass::dominant
        std::vector<std::uint64_t> dominantAbove;  // the row above's (dominantRowTerms' Euler numbers)
        std::vector<std::uint64_t> dominantBorder;  // 3 border rows' (dominantRowTerms' perimeter), a slot a row as border()'s
        ForegroundRows foreground;                  // Pass::foregroundLabels' rows
        std::vector<std::uint64_t> foregroundClasses;  // a row's perimeter classes from them, 3 arrays
        std::vector<std::uint64_t> croftonNear, croftonFar;  // ForegroundRows::croftonClasses
        std::vector<std::uint64_t> runsAbove;  // the marks of the row whose far windows are added
#endif
        std::vector<std::size_t> kept;  // slots of regions that span chunks
    } scratch;

private:
    bool denseIndex_;
    std::vector<std::int32_t> dense_;
    std::unordered_map<std::int64_t, std::size_t> sparse_;
    std::int64_t last_ = kNoRegion;
    std::size_t lastSlot_ = 0;
};

// What pass 3 reads.
struct Pass {
    const Grid& grid;
    const Owned& owned;
    const TermRequest& q;
    const Boxes& boxes;
    const RowFill& fill;
    // The same ids as 32-bit integers, where the regions fit them (null:
    // 64-bit rows only).
    const RowFill32* fill32 = nullptr;
    std::vector<std::array<int, 3>> momentExponents, weightedExponents;
    // The whole image is measured (no piece): its 2-D Euler numbers may be
    // counted from runs, whose partial totals are not the windows' (the
    // pieces of one image must all count alike to be merged).
    bool whole = false;
    // The counts and boxes are gathered in this pass, not known before it
    // (a label image read once): `boxes` is empty, the rows hold label
    // values less labelShift (0 or 1: the background kNoRegion where it is
    // not measured), each below `ids`; coordinates are summed from the
    // image's origin and moved to each box's corner once the boxes are
    // known. A chunk's worker stops where `abandon` is set (a label past
    // `ids`, or the chunks' slots past kHeldSlotBytes: the caller measures
    // another way).
    bool onePass = false;
    // The region of the most elements (kNoRegion: none chosen), whose runs
    // of a dense row are measured at once from the row's bits
    // (dominantRowTerms): the one large region of noise has nearly every
    // run of its rows.
    std::int64_t dominant = kNoRegion;
    std::size_t ids = 0;
    std::int64_t labelShift = 0;
    std::atomic<bool>* abandon = nullptr;
    // The 32-bit labels 1..n of a whole 2-D image labeled binary in
    // 8-connectivity (LabelSamples::foregroundConnected), or null: their
    // rows are read as words of bits (ForegroundRows) and each run's label
    // at its first element, where the request needs no 2x2 windows.
    const std::uint32_t* foregroundLabels = nullptr;
    // Those labels' foreground as bits, as the labeler read it
    // (LabelSamples::foreground), or null: ForegroundRows reads it from them.
    const std::uint64_t* foregroundBits = nullptr;
    // With those bits, the label of each run of theirs, row by row
    // (LabelSamples::runLabels), or null (runStarts): each run's label is
    // read at its first element.
    const std::uint32_t* runLabels = nullptr;
    const std::uint64_t* runStarts = nullptr;
};

// The rows a region's terms come from: its own, and the row (slice) after,
// whose windows hold its last row (slice).
inline std::pair<std::int64_t, std::int64_t> span(const Grid& g, const Boxes& b, std::size_t r) {
    if (b.counts[r] == 0) return {0, g.rows};  // a region a piece's margin alone holds: windows only
    const std::int64_t first = b.min[r][2] * g.h + b.min[r][1];
    const std::int64_t z = std::min(b.max[r][2] + (g.dims == 3 ? 1 : 0), g.d - 1);
    const std::int64_t y = std::min(b.max[r][1] + 1, g.h - 1);
    return {first, std::max(first, z * g.h + y)};
}

// Positions: the extrema's first positions too (Layout::positions), a
// copy of its own so that the runs' loop has none of their work otherwise.
template <class Acc, class In, class Id, bool Positions>
void gatherChunk(const Pass& pass, const In& in, std::size_t chunk, ChunkTable<Acc>& table) {
    const Grid& g = pass.grid;
    const TermRequest& q = pass.q;
    const Owned& own = pass.owned;
    Slots<Acc>& S = table.slots;
    auto& scratch = table.scratch;
    auto& idRows = scratch.template rowsOf<Id>();
    const RowFillOf<Id>* fill;
    if constexpr (std::is_same_v<Id, std::int32_t>) fill = pass.fill32;
    else fill = &pass.fill;
    RowIndices<Id> rows(g, *fill, idRows.rows);
    const WindowShares& conf = windowShares();
    const std::size_t nm = pass.momentExponents.size(), nw = pass.weightedExponents.size();
    const int channels = In::present ? in.channels : 0;

    // A 2-D region's Euler number from its runs: the union of its elements'
    // closed squares is that of its runs' closed bars, where two bars meet
    // (in a segment or a point) only for runs of consecutive rows that
    // 8-touch, and no three meet; so it is as a graph, one vertex a run and
    // one edge a touching pair, whose Euler characteristic is runs - pairs
    // (in quarters, as the windows count it). One pass over the runs,
    // instead of every 2x2 window.
    const bool eulerByRuns = q.euler && g.dims == 2 && pass.whole;
    // The run starts of the row above (markRuns; the whole row: eulerByRuns
    // is for a whole image), for the long runs below it; those of the row
    // the loop has just read, else marked apart.
    const std::size_t words = std::size_t((g.w + 63) / 64);
    std::uint64_t* startsAbove = nullptr;
    std::int64_t markedRow = -1;  // the row whose starts startsAbove holds
    if (eulerByRuns) {
        if (scratch.startsAbove.size() < words) {
            scratch.startsAbove.resize(words);
            scratch.regionStartsAbove.resize(words);
        }
        startsAbove = scratch.startsAbove.data();
    }

    // Border elements of row (y, z) for the perimeter: an element of a
    // region with a 4-neighbour outside it (or outside the image) holds its
    // region, every other element kNoRegion. Each row is padded with
    // kNoRegion on both sides (and past its end by a step of
    // RowPerimeterClasses) and a row outside the image is all kNoRegion,
    // so that a neighbour is read without bounds checks.
#if defined(GLCCL_ROW_PERIMETER_CLASSES)
    // A dense row's classes at once (RowPerimeterClasses), for 32-bit ids.
    constexpr bool rowClasses = std::is_same_v<Id, std::int32_t>;
    const std::size_t paddedWidth = std::size_t(g.w) + 2 + std::size_t(kRowClassPad);
    RowPerimeterClasses* classRows = nullptr;
    std::int64_t classifiedRow = -1;  // the row classRows classified last
    [[maybe_unused]] std::int64_t dominantBitsRow = -1;  // the row whose Pass::dominant bits scratch.dominantBits holds
    if (rowClasses && q.perimeter) {
        scratch.perimeterRows.resize(words);
        classRows = &scratch.perimeterRows;
    }
    // A whole 2-D image's rows read as bits (Pass::foregroundLabels), its
    // Euler numbers counted from runs: no row of ids is made for them.
    const bool byForeground = rowClasses && pass.foregroundLabels && g.dims == 2 && !pass.onePass && own.begin[0] == 0 &&
                              own.end[0] == g.w && !(q.euler && !eulerByRuns);
    if (byForeground) {
        scratch.foreground.reset(pass.foregroundLabels, pass.foregroundBits, g.w, g.h);
        if (scratch.foregroundClasses.size() < 3 * (words + 1)) scratch.foregroundClasses.resize(3 * (words + 1));
        if (q.crofton && scratch.croftonNear.size() < 5 * (words + 2)) {
            scratch.croftonNear.resize(5 * (words + 2));
            scratch.croftonFar.resize(5 * (words + 2));
        }
    }
#else
    const std::size_t paddedWidth = std::size_t(g.w) + 2;
    constexpr bool byForeground = false;
#endif
    if (q.perimeter && idRows.border.size() != 3 * paddedWidth) {
        reserveMapped(idRows.border, 3 * paddedWidth);
        reserveMapped(idRows.noBorder, paddedWidth);
        idRows.border.assign(3 * paddedWidth, Id(kNoRegion));
        idRows.noBorder.assign(paddedWidth, Id(kNoRegion));
    }
    std::array<std::int64_t, 3> borderIds{-1, -1, -1};
    auto border = [&](std::int64_t y, std::int64_t z) -> const Id* {
        if (y < 0 || y >= g.h) return idRows.noBorder.data() + 1;
        const std::int64_t id = z * g.h + y;
        const std::size_t slot = std::size_t(id % 3);
        Id* out = idRows.border.data() + slot * paddedWidth + 1;
        if (borderIds[slot] == id) return out;
        borderIds[slot] = id;
        const Id* up = rows.row(y - 1, z);
        const Id* down = rows.row(y + 1, z);
        const Id* row = rows.row(y, z);
        // The first and last columns, and every column of the first and
        // last rows, are borders; between them, no bounds to check.
        const bool inside = up && down;
        for (std::int64_t x : {std::int64_t(0), g.w - 1}) out[x] = row[x];
        // No branch a comparison: the neighbours of noise differ at random.
        if (inside) {
            std::int64_t x = 1;
#if defined(__SSE2__)
            // r where a neighbour differs, else all ones (kNoRegion).
            static_assert(kNoRegion == -1);
            using L = Lanes<Id>;
            auto edges = [&](std::int64_t at) {
                const __m128i r = L::load(row + at);
                const __m128i same = _mm_and_si128(_mm_and_si128(L::equal(L::load(row + at - 1), r), L::equal(L::load(row + at + 1), r)),
                                                   _mm_and_si128(L::equal(L::load(up + at), r), L::equal(L::load(down + at), r)));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(out + at), _mm_or_si128(r, same));
            };
            // Background (most of a sparse image's rows) is background in
            // the border row whatever its neighbours: 4 vectors of it are
            // written without reading their neighbours.
            const __m128i none = L::all(Id(kNoRegion));
            for (; x + 4 * L::count <= g.w - 1; x += 4 * L::count) {
                const __m128i all = _mm_and_si128(_mm_and_si128(L::load(row + x), L::load(row + x + L::count)),
                                                  _mm_and_si128(L::load(row + x + 2 * L::count), L::load(row + x + 3 * L::count)));
                if (_mm_movemask_epi8(_mm_cmpeq_epi32(all, none)) == 0xffff) {
                    for (int i = 0; i < 4; ++i) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + x + i * L::count), none);
                } else {
                    for (int i = 0; i < 4; ++i) edges(x + i * L::count);
                }
            }
            for (; x + L::count <= g.w - 1; x += L::count) edges(x);
#endif
            for (; x < g.w - 1; ++x) {
                const Id r = row[x];
                const bool edge = (row[x - 1] != r) | (row[x + 1] != r) | (up[x] != r) | (down[x] != r);
                out[x] = edge ? r : Id(kNoRegion);
            }
        } else
            for (std::int64_t x = 1; x < g.w - 1; ++x) out[x] = row[x];
        return out;
    };

    // The 2x2 (2x2x2) windows whose far corner is on row (y, z).
    auto windows = [&](std::int64_t y, std::int64_t z) {
        const Id* near0 = rows.row(y - 1, z);
        const Id* near1 = rows.row(y, z);
        const Id* far0 = g.dims == 3 ? rows.row(y - 1, z - 1) : nullptr;
        const Id* far1 = g.dims == 3 ? rows.row(y, z - 1) : nullptr;
        const int count = g.dims == 3 ? 8 : 4;
        auto get = [&](const Id* row, std::int64_t x) { return row && x >= 0 && x < g.w ? std::int64_t(row[x]) : kNoRegion; };
        const std::int64_t xEnd = own.end[0] == g.w ? g.w : own.end[0] - 1;
        // Where every row of the windows is inside the image, the windows
        // within one region (or none) are passed over without the bounds
        // checks of get(): most windows of most images are such.
        const bool allRows = near0 && near1 && (count == 4 || (far0 && far1));
        const std::int64_t interiorEnd = std::min(xEnd + 1, g.w);  // windows with x - 1 and x inside
        auto uniformAt = [&](std::int64_t x) {
            const std::int64_t a = near1[x];
            if (near0[x] != a || near1[x - 1] != a || near0[x - 1] != a) return false;
            return count == 4 || (far1[x] == a && far0[x] == a && far1[x - 1] == a && far0[x - 1] == a);
        };
        // A region's share of a window is added only where the
        // configuration has one: in 2-D, windows of two side-by-side
        // elements or of all four (most windows along a region's border)
        // add nothing, and are not looked up in the table.
        auto share = [&](std::int64_t r, int config) {
            const std::size_t c = std::size_t(config);
            const int e = eulerByRuns ? 0 : count == 8 ? conf.euler3[c] : conf.euler2[c];
            const int k = q.crofton ? conf.crofton[c] : -1;
            if (!(q.euler && e != 0) && k < 0) return;
            const std::size_t s = table.of(r);
            if (q.euler) S.euler[s] += e;
            if (k >= 0) ++S.crofton[s * 5 + std::size_t(k)];
        };
        for (std::int64_t x = own.begin[0]; x <= xEnd; ++x) {
            if (allRows && x >= 1) {
                while (x < interiorEnd && uniformAt(x)) ++x;
                if (x > xEnd) break;
                if (count == 4 && x < interiorEnd) {
                    // A 2-D window inside the image: each region's
                    // configuration from its first element on (the bits of
                    // the elements before are of other regions).
                    const std::int64_t a = near1[x], b = near0[x], c = near1[x - 1], d = near0[x - 1];
                    if (a != kNoRegion) share(a, 1 | int(b == a) << 1 | int(c == a) << 2 | int(d == a) << 3);
                    if (b != kNoRegion && b != a) share(b, 2 | int(c == b) << 2 | int(d == b) << 3);
                    if (c != kNoRegion && c != a && c != b) share(c, 4 | int(d == c) << 3);
                    if (d != kNoRegion && d != a && d != b && d != c) share(d, 8);
                    continue;
                }
            }
            std::int64_t v[8];
            v[0] = get(near1, x);
            v[1] = get(near0, x);
            v[2] = get(near1, x - 1);
            v[3] = get(near0, x - 1);
            bool uniform = v[0] == v[1] && v[0] == v[2] && v[0] == v[3];
            if (count == 8) {
                v[4] = get(far1, x);
                v[5] = get(far0, x);
                v[6] = get(far1, x - 1);
                v[7] = get(far0, x - 1);
                uniform = uniform && v[0] == v[4] && v[0] == v[5] && v[0] == v[6] && v[0] == v[7];
            }
            if (uniform) continue;  // inside one region, or none: every share is 0
            for (int i = 0; i < count; ++i) {
                const std::int64_t r = v[i];
                if (r == kNoRegion) continue;
                bool earlier = false;
                for (int j = 0; j < i; ++j) earlier |= v[j] == r;
                if (earlier) continue;
                int config = 0;
                for (int j = i; j < count; ++j) config |= int(v[j] == r) << j;
                share(r, config);
            }
        }
    };

    // Where a region's coordinates are counted from: its box's first corner,
    // or in one pass the image's.
    static constexpr std::array<std::int64_t, 3> kImageOrigin{0, 0, 0};
    auto originOf = [&](std::int64_t r) -> const std::array<std::int64_t, 3>& {
        return pass.onePass ? kImageOrigin : pass.boxes.min[std::size_t(r)];
    };

    // Sums of x^0..x^3 (and intensity times them) of a row's elements by
    // region: multiplied by the row's y and z powers once per region and
    // row, not once per run.
    using Weighted = std::conditional_t<In::floating, DoubleDouble, Acc>;
    // Samples of 32-bit floats, 24 bits of mantissa: a square, and a product
    // with an integer below dd_detail::kFloat32ExactFactor, a double exactly.
    constexpr bool kFloat32 = std::is_same_v<typename In::Sample, float>;
    std::vector<std::int32_t>& entryOf = scratch.entryOf;  // by slot; -1 between rows
    std::vector<std::size_t>& entrySlot = scratch.entrySlot;
    // Rows of at most 2^15 elements: a run's sums of x^k, and a row's, in
    // 64 bits (below 2^60), without a division of 128-bit integers or a
    // carry an addition.
    const bool shortRows = g.w <= (std::int64_t(1) << 15);
    std::vector<__int128>& entryPowers = scratch.entryPowers;      // entries x 4, longer rows
    std::vector<std::int64_t>& entryPowers64 = scratch.entryPowers64;  // entries x 4, short rows
    std::vector<Weighted>& entryWeighted = [&]() -> std::vector<Weighted>& {  // entries x channels x 4
        if constexpr (In::floating) return scratch.entryWeightedF;
        else return scratch.entryWeighted;
    }();
    const std::size_t weightedWidth = std::size_t(channels) * 4;
    // The arrays keep their size from row to row (`entries` of them in
    // use): a row of noise has an entry for nearly every run, each of which
    // would otherwise grow three arrays through calls.
    std::size_t entries = 0;
    auto entry = [&](std::size_t s) {
        if (entryOf.size() <= s) entryOf.resize(s + 1 + entryOf.size(), -1);
        if (entryOf[s] < 0) {
            const std::size_t e = entries++;
            entryOf[s] = std::int32_t(e);
            if (entrySlot.size() < entries) {
                const std::size_t room = 2 * entries + 64;
                entrySlot.resize(room);
                if (nm && shortRows) entryPowers64.resize(room * 4);
                if (nm && !shortRows) entryPowers.resize(room * 4);
                if (nw) entryWeighted.resize(room * weightedWidth);
            }
            entrySlot[e] = s;
            if (nm && shortRows) std::fill_n(&entryPowers64[e * 4], 4, std::int64_t(0));
            if (nm && !shortRows) std::fill_n(&entryPowers[e * 4], 4, __int128(0));
            if (nw) std::fill_n(&entryWeighted[e * weightedWidth], weightedWidth, Weighted{});
        }
        return std::size_t(entryOf[s]);
    };
    // Where a row's sums of x^k (below w^4 / 4) and every y^b z^c asked
    // for fit 63 bits, each moment's term is one product of two 64-bit
    // integers instead of two of 128-bit ones.
    int yzDegree = 0;
    for (const auto& ex : pass.momentExponents) yzDegree = std::max(yzDegree, ex[1] + ex[2]);
    const int yzBits = (64 - __builtin_clzll(std::uint64_t(std::max(g.h, g.d)))) * yzDegree;
    const bool narrowProducts = std::is_same_v<Acc, __int128> && g.w <= (std::int64_t(1) << 15) && yzBits <= 62;
    // A 2-D request's narrow products need only y's powers, in 64 bits
    // (below 2^62 where they are used); the 128-bit powers of y and z are
    // made only for the other paths.
    const bool narrowPlane = narrowProducts && g.dims == 2;
    auto flushRow = [&](std::int64_t y, std::int64_t z) {
        for (std::size_t e = 0; e < entries; ++e) {
            const std::size_t s = entrySlot[e];
            const auto& lo = originOf(S.region[s]);
            if (nm && narrowPlane) {
                // TermRequest::exponents' 2-D order, y's powers outer,
                // walked without reading it: z's power is 1. y's powers
                // past the request's degree wrap unused.
                Acc* m = &S.moments[s * nm];
                const std::uint64_t ly = std::uint64_t(y - lo[1]);
                const std::int64_t py[4] = {1, std::int64_t(ly), std::int64_t(ly * ly), std::int64_t(ly * ly * ly)};
                const std::int64_t* sx64 = &entryPowers64[e * 4];
                if (q.momentLevel == 4) {
                    for (int ey = 0; ey <= 3; ++ey) {
                        const std::int64_t fy = py[ey];
                        for (int ex = 0; ex <= 3; ++ex) add(m[ey * 4 + ex], __int128(sx64[ex]) * fy);
                    }
                } else {
                    std::size_t i = 0;
                    for (int ey = 0; ey <= q.momentLevel; ++ey) {
                        const std::int64_t fy = py[ey];
                        for (int ex = 0; ex <= q.momentLevel - ey; ++ex) add(m[i++], __int128(sx64[ex]) * fy);
                    }
                }
            }
            if ((nm && !narrowPlane) || nw) {
                const __int128 ly = y - lo[1], lz = z - lo[2];
                const __int128 py[4] = {1, ly, ly * ly, ly * ly * ly};
                const __int128 pz[4] = {1, lz, lz * lz, lz * lz * lz};
                if (nm && !narrowPlane) {
                    Acc* m = &S.moments[s * nm];
                    __int128 sx[4];
                    for (std::size_t k = 0; k < 4; ++k) sx[k] = shortRows ? __int128(entryPowers64[e * 4 + k]) : entryPowers[e * 4 + k];
                    if (narrowProducts) {
                        for (std::size_t i = 0; i < nm; ++i) {
                            const auto& ex = pass.momentExponents[i];
                            add(m[i], __int128(std::int64_t(sx[ex[0]])) * (std::int64_t(py[ex[1]]) * std::int64_t(pz[ex[2]])));
                        }
                    } else {
                        for (std::size_t i = 0; i < nm; ++i) {
                            const auto& ex = pass.momentExponents[i];
                            add(m[i], times(times(sx[ex[0]], py[ex[1]], (const Acc*)nullptr), pz[ex[2]]));
                        }
                    }
                }
                for (std::size_t c = 0; nw && c < std::size_t(channels); ++c) {
                    const Weighted* run = &entryWeighted[e * weightedWidth + c * 4];
                    for (std::size_t i = 0; i < nw; ++i) {
                        const auto& ex = pass.weightedExponents[i];
                        const __int128 yz = py[ex[1]] * pz[ex[2]];
                        const std::size_t at = (s * std::size_t(channels) + c) * nw + i;
                        if constexpr (In::floating) S.weightedF[at] += run[ex[0]] * exactDD(yz);
                        else add(S.weighted[at], times(run[ex[0]], yz));
                    }
                }
            }
            entryOf[s] = -1;
        }
        entries = 0;
    };

    // The request's flags, the samples and the width as locals: the runs' loop
    // stores through char (the slots' `seen`), which may alias any field
    // read through a reference, so these would be loaded again each run.
    const bool wantSums = q.intensitySums, wantExtrema = q.intensityExtrema, wantPerimeter = q.perimeter, onePass = pass.onePass;
    [[maybe_unused]] const bool vectorRuns = channels == 1;
    [[maybe_unused]] const std::size_t samples = [&] {
        if constexpr (In::present) return in.size;
        else return std::size_t(0);
    }();
    [[maybe_unused]] const auto* sampleData = [&] {
        if constexpr (In::present) return in.data;
        else return static_cast<const void*>(nullptr);
    }();
    const std::int64_t width = g.w;
#if defined(GLCCL_ROW_PERIMETER_CLASSES)
    // Pass::dominant's runs of a dense row at once (dominantRowTerms), for
    // the whole rows of short rows, where every term a run adds comes
    // from the bits of the region in the row, the rows beside it and their
    // border rows: the perimeter's classes, the runs touching the row
    // above, the power sums (maskPowerSums), and one channel of unsigned
    // samples of at most 16 bits without weighted moments. The row-wide
    // passes (RowPerimeterClasses, rowTouches) are left out for such a
    // row: its other runs find their terms one at a time.
    bool dominantRows = false;
    if constexpr (rowClasses) {
        constexpr bool samplesByBits = [] {
            if constexpr (In::present) return In::narrow && std::is_unsigned_v<typename In::Sample>;
            else return true;
        }();
        dominantRows = samplesByBits && (channels == 0 || vectorRuns) && nw == 0 && !onePass && pass.dominant != kNoRegion &&
                       shortRows && own.begin[0] == 0 && own.end[0] == g.w;
    }
    // The row's runs of Pass::dominant (a dense row's): the terms of every
    // one of them added from the row's bits, and their starts taken out of
    // `regionStarts` (markRuns'), so that the loop over the runs leaves them.
    // Not inlined: its code stays out of the loop over the runs, which
    // most rows of most images take alone.
    std::array<std::int64_t, 3> dominantBorderIds{-1, -1, -1};  // the border rows dominantBorder's slots hold
    auto dominantRowTerms = [&](const Id* row, std::int64_t flat, std::uint64_t* regionStarts, const Id* const* borders,
                                const Id* aboveRow) __attribute__((noinline)) {
        if constexpr (rowClasses) {
            // Its scratch made at its first row: an image with no dense
            // row keeps the memory layout of a measurement without it.
            if (scratch.dominantBits.size() < words + 1) scratch.dominantBits.resize(words + 1);
            if (scratch.dominantAbove.size() < words + 1) scratch.dominantAbove.resize(words + 1);
            // The runs above that the region's runs touch, from its bits in
            // the row above (the last row's, where that was the row above).
            const bool touches = eulerByRuns && aboveRow;
            if (touches) {
                if (dominantBitsRow == flat - 1) std::swap(scratch.dominantBits, scratch.dominantAbove);
                else regionBits(aboveRow, width, std::int32_t(pass.dominant), scratch.dominantAbove.data());
            }
            const std::uint64_t* above = scratch.dominantAbove.data();
            // The perimeter's classes of the region's elements, as
            // RowPerimeterClasses::classify finds them, with its border
            // elements' neighbours of the region where the border rows
            // y - 1, y, y + 1 (borders) hold it.
            const std::uint64_t* borderBits[3] = {nullptr, nullptr, nullptr};
            if (wantPerimeter) {
                if (scratch.dominantBorder.size() < 3 * (words + 1)) scratch.dominantBorder.resize(3 * (words + 1));
                const std::int64_t y = flat % g.h;
                for (std::int64_t d = -1; d <= 1; ++d) {
                    const std::int64_t id = flat + d;
                    const std::size_t slot = std::size_t(((id % 3) + 3) % 3);
                    std::uint64_t* bits = scratch.dominantBorder.data() + slot * (words + 1);
                    const bool inside = y + d >= 0 && y + d < g.h;
                    if (!inside || dominantBorderIds[slot] != id) {
                        regionBits(borders[d + 1], width, std::int32_t(pass.dominant), bits);
                        dominantBorderIds[slot] = inside ? id : -1;
                    }
                    borderBits[d + 1] = bits;
                }
            }
            std::uint64_t* mask = scratch.dominantBits.data();
            dominantBitsRow = flat;
            if (!regionBits(row, width, std::int32_t(pass.dominant), mask)) return;
            const std::size_t s = table.of(pass.dominant);
            std::int64_t runs = 0, touching = 0;
            std::uint64_t k0 = 0, k1 = 0, k2 = 0;
            std::int64_t sx[4] = {0, 0, 0, 0};
            for (std::size_t k = 0; k < words; ++k) {
                const std::uint64_t m = mask[k];
                if (!m) continue;
                const std::uint64_t starts = regionStarts[k] & m;
                regionStarts[k] &= ~m;
                if (eulerByRuns) {
                    runs += __builtin_popcountll(starts);
                    if (touches) {
                        // With a run's neighbours above of the region where
                        // the row above's bits are.
                        std::uint64_t first, last;
                        touchWords(mask, above, k, starts, first, last);
                        touching += __builtin_popcountll(first) + __builtin_popcountll(last);
                    }
                }
                if (wantPerimeter) {
                    if (borderBits[1][k]) {
                        std::uint64_t class0, class1, class2;
                        borderClassWords(borderBits[0], borderBits[1], borderBits[2], k, class0, class1, class2);
                        k0 += std::uint64_t(__builtin_popcountll(class0));
                        k1 += std::uint64_t(__builtin_popcountll(class1));
                        k2 += std::uint64_t(__builtin_popcountll(class2));
                    }
                }
            }
            if (nm) {
                // The sums of x^k over the region's elements of the row
                // (from the image's first column), from the mask's nibbles.
                std::uint64_t u[4] = {0, 0, 0, 0};
                maskPowerSums(mask, words, u);
                for (int i = 0; i < 4; ++i) sx[i] = std::int64_t(u[i]);
            }
            if (eulerByRuns) S.euler[s] += 4 * runs - 4 * touching;
            if (wantPerimeter) {
                std::uint64_t* kk = &S.perimeter[s * 3];
                kk[0] += k0;
                kk[1] += k1;
                kk[2] += k2;
            }
            if (nm) {
                shiftPowerSums(sx, std::uint64_t(originOf(pass.dominant)[0]));
                std::int64_t* to = &entryPowers64[entry(s) * 4];
                for (int i = 0; i < 4; ++i) to[i] += sx[i];
            }
            if constexpr (In::present && In::narrow) {
                using Sample = typename In::Sample;
                if constexpr (std::is_unsigned_v<Sample>) {
                    const std::size_t element0 = std::size_t(flat * width);
                    const Sample* p = sampleData + element0;
                    const RunSamples got = maskedSamples(p, width, mask);
                    if (wantSums) {
                        add(S.sum[s], __int128(got.sum));
                        add(S.squares[s], __int128(got.squares));
                    }
                    if (wantExtrema) {
                        // As a run's: the slot's extrema replaced only where strictly beyond.
                        const bool fresh = !S.seen[s];
                        if (fresh || __int128(got.lowest) < S.minI[s]) {
                            S.minI[s] = got.lowest;
                            if constexpr (Positions) S.minAt[s] = element0 + std::size_t(firstMasked(p, mask, Sample(got.lowest)));
                        }
                        if (fresh || S.maxI[s] < __int128(got.highest)) {
                            S.maxI[s] = got.highest;
                            if constexpr (Positions) S.maxAt[s] = element0 + std::size_t(firstMasked(p, mask, Sample(got.highest)));
                        }
                        S.seen[s] = 1;
                    }
                }
            }
        }
    };
#endif
    // The regions' runs marked in a row's words (markRuns' second half).
    [[maybe_unused]] auto markedRuns = [&](const std::uint64_t* regionStarts) {
        std::int64_t runs = 0;
        for (std::size_t k = 0; k < words; ++k) runs += __builtin_popcountll(regionStarts[k]);
        return runs;
    };
    // The labels of row `flat`'s `runs` runs (Pass::runLabels), which must
    // be as many.
    [[maybe_unused]] auto runLabelsOf = [&](std::int64_t flat, std::int64_t runs) {
        const std::uint64_t from = pass.runStarts[flat], to = pass.runStarts[flat + 1];
        if (to < from || to - from != std::uint64_t(runs))
            throw Error("glccl::measureComponentTerms(): row " + std::to_string(flat) + " of the foreground has " +
                        std::to_string(runs) + " runs but " + std::to_string(std::int64_t(to - from)) +
                        " run labels (LabelSamples::runLabels)");
        return pass.runLabels + from;
    };
    [[maybe_unused]] bool denseBefore = false;  // the row before was dense and read as ids
    for (std::int64_t flat = g.chunkBegin(chunk); flat < g.chunkEnd(chunk); ++flat) {
        const std::int64_t y = flat % g.h, z = flat / g.h;
        bool bitsRow = false;  // the row is read as bits (byForeground), its windows with it
        if ((nm > 0 || channels > 0 || q.perimeter || eulerByRuns || (q.crofton && byForeground) || pass.onePass) && own.row(y, z)) {
            // A row read as bits (byForeground), unless it is dense (a run
            // in every 8 elements or more: noise), where the region of the
            // most elements is measured at once from the rows of ids
            // (dominantRowTerms). Else rows of ids, and the perimeter's
            // border rows of them. A row after a dense one is taken as
            // dense (noise's rows are), without its bits: read as ids, it
            // is measured alike whatever it is.
#if defined(GLCCL_ROW_PERIMETER_CLASSES)
            std::int64_t foregroundRuns = 0;  // a row read as bits: its runs
            if (byForeground && !denseBefore) {
                scratch.foreground.markRuns(y, scratch.runBits);
                foregroundRuns = markedRuns(scratch.runBits.data() + words);
                bitsRow = 8 * foregroundRuns < g.w;
                if (bitsRow && !pass.runStarts) scratch.foreground.warmRunLabels(y, scratch.runBits.data() + words, foregroundRuns);
            }
#endif
            const bool ids = !bitsRow;
            const Id* row = ids ? rows.row(y, z) : nullptr;
            const Id* b0 = ids && q.perimeter ? border(y - 1, z) : nullptr;
            const Id* b1 = ids && q.perimeter ? border(y, z) : nullptr;
            const Id* b2 = ids && q.perimeter ? border(y + 1, z) : nullptr;
            const Id* aboveRow = ids && eulerByRuns && y > 0 ? rows.row(y - 1, z) : nullptr;
            if (aboveRow && markedRow != flat - 1) markRuns(aboveRow, 0, g.w, startsAbove, scratch.regionStartsAbove.data());
            const std::size_t runWords = bitsRow ? words : markRow(row, own.begin[0], own.end[0], scratch.runBits);
#if defined(GLCCL_ROW_PERIMETER_CLASSES)
            // A dense row (a region's run in every 8 elements or more): its
            // perimeter classes and touching runs found at once.
            bool denseRow = false;
            const std::uint64_t* rowClass[3] = {nullptr, nullptr, nullptr};
            const std::uint64_t *touchFirst = nullptr, *touchLast = nullptr;
            const std::uint64_t* croftonNear = nullptr;  // a row read as bits: its windows' Crofton classes
            if (bitsRow) {
                // The row's classes and touching runs from its bits.
                denseRow = true;
                ForegroundRows& bits = scratch.foreground;
                if (q.crofton) {
                    bits.croftonClasses(y, conf.crofton, scratch.croftonNear.data(), scratch.croftonFar.data());
                    croftonNear = scratch.croftonNear.data();
                }
                if (q.perimeter) {
                    std::uint64_t* c = scratch.foregroundClasses.data();
                    bits.perimeterClasses(y, c, c + words + 1, c + 2 * (words + 1));
                    for (std::size_t k = 0; k < 3; ++k) rowClass[k] = c + k * (words + 1);
                }
                if (eulerByRuns) {
                    std::vector<std::uint64_t>& t = scratch.touches;
                    if (t.size() < 2 * (words + 1)) t.resize(2 * (words + 1));
                    bits.touches(y, t.data(), t.data() + words + 1);
                    touchFirst = t.data();
                    touchLast = t.data() + words + 1;
                }
            } else if constexpr (rowClasses) {
                if (classRows || eulerByRuns || dominantRows) {
                    std::int64_t runs = 0;
                    for (std::size_t k = 0; k < runWords; ++k) runs += __builtin_popcountll(scratch.runBits[runWords + k]);
                    denseRow = 8 * runs >= own.end[0] - own.begin[0];
                }
                const bool dominantHere = [&] {
                    if (!denseRow || !dominantRows) return false;
                    const auto& lo = pass.boxes.min[std::size_t(pass.dominant)];
                    const auto& hi = pass.boxes.max[std::size_t(pass.dominant)];
                    return y >= lo[1] && y <= hi[1] && z >= lo[2] && z <= hi[2];
                }();
                // Where dominantRowTerms counts the region's runs touching
                // the row above from its bits, the other runs count theirs
                // one at a time (touchFirst null).
                // Likewise its perimeter's classes (rowClass null).
                if (denseRow && classRows && !dominantHere) {
                    classRows->classify(b0, b1, b2, g.w, y > 0 && classifiedRow == flat - 1);
                    classifiedRow = flat;
                    for (std::size_t k = 0; k < 3; ++k) rowClass[k] = classRows->classes(k);
                }
                if (denseRow && eulerByRuns && !dominantHere) {
                    // A whole row: runWords is words.
                    std::vector<std::uint64_t>& t = scratch.touches;
                    if (t.size() < 2 * (words + 1)) t.resize(2 * (words + 1));
                    if (aboveRow) rowTouches(row, aboveRow, g.w, scratch.runBits.data(), words, t.data(), t.data() + words + 1);
                    else std::fill(t.begin(), t.end(), 0);  // the first row: none above
                    touchFirst = t.data();
                    touchLast = t.data() + words + 1;
                }
                if (dominantHere) {
                    const Id* borders[3] = {b0, b1, b2};
                    dominantRowTerms(row, flat, scratch.runBits.data() + runWords, borders, aboveRow);
                }
            }
            denseBefore = !bitsRow && denseRow;
#endif
            // Each run's terms, inlined in the loop over the runs (a copy of
            // it for dense rows, whose perimeter classes and runs touching
            // the row above are found for the whole row at once).
            auto runTerms = [&](auto dense, std::int64_t x, std::int64_t x1, std::int64_t r) __attribute__((always_inline)) {
                [[maybe_unused]] constexpr bool denseClasses = decltype(dense)::value;
                const std::size_t s = table.of(r);
#if defined(GLCCL_ROW_PERIMETER_CLASSES)
                if (croftonNear) {
                    // The row's windows x .. x1 hold the run's elements (and no other run's).
                    for (std::size_t k = 0; k < 5; ++k) S.crofton[s * 5 + k] += classesIn(croftonNear + k * (words + 2), x, x1 + 1);
                }
#endif
                if (eulerByRuns) {
                    // Runs above touch [x, x1 - 1] where they reach x - 1 to x1.
                    std::int64_t touching;
#if defined(GLCCL_ROW_PERIMETER_CLASSES)
                    if (denseClasses && touchFirst) touching = std::int64_t(classesIn(touchFirst, x, x1) + classesIn(touchLast, x, x1));
                    else
#endif
                        touching = !aboveRow ? 0
                                   : x1 - x <= kTouchingLanes ? touchingRuns(aboveRow, width, x, x1 - x, Id(r))
                                                              : touchingMarkedRuns(aboveRow, startsAbove, width, x, x1 - x, Id(r));
                    S.euler[s] += 4 - 4 * touching;
                }
                if (onePass) {
                    S.count[s] += std::uint64_t(x1 - x);
                    auto& bl = S.boxMin[s];
                    auto& bh = S.boxMax[s];
                    bl = {std::min(bl[0], x), std::min(bl[1], y), std::min(bl[2], z)};
                    bh = {std::max(bh[0], x1 - 1), std::max(bh[1], y), std::max(bh[2], z)};
                }
                const auto& lo = originOf(r);
                const std::size_t e = nm || nw ? entry(s) : 0;
                if (nm > 0) {
                    if (shortRows) {
                        std::int64_t sx[4];
                        shortPowerSums(std::uint64_t(x - lo[0]), std::uint64_t(x1 - 1 - lo[0]), sx);
                        std::int64_t* to = &entryPowers64[e * 4];
                        for (int k = 0; k < 4; ++k) to[k] += sx[k];
                    } else {
                        __int128 sx[4];
                        powerSums(x - lo[0], x1 - 1 - lo[0], sx);
                        for (int k = 0; k < 4; ++k) entryPowers[e * 4 + std::size_t(k)] += sx[k];
                    }
                }
                if constexpr (In::present) {
                    const std::size_t element0 = std::size_t(flat * width);
                    const bool fresh = !S.seen[s];  // the region's first elements in this chunk
#if defined(__SSE2__)
                    bool vectorDone = false;
                    if constexpr (In::narrow && std::is_unsigned_v<typename In::Sample>) {
                        if (vectorRuns && (wantSums || wantExtrema) && element0 + std::size_t(x1 + kRunLanes) <= samples) {
                            const auto* p = sampleData + element0 + std::size_t(x);
                            const RunSamples run = x1 - x <= kRunLanes ? shortRunSamples<Positions>(p, x1 - x)
                                                                       : runSamples<Positions>(p, x1 - x);
                            if (wantSums) {
                                add(S.sum[s], __int128(run.sum));
                                add(S.squares[s], __int128(run.squares));
                            }
                            if (wantExtrema) {
                                // As below: the slot's extrema replaced only where strictly beyond.
                                if (fresh || __int128(run.lowest) < S.minI[s]) {
                                    S.minI[s] = run.lowest;
                                    if constexpr (Positions) S.minAt[s] = element0 + std::size_t(x + run.lowestAt);
                                }
                                if (fresh || S.maxI[s] < __int128(run.highest)) {
                                    S.maxI[s] = run.highest;
                                    if constexpr (Positions) S.maxAt[s] = element0 + std::size_t(x + run.highestAt);
                                }
                            }
                            vectorDone = true;
                        }
                    }
#else
                    constexpr bool vectorDone = false;
#endif
                    for (int c = 0; c < channels && !vectorDone; ++c) {
                        const std::size_t ci = s * std::size_t(channels) + std::size_t(c);
                        if (wantSums) {
                            if constexpr (In::narrow) {
                                std::int64_t sum = 0, squares = 0;
                                const auto* p = in.samples(element0 + std::size_t(x), c);
                                if (channels == 1) narrowSums(p, x1 - x, 1, sum, squares);
                                else narrowSums(p, x1 - x, channels, sum, squares);
                                add(S.sum[ci], __int128(sum));
                                add(S.squares[ci], __int128(squares));
                            } else {
                                Weighted sum{}, squares{};
                                for (std::int64_t xx = x; xx < x1; ++xx) {
                                    const auto v = in.at(element0 + std::size_t(xx), c);
                                    if constexpr (In::floating) {
                                        sum.addDouble(double(v));
                                        // A float's square is a double exactly (48 bits): no error to carry.
                                        if constexpr (kFloat32) squares.addDouble(double(v) * double(v));
                                        else squares.addProduct(double(v), double(v));
                                    } else {
                                        add(sum, v);
                                        add(squares, times(v, v, (const Acc*)nullptr));
                                    }
                                }
                                if constexpr (In::floating) {
                                    S.sumF[ci] += sum;
                                    S.squaresF[ci] += squares;
                                } else {
                                    add(S.sum[ci], sum);
                                    add(S.squares[ci], squares);
                                }
                            }
                        }
                        if constexpr (!In::floating) {
                            if (wantExtrema) {
                                // The run's smallest and largest, which replace
                                // the slot's only where strictly beyond (the
                                // first position in the chunk is kept); the
                                // first position of one in the run is looked
                                // for only then.
                                const auto* p = in.samples(element0 + std::size_t(x), c);
                                const std::ptrdiff_t step = channels;
                                const auto [lowest, highest] = channels == 1 ? sampleRange(p, x1 - x, 1) : sampleRange(p, x1 - x, step);
                                if (fresh || __int128(lowest) < S.minI[ci]) {
                                    S.minI[ci] = lowest;
                                    if constexpr (Positions) S.minAt[ci] = element0 + std::size_t(x + firstEqual(p, x1 - x, step, lowest));
                                }
                                if (fresh || S.maxI[ci] < __int128(highest)) {
                                    S.maxI[ci] = highest;
                                    if constexpr (Positions) S.maxAt[ci] = element0 + std::size_t(x + firstEqual(p, x1 - x, step, highest));
                                }
                            }
                        } else if (wantExtrema) {
                            // The run's first smallest and largest, then the
                            // slot's, which an equal value does not replace:
                            // the first position in the chunk is kept.
                            std::size_t minAt = element0 + std::size_t(x), maxAt = minAt;
                            auto lowest = in.at(minAt, c), highest = lowest;
                            for (std::int64_t xx = x + 1; xx < x1; ++xx) {
                                const std::size_t element = element0 + std::size_t(xx);
                                const auto v = in.at(element, c);
                                if (below(v, lowest)) { lowest = v; minAt = element; }
                                if (above(v, highest)) { highest = v; maxAt = element; }
                            }
                            bool lower, higher;
                            if constexpr (In::floating) {
                                lower = fresh || below(lowest, S.minF[ci]);
                                higher = fresh || above(highest, S.maxF[ci]);
                                if (lower) S.minF[ci] = lowest;
                                if (higher) S.maxF[ci] = highest;
                            } else {
                                lower = fresh || lowest < S.minI[ci];
                                higher = fresh || S.maxI[ci] < highest;
                                if (lower) S.minI[ci] = lowest;
                                if (higher) S.maxI[ci] = highest;
                            }
                            if (Positions && lower) S.minAt[ci] = minAt;
                            if (Positions && higher) S.maxAt[ci] = maxAt;
                        }
                    }
                    // The run's sums of intensity times x^k, for the row's entry.
                    for (int c = 0; c < channels && nw > 0; ++c) {
                        Weighted* run = &entryWeighted[e * weightedWidth + std::size_t(c) * 4];
                        if constexpr (In::narrow) {
                            __int128 sums[4] = {0, 0, 0, 0};
                            weightedPowerSums(in.samples(element0 + std::size_t(x), c), x1 - x, channels, x - lo[0], sums);
                            for (int k = 0; k < 4; ++k) add(run[k], sums[k]);
                        } else if constexpr (In::floating) {
                            // lx^3 a double exactly where lx < 2^17 (then a
                            // power's pair is the power and 0: exactDD's),
                            // and a float32's product with it too where lx^3
                            // is below kFloat32ExactFactor (no error to carry).
                            const std::int64_t widest = x1 - 1 - lo[0];
                            const bool exactPowers = widest < (std::int64_t(1) << 17);
                            const bool exactProducts = kFloat32 && exactPowers &&
                                                       std::uint64_t(widest * widest * widest) < dd_detail::kFloat32ExactFactor;
                            for (std::int64_t xx = x; xx < x1; ++xx) {
                                const double v = double(in.at(element0 + std::size_t(xx), c));
                                const std::int64_t lx = xx - lo[0];
                                if (exactPowers) {
                                    const double l = double(lx);
                                    const double px[4] = {1.0, l, l * l, l * l * l};
                                    for (int k = 0; k < 4; ++k) {
                                        if (exactProducts) run[k].addDouble(v * px[k]);
                                        else run[k].addProduct(v, px[k]);
                                    }
                                } else {
                                    const __int128 wide = lx;
                                    const __int128 px[4] = {1, wide, wide * wide, wide * wide * wide};
                                    for (int k = 0; k < 4; ++k) run[k] += DoubleDouble(v) * exactDD(px[k]);
                                }
                            }
                        } else {
                            for (std::int64_t xx = x; xx < x1; ++xx) {
                                const auto v = in.at(element0 + std::size_t(xx), c);
                                const __int128 lx = xx - lo[0];
                                const __int128 px[4] = {1, lx, lx * lx, lx * lx * lx};
                                for (int k = 0; k < 4; ++k) add(run[k], times(v, px[k], (const Acc*)nullptr));
                            }
                        }
                    }
                    if (wantExtrema) S.seen[s] = 1;
                }
                if (wantPerimeter) {
                    // Border neighbours of the same region, along the edges and at the corners;
                    // scikit-image's weights: 1 for (2 or 3 edges, up to 2 corners), sqrt 2 for
                    // (0, 2) and (1, 3), (1 + sqrt 2) / 2 for (1, 1) and (1, 2); others none
                    // (class 3). Looked up, not branched on: noise's borders vary at random.
                    static constexpr unsigned char kClass[5][5] = {
                        {3, 3, 1, 3, 3}, {3, 2, 2, 1, 3}, {0, 0, 0, 3, 3}, {0, 0, 0, 3, 3}, {3, 3, 3, 3, 3}};
                    // Counted in registers: an array indexed by the class
                    // would chain each count through memory.
                    std::uint64_t k0 = 0, k1 = 0, k2 = 0;
                    auto perimeterLoop = [&] {
                        for (std::int64_t xx = nextEqual(b1, x, x1, Id(r)); xx < x1; xx = nextEqual(b1, xx + 1, x1, Id(r))) {
                            const int edges = int(b1[xx - 1] == r) + int(b1[xx + 1] == r) + int(b0[xx] == r) + int(b2[xx] == r);
                            const int corners = int(b0[xx - 1] == r) + int(b0[xx + 1] == r) + int(b2[xx - 1] == r) +
                                                int(b2[xx + 1] == r);
                            const int c = kClass[edges][corners];
                            k0 += c == 0;
                            k1 += c == 1;
                            k2 += c == 2;
                        }
                    };
#if defined(GLCCL_ROW_PERIMETER_CLASSES)
                    if constexpr (rowClasses) {
                        if (denseClasses && rowClass[0]) {
                            k0 = classesIn(rowClass[0], x, x1);
                            k1 = classesIn(rowClass[1], x, x1);
                            k2 = classesIn(rowClass[2], x, x1);
                        } else if (x1 - x <= kPerimeterLanes && x + kPerimeterLanes <= width) {
                            const std::uint32_t packed = perimeterClasses(b0, b1, b2, x, x1 - x, Id(r));
                            k0 = packed & 0xff;
                            k1 = packed >> 8 & 0xff;
                            k2 = packed >> 16;
                        } else {
                            perimeterLoop();
                        }
                    } else {
                        perimeterLoop();
                    }
#else
                    perimeterLoop();
#endif
                    std::uint64_t* k = &S.perimeter[s * 3];
                    k[0] += k0;
                    k[1] += k1;
                    k[2] += k2;
                }
            };
            const std::uint64_t* runBits = scratch.runBits.data();
            auto sparseRun = [&](std::int64_t x, std::int64_t x1, std::int64_t r)
                                 __attribute__((always_inline)) { runTerms(std::false_type{}, x, x1, r); };
#if defined(GLCCL_ROW_PERIMETER_CLASSES)
            auto denseRun = [&](std::int64_t x, std::int64_t x1, std::int64_t r)
                                __attribute__((always_inline)) { runTerms(std::true_type{}, x, x1, r); };
            if (bitsRow && pass.runStarts) {
                forEachMarkedRun(RunLabelRegions{runLabelsOf(flat, foregroundRuns)}, 0, g.w, runBits, runWords, denseRun);
            } else if (bitsRow) {
                forEachMarkedRun(LabelRegions{pass.foregroundLabels + flat * g.w}, 0, g.w, runBits, runWords, denseRun);
            } else if (denseRow) {
                forEachMarkedRun(row, own.begin[0], own.end[0], runBits, runWords, denseRun);
            } else {
                forEachMarkedRun(row, own.begin[0], own.end[0], runBits, runWords, sparseRun);
            }
#else
            forEachMarkedRun(row, own.begin[0], own.end[0], runBits, runWords, sparseRun);
#endif
            flushRow(y, z);
#if defined(GLCCL_ROW_PERIMETER_CLASSES)
            if (bitsRow && q.crofton) {
                // The row's windows with elements on the row above alone
                // are of that row's runs, as are, after the last row, the
                // windows below it.
                auto farWindows = [&](std::int64_t runsRow) {
                    scratch.foreground.markRuns(runsRow, scratch.runsAbove);
                    const std::uint64_t* far = scratch.croftonFar.data();
                    auto farRun = [&](std::int64_t x, std::int64_t x1, std::int64_t r) {
                        const std::size_t s = table.of(r);
                        for (std::size_t k = 0; k < 5; ++k) S.crofton[s * 5 + k] += classesIn(far + k * (words + 2), x, x1 + 1);
                    };
                    const std::uint64_t* marks = scratch.runsAbove.data();
                    if (pass.runStarts)
                        forEachMarkedRun(RunLabelRegions{runLabelsOf(runsRow, markedRuns(marks + words))}, 0, g.w, marks, words, farRun);
                    else
                        forEachMarkedRun(LabelRegions{pass.foregroundLabels + runsRow * g.w}, 0, g.w, marks, words, farRun);
                };
                if (y > 0) farWindows(y - 1);
                if (y == g.h - 1) {
                    scratch.foreground.croftonClasses(g.h, conf.crofton, scratch.croftonNear.data(), scratch.croftonFar.data());
                    farWindows(y);
                }
            }
#endif
            if (eulerByRuns) {
                std::copy_n(scratch.runBits.data(), words, startsAbove);
                markedRow = flat;
            }
        }
        if ((q.crofton || (q.euler && !eulerByRuns)) && !bitsRow) {
            const bool zOwned = own.window(z, 2, g.d), zLast = g.dims == 3 && z == g.d - 1 && own.window(g.d, 2, g.d);
            const bool yOwned = own.window(y, 1, g.h), yLast = y == g.h - 1 && own.window(g.h, 1, g.h);
            if (zOwned && yOwned) windows(y, z);
            if (zOwned && yLast) windows(g.h, z);
            if (zLast && yOwned) windows(y, g.d);
            if (zLast && yLast) windows(g.h, g.d);
        }
    }
}

// Slot s's totals added to region r's (`seen` says whether r's extrema are set).
template <class Acc>
void addTo(RegionTotals& t, std::vector<char>& seen, std::size_t r, const Slots<Acc>& S, std::size_t s) {
    const Layout& l = S.layout;
    const TermRequest& q = t.request;
    for (std::size_t e = 0; e < l.moments; ++e) add(t.moments[r * l.moments + e], S.moments[s * l.moments + e]);
    if (q.perimeter)
        for (std::size_t k = 0; k < 3; ++k) t.perimeterClasses[r * 3 + k] += S.perimeter[s * 3 + k];
    if (q.crofton)
        for (std::size_t k = 0; k < 5; ++k) t.croftonClasses[r * 5 + k] += S.crofton[s * 5 + k];
    if (q.euler) t.eulerTimes[r] += S.euler[s];
    for (std::size_t c = 0; c < l.channels; ++c) {
        const std::size_t i = r * l.channels + c, j = s * l.channels + c;
        if (l.floats) {
            if (q.intensitySums) {
                t.intensitySumFloat[i] += S.sumF[j];
                t.intensitySquaresFloat[i] += S.squaresF[j];
            }
            for (std::size_t e = 0; e < l.weighted; ++e) t.weightedMomentsFloat[i * l.weighted + e] += S.weightedF[j * l.weighted + e];
        } else {
            if (q.intensitySums) {
                add(t.intensitySum[i], S.sum[j]);
                add(t.intensitySquares[i], S.squares[j]);
            }
            for (std::size_t e = 0; e < l.weighted; ++e) add(t.weightedMoments[i * l.weighted + e], S.weighted[j * l.weighted + e]);
        }
        if (q.intensityExtrema && S.seen[s]) {
            // A later chunk's extremum wins only when strictly beyond: the first position is kept.
            bool lower, higher;
            if (l.floats) {
                lower = !seen[r] || below(S.minF[j], t.intensityMin[i]);
                higher = !seen[r] || above(S.maxF[j], t.intensityMax[i]);
                if (lower) { t.intensityMin[i] = S.minF[j]; std::memcpy(&t.intensityMinBits[i], &S.minF[j], 8); }
                if (higher) { t.intensityMax[i] = S.maxF[j]; std::memcpy(&t.intensityMaxBits[i], &S.maxF[j], 8); }
            } else {
                const bool isSigned = q.intensityKind == SampleKind::Signed;
                auto value = [&](std::uint64_t bits) { return isSigned ? __int128(std::int64_t(bits)) : __int128(bits); };
                lower = !seen[r] || S.minI[j] < value(t.intensityMinBits[i]);
                higher = !seen[r] || value(t.intensityMaxBits[i]) < S.maxI[j];
                if (lower) { t.intensityMin[i] = double(S.minI[j]); t.intensityMinBits[i] = std::uint64_t(S.minI[j]); }
                if (higher) { t.intensityMax[i] = double(S.maxI[j]); t.intensityMaxBits[i] = std::uint64_t(S.maxI[j]); }
            }
            if (q.intensityPositions) {
                if (lower) t.intensityMinAt[i] = S.minAt[j];
                if (higher) t.intensityMaxAt[i] = S.maxAt[j];
            }
        }
    }
    if (q.intensityExtrema && S.seen[s]) seen[r] = 1;
}

// Moves sums of powers of coordinates from the image's origin to a box's
// first corner lo, exactly in T (__int128 where the caller has bounded every
// intermediate, else Int256): along each axis in turn,
//   sum (c - lo)^p = sum over k <= p of C(p, k) (-lo)^(p - k) sum c^k,
// the higher powers first, so that the lower ones they read are still the
// old sums.
class Recentring {
public:
    explicit Recentring(const std::vector<std::array<int, 3>>& exps) : exps_(exps) {
        for (auto& a : where_)
            for (auto& b : a)
                for (int& c : b) c = -1;
        for (std::size_t e = 0; e < exps.size(); ++e) where_[exps[e][0]][exps[e][1]][exps[e][2]] = int(e);
    }
    template <class T>
    void apply(T* sums, const std::array<std::int64_t, 3>& lo) const {
        static constexpr int binomial[4][4] = {{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 2, 1, 0}, {1, 3, 3, 1}};
        for (std::size_t a = 0; a < 3; ++a) {
            if (lo[a] == 0) continue;
            const __int128 d = -__int128(lo[a]);
            const __int128 dPower[4] = {1, d, d * d, d * d * d};
            for (int p = 3; p >= 1; --p)
                for (std::size_t e = 0; e < exps_.size(); ++e) {
                    if (exps_[e][a] != p) continue;
                    std::array<int, 3> ex = exps_[e];
                    for (int k = 0; k < p; ++k) {
                        ex[a] = k;
                        const __int128 factor = binomial[p][k] * dPower[p - k];
                        sums[e] += scaled(sums[where_[ex[0]][ex[1]][ex[2]]], factor);
                    }
                }
        }
    }

private:
    static __int128 scaled(__int128 v, __int128 f) { return v * f; }
    static Int256 scaled(const Int256& v, __int128 f) { return v * Int256::of(f); }
    const std::vector<std::array<int, 3>>& exps_;
    int where_[4][4][4];
};

// An Int256 that fits 128 bits, as __int128 (two's complement: the low limbs).
inline __int128 narrowed(const Int256& v) { return __int128((static_cast<unsigned __int128>(v.limb[1]) << 64) | v.limb[0]); }

inline int bitsOf(std::uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; }

// One pass (Pass::onePass): the regions, from every chunk's slots: each
// id's count and box, the ids of elements in ascending order (as their
// labels are), `rank` the region of each id (-1: none). Sets totals'
// regions, labels, counts and boxes.
template <class Acc>
void regionsOfSlots(const Pass& pass, const std::vector<Slots<Acc>>& chunks, std::vector<std::int64_t>& rank, RegionTotals& totals) {
    const std::int64_t big = std::numeric_limits<std::int64_t>::max();
    std::size_t ids = 0;  // past the largest id met
    for (const Slots<Acc>& S : chunks)
        for (std::int64_t id : S.region) ids = std::max(ids, std::size_t(id) + 1);
    std::vector<std::uint64_t> count(ids, 0);
    std::vector<std::array<std::int64_t, 3>> lo(ids, {big, big, big}), hi(ids, {-1, -1, -1});
    for (const Slots<Acc>& S : chunks)
        for (std::size_t s = 0; s < S.size(); ++s) {
            const std::size_t id = std::size_t(S.region[s]);
            count[id] += S.count[s];
            for (std::size_t a = 0; a < 3; ++a) {
                lo[id][a] = std::min(lo[id][a], S.boxMin[s][a]);
                hi[id][a] = std::max(hi[id][a], S.boxMax[s][a]);
            }
        }
    rank.assign(ids, -1);
    for (std::size_t id = 0; id < ids; ++id) {
        if (count[id] == 0) continue;
        rank[id] = std::int64_t(totals.labels.size());
        totals.labels.push_back(std::uint64_t(std::int64_t(id) + pass.labelShift));
        totals.counts.push_back(count[id]);
        totals.boxMin.push_back(lo[id]);
        totals.boxMax.push_back(hi[id]);
    }
    totals.regions = totals.labels.size();
}

// The workers' tables of the last measurement, for the next one: a fresh
// table costs each worker the faults of its index's and scratch rows' pages,
// and freeing them unmaps those pages on every core. Kept while their
// indexes and slots hold at most kMostRegions entries in all (16 MiB and
// up of memory); a measurement that finds them in use (another thread's,
// at once) makes tables of its own.
template <class Acc>
struct KeptTables {
    static constexpr std::size_t kMostRegions = std::size_t(1) << 22;
    std::mutex mutex;
    std::vector<std::unique_ptr<ChunkTable<Acc>>> tables;
    // Never destroyed: a worker may still hold it as the process ends.
    static KeptTables& get() {
        static KeptTables* kept = new KeptTables;
        return *kept;
    }
};

// The most bytes of spanning slots gatherTerms holds before it adds them up.
constexpr std::size_t kHeldSlotBytes = std::size_t(1) << 28;

// Pass 3 over every chunk on `threads` workers, into `totals` (whose
// arrays it sizes; in one pass, the regions' labels, counts and boxes too).
template <class Acc, class In>
void gatherTerms(const Pass& pass, const In& in, detail::ThreadPool& pool, int threads, RegionTotals& totals) {
    const Grid& g = pass.grid;
    std::size_t n = totals.regions;
    Layout layout;
    layout.moments = pass.momentExponents.size();
    layout.weighted = pass.weightedExponents.size();
    layout.channels = In::present ? std::size_t(in.channels) : 0;
    layout.floats = In::floating;
    layout.perimeter = pass.q.perimeter;
    layout.crofton = pass.q.crofton;
    layout.euler = pass.q.euler;
    layout.extrema = In::present && pass.q.intensityExtrema;
    layout.positions = layout.extrema && pass.q.intensityPositions;
    layout.boxes = pass.onePass;
    std::vector<char> seen;
    if (!pass.onePass) {
        zeroTerms(totals, threads);
        seen.assign(n, 0);
    }

    // Each worker's table made ready on its first chunk, by the worker: its
    // index by region (4 bytes a region) is memory that the workers map
    // and clear at once, not the caller one after another. The tables are
    // kept for the next measurement (KeptTables): their index and scratch
    // rows, already mapped, are then only reset.
    KeptTables<Acc>& keptTables = KeptTables<Acc>::get();
    std::unique_lock<std::mutex> keeping(keptTables.mutex, std::try_to_lock);
    std::vector<std::unique_ptr<ChunkTable<Acc>>> own;
    std::vector<std::unique_ptr<ChunkTable<Acc>>>& tables = keeping.owns_lock() ? keptTables.tables : own;
    if (tables.size() < std::size_t(threads)) tables.resize(std::size_t(threads));
    std::vector<char> ready(static_cast<std::size_t>(threads), 0);
    const std::size_t tableRegions = pass.onePass ? pass.ids : n;
    std::vector<Slots<Acc>> spanning(g.chunks);
    // The spanning slots held past kHeldSlotBytes (labels that cross every
    // chunk, each chunk holding a slot of each) are added to the totals a
    // prefix of chunks at a time, so that they take memory as the regions
    // do, not as the regions times the chunks. A region's slots are still
    // added in chunk order, whoever adds them and when, so the totals are
    // the same. In one pass the regions are not known yet: the pass is
    // abandoned, and the caller measures in passes.
    std::mutex heldMutex;
    std::size_t heldBytes = 0;
    std::size_t added = 0;  // chunks [0, added) are in the totals
    std::vector<char> gathered(g.chunks, 0);
    pool.run(g.chunks, threads, [&](std::size_t chunk, int worker) {
        if (pass.abandon && pass.abandon->load(std::memory_order_relaxed)) return;
        std::unique_ptr<ChunkTable<Acc>>& made = tables[std::size_t(worker)];
        if (!ready[std::size_t(worker)]) {
            if (made && made->resettable(tableRegions)) made->reset(layout, tableRegions, pass.onePass);
            else made = std::make_unique<ChunkTable<Acc>>(layout, tableRegions, pass.onePass);
            ready[std::size_t(worker)] = 1;
        }
        ChunkTable<Acc>& table = *made;
        table.clear();
        // 32-bit ids where given; with the wide accumulator (rare: very
        // large images or wide intensities) 64-bit ones only, which spares
        // compiling that accumulator for both.
        auto gather = [&](auto positions) {
            constexpr bool P = decltype(positions)::value;
            if constexpr (std::is_same_v<Acc, __int128>) {
                if (pass.fill32) gatherChunk<Acc, In, std::int32_t, P>(pass, in, chunk, table);
                else gatherChunk<Acc, In, std::int64_t, P>(pass, in, chunk, table);
            } else {
                gatherChunk<Acc, In, std::int64_t, P>(pass, in, chunk, table);
            }
        };
        // The positions' copy is made only where an intensity is read.
        if constexpr (In::present) {
            if (layout.positions) gather(std::true_type{});
            else gather(std::false_type{});
        } else {
            gather(std::false_type{});
        }
        const std::int64_t begin = g.chunkBegin(chunk), end = g.chunkEnd(chunk);
        Slots<Acc>& keep = spanning[chunk];
        keep.layout = layout;
        std::vector<std::size_t>& kept = table.scratch.kept;
        kept.clear();
        for (std::size_t s = 0; s < table.slots.size(); ++s) {
            // In one pass the spans are not known yet: every slot is kept.
            const std::size_t r = std::size_t(table.slots.region[s]);
            if (pass.onePass) {
                kept.push_back(s);
                continue;
            }
            const auto [first, last] = span(g, pass.boxes, r);
            if (first >= begin && last < end) addTo(totals, seen, r, table.slots, s);  // this chunk's alone
            else kept.push_back(s);
        }
        keep.reserve(kept.size());
        for (std::size_t s : kept) keep.append(table.slots, s);
        std::lock_guard<std::mutex> lock(heldMutex);
        heldBytes += keep.bytes();
        gathered[chunk] = 1;
        if (heldBytes <= kHeldSlotBytes) return;
        if (pass.onePass) {
            if (pass.abandon) pass.abandon->store(true, std::memory_order_relaxed);
            return;
        }
        // Regions alone in a chunk, which that chunk's worker adds, are
        // none of these.
        for (; added < g.chunks && gathered[added]; ++added) {
            Slots<Acc>& slots = spanning[added];
            for (std::size_t s = 0; s < slots.size(); ++s) addTo(totals, seen, std::size_t(slots.region[s]), slots, s);
            heldBytes -= slots.bytes();
            slots = Slots<Acc>();
        }
    });
    // Tables whose index and slots hold more than KeptTables keeps are
    // given back (a measurement of millions of regions keeps nothing).
    std::size_t held = 0;
    for (const auto& table : tables)
        if (table) held += table->heldRegions();
    if (held > KeptTables<Acc>::kMostRegions) tables.clear();
    if (keeping.owns_lock()) keeping.unlock();
    if (pass.abandon && pass.abandon->load(std::memory_order_relaxed)) return;
    std::vector<std::int64_t> rank;  // one pass: the region of each id
    if (pass.onePass) {
        regionsOfSlots(pass, spanning, rank, totals);
        n = totals.regions;
        zeroTerms(totals, threads);
        seen.assign(n, 0);
    }
    // One pass: the sums of coordinate powers moved to the boxes' corners,
    // in 128 bits where every intermediate fits (each is at most 16 times
    // a region's count times the image's extents cubed).
    const Recentring moments(pass.momentExponents), weighted(pass.weightedExponents);
    int bound = 5 + bitsOf(std::uint64_t(g.w) * std::uint64_t(g.h) * std::uint64_t(g.d));
    for (std::int64_t extent : {g.w, g.h, g.d}) bound += 3 * bitsOf(std::uint64_t(extent));
    const bool narrow = bound <= 126;
    const std::size_t nm = layout.moments, nw = layout.weighted, channels = layout.channels;
    auto recentre = [&](std::size_t r) {
        const auto& lo = totals.boxMin[r];
        if (nm) {
            Int256* m = &totals.moments[r * nm];
            if (narrow) {
                __int128 v[64];
                for (std::size_t e = 0; e < nm; ++e) v[e] = narrowed(m[e]);
                moments.apply(v, lo);
                for (std::size_t e = 0; e < nm; ++e) m[e] = Int256::of(v[e]);
            } else {
                moments.apply(m, lo);
            }
        }
        // Intensity-weighted sums: integer intensities only (one pass is not
        // taken for floating-point ones, whose sums would round).
        for (std::size_t c = 0; nw && c < channels; ++c) weighted.apply(&totals.weightedMoments[(r * channels + c) * nw], lo);
    };
    // The slots of regions spanning chunks (in one pass, every slot), added
    // in chunk order region by region: blocks of regions on every worker,
    // each block's regions reading the chunks in order (a region's totals,
    // floating-point ones included, are added alike whichever block holds
    // it).
    std::size_t kept = 0;
    for (const Slots<Acc>& keep : spanning) kept += keep.size();
    const std::size_t blocks = kept < 512 ? 1 : std::min<std::size_t>(n, std::size_t(threads) * 4);
    const std::size_t perBlock = (n + blocks - 1) / std::max<std::size_t>(blocks, 1);
    auto merge = [&](std::size_t block, int) {
        const std::size_t lo = block * perBlock, hi = std::min(n, lo + perBlock);
        for (std::size_t chunk = 0; chunk < g.chunks; ++chunk) {
            const Slots<Acc>& keep = spanning[chunk];
            for (std::size_t s = 0; s < keep.size(); ++s) {
                const std::int64_t id = keep.region[s];
                const std::size_t r = std::size_t(pass.onePass ? rank[std::size_t(id)] : id);
                if (r >= lo && r < hi) addTo(totals, seen, r, keep, s);
            }
        }
        for (std::size_t r = lo; pass.onePass && r < hi; ++r) recentre(r);
    };
    if (blocks == 1) merge(0, 0);  // few: waking the workers costs more
    else pool.run(blocks, threads, merge);
}

}  // namespace glccl::cpu::measure

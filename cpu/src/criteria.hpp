#pragma once
// The criteria of glccl::Criterion as compile-time rules, one type per kind
// and sample type (and channel count for threshold), so that the scan's
// inner loops carry no switch. They decide exactly as the reference's
// pixelIsForeground / pixelsConnect: unsigned 64-bit compares of the samples.
//
// Every rule gives, for up to 64 consecutive elements x .. x + n - 1 of a row:
//   foreground  bit i: element x + i is foreground
//   join        bit i: element x + i is foreground and connects to x + i - 1
//               (bit 0 looks at element x - 1; none when x is 0)
// and says whether two runs of neighbouring rows connect (runsConnect). A run
// is a maximal stretch of a row whose consecutive elements connect. kStepped
// marks the rule of a neighbourhood other than the named connectivities
// (neighbourhood_rule.hpp), whose runs connect at given steps (runsConnectAt).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace glccl::cpu::detail {

// An inclusive stretch [first, last] of a row.
struct Span {
    std::uint32_t first, last;
};

template <class Sample>
inline std::uint64_t loadSample(const std::uint8_t* p) {
    Sample value;
    std::memcpy(&value, p, sizeof value);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    if constexpr (sizeof(Sample) == 2) value = __builtin_bswap16(value);
    if constexpr (sizeof(Sample) == 4) value = __builtin_bswap32(value);
    if constexpr (sizeof(Sample) == 8) value = __builtin_bswap64(value);
#endif
    return std::uint64_t(value);
}

inline std::uint64_t sampleDistance(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : b - a; }

// Whether some element of run a (row a) and some element of run b (row b) at
// most `reach` apart along x connect: the pairs of the overlap, one by one.
// For the criteria whose links depend on the values of each pair.
template <class Rule>
bool someElementsConnect(const Rule& rule, const std::uint8_t* rowA, Span a, const std::uint8_t* rowB, Span b,
                         int reach) {
    constexpr std::size_t kBytes = Rule::kElementBytes;
    const std::int64_t from = std::max<std::int64_t>(a.first, std::int64_t(b.first) - reach);
    const std::int64_t to = std::min<std::int64_t>(a.last, std::int64_t(b.last) + reach);
    for (std::int64_t x = from; x <= to; ++x) {
        const std::int64_t lo = std::max<std::int64_t>(b.first, x - reach);
        const std::int64_t hi = std::min<std::int64_t>(b.last, x + reach);
        for (std::int64_t xb = lo; xb <= hi; ++xb) {
            if (rule.connect(rowA + std::size_t(x) * kBytes, rowB + std::size_t(xb) * kBytes)) return true;
        }
    }
    return false;
}

// The masks of the rules that test element by element.
template <class Rule>
void elementMasks(const Rule& rule, const std::uint8_t* row, std::int64_t x, int n, std::uint64_t& foreground,
                  std::uint64_t& join) {
    constexpr std::size_t kBytes = Rule::kElementBytes;
    foreground = 0;
    join = 0;
    const std::uint8_t* e = row + std::size_t(x) * kBytes;
    bool before = x > 0 && rule.foreground(e - kBytes);
    for (int i = 0; i < n; ++i, e += kBytes) {
        const bool here = rule.foreground(e);
        foreground |= std::uint64_t(here) << i;
        join |= std::uint64_t(here && before && rule.connect(e - kBytes, e)) << i;
        before = here;
    }
}

#if defined(__SSE2__)
// SSE2 has signed compares only: unsigned ones compare the values with their
// top bits flipped. Lanes of the sample's width, all ones where true.
template <class Sample>
inline __m128i lanesEqual(__m128i a, __m128i b) {
    if constexpr (sizeof(Sample) == 1) return _mm_cmpeq_epi8(a, b);
    else if constexpr (sizeof(Sample) == 2) return _mm_cmpeq_epi16(a, b);
    else return _mm_cmpeq_epi32(a, b);
}

template <class Sample>
inline __m128i lanesAbove(__m128i a, __m128i b) {
    if constexpr (sizeof(Sample) == 1) {
        const __m128i flip = _mm_set1_epi8(char(0x80));
        return _mm_cmpgt_epi8(_mm_xor_si128(a, flip), _mm_xor_si128(b, flip));
    } else if constexpr (sizeof(Sample) == 2) {
        const __m128i flip = _mm_set1_epi16(short(0x8000));
        return _mm_cmpgt_epi16(_mm_xor_si128(a, flip), _mm_xor_si128(b, flip));
    } else {
        const __m128i flip = _mm_set1_epi32(int(0x80000000u));
        return _mm_cmpgt_epi32(_mm_xor_si128(a, flip), _mm_xor_si128(b, flip));
    }
}

// |a - b| lane by lane: the difference, negated where b is the larger.
template <class Sample>
inline __m128i lanesDistance(__m128i a, __m128i b) {
    if constexpr (sizeof(Sample) == 1) return _mm_or_si128(_mm_subs_epu8(a, b), _mm_subs_epu8(b, a));
    else if constexpr (sizeof(Sample) == 2) return _mm_or_si128(_mm_subs_epu16(a, b), _mm_subs_epu16(b, a));
    else {
        const __m128i below = lanesAbove<Sample>(b, a);
        return _mm_sub_epi32(_mm_xor_si128(_mm_sub_epi32(a, b), below), below);
    }
}

template <class Sample>
inline __m128i lanesOf(std::uint64_t value) {
    if constexpr (sizeof(Sample) == 1) return _mm_set1_epi8(char(std::uint8_t(value)));
    else if constexpr (sizeof(Sample) == 2) return _mm_set1_epi16(short(std::uint16_t(value)));
    else return _mm_set1_epi32(int(std::uint32_t(value)));
}

// Bit i of the result: lane i of lanes(i0), lanes(i0 + L), ... for 64
// lanes of Lane's width, L to a vector (lanes(first) tests lanes first ..
// first + L - 1): sixteen results packed to bytes per movemask.
template <class Lane, class Lanes>
inline std::uint64_t laneBits(Lanes&& lanes) {
    constexpr int kLanes = 16 / int(sizeof(Lane));
    std::uint64_t bits = 0;
    for (int part = 0; part < 4; ++part) {
        const int first = 16 * part;
        __m128i bytes;
        if constexpr (kLanes == 16) {
            bytes = lanes(first);
        } else if constexpr (kLanes == 8) {
            bytes = _mm_packs_epi16(lanes(first), lanes(first + 8));
        } else {
            bytes = _mm_packs_epi16(_mm_packs_epi32(lanes(first), lanes(first + 4)),
                                    _mm_packs_epi32(lanes(first + 8), lanes(first + 12)));
        }
        bits |= std::uint64_t(std::uint32_t(_mm_movemask_epi8(bytes)) & 0xFFFFu) << first;
    }
    return bits;
}

inline __m128i loadLanes(const std::uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
#endif

// Foreground bits of n (<= 64) samples above `level`.
template <class Sample>
std::uint64_t samplesAbove(const std::uint8_t* p, int n, std::uint64_t level) {
#if defined(__SSE2__)
    if constexpr (sizeof(Sample) <= 4) {
        if (n == 64) {
            const __m128i bound = lanesOf<Sample>(level);
            return laneBits<Sample>(
                [&](int i) { return lanesAbove<Sample>(loadLanes(p + i * sizeof(Sample)), bound); });
        }
    }
#endif
    std::uint64_t bits = 0;
    for (int i = 0; i < n; ++i) bits |= std::uint64_t(loadSample<Sample>(p + i * sizeof(Sample)) > level) << i;
    return bits;
}

// The masks of a rule whose elements are one sample of at most 32 bits (or,
// for threshold, four of 8 bits), 64 at a time: the rule's lanes() tests a
// vector of elements against the vector one element before. The first
// chunk of a row (no element before it) and a short last one go element by
// element.
template <class Rule>
void vectorMasks(const Rule& rule, const std::uint8_t* row, std::int64_t x, int n, std::uint64_t& fg,
                 std::uint64_t& join) {
#if defined(__SSE2__)
    if constexpr (Rule::kVectorLane > 0) {
        if (n == 64 && x > 0) {
            constexpr std::size_t kBytes = Rule::kElementBytes;
            const std::uint8_t* p = row + std::size_t(x) * kBytes;
            using Lane = typename Rule::Lane;
            fg = laneBits<Lane>([&](int i) { return rule.foregroundLanes(loadLanes(p + i * kBytes)); });
            join = fg & laneBits<Lane>([&](int i) {
                       return rule.connectLanes(loadLanes(p + i * kBytes - kBytes), loadLanes(p + i * kBytes));
                   });
            return;
        }
    }
#endif
    elementMasks(rule, row, x, n, fg, join);
}

// Binary: foreground above the level; foreground neighbours connect.
template <class Sample>
struct BinaryRule {
    static constexpr std::size_t kElementBytes = sizeof(Sample);
    static constexpr bool kBinary = true;
    static constexpr bool kStepped = false;
    std::uint64_t level = 0;

    bool foreground(const std::uint8_t* e) const { return loadSample<Sample>(e) > level; }
    void masks(const std::uint8_t* row, std::int64_t x, int n, std::uint64_t& fg, std::uint64_t& join) const {
        const std::uint8_t* e = row + std::size_t(x) * kElementBytes;
        fg = samplesAbove<Sample>(e, n, level);
        const std::uint64_t before = x > 0 && foreground(e - kElementBytes);
        join = fg & ((fg << 1) | before);
    }
    bool runsConnect(const std::uint8_t*, Span, const std::uint8_t*, Span, int) const { return true; }
};

// Segments and delta: foreground where the sample is nonzero; a sample of
// at most 32 bits goes in vectors. Rule is the derived rule (its connect
// tests), whose masks come from vectorMasks.
template <class Sample, class Rule>
struct NonzeroForeground {
    static constexpr std::size_t kElementBytes = sizeof(Sample);
    static constexpr bool kBinary = false;
    static constexpr bool kStepped = false;
    static constexpr int kVectorLane = sizeof(Sample) <= 4 ? int(sizeof(Sample)) : 0;
    using Lane = Sample;

    bool foreground(const std::uint8_t* e) const { return loadSample<Sample>(e) != 0; }
#if defined(__SSE2__)
    __m128i foregroundLanes(__m128i v) const {
        return _mm_xor_si128(lanesEqual<Sample>(v, _mm_setzero_si128()), _mm_set1_epi8(-1));
    }
#endif
    void masks(const std::uint8_t* row, std::int64_t x, int n, std::uint64_t& fg, std::uint64_t& join) const {
        vectorMasks(static_cast<const Rule&>(*this), row, x, n, fg, join);
    }
};

// Segments: nonzero ids; neighbours of equal ids connect. A run holds one id.
template <class Sample>
struct SegmentsRule : NonzeroForeground<Sample, SegmentsRule<Sample>> {
    bool connect(const std::uint8_t* a, const std::uint8_t* b) const {
        return loadSample<Sample>(a) == loadSample<Sample>(b);
    }
#if defined(__SSE2__)
    __m128i connectLanes(__m128i before, __m128i v) const { return lanesEqual<Sample>(before, v); }
#endif
    bool runsConnect(const std::uint8_t* rowA, Span a, const std::uint8_t* rowB, Span b, int) const {
        return connect(rowA + std::size_t(a.first) * sizeof(Sample), rowB + std::size_t(b.first) * sizeof(Sample));
    }
};

// Delta: nonzero values; neighbours at most `delta` apart connect.
template <class Sample>
struct DeltaRule : NonzeroForeground<Sample, DeltaRule<Sample>> {
    std::uint64_t delta = 0;

    explicit DeltaRule(std::uint64_t d) : delta(d) {}
    bool connect(const std::uint8_t* a, const std::uint8_t* b) const {
        return sampleDistance(loadSample<Sample>(a), loadSample<Sample>(b)) <= delta;
    }
#if defined(__SSE2__)
    // Within delta and the element before foreground (this one is, where it counts).
    __m128i connectLanes(__m128i before, __m128i v) const {
        const __m128i far = lanesAbove<Sample>(lanesDistance<Sample>(before, v), lanesOf<Sample>(delta));
        return _mm_andnot_si128(_mm_or_si128(far, lanesEqual<Sample>(before, _mm_setzero_si128())),
                                _mm_set1_epi8(-1));
    }
#endif
    bool runsConnect(const std::uint8_t* rowA, Span a, const std::uint8_t* rowB, Span b, int reach) const {
        return someElementsConnect(*this, rowA, a, rowB, b, reach);
    }
};

// Threshold: every element is foreground; neighbours connect when every
// channel differs by at most `threshold`.
template <class Sample, int Channels>
struct ThresholdRule {
    static constexpr std::size_t kElementBytes = sizeof(Sample) * Channels;
    static constexpr bool kBinary = false;
    static constexpr bool kStepped = false;
    // Vectors of gray samples up to 32 bits, and of RGBA pixels of 8 bits
    // (a pixel a 32-bit lane).
    static constexpr int kVectorLane = Channels == 1 && sizeof(Sample) <= 4 ? int(sizeof(Sample))
                                       : Channels == 4 && sizeof(Sample) == 1 ? 4
                                                                               : 0;
    using Lane = std::conditional_t<Channels == 1, Sample, std::uint32_t>;
    std::uint64_t threshold = 0;

#if defined(__SSE2__)
    __m128i foregroundLanes(__m128i) const { return _mm_set1_epi8(-1); }
    // Every sample within the threshold (for RGBA: all four bytes of a lane).
    __m128i connectLanes(__m128i before, __m128i v) const {
        const __m128i near = _mm_andnot_si128(
            lanesAbove<Sample>(lanesDistance<Sample>(before, v), lanesOf<Sample>(threshold)), _mm_set1_epi8(-1));
        if constexpr (Channels == 1) return near;
        else return _mm_cmpeq_epi32(near, _mm_set1_epi8(-1));
    }
#endif

    bool foreground(const std::uint8_t*) const { return true; }
    bool connect(const std::uint8_t* a, const std::uint8_t* b) const {
        for (int c = 0; c < Channels; ++c) {
            if (sampleDistance(loadSample<Sample>(a + c * sizeof(Sample)), loadSample<Sample>(b + c * sizeof(Sample))) >
                threshold)
                return false;
        }
        return true;
    }
    void masks(const std::uint8_t* row, std::int64_t x, int n, std::uint64_t& fg, std::uint64_t& join) const {
        vectorMasks(*this, row, x, n, fg, join);
    }
    bool runsConnect(const std::uint8_t* rowA, Span a, const std::uint8_t* rowB, Span b, int reach) const {
        return someElementsConnect(*this, rowA, a, rowB, b, reach);
    }
};

}  // namespace glccl::cpu::detail

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
// is a maximal stretch of a row whose consecutive elements connect.

#include <algorithm>
#include <cstdint>
#include <cstring>

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

// Foreground bits of n (<= 64) samples above `level`.
template <class Sample>
std::uint64_t samplesAbove(const std::uint8_t* p, int n, std::uint64_t level) {
    std::uint64_t bits = 0;
#if defined(__SSE2__)
    if (n == 64 && sizeof(Sample) <= 4) {
        // Sixteen compare results packed to bytes per movemask; unsigned
        // compares as signed ones of the values with the top bit flipped.
        for (int part = 0; part < 4; ++part) {
            __m128i bytes;
            if constexpr (sizeof(Sample) == 1) {
                const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + part * 16));
                const __m128i flip = _mm_set1_epi8(char(0x80));
                bytes = _mm_cmpgt_epi8(_mm_xor_si128(v, flip), _mm_set1_epi8(char(std::uint8_t(level) ^ 0x80)));
            } else if constexpr (sizeof(Sample) == 2) {
                const __m128i flip = _mm_set1_epi16(short(0x8000));
                const __m128i bound = _mm_set1_epi16(short(std::uint16_t(level) ^ 0x8000));
                const auto* q = reinterpret_cast<const __m128i*>(p + part * 32);
                const __m128i lo = _mm_cmpgt_epi16(_mm_xor_si128(_mm_loadu_si128(q), flip), bound);
                const __m128i hi = _mm_cmpgt_epi16(_mm_xor_si128(_mm_loadu_si128(q + 1), flip), bound);
                bytes = _mm_packs_epi16(lo, hi);
            } else {
                const __m128i flip = _mm_set1_epi32(int(0x80000000u));
                const __m128i bound = _mm_set1_epi32(int(std::uint32_t(level) ^ 0x80000000u));
                const auto* q = reinterpret_cast<const __m128i*>(p + part * 64);
                __m128i m[4];
                for (int k = 0; k < 4; ++k) m[k] = _mm_cmpgt_epi32(_mm_xor_si128(_mm_loadu_si128(q + k), flip), bound);
                bytes = _mm_packs_epi16(_mm_packs_epi32(m[0], m[1]), _mm_packs_epi32(m[2], m[3]));
            }
            bits |= std::uint64_t(std::uint32_t(_mm_movemask_epi8(bytes)) & 0xFFFFu) << (16 * part);
        }
        return bits;
    }
#endif
    for (int i = 0; i < n; ++i) bits |= std::uint64_t(loadSample<Sample>(p + i * sizeof(Sample)) > level) << i;
    return bits;
}

// Binary: foreground above the level; foreground neighbours connect.
template <class Sample>
struct BinaryRule {
    static constexpr std::size_t kElementBytes = sizeof(Sample);
    static constexpr bool kBinary = true;
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

// Segments: nonzero ids; neighbours of equal ids connect. A run holds one id.
template <class Sample>
struct SegmentsRule {
    static constexpr std::size_t kElementBytes = sizeof(Sample);
    static constexpr bool kBinary = false;

    bool foreground(const std::uint8_t* e) const { return loadSample<Sample>(e) != 0; }
    bool connect(const std::uint8_t* a, const std::uint8_t* b) const {
        return loadSample<Sample>(a) == loadSample<Sample>(b);
    }
    void masks(const std::uint8_t* row, std::int64_t x, int n, std::uint64_t& fg, std::uint64_t& join) const {
        elementMasks(*this, row, x, n, fg, join);
    }
    bool runsConnect(const std::uint8_t* rowA, Span a, const std::uint8_t* rowB, Span b, int) const {
        return connect(rowA + std::size_t(a.first) * kElementBytes, rowB + std::size_t(b.first) * kElementBytes);
    }
};

// Delta: nonzero values; neighbours at most `delta` apart connect.
template <class Sample>
struct DeltaRule {
    static constexpr std::size_t kElementBytes = sizeof(Sample);
    static constexpr bool kBinary = false;
    std::uint64_t delta = 0;

    bool foreground(const std::uint8_t* e) const { return loadSample<Sample>(e) != 0; }
    bool connect(const std::uint8_t* a, const std::uint8_t* b) const {
        return sampleDistance(loadSample<Sample>(a), loadSample<Sample>(b)) <= delta;
    }
    void masks(const std::uint8_t* row, std::int64_t x, int n, std::uint64_t& fg, std::uint64_t& join) const {
        elementMasks(*this, row, x, n, fg, join);
    }
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
    std::uint64_t threshold = 0;

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
        elementMasks(*this, row, x, n, fg, join);
    }
    bool runsConnect(const std::uint8_t* rowA, Span a, const std::uint8_t* rowB, Span b, int reach) const {
        return someElementsConnect(*this, rowA, a, rowB, b, reach);
    }
};

}  // namespace glccl::cpu::detail

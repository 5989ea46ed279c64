// The passes of measure_terms.hpp: region terms added into per-region
// records with exact multi-limb atomics.

#include "measure_terms.hpp"

#include <type_traits>

namespace glccl::cuda::measure {
namespace {

using Word = unsigned long long;  // the type 64-bit atomicAdd, atomicMin and atomicMax take

// A wide sum: kLimbs 64-bit limbs, lowest first, in two's complement modulo
// 2^256 (as Int256 holds it).
struct Wide {
    Word limb[kLimbs];
};

__device__ __forceinline__ Wide wideOf(Word v) {
    Wide w;
    w.limb[0] = v;
    for (int k = 1; k < kLimbs; ++k) w.limb[k] = 0;
    return w;
}

// a += b.
__device__ __forceinline__ void add(Wide& a, const Wide& b) {
    Word carry = 0;
    for (int k = 0; k < kLimbs; ++k) {
        const Word s = a.limb[k] + b.limb[k];
        const Word t = s + carry;
        carry = Word(s < a.limb[k]) + Word(t < s);  // at most one of the two
        a.limb[k] = t;
    }
}

// a x f.
__device__ __forceinline__ Wide times(const Wide& a, Word f) {
    Wide r;
    Word carry = 0;
    for (int k = 0; k < kLimbs; ++k) {
        Word low = a.limb[k] * f;
        Word high = __umul64hi(a.limb[k], f);  // at most 2^64 - 2: the carry fits
        low += carry;
        high += Word(low < carry);
        r.limb[k] = low;
        carry = high;
    }
    return r;
}

// -a (~a + 1).
__device__ __forceinline__ Wide negated(const Wide& a) {
    Wide r;
    Word carry = 1;
    for (int k = 0; k < kLimbs; ++k) {
        r.limb[k] = ~a.limb[k] + carry;
        carry = carry != 0 && r.limb[k] == 0 ? 1 : 0;
    }
    return r;
}

// Narrow sums as wide ones (two's complement, signed ones sign-extended).
__device__ __forceinline__ Wide widened(const Wide& v) { return v; }
__device__ __forceinline__ Wide widened(Word v) { return wideOf(v); }
__device__ __forceinline__ Wide widened(long long v) {
    Wide w = wideOf(Word(v));
    for (int k = 1; k < kLimbs; ++k) w.limb[k] = v < 0 ? ~Word(0) : 0;
    return w;
}
__device__ __forceinline__ Wide widened(unsigned __int128 v) {
    Wide w = wideOf(Word(v));
    w.limb[1] = Word(v >> 64);
    return w;
}
__device__ __forceinline__ Wide widened(__int128 v) {
    Wide w = widened(static_cast<unsigned __int128>(v));
    for (int k = 2; k < kLimbs; ++k) w.limb[k] = v < 0 ? ~Word(0) : 0;
    return w;
}

// Adds v to the wide sum at `at`. Each limb's atomicAdd returns the limb
// before it, so the carry out of limb k is known and goes into limb k + 1
// with the next addend: the sum is exact modulo 2^256 whatever order the
// threads add in.
__device__ __forceinline__ void atomicAddWide(Word* at, const Wide& v) {
    Word carry = 0;
    for (int k = 0; k < kLimbs; ++k) {
        const Word addend = v.limb[k] + carry;
        carry = Word(addend < carry);  // v = 2^64 - 1 and a carry in: the carry goes on, nothing added here
        if (addend != 0) {
            const Word before = atomicAdd(at + k, addend);
            carry += Word(before + addend < before);
        }
    }
}

// a[e] for e in 0..3 known only at run time, chosen among registers: an
// array indexed at run time would live in local memory, and each thread's
// sums with it.
template <class T>
__device__ __forceinline__ T pick(const T (&a)[4], int e) {
    return e == 0 ? a[0] : e == 1 ? a[1] : e == 2 ? a[2] : a[3];
}

// ly^ey lz^ez times v.
__device__ __forceinline__ Wide scaled(Wide v, Word ly, int ey, Word lz, int ez) {
    for (int i = 0; i < ey; ++i) v = times(v, ly);
    for (int i = 0; i < ez; ++i) v = times(v, lz);
    return v;
}

// lx^0 .. lx^3 (lx < 2^24: lx^2 fits 64 bits, lx^3 takes two limbs).
__device__ __forceinline__ void powersOf(Word lx, Wide power[4]) {
    power[0] = wideOf(1);
    power[1] = wideOf(lx);
    power[2] = wideOf(lx * lx);
    power[3] = times(power[2], lx);
}

// A label of the table (1..regions); one past it is flagged.
__device__ __forceinline__ bool inRange(const Passes& p, std::uint32_t label) {
    if (label == 0) return false;
    if (label > p.regions) {
        *p.pastTable = 1u;
        return false;
    }
    return true;
}

// A label of the table whose region measure_small measures whole.
__device__ __forceinline__ bool measuredAlone(const Passes& p, std::uint32_t label) {
    return p.alone != nullptr && p.alone[label - 1] != 0;
}

// A label the segment passes add for.
__device__ __forceinline__ bool inTable(const Passes& p, std::uint32_t label) {
    return inRange(p, label) && !measuredAlone(p, label);
}

__device__ __forceinline__ Word* recordOf(const Passes& p, std::uint32_t label) {
    return p.records + Word(label - 1) * Word(p.layout.words);
}

// The record measure_terms adds a run of `label` into: for a hot region
// (Passes::hot) its replica `replica` modulo kReplicas, whose sums
// measure_fold adds into the region's record; any other region's own.
__device__ __forceinline__ Word* flushRecordOf(const Passes& p, std::uint32_t label, Word replica) {
    const unsigned h = p.hot != nullptr ? p.hot[label - 1] : 0u;
    if (h == 0u) return recordOf(p, label);
    return p.replicas + (Word(h - 1u) * kReplicas + replica % kReplicas) * Word(p.layout.words);
}

// The label at (x, y, z), 0 outside the image.
__device__ __forceinline__ std::uint32_t labelAt(const Passes& p, int x, int y, int z) {
    if (x < 0 || y < 0 || z < 0 || x >= p.width || y >= p.height || z >= p.depth) return 0;
    return p.labels[(Word(z) * Word(p.height) + Word(y)) * Word(p.width) + Word(x)];
}

// One thread's segment: elements x0 .. x1 - 1 of row (y, z).
struct Segment {
    int x0, x1, y, z;
    Word rowStart;  // the flat index of (0, y, z)
};

struct Segments {
    Word perRow, total;
};

// --- adding a warp's values before the atomics ------------------------------
//
// A region met by many threads (the one large component of a noisy image)
// takes the atomics of every one of them at the same few addresses, and the
// atomics queue there. So each thread carries what it has for one region to
// the end of its segment, and neighbouring lanes holding the same region
// (and row) add theirs together first: the first lane of each such group
// makes the atomics for the group.

constexpr unsigned kFullWarp = 0xFFFFFFFFu;

// The lanes from this one to `end` - 1 hold the same (label, row); `head`:
// this lane is the first of them.
struct LaneGroup {
    bool head;
    int end;
};

__device__ __forceinline__ int laneIndex() { return int(threadIdx.x & 31u); }

// Every lane of the warp calls it.
__device__ __forceinline__ LaneGroup laneGroupOf(std::uint32_t label, Word row) {
    const int lane = laneIndex();
    const std::uint32_t labelBefore = __shfl_up_sync(kFullWarp, label, 1);
    const Word rowBefore = __shfl_up_sync(kFullWarp, row, 1);
    const bool head = lane == 0 || labelBefore != label || rowBefore != row;
    const unsigned heads = __ballot_sync(kFullWarp, head);
    const unsigned later = lane == 31 ? 0u : heads & (~0u << (lane + 1));
    return {head, later ? __ffs(later) - 1 : 32};
}

// Each group's sum into its head, in five steps: after the step of offset
// d, a lane holds the sum of its own and the next 2d - 1 lanes' values of
// its group. Every lane of the warp calls them.
__device__ __forceinline__ void sumIntoHead(Wide& v, const LaneGroup& g) {
    for (int d = 1; d < 32; d <<= 1) {
        Wide other;
        for (int k = 0; k < kLimbs; ++k) other.limb[k] = __shfl_down_sync(kFullWarp, v.limb[k], d);
        if (laneIndex() + d < g.end) add(v, other);
    }
}

__device__ __forceinline__ void sumIntoHead(Word& v, const LaneGroup& g) {
    for (int d = 1; d < 32; d <<= 1) {
        const Word other = __shfl_down_sync(kFullWarp, v, d);
        if (laneIndex() + d < g.end) v += other;
    }
}

__device__ __forceinline__ void sumIntoHead(long long& v, const LaneGroup& g) {
    Word w = Word(v);
    sumIntoHead(w, g);
    v = static_cast<long long>(w);
}

template <class Int128>
__device__ __forceinline__ void sumIntoHead(Int128& v, const LaneGroup& g) {
    for (int d = 1; d < 32; d <<= 1) {
        const Word low = __shfl_down_sync(kFullWarp, Word(v), d);
        const Word high = __shfl_down_sync(kFullWarp, Word(static_cast<unsigned __int128>(v) >> 64), d);
        if (laneIndex() + d < g.end) v += static_cast<Int128>((static_cast<unsigned __int128>(high) << 64) | low);
    }
}

__device__ __forceinline__ void leastIntoHead(Word& v, const LaneGroup& g) {
    for (int d = 1; d < 32; d <<= 1) {
        const Word other = __shfl_down_sync(kFullWarp, v, d);
        if (laneIndex() + d < g.end) v = min(v, other);
    }
}

__device__ __forceinline__ void mostIntoHead(Word& v, const LaneGroup& g) {
    for (int d = 1; d < 32; d <<= 1) {
        const Word other = __shfl_down_sync(kFullWarp, v, d);
        if (laneIndex() + d < g.end) v = max(v, other);
    }
}

Segments segmentsOf(const Passes& p) {
    const Word perRow = (Word(p.width) + kSegment - 1) / kSegment;
    return {perRow, perRow * Word(p.height) * Word(p.depth)};
}

__device__ __forceinline__ Segment segmentAt(const Passes& p, const Segments& s, Word i) {
    const Word row = i / s.perRow;
    Segment segment;
    segment.x0 = int(i % s.perRow) * kSegment;
    segment.x1 = min(segment.x0 + kSegment, p.width);
    segment.y = int(row % Word(p.height));
    segment.z = int(row / Word(p.height));
    segment.rowStart = row * Word(p.width);
    return segment;
}

// The runs of labels of the table in segment s, each cut at the segment's
// ends: f(label, begin, end). A run that goes on past the segment is summed
// in pieces by the threads of its segments, and the pieces meet again in
// the warp's sums (LaneGroup), so that no thread walks more than kSegment
// elements: a thread that followed a run of a large region to its end
// would hold its warp for thousands of elements.
// `labels` holds the segment's labels from its first element on.
template <class F>
__device__ __forceinline__ void forEachRun(const Passes& p, const Segment& s, const std::uint32_t* labels, F&& f) {
    int x = s.x0;
    while (x < s.x1) {
        const std::uint32_t label = labels[x - s.x0];
        int end = x + 1;
        while (end < s.x1 && labels[end - s.x0] == label) ++end;
        if (inTable(p, label)) f(label, x, end);
        x = end;
    }
}

// --- staging a warp's labels in shared memory -------------------------------
//
// A thread reading its own segment from global memory reads 128 bytes apart
// from the next lane: 32 lines a load. So the warp copies the labels of its
// 32 segments to shared memory first, one segment's line a load, all lanes
// together, and each lane reads its own row there. A row is kSegment + 1
// words long, so that the lanes reading the same column of their rows read
// 32 banks. (Staging a second array, the samples or measure_local's words,
// as well halves the blocks a multiprocessor holds, and costs more than it
// saves.)

constexpr int kStagedRow = kSegment + 1;

// value(element) for the elements of the segments of the warp's 32 lanes
// (`s` this lane's, none where `valid` is false) into `rows`; returns this
// lane's row, from its segment's first element. Every lane of the warp
// calls it.
template <class Value>
__device__ __forceinline__ const std::uint32_t* stage(const Segment& s, bool valid, std::uint32_t* rows,
                                                      Value&& value) {
    const int lane = laneIndex();
    const Word start = s.rowStart + Word(s.x0);
    const int length = valid ? s.x1 - s.x0 : 0;
    __syncwarp();  // the lanes are done with the round before
    for (int k = 0; k < 32; ++k) {
        const Word from = __shfl_sync(kFullWarp, start, k);
        const int count = __shfl_sync(kFullWarp, length, k);
        rows[k * kStagedRow + lane] = lane < count ? value(from + Word(lane)) : 0u;
    }
    __syncwarp();
    return rows + lane * kStagedRow;
}

// Thread i's segment (`valid`: i < segments.total) and its labels, staged.
struct StagedSegment {
    Segment s{0, 0, 0, 0, 0};
    bool valid = false;
    const std::uint32_t* labels = nullptr;
};

template <int Threads = kThreads>
__device__ __forceinline__ StagedSegment stageSegment(const Passes& p, const Segments& segments, Word i) {
    __shared__ std::uint32_t rows[Threads / 32][32 * kStagedRow];
    StagedSegment staged;
    staged.valid = i < segments.total;
    if (staged.valid) staged.s = segmentAt(p, segments, i);
    staged.labels = stage(staged.s, staged.valid, rows[threadIdx.x / 32u], [&](Word e) { return p.labels[e]; });
    return staged;
}

#define FOR_EACH_ITEM(i, total) \
    for (Word i = Word(blockIdx.x) * blockDim.x + threadIdx.x; i < (total); i += Word(gridDim.x) * blockDim.x)

// As FOR_EACH_ITEM, but the lanes of a warp go round the same number of
// times (those past `total` with nothing to do), so that they can add their
// values together at the end of each round.
#define FOR_EACH_WARP_ITEM(i, total)                                                              \
    for (Word i = Word(blockIdx.x) * blockDim.x + threadIdx.x; i - Word(laneIndex()) < (total); \
         i += Word(gridDim.x) * blockDim.x)

// --- measure_start ----------------------------------------------------------

// `count` records of layout `l` at `records` (the regions' or the hot
// regions' replicas).
__global__ void __launch_bounds__(kThreads) startKernel(RecordLayout l, Word* records, Word count) {
    FOR_EACH_ITEM(i, count * Word(l.words)) {
        const Word w = i % Word(l.words);
        // The least key and both positions are found by atomicMin.
        const bool byMin =
            l.extrema && (w == Word(l.extremaAt) || w == Word(l.positionsAt) || w == Word(l.positionsAt) + 1);
        records[i] = byMin ? ~Word(0) : Word(0);
    }
}

// --- a segment's runs, kept and passing -------------------------------------

// The runs of a staged segment (none where it is not valid), each added
// into a run of sums by addRun(run, begin, end). The first region the
// segment meets is kept: its runs all go into one run of sums, whatever
// lies between them, returned unflushed for the warp's sums (LaneGroup).
// Another region's consecutive runs go into a passing run of sums, which
// goes to flush(run) when a third region comes, and at the end. So the
// region that fills much of a noisy image, met by nearly every thread and
// interrupted by small regions everywhere, takes its atomics once per warp
// and row, not once per small region it surrounds.
template <class Run, class Start, class AddRun, class Flush>
__device__ __forceinline__ Run sumSegmentRuns(const Passes& p, const StagedSegment& staged, Start&& start,
                                              AddRun&& addRun, Flush&& flush) {
    Run kept = start(0u);
    if (!staged.valid) return kept;
    Run passing = start(0u);
    forEachRun(p, staged.s, staged.labels, [&](std::uint32_t label, int begin, int end) {
        if (kept.label == 0u) kept = start(label);
        if (label == kept.label) {
            addRun(kept, begin, end);
            return;
        }
        if (label != passing.label) {
            flush(passing);
            passing = start(label);
        }
        addRun(passing, begin, end);
    });
    flush(passing);
    return kept;
}

// --- measure_intensity ------------------------------------------------------

// The sample of element i: its bits, a signed sample sign-extended to 64.
__device__ __forceinline__ Word sampleBits(const Samples& s, Word i) {
    switch (s.bytes) {
        case 1:
            return s.isSigned ? Word(static_cast<long long>(static_cast<const signed char*>(s.data)[i]))
                              : Word(static_cast<const unsigned char*>(s.data)[i]);
        case 2:
            return s.isSigned ? Word(static_cast<long long>(static_cast<const short*>(s.data)[i]))
                              : Word(static_cast<const unsigned short*>(s.data)[i]);
        case 4:
            return s.isSigned ? Word(static_cast<long long>(static_cast<const int*>(s.data)[i]))
                              : Word(static_cast<const unsigned int*>(s.data)[i]);
        default: return static_cast<const Word*>(s.data)[i];
    }
}

// A key that orders samples as unsigned integers do.
__device__ __forceinline__ Word keyOf(const Samples& s, Word bits) {
    return s.isSigned ? bits ^ (Word(1) << 63) : bits;
}

// The words the least and the greatest sample are found by: its key, or
// with Passes::packedExtrema its 32-bit key above its position, so that
// atomicMin finds the least key at its first position and atomicMax the
// greatest at its first (the position subtracted from 2^32 - 1).
struct ExtremaWords {
    Word least, most;
};

__device__ __forceinline__ ExtremaWords extremaWordsOf(const Passes& p, Word bits, Word element) {
    if (!p.packedExtrema) {
        const Word key = keyOf(p.samples, bits);
        return {key, key};
    }
    const Word key = Word(std::uint32_t(bits) ^ (p.samples.isSigned ? 0x80000000u : 0u)) << 32;
    return {key | element, key | (Word(0xFFFFFFFFu) - element)};
}

// The sums' types of a run of intensity: kLimbs limbs, or where
// Passes::narrowSums holds 64 bits for the sum (|I| < 2^32, a warp's 1024
// elements), 128 for the squares (I^2 < 2^64) and the weighted sums
// (|I| lx^3 < 2^80, lx < 2^16).
struct WideSums {
    using Power = Wide;  // of lx^e (measure_terms)
    using Sum = Wide;
    using Squares = Wide;
    using Weighted = Wide;
};
struct NarrowSums {
    using Power = Word;
    using Sum = long long;
    using Squares = unsigned __int128;
    using Weighted = __int128;
};

// One run's intensity sums. With NarrowSums the weighted sums are gathered
// as sums of I dx^e, dx = x - x0 from the segment's first element x0, in
// 64 bits (|I| dx^3 < 2^47, 32 of them), and moved to the box's origin
// (settle) before they are added anywhere.
template <class Sums>
struct IntensityRun {
    std::uint32_t label;
    bool counted;
    int originX;
    typename Sums::Sum sum;
    typename Sums::Squares squares;
    Word least, most;                    // keys
    typename Sums::Weighted weighted[4];  // of I lx^e
    long long nearSegment[4];             // of I dx^e (NarrowSums)
};

template <class Sums>
__device__ __forceinline__ IntensityRun<Sums> startIntensityRun(const Passes& p, std::uint32_t label) {
    IntensityRun<Sums> run;
    run.label = label;
    run.counted = inTable(p, label);
    run.originX = run.counted ? p.boxMin[Word(label - 1) * 3] : 0;
    run.sum = typename Sums::Sum{};
    run.squares = typename Sums::Squares{};
    run.least = ~Word(0);
    run.most = 0;
    for (int e = 0; e < 4; ++e) run.weighted[e] = typename Sums::Weighted{};
    for (int e = 0; e < 4; ++e) run.nearSegment[e] = 0;
    return run;
}

// The sums of I dx^e into those of I lx^e, lx = dx + c, c = x0 - originX
// (|c| < 2^16): I lx^e = sum over k of (e choose k) c^(e-k) I dx^k.
__device__ __forceinline__ void settle(IntensityRun<NarrowSums>& run, int x0) {
    const __int128 c = x0 - run.originX, c2 = c * c, c3 = c2 * c;
    const long long* d = run.nearSegment;
    run.weighted[0] += d[0];
    run.weighted[1] += d[1] + c * d[0];
    run.weighted[2] += d[2] + 2 * c * d[1] + c2 * d[0];
    run.weighted[3] += d[3] + 3 * c * d[2] + 3 * c2 * d[1] + c3 * d[0];
    for (int e = 0; e < 4; ++e) run.nearSegment[e] = 0;
}

__device__ __forceinline__ void settle(IntensityRun<WideSums>&, int) {}

// A run's intensity sums and extrema into its region's record.
template <class Sum, class Squares>
__device__ __forceinline__ void addIntensity(const Passes& p, bool sums, bool extrema, Word* record, const Sum& sum,
                                             const Squares& squares, Word least, Word most) {
    const RecordLayout& l = p.layout;
    if (sums) {
        atomicAddWide(record + l.sumAt, widened(sum));
        atomicAddWide(record + l.squaresAt, widened(squares));
    }
    if (extrema) {
        // The record's extrema only move one way: one read first spares the
        // atomics of most runs of a large region (a stale read only costs an
        // atomic that changes nothing).
        Word* extremes = record + l.extremaAt;
        if (least < extremes[0]) atomicMin(extremes, least);
        if (most > extremes[1]) atomicMax(extremes + 1, most);
    }
}

template <class Sums>
__device__ void flushIntensity(const Passes& p, const Exponents& weighted, bool sums, bool extrema,
                               const IntensityRun<Sums>& run, int y, int z) {
    if (!run.counted) return;
    const RecordLayout& l = p.layout;
    Word* record = recordOf(p, run.label);
    addIntensity(p, sums, extrema, record, run.sum, run.squares, run.least, run.most);
    if (weighted.count > 0) {
        const int* box = p.boxMin + Word(run.label - 1) * 3;
        const Word ly = Word(y - box[1]), lz = Word(z - box[2]);
        for (int t = 0; t < weighted.count; ++t) {
            const Wide v =
                scaled(widened(pick(run.weighted, weighted.e[t][0])), ly, weighted.e[t][1], lz, weighted.e[t][2]);
            atomicAddWide(record + l.weightedAt + t * kLimbs, v);
        }
    }
}

// Element `element`'s sample (`bits`) into a run's sum, sum of squares and
// extrema (ExtremaWords). A signed sample of 8 bytes as its magnitude and
// sign: products of the magnitude, negated where the sample is negative.
__device__ __forceinline__ void addSample(const Passes& p, bool sums, bool extrema, Word bits, Word element, Wide& sum,
                                          Wide& squares, Word& least, Word& most) {
    if (sums) {
        const bool negative = p.samples.isSigned && static_cast<long long>(bits) < 0;
        const Word magnitude = negative ? Word(0) - bits : bits;
        const Wide v = wideOf(magnitude);
        add(sum, negative ? negated(v) : v);
        Wide square = wideOf(magnitude * magnitude);
        square.limb[1] = __umul64hi(magnitude, magnitude);
        add(squares, square);
    }
    if (extrema) {
        const ExtremaWords w = extremaWordsOf(p, bits, element);
        least = min(least, w.least);
        most = max(most, w.most);
    }
}

// Samples of at most 4 bytes: sign-extended, they are the values themselves.
// A sample's bits into the sum and the sum of squares (measure_small's,
// measure_medium's and a run's).
__device__ __forceinline__ void addNarrowSums(Word bits, long long& sum, unsigned __int128& squares) {
    const long long value = static_cast<long long>(bits);
    sum += value;
    const Word magnitude = value < 0 ? Word(0) - Word(value) : Word(value);  // < 2^32
    squares += static_cast<unsigned __int128>(magnitude * magnitude);
}

__device__ __forceinline__ void addSample(const Passes& p, bool sums, bool extrema, Word bits, Word element,
                                          long long& sum, unsigned __int128& squares, Word& least, Word& most) {
    if (sums) addNarrowSums(bits, sum, squares);
    if (extrema) {
        const ExtremaWords w = extremaWordsOf(p, bits, element);
        least = min(least, w.least);
        most = max(most, w.most);
    }
}

__device__ __forceinline__ void addSamples(const Passes& p, const Exponents& weighted, bool sums, bool extrema,
                                           IntensityRun<WideSums>& run, Word rowStart, int, int begin, int end) {
    for (int x = begin; x < end; ++x) {
        const Word element = rowStart + Word(x);
        const Word bits = sampleBits(p.samples, element);
        addSample(p, sums, extrema, bits, element, run.sum, run.squares, run.least, run.most);
        if (weighted.count > 0) {
            const bool negative = p.samples.isSigned && static_cast<long long>(bits) < 0;
            const Word magnitude = negative ? Word(0) - bits : bits;
            Wide power[4];
            powersOf(Word(x - run.originX), power);
            for (int e = 0; e < 4; ++e) {
                const Wide v = times(power[e], magnitude);
                add(run.weighted[e], negative ? negated(v) : v);
            }
        }
    }
}

// x0: the segment's first element.
__device__ __forceinline__ void addSamples(const Passes& p, const Exponents& weighted, bool sums, bool extrema,
                                           IntensityRun<NarrowSums>& run, Word rowStart, int x0, int begin,
                                           int end) {
    for (int x = begin; x < end; ++x) {
        const Word element = rowStart + Word(x);
        const Word bits = sampleBits(p.samples, element);
        addSample(p, sums, extrema, bits, element, run.sum, run.squares, run.least, run.most);
        if (weighted.count > 0) {
            const long long value = static_cast<long long>(bits), dx = x - x0, square = dx * dx;
            run.nearSegment[0] += value;
            run.nearSegment[1] += value * dx;
            run.nearSegment[2] += value * square;
            run.nearSegment[3] += value * (square * dx);
        }
    }
}

template <class Sums>
__global__ void __launch_bounds__(kThreads)
    intensityKernel(Passes p, Exponents weighted, bool sums, bool extrema, Segments segments) {
    FOR_EACH_WARP_ITEM(i, segments.total) {
        const StagedSegment staged = stageSegment(p, segments, i);
        const Segment& s = staged.s;
        IntensityRun<Sums> run = sumSegmentRuns<IntensityRun<Sums>>(
            p, staged, [&](std::uint32_t label) { return startIntensityRun<Sums>(p, label); },
            [&](IntensityRun<Sums>& r, int begin, int end) {
                addSamples(p, weighted, sums, extrema, r, s.rowStart, s.x0, begin, end);
            },
            [&](const IntensityRun<Sums>& done) {
                IntensityRun<Sums> settled = done;
                settle(settled, s.x0);
                flushIntensity(p, weighted, sums, extrema, settled, s.y, s.z);
            });
        settle(run, s.x0);
        const LaneGroup group = laneGroupOf(run.label, i / segments.perRow);
        if (sums) {
            sumIntoHead(run.sum, group);
            sumIntoHead(run.squares, group);
        }
        if (extrema) {
            leastIntoHead(run.least, group);
            mostIntoHead(run.most, group);
        }
        if (weighted.count > 0)
            for (int e = 0; e < 4; ++e) sumIntoHead(run.weighted[e], group);
        if (group.head) flushIntensity(p, weighted, sums, extrema, run, s.y, s.z);
    }
}

// --- measure_extrema --------------------------------------------------------

// Every element holding its region's least (greatest) key offers its flat
// index; atomicMin keeps the first. A run offers its first such element only.
__global__ void __launch_bounds__(kThreads) extremaKernel(Passes p, Segments segments) {
    const RecordLayout& l = p.layout;
    FOR_EACH_ITEM(i, segments.total) {
        const Segment s = segmentAt(p, segments, i);
        std::uint32_t runLabel = 0;
        bool counted = false, leastFound = false, mostFound = false;
        Word least = 0, most = 0;
        Word* record = nullptr;
        for (int x = s.x0; x < s.x1; ++x) {
            const Word element = s.rowStart + Word(x);
            const std::uint32_t label = p.labels[element];
            if (label != runLabel) {
                runLabel = label;
                counted = inTable(p, label);
                if (counted) {
                    record = recordOf(p, label);
                    least = record[l.extremaAt];
                    most = record[l.extremaAt + 1];
                    leastFound = mostFound = false;
                }
            }
            if (!counted) continue;
            const Word key = keyOf(p.samples, sampleBits(p.samples, element));
            if (!leastFound && key == least) {
                atomicMin(record + l.positionsAt, element);
                leastFound = true;
            }
            if (!mostFound && key == most) {
                atomicMin(record + l.positionsAt + 1, element);
                mostFound = true;
            }
        }
    }
}

// --- measure_windows (a volume's) --------------------------------------------

// The window whose far corner is (x, y, z), for x in 0..width, y in
// 0..height, z in 0..depth; elements outside the volume are empty. For each
// region in it, its configuration's Euler share:
//
//        x-1   x
//   y-1 [ 8 ][ 2 ]     slice z; slice z - 1 the same bits times 16
//   y   [ 4 ][ 1 ]
//
// A thread takes kSegment windows along z at one (x, y), the lanes of a warp
// at consecutive x, so that a step's loads are a warp's consecutive labels
// (a thread walking along x read a cache line of its own a step). A window
// takes its back slice (z - 1) from the step before and loads its front
// one, four labels whose coordinates' tests against the volume's sides
// are made once for the thread, z's alone a step. It adds their shares as
// sumSegmentRuns adds runs: the first region it meets kept for the warp's
// sums (LaneGroup), another region's shares gathered until a third comes.
// (An image's windows are measure_local's.)
struct WindowShares {
    std::uint32_t label = 0;
    Word euler = 0;  // an int64 sum, two's complement
    Word crofton[5] = {0, 0, 0, 0, 0};
};

__device__ __forceinline__ void flushWindows(const Passes& p, bool crofton, bool euler, const WindowShares& w) {
    if (w.label == 0) return;
    Word* record = recordOf(p, w.label);
    if (euler && w.euler != 0) atomicAdd(record + p.layout.eulerAt, w.euler);
    for (int c = 0; c < 5 && crofton; ++c)
        if (w.crofton[c] != 0) atomicAdd(record + p.layout.croftonAt + c, w.crofton[c]);
}

// The 256 configurations' Euler shares in the block's shared memory: the
// lanes of a warp look up different configurations, which the kernel
// parameters' constant bank serves one address at a time. Every thread of
// the block calls it before its first look-up.
__device__ __forceinline__ const int* sharedEuler3(const Configurations& tables) {
    __shared__ int euler3[256];
    for (unsigned c = threadIdx.x; c < 256u; c += blockDim.x) euler3[c] = tables.euler3[c];
    __syncthreads();
    return euler3;
}

// The labels of a window's slice z at (x, y), (x, y - 1), (x - 1, y) and
// (x - 1, y - 1), in the window's bit order; 0 outside the volume.
struct WindowColumn {
    Word at[4];     // the flat index of each in slice 0
    bool in[4];     // inside the volume in x and y
    Word slice;     // elements a slice
    int depth;
    __device__ __forceinline__ WindowColumn(const Passes& p, int x, int y) {
        slice = Word(p.width) * Word(p.height);
        depth = p.depth;
        const bool xIn = x < p.width, xBeforeIn = x >= 1, yIn = y < p.height, yBeforeIn = y >= 1;
        in[0] = xIn && yIn;
        in[1] = xIn && yBeforeIn;
        in[2] = xBeforeIn && yIn;
        in[3] = xBeforeIn && yBeforeIn;
        const Word row = Word(y) * Word(p.width), rowBefore = row - Word(p.width);
        at[0] = row + Word(x);
        at[1] = rowBefore + Word(x);
        at[2] = row + Word(x) - 1;
        at[3] = rowBefore + Word(x) - 1;
    }
    __device__ __forceinline__ void load(const Passes& p, int z, std::uint32_t (&v)[4]) const {
        const bool zIn = z >= 0 && z < depth;
        const Word base = Word(z) * slice;
#pragma unroll
        for (int k = 0; k < 4; ++k) v[k] = zIn && in[k] ? p.labels[base + at[k]] : 0u;
    }
};

__global__ void __launch_bounds__(kThreads)
    windowsKernel(Passes p, Configurations tables, Word windowsX, Word windowsY, Word total) {
    const Word columns = windowsX * windowsY;
    const int* euler3 = sharedEuler3(tables);
    FOR_EACH_WARP_ITEM(i, total) {
        WindowShares kept, passing;
        const Word line = i / windowsX;  // the (y, z segment) of the lane's column
        if (i < total) {
            const int x = int(i - line * windowsX);
            const int y = int(line % windowsY);
            const int z0 = int(i / columns) * kSegment;
            const int z1 = int(min(Word(z0 + kSegment), Word(p.depth) + 1));
            const WindowColumn column(p, x, y);
            std::uint32_t skipped = 0;  // the region measured alone met last
            // The window v (bits 0..3 its front slice z, 4..7 its back) into
            // the shares: each region in it once, at its first element, the
            // positions left taken lowest first and a region's configuration
            // cleared from them. (A loop over the positions, each label
            // compared with those before it, took twice as long or more.)
            auto addWindow = [&](const std::uint32_t (&v)[8]) {
                unsigned left = 0;
#pragma unroll
                for (int j = 0; j < 8; ++j) left |= v[j] != 0u ? 1u << j : 0u;
                while (left != 0u) {
                    const int k = __ffs(left) - 1;
                    std::uint32_t label = v[0];
#pragma unroll
                    for (int j = 1; j < 8; ++j) label = k == j ? v[j] : label;
                    unsigned config = 0;
#pragma unroll
                    for (int j = 0; j < 8; ++j) config |= v[j] == label ? 1u << j : 0u;
                    left &= ~config;
                    if (!inRange(p, label)) continue;
                    if (config == 255u) break;  // inside the region: no share
                    // A region held is known not to be measured alone: no flag read.
                    if (label == skipped) continue;
                    if (label != kept.label && label != passing.label && measuredAlone(p, label)) {
                        skipped = label;
                        continue;
                    }
                    const Word share = Word(static_cast<long long>(euler3[config]));
                    if (kept.label == 0) kept.label = label;
                    if (label == kept.label) {
                        kept.euler += share;
                        continue;
                    }
                    if (label != passing.label) {
                        flushWindows(p, false, true, passing);
                        passing = WindowShares();
                        passing.label = label;
                    }
                    passing.euler += share;
                }
            };
            std::uint32_t v[8];
            std::uint32_t front[4];
            column.load(p, z0 - 1, front);
            for (int z = z0; z < z1; ++z) {
#pragma unroll
                for (int k = 0; k < 4; ++k) v[4 + k] = front[k];
                column.load(p, z, front);
#pragma unroll
                for (int k = 0; k < 4; ++k) v[k] = front[k];
                addWindow(v);
            }
            flushWindows(p, false, true, passing);
        }
        const LaneGroup group = laneGroupOf(kept.label, line);
        sumIntoHead(kept.euler, group);
        if (group.head) flushWindows(p, false, true, kept);
    }
}

// --- measure_local (2-D) ----------------------------------------------------
//
// The perimeter's classes and the windows' Euler shares and Crofton classes
// of an image, each worked out once per element:
//
//   measure_local  each element's terms in one word (localWord), a warp a
//                  strip of kStripColumns x kStripRows elements
//   measure_terms  the words summed per region with the other terms
//                  (measure_small and measure_medium add their regions' themselves)
//
// An element's class needs whether it and its 3x3 neighbours are border
// elements, and a neighbour's border needs its own 4-neighbours: labels two
// elements around. A warp walks its strip down a row at a time, a lane a
// column, and keeps what the elements of rows y - 1 .. y + 1 need in
// registers: each lane its column's labels, its neighbours' by shuffles,
// and the rows' border elements as one ballot a row. So a step reads one
// label a lane (a row's labels in one load) and works out the border
// elements of one row, where a block that kept a tile in shared memory read
// every element's 3x3 labels and borders from there. The two lanes at each
// side read the strip's margin: their words are their neighbour strips'.
//
// A window counts for a region at its region's first element in the
// window's order (bit 1 first, then 2, 4, 8: windowsKernel's picture), so
// each element stands for up to four windows, all of them within the 3x3
// elements around it.

// An element's word: its perimeter class in bits 0-1 (kNoClass: none), the
// counts of its windows' Crofton classes in five 3-bit fields from bit 2,
// and the sum of their Euler shares (-8..4) as an 8-bit integer from bit 24.
constexpr unsigned kNoClass = 3u;
constexpr int kCroftonShift = 2, kEulerShift = 24;

// A strip: the kStripColumns columns of a warp's lanes 2 .. 29, kStripRows
// rows walked down. The walk reads kStripRows + 4 rows of labels.
constexpr int kStripMargin = 2, kStripColumns = 32 - 2 * kStripMargin, kStripRows = 64;
constexpr int kLocalThreads = 256;

__device__ __forceinline__ int eulerShare(const Configurations& t, unsigned config) {
    return int((t.euler2 >> (2u * config)) & 3u) - 2;
}

__device__ __forceinline__ int croftonClass(const Configurations& t, unsigned config) {
    return int((t.crofton >> (3u * config)) & 7u) - 1;
}

// Bit (dy + 1) * 3 + (dx + 1) of a 3x3 mask: the element at (x + dx, y + dy).
__host__ __device__ constexpr unsigned neighbourBit(int dx, int dy) { return 1u << ((dy + 1) * 3 + (dx + 1)); }
constexpr unsigned kEdgeNeighbours =
    neighbourBit(0, -1) | neighbourBit(-1, 0) | neighbourBit(1, 0) | neighbourBit(0, 1);
constexpr unsigned kCornerNeighbours =
    neighbourBit(-1, -1) | neighbourBit(1, -1) | neighbourBit(-1, 1) | neighbourBit(1, 1);

// An element's windows' terms (its word's bits from kCroftonShift), from
// `same`, the 3x3 mask of its neighbours in its region (itself included):
// the windows whose far corner is (x, y), (x, y + 1), (x + 1, y) and
// (x + 1, y + 1), where this element is the region's first.
__device__ __forceinline__ unsigned windowTerms(const Configurations& tables, unsigned same) {
    int shares = 0;
    unsigned counts = 0;
    auto add = [&](unsigned config) {
        if (config == 15u) return;  // inside the region: no share
        shares += eulerShare(tables, config);
        const int c = croftonClass(tables, config);
        if (c >= 0) counts += 1u << (kCroftonShift + 3 * c);
    };
    auto bit = [&](int dx, int dy, unsigned value) { return same & neighbourBit(dx, dy) ? value : 0u; };
    add(1u | bit(0, -1, 2u) | bit(-1, 0, 4u) | bit(-1, -1, 8u));
    if (!(same & neighbourBit(0, 1))) add(2u | bit(-1, 1, 4u) | bit(-1, 0, 8u));
    if (!(same & (neighbourBit(1, 0) | neighbourBit(1, -1)))) add(4u | bit(0, -1, 8u));
    if (!(same & (neighbourBit(1, 1) | neighbourBit(1, 0) | neighbourBit(0, 1)))) add(8u);
    return counts | (unsigned(shares) & 0xFFu) << kEulerShift;
}

// A border element's perimeter class (kNoClass: none) from `borders`, the
// 3x3 mask of its region's border elements around it, by those along the
// edges and at the corners: scikit-image's weights 1 for (2|3, 0..2),
// sqrt 2 for (0, 2) and (1, 3), (1 + sqrt 2) / 2 for (1, 1) and (1, 2);
// none for the weight 0.
__device__ __forceinline__ unsigned perimeterClassOf(unsigned borders) {
    const int edges = __popc(borders & kEdgeNeighbours), corners = __popc(borders & kCornerNeighbours);
    if ((edges == 2 || edges == 3) && corners <= 2) return 0;
    if ((edges == 0 && corners == 2) || (edges == 1 && corners == 3)) return 1;
    if (edges == 1 && (corners == 1 || corners == 2)) return 2;
    return kNoClass;
}

// windowTerms and perimeterClassOf depend on the eight neighbours' bits of
// their mask alone (its centre is set): measure_local's blocks work both
// out for the 256 masks once, into tables in shared memory (the classes 2
// bits an entry, 16 a word), and look an element's up, where working them
// out took most of an element's instructions.
constexpr int kNeighbourMasks = 256;
__host__ __device__ constexpr unsigned neighbourMaskOf(unsigned mask) { return (mask & 0xFu) | (mask >> 5) << 4; }
__host__ __device__ constexpr unsigned maskOfNeighbours(unsigned neighbours) {
    return (neighbours & 0xFu) | neighbourBit(0, 0) | (neighbours >> 4) << 5;
}
static_assert(neighbourMaskOf(maskOfNeighbours(0xA5u)) == 0xA5u && maskOfNeighbours(0xFFu) == 0x1FFu);

struct LocalTables {
    unsigned windows[kNeighbourMasks];
    unsigned classes[kNeighbourMasks / 16];
};

// Every thread of the block calls it.
__device__ __forceinline__ void fillLocalTables(const Configurations& tables, bool perimeter, bool windows,
                                                LocalTables& out) {
    for (int e = int(threadIdx.x); e < kNeighbourMasks && windows; e += int(blockDim.x))
        out.windows[e] = windowTerms(tables, maskOfNeighbours(unsigned(e)));
    for (int w = int(threadIdx.x); w < kNeighbourMasks / 16 && perimeter; w += int(blockDim.x)) {
        unsigned word = 0;
        for (unsigned e = 0; e < 16; ++e) word |= perimeterClassOf(maskOfNeighbours(unsigned(w) * 16 + e)) << (2u * e);
        out.classes[w] = word;
    }
    __syncthreads();
}

// The word of an element of a region: `same`, the 3x3 mask of its
// neighbours in its region (itself included); `borders`, that of the
// region's border elements among them (the perimeter's).
__device__ __forceinline__ unsigned localWord(const LocalTables& t, unsigned same, unsigned borders, bool perimeter,
                                              bool windows) {
    unsigned word = kNoClass;
    if (perimeter && (borders & neighbourBit(0, 0))) {
        const unsigned e = neighbourMaskOf(borders);
        word = t.classes[e >> 4] >> (2u * (e & 15u)) & 3u;
    }
    if (windows) word |= t.windows[neighbourMaskOf(same)];
    return word;
}

// A row's labels as a lane sees them: its column's and its neighbours'.
struct StripRow {
    std::uint32_t left, centre, right;
};

// Every lane of the warp calls it. The outermost lanes' outer neighbours
// are their own labels: those lanes' words are not written.
__device__ __forceinline__ StripRow stripRowOf(std::uint32_t centre) {
    return {__shfl_up_sync(kFullWarp, centre, 1), centre, __shfl_down_sync(kFullWarp, centre, 1)};
}

// Bits of the lane's element in `row` equal to `label`: bit 0 its left
// neighbour's, 1 its own, 2 its right neighbour's.
__device__ __forceinline__ unsigned sameIn(const StripRow& row, std::uint32_t label) {
    return (row.left == label ? 1u : 0u) | (row.centre == label ? 2u : 0u) | (row.right == label ? 4u : 0u);
}

// A border element: of a region, with a 4-neighbour outside it or outside
// the image (scikit-image's perimeter reads the region's inner border). The
// labels outside the image are 0. Every lane of the warp calls it: the
// warp's elements of the row, a bit a lane.
__device__ __forceinline__ unsigned bordersOf(const StripRow& row, std::uint32_t above, std::uint32_t below) {
    const std::uint32_t c = row.centre;
    return __ballot_sync(kFullWarp, c != 0 && (row.left != c || row.right != c || above != c || below != c));
}

__global__ void __launch_bounds__(kLocalThreads)
    localKernel(Passes p, Configurations tables, unsigned* words, bool perimeter, bool windows) {
    __shared__ LocalTables localTables;
    fillLocalTables(tables, perimeter, windows, localTables);
    const int lane = laneIndex();
    const Word stripsX = (Word(p.width) + kStripColumns - 1) / kStripColumns;
    const Word strips = stripsX * ((Word(p.height) + kStripRows - 1) / kStripRows);
    const Word warps = Word(gridDim.x) * (kLocalThreads / 32);
    for (Word strip = Word(blockIdx.x) * (kLocalThreads / 32) + threadIdx.x / 32; strip < strips; strip += warps) {
        const int x = int(strip % stripsX) * kStripColumns - kStripMargin + lane;
        const int y0 = int(strip / stripsX) * kStripRows, y1 = min(y0 + kStripRows, p.height);
        const bool writes = lane >= kStripMargin && lane < 32 - kStripMargin && x < p.width;
        // Rows y - 1, y, y + 1 of the step, and the border elements of each.
        const std::uint32_t aboveFirst = labelAt(p, x, y0 - 2, 0);
        StripRow up = stripRowOf(labelAt(p, x, y0 - 1, 0)), mid = stripRowOf(labelAt(p, x, y0, 0)),
                 down = stripRowOf(labelAt(p, x, y0 + 1, 0));
        unsigned bordersUp = 0, bordersMid = 0;
        if (perimeter) {
            bordersUp = bordersOf(up, aboveFirst, mid.centre);
            bordersMid = bordersOf(mid, up.centre, down.centre);
        }
        // Row y + 2's label is loaded a step ahead, so that its wait
        // overlaps a step's work.
        const bool inside = x >= 0 && x < p.width;
        const std::uint32_t* column = p.labels + (inside ? x : 0);
        auto rowLabel = [&](int y) { return inside && y < p.height ? column[Word(y) * Word(p.width)] : 0u; };
        std::uint32_t ahead = rowLabel(y0 + 2);
        for (int y = y0; y < y1; ++y) {
            const std::uint32_t next = ahead;
            ahead = rowLabel(y + 3);
            const unsigned bordersDown = perimeter ? bordersOf(down, mid.centre, next) : 0u;
            const std::uint32_t label = mid.centre;
            if (writes) {
                unsigned word = kNoClass;
                if (label != 0) {
                    const unsigned same = sameIn(up, label) | sameIn(mid, label) << 3 | sameIn(down, label) << 6;
                    // The lane's three bits of each row's ballot, at the same places as `same`'s.
                    const int shift = lane - 1;
                    const unsigned borders = ((bordersUp >> shift) & 7u) | ((bordersMid >> shift) & 7u) << 3 |
                                             ((bordersDown >> shift) & 7u) << 6;
                    word = localWord(localTables, same, same & borders, perimeter, windows);
                }
                words[Word(y) * Word(p.width) + Word(x)] = word;
            }
            up = mid;
            mid = down;
            down = stripRowOf(next);
            bordersUp = bordersMid;
            bordersMid = bordersDown;
        }
    }
}

// An element's word into the counts of its perimeter class and of its
// windows' Crofton classes and into the sum of their Euler shares, each
// where asked: measure_terms' and measure_medium's, whose sums are of at
// most kMediumBox elements (32 bits hold them).
__device__ __forceinline__ void addWord(unsigned word, bool perimeter, bool crofton, bool euler,
                                        unsigned (&classes)[3], unsigned (&croftons)[5], int& shares) {
    if (perimeter) {
        const unsigned c = word & 3u;  // the class, or kNoClass; counted without indexing (pick)
        classes[0] += c == 0u;
        classes[1] += c == 1u;
        classes[2] += c == 2u;
    }
    if (crofton)
        for (int k = 0; k < 5; ++k) croftons[k] += (word >> (kCroftonShift + 3 * k)) & 7u;
    if (euler) shares += static_cast<signed char>(word >> kEulerShift);
}

// One region's sums of its elements' words (measure_small's).
struct LocalRun {
    std::uint32_t label = 0;
    Word classes[3] = {0, 0, 0};
    WindowShares shares;
};

__device__ __forceinline__ void addWord(LocalRun& run, unsigned word) {
    const unsigned c = word & 3u;  // the class, or kNoClass; counted without indexing (pick)
    run.classes[0] += c == 0u;
    run.classes[1] += c == 1u;
    run.classes[2] += c == 2u;
    if ((word >> kCroftonShift) == 0u) return;  // no window stands here, or only full ones
    for (int k = 0; k < 5; ++k) run.shares.crofton[k] += (word >> (kCroftonShift + 3 * k)) & 7u;
    run.shares.euler += Word(static_cast<long long>(static_cast<signed char>(word >> kEulerShift)));
}

// --- measure_terms ----------------------------------------------------------
//
// Every term of the regions the segment passes add for but the weighted
// moments (measure_intensity's), in one pass: each element's powers of lx,
// its measure_local word (an image's) and its sample's sums and extrema.
// A thread walks its staged segment an element at a time, in two rounds:
//
//   1. The first region of the table it meets is kept and takes its
//      elements; another region's elements are only marked, a bit each
//      (kSegment is at most 32). The lanes of the warp that kept one region
//      in one row add their sums together (LaneGroup), and each group's
//      sums go into its record, the moments spread over the lanes of the
//      warp: lane t adds moment t.
//   2. The marked elements, in order, into runs of one region each, a run
//      added when another region comes.
//
//   row y:  . 3 3 . 5 5 3 3 . 7 |     round 1 keeps 3; round 2 adds 5, then 7
//
// Every lane goes through round 1 in step, and an element there costs the
// same few instructions whatever the regions around it: the warp never
// waits on one lane's run lengths or flushes, as it would walking runs. A
// region that fills much of a noisy image, met by nearly every thread and
// surrounding small regions everywhere, takes its atomics once per warp
// and row. Round 2 is taken only by the lanes that meet a second region of
// the table in their segment.
//
// A run holds at most kSegment elements and a group kSegment x 32, so the
// counts of classes fit 32 bits; the sums' types are Sums' (NarrowSums:
// lx^3 < 2^48 and samples of at most 4 bytes).

// What measure_terms adds.
struct TermsAsked {
    bool moments = false;
    bool perimeter = false, crofton = false, euler = false;  // of measure_local's words
    bool sums = false, extrema = false;                     // of the intensity
};

template <class Sums>
struct TermRun {
    std::uint32_t label;
    int originX;                       // the region's box's least x
    typename Sums::Power powers[4];    // sums of lx^e
    unsigned classes[3], crofton[5];   // perimeter classes, Crofton classes
    int euler;                         // the windows' Euler shares
    typename Sums::Sum sum;
    typename Sums::Squares squares;
    Word least, most;                  // ExtremaWords
    // With NarrowSums an element adds 32-bit words, which settle() moves
    // into the sums above once a run: the sums of j^e, j = x - x0 from the
    // segment's first element (below kSegment, so each sum below 2^20); the
    // squares' low word and its carries (a square below 2^64); the least
    // and greatest 32-bit keys (ExtremaWords) and their first columns (-1:
    // none yet).
    unsigned near[4];
    Word squaresLow;
    unsigned squaresCarries;
    unsigned leastKey, mostKey;
    int leastX, mostX;
};

template <class Sums>
__device__ __forceinline__ TermRun<Sums> startTermRun(const Passes& p, std::uint32_t label, bool moments) {
    TermRun<Sums> run;
    run.label = label;
    run.originX = moments && label != 0u ? p.boxMin[Word(label - 1) * 3] : 0;
    for (int e = 0; e < 4; ++e) run.powers[e] = typename Sums::Power{};
    for (int c = 0; c < 3; ++c) run.classes[c] = 0;
    for (int c = 0; c < 5; ++c) run.crofton[c] = 0;
    run.euler = 0;
    run.sum = typename Sums::Sum{};
    run.squares = typename Sums::Squares{};
    run.least = ~Word(0);
    run.most = 0;
    for (int e = 0; e < 4; ++e) run.near[e] = 0;
    run.squaresLow = 0;
    run.squaresCarries = 0;
    run.leastKey = ~0u;
    run.mostKey = 0;
    run.leastX = run.mostX = -1;
    return run;
}

__device__ __forceinline__ void addPowers(Wide (&powers)[4], Word lx) {
    Wide power[4];
    powersOf(lx, power);
    for (int e = 0; e < 4; ++e) add(powers[e], power[e]);
}

// The sign bit that makes a sample's low 32 bits a key ordered as unsigned
// integers are (ExtremaWords' key).
__device__ __forceinline__ unsigned keyFlip(const Passes& p) { return p.samples.isSigned ? 0x80000000u : 0u; }

// An element, j along the walk from the run's origin there (below
// kSegment), and its sample's bits into a run's narrow sums (NarrowSums):
// the sum, the sums of j^e, the squares' low word and its carries, the
// least and greatest keys (ExtremaWords') and where each was first met
// (`at`; -1: none yet).
__device__ __forceinline__ void addNarrowElement(const Passes& p, const TermsAsked& a, unsigned j, Word bits, int at,
                                                 long long& sum, unsigned (&near)[4], Word& squaresLow,
                                                 unsigned& squaresCarries, unsigned& leastKey, int& leastAt,
                                                 unsigned& mostKey, int& mostAt) {
    if (a.moments) {
        const unsigned square = j * j;
        near[0] += 1u;
        near[1] += j;
        near[2] += square;
        near[3] += square * j;
    }
    if (a.sums) {
        const long long value = static_cast<long long>(bits);
        sum += value;
        const unsigned magnitude = unsigned(value < 0 ? -value : value);  // below 2^32
        const Word square = Word(magnitude) * magnitude;
        squaresLow += square;
        squaresCarries += squaresLow < square;
    }
    if (a.extrema) {
        const unsigned key = unsigned(bits) ^ keyFlip(p);
        if (key < leastKey || leastAt < 0) leastKey = key, leastAt = at;
        if (key > mostKey || mostAt < 0) mostKey = key, mostAt = at;
    }
}

// A 32-bit key's ExtremaWords at `element`.
__device__ __forceinline__ ExtremaWords keyWords(const Passes& p, unsigned key, Word element) {
    const unsigned low = key ^ keyFlip(p);
    const Word bits = p.samples.isSigned ? Word(static_cast<long long>(int(low))) : Word(low);
    return extremaWordsOf(p, bits, element);
}

// Sums of j^e (`near`) as sums of (j + c)^e, by the binomial expansion:
// (j + c)^e = sum over k of (e choose k) c^(e - k) j^k; c < 2^16.
__device__ __forceinline__ void shiftedPowers(const unsigned (&near)[4], Word c, Word (&out)[4]) {
    const Word c2 = c * c, n = near[0], s1 = near[1], s2 = near[2], s3 = near[3];
    out[0] = n;
    out[1] = s1 + c * n;
    out[2] = s2 + 2 * c * s1 + c2 * n;
    out[3] = s3 + 3 * c * s2 + 3 * c2 * s1 + c2 * c * n;
}

// Element `element` (column x of a segment starting at x0), its
// measure_local word and its sample's bits, into `run`.
template <class Sums>
__device__ __forceinline__ void addElement(const Passes& p, const TermsAsked& a, TermRun<Sums>& run, unsigned word,
                                           Word bits, Word element, int x, int x0) {
    addWord(word, a.perimeter, a.crofton, a.euler, run.classes, run.crofton, run.euler);
    if constexpr (std::is_same_v<Sums, NarrowSums>) {
        addNarrowElement(p, a, unsigned(x - x0), bits, x, run.sum, run.near, run.squaresLow, run.squaresCarries,
                         run.leastKey, run.leastX, run.mostKey, run.mostX);
    } else {
        if (a.moments) addPowers(run.powers, Word(x - run.originX));
        if (a.sums || a.extrema)
            addSample(p, a.sums, a.extrema, bits, element, run.sum, run.squares, run.least, run.most);
    }
}

// A run's 32-bit words (NarrowSums) into its sums, once it has all its
// elements of the segment starting at element x0 of its row.
template <class Sums>
__device__ __forceinline__ void settle(const Passes& p, const TermsAsked& a, TermRun<Sums>& run, Word rowStart,
                                       int x0) {
    if constexpr (std::is_same_v<Sums, NarrowSums>) {
        if (run.label == 0u) return;
        if (a.moments) {
            Word shifted[4];  // lx = j + c
            shiftedPowers(run.near, Word(x0 - run.originX), shifted);
            for (int e = 0; e < 4; ++e) run.powers[e] += shifted[e];
        }
        if (a.sums) run.squares += static_cast<unsigned __int128>(run.squaresCarries) << 64 | run.squaresLow;
        if (a.extrema) {
            if (run.leastX >= 0)
                run.least = min(run.least, keyWords(p, run.leastKey, rowStart + Word(run.leastX)).least);
            if (run.mostX >= 0) run.most = max(run.most, keyWords(p, run.mostKey, rowStart + Word(run.mostX)).most);
        }
    }
}

// Moments first, first + step, ... of a run of `label` in row (y, z) with
// sums of lx^e `powers`, into `record` (flushRecordOf).
template <class Power>
__device__ __forceinline__ void addMoments(const Passes& p, const Exponents& exponents, std::uint32_t label,
                                           Word* record, const Power (&powers)[4], int y, int z, int first,
                                           int step) {
    const int* box = p.boxMin + Word(label - 1) * 3;
    const Word ly = Word(y - box[1]), lz = Word(z - box[2]);
    Word* moments = record + p.layout.momentsAt;
    if constexpr (std::is_same_v<Power, Word>) {
        if (p.narrowMoments) {
            // In 128 bits: a product of one or two words a multiplication,
            // where the wide sum's takes one a limb.
            for (int t = first; t < exponents.count; t += step) {
                unsigned __int128 v = pick(powers, exponents.e[t][0]);
                for (int k = 0; k < exponents.e[t][1]; ++k) v *= ly;
                for (int k = 0; k < exponents.e[t][2]; ++k) v *= lz;
                atomicAddWide(moments + t * kLimbs, widened(v));
            }
            return;
        }
    }
    for (int t = first; t < exponents.count; t += step) {
        const Wide v = scaled(widened(pick(powers, exponents.e[t][0])), ly, exponents.e[t][1], lz, exponents.e[t][2]);
        atomicAddWide(moments + t * kLimbs, v);
    }
}

// A run's terms but its moments into `record` (flushRecordOf).
template <class Sums>
__device__ __forceinline__ void addRunTerms(const Passes& p, const TermsAsked& a, const TermRun<Sums>& run,
                                            Word* record) {
    const RecordLayout& l = p.layout;
    for (int c = 0; c < 3 && a.perimeter; ++c)
        if (run.classes[c] != 0) atomicAdd(record + l.perimeterAt + c, Word(run.classes[c]));
    for (int c = 0; c < 5 && a.crofton; ++c)
        if (run.crofton[c] != 0) atomicAdd(record + l.croftonAt + c, Word(run.crofton[c]));
    if (a.euler && run.euler != 0) atomicAdd(record + l.eulerAt, Word(static_cast<long long>(run.euler)));
    addIntensity(p, a.sums, a.extrema, record, run.sum, run.squares, run.least, run.most);
}

__device__ __forceinline__ Word fromLane(Word v, int lane) { return __shfl_sync(kFullWarp, v, lane); }
__device__ __forceinline__ Wide fromLane(const Wide& v, int lane) {
    Wide w;
    for (int k = 0; k < kLimbs; ++k) w.limb[k] = __shfl_sync(kFullWarp, v.limb[k], lane);
    return w;
}

__device__ __forceinline__ void sumIntoHead(unsigned& v, const LaneGroup& g) {
    for (int d = 1; d < 32; d <<= 1) {
        const unsigned other = __shfl_down_sync(kFullWarp, v, d);
        if (laneIndex() + d < g.end) v += other;
    }
}

__device__ __forceinline__ void sumIntoHead(int& v, const LaneGroup& g) {
    unsigned u = unsigned(v);
    sumIntoHead(u, g);
    v = int(u);
}

// The kept runs of the warp's lanes into their records: each group's sums
// into its head (LaneGroup), then its moments spread over the warp's lanes.
// Every lane of the warp calls it.
template <class Sums>
__device__ __forceinline__ void addKeptRuns(const Passes& p, const Exponents& exponents, const TermsAsked& a,
                                            TermRun<Sums>& run, Word row, int y, int z, Word replica) {
    const LaneGroup group = laneGroupOf(run.label, row);
    if (a.moments)
        for (int e = 0; e < 4; ++e) sumIntoHead(run.powers[e], group);
    if (a.perimeter)
        for (int c = 0; c < 3; ++c) sumIntoHead(run.classes[c], group);
    if (a.crofton)
        for (int c = 0; c < 5; ++c) sumIntoHead(run.crofton[c], group);
    if (a.euler) sumIntoHead(run.euler, group);
    if (a.sums) {
        sumIntoHead(run.sum, group);
        sumIntoHead(run.squares, group);
    }
    if (a.extrema) {
        leastIntoHead(run.least, group);
        mostIntoHead(run.most, group);
    }
    const bool adds = group.head && run.label != 0u;
    if (adds) addRunTerms(p, a, run, flushRecordOf(p, run.label, replica));
    if (!a.moments) return;
    for (unsigned heads = __ballot_sync(kFullWarp, adds); heads != 0u; heads &= heads - 1u) {
        const int head = __ffs(heads) - 1;
        typename Sums::Power powers[4];
        for (int e = 0; e < 4; ++e) powers[e] = fromLane(run.powers[e], head);
        const std::uint32_t label = __shfl_sync(kFullWarp, run.label, head);
        addMoments(p, exponents, label, flushRecordOf(p, label, replica), powers, __shfl_sync(kFullWarp, y, head),
                   __shfl_sync(kFullWarp, z, head), laneIndex(), 32);
    }
}

template <class Sums>
__device__ __forceinline__ void addPassingRun(const Passes& p, const Exponents& exponents, const TermsAsked& a,
                                              const TermRun<Sums>& run, int y, int z, Word replica) {
    if (run.label == 0u) return;
    Word* record = flushRecordOf(p, run.label, replica);
    if (a.moments) addMoments(p, exponents, run.label, record, run.powers, y, z, 0, 1);
    addRunTerms(p, a, run, record);
}

// Blocks of 128 threads: more of them resident at the end of the pass than
// of 256. (A warp's words or samples staged in shared memory beside its
// labels, as the labels are, cost more than the lanes' own reads save.)
constexpr int kTermsThreads = 128;
static_assert(kSegment <= 32, "measure_terms marks a segment's elements in one 32-bit word");

template <class Sums>
__global__ void __launch_bounds__(kTermsThreads)
    termsKernel(Passes p, Exponents exponents, TermsAsked a, const unsigned* words, Segments segments) {
    const bool local = a.perimeter || a.crofton || a.euler, intensity = a.sums || a.extrema;
    FOR_EACH_WARP_ITEM(i, segments.total) {
        const StagedSegment staged = stageSegment<kTermsThreads>(p, segments, i);
        const Segment& s = staged.s;
        // Element k of the segment into `run`.
        auto add = [&](TermRun<Sums>& run, int k) {
            const Word element = s.rowStart + Word(s.x0 + k);
            addElement(p, a, run, local ? words[element] : 0u, intensity ? sampleBits(p.samples, element) : 0,
                       element, s.x0 + k, s.x0);
        };
        // Round 1.
        TermRun<Sums> kept = startTermRun<Sums>(p, 0u, false);
        unsigned others = 0;  // elements of another region, bit x - x0
        if (staged.valid) {
            std::uint32_t skipped = 0;  // the last label met that the pass does not add for
            for (int x = s.x0; x < s.x1; ++x) {
                const std::uint32_t label = staged.labels[x - s.x0];
                if (label == 0u || label == skipped) continue;
                if (label != kept.label) {
                    if (!inTable(p, label)) {
                        skipped = label;
                        continue;
                    }
                    if (kept.label != 0u) {
                        others |= 1u << (x - s.x0);
                        continue;
                    }
                    kept = startTermRun<Sums>(p, label, a.moments);
                }
                add(kept, x - s.x0);
            }
        }
        // A warp's flushes of a hot region go to one replica, the next
        // warp's to the next.
        const Word replica = i / 32;
        settle(p, a, kept, s.rowStart, s.x0);
        addKeptRuns(p, exponents, a, kept, i / segments.perRow, s.y, s.z, replica);
        // Round 2.
        if (others == 0u) continue;
        TermRun<Sums> passing = startTermRun<Sums>(p, 0u, false);
        for (; others != 0u; others &= others - 1u) {
            const int k = __ffs(others) - 1;
            const std::uint32_t label = staged.labels[k];
            if (label != passing.label) {
                settle(p, a, passing, s.rowStart, s.x0);
                addPassingRun(p, exponents, a, passing, s.y, s.z, replica);
                passing = startTermRun<Sums>(p, label, a.moments);
            }
            add(passing, k);
        }
        settle(p, a, passing, s.rowStart, s.x0);
        addPassingRun(p, exponents, a, passing, s.y, s.z, replica);
    }
}

// --- measure_terms of a volume, along z ---------------------------------------
//
// A volume's moments and intensity terms where Passes::walkAlongZ holds: a
// thread walks kSegment elements of its (x, y) line along z, and a warp's
// lanes sit at consecutive x, so that each step's loads are one line of
// labels and one of samples, read where they are (no staging). The walk
// keeps and passes regions as the walk along x does (two rounds: the kept
// region's elements, then the others' marked ones). What it gains is in
// the flushes: the lanes of a group (one kept region, one line of the
// warp) walked the same slices, so their sums of j^n (j = z - zb, zb the
// later of the segment's first slice and the box's least z) add as
// k^m j^n, k a lane's distance from the group's first, and a region a
// dozen elements across takes one flush for its group where the walk
// along x took one a row:
//
//   sum over the group of lx^ex lz^ez
//     = sum over m <= ex, n <= ez of C(ex, m) d^(ex - m) C(ez, n) e^(ez - n) T[m][n],
//   T[m][n] = sum over the group's lanes of k^m sum of j^n,
//
// d the first lane's lx, e = zb less the box's least z. Every lane's j is
// below kSegment and k below 32, so T fits 64 bits (32 for m <= 1); the
// group's sums fit 128 (Passes::narrowMoments). A region that fills the
// volume gains nothing (a flush per warp either way, and each costs more
// here): gatherTerms walks such volumes along x.

// The binomial coefficients C(e, n), e and n below 4, a nibble each.
__device__ __forceinline__ Word binomial(int e, int n) {
    constexpr Word kBinomials = 0x1331012100110001ull;  // row e at nibbles 4e .. 4e + 3, column n
    return (kBinomials >> (4 * (4 * e + n))) & 15u;
}

// One region's elements of a line's segment.
struct ColumnRun {
    std::uint32_t label;
    int originZ;        // zb: j = z - zb
    unsigned near[4];   // sums of j^n
    long long sum;
    Word squaresLow;
    unsigned squaresCarries;
    unsigned leastKey, mostKey;  // ExtremaWords' keys, and their first slices (-1: none yet)
    int leastZ, mostZ;
};

__device__ __forceinline__ ColumnRun startColumnRun(const Passes& p, std::uint32_t label, int z0) {
    ColumnRun run;
    run.label = label;
    run.originZ = label != 0u ? max(z0, p.boxMin[Word(label - 1) * 3 + 2]) : z0;
    for (int n = 0; n < 4; ++n) run.near[n] = 0;
    run.sum = 0;
    run.squaresLow = 0;
    run.squaresCarries = 0;
    run.leastKey = ~0u;
    run.mostKey = 0;
    run.leastZ = run.mostZ = -1;
    return run;
}

__device__ __forceinline__ void addColumnElement(const Passes& p, const TermsAsked& a, ColumnRun& run, Word bits,
                                                 int z) {
    addNarrowElement(p, a, unsigned(z - run.originZ), bits, z, run.sum, run.near, run.squaresLow, run.squaresCarries,
                     run.leastKey, run.leastZ, run.mostKey, run.mostZ);
}

// The run's intensity terms as addIntensity takes them; `lineAt`: the flat
// index of (x, y, 0), `slice` the elements of a slice.
struct ColumnIntensity {
    unsigned __int128 squares;
    Word least, most;
};

__device__ __forceinline__ ColumnIntensity intensityOf(const Passes& p, const TermsAsked& a, const ColumnRun& run,
                                                       Word lineAt, Word slice) {
    ColumnIntensity c{0, ~Word(0), 0};
    if (a.sums) c.squares = static_cast<unsigned __int128>(run.squaresCarries) << 64 | run.squaresLow;
    if (a.extrema) {
        if (run.leastZ >= 0) c.least = keyWords(p, run.leastKey, lineAt + Word(run.leastZ) * slice).least;
        if (run.mostZ >= 0) c.most = keyWords(p, run.mostKey, lineAt + Word(run.mostZ) * slice).most;
    }
    return c;
}

using Wide128 = unsigned __int128;

// A group's sum of lx^ex lz^ez, from its T at `t` (t[4m + n]), its first
// lane's lx = d and e = zb - the box's least z. Every product of the sum
// is at most the sum, which Passes::narrowMoments bounds where the term is
// asked.
__device__ __forceinline__ Wide128 groupPowerSum(const Word* t, int ex, int ez, Word d, Word e) {
    const Word dPower[4] = {1, d, d * d, d * d * d}, ePower[4] = {1, e, e * e, e * e * e};
    Wide128 total = 0;
    for (int m = 0; m <= ex; ++m) {
        Wide128 inner = 0;
        for (int n = 0; n <= ez; ++n) inner += Wide128(binomial(ez, n) * pick(ePower, ez - n)) * t[4 * m + n];
        total += inner * (binomial(ex, m) * pick(dPower, ex - m));
    }
    return total;
}

// A passing run's moment sums: its sums of lz^c (below 2^53: lz < 2^16, at
// most kSegment elements) times lx^ex ly^ey, in TermRequest::exponents'
// order (z slowest, then y, then x): a term is the one before it times lx
// where only ex moved on, a multiplication a term.
__device__ __forceinline__ void addLineMoments(const Exponents& exponents, Word* moments, const unsigned (&near)[4],
                                               Word lx, Word e, Word ly) {
    Word powers[4];  // lz = j + e
    shiftedPowers(near, e, powers);
    Wide128 term = 0;
    int before = -1;  // the term before's exponents, 16 ez + 4 ey + ex
    for (int i = 0; i < exponents.count; ++i) {
        const int ex = exponents.e[i][0], ey = exponents.e[i][1], ez = exponents.e[i][2];
        const int at = 16 * ez + 4 * ey + ex;
        if (ex > 0 && at == before + 1) {
            term *= lx;
        } else {
            term = pick(powers, ez);
            for (int k = 0; k < ey; ++k) term *= ly;
            for (int k = 0; k < ex; ++k) term *= lx;
        }
        before = at;
        atomicAddWide(moments + i * kLimbs, widened(term));
    }
}

__global__ void __launch_bounds__(kTermsThreads)
    columnTermsKernel(Passes p, Exponents exponents, TermsAsked a, Word lines, Word total) {
    const Word slice = Word(p.width) * Word(p.height);
    const int lane = laneIndex();
    FOR_EACH_WARP_ITEM(i, total) {
        const Word line = i / Word(p.width);  // the (y, z segment) of the lane's line
        const bool valid = i < total;
        const int x = valid ? int(i - line * Word(p.width)) : 0;
        const int y = valid ? int(line % Word(p.height)) : 0;
        const int z0 = valid ? int(i / lines) * kSegment : 0;
        const int z1 = valid ? min(z0 + kSegment, p.depth) : 0;
        const Word lineAt = Word(y) * Word(p.width) + Word(x);
        // Round 1.
        ColumnRun kept = startColumnRun(p, 0u, z0);
        unsigned others = 0;  // slices of another region, bit z - z0
        std::uint32_t skipped = 0;  // the last label met that the pass does not add for
        for (int z = z0; z < z1; ++z) {
            const Word element = lineAt + Word(z) * slice;
            const std::uint32_t label = p.labels[element];
            if (label == 0u || label == skipped) continue;
            if (label != kept.label) {
                if (!inTable(p, label)) {
                    skipped = label;
                    continue;
                }
                if (kept.label != 0u) {
                    others |= 1u << (z - z0);
                    continue;
                }
                kept = startColumnRun(p, label, z0);
            }
            addColumnElement(p, a, kept, a.sums || a.extrema ? sampleBits(p.samples, element) : 0, z);
        }
        const Word replica = i / 32;
        // The group's sums into its first lane, and its terms into the record.
        const LaneGroup group = laneGroupOf(kept.label, line);
        {
            ColumnIntensity c = intensityOf(p, a, kept, lineAt, slice);
            if (a.sums) {
                sumIntoHead(kept.sum, group);
                sumIntoHead(c.squares, group);
            }
            if (a.extrema) {
                leastIntoHead(c.least, group);
                mostIntoHead(c.most, group);
            }
            if (group.head && kept.label != 0u)
                addIntensity(p, a.sums, a.extrema, flushRecordOf(p, kept.label, replica), kept.sum, c.squares, c.least,
                             c.most);
        }
        if (a.moments) {
            // The group's T, summed into its first lane and left in shared
            // memory there (in registers, T and the terms worked out from it
            // held the kernel to a quarter of the warps a multiprocessor takes).
            __shared__ Word groupSums[kTermsThreads / 32][32][16];
            Word(&sums)[32][16] = groupSums[threadIdx.x / 32u];
            const unsigned heads = __ballot_sync(kFullWarp, group.head);
            const unsigned k = unsigned(lane - (31 - __clz(heads & (kFullWarp >> (31 - lane)))));
            __syncwarp();  // the lanes are done with the last segment's sums
#pragma unroll
            for (int n = 0; n < 4; ++n) {
                unsigned low = kept.near[n], once = k * low;  // below 2^25 a lane, 2^30 a group
                sumIntoHead(low, group);
                sumIntoHead(once, group);
                Word twice = Word(k * k) * kept.near[n], thrice = Word(k * k * k) * kept.near[n];
                sumIntoHead(twice, group);
                sumIntoHead(thrice, group);
                if (group.head) {
                    sums[lane][n] = low;
                    sums[lane][4 + n] = once;
                    sums[lane][8 + n] = twice;
                    sums[lane][12 + n] = thrice;
                }
            }
            __syncwarp();
            // Each flushing group's 16 sums of lx^ex lz^ez, a lane each,
            // then its terms, those sums times ly^ey, spread over the lanes.
            __shared__ Wide128 groupPowers[kTermsThreads / 32][16];
            Wide128(&powers)[16] = groupPowers[threadIdx.x / 32u];
            const bool adds = group.head && kept.label != 0u;
            for (unsigned flushing = __ballot_sync(kFullWarp, adds); flushing != 0u; flushing &= flushing - 1u) {
                const int head = __ffs(flushing) - 1;
                const std::uint32_t label = __shfl_sync(kFullWarp, kept.label, head);
                const int* box = p.boxMin + Word(label - 1) * 3;
                const Word d = Word(__shfl_sync(kFullWarp, x, head) - box[0]);
                const Word e = Word(__shfl_sync(kFullWarp, kept.originZ, head) - box[2]);
                const Word ly = Word(__shfl_sync(kFullWarp, y, head) - box[1]);
                __syncwarp();  // the lanes are done with the group before's sums
                if (lane < 16) powers[lane] = groupPowerSum(sums[head], lane >> 2, lane & 3, d, e);
                __syncwarp();
                Word* moments = flushRecordOf(p, label, replica) + p.layout.momentsAt;
                for (int t = lane; t < exponents.count; t += 32) {
                    Wide128 term = powers[4 * exponents.e[t][0] + exponents.e[t][2]];
                    for (int k = 0; k < exponents.e[t][1]; ++k) term *= ly;
                    atomicAddWide(moments + t * kLimbs, widened(term));
                }
            }
        }
        // Round 2: the marked slices, in order, in runs of one region each.
        if (others == 0u) continue;
        ColumnRun passing = startColumnRun(p, 0u, z0);
        auto flush = [&]() {
            if (passing.label == 0u) return;
            Word* record = flushRecordOf(p, passing.label, replica);
            const ColumnIntensity c = intensityOf(p, a, passing, lineAt, slice);
            addIntensity(p, a.sums, a.extrema, record, passing.sum, c.squares, c.least, c.most);
            if (!a.moments) return;
            const int* box = p.boxMin + Word(passing.label - 1) * 3;
            addLineMoments(exponents, record + p.layout.momentsAt, passing.near, Word(x - box[0]),
                           Word(passing.originZ - box[2]), Word(y - box[1]));
        };
        for (; others != 0u; others &= others - 1u) {
            const int z = z0 + __ffs(others) - 1;
            const Word element = lineAt + Word(z) * slice;
            const std::uint32_t label = p.labels[element];
            if (label != passing.label) {
                flush();
                passing = startColumnRun(p, label, z0);
            }
            addColumnElement(p, a, passing, a.sums || a.extrema ? sampleBits(p.samples, element) : 0, z);
        }
        flush();
    }
}

// --- measure_fold -----------------------------------------------------------

// The replicas of each hot region added into its record: a block of
// kReplicas threads a word of the record, a thread a replica, the warps'
// sums by shuffles and the block's in warp order by its first thread (a
// wide sum's block takes all its limbs; the blocks of its other limbs
// return). Sums and counts are added, the least and greatest keys
// compared. The words measure_terms does not add (the extrema's
// positions, weighted moments) are left.
enum class Fold { None, Wide, Sum, Least, Most };

__device__ __forceinline__ Fold foldOf(const RecordLayout& l, int w) {
    const bool moments = w >= l.momentsAt && w < l.perimeterAt, intensitySums = w >= l.sumAt && w < l.extremaAt;
    if (moments || intensitySums)  // a wide sum's first limb
        return (w - (moments ? l.momentsAt : l.sumAt)) % kLimbs == 0 ? Fold::Wide : Fold::None;
    if (w >= l.perimeterAt && w < l.sumAt) return Fold::Sum;  // perimeter, Crofton, Euler: 64-bit sums
    if (w < l.positionsAt && w == l.extremaAt) return Fold::Least;
    if (w < l.positionsAt && w == l.extremaAt + 1) return Fold::Most;
    return Fold::None;
}

__device__ __forceinline__ void fold(Fold f, Wide& a, const Wide& b) {
    if (f == Fold::Least)
        a.limb[0] = min(a.limb[0], b.limb[0]);
    else if (f == Fold::Most)
        a.limb[0] = max(a.limb[0], b.limb[0]);
    else
        add(a, b);
}

static_assert(kReplicas % 32 == 0 && kReplicas <= 1024, "a block of kReplicas threads, whole warps");

__global__ void __launch_bounds__(kReplicas) foldKernel(Passes p, const std::uint32_t* hotRegions) {
    __shared__ Wide warps[kReplicas / 32];
    const RecordLayout& l = p.layout;
    const Word h = blockIdx.x / unsigned(l.words);
    const int w = int(blockIdx.x % unsigned(l.words));
    const Fold f = foldOf(l, w);
    if (f == Fold::None) return;  // the whole block
    const int limbs = f == Fold::Wide ? kLimbs : 1;
    const Word* replica = p.replicas + (h * kReplicas + threadIdx.x) * Word(l.words) + w;
    Wide v = wideOf(0);
    for (int k = 0; k < limbs; ++k) v.limb[k] = replica[k];
    for (int d = 16; d > 0; d >>= 1) {
        Wide other = wideOf(0);
        for (int k = 0; k < limbs; ++k) other.limb[k] = __shfl_down_sync(kFullWarp, v.limb[k], d);
        fold(f, v, other);
    }
    if (laneIndex() == 0) warps[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x != 0) return;
    Word* record = recordOf(p, hotRegions[h] + 1u) + w;
    Wide total = wideOf(0);
    for (int k = 0; k < limbs; ++k) total.limb[k] = record[k];
    for (int k = 0; k < kReplicas / 32; ++k) fold(f, total, warps[k]);
    for (int k = 0; k < limbs; ++k) record[k] = total.limb[k];
}

// --- measure_small ----------------------------------------------------------

// Every term of one region whose box holds at most kSmallBox elements
// (Passes::alone), from its box alone, by one thread, into its record with
// plain stores: no atomics, and the segment passes skip its labels. An
// image's perimeter and window terms come from measure_local's words. Within
// such a box a moment's term lx^a ly^b lz^c is below (w h d)^3 <= 2^24, so
// a region's moments fit 64 bits, and with samples of at most 4 bytes a
// row's weighted sums 128 (measure_small runs only then).
__device__ __forceinline__ void storeWide(Word* at, const Wide& v) {
    for (int k = 0; k < kLimbs; ++k) at[k] = v.limb[k];
}

constexpr int kSmallAhead = 4;

// Weighted: weighted.count > 0, whose sums take registers the others do
// not need.
template <bool Weighted>
__global__ void __launch_bounds__(kThreads)
    smallKernel(Passes p, Exponents exponents, Exponents weighted, Configurations tables, const unsigned* words,
                bool perimeter, bool crofton, bool euler, bool sums, bool extrema) {
    const RecordLayout& l = p.layout;
    FOR_EACH_ITEM(r, Word(p.regions)) {
        if (p.alone[r] != kAloneSmall) continue;
        const std::uint32_t label = std::uint32_t(r + 1);
        const int* box = p.boxMin + r * 3;
        const int* extent = p.boxExtent + r * 3;
        const int x0 = box[0], y0 = box[1], z0 = box[2];
        const int x1 = x0 + extent[0], y1 = y0 + extent[1], z1 = z0 + extent[2];
        Word* record = p.records + r * Word(l.words);  // zero from measure_start
        LocalRun local;  // an image's terms of measure_local's words
        long long sum = 0;
        unsigned __int128 squares = 0;
        Word least = ~Word(0), most = 0, leastAt = ~Word(0), mostAt = ~Word(0);
        for (int z = z0; z < z1; ++z) {
            for (int y = y0; y < y1; ++y) {
                const Word rowStart = (Word(z) * Word(p.height) + Word(y)) * Word(p.width);
                // The row's sums of lx^e and of I lx^e, then into the terms
                // times ly^b lz^c.
                Word powers[4] = {0, 0, 0, 0};
                __int128 samplePowers[4] = {0, 0, 0, 0};
                auto addElement = [&](int x, unsigned word) {
                    const Word lx = Word(x - x0), square = lx * lx;
                    powers[0] += 1;
                    powers[1] += lx;
                    powers[2] += square;
                    powers[3] += square * lx;
                    if (words) addWord(local, word);
                    if (p.samples.bytes == 0) return;
                    const Word bits = sampleBits(p.samples, rowStart + Word(x));
                    const long long value = static_cast<long long>(bits);
                    if (sums) addNarrowSums(bits, sum, squares);
                    if (extrema && p.packedExtrema) {
                        const ExtremaWords w = extremaWordsOf(p, bits, rowStart + Word(x));
                        least = min(least, w.least);
                        most = max(most, w.most);
                    } else if (extrema) {
                        // Raster order: the first element of a key holds the least flat index.
                        const Word key = keyOf(p.samples, bits);
                        if (key < least || leastAt == ~Word(0)) least = key, leastAt = rowStart + Word(x);
                        if (key > most || mostAt == ~Word(0)) most = key, mostAt = rowStart + Word(x);
                    }
                    if constexpr (Weighted) {
                        samplePowers[0] += value;
                        samplePowers[1] += static_cast<__int128>(value) * static_cast<long long>(lx);
                        samplePowers[2] += static_cast<__int128>(value) * static_cast<long long>(square);
                        samplePowers[3] += static_cast<__int128>(value) * static_cast<long long>(square * lx);
                    }
                };
                // kSmallAhead labels and words read at once: a thread waits on
                // its loads, not on its few instructions an element.
                for (int xs = x0; xs < x1; xs += kSmallAhead) {
                    std::uint32_t labels[kSmallAhead];
                    unsigned elementWords[kSmallAhead];
#pragma unroll
                    for (int k = 0; k < kSmallAhead; ++k) {
                        const bool inBox = xs + k < x1;
                        labels[k] = inBox ? p.labels[rowStart + Word(xs + k)] : 0u;
                        elementWords[k] = inBox && words ? words[rowStart + Word(xs + k)] : 0u;
                    }
#pragma unroll
                    for (int k = 0; k < kSmallAhead; ++k)
                        if (labels[k] == label) addElement(xs + k, elementWords[k]);
                }
                if (powers[0] == 0) continue;
                const Word ly = Word(y - y0), lz = Word(z - z0);
                const Word lyPower[4] = {1, ly, ly * ly, ly * ly * ly};
                const Word lzPower[4] = {1, lz, lz * lz, lz * lz * lz};
                // The record's limbs are the thread's own: plain additions.
                for (int t = 0; t < exponents.count; ++t)
                    record[l.momentsAt + t * kLimbs] +=
                        pick(powers, exponents.e[t][0]) * pick(lyPower, exponents.e[t][1]) *
                        pick(lzPower, exponents.e[t][2]);
                for (int t = 0; t < (Weighted ? weighted.count : 0); ++t) {
                    Word* at = record + l.weightedAt + t * kLimbs;
                    Wide total;
                    for (int k = 0; k < kLimbs; ++k) total.limb[k] = at[k];
                    add(total, widened(pick(samplePowers, weighted.e[t][0]) *
                                       static_cast<long long>(pick(lyPower, weighted.e[t][1]) *
                                                              pick(lzPower, weighted.e[t][2]))));
                    storeWide(at, total);
                }
            }
        }
        for (int c = 0; c < 3 && perimeter; ++c) record[l.perimeterAt + c] = local.classes[c];
        for (int c = 0; c < 5 && crofton; ++c) record[l.croftonAt + c] = local.shares.crofton[c];
        if (words && euler) record[l.eulerAt] = local.shares.euler;
        if (!words && euler) {
            // A volume's windows (an image's terms come in measure_local's
            // words): those whose far corner lies in the box grown by one at
            // its far end, every window that holds an element of the region.
            long long shares = 0;
            for (int z = z0; z <= z1; ++z)
                for (int y = y0; y <= y1; ++y)
                    for (int x = x0; x <= x1; ++x) {
                        unsigned config = 0;
                        for (int slice = 0; slice < 2; ++slice) {
                            config |= (labelAt(p, x, y, z - slice) == label ? 1u : 0u) << (4 * slice);
                            config |= (labelAt(p, x, y - 1, z - slice) == label ? 2u : 0u) << (4 * slice);
                            config |= (labelAt(p, x - 1, y, z - slice) == label ? 4u : 0u) << (4 * slice);
                            config |= (labelAt(p, x - 1, y - 1, z - slice) == label ? 8u : 0u) << (4 * slice);
                        }
                        if (config != 0 && config != 255u) shares += tables.euler3[config];
                    }
            record[l.eulerAt] = Word(shares);
        }
        if (p.samples.bytes == 0) continue;
        if (sums) {
            storeWide(record + l.sumAt, widened(sum));
            storeWide(record + l.squaresAt, widened(squares));
        }
        if (extrema) {
            record[l.extremaAt] = least;
            record[l.extremaAt + 1] = most;
            if (!p.packedExtrema) {
                record[l.positionsAt] = leastAt;
                record[l.positionsAt + 1] = mostAt;
            }
        }
    }
}

// --- measure_medium (2-D) --------------------------------------------------
//
// Every term of one region of an image whose box holds more than kSmallBox
// and at most kMediumBox elements and is at most kMediumThreads wide, by a
// block of kMediumThreads, into its record with plain stores, as
// measure_small does for smaller boxes: a disk a few dozen elements across
// would otherwise take the segment passes' atomics in every row segment it
// crosses. A thread takes one column of the box and every rowGroups-th row
// of it, so that a narrow box still gives every thread elements and
// neighbouring threads read neighbouring elements of a row:
//
//   box 3 wide: rowGroups 42; thread 4 takes column 1, rows 1, 43, 85, ...
//
// A thread reads kMediumAhead of its rows at once (the GPU waits on the
// loads), sums ly^0..3 down its column and multiplies them by lx^0..3 at
// the end. (A warp a region, its lanes walking four times the rows, waits
// longer on its loads than it saves in adding up.) Within such a box each
// of an image's at most 16 moment sums is below (w h)^4 <= 2^56, a
// thread's counts below 2^14, and with samples of at most 4 bytes the
// intensity's sum below 2^46 and its squares' below 2^78. Each warp adds
// its threads' sums (sumDown), a field at a time, into shared memory
// (kMediumFields words: the 16 moments, then the rest), and the block's
// threads add the warps' fields in warp order and store them: every run
// gives the same record.

constexpr int kMediumAhead = 4;

// The sums of a warp's 32 lanes (lane 0's is the warp's). From compute
// capability 8.0 by the warp's reduction instruction, one a 32-bit value:
// a 64-bit one as three pieces of 22, 22 and 20 bits, each piece's sum
// below 2^27, then shifted into place (exact modulo 2^64), where shuffles
// take five exchanges and five adds of both halves.
#if __CUDA_ARCH__ >= 800
struct PieceSums {
    unsigned low, middle, high;
};

__device__ __forceinline__ PieceSums pieceSums(Word v) {
    return {__reduce_add_sync(kFullWarp, unsigned(v) & 0x3FFFFFu),
            __reduce_add_sync(kFullWarp, unsigned(v >> 22) & 0x3FFFFFu),
            __reduce_add_sync(kFullWarp, unsigned(v >> 44))};
}

__device__ __forceinline__ Word sumDown(Word v) {
    const PieceSums p = pieceSums(v);
    return Word(p.low) + (Word(p.middle) << 22) + (Word(p.high) << 44);
}

__device__ __forceinline__ unsigned sumDown(unsigned v) { return __reduce_add_sync(kFullWarp, v); }

// The low words' pieces summed exactly (below 2^69), the high words'
// modulo 2^64.
__device__ __forceinline__ unsigned __int128 sumDown(unsigned __int128 v) {
    const PieceSums p = pieceSums(Word(v));
    using U128 = unsigned __int128;
    const U128 low = U128(p.low) + (U128(p.middle) << 22) + (U128(p.high) << 44);
    return low + (U128(sumDown(Word(v >> 64))) << 64);
}
#else
__device__ __forceinline__ Word sumDown(Word v) {
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(kFullWarp, v, d);
    return v;
}

__device__ __forceinline__ unsigned sumDown(unsigned v) {
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(kFullWarp, v, d);
    return v;
}

__device__ __forceinline__ unsigned __int128 sumDown(unsigned __int128 v) {
    for (int d = 16; d > 0; d >>= 1) {
        const Word low = __shfl_down_sync(kFullWarp, Word(v), d);
        const Word high = __shfl_down_sync(kFullWarp, Word(v >> 64), d);
        v += static_cast<unsigned __int128>(high) << 64 | low;
    }
    return v;
}
#endif

// The least key at its first raster position, the greatest at its first
// (with Passes::packedExtrema the key and its position are one word).
struct Extrema {
    Word least = ~Word(0), most = 0, leastAt = ~Word(0), mostAt = ~Word(0);
};

__device__ __forceinline__ void offer(bool packed, Extrema& e, Word least, Word most, Word leastAt, Word mostAt) {
    if (packed) {
        e.least = min(e.least, least);
        e.most = max(e.most, most);
        return;
    }
    if (least < e.least || (least == e.least && leastAt < e.leastAt)) e.least = least, e.leastAt = leastAt;
    if (most > e.most || (most == e.most && mostAt < e.mostAt)) e.most = most, e.mostAt = mostAt;
}

// A lane's sums of every term but the moments.
struct MediumSums {
    unsigned classes[3] = {0, 0, 0}, croftons[5] = {0, 0, 0, 0, 0};
    int shares = 0;
    long long sum = 0;
    unsigned __int128 squares = 0;
    Extrema e;
};

// What a region's walk reads and adds.
struct MediumWalk {
    std::uint32_t label;
    int x0, y0, w, h, rowGroups;
    bool perimeter, crofton, euler, local, sums, extrema, intensity, packed;
};

// Column `column` of the box, rows group, group + rowGroups, ...: the sums
// of ly^0..3 over its elements into `down`, the other terms into `s`.
__device__ __forceinline__ void walkColumn(const Passes& p, const MediumWalk& m, const unsigned* words, int column,
                                           int group, Word down[4], MediumSums& s) {
    const Word step = Word(m.rowGroups) * Word(p.width);
    Word element = Word(m.y0 + group) * Word(p.width) + Word(m.x0 + column);
#pragma unroll 1
    for (int first = group; first < m.h; first += kMediumAhead * m.rowGroups) {
        std::uint32_t labels[kMediumAhead];
        unsigned elementWords[kMediumAhead];
        Word bits[kMediumAhead];
        for (int k = 0; k < kMediumAhead; ++k) {
            const bool inBox = first + k * m.rowGroups < m.h;
            const Word at = element + Word(k) * step;
            labels[k] = inBox ? p.labels[at] : 0u;
            elementWords[k] = inBox && m.local ? words[at] : 0u;
            bits[k] = inBox && m.intensity ? sampleBits(p.samples, at) : 0;
        }
        for (int k = 0; k < kMediumAhead; ++k) {
            if (labels[k] != m.label) continue;
            const Word y = Word(first + k * m.rowGroups), square = y * y;
            down[0] += 1;
            down[1] += y;
            down[2] += square;
            down[3] += square * y;
            addWord(elementWords[k], m.perimeter, m.crofton, m.euler, s.classes, s.croftons, s.shares);
            if (m.sums) addNarrowSums(bits[k], s.sum, s.squares);
            if (m.extrema) {
                const Word at = element + Word(k) * step;
                const ExtremaWords x = extremaWordsOf(p, bits[k], at);
                offer(m.packed, s.e, x.least, x.most, at, at);
            }
        }
        element += Word(kMediumAhead) * step;
    }
}

// A warp's fields in shared memory: the moments, then the rest.
enum MediumField {
    kClassesField = 16,  // 3 perimeter classes
    kCroftonField = 19,  // 5 Crofton classes
    kEulerField = 24,    // the Euler shares, an int64 sum
    kSumField = 25,      // the intensity's sum, int64
    kSquaresField = 26,  // its squares' sum, 128 bits in two words
    kExtremaField = 28,  // least, most, leastAt, mostAt
    kMediumFields = 32
};

constexpr int kMediumWarps = kMediumThreads / 32;

// The warp's sums into `row`, a field at a time (lane 0 writes).
__device__ __forceinline__ void sumWarp(const MediumWalk& m, int terms, const Word (&across)[4], const Word (&down)[4],
                                        MediumSums& s, Exponents const& exponents, Word* row) {
    const bool first = laneIndex() == 0;
#pragma unroll 1
    for (int t = 0; t < terms; ++t) {
        const Word v = sumDown(pick(across, exponents.e[t][0]) * pick(down, exponents.e[t][1]));
        if (first) row[t] = v;
    }
    for (int c = 0; c < 3 && m.perimeter; ++c) {
        const unsigned v = sumDown(s.classes[c]);
        if (first) row[kClassesField + c] = v;
    }
    for (int c = 0; c < 5 && m.crofton; ++c) {
        const unsigned v = sumDown(s.croftons[c]);
        if (first) row[kCroftonField + c] = v;
    }
    if (m.euler) {
        const unsigned v = sumDown(unsigned(s.shares));
        if (first) row[kEulerField] = Word(static_cast<long long>(int(v)));
    }
    if (m.sums) {
        const Word total = sumDown(Word(s.sum));
        s.squares = sumDown(s.squares);
        if (first) {
            row[kSumField] = total;
            row[kSquaresField] = Word(s.squares);
            row[kSquaresField + 1] = Word(s.squares >> 64);
        }
    }
    if (m.extrema) {
        Extrema& e = s.e;
#if __CUDA_ARCH__ >= 800
        // A packed word's key above its position: the least (greatest) key,
        // then the least (greatest) position among the lanes that hold it.
        if (m.packed) {
            const unsigned leastKey = __reduce_min_sync(kFullWarp, unsigned(e.least >> 32));
            const unsigned mostKey = __reduce_max_sync(kFullWarp, unsigned(e.most >> 32));
            e.least = Word(leastKey) << 32 |
                      __reduce_min_sync(kFullWarp, unsigned(e.least >> 32) == leastKey ? unsigned(e.least) : ~0u);
            e.most = Word(mostKey) << 32 |
                     __reduce_max_sync(kFullWarp, unsigned(e.most >> 32) == mostKey ? unsigned(e.most) : 0u);
        }
        for (int d = 16; d > 0 && !m.packed; d >>= 1) {
#else
        for (int d = 16; d > 0; d >>= 1) {
#endif
            const Word least = __shfl_down_sync(kFullWarp, e.least, d);
            const Word most = __shfl_down_sync(kFullWarp, e.most, d);
            const Word leastAt = m.packed ? 0 : __shfl_down_sync(kFullWarp, e.leastAt, d);
            const Word mostAt = m.packed ? 0 : __shfl_down_sync(kFullWarp, e.mostAt, d);
            offer(m.packed, e, least, most, leastAt, mostAt);
        }
        if (first) {
            row[kExtremaField] = e.least;
            row[kExtremaField + 1] = e.most;
            row[kExtremaField + 2] = e.leastAt;
            row[kExtremaField + 3] = e.mostAt;
        }
    }
}

// Field f of the block's warps' rows, added in warp order, into the record.
__device__ __forceinline__ void storeField(const Passes& p, const MediumWalk& m, int terms,
                                           const Word (&fields)[kMediumWarps][kMediumFields], int f, Word* record) {
    const RecordLayout& l = p.layout;
    auto total = [&] {
        Word v = 0;
        for (int k = 0; k < kMediumWarps; ++k) v += fields[k][f];
        return v;
    };
    if (f < terms) record[l.momentsAt + f * kLimbs] = total();
    if (m.perimeter && f >= kClassesField && f < kClassesField + 3) record[l.perimeterAt + f - kClassesField] = total();
    if (m.crofton && f >= kCroftonField && f < kCroftonField + 5) record[l.croftonAt + f - kCroftonField] = total();
    if (m.euler && f == kEulerField) record[l.eulerAt] = total();
    if (m.sums && f == kSumField) storeWide(record + l.sumAt, widened(static_cast<long long>(total())));
    if (m.sums && f == kSquaresField) {
        unsigned __int128 v = 0;
        for (int k = 0; k < kMediumWarps; ++k)
            v += static_cast<unsigned __int128>(fields[k][kSquaresField + 1]) << 64 | fields[k][kSquaresField];
        storeWide(record + l.squaresAt, widened(v));
    }
    if (m.extrema && f == kExtremaField) {
        Extrema all;
        for (int k = 0; k < kMediumWarps; ++k) {
            const Word* x = fields[k] + kExtremaField;
            offer(m.packed, all, x[0], x[1], x[2], x[3]);
        }
        record[l.extremaAt] = all.least;
        record[l.extremaAt + 1] = all.most;
        if (!m.packed) {
            record[l.positionsAt] = all.leastAt;
            record[l.positionsAt + 1] = all.mostAt;
        }
    }
}

// Registers bounded so that seven blocks fit a multiprocessor (the
// compiler's own choice, about 150 a thread, lets in three): more warps to
// wait on their loads. Eight would spill words to local memory.
__global__ void __launch_bounds__(kMediumThreads, 7)
    mediumKernel(Passes p, Exponents exponents, const std::uint32_t* regions, Word count, const unsigned* words,
                 bool perimeter, bool crofton, bool euler, bool sums, bool extrema) {
    __shared__ Word fields[kMediumWarps][kMediumFields];
    const int terms = exponents.count;
    MediumWalk m;
    m.intensity = p.samples.bytes != 0;
    m.packed = p.packedExtrema;
    m.perimeter = perimeter && words;
    m.crofton = crofton && words;
    m.euler = euler && words;
    m.local = m.perimeter || m.crofton || m.euler;
    m.sums = sums && m.intensity;
    m.extrema = extrema && m.intensity;
    for (Word b = blockIdx.x; b < count; b += gridDim.x) {
        const std::uint32_t r = regions[b];
        m.label = r + 1;
        m.x0 = p.boxMin[Word(r) * 3];
        m.y0 = p.boxMin[Word(r) * 3 + 1];
        m.w = p.boxExtent[Word(r) * 3];
        m.h = p.boxExtent[Word(r) * 3 + 1];
        m.rowGroups = kMediumThreads / m.w;  // w <= kMediumThreads
        const int column = int(threadIdx.x) % m.w, group = int(threadIdx.x) / m.w;
        Word down[4] = {0, 0, 0, 0};
        MediumSums s;
        if (group < m.rowGroups) walkColumn(p, m, words, column, group, down, s);
        const Word lx = Word(column);
        const Word across[4] = {1, lx, lx * lx, lx * lx * lx};
        sumWarp(m, terms, across, down, s, exponents, fields[threadIdx.x / 32u]);
        __syncthreads();
        storeField(p, m, terms, fields, int(threadIdx.x), p.records + Word(r) * Word(p.layout.words));
        __syncthreads();  // the fields are the next region's
    }
}

#undef FOR_EACH_ITEM
#undef FOR_EACH_WARP_ITEM

unsigned blocksFor(Word items) {
    const Word blocks = (items + kThreads - 1) / kThreads;
    return unsigned(blocks < (Word(1) << 16) ? (blocks == 0 ? 1 : blocks) : (Word(1) << 16));
}

}  // namespace

void startRecords(const CudaCheck& check, cudaStream_t stream, const Passes& p, int hotCount) {
    startKernel<<<blocksFor(Word(p.regions) * Word(p.layout.words)), kThreads, 0, stream>>>(p.layout, p.records,
                                                                                          Word(p.regions));
    check.launched("measure_start", stream);
    if (hotCount == 0) return;
    const Word replicas = Word(hotCount) * kReplicas;
    startKernel<<<blocksFor(replicas * Word(p.layout.words)), kThreads, 0, stream>>>(p.layout, p.replicas, replicas);
    check.launched("measure_start (replicas)", stream);
}

void foldReplicas(const CudaCheck& check, cudaStream_t stream, const Passes& p, const std::uint32_t* hotRegions,
                  int hotCount) {
    if (hotCount == 0) return;
    foldKernel<<<unsigned(hotCount * p.layout.words), kReplicas, 0, stream>>>(p, hotRegions);
    check.launched("measure_fold", stream);
}

void gatherSmall(const CudaCheck& check, cudaStream_t stream, const Passes& p, const Exponents& exponents,
                 const Exponents& weighted, const Configurations& tables, const unsigned* words, bool perimeter,
                 bool crofton, bool euler, bool sums, bool extrema) {
    const unsigned blocks = blocksFor(Word(p.regions));
    if (weighted.count > 0)
        smallKernel<true><<<blocks, kThreads, 0, stream>>>(p, exponents, weighted, tables, words, perimeter, crofton,
                                                           euler, sums, extrema);
    else
        smallKernel<false><<<blocks, kThreads, 0, stream>>>(p, exponents, weighted, tables, words, perimeter, crofton,
                                                            euler, sums, extrema);
    check.launched("measure_small", stream);
}

void gatherMedium(const CudaCheck& check, cudaStream_t stream, const Passes& p, const Exponents& exponents,
                  const std::uint32_t* regions, unsigned long long count, const unsigned* words, bool perimeter,
                  bool crofton, bool euler, bool sums, bool extrema) {
    if (count == 0) return;
    const unsigned blocks = unsigned(count < (Word(1) << 20) ? count : (Word(1) << 20));
    mediumKernel<<<blocks, kMediumThreads, 0, stream>>>(p, exponents, regions, count, words, perimeter, crofton,
                                                        euler, sums, extrema);
    check.launched("measure_medium", stream);
}

void gatherLocalWords(const CudaCheck& check, cudaStream_t stream, const Passes& p, const Configurations& tables,
                      bool perimeter, bool windows, unsigned* words) {
    const Word strips = (Word(p.width) + kStripColumns - 1) / kStripColumns *
                        ((Word(p.height) + kStripRows - 1) / kStripRows);
    const Word wanted = (strips + kLocalThreads / 32 - 1) / (kLocalThreads / 32);
    const unsigned blocks = unsigned(wanted < (Word(1) << 20) ? wanted : (Word(1) << 20));
    localKernel<<<blocks, kLocalThreads, 0, stream>>>(p, tables, words, perimeter, windows);
    check.launched("measure_local", stream);
}

void gatherElementTerms(const CudaCheck& check, cudaStream_t stream, const Passes& p, const Exponents& exponents,
                        const unsigned* words, bool moments, bool perimeter, bool crofton, bool euler, bool sums,
                        bool extrema) {
    TermsAsked a;
    a.moments = moments && exponents.count > 0;
    a.perimeter = perimeter && words;
    a.crofton = crofton && words;
    a.euler = euler && words;
    a.sums = sums && p.samples.bytes != 0;
    a.extrema = extrema && p.samples.bytes != 0;
    if (!a.moments && !a.perimeter && !a.crofton && !a.euler && !a.sums && !a.extrema) return;
    const Segments segments = segmentsOf(p);
    const Word wanted = (segments.total + kTermsThreads - 1) / kTermsThreads;
    const unsigned blocks = unsigned(wanted < (Word(1) << 17) ? (wanted == 0 ? 1 : wanted) : (Word(1) << 17));
    const bool narrowSamples = !(a.sums || a.extrema) || p.samples.bytes <= 4;
    if (p.walkAlongZ && narrowSamples) {
        const Word lines = Word(p.width) * Word(p.height);
        const Word total = lines * ((Word(p.depth) + kSegment - 1) / kSegment);
        const Word columnBlocks = (total + kTermsThreads - 1) / kTermsThreads;
        columnTermsKernel<<<unsigned(columnBlocks < (Word(1) << 17) ? columnBlocks : (Word(1) << 17)), kTermsThreads,
                            0, stream>>>(p, exponents, a, lines, total);
    } else if (p.narrowSums && narrowSamples)
        termsKernel<NarrowSums><<<blocks, kTermsThreads, 0, stream>>>(p, exponents, a, words, segments);
    else
        termsKernel<WideSums><<<blocks, kTermsThreads, 0, stream>>>(p, exponents, a, words, segments);
    check.launched("measure_terms", stream);
}

void gatherIntensity(const CudaCheck& check, cudaStream_t stream, const Passes& p, const Exponents& weighted,
                     bool sums, bool extrema) {
    const Segments segments = segmentsOf(p);
    if (p.narrowSums && p.samples.bytes <= 4)
        intensityKernel<NarrowSums>
            <<<blocksFor(segments.total), kThreads, 0, stream>>>(p, weighted, sums, extrema, segments);
    else
        intensityKernel<WideSums>
            <<<blocksFor(segments.total), kThreads, 0, stream>>>(p, weighted, sums, extrema, segments);
    check.launched("measure_intensity", stream);
}

void gatherExtremaPositions(const CudaCheck& check, cudaStream_t stream, const Passes& p) {
    const Segments segments = segmentsOf(p);
    extremaKernel<<<blocksFor(segments.total), kThreads, 0, stream>>>(p, segments);
    check.launched("measure_extrema", stream);
}

void gatherVolumeWindows(const CudaCheck& check, cudaStream_t stream, const Passes& p, const Configurations& tables) {
    const Word windowsX = Word(p.width) + 1, windowsY = Word(p.height) + 1;
    const Word segmentsZ = (Word(p.depth) + 1 + kSegment - 1) / kSegment;
    const Word total = windowsX * windowsY * segmentsZ;
    windowsKernel<<<blocksFor(total), kThreads, 0, stream>>>(p, tables, windowsX, windowsY, total);
    check.launched("measure_windows", stream);
}

}  // namespace glccl::cuda::measure

// glccl::sumsByLabel on the host (glccl/label_sums.hpp).
//
// Two stages on the cpu engine's thread pool:
//   gather  each fixed stripe of elements is read once, a run of one label
//           (along a row) at a time: the run's slot in the list is found
//           once (a range test, the distance from the first label where the
//           list is consecutive, else a binary search) and its values added
//           to the stripe's entry for that slot, made on the slot's first
//           run in the stripe. A worker keeps the entries of its stripes
//           one after another and finds them through a map from slot to
//           entry that it clears after each stripe.
//   merge   the slots are cut into fixed buckets; each bucket's slots take
//           the entries of stripe 0, then 1, ... (each stripe's entries are
//           indexed by bucket when it is gathered) and are finalized.
// A slot's totals are thus always added in stripe order, whichever worker
// gathered which stripe: double-doubles give the same bits at every thread
// count, integers are exact anyway, and a later stripe's extremum replaces
// an earlier one only when strictly beyond it, so the first position in C
// order wins a tie.
//
// Only the totals a request needs are kept in an entry (the Mode), so that
// sums alone move little memory.

#include "glccl/label_sums.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "glccl/cpu_labeler.hpp"
#include "glccl/error.hpp"
#include "thread_pool.hpp"

namespace glccl {
namespace {

using cpu::detail::ThreadPool;
using Wide = __int128;
using UWide = unsigned __int128;

constexpr std::uint32_t kNoEntry = 0xFFFFFFFFu;
// Stripes of at least this many elements, at most kMostStripes of them: a
// fixed cut of the array, so that the order of every addition is the
// array's, never the team's.
constexpr std::uint64_t kStripeElements = std::uint64_t(1) << 15;
constexpr std::uint64_t kMostStripes = 4096;
// Buckets of at least this many slots (a merge's totals stay in cache), at
// most kMostBuckets of them (each stripe counts its entries per bucket).
constexpr std::uint64_t kBucketSlots = 4096;
constexpr std::uint64_t kMostBuckets = 1024;
// The workers' maps from slot to entry together stay under this many bytes.
constexpr std::uint64_t kMapBytes = std::uint64_t(1) << 28;

const char* const kWhere = "glccl::sumsByLabel: ";

// An allocator whose large blocks ask for transparent huge pages: the
// entries and maps are fresh memory on every call, and touching it 4 KiB at
// a time costs a page fault each.
constexpr std::size_t kHugePage = std::size_t(2) << 20;
template <class T>
struct LargePages {
    using value_type = T;
    LargePages() = default;
    template <class U>
    LargePages(const LargePages<U>&) {}  // NOLINT(google-explicit-constructor): rebinding
    T* allocate(std::size_t n) {
        const std::size_t bytes = n * sizeof(T);
        if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes));
        const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
        void* p = std::aligned_alloc(kHugePage, rounded);
        if (p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
        madvise(p, rounded, MADV_HUGEPAGE);
#endif
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t n) {
        if (n * sizeof(T) < kHugePage) ::operator delete(p);
        else std::free(p);
    }
    template <class U>
    bool operator==(const LargePages<U>&) const { return true; }
    template <class U>
    bool operator!=(const LargePages<U>&) const { return false; }
};
template <class T>
using LargeVector = std::vector<T, LargePages<T>>;

Int256 int256Of(UWide v) {
    Int256 r;
    r.limb = {std::uint64_t(v), std::uint64_t(v >> 64), 0, 0};
    return r;
}
const Int256& int256Of(const Int256& v) { return v; }

DoubleDouble doubleDoubleOf(const Int256& v) {
    double hi, lo;
    v.toDoubleDouble(hi, lo);
    return {hi, lo};
}

// a += b, a double-double and a double. An infinite or NaN sum is kept as
// the plain sum gives it (inf, -inf or NaN, as scipy's), which the error
// terms would turn into NaN.
inline void addTo(DoubleDouble& a, double b) {
    if (!std::isfinite(a.hi + b)) {
        a = DoubleDouble(a.hi + b);
        return;
    }
    a.addDouble(b);
}

// a += b, two sums.
inline void addSums(DoubleDouble& a, const DoubleDouble& b) {
    if (!std::isfinite(a.hi + b.hi)) a = DoubleDouble(a.hi + b.hi);
    else a += b;
}
inline void addSums(Wide& a, const Wide& b) { a += b; }

// How values of type T are summed: exactly in integers of 128 bits (256
// where 8-byte values are squared or weighted by a coordinate), floats as
// double-doubles.
template <class T>
struct Terms {
    static constexpr bool kFloat = std::is_floating_point_v<T>;
    // A 32-bit float's square, and its product with an integer below
    // dd_detail::kFloat32ExactFactor, are doubles exactly: summed with no
    // error term.
    static constexpr bool kFloat32 = std::is_same_v<T, float>;
    static constexpr bool kWide = !kFloat && sizeof(T) == 8;
    using Sum = std::conditional_t<kFloat, DoubleDouble, Wide>;
    using Squares = std::conditional_t<kFloat, DoubleDouble, std::conditional_t<kWide, Int256, UWide>>;
    using Moment = std::conditional_t<kFloat, DoubleDouble, std::conditional_t<kWide, Int256, Wide>>;

    static void addValue(Sum& s, T v) {
        if constexpr (kFloat) addTo(s, double(v));
        else s += Wide(v);
    }
    static void addSquare(Squares& q, T v) {
        if constexpr (kFloat32) {
            q.addDouble(double(v) * double(v));
        } else if constexpr (kFloat) {
            q.addProduct(double(v), double(v));
        } else {
            std::uint64_t magnitude = std::uint64_t(v);
            if constexpr (std::is_signed_v<T>)
                if (v < 0) magnitude = std::uint64_t(0) - std::uint64_t(v);
            if constexpr (kWide) q += int256Of(UWide(magnitude) * magnitude);
            else q += UWide(magnitude * magnitude);  // below 2^64: values of at most 4 bytes
        }
    }
    // a += v * coordinate.
    static void addMoment(Moment& a, T v, std::uint64_t coordinate) {
        if constexpr (kFloat32) {
            if (coordinate < dd_detail::kFloat32ExactFactor) a.addDouble(double(v) * double(coordinate));
            else a.addProduct(double(v), double(coordinate));
        } else if constexpr (kFloat) {
            a.addProduct(double(v), double(coordinate));
        } else if constexpr (kWide) {
            a += Int256::of(Wide(v) * Wide(coordinate));
        } else {
            a += Wide(v) * Wide(coordinate);
        }
    }
    // a += s * coordinate, s a run's sum.
    static void addScaled(Moment& a, const Sum& s, std::uint64_t coordinate) {
        if constexpr (kFloat) a += s * DoubleDouble(double(coordinate));
        else if constexpr (kWide) a += Int256::of(s) * Int256::of(Wide(coordinate));
        else a += s * Wide(coordinate);
    }
    static double value(const Sum& s) {
        if constexpr (kFloat) return s.hi + s.lo;
        else return double(s);  // rounded to nearest
    }
    static bool zero(const Sum& s) {
        if constexpr (kFloat) return s.hi == 0.0;
        else return s == 0;
    }
    static DoubleDouble precise(const Sum& s) {
        if constexpr (kFloat) return s;
        else return doubleDoubleOf(Int256::of(s));
    }
    static DoubleDouble precise(const Int256& m) { return doubleDoubleOf(m); }
};

// Whether a comes before b in numpy's sort order: NaN after every number.
template <class T>
inline bool before(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) return a < b || (std::isnan(b) && !std::isnan(a));
    else return a < b;
}

// What an entry keeps.
template <bool Sum, bool Squares, bool Centre, bool Extrema>
struct Mode {
    static constexpr bool kSum = Sum, kSquares = Squares, kCentre = Centre, kExtrema = Extrema;
    static constexpr bool kValues = Sum || Squares || Centre || Extrema;
};

template <class T, bool Has>
struct SumPart {};
template <class T>
struct SumPart<T, true> {
    typename Terms<T>::Sum sum{};
};
template <class T, bool Has>
struct SquaresPart {};
template <class T>
struct SquaresPart<T, true> {
    typename Terms<T>::Squares squares{};
};
template <class T, bool Has>
struct MomentPart {};
template <class T>
struct MomentPart<T, true> {
    typename Terms<T>::Moment moments[3]{};  // weighted by x, y, z (the last axis first)
};
template <class T, bool Has>
struct ExtremaPart {};
template <class T>
struct ExtremaPart<T, true> {
    T minimum{}, maximum{};
    std::uint64_t minimumAt = 0, maximumAt = 0;
};

// One slot's totals over a stripe (or, merged, over the array).
template <class T, class M>
struct Entry : SumPart<T, M::kSum>, SquaresPart<T, M::kSquares>, MomentPart<T, M::kCentre>, ExtremaPart<T, M::kExtrema> {
    std::uint64_t slot = 0;
    std::uint64_t count = 0;
};

// into's totals and then from's (from is of a later stripe).
template <class T, class M>
void merge(Entry<T, M>& into, const Entry<T, M>& from) {
    if (into.count == 0) {
        into = from;
        return;
    }
    into.count += from.count;
    if constexpr (M::kSum) addSums(into.sum, from.sum);
    if constexpr (M::kSquares) into.squares += from.squares;
    if constexpr (M::kCentre)
        for (int k = 0; k < 3; ++k) into.moments[k] += from.moments[k];
    if constexpr (M::kExtrema) {
        if (before(from.minimum, into.minimum)) {
            into.minimum = from.minimum;
            into.minimumAt = from.minimumAt;
        }
        if (before(into.maximum, from.maximum)) {
            into.maximum = from.maximum;
            into.maximumAt = from.maximumAt;
        }
    }
}

template <class T, class M>
double varianceOf(const Entry<T, M>& e) {
    const DoubleDouble n(double(e.count));
    if constexpr (Terms<T>::kFloat) {
        const DoubleDouble mean = e.sum / n;
        const DoubleDouble v = e.squares / n - mean * mean;
        return std::max(v.value(), 0.0);
    } else {
        // (n * sum of squares - sum^2) / n^2, the numerator exactly.
        const Int256 numerator = Int256::of(Wide(e.count)) * int256Of(e.squares) - Int256::of(e.sum) * Int256::of(e.sum);
        return (doubleDoubleOf(numerator) / (n * n)).value();
    }
}

template <class T, class M>
double centreOf(const Entry<T, M>& e, int k) {
    using Tr = Terms<T>;
    if (Tr::zero(e.sum)) return Tr::precise(e.moments[k]).value() / 0.0;  // scipy's x / 0
    return (Tr::precise(e.moments[k]) / Tr::precise(e.sum)).value();
}

template <class T, class M>
void finalize(const Entry<T, M>& e, std::size_t slot, int axes, const LabelSumsOutput& out) {
    const bool any = e.count != 0;
    if (out.counts) out.counts[slot] = std::int64_t(e.count);
    if constexpr (M::kSum)
        if (out.sums) out.sums[slot] = any ? Terms<T>::value(e.sum) : 0.0;
    if constexpr (M::kSquares)
        if (out.variances) out.variances[slot] = any ? varianceOf(e) : std::numeric_limits<double>::quiet_NaN();
    if constexpr (M::kExtrema) {
        if (out.minimumAt) out.minimumAt[slot] = any ? std::int64_t(e.minimumAt) : 0;
        if (out.maximumAt) out.maximumAt[slot] = any ? std::int64_t(e.maximumAt) : 0;
    }
    if constexpr (M::kCentre) {
        for (int axis = 0; axis < axes; ++axis)
            if (out.centres[std::size_t(axis)])
                out.centres[std::size_t(axis)][slot] =
                    any ? centreOf(e, axes - 1 - axis) : std::numeric_limits<double>::quiet_NaN();
    }
}

// A run of one label along a row: elements [begin, end), the label's slot.
struct Run {
    std::uint64_t begin = 0, end = 0, slot = 0;
};
// Runs handed from the labels' reader to the values' adder at a time.
constexpr std::size_t kRunBatch = 512;

// The part that reads the labels: the runs of a row whose label is listed.
template <class L>
class RunFinder {
public:
    using Key = std::conditional_t<std::is_signed_v<L>, std::int64_t, std::uint64_t>;

    explicit RunFinder(const LabelSumsInput& in)
        : labels_(static_cast<const L*>(in.labels)),
          list_(static_cast<const Key*>(in.sortedList)),
          listCount_(in.listCount) {
        first_ = list_[0];
        last_ = list_[listCount_ - 1];
        // Distinct and ascending: consecutive exactly when they span listCount values.
        consecutive_ = std::uint64_t(last_) - std::uint64_t(first_) == std::uint64_t(listCount_ - 1);
    }

    // The listed runs from element i up to `end` (within one row), at most
    // kRunBatch of them, into runs[0, found); returns where the next batch
    // starts (`end` once the row is done).
    std::uint64_t find(std::uint64_t i, std::uint64_t end, Run* runs, std::size_t& found) const {
        found = 0;
        while (i < end && found < kRunBatch) {
            const L label = labels_[i];
            std::uint64_t j = i + 1;
            while (j < end && labels_[j] == label) ++j;
            const std::int64_t slot = slotOf(Key(label));
            if (slot >= 0) runs[found++] = {i, j, std::uint64_t(slot)};
            i = j;
        }
        return i;
    }

private:
    std::int64_t slotOf(Key key) const {
        if (key < first_ || key > last_) return -1;
        if (consecutive_) return std::int64_t(std::uint64_t(key) - std::uint64_t(first_));
        const Key* at = std::lower_bound(list_, list_ + listCount_, key);
        return *at == key ? std::int64_t(at - list_) : -1;
    }

    const L* labels_;
    const Key* list_;
    std::size_t listCount_;
    Key first_{}, last_{};
    bool consecutive_ = false;
};

// A RunFinder's find(), whatever the labels' type: the values' side below
// is made once per value type and mode, not once per label type too.
using FindRuns = std::function<std::uint64_t(std::uint64_t i, std::uint64_t end, Run* runs, std::size_t& found)>;

// The part that reads the values: each run's values added to its slot's
// entry in the stripe.
template <class T, class M>
class Gatherer {
public:
    using Item = Entry<T, M>;

    Gatherer(const LabelSumsInput& in, const FindRuns& findRuns)
        : values_(static_cast<const T*>(in.values)), findRuns_(findRuns) {
        width_ = in.extents[std::size_t(in.axes - 1)];
        height_ = in.axes >= 2 ? in.extents[std::size_t(in.axes - 2)] : 1;
    }

    // The entries of elements [begin, end) appended to `entries`, through
    // `where` (every slot kNoEntry before and after).
    void stripe(std::uint64_t begin, std::uint64_t end, LargeVector<std::uint32_t>& where,
                LargeVector<Item>& entries) const {
        const std::size_t first = entries.size();
        Run runs[kRunBatch];
        std::uint64_t rowBase = begin - begin % width_;
        const std::uint64_t row = begin / width_;
        std::uint64_t y = row % height_, z = row / height_;
        std::uint64_t i = begin;
        while (i < end) {
            // A run never leaves its row: its y and z are the row's.
            const std::uint64_t rowEnd = std::min(end, rowBase + width_);
            while (i < rowEnd) {
                std::size_t found = 0;
                i = findRuns_(i, rowEnd, runs, found);
                for (std::size_t r = 0; r < found; ++r) {
                    std::uint32_t& at = where[std::size_t(runs[r].slot)];
                    if (at == kNoEntry) {
                        if (entries.size() >= kNoEntry) throw Error(std::string(kWhere) + "more than 2^32 - 2 entries for one thread");
                        at = std::uint32_t(entries.size());
                        entries.emplace_back();
                        entries.back().slot = runs[r].slot;
                    }
                    addRun(entries[at], runs[r].begin, runs[r].end, rowBase, y, z);
                }
            }
            rowBase += width_;
            if (++y == height_) {
                y = 0;
                ++z;
            }
        }
        for (std::size_t k = first; k < entries.size(); ++k) where[std::size_t(entries[k].slot)] = kNoEntry;
    }

private:
    void addRun(Item& e, std::uint64_t i, std::uint64_t j, std::uint64_t rowBase, std::uint64_t y,
                std::uint64_t z) const {
        if constexpr (M::kExtrema) {
            if (e.count == 0) {
                e.minimum = e.maximum = values_[i];
                e.minimumAt = e.maximumAt = i;
            }
        }
        e.count += j - i;
        if constexpr (M::kValues) {
            [[maybe_unused]] typename Terms<T>::Sum runSum{};
            for (std::uint64_t k = i; k < j; ++k) {
                const T v = values_[k];
                if constexpr (M::kSum) Terms<T>::addValue(runSum, v);
                if constexpr (M::kSquares) Terms<T>::addSquare(e.squares, v);
                if constexpr (M::kCentre) Terms<T>::addMoment(e.moments[0], v, k - rowBase);
                if constexpr (M::kExtrema) {
                    if (before(v, e.minimum)) {
                        e.minimum = v;
                        e.minimumAt = k;
                    }
                    if (before(e.maximum, v)) {
                        e.maximum = v;
                        e.maximumAt = k;
                    }
                }
            }
            if constexpr (M::kSum) {
                addSums(e.sum, runSum);
                if constexpr (M::kCentre) {
                    Terms<T>::addScaled(e.moments[1], runSum, y);
                    Terms<T>::addScaled(e.moments[2], runSum, z);
                }
            }
        }
    }

    const T* values_;
    const FindRuns& findRuns_;
    std::uint64_t width_ = 1, height_ = 1;
};

template <class T, class M>
void gatherAndMerge(const LabelSumsInput& in, const LabelSumsOutput& out, int threads, const FindRuns& findRuns) {
    using Item = Entry<T, M>;
    const Gatherer<T, M> gatherer(in, findRuns);
    std::uint64_t elements = 1;
    for (int a = 0; a < in.axes; ++a) elements *= in.extents[std::size_t(a)];
    const std::uint64_t listCount = in.listCount;

    const std::uint64_t stripeElements =
        std::min(std::max(kStripeElements, (elements + kMostStripes - 1) / kMostStripes), std::uint64_t(1) << 31);
    const std::uint64_t stripes = (elements + stripeElements - 1) / stripeElements;
    const std::uint64_t bucketSlots = std::max(kBucketSlots, (listCount + kMostBuckets - 1) / kMostBuckets);
    const std::uint64_t buckets = (listCount + bucketSlots - 1) / bucketSlots;

    if (threads <= 0) threads = cpu::defaultThreads();
    std::uint64_t width = std::min<std::uint64_t>(std::uint64_t(threads), std::max(stripes, buckets));
    width = std::min(width, std::max<std::uint64_t>(1, kMapBytes / (listCount * sizeof(std::uint32_t))));
    width = std::max<std::uint64_t>(width, 1);
    ThreadPool pool{int(width)};

    // Per worker: the entries of every stripe it gathers, one after
    // another, the map from slot to entry, and a bucket's totals. Per
    // stripe: where its entries lie, their indices ordered by bucket, and
    // where each bucket starts there.
    std::vector<LargeVector<Item>> made(width);
    std::vector<LargeVector<std::uint32_t>> where(width);
    std::vector<std::vector<Item>> totals(width);
    struct Span {
        std::size_t worker = 0, offset = 0;
    };
    std::vector<Span> spans(stripes);
    std::vector<std::vector<std::uint32_t>> order(stripes), starts(stripes);
    if (stripes > 0) {
        pool.run(stripes, int(width), [&](std::size_t s, int worker) {
            auto& map = where[std::size_t(worker)];
            if (map.empty()) map.assign(listCount, kNoEntry);
            auto& mine = made[std::size_t(worker)];
            // Room at once for twice its share of the list (or of the
            // elements, where fewer: a stripe makes at most one entry per
            // element); the pages are touched only as entries are made,
            // where growing by doubling would copy the entries and touch
            // their pages again.
            if (mine.capacity() == 0) mine.reserve(std::size_t(2 * std::min(listCount, elements) / width + 4096));
            const std::size_t offset = mine.size();
            const std::uint64_t begin = s * stripeElements, end = std::min(elements, begin + stripeElements);
            gatherer.stripe(begin, end, map, mine);
            spans[s] = {std::size_t(worker), offset};
            auto& start = starts[s];
            start.assign(buckets + 1, 0);
            for (std::size_t k = offset; k < mine.size(); ++k) ++start[mine[k].slot / bucketSlots + 1];
            for (std::uint64_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
            std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
            auto& sorted = order[s];
            sorted.resize(mine.size() - offset);
            for (std::size_t k = offset; k < mine.size(); ++k)
                sorted[next[mine[k].slot / bucketSlots]++] = std::uint32_t(k - offset);
        });
    }
    pool.run(buckets, int(width), [&](std::size_t b, int worker) {
        const std::uint64_t base = b * bucketSlots, count = std::min(bucketSlots, listCount - base);
        auto& sum = totals[std::size_t(worker)];
        sum.assign(count, Item());
        for (std::uint64_t s = 0; s < stripes; ++s) {
            const Item* mine = made[spans[s].worker].data() + spans[s].offset;
            const auto& sorted = order[s];
            for (std::uint32_t k = starts[s][b]; k < starts[s][b + 1]; ++k) {
                const Item& e = mine[sorted[k]];
                merge(sum[e.slot - base], e);
            }
        }
        for (std::uint64_t r = 0; r < count; ++r) finalize(sum[r], std::size_t(base + r), in.axes, out);
    });
}

template <class T>
void byMode(const LabelSumsInput& in, unsigned terms, const LabelSumsOutput& out, int threads, const FindRuns& findRuns) {
    const bool sum = (terms & HostLabelSums::Sum) != 0, squares = (terms & HostLabelSums::Variance) != 0,
               centre = (terms & HostLabelSums::Centre) != 0, extrema = (terms & HostLabelSums::Extrema) != 0;
    if (!squares && !centre && !extrema) gatherAndMerge<T, Mode<true, false, false, false>>(in, out, threads, findRuns);
    else if (squares && !centre && !extrema) gatherAndMerge<T, Mode<true, true, false, false>>(in, out, threads, findRuns);
    else if (extrema && !sum && !squares && !centre) gatherAndMerge<T, Mode<false, false, false, true>>(in, out, threads, findRuns);
    else if (centre && !squares && !extrema) gatherAndMerge<T, Mode<true, false, true, false>>(in, out, threads, findRuns);
    else gatherAndMerge<T, Mode<true, true, true, true>>(in, out, threads, findRuns);
}

// f(T()) for the integer type of `bytes` bytes, signed or not.
template <class F>
void withIntegerType(int bytes, bool isSigned, const char* what, F&& f) {
    switch (bytes * (isSigned ? -1 : 1)) {
        case 1: f(std::uint8_t()); break;
        case 2: f(std::uint16_t()); break;
        case 4: f(std::uint32_t()); break;
        case 8: f(std::uint64_t()); break;
        case -1: f(std::int8_t()); break;
        case -2: f(std::int16_t()); break;
        case -4: f(std::int32_t()); break;
        case -8: f(std::int64_t()); break;
        default: throw Error(std::string(kWhere) + what + " of " + std::to_string(bytes) + " bytes are not read");
    }
}

// f(L()) for the labels' type.
template <class F>
void withLabelType(const LabelSumsInput& in, F&& f) {
    withIntegerType(int(in.labelBytes), in.labelsSigned, "labels", f);
}

template <class F>
void withValueType(const LabelSumsInput& in, F&& f) {
    if (in.valueKind == SampleKind::Float) {
        if (in.valueBytes == 4) f(float());
        else if (in.valueBytes == 8) f(double());
        else throw Error(std::string(kWhere) + "floating-point values of 4 or 8 bytes are read");
        return;
    }
    withIntegerType(int(in.valueBytes), in.valueKind == SampleKind::Signed, "values", f);
}

}  // namespace

void sumsByLabel(const LabelSumsInput& in, unsigned terms, const LabelSumsOutput& out, int threads) {
    if (in.axes < 1 || in.axes > 3) throw Error(std::string(kWhere) + "arrays of 1 to 3 axes are read");
    if (in.listCount == 0) return;
    if (in.sortedList == nullptr) throw Error(std::string(kWhere) + "the list of labels is null");
    if (in.listCount >= kNoEntry) throw Error(std::string(kWhere) + "a list of 2^32 - 1 labels or more");
    std::uint64_t elements = 1;
    for (int a = 0; a < in.axes; ++a) elements *= in.extents[std::size_t(a)];
    if (elements != 0 && in.labels == nullptr) throw Error(std::string(kWhere) + "the labels are null");
    const bool anyValues = (terms & ~unsigned(HostLabelSums::Count)) != 0;
    if (anyValues && elements != 0 && in.values == nullptr)
        throw Error(std::string(kWhere) + "values are needed for sums, variances, extrema or centres");
    withLabelType(in, [&](auto label) {
        const RunFinder<decltype(label)> finder(in);
        const FindRuns findRuns = [&finder](std::uint64_t i, std::uint64_t end, Run* runs, std::size_t& found) {
            return finder.find(i, end, runs, found);
        };
        if (!anyValues) {
            gatherAndMerge<std::uint8_t, Mode<false, false, false, false>>(in, out, threads, findRuns);
            return;
        }
        withValueType(in, [&](auto value) { byMode<decltype(value)>(in, terms, out, threads, findRuns); });
    });
}

}  // namespace glccl

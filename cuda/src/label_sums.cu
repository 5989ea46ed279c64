// glccl::cuda::sumsByLabel: scipy.ndimage's reductions over labels (count,
// sum, centred sum of squares, extrema and their first positions, centre of
// mass) for a list of labels, in one pass over labels and values where they
// are, with nothing numbered or sorted first.
//
// Each thread takes kSegment consecutive elements, read into registers at
// once, and keeps a run of one label there, so a region's elements meet one
// lookup and one set of atomics per run, not per element. The label's slot
// is a binary search of the ascending list (its distance from the first
// label where the list is consecutive); a segment with no label between
// the list's first and last reads no values. Two ways to add a run:
//   shared  the list and one accumulator per label fit in a block's shared
//           memory (short lists): runs add there, each block adds its
//           non-empty slots to the global totals once at its end
//   global  runs add to the global totals directly (long lists, such as
//           every label of an image: few elements meet each slot)
// Sums are 128-bit two's complement integers (two 64-bit words, the carry
// added by a second atomic), extrema 64-bit keys (the value's order in the
// high half, the position in the low half, so the first position in raster
// order wins a tie), so the totals are exact and the same whatever order the
// threads run in; label_sums_finalize turns them into the outputs.

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda_check.hpp"
#include "device_memory.hpp"
#include "glccl/cuda_labeler.hpp"

namespace glccl::cuda {
namespace {

using Word = unsigned long long;
using Wide = __int128;
using UWide = unsigned __int128;

constexpr int kThreads = 256;
constexpr int kSegment = 16;
// A block's shared memory for the list and its accumulators: the default
// limit of every device, so the kernel needs no opt-in and two blocks fit
// on each multiprocessor.
constexpr std::size_t kSharedBytes = 48 * 1024;

// The words of one label's accumulator, in this order, where asked.
struct Layout {
    int count = 0, sum = -1, squares = -1, minimum = -1, maximum = -1, weighted = -1;
    int words = 1;
    int axes = 0;

    Layout(unsigned terms, int axesOfValues) : axes(axesOfValues) {
        if (terms & (LabelSums::Sum | LabelSums::Squares | LabelSums::Centre)) sum = take(2);
        if (terms & LabelSums::Squares) squares = take(2);
        if (terms & LabelSums::Extrema) {
            minimum = take(1);
            maximum = take(1);
        }
        if (terms & LabelSums::Centre) weighted = take(2 * axes);
    }

private:
    int take(int n) {
        const int at = words;
        words += n;
        return at;
    }
};

__device__ __forceinline__ void addWide(Word* at, Wide value) {
    const Word low = Word(value);
    Word high = Word(value >> 64);
    const Word old = atomicAdd(at, low);
    if (old + low < old) ++high;
    if (high != 0) atomicAdd(at + 1, high);
}

__device__ __forceinline__ Wide wideAt(const Word* at) { return Wide((UWide(at[1]) << 64) | UWide(at[0])); }

// A value's place in the order of its type, as 32 unsigned bits.
__device__ __forceinline__ std::uint32_t orderOf(long long value, bool isSigned) {
    return isSigned ? std::uint32_t(std::int32_t(value)) ^ 0x80000000u : std::uint32_t(value);
}

__device__ __forceinline__ long long valueOfOrder(std::uint32_t order, bool isSigned) {
    return isSigned ? (long long)std::int32_t(order ^ 0x80000000u) : (long long)order;
}

// What one run of a label adds.
struct Run {
    Word count;
    Wide sum, weighted[3];
    UWide squares;
    Word minimum, maximum;

    __device__ void clear() {
        count = 0;
        sum = 0;
        squares = 0;
        weighted[0] = weighted[1] = weighted[2] = 0;
        minimum = ~Word(0);
        maximum = 0;
    }
};

struct Shape3 {
    Word width, height;  // the last two axes (x, y); the first is implied
};

__device__ __forceinline__ void addRun(Word* slot, const Run& run, const Layout& layout) {
    atomicAdd(slot + layout.count, run.count);
    if (layout.sum >= 0) addWide(slot + layout.sum, run.sum);
    if (layout.squares >= 0) addWide(slot + layout.squares, Wide(run.squares));
    if (layout.minimum >= 0) {
        atomicMin(slot + layout.minimum, run.minimum);
        atomicMax(slot + layout.maximum, run.maximum);
    }
    // run.weighted is by z, y, x; the words by the array's axes, its last
    // axes the y and x. (A fixed loop: indexing the run by a variable would
    // move it out of registers.)
    if (layout.weighted >= 0) {
#pragma unroll
        for (int k = 0; k < 3; ++k) {
            const int axis = k - (3 - layout.axes);
            if (axis >= 0) addWide(slot + layout.weighted + 2 * axis, run.weighted[k]);
        }
    }
}

// The list's first and last labels, and whether it holds every label
// between them (an index of consecutive labels, as arange gives): then a
// label's slot is its distance from the first, with no search.
template <class Key>
struct ListBounds {
    Key first, last;
    bool consecutive;
};

template <class Key>
__device__ __forceinline__ int slotOf(const Key* list, int count, const ListBounds<Key>& bounds, Key key) {
    if (key < bounds.first || key > bounds.last) return -1;  // most labels of a short list
    if (bounds.consecutive) return int(key - bounds.first);
    int low = 0, high = count;
    while (low < high) {
        const int middle = (low + high) >> 1;
        if (list[middle] < key) low = middle + 1;
        else high = middle;
    }
    return list[low] == key ? low : -1;
}

// A segment's labels (and values) are read into registers at once, with
// 16-byte loads where the segment is whole and aligned: each thread's
// kSegment elements are then one or a few sectors read back to back, so a
// warp reads a contiguous span, not 32 strided ones over many iterations.
template <class T>
__device__ __forceinline__ void loadSegment(const T* from, Word begin, Word elements, bool wide, T (&out)[kSegment]) {
    if (wide && begin + kSegment <= elements) {
        constexpr int perLoad = 16 / int(sizeof(T));
        const uint4* chunks = reinterpret_cast<const uint4*>(from + begin);
#pragma unroll
        for (int k = 0; k < kSegment / perLoad; ++k) {
            const uint4 chunk = chunks[k];
            memcpy(&out[k * perLoad], &chunk, 16);
        }
    } else {
#pragma unroll
        for (int j = 0; j < kSegment; ++j) out[j] = begin + j < elements ? from[begin + j] : T(0);
    }
}

template <class T>
__device__ __forceinline__ void widenSegment(const void* from, Word begin, Word elements, bool wide,
                                             long long (&out)[kSegment]) {
    T narrow[kSegment];
    loadSegment(static_cast<const T*>(from), begin, elements, wide, narrow);
#pragma unroll
    for (int j = 0; j < kSegment; ++j) out[j] = (long long)narrow[j];
}

__device__ __forceinline__ void loadValues(const void* values, int bytes, bool isSigned, Word begin, Word elements,
                                           bool wide, long long (&out)[kSegment]) {
    switch (bytes * (isSigned ? -1 : 1)) {
        case 1: widenSegment<std::uint8_t>(values, begin, elements, wide, out); break;
        case -1: widenSegment<std::int8_t>(values, begin, elements, wide, out); break;
        case 2: widenSegment<std::uint16_t>(values, begin, elements, wide, out); break;
        case -2: widenSegment<std::int16_t>(values, begin, elements, wide, out); break;
        case 4: widenSegment<std::uint32_t>(values, begin, elements, wide, out); break;
        default: widenSegment<std::int32_t>(values, begin, elements, wide, out); break;
    }
}

template <class Label, bool InShared>
__global__ void __launch_bounds__(kThreads)
    sumsKernel(const Label* labels, const void* values, int valueBytes, bool valuesSigned, bool wide, Word elements,
               Shape3 shape, const std::conditional_t<std::is_same_v<Label, std::uint64_t>, Word, long long>* list,
               int listCount, Layout layout, unsigned terms, Word* totals) {
    using Key = std::conditional_t<std::is_same_v<Label, std::uint64_t>, Word, long long>;
    extern __shared__ Word shared[];
    ListBounds<Key> bounds;
    bounds.first = list[0];
    bounds.last = list[listCount - 1];
    // Distinct and ascending: consecutive exactly when they span listCount values.
    bounds.consecutive = Word(bounds.last) - Word(bounds.first) == Word(listCount - 1);
    const Key* lookup = list;
    Word* slots = totals;
    if constexpr (InShared) {
        Key* sharedList = reinterpret_cast<Key*>(shared);
        slots = shared + listCount;
        for (int i = threadIdx.x; i < listCount; i += blockDim.x) sharedList[i] = list[i];
        for (int i = threadIdx.x; i < listCount * layout.words; i += blockDim.x) {
            const int word = i % layout.words;
            slots[i] = word == layout.minimum ? ~Word(0) : 0;
        }
        __syncthreads();
        lookup = sharedList;
    }
    // Warp-uniform: each thread adds only the terms asked.
    const bool wantSum = (terms & (LabelSums::Sum | LabelSums::Squares | LabelSums::Centre)) != 0;
    const bool wantSquares = (terms & LabelSums::Squares) != 0, wantCentre = (terms & LabelSums::Centre) != 0;
    const bool wantExtrema = (terms & LabelSums::Extrema) != 0;
    const bool wantValues = wantSum || wantExtrema;
    const Word segments = (elements + kSegment - 1) / kSegment;
    for (Word segment = Word(blockIdx.x) * blockDim.x + threadIdx.x; segment < segments;
         segment += Word(gridDim.x) * blockDim.x) {
        const Word begin = segment * kSegment;
        Label ids[kSegment];
        loadSegment(labels, begin, elements, wide, ids);
        // The values are read only where a label of the segment may be listed.
        bool listed = false;
#pragma unroll
        for (int j = 0; j < kSegment; ++j)
            listed |= begin + j < elements && Key(ids[j]) >= bounds.first && Key(ids[j]) <= bounds.last;
        if (!listed) continue;
        long long v[kSegment];
        if (wantValues) loadValues(values, valueBytes, valuesSigned, begin, elements, wide, v);
        Word x = begin % shape.width, y = (begin / shape.width) % shape.height, z = begin / shape.width / shape.height;
        Run run;
        run.clear();
        Key current = Key(ids[0]);
        int slot = slotOf(lookup, listCount, bounds, current);
#pragma unroll
        for (int j = 0; j < kSegment; ++j) {
            const Word i = begin + j;
            if (i >= elements) break;
            const Key key = Key(ids[j]);
            if (key != current) {
                if (slot >= 0) addRun(slots + Word(slot) * layout.words, run, layout);
                run.clear();
                current = key;
                slot = slotOf(lookup, listCount, bounds, key);
            }
            if (slot >= 0) {
                ++run.count;
                if (wantSum) run.sum += v[j];
                if (wantSquares) {
                    const Word magnitude = Word(v[j] < 0 ? -v[j] : v[j]);
                    run.squares += UWide(magnitude) * UWide(magnitude);
                }
                if (wantCentre) {
                    run.weighted[0] += Wide(v[j]) * Wide(z);
                    run.weighted[1] += Wide(v[j]) * Wide(y);
                    run.weighted[2] += Wide(v[j]) * Wide(x);
                }
                if (wantExtrema) {
                    const Word order = orderOf(v[j], valuesSigned);
                    const Word at = Word(std::uint32_t(i));
                    const Word low = (order << 32) | at, high = (order << 32) | (0xFFFFFFFFull - at);
                    run.minimum = low < run.minimum ? low : run.minimum;
                    run.maximum = high > run.maximum ? high : run.maximum;
                }
            }
            if (++x == shape.width) {
                x = 0;
                if (++y == shape.height) {
                    y = 0;
                    ++z;
                }
            }
        }
        if (slot >= 0) addRun(slots + Word(slot) * layout.words, run, layout);
    }
    if constexpr (InShared) {
        __syncthreads();
        for (int label = threadIdx.x; label < listCount; label += blockDim.x) {
            const Word* from = slots + Word(label) * layout.words;
            if (from[layout.count] == 0) continue;
            Run run;
            run.clear();
            run.count = from[layout.count];
            if (layout.sum >= 0) run.sum = wideAt(from + layout.sum);
            if (layout.squares >= 0) run.squares = UWide(wideAt(from + layout.squares));
            if (layout.minimum >= 0) {
                run.minimum = from[layout.minimum];
                run.maximum = from[layout.maximum];
            }
#pragma unroll
            for (int k = 0; k < 3; ++k) {
                const int axis = k - (3 - layout.axes);
                if (layout.weighted >= 0 && axis >= 0) run.weighted[k] = wideAt(from + layout.weighted + 2 * axis);
            }
            addRun(totals + Word(label) * layout.words, run, layout);
        }
    }
}

__global__ void __launch_bounds__(kThreads) clearKernel(Word* totals, Word words, Layout layout) {
    for (Word i = Word(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += Word(gridDim.x) * blockDim.x)
        totals[i] = int(i % layout.words) == layout.minimum ? ~Word(0) : 0;
}

__device__ double toDouble(Wide v) {
    const long long high = (long long)(v >> 64);
    const Word low = Word(v);
    if (high == 0) return double(low);
    if (high == -1 && (low >> 63) != 0) return double((long long)low);
    return double(high) * 18446744073709551616.0 + double(low);
}

__device__ double toDouble(UWide v) {
    const Word high = Word(v >> 64), low = Word(v);
    return high == 0 ? double(low) : double(high) * 18446744073709551616.0 + double(low);
}

// label_sums_finalize: each label's outputs from its exact totals.
__global__ void __launch_bounds__(kThreads)
    finalizeKernel(const Word* totals, int listCount, Layout layout, bool valuesSigned, LabelSumsOutput out) {
    for (int label = blockIdx.x * blockDim.x + threadIdx.x; label < listCount; label += gridDim.x * blockDim.x) {
        const Word* from = totals + Word(label) * layout.words;
        const Word count = from[layout.count];
        if (out.counts) out.counts[label] = (long long)count;
        const Wide sum = layout.sum >= 0 ? wideAt(from + layout.sum) : 0;
        if (out.sums) out.sums[label] = toDouble(sum);
        if (out.centred) {
            // n Σv² − (Σv)², exact: Σv² < 2^96 and n < 2^32 below, and the
            // difference is never negative.
            const UWide magnitude = UWide(sum < 0 ? -sum : sum);
            const UWide spread = UWide(count) * UWide(wideAt(from + layout.squares)) - magnitude * magnitude;
            out.centred[label] = count == 0 ? 0.0 : toDouble(spread) / double(count);
        }
        if (layout.minimum >= 0) {
            const Word low = from[layout.minimum], high = from[layout.maximum];
            const bool any = count != 0;
            if (out.minimums) out.minimums[label] = any ? valueOfOrder(std::uint32_t(low >> 32), valuesSigned) : 0;
            if (out.minimumAt) out.minimumAt[label] = any ? (long long)(low & 0xFFFFFFFFull) : 0;
            if (out.maximums) out.maximums[label] = any ? valueOfOrder(std::uint32_t(high >> 32), valuesSigned) : 0;
            if (out.maximumAt) out.maximumAt[label] = any ? (long long)(0xFFFFFFFFull - (high & 0xFFFFFFFFull)) : 0;
        }
        for (int axis = 0; layout.weighted >= 0 && axis < layout.axes; ++axis) {
            if (out.centres[axis] == nullptr) continue;
            out.centres[axis][label] = toDouble(wideAt(from + layout.weighted + 2 * axis)) / toDouble(sum);
        }
    }
}

template <class Label>
void launch(const CudaCheck& check, const DeviceLabelSamples& labels, const DeviceLabelSamples& values,
            const void* list, std::size_t listCount, const Layout& layout, unsigned terms, Word* totals,
            CUstream_st* stream) {
    using Key = std::conditional_t<std::is_same_v<Label, std::uint64_t>, Word, long long>;
    const Word elements = labels.shape.count();
    const Shape3 shape{Word(labels.shape.width), Word(labels.shape.height)};
    const std::size_t sharedBytes = listCount * (sizeof(Key) + layout.words * sizeof(Word));
    int device = 0, processors = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    const Word segments = (elements + kSegment - 1) / kSegment;
    const Word needed = (segments + kThreads - 1) / kThreads;
    const auto* typed = static_cast<const Label*>(labels.data);
    const auto* keys = static_cast<const Key*>(list);
    // 16-byte loads where both arrays start on 16 bytes (a segment's bytes
    // are then a multiple of 16 from there).
    const bool wide = reinterpret_cast<std::uintptr_t>(labels.data) % 16 == 0 &&
                      reinterpret_cast<std::uintptr_t>(values.data) % 16 == 0;
    if (sharedBytes <= kSharedBytes) {
        // Enough blocks to fill the device, few enough that each adds its
        // slots to the totals once for many segments.
        const Word most = Word(processors) * 4;
        const unsigned blocks = unsigned(needed < most ? needed : most);
        sumsKernel<Label, true><<<blocks, kThreads, sharedBytes, stream>>>(
            typed, values.data, values.bytes, values.isSigned, wide, elements, shape, keys, int(listCount), layout,
            terms, totals);
    } else {
        const Word most = Word(processors) * 16;
        const unsigned blocks = unsigned(needed < most ? needed : most);
        sumsKernel<Label, false><<<blocks, kThreads, 0, stream>>>(typed, values.data, values.bytes, values.isSigned,
                                                                  wide, elements, shape, keys, int(listCount),
                                                                  layout, terms, totals);
    }
    check.launched("label_sums", stream);
}

}  // namespace

void sumsByLabel(const DeviceLabelSamples& labels, int axes, const DeviceLabelSamples& values, const void* sortedList,
                 std::size_t listCount, unsigned terms, const LabelSumsOutput& out, CUstream_st* stream) {
    const CudaCheck check("glccl::cuda::sumsByLabel");
    const Word elements = labels.shape.count();
    if (elements >= (Word(1) << 32))
        check.fail("labels of 2^32 elements or more (positions are 32-bit here): measure them with "
                   "measureDeviceLabels");
    if (listCount >= (std::size_t(1) << 31)) check.fail("a list of 2^31 labels or more");
    const bool anyValues = (terms & ~unsigned(LabelSums::Count)) != 0;
    if (anyValues && (values.data == nullptr || values.shape.count() != elements))
        check.fail("values of the labels' element count are needed for sums, extrema or centres");
    if (anyValues && values.bytes != 1 && values.bytes != 2 && values.bytes != 4)
        check.fail("values of 1, 2 or 4 bytes (integers or booleans) are summed here");
    if (axes < 1 || axes > 3) check.fail("an array of 1 to 3 axes");
    const Layout layout(terms, axes);
    if (listCount == 0) return;
    StreamBuffer<Word> totals =
        StreamBuffer<Word>::unlessOutOfMemory(listCount * std::size_t(layout.words), stream, check);
    if (totals.get() == nullptr) check.fail("the totals of the labels asked do not fit in device memory");
    const Word words = Word(listCount) * layout.words;
    clearKernel<<<unsigned(words / kThreads + 1 < 4096 ? words / kThreads + 1 : 4096), kThreads, 0, stream>>>(
        totals.get(), words, layout);
    check.launched("label_sums_clear", stream);
    if (elements != 0) {
        switch (labels.bytes * (labels.isSigned ? -1 : 1)) {
            case 1: launch<std::uint8_t>(check, labels, values, sortedList, listCount, layout, terms, totals.get(), stream); break;
            case 2: launch<std::uint16_t>(check, labels, values, sortedList, listCount, layout, terms, totals.get(), stream); break;
            case 4: launch<std::uint32_t>(check, labels, values, sortedList, listCount, layout, terms, totals.get(), stream); break;
            case 8: launch<std::uint64_t>(check, labels, values, sortedList, listCount, layout, terms, totals.get(), stream); break;
            case -1: launch<std::int8_t>(check, labels, values, sortedList, listCount, layout, terms, totals.get(), stream); break;
            case -2: launch<std::int16_t>(check, labels, values, sortedList, listCount, layout, terms, totals.get(), stream); break;
            case -4: launch<std::int32_t>(check, labels, values, sortedList, listCount, layout, terms, totals.get(), stream); break;
            case -8: launch<std::int64_t>(check, labels, values, sortedList, listCount, layout, terms, totals.get(), stream); break;
            default: check.fail("labels of 1, 2, 4 or 8 bytes");
        }
    }
    const unsigned blocks = unsigned(listCount / kThreads + 1 < 4096 ? listCount / kThreads + 1 : 4096);
    finalizeKernel<<<blocks, kThreads, 0, stream>>>(totals.get(), int(listCount), layout, values.isSigned, out);
    check.launched("label_sums_finalize", stream);
}

}  // namespace glccl::cuda

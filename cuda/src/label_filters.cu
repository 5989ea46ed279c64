// The label filters of glccl/cuda_label_filters.hpp. Each entry is a list of
// passes over one LabelTables, whose tables are indexed by label value
// 0..top (top: the largest label, or findObjects' maxLabel):
//
//   relabel      countLabels (with firsts) -> keepAtLeast(1)
//                  -> numberInRasterOrder -> remapLabels
//   removeSmall  countLabels -> keepAtLeast(minSize)
//                  -> numberInRasterOrder or keepValues -> remapLabels
//   keepLargest  countLabels -> keepLargest(k)
//                  -> numberInRasterOrder or keepValues -> remapLabels
//   findObjects  labelBoxes
//
// countLabels and labelBoxes read every element once; the rest work on the
// tables. numberInRasterOrder sorts the kept labels by their first element
// and keepLargest sorts the labels by count, both with CUB's radix sort,
// which is stable: equal counts keep the lower label first, the order
// scikit-image and the host helpers give.

#include "glccl/cuda_label_filters.hpp"

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>

#include "cuda_check.hpp"
#include "device_memory.hpp"

namespace glccl::cuda {
namespace {

using Word = unsigned long long;  // what the 64-bit atomics take

constexpr int kThreads = 256;
constexpr int kWarp = 32;
constexpr unsigned kFullWarp = 0xFFFFFFFFu;
constexpr Word kMaxBlocks = Word(1) << 16;
// A warp walks a chunk of kChunk consecutive elements, 32 at a time.
constexpr Word kChunk = Word(kWarp) * 32;

// A label's bits as __match_any_sync and the comparisons take them: labels
// are known not to be negative when these run.
template <typename T>
using LabelBits = std::conditional_t<sizeof(T) == 4, unsigned, Word>;

unsigned blocksFor(Word items, Word perBlock) {
    const Word wanted = (items + perBlock - 1) / perBlock;
    return unsigned(wanted == 0 ? 1 : wanted < kMaxBlocks ? wanted : kMaxBlocks);
}

// The number of bits that hold every value up to `value`.
int bitsFor(Word value) {
    int bits = 1;
    while (bits < 64 && (value >> bits) != 0) ++bits;
    return bits;
}

struct Larger {
    template <typename V>
    __device__ V operator()(V a, V b) const { return a < b ? b : a; }
};
struct Smaller {
    template <typename V>
    __device__ V operator()(V a, V b) const { return b < a ? b : a; }
};

// A minimum or maximum kept with atomics, read first: a component's first
// rows set its minima, and its later rows leave them as they are, so most
// updates cost a read instead of an atomic. Minima only fall and maxima
// only rise, so a stale read can only cost an atomic that changes nothing,
// never skip one that would.
__device__ __forceinline__ void lowerTo(Word* address, Word value) {
    if (value < *static_cast<volatile Word*>(address)) atomicMin(address, value);
}
__device__ __forceinline__ void raiseTo(Word* address, Word value) {
    if (value > *static_cast<volatile Word*>(address)) atomicMax(address, value);
}

// ---- labelRange --------------------------------------------------------------------------

struct RangeWords {
    Word largest;
    long long smallest;  // the smallest negative label, 0 when there is none
};

template <typename T>
__global__ void __launch_bounds__(kThreads)
    labelRangeKernel(const T* __restrict__ labels, Word count, RangeWords* range) {
    Word largest = 0;
    long long smallest = 0;
    const Word stride = Word(gridDim.x) * blockDim.x;
    for (Word i = Word(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
        const T label = labels[i];
        if constexpr (std::is_signed_v<T>) {
            if (label < 0) {
                smallest = label < smallest ? (long long)label : smallest;
                continue;
            }
        }
        largest = Word(label) > largest ? Word(label) : largest;
    }
    using LargestReduce = cub::BlockReduce<Word, kThreads>;
    __shared__ typename LargestReduce::TempStorage largestStorage;
    const Word blockLargest = LargestReduce(largestStorage).Reduce(largest, Larger());
    if (threadIdx.x == 0 && blockLargest != 0) atomicMax(&range->largest, blockLargest);
    if constexpr (std::is_signed_v<T>) {
        using SmallestReduce = cub::BlockReduce<long long, kThreads>;
        __shared__ typename SmallestReduce::TempStorage smallestStorage;
        const long long blockSmallest = SmallestReduce(smallestStorage).Reduce(smallest, Smaller());
        if (threadIdx.x == 0 && blockSmallest < 0) atomicMin(&range->smallest, blockSmallest);
    }
}

// ---- one warp's walk over consecutive labels ---------------------------------------------------

// What a warp has seen of one label: how many elements, the first and the
// last of them (indices into the labels).
struct LabelPart {
    Word label;  // 0: nothing
    Word count, first, last;
};

// Walks labels[begin, end) with one warp, 32 elements at a time, and hands
// `record` each label's part, merged before it is written:
//
//   window:  . . 3 3 . 5 3 3 . . 5 5    __match_any_sync groups the lanes by
//   label 3: lanes {2, 3, 6, 7}          label; the count, first and last
//   label 5: lanes {5, 10, 11}           follow from the lane mask alone.
//
// The label of the window's last foreground element is likely to go on in
// the next window, so its part stays in registers (the same in every lane)
// and is recorded once that label stops appearing at the end of a window,
// or at the end of the walk; the other groups are recorded at once. A long
// run costs one record per walk, a checkerboard at most one per window and
// label, never one per element. Values above `top` count as background.
template <typename T, typename Record>
__device__ void walkLabels(const T* __restrict__ labels, Word begin, Word end, Word top, const Record& record) {
    using Bits = LabelBits<T>;
    const int lane = int(threadIdx.x % kWarp);
    const unsigned lanesBelow = (1u << lane) - 1u;
    LabelPart carried{0, 0, 0, 0};
    for (Word base = begin; base < end; base += kWarp) {
        const Word i = base + Word(lane);
        Bits label = i < end ? Bits(labels[i]) : Bits(0);
        if (label > top) label = 0;
        const unsigned foregroundLanes = __ballot_sync(kFullWarp, label != 0);
        if (foregroundLanes == 0) continue;

        // This lane's group; its lowest lane leads it.
        const unsigned group = __match_any_sync(kFullWarp, label);
        const int lastLane = kWarp - 1 - __clz(int(foregroundLanes));
        const Bits lastLabel = __shfl_sync(kFullWarp, label, lastLane);
        auto partOf = [&](Word value, unsigned mask) {
            return LabelPart{value, Word(__popc(mask)), base + Word(__ffs(int(mask)) - 1),
                             base + Word(kWarp - 1 - __clz(int(mask)))};
        };

        // Groups of other labels than the carried one and the last one: now.
        const bool leads = label != 0 && (group & lanesBelow) == 0;
        if (leads && label != carried.label && label != lastLabel) record(partOf(label, group));

        // The carried label's group joins the registers.
        if (carried.label != 0) {
            const unsigned carriedLanes = __ballot_sync(kFullWarp, label == carried.label);
            if (carriedLanes != 0) {
                carried.count += Word(__popc(carriedLanes));
                carried.last = base + Word(kWarp - 1 - __clz(int(carriedLanes)));
            }
        }
        // A new last label: record the carried part, carry the new group.
        if (lastLabel != carried.label) {
            if (lane == 0 && carried.label != 0) record(carried);
            carried = partOf(lastLabel, __shfl_sync(kFullWarp, group, lastLane));
        }
    }
    if (lane == 0 && carried.label != 0) record(carried);
}

// ---- countLabels -------------------------------------------------------------------------

// counts[label] += elements; with firsts, firsts[label] = min(first element).
template <bool kFirsts>
struct CountRecord {
    Word* counts;
    Word* firsts;
    __device__ void operator()(const LabelPart& part) const {
        atomicAdd(&counts[part.label], part.count);
        if (kFirsts) lowerTo(&firsts[part.label], part.first);
    }
};

template <typename T, bool kFirsts>
__global__ void __launch_bounds__(kThreads)
    countLabelsKernel(const T* __restrict__ labels, Word count, Word top, Word* counts, Word* firsts) {
    const Word warp = (Word(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
    const Word warps = Word(gridDim.x) * blockDim.x / kWarp;
    const CountRecord<kFirsts> record{counts, firsts};
    for (Word begin = warp * kChunk; begin < count; begin += warps * kChunk)
        walkLabels(labels, begin, begin + kChunk < count ? begin + kChunk : count, top, record);
}

// ---- labelBoxes --------------------------------------------------------------------------

// The shape of the labels, C order: extent[axes - 1] is a row.
struct BoxShape {
    int axes;
    Word extent[kMaxBoxAxes];
};

// low/high[axis * entries + label]: the label's part lies in one row, so
// along the last axis it spans first..last of that row, and along every
// other axis it sits at the row's own index.
struct BoxRecord {
    const BoxShape& shape;
    Word row, rowStart, entries;
    Word* low;
    Word* high;
    __device__ void operator()(const LabelPart& part) const {
        const int last = shape.axes - 1;
        lowerTo(&low[Word(last) * entries + part.label], part.first - rowStart);
        raiseTo(&high[Word(last) * entries + part.label], part.last - rowStart);
        Word rest = row;
        for (int axis = last - 1; axis >= 0; --axis) {
            const Word index = rest % shape.extent[axis];
            rest /= shape.extent[axis];
            lowerTo(&low[Word(axis) * entries + part.label], index);
            raiseTo(&high[Word(axis) * entries + part.label], index);
        }
    }
};

// One warp per piece of kChunk elements of one row, so that every part lies
// in one row.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    labelBoxesKernel(const T* __restrict__ labels, Word rows, Word top, const __grid_constant__ BoxShape shape,
                     Word* low, Word* high) {
    const Word width = shape.extent[shape.axes - 1];
    const Word piecesPerRow = (width + kChunk - 1) / kChunk;
    const Word warp = (Word(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
    const Word warps = Word(gridDim.x) * blockDim.x / kWarp;
    for (Word piece = warp; piece < rows * piecesPerRow; piece += warps) {
        const Word row = piece / piecesPerRow;
        const Word rowStart = row * width;
        const Word begin = rowStart + (piece % piecesPerRow) * kChunk;
        const Word end = begin + kChunk < rowStart + width ? begin + kChunk : rowStart + width;
        walkLabels(labels, begin, end, top, BoxRecord{shape, row, rowStart, top + 1, low, high});
    }
}

// ---- choosing the labels kept --------------------------------------------------------------

// kept[label] for every label 0..top: present, with at least minSize
// elements; never the background.
__global__ void __launch_bounds__(kThreads)
    keepAtLeastKernel(const Word* __restrict__ counts, Word top, Word minSize, unsigned char* kept) {
    const Word stride = Word(gridDim.x) * blockDim.x;
    for (Word label = Word(blockIdx.x) * blockDim.x + threadIdx.x; label <= top; label += stride)
        kept[label] = label != 0 && counts[label] != 0 && counts[label] >= minSize;
}

// The ranking by size: for label i + 1, key count - counts[label] (the most
// elements first in ascending order) and the label as the value.
__global__ void __launch_bounds__(kThreads)
    sizeKeysKernel(const Word* __restrict__ counts, Word top, Word count, Word* keys, Word* values) {
    const Word stride = Word(gridDim.x) * blockDim.x;
    for (Word i = Word(blockIdx.x) * blockDim.x + threadIdx.x; i < top; i += stride) {
        keys[i] = count - counts[i + 1];
        values[i] = i + 1;
    }
}

// kept[label] for the first `take` labels of the ranking that are present
// (key below count); kept starts at 0.
__global__ void __launch_bounds__(kThreads)
    keepRankedKernel(const Word* __restrict__ keys, const Word* __restrict__ values, Word take, Word count,
                     unsigned char* kept) {
    const Word stride = Word(gridDim.x) * blockDim.x;
    for (Word j = Word(blockIdx.x) * blockDim.x + threadIdx.x; j < take; j += stride) {
        if (keys[j] < count) kept[values[j]] = 1;
    }
}

// ---- numbering ---------------------------------------------------------------------------

// The raster order of the kept labels: for label i + 1, key its first
// element (count for a label not kept: after every element) and the label.
__global__ void __launch_bounds__(kThreads)
    firstKeysKernel(const Word* __restrict__ firsts, const unsigned char* __restrict__ kept, Word top, Word count,
                    Word* keys, Word* values) {
    const Word stride = Word(gridDim.x) * blockDim.x;
    for (Word i = Word(blockIdx.x) * blockDim.x + threadIdx.x; i < top; i += stride) {
        keys[i] = kept[i + 1] ? firsts[i + 1] : count;
        values[i] = i + 1;
    }
}

// map[label] = its place in the sorted order, 1..m; map starts at 0. The
// last kept entry writes m.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    numberKeptKernel(const Word* __restrict__ keys, const Word* __restrict__ values, Word top, Word count, T* map,
                     Word* keptCount) {
    const Word stride = Word(gridDim.x) * blockDim.x;
    for (Word j = Word(blockIdx.x) * blockDim.x + threadIdx.x; j < top; j += stride) {
        if (keys[j] >= count) continue;
        map[values[j]] = T(j + 1);
        if (j + 1 == top || keys[j + 1] >= count) *keptCount = j + 1;
    }
}

// map[label] = label where kept, else 0; keptCount += the labels kept.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    keepValuesKernel(const unsigned char* __restrict__ kept, Word top, T* map, Word* keptCount) {
    const Word stride = Word(gridDim.x) * blockDim.x;
    // Every lane runs the same number of rounds, so that the ballot sees all.
    const Word rounds = (top + 1 + stride - 1) / stride;
    Word label = Word(blockIdx.x) * blockDim.x + threadIdx.x;
    for (Word round = 0; round < rounds; ++round, label += stride) {
        const bool keep = label <= top && kept[label];
        if (label <= top) map[label] = keep ? T(label) : T(0);
        const unsigned keptLanes = __ballot_sync(kFullWarp, keep);
        if (threadIdx.x % kWarp == 0 && keptLanes != 0) atomicAdd(keptCount, Word(__popc(keptLanes)));
    }
}

// ---- remapLabels -------------------------------------------------------------------------

// out[i] = map[labels[i]]; each element is read and written by one thread,
// so out may be the labels themselves.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    remapLabelsKernel(const T* labels, Word count, Word top, const T* __restrict__ map, T* out) {
    const Word stride = Word(gridDim.x) * blockDim.x;
    for (Word i = Word(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
        const LabelBits<T> label = LabelBits<T>(labels[i]);
        out[i] = label <= top ? map[label] : T(0);
    }
}

// ---- the tables of one call ------------------------------------------------------------------

// The per-label tables of one call on T labels, made by its passes in turn
// on the caller's stream and given back in stream order when it ends.
template <typename T>
class LabelTables {
public:
    LabelTables(const DeviceLabelArray& labels, Word top, cudaStream_t stream, const CudaCheck& check)
        : labels_(static_cast<const T*>(labels.data)), count_(labels.count()), top_(top), stream_(stream),
          check_(check) {
        // Past this, the tables' sizes would not even be numbers of bytes.
        if (top_ >= (Word(1) << 57)) tooLarge("", 0);
    }

    // counts_[label]: its elements; with firsts, firsts_[label]: its first
    // element (count_ for a label that is absent).
    void countLabels(bool firsts) {
        counts_ = table<Word>(entries(), "counts");
        check_(cudaMemsetAsync(counts_.get(), 0, counts_.bytes(), stream_), "cudaMemsetAsync (counts)");
        if (firsts) {
            firsts_ = table<Word>(entries(), "first elements");
            check_(cudaMemsetAsync(firsts_.get(), 0xFF, firsts_.bytes(), stream_), "cudaMemsetAsync (first elements)");
        }
        if (count_ == 0) return;
        const unsigned blocks = blocksFor(count_, kChunk * (kThreads / kWarp));
        if (firsts) {
            countLabelsKernel<T, true><<<blocks, kThreads, 0, stream_>>>(labels_, count_, top_, counts_.get(),
                                                                          firsts_.get());
        } else {
            countLabelsKernel<T, false><<<blocks, kThreads, 0, stream_>>>(labels_, count_, top_, counts_.get(),
                                                                           nullptr);
        }
        check_.launched("countLabels", stream_);
    }

    // kept_: the labels present with at least minSize elements.
    void keepAtLeast(Word minSize) {
        kept_ = table<unsigned char>(entries(), "kept flags");
        keepAtLeastKernel<<<blocksFor(entries(), kThreads), kThreads, 0, stream_>>>(counts_.get(), top_, minSize,
                                                                                    kept_.get());
        check_.launched("keepAtLeast", stream_);
    }

    // kept_: the k labels with the most elements, ties to the lower label.
    void keepLargest(Word k) {
        kept_ = table<unsigned char>(entries(), "kept flags");
        check_(cudaMemsetAsync(kept_.get(), 0, kept_.bytes(), stream_), "cudaMemsetAsync (kept flags)");
        if (top_ == 0 || k == 0) return;
        sizeKeysKernel<<<blocksFor(top_, kThreads), kThreads, 0, stream_>>>(counts_.get(), top_, count_,
                                                                            sortKeys(), sortValues());
        check_.launched("keepLargest (keys)", stream_);
        const auto [keys, values] = sortByKey(bitsFor(count_));
        const Word take = k < top_ ? k : top_;
        keepRankedKernel<<<blocksFor(take, kThreads), kThreads, 0, stream_>>>(keys, values, take, count_,
                                                                              kept_.get());
        check_.launched("keepLargest", stream_);
    }

    // map_: the kept labels numbered 1..m in raster order of their first
    // element (countLabels with firsts), the others 0.
    void numberInRasterOrder() {
        startMap();
        if (top_ == 0) return;
        firstKeysKernel<<<blocksFor(top_, kThreads), kThreads, 0, stream_>>>(firsts_.get(), kept_.get(), top_,
                                                                             count_, sortKeys(), sortValues());
        check_.launched("numberInRasterOrder (keys)", stream_);
        const auto [keys, values] = sortByKey(bitsFor(count_));
        numberKeptKernel<T><<<blocksFor(top_, kThreads), kThreads, 0, stream_>>>(keys, values, top_, count_,
                                                                                 map_.get(), keptCount_.get());
        check_.launched("numberInRasterOrder", stream_);
    }

    // map_: the kept labels keep their values, the others 0.
    void keepValues() {
        startMap();
        keepValuesKernel<T><<<blocksFor(entries(), kThreads), kThreads, 0, stream_>>>(kept_.get(), top_, map_.get(),
                                                                                      keptCount_.get());
        check_.launched("keepValues", stream_);
    }

    // out[i] = map_[labels[i]]; returns the number of labels kept, the one
    // value read back (waited for).
    Word remapLabels(T* out) {
        if (count_ != 0) {
            remapLabelsKernel<T><<<blocksFor(count_, kThreads), kThreads, 0, stream_>>>(labels_, count_, top_,
                                                                                        map_.get(), out);
            check_.launched("remapLabels", stream_);
        }
        Word kept = 0;
        check_(cudaMemcpyAsync(&kept, keptCount_.get(), sizeof(Word), cudaMemcpyDeviceToHost, stream_),
               "cudaMemcpyAsync (labels kept)");
        check_(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
        return kept;
    }

    // The boxes of labels 1..top_ along every axis of `shape`, read back.
    LabelBoxes labelBoxes(const std::vector<std::uint64_t>& shape) {
        LabelBoxes boxes;
        boxes.labels = top_;
        boxes.axes = int(shape.size());
        const std::size_t axes = shape.size();
        StreamBuffer<Word> low = table<Word>(axes * entries(), "box minima");
        StreamBuffer<Word> high = table<Word>(axes * entries(), "box maxima");
        check_(cudaMemsetAsync(low.get(), 0xFF, low.bytes(), stream_), "cudaMemsetAsync (box minima)");
        check_(cudaMemsetAsync(high.get(), 0, high.bytes(), stream_), "cudaMemsetAsync (box maxima)");
        if (count_ != 0) {
            BoxShape boxShape{};
            boxShape.axes = boxes.axes;
            for (std::size_t a = 0; a < axes; ++a) boxShape.extent[a] = shape[a];
            const Word rows = count_ / shape.back();
            const Word pieces = rows * ((shape.back() + kChunk - 1) / kChunk);
            labelBoxesKernel<T><<<blocksFor(pieces, kThreads / kWarp), kThreads, 0, stream_>>>(
                labels_, rows, top_, boxShape, low.get(), high.get());
            check_.launched("labelBoxes", stream_);
        }
        // Labels 1..top of every axis: each axis's entry 0 stays behind.
        boxes.low.resize(axes * top_);
        boxes.high.resize(axes * top_);
        for (std::size_t axis = 0; axis < axes; ++axis) {
            for (auto [from, to] : {std::pair{&low, &boxes.low}, std::pair{&high, &boxes.high}}) {
                check_(cudaMemcpyAsync(to->data() + axis * top_, from->get() + axis * entries() + 1,
                                       top_ * sizeof(Word), cudaMemcpyDeviceToHost, stream_),
                       "cudaMemcpyAsync (boxes)");
            }
        }
        check_(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
        return boxes;
    }

private:
    std::size_t entries() const { return std::size_t(top_) + 1; }

    // The tables grow with the largest label, not with the array: a few
    // labels of large values need as much memory as that many labels.
    [[noreturn]] void tooLarge(const char* what, std::size_t bytes) const {
        check_.fail("labels up to " + std::to_string(top_) + " need tables of one entry per label value 0.." +
                    std::to_string(top_) + ", which do not fit in the device's free memory" +
                    (bytes != 0 ? " (the " + std::string(what) + " alone: " + std::to_string(bytes) + " bytes)" : "") +
                    "; number the labels 1..n without large gaps first (glccl.relabel on a host copy of them), or "
                    "filter them on the host");
    }

    // `count` entries of U, or the tooLarge() error.
    template <typename U>
    StreamBuffer<U> table(std::size_t count, const char* what) {
        StreamBuffer<U> buffer = StreamBuffer<U>::unlessOutOfMemory(count, stream_, check_);
        if (count != 0 && buffer.get() == nullptr)
            tooLarge(what, count <= ~std::size_t(0) / sizeof(U) ? count * sizeof(U) : 0);
        return buffer;
    }

    void startMap() {
        map_ = table<T>(entries(), "new numbering");
        keptCount_ = table<Word>(1, "count");
        check_(cudaMemsetAsync(map_.get(), 0, map_.bytes(), stream_), "cudaMemsetAsync (new numbering)");
        check_(cudaMemsetAsync(keptCount_.get(), 0, sizeof(Word), stream_), "cudaMemsetAsync (count)");
    }

    // The sort's input, top_ entries each: keys and labels.
    Word* sortKeys() { return sortBuffers()[0].get(); }
    Word* sortValues() { return sortBuffers()[2].get(); }
    StreamBuffer<Word>* sortBuffers() {
        if (sort_[0].get() == nullptr) {
            for (auto& buffer : sort_) buffer = table<Word>(top_, "sort");
        }
        return sort_;
    }

    // Sorts the top_ pairs of sortKeys()/sortValues() by key (keys below
    // 2^bits), stably; returns the sorted keys and values.
    std::pair<const Word*, const Word*> sortByKey(int bits) {
        StreamBuffer<Word>* buffers = sortBuffers();
        cub::DoubleBuffer<Word> keys(buffers[0].get(), buffers[1].get());
        cub::DoubleBuffer<Word> values(buffers[2].get(), buffers[3].get());
        std::size_t scratchBytes = 0;
        check_(cub::DeviceRadixSort::SortPairs(nullptr, scratchBytes, keys, values, top_, 0, bits, stream_),
               "cub::DeviceRadixSort::SortPairs (scratch size)");
        if (scratch_.bytes() < scratchBytes) scratch_ = table<unsigned char>(scratchBytes, "sort scratch");
        check_(cub::DeviceRadixSort::SortPairs(scratch_.get(), scratchBytes, keys, values, top_, 0, bits, stream_),
               "cub::DeviceRadixSort::SortPairs");
        check_.launched("sortByKey", stream_);
        return {keys.Current(), values.Current()};
    }

    const T* labels_;
    Word count_;
    Word top_;
    cudaStream_t stream_;
    const CudaCheck& check_;
    StreamBuffer<Word> counts_, firsts_, keptCount_;
    StreamBuffer<unsigned char> kept_, scratch_;
    StreamBuffer<T> map_;
    StreamBuffer<Word> sort_[4];  // keys, keys' other half, labels, labels' other half
};

// ---- the entries' common part ----------------------------------------------------------------

// run(T{}) with T the labels' element type.
template <typename Run>
auto withLabelType(LabelType type, const CudaCheck& check, Run&& run) {
    switch (type) {
        case LabelType::Int32: return run(std::int32_t{});
        case LabelType::UInt32: return run(std::uint32_t{});
        case LabelType::Int64: return run(std::int64_t{});
        case LabelType::UInt64: return run(std::uint64_t{});
    }
    check.fail("labels of an unknown LabelType (" + std::to_string(int(type)) + ")");
}

std::size_t elementBytes(LabelType type) {
    return type == LabelType::Int32 || type == LabelType::UInt32 ? 4 : 8;
}

void checkLabels(const DeviceLabelArray& labels, const CudaCheck& check) {
    withLabelType(labels.type, check, [](auto) { return 0; });
    if (labels.count() == 0) return;
    if (labels.data == nullptr) check.fail("labels.data is null");
    if (reinterpret_cast<std::uintptr_t>(labels.data) % elementBytes(labels.type) != 0)
        check.fail(std::string("labels.data is not aligned to its ") + labelTypeName(labels.type) + " elements");
}

void checkRange(const LabelRange& range, const CudaCheck& check) {
    if (range.smallest < 0)
        check.fail("labels must be 0 (background) or positive; the smallest is " + std::to_string(range.smallest));
}

// out: the labels' count of their type, the labels themselves or apart from them.
void checkOut(const DeviceLabelArray& labels, const void* out, const CudaCheck& check) {
    if (labels.count() == 0) return;
    if (out == nullptr) check.fail("out is null");
    if (reinterpret_cast<std::uintptr_t>(out) % elementBytes(labels.type) != 0)
        check.fail(std::string("out is not aligned to ") + labelTypeName(labels.type) + " elements");
    const auto from = reinterpret_cast<std::uintptr_t>(labels.data);
    const auto to = reinterpret_cast<std::uintptr_t>(out);
    const std::uintptr_t bytes = labels.count() * elementBytes(labels.type);
    if (to != from && to < from + bytes && from < to + bytes) check.fail("out overlaps the labels without being them");
}

// The passes of relabel, removeSmall and keepLargest after the counts:
// `choose` fills the kept flags, then the kept labels are numbered and
// every element remapped.
template <typename Choose>
std::uint64_t filterLabels(const char* entry, const DeviceLabelArray& labels, const LabelRange& range, bool renumber,
                           void* out, cudaStream_t stream, Choose&& choose) {
    const CudaCheck check(entry);
    checkLabels(labels, check);
    checkRange(range, check);
    checkOut(labels, out, check);
    return withLabelType(labels.type, check, [&](auto zero) -> std::uint64_t {
        using T = decltype(zero);
        LabelTables<T> tables(labels, range.largest, stream, check);
        tables.countLabels(renumber);
        choose(tables);
        if (renumber) {
            tables.numberInRasterOrder();
        } else {
            tables.keepValues();
        }
        return tables.remapLabels(static_cast<T*>(out));
    });
}

}  // namespace

const char* labelTypeName(LabelType type) {
    switch (type) {
        case LabelType::Int32: return "int32";
        case LabelType::UInt32: return "uint32";
        case LabelType::Int64: return "int64";
        case LabelType::UInt64: return "uint64";
    }
    return "unknown";
}

std::uint64_t DeviceLabelArray::count() const {
    std::uint64_t product = 1;
    for (const std::uint64_t side : shape) product *= side;
    return product;
}

LabelRange labelRange(const DeviceLabelArray& labels, CUstream_st* stream) {
    const CudaCheck check("glccl::cuda::labelRange");
    checkLabels(labels, check);
    const Word count = labels.count();
    if (count == 0) return {};
    StreamBuffer<RangeWords> range = StreamBuffer<RangeWords>::unlessOutOfMemory(1, stream, check);
    if (range.get() == nullptr) check.fail("no device memory left for the 16 bytes of the result");
    check(cudaMemsetAsync(range.get(), 0, sizeof(RangeWords), stream), "cudaMemsetAsync (range)");
    withLabelType(labels.type, check, [&](auto zero) {
        using T = decltype(zero);
        labelRangeKernel<T><<<blocksFor(count, kThreads), kThreads, 0, stream>>>(static_cast<const T*>(labels.data),
                                                                                 count, range.get());
        return 0;
    });
    check.launched("labelRange", stream);
    RangeWords words{};
    check(cudaMemcpyAsync(&words, range.get(), sizeof(RangeWords), cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (range)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    return {words.largest, std::int64_t(words.smallest)};
}

std::uint64_t relabel(const DeviceLabelArray& labels, const LabelRange& range, void* out, CUstream_st* stream) {
    return filterLabels("glccl::cuda::relabel", labels, range, true, out, stream,
                        [](auto& tables) { tables.keepAtLeast(1); });
}

std::uint64_t removeSmall(const DeviceLabelArray& labels, const LabelRange& range, std::uint64_t minSize,
                          bool renumber, void* out, CUstream_st* stream) {
    return filterLabels("glccl::cuda::removeSmall", labels, range, renumber, out, stream,
                        [minSize](auto& tables) { tables.keepAtLeast(minSize); });
}

std::uint64_t keepLargest(const DeviceLabelArray& labels, const LabelRange& range, std::uint64_t k, bool renumber,
                          void* out, CUstream_st* stream) {
    return filterLabels("glccl::cuda::keepLargest", labels, range, renumber, out, stream,
                        [k](auto& tables) { tables.keepLargest(k); });
}

LabelBoxes findObjects(const DeviceLabelArray& labels, const LabelRange& range, std::uint64_t maxLabel,
                       CUstream_st* stream) {
    const CudaCheck check("glccl::cuda::findObjects");
    checkLabels(labels, check);
    checkRange(range, check);
    if (labels.shape.empty() || labels.shape.size() > std::size_t(kMaxBoxAxes))
        check.fail("labels must have 1 to " + std::to_string(kMaxBoxAxes) + " axes, not " +
                   std::to_string(labels.shape.size()));
    const Word top = maxLabel != 0 ? maxLabel : range.largest;
    if (top == 0) {
        LabelBoxes none;
        none.axes = int(labels.shape.size());
        return none;
    }
    return withLabelType(labels.type, check, [&](auto zero) {
        using T = decltype(zero);
        return LabelTables<T>(labels, top, stream, check).labelBoxes(labels.shape);
    });
}

}  // namespace glccl::cuda

// glccl::cuda::numberRegions and measureDeviceLabels: the regions of labels
// made anywhere (any integer type, gaps, ids past 2^32, regions that are not
// connected), numbered 1..n in ascending order of label and counted and
// boxed on the GPU, so that the term gatherer (measure_terms.hpp), which
// reads labels 1..n with their table, measures them where they are.
//
// Passes, each queued on the caller's stream:
//   label_range    the largest label, and the smallest where one is negative
//   numbering      either a presence table over the values 0..largest
//                  (label_present, a prefix sum, label_ids), or, for labels
//                  too large for one, a radix sort of the labels and their
//                  unique values
//   label_number   each thread takes kSegment elements of a row: writes each
//                  element's number (the table's entry, or a binary search of
//                  the sorted values) and adds each run of one number to its
//                  region's count and box with integer atomics
// Every result is a count, a minimum or a maximum: the same whatever order
// the threads run in.

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "cuda_check.hpp"
#include "device_memory.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/measure.hpp"
#include "glccl/region_properties.hpp"
#include "measure_terms.hpp"

namespace glccl::cuda {
namespace {

using Word = unsigned long long;
constexpr int kThreads = 256;
constexpr int kSegment = 32;
// The presence table is used while the largest label is below this many
// entries per element (plus a floor for small images): its two passes over
// 0..largest then cost no more than a pass over the labels.
constexpr Word kTablePerElement = 2;
constexpr Word kTableFloor = Word(1) << 20;
constexpr Word kMaxCubItems = 0x7FFFFFFFull;  // CUB's item counts are ints here

#define FOR_EACH_ITEM(i, total) \
    for (Word i = Word(blockIdx.x) * blockDim.x + threadIdx.x; i < (total); i += Word(gridDim.x) * blockDim.x)

unsigned blocksFor(Word items) {
    const Word blocks = (items + kThreads - 1) / kThreads;
    return unsigned(blocks < (Word(1) << 16) ? (blocks == 0 ? 1 : blocks) : (Word(1) << 16));
}

struct Larger {
    __device__ Word operator()(Word a, Word b) const { return a > b ? a : b; }
};

// --- label_range --------------------------------------------------------------------------------------------------

struct Range {
    Word largest;
    long long smallest;  // 0 unless a label is negative
};

template <class T>
__global__ void __launch_bounds__(kThreads) rangeKernel(const T* labels, Word count, Range* range) {
    Word largest = 0;
    FOR_EACH_ITEM(i, count) {
        const T v = labels[i];
        if constexpr (std::is_signed_v<T>) {
            if (v < 0) {
                atomicMin(&range->smallest, static_cast<long long>(v));  // rare: refused afterwards
                continue;
            }
        }
        largest = Word(v) > largest ? Word(v) : largest;
    }
    using Reduce = cub::BlockReduce<Word, kThreads>;
    __shared__ typename Reduce::TempStorage storage;
    const Word block = Reduce(storage).Reduce(largest, Larger());
    if (threadIdx.x == 0 && block != 0) atomicMax(&range->largest, block);
}

// --- numbering by a presence table --------------------------------------------------------------------------------

template <class T>
__global__ void __launch_bounds__(kThreads) presentKernel(const T* labels, Word count, bool background,
                                                          unsigned* present) {
    FOR_EACH_ITEM(i, count) {
        const Word v = Word(labels[i]);
        if (v != 0 || background) present[v] = 1u;  // every writer writes 1
    }
}

// rank[v]: the inclusive prefix sum of present, the number of value v where present.
__global__ void __launch_bounds__(kThreads) idsKernel(const unsigned* present, const unsigned* rank, Word values,
                                                      Word* ids) {
    FOR_EACH_ITEM(v, values) {
        if (present[v]) ids[rank[v] - 1] = v;
    }
}

// --- label_number -------------------------------------------------------------------------------------------------

// The number of a label by the presence table.
struct ByTable {
    const unsigned* rank;
    bool background;
    __device__ __forceinline__ std::uint32_t operator()(Word v) const {
        return v != 0 || background ? rank[v] : 0u;
    }
};

// The number of a label by binary search of the ascending unique labels.
struct BySearch {
    const Word* ids;
    Word n;
    bool background;
    __device__ __forceinline__ std::uint32_t operator()(Word v) const {
        if (v == 0 && !background) return 0u;
        Word low = 0, high = n;  // the first id >= v: present, so equal
        while (low < high) {
            const Word mid = (low + high) / 2;
            if (ids[mid] < v) low = mid + 1;
            else high = mid;
        }
        return std::uint32_t(low + 1);
    }
};

// Each region's count and box: area[r], box[r * 6 + 0..5] = least x, y, z,
// greatest x, y, z.
struct TableOut {
    Word* area;
    unsigned* box;
};

__device__ __forceinline__ void addRun(const TableOut& t, std::uint32_t number, int x0, int x1, int y, int z) {
    if (number == 0) return;
    const Word r = Word(number - 1);
    atomicAdd(t.area + r, Word(x1 - x0));
    unsigned* box = t.box + r * 6;
    atomicMin(box + 0, unsigned(x0));
    atomicMin(box + 1, unsigned(y));
    atomicMin(box + 2, unsigned(z));
    atomicMax(box + 3, unsigned(x1 - 1));
    atomicMax(box + 4, unsigned(y));
    atomicMax(box + 5, unsigned(z));
}

template <class T, class Number>
__global__ void __launch_bounds__(kThreads) numberKernel(const T* labels, int width, int height, Word segmentsPerRow,
                                                         Word segments, Number number, std::uint32_t* dense,
                                                         TableOut table) {
    FOR_EACH_ITEM(i, segments) {
        const Word row = i / segmentsPerRow;
        const int x0 = int(i % segmentsPerRow) * kSegment;
        const int x1 = min(x0 + kSegment, width);
        const int y = int(row % Word(height)), z = int(row / Word(height));
        const Word rowStart = row * Word(width);
        std::uint32_t run = 0;
        int runStart = x0;
        Word last = 0;
        for (int x = x0; x < x1; ++x) {
            const Word v = Word(labels[rowStart + Word(x)]);
            // A run of one label is numbered once and added once.
            const std::uint32_t n = x != x0 && v == last ? run : number(v);
            dense[rowStart + Word(x)] = n;
            if (x == x0) {
                run = n;
            } else if (n != run) {
                addRun(table, run, runStart, x, y, z);
                run = n;
                runStart = x;
            }
            last = v;
        }
        addRun(table, run, runStart, x1, y, z);
    }
}

__global__ void __launch_bounds__(kThreads) startTableKernel(Word regions, TableOut table) {
    FOR_EACH_ITEM(i, regions * 7) {
        if (i < regions) table.area[i] = 0;
        else table.box[i - regions] = (i - regions) % 6 < 3 ? ~0u : 0u;
    }
}

template <class T>
__global__ void __launch_bounds__(kThreads) keysKernel(const T* labels, Word count, Word* keys) {
    FOR_EACH_ITEM(i, count) keys[i] = Word(labels[i]);
}

#undef FOR_EACH_ITEM

int bitLength(Word v) {
    int bits = 0;
    for (; v; v >>= 1) ++bits;
    return bits;
}

// The work of one numberRegions call on labels of type T.
template <class T>
class Numbering {
public:
    Numbering(const CudaCheck& check, const DeviceLabelSamples& labels, std::uint32_t* dense, bool background,
              cudaStream_t stream)
        : check_(check), labels_(static_cast<const T*>(labels.data)), shape_(labels.shape), dense_(dense),
          background_(background), stream_(stream), count_(labels.shape.count()) {}

    DeviceLabelTable run() {
        DeviceLabelTable out;
        if (count_ == 0) return out;
        const Range range = rangeOf();
        if (range.smallest < 0)
            check_.fail("labels must be 0 (background) or positive; the smallest is " +
                        std::to_string(range.smallest));
        // (largest + 1 entries: compared as largest, which may be 2^64 - 1.)
        if (range.largest < std::min<Word>(kMaxCubItems, std::max<Word>(kTableFloor, kTablePerElement * count_)))
            byTable(range.largest + 1, out);
        else
            bySort(range.largest, out);
        return out;
    }

private:
    template <class U>
    StreamBuffer<U> buffer(std::size_t count, const char* what) {
        StreamBuffer<U> b = StreamBuffer<U>::unlessOutOfMemory(count, stream_, check_);
        if (count != 0 && b.get() == nullptr)
            check_.fail(std::string("the ") + what + " (" + std::to_string(count * sizeof(U)) +
                        " bytes) do not fit in device memory");
        return b;
    }

    StreamBuffer<unsigned char> scratchOf(std::size_t bytes, const char* what) {
        return buffer<unsigned char>(std::max<std::size_t>(bytes, 1), what);
    }

    Range rangeOf() {
        StreamBuffer<Range> range = buffer<Range>(1, "label range");
        check_(cudaMemsetAsync(range.get(), 0, sizeof(Range), stream_), "cudaMemsetAsync (label range)");
        rangeKernel<T><<<blocksFor(count_), kThreads, 0, stream_>>>(labels_, count_, range.get());
        check_.launched("label_range", stream_);
        Range host{};
        check_(cudaMemcpyAsync(&host, range.get(), sizeof(Range), cudaMemcpyDeviceToHost, stream_),
               "cudaMemcpyAsync (label range)");
        check_(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (label range)");
        return host;
    }

    void byTable(Word values, DeviceLabelTable& out) {
        StreamBuffer<unsigned> present = buffer<unsigned>(values, "presence table");
        StreamBuffer<unsigned> rank = buffer<unsigned>(values, "label numbers");
        check_(cudaMemsetAsync(present.get(), 0, values * sizeof(unsigned), stream_), "cudaMemsetAsync (presence)");
        presentKernel<T><<<blocksFor(count_), kThreads, 0, stream_>>>(labels_, count_, background_, present.get());
        check_.launched("label_present", stream_);
        std::size_t scratchBytes = 0;
        check_(cub::DeviceScan::InclusiveSum(nullptr, scratchBytes, present.get(), rank.get(), int(values), stream_),
               "cub::DeviceScan::InclusiveSum (size)");
        StreamBuffer<unsigned char> scratch = scratchOf(scratchBytes, "scan scratch");
        check_(cub::DeviceScan::InclusiveSum(scratch.get(), scratchBytes, present.get(), rank.get(), int(values),
                                             stream_),
               "cub::DeviceScan::InclusiveSum");
        unsigned n = 0;
        check_(cudaMemcpyAsync(&n, rank.get() + (values - 1), sizeof(unsigned), cudaMemcpyDeviceToHost, stream_),
               "cudaMemcpyAsync (region count)");
        check_(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (region count)");
        StreamBuffer<Word> ids = buffer<Word>(n, "region labels");
        if (n != 0) {
            idsKernel<<<blocksFor(values), kThreads, 0, stream_>>>(present.get(), rank.get(), values, ids.get());
            check_.launched("label_ids", stream_);
        }
        finish(ByTable{rank.get(), background_}, n, ids.get(), out);
    }

    void bySort(Word largest, DeviceLabelTable& out) {
        if (count_ > kMaxCubItems)
            check_.fail("labels up to " + std::to_string(largest) + " are sorted, and a sort takes fewer than 2^31 "
                        "elements, not " + std::to_string(count_));
        StreamBuffer<Word> keys = buffer<Word>(count_, "sort keys");
        StreamBuffer<Word> sorted = buffer<Word>(count_, "sorted keys");
        keysKernel<T><<<blocksFor(count_), kThreads, 0, stream_>>>(labels_, count_, keys.get());
        check_.launched("label_keys", stream_);
        const int items = int(count_), bits = std::max(1, bitLength(largest));
        cub::DoubleBuffer<Word> both(keys.get(), sorted.get());
        std::size_t sortBytes = 0, uniqueBytes = 0;
        check_(cub::DeviceRadixSort::SortKeys(nullptr, sortBytes, both, items, 0, bits, stream_),
               "cub::DeviceRadixSort::SortKeys (size)");
        StreamBuffer<int> selected = buffer<int>(1, "unique count");
        // The unique values go into the buffer the sort leaves free.
        Word* sortedKeys = nullptr;
        {
            StreamBuffer<unsigned char> scratch = scratchOf(sortBytes, "sort scratch");
            check_(cub::DeviceRadixSort::SortKeys(scratch.get(), sortBytes, both, items, 0, bits, stream_),
                   "cub::DeviceRadixSort::SortKeys");
            sortedKeys = both.Current();
        }
        Word* unique = sortedKeys == keys.get() ? sorted.get() : keys.get();
        check_(cub::DeviceSelect::Unique(nullptr, uniqueBytes, sortedKeys, unique, selected.get(), items, stream_),
               "cub::DeviceSelect::Unique (size)");
        {
            StreamBuffer<unsigned char> scratch = scratchOf(uniqueBytes, "unique scratch");
            check_(cub::DeviceSelect::Unique(scratch.get(), uniqueBytes, sortedKeys, unique, selected.get(), items,
                                             stream_),
                   "cub::DeviceSelect::Unique");
        }
        int distinct = 0;
        Word first = 0;
        check_(cudaMemcpyAsync(&distinct, selected.get(), sizeof(int), cudaMemcpyDeviceToHost, stream_),
               "cudaMemcpyAsync (unique count)");
        check_(cudaMemcpyAsync(&first, unique, sizeof(Word), cudaMemcpyDeviceToHost, stream_),
               "cudaMemcpyAsync (least label)");
        check_(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (unique count)");
        // 0 is no region unless the background is one.
        const Word skip = first == 0 && !background_ ? 1 : 0;
        const Word n = Word(distinct) - skip;
        if (n > 0xFFFFFFFFull) check_.fail("at most 2^32 - 1 regions are numbered, not " + std::to_string(n));
        finish(BySearch{unique + skip, n, background_}, n, unique + skip, out);
    }

    // Numbers every element, counts and boxes the regions, and reads ids and table back.
    template <class Number>
    void finish(const Number& number, Word n, const Word* ids, DeviceLabelTable& out) {
        StreamBuffer<Word> area = buffer<Word>(n, "region counts");
        StreamBuffer<unsigned> box = buffer<unsigned>(n * 6, "region boxes");
        const TableOut table{area.get(), box.get()};
        if (n != 0) {
            startTableKernel<<<blocksFor(n * 7), kThreads, 0, stream_>>>(n, table);
            check_.launched("label_table_start", stream_);
        }
        const int width = int(shape_.width), height = int(shape_.height);
        const Word perRow = (Word(width) + kSegment - 1) / kSegment;
        const Word segments = perRow * Word(height) * Word(shape_.depth);
        numberKernel<T, Number><<<blocksFor(segments), kThreads, 0, stream_>>>(labels_, width, height, perRow,
                                                                                segments, number, dense_, table);
        check_.launched("label_number", stream_);
        out.ids.resize(n);
        std::vector<Word> areas(n);
        std::vector<unsigned> boxes(n * 6);
        if (n != 0) {
            check_(cudaMemcpyAsync(out.ids.data(), ids, n * sizeof(Word), cudaMemcpyDeviceToHost, stream_),
                   "cudaMemcpyAsync (region labels)");
            check_(cudaMemcpyAsync(areas.data(), area.get(), n * sizeof(Word), cudaMemcpyDeviceToHost, stream_),
                   "cudaMemcpyAsync (region counts)");
            check_(cudaMemcpyAsync(boxes.data(), box.get(), n * 6 * sizeof(unsigned), cudaMemcpyDeviceToHost,
                                   stream_),
                   "cudaMemcpyAsync (region boxes)");
        }
        check_(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (region table)");
        out.table.resize(n);
        for (Word r = 0; r < n; ++r) {
            Component& c = out.table[r];
            const unsigned* b = boxes.data() + r * 6;
            c.left = b[0];
            c.top = b[1];
            c.front = b[2];
            c.width = b[3] - b[0] + 1;
            c.height = b[4] - b[1] + 1;
            c.depth = b[5] - b[2] + 1;
            c.area = areas[r];
        }
    }

    const CudaCheck& check_;
    const T* labels_;
    Shape shape_;
    std::uint32_t* dense_;
    bool background_;
    cudaStream_t stream_;
    Word count_;
};

DeviceLabelTable numberWith(const CudaCheck& check, const DeviceLabelSamples& labels, std::uint32_t* dense,
                            bool background, cudaStream_t stream) {
    const Shape& s = labels.shape;
    if (s.dimensions != 2 && s.dimensions != 3) check.fail("labels are 2-D or 3-D");
    for (int a = 0; a < s.dimensions; ++a)
        if (s.extent(a) < 0 || s.extent(a) > 0x7FFFFFFF)
            check.fail("every side must be 0 to 2^31 - 1 elements, not " + std::to_string(s.extent(a)));
    if (s.count() != 0 && (labels.data == nullptr || dense == nullptr)) check.fail("the labels are null");
    switch (labels.bytes) {
        case 1:
            return labels.isSigned ? Numbering<std::int8_t>(check, labels, dense, background, stream).run()
                                   : Numbering<std::uint8_t>(check, labels, dense, background, stream).run();
        case 2:
            return labels.isSigned ? Numbering<std::int16_t>(check, labels, dense, background, stream).run()
                                   : Numbering<std::uint16_t>(check, labels, dense, background, stream).run();
        case 4:
            return labels.isSigned ? Numbering<std::int32_t>(check, labels, dense, background, stream).run()
                                   : Numbering<std::uint32_t>(check, labels, dense, background, stream).run();
        case 8:
            return labels.isSigned ? Numbering<std::int64_t>(check, labels, dense, background, stream).run()
                                   : Numbering<std::uint64_t>(check, labels, dense, background, stream).run();
        default: check.fail("labels of " + std::to_string(labels.bytes) + " bytes are not read");
    }
}

}  // namespace

DeviceLabelTable numberRegions(const DeviceLabelSamples& labels, std::uint32_t* denseLabels, bool backgroundIsRegion,
                               CUstream_st* stream) {
    const CudaCheck check("glccl::cuda::numberRegions");
    return numberWith(check, labels, denseLabels, backgroundIsRegion, stream);
}

RegionTotals measureDeviceLabels(const DeviceLabelSamples& labels, const TermRequest& request,
                                 const IntensitySamples* deviceIntensity, bool backgroundIsRegion,
                                 CUstream_st* stream) {
    const CudaCheck check("glccl::cuda::measureDeviceLabels");
    if (labels.shape.count() == 0) {
        // No element, no region: the columns' layout only.
        RegionTotals totals = tableTotals(labels.shape, {}, request);
        totals.gatheredBy = Backend::Cuda;
        zeroTerms(totals);
        return totals;
    }
    StreamBuffer<std::uint32_t> dense =
        StreamBuffer<std::uint32_t>::unlessOutOfMemory(labels.shape.count(), stream, check);
    if (dense.get() == nullptr) check.fail("the regions' numbers do not fit in device memory");
    const DeviceLabelTable regions = numberWith(check, labels, dense.get(), backgroundIsRegion, stream);
    RegionTotals totals =
        measure::gatherTerms(check, dense.get(), labels.shape, regions.table, request, deviceIntensity, stream, true);
    totals.labels = regions.ids;
    return totals;
}

}  // namespace glccl::cuda

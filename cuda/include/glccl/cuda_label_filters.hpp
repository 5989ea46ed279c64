#pragma once
// What people do with labels next, on label arrays in CUDA device memory:
// renumber, drop small components, keep the largest, find each one's box.
// The device side of the Python helpers glccl.relabel, remove_small,
// keep_largest and find_objects, with their results exactly:
//   relabel      the labels renumbered 1..m in raster order of each label's
//                first element (scikit-image's, scipy's and glccl's order)
//   removeSmall  components of fewer than minSize elements set to 0
//   keepLargest  the k components with the most elements kept (ties: the
//                lower label first), the others set to 0
//   findObjects  each label's first and last index along every axis
// 0 is the background; every other value is a label, with or without gaps,
// in any order.
//
// Labels: a C-ordered array of int32, uint32, int64 or uint64 on the current
// CUDA device. Each entry keeps tables indexed by label (0..the largest), so
// its device memory grows with the largest label, not with the array:
// about 60 bytes per label value for relabel, removeSmall and keepLargest,
// 16 per label value and axis for findObjects, on top of the output array.
//
// The work is queued on `stream` (null: the legacy default stream), in
// stream-ordered device memory (cudaMallocAsync where the device has memory
// pools), and the entries return when it is done: each reads back what it
// returns (a count, or the boxes) and waits for the stream. labelRange()
// reads back the largest and the smallest label, which the others need to
// size their tables; nothing else of the labels leaves the device.
//
// Errors: glccl::Error, the message starting with the entry
// ("glccl::cuda::removeSmall(): ...") and naming the CUDA error; the
// largest label is named when its tables do not fit in device memory.
// Thread-safety: the entries keep no state; calls on different streams may
// run from different threads. Built only with CUDA (GLCCL_HAVE_CUDA); this
// header needs no CUDA headers.

#include <cstddef>
#include <cstdint>
#include <vector>

// cudaStream_t is a CUstream_st*; declared here so that callers need no CUDA
// headers to pass one.
struct CUstream_st;

namespace glccl::cuda {

// The element types taken, as numpy names them.
enum class LabelType { Int32, UInt32, Int64, UInt64 };

// "int32", "uint32", "int64", "uint64".
const char* labelTypeName(LabelType type);

// A C-ordered label array in device memory, aligned to its type: element
// (i0, i1, ..., i{n-1}) at index ((i0 * shape[1] + i1) * shape[2] + ...).
// A scalar has an empty shape (one element); a shape with a 0 has none.
struct DeviceLabelArray {
    const void* data = nullptr;
    LabelType type = LabelType::UInt32;
    std::vector<std::uint64_t> shape;

    std::uint64_t count() const;  // the product of the shape
};

// The labels' extremes: largest is the largest value (0 for an empty or
// all-background array), smallest the smallest negative one (0 when none
// is negative: the labels are valid).
struct LabelRange {
    std::uint64_t largest = 0;
    std::int64_t smallest = 0;
};

// One reduction over the labels and a read-back of the two values. The
// entries below take its result, so that a caller who refuses negative
// labels in its own words (Python's ValueError) reduces only once.
LabelRange labelRange(const DeviceLabelArray& labels, CUstream_st* stream = nullptr);

// The labels renumbered 1..m in raster order of each label's first element,
// 0 staying 0, into `out` (device memory of the labels' type and count, not
// overlapping them). Returns m, the number of labels present. `range` must
// be labelRange(labels); throws when range.smallest < 0 (negative labels).
std::uint64_t relabel(const DeviceLabelArray& labels, const LabelRange& range, void* out,
                      CUstream_st* stream = nullptr);

// The labels with every label of fewer than minSize elements set to 0,
// into `out` as relabel's: renumbered 1..m in raster order (renumber) or
// keeping their values. Returns m, the labels left. minSize 0 and 1 keep
// every label.
std::uint64_t removeSmall(const DeviceLabelArray& labels, const LabelRange& range, std::uint64_t minSize,
                          bool renumber, void* out, CUstream_st* stream = nullptr);

// The labels of the k labels with the most elements (equal counts: the
// lower label first), the others set to 0, into `out` as relabel's. Returns
// m = min(k, the labels present).
std::uint64_t keepLargest(const DeviceLabelArray& labels, const LabelRange& range, std::uint64_t k,
                          bool renumber, void* out, CUstream_st* stream = nullptr);

// Each label's bounding box: for label l in 1..labels and axis a in
// 0..axes - 1, low[a * labels + l - 1] and high[...] are the first and last
// index of l along axis a, and low > high for a label that is absent.
struct LabelBoxes {
    std::uint64_t labels = 0;
    int axes = 0;
    std::vector<std::uint64_t> low, high;
};

// The boxes of labels 1..maxLabel (values above it are ignored), or of
// every label up to range.largest when maxLabel is 0; only this table comes
// back to the host. The labels need at least one axis and at most
// kMaxBoxAxes.
constexpr int kMaxBoxAxes = 32;
LabelBoxes findObjects(const DeviceLabelArray& labels, const LabelRange& range, std::uint64_t maxLabel = 0,
                       CUstream_st* stream = nullptr);

}  // namespace glccl::cuda

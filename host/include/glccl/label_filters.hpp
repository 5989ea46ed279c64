#pragma once
// What people do with labels next, on label arrays in host memory: renumber,
// drop small components, keep the largest, find each label's box. The host
// twin of glccl/cuda_label_filters.hpp (device arrays), with its results
// exactly, and the passes behind the Python helpers glccl.relabel,
// remove_small, keep_largest, find_objects and cc3d.statistics on numpy
// arrays and behind `glccl label --min-size/--keep-largest`:
//   relabel       the labels renumbered 1..m in raster order of each label's
//                 first element (scikit-image's, scipy's and glccl's order)
//   removeSmall   labels of fewer than minSize elements set to 0
//   keepLargest   the k labels with the most elements kept (ties: the lower
//                 label first), the others set to 0
//   filterLabels  both rules at once (KeptLabels)
//   labelExtents  each label's count and first and last index along every
//                 axis (find_objects' boxes)
//   labelRange    the largest and the smallest label
// 0 is the background; every other value is a label, with or without gaps,
// in any order. Negative labels are refused (NegativeLabels); labelRange
// reports the smallest.
//
// Labels: a LabelArrayView, of any integer type of 8 to 64 bits, signed or
// unsigned, in native byte order, of any number of dimensions (0-d is one
// element) and any strides in bytes (negative, unaligned, an axis of stride
// 0 read again and again).
//
// Cost: each entry is one pass over the elements (labelExtents, labelRange)
// or two (the filters: count, then rewrite), on the calling thread, plus
// work per label present (keepLargest: a selection, linear in the labels).
// The per-label records (8 bytes a label for the filters, 8 * (1 + 2 *
// axes) for labelExtents) are a table indexed by label of at most about 16
// bytes an element (the filters': labels below twice the element count),
// and never fewer than 2^16 labels; a hash map beyond: a sparse label such
// as 2^40 costs one entry, not a table of 2^40.
//
// Cancellation: `stop`, where given, is asked before each piece of
// kPieceElements elements of a pass (a piece of a row); once it returns true
// the entry throws glccl::Cancelled, `out` left partly written.
//
// Errors: glccl::Error whose message starts with the entry
// ("glccl::removeSmall(): ..."): a view whose strides do not match its
// shape, `out` of another shape or type than the labels; NegativeLabels for
// a negative label, naming the smallest; glccl::Cancelled; std::bad_alloc
// where the records do not fit in memory.
//
// Thread-safety: the entries keep no state; calls may run at once on
// different threads, on labels nobody writes meanwhile.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "glccl/error.hpp"

namespace glccl {

// The element types taken.
enum class LabelElement { Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64 };

// The element type of T: labelElementOf<std::uint32_t>() is UInt32.
template <typename T>
constexpr LabelElement labelElementOf();

// Bytes of one element: 1, 2, 4 or 8.
std::size_t bytesOf(LabelElement element);

// Labels the caller owns and keeps alive for the call, read (labels) or
// written (out) where they are: element (i0, ..., i{n-1}) at
// data + i0 * strides[0] + ... + i{n-1} * strides[n-1]. A scalar has an empty
// shape (one element); a shape with a 0 has none (data may then be null).
struct LabelArrayView {
    void* data = nullptr;
    LabelElement element = LabelElement::UInt32;
    std::vector<std::uint64_t> shape;
    std::vector<std::ptrdiff_t> strides;  // bytes, one per axis, any sign

    // C order, tightly packed: the last axis fastest.
    static LabelArrayView cOrdered(void* data, LabelElement element, std::vector<std::uint64_t> shape);
    template <typename T>
    static LabelArrayView cOrdered(T* data, std::vector<std::uint64_t> shape) {
        return cOrdered(static_cast<void*>(data), labelElementOf<T>(), std::move(shape));
    }

    std::uint64_t count() const;  // the product of the shape
};

// Asked between the pieces of a pass: true stops the entry (glccl::Cancelled).
using StopRequested = std::function<bool()>;

// The elements a pass walks between two questions to `stop`.
constexpr std::uint64_t kPieceElements = std::uint64_t(1) << 16;

// A negative label met: the labels' smallest is named.
class NegativeLabels : public Error {
public:
    // "ENTRY: labels must be 0 (background) or positive; the smallest is SMALLEST"
    NegativeLabels(const std::string& entry, std::int64_t smallest);
    std::int64_t smallest() const { return smallest_; }

private:
    std::int64_t smallest_;
};

// Which labels filterLabels keeps: those of at least minSize elements, and
// of them the `largest` with the most elements (equal counts: the lower
// label first); the kept labels renumbered 1..m in raster order of their
// first element (renumber), or keeping their values. The default keeps
// every label: relabel.
struct KeptLabels {
    std::uint64_t minSize = 0;
    std::uint64_t largest = std::numeric_limits<std::uint64_t>::max();
    bool renumber = true;
};

// The labels with the labels `kept` leaves out set to 0 and the others
// renumbered or kept (KeptLabels), into `out`: of the labels' shape and
// element type, any strides; either not overlapping the labels or the very
// same elements (the labels filtered in place). Returns m, the labels kept.
std::uint64_t filterLabels(const LabelArrayView& labels, const KeptLabels& kept, const LabelArrayView& out,
                           const StopRequested& stop = {});

// filterLabels keeping every label, renumbered: returns m, the labels present.
std::uint64_t relabel(const LabelArrayView& labels, const LabelArrayView& out, const StopRequested& stop = {});

// filterLabels keeping the labels of at least minSize elements (0 and 1 keep
// every label).
std::uint64_t removeSmall(const LabelArrayView& labels, std::uint64_t minSize, bool renumber,
                          const LabelArrayView& out, const StopRequested& stop = {});

// filterLabels keeping the k labels with the most elements: returns
// min(k, the labels present).
std::uint64_t keepLargest(const LabelArrayView& labels, std::uint64_t k, bool renumber, const LabelArrayView& out,
                          const StopRequested& stop = {});

namespace detail {
class LabelRecords;
}

// Per label measured: its element count and its first and last index along
// each axis of the labels (find_objects' box is low..high inclusive).
class LabelExtents {
public:
    struct Extent {
        std::uint64_t count = 0;             // 0 for a label not measured
        const std::uint64_t* low = nullptr;  // axes() entries, or null for a label not measured
        const std::uint64_t* high = nullptr;
    };

    LabelExtents(LabelExtents&&) noexcept;
    LabelExtents& operator=(LabelExtents&&) noexcept;
    ~LabelExtents();

    std::size_t axes() const { return axes_; }
    // The largest label measured, 0 when none was.
    std::uint64_t largest() const { return largest_; }
    // Every label measured, once each, in no order to rely on.
    const std::vector<std::uint64_t>& labels() const;
    // The label's extent; valid as long as this object.
    Extent of(std::uint64_t label) const;

private:
    friend LabelExtents labelExtents(const LabelArrayView&, std::uint64_t, bool, const StopRequested&);
    LabelExtents(std::size_t axes, std::unique_ptr<detail::LabelRecords> records);

    std::size_t axes_ = 0;
    std::uint64_t largest_ = 0;
    std::unique_ptr<detail::LabelRecords> records_;
};

// The extents of the labels 1..maxLabel (values above are left out), and of
// label 0 too with `background`.
LabelExtents labelExtents(const LabelArrayView& labels, std::uint64_t maxLabel = std::numeric_limits<std::uint64_t>::max(),
                          bool background = false, const StopRequested& stop = {});

// The labels' extremes: largest the largest value (0 for an empty or
// all-background array), smallest the smallest negative one (0 when none is
// negative: the labels are valid). Refuses nothing.
struct LabelRange {
    std::uint64_t largest = 0;
    std::int64_t smallest = 0;
};
LabelRange labelRange(const LabelArrayView& labels, const StopRequested& stop = {});

template <typename T>
constexpr LabelElement labelElementOf() {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                      (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8),
                  "label arrays are of 8-, 16-, 32- or 64-bit integers");
    constexpr bool isSigned = std::is_signed_v<T>;
    switch (sizeof(T)) {
    case 1: return isSigned ? LabelElement::Int8 : LabelElement::UInt8;
    case 2: return isSigned ? LabelElement::Int16 : LabelElement::UInt16;
    case 4: return isSigned ? LabelElement::Int32 : LabelElement::UInt32;
    default: return isSigned ? LabelElement::Int64 : LabelElement::UInt64;
    }
}

}  // namespace glccl

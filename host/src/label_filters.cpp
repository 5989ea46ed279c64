// The passes of glccl/label_filters.hpp, each a pass or two over the labels:
//
//   filterLabels (relabel, removeSmall, keepLargest)
//     countLabels     each label's count, and the labels in the order of
//                     their first element (raster order)
//     numberKept      each label's new value: 1..m in that order for the
//                     labels kept (or their own value without renumbering),
//                     0 for the others
//     rewriteLabels   each element's new value
//   labelExtents
//     measureLabels   each label's count and first and last index along
//                     every axis
//   labelRange
//     rangeOfLabels   the largest and the smallest label
//
// An entry checks its views, picks the element type once (withLabelType)
// and runs its passes; a pass that meets a negative label or is stopped
// throws, and the entry says so in its own name (runEntry).

#include "glccl/label_filters.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "label_records.hpp"
#include "label_walk.hpp"

namespace glccl {

using detail::inMemoryOrder;
using detail::LabelRecords;
using detail::loadLabel;
using detail::RunFinder;
using detail::storeLabel;
using detail::StridedArray;
using detail::stridedOf;
using detail::walkRows;

namespace {

// ---- label arrays ------------------------------------------------------------------------------

// Thrown by a pass that met a negative label; the entry then names the
// smallest (runEntry).
struct NegativeLabel {};

template <typename T>
void checkNotNegative(T label) {
    if constexpr (std::is_signed_v<T>) {
        if (label < 0) throw NegativeLabel{};
    }
}

// call(T{}) with T the labels' element type.
template <typename Call>
auto withLabelType(LabelElement element, Call&& call) {
    switch (element) {
    case LabelElement::Int8: return call(std::int8_t{});
    case LabelElement::UInt8: return call(std::uint8_t{});
    case LabelElement::Int16: return call(std::int16_t{});
    case LabelElement::UInt16: return call(std::uint16_t{});
    case LabelElement::Int32: return call(std::int32_t{});
    case LabelElement::UInt32: return call(std::uint32_t{});
    case LabelElement::Int64: return call(std::int64_t{});
    default: return call(std::uint64_t{});
    }
}

const char* nameOf(LabelElement element) {
    switch (element) {
    case LabelElement::Int8: return "int8";
    case LabelElement::UInt8: return "uint8";
    case LabelElement::Int16: return "int16";
    case LabelElement::UInt16: return "uint16";
    case LabelElement::Int32: return "int32";
    case LabelElement::UInt32: return "uint32";
    case LabelElement::Int64: return "int64";
    default: return "uint64";
    }
}

// "3x4 int32", "0-d uint8".
std::string describe(const LabelArrayView& view) {
    std::string shape;
    for (const std::uint64_t side : view.shape) shape += (shape.empty() ? "" : "x") + std::to_string(side);
    return (shape.empty() ? "0-d" : shape) + " " + nameOf(view.element);
}

void checkView(const char* entry, const char* what, const LabelArrayView& view) {
    if (view.strides.size() != view.shape.size())
        throw Error(std::string(entry) + ": " + what + " have " + std::to_string(view.shape.size()) + " axes but " +
                    std::to_string(view.strides.size()) + " strides");
    if (view.data == nullptr && view.count() != 0)
        throw Error(std::string(entry) + ": " + what + " of " + std::to_string(view.count()) +
                    " elements have no data");
}

void checkOut(const char* entry, const LabelArrayView& labels, const LabelArrayView& out) {
    checkView(entry, "out", out);
    if (out.shape != labels.shape || out.element != labels.element)
        throw Error(std::string(entry) + ": out is " + describe(out) + ", not as the labels (" + describe(labels) +
                    ")");
}

// ---- labelRange --------------------------------------------------------------------------------

template <typename T>
LabelRange rangeOfLabels(const StridedArray& labels, const StopRequested& stop) {
    StridedArray walked = labels;
    inMemoryOrder<1>({&walked});
    T smallest = 0, largest = 0;
    walkRows<1>({&walked}, true, stop, [&](const auto& first, const auto& strides, std::uint64_t length, const auto&) {
        for (std::uint64_t i = 0; i < length; ++i) {
            const T label = loadLabel<T>(first[0] + std::ptrdiff_t(i) * strides[0]);
            smallest = std::min(smallest, label);
            largest = std::max(largest, label);
        }
    });
    return {std::uint64_t(largest), std::int64_t(smallest)};
}

// Runs an entry's passes, passes(T{}) with T the labels' element type, after
// checking the labels: a negative label met becomes NegativeLabels naming
// the smallest, a stop glccl::Cancelled, both in the entry's name.
template <typename Passes>
auto runEntry(const char* entry, const LabelArrayView& labels, const StopRequested& stop, Passes&& passes) {
    checkView(entry, "labels", labels);
    try {
        try {
            return withLabelType(labels.element, passes);
        } catch (const NegativeLabel&) {
            const LabelRange range = withLabelType(labels.element, [&](auto type) {
                return rangeOfLabels<decltype(type)>(stridedOf(labels), stop);
            });
            throw NegativeLabels(entry, range.smallest);
        }
    } catch (const detail::Stopped&) {
        throw Cancelled(std::string(entry) + ": stopped at the caller's request");
    }
}

// ---- filterLabels ------------------------------------------------------------------------------

// Pass 1: each nonzero label's count (word 0 of its record), the labels in
// the order of their first element.
template <typename T>
void countLabels(const StridedArray& labels, LabelRecords& records, const StopRequested& stop) {
    RunFinder<T> runs;
    walkRows<1>({&labels}, true, stop, [&](const auto& first, const auto& strides, std::uint64_t length, const auto&) {
        runs.visit(first[0], strides[0], length, [&](T label, std::uint64_t, std::uint64_t run) {
            if (label == 0) return;
            checkNotNegative(label);
            bool added = false;
            records.add(std::uint64_t(label), added)[0] += run;
        });
    });
}

struct Ranked {
    std::uint64_t count, label;
};

// keepLargest's order: more elements first, then the lower label.
bool ranksBefore(const Ranked& a, const Ranked& b) {
    return a.count > b.count || (a.count == b.count && a.label < b.label);
}

// Sets word 0 of each label's record to what its elements become: 1..m in
// the order of first elements for the labels `rule` keeps (their own value
// without renumbering), 0 for the others. Returns m.
std::uint64_t numberKept(LabelRecords& records, const KeptLabels& rule) {
    const std::vector<std::uint64_t>& labels = records.labels();
    // The labels large enough, of which the `largest` are kept.
    std::uint64_t largeEnough = labels.size();
    if (rule.minSize > 1 && rule.largest < labels.size()) {
        largeEnough = 0;
        for (const std::uint64_t label : labels) largeEnough += records.find(label)[0] >= rule.minSize;
    }
    const bool ranks = rule.largest < largeEnough;
    // Ranking, the labels kept rank no later than the k-th.
    Ranked kth{0, 0};
    if (ranks && rule.largest > 0) {
        std::vector<Ranked> ranked;
        ranked.reserve(largeEnough);
        for (const std::uint64_t label : labels) {
            const std::uint64_t count = records.find(label)[0];
            if (count >= rule.minSize) ranked.push_back({count, label});
        }
        const auto at = ranked.begin() + std::ptrdiff_t(rule.largest - 1);
        std::nth_element(ranked.begin(), at, ranked.end(), ranksBefore);
        kth = *at;
    }
    std::uint64_t kept = 0;
    for (const std::uint64_t label : labels) {
        std::uint64_t& value = records.find(label)[0];
        const bool keep = value >= rule.minSize && (!ranks || (rule.largest > 0 && !ranksBefore(kth, {value, label})));
        if (keep) ++kept;
        value = keep ? (rule.renumber ? kept : label) : 0;
    }
    return kept;
}

// Word 0 of a label's record (records of one word), 0 for a label never
// added: the table read through locals, as the stores to the output could
// alias the records' members for the compiler.
std::uint64_t newValueBeyondTable(LabelRecords& records, std::uint64_t label) {
    const std::uint64_t* record = records.find(label);
    return record == nullptr ? 0 : record[0];
}

// A function of its own, walked by pointers (an input of stride 0 is read
// again and again, so the count ends the loop): inlined into the walk, the
// compiler ran out of registers and read the table's address from the stack
// for every element.
template <typename T, bool Packed>
[[gnu::noinline]] void rewritePiece(const char* in, std::ptrdiff_t inStride, char* out, std::ptrdiff_t outStride,
                                   std::uint64_t length, LabelRecords& records) {
    const std::ptrdiff_t inStep = Packed ? std::ptrdiff_t(sizeof(T)) : inStride;
    const std::ptrdiff_t outStep = Packed ? std::ptrdiff_t(sizeof(T)) : outStride;
    const std::uint64_t* table = records.table();
    const std::uint64_t tableLabels = records.tableLabels();
    for (std::uint64_t i = 0; i < length; ++i, in += inStep, out += outStep) {
        const std::uint64_t label = std::uint64_t(loadLabel<T>(in));
        const std::uint64_t value = label < tableLabels ? table[label] : newValueBeyondTable(records, label);
        storeLabel<T>(out, T(value));
    }
}

// Pass 2: each element's new value (word 0 of its label's record), walked
// in the labels' memory order; each element is read before it is written,
// so `out` may be the labels themselves. A label never counted (the array
// changed meanwhile) becomes 0.
template <typename T>
void rewriteLabels(StridedArray labels, StridedArray out, LabelRecords& records, const StopRequested& stop) {
    inMemoryOrder<2>({&labels, &out});
    walkRows<2>({&labels, &out}, true, stop,
                [&](const auto& first, const auto& strides, std::uint64_t length, const auto&) {
                    if (strides[0] == std::ptrdiff_t(sizeof(T)) && strides[1] == std::ptrdiff_t(sizeof(T)))
                        rewritePiece<T, true>(first[0], strides[0], first[1], strides[1], length, records);
                    else
                        rewritePiece<T, false>(first[0], strides[0], first[1], strides[1], length, records);
                });
}

template <typename T>
std::uint64_t filterTyped(const StridedArray& labels, const KeptLabels& rule, const StridedArray& out,
                          const StopRequested& stop) {
    LabelRecords records(1, detail::tableLimitFor(labels.count(), 1));
    StridedArray counted = labels;
    // The order of first elements matters only for renumbering.
    if (!rule.renumber) inMemoryOrder<1>({&counted});
    countLabels<T>(counted, records, stop);
    const std::uint64_t kept = numberKept(records, rule);
    rewriteLabels<T>(labels, out, records, stop);
    return kept;
}

std::uint64_t filterEntry(const char* entry, const LabelArrayView& labels, const KeptLabels& kept,
                          const LabelArrayView& out, const StopRequested& stop) {
    checkOut(entry, labels, out);
    return runEntry(entry, labels, stop, [&](auto type) {
        return filterTyped<decltype(type)>(stridedOf(labels), kept, stridedOf(out), stop);
    });
}

// ---- labelExtents ------------------------------------------------------------------------------

// What measureLabels measures: labels up to `top`, and 0 with `background`.
struct Measured {
    std::uint64_t top = 0;
    bool background = false;
    std::uint64_t largest = 0;  // the largest label measured
};

// The one pass: each label's count and first and last index along each axis
// (a record: count, the first index along each axis, then the last), walked
// in the labels' memory order (the extents do not depend on it).
template <typename T>
void measureLabels(const StridedArray& labels, Measured& measured, LabelRecords& records, const StopRequested& stop) {
    const std::size_t axes = labels.shape.size();
    StridedArray walked = labels;
    const std::vector<std::size_t> axisOf = inMemoryOrder<1>({&walked});
    std::vector<std::uint64_t> position(axes);  // of a run's first element, along the original axes
    RunFinder<T> runs;
    const auto measure = [&](const auto& first, const auto& strides, std::uint64_t length, const auto& index) {
        for (std::size_t axis = 0; axis < axes; ++axis) position[axisOf[axis]] = index[axis];
        const std::size_t lastAxis = axes == 0 ? 0 : axisOf[axes - 1];
        const std::uint64_t pieceStart = index.back();
        runs.visit(first[0], strides[0], length, [&](T label, std::uint64_t start, std::uint64_t run) {
            checkNotNegative(label);
            const std::uint64_t value = std::uint64_t(label);
            if ((value == 0 && !measured.background) || value > measured.top) return;
            measured.largest = std::max(measured.largest, value);
            bool added = false;
            std::uint64_t* record = records.add(value, added);
            record[0] += run;
            if (axes == 0) return;
            position[lastAxis] = pieceStart + start;
            std::uint64_t* low = record + 1;
            std::uint64_t* high = record + 1 + axes;
            for (std::size_t axis = 0; axis < axes; ++axis) {
                low[axis] = added ? position[axis] : std::min(low[axis], position[axis]);
                high[axis] = added ? position[axis] : std::max(high[axis], position[axis]);
            }
            high[lastAxis] = std::max(high[lastAxis], pieceStart + start + run - 1);
        });
    };
    walkRows<1>({&walked}, false, stop, measure);
}

}  // namespace

// ---- entries -----------------------------------------------------------------------------------

std::size_t bytesOf(LabelElement element) {
    return withLabelType(element, [](auto type) { return sizeof(type); });
}

LabelArrayView LabelArrayView::cOrdered(void* data, LabelElement element, std::vector<std::uint64_t> shape) {
    LabelArrayView view{data, element, std::move(shape), {}};
    view.strides.resize(view.shape.size());
    std::ptrdiff_t stride = std::ptrdiff_t(bytesOf(element));
    for (std::size_t axis = view.shape.size(); axis-- > 0;) {
        view.strides[axis] = stride;
        stride *= std::ptrdiff_t(view.shape[axis]);
    }
    return view;
}

std::uint64_t LabelArrayView::count() const {
    std::uint64_t elements = 1;
    for (const std::uint64_t side : shape) elements *= side;
    return elements;
}

NegativeLabels::NegativeLabels(const std::string& entry, std::int64_t smallest)
    : Error(entry + ": labels must be 0 (background) or positive; the smallest is " + std::to_string(smallest)),
      smallest_(smallest) {}

std::uint64_t filterLabels(const LabelArrayView& labels, const KeptLabels& kept, const LabelArrayView& out,
                           const StopRequested& stop) {
    return filterEntry("glccl::filterLabels()", labels, kept, out, stop);
}

std::uint64_t relabel(const LabelArrayView& labels, const LabelArrayView& out, const StopRequested& stop) {
    return filterEntry("glccl::relabel()", labels, KeptLabels{}, out, stop);
}

std::uint64_t removeSmall(const LabelArrayView& labels, std::uint64_t minSize, bool renumber,
                          const LabelArrayView& out, const StopRequested& stop) {
    KeptLabels kept;
    kept.minSize = minSize;
    kept.renumber = renumber;
    return filterEntry("glccl::removeSmall()", labels, kept, out, stop);
}

std::uint64_t keepLargest(const LabelArrayView& labels, std::uint64_t k, bool renumber, const LabelArrayView& out,
                          const StopRequested& stop) {
    KeptLabels kept;
    kept.largest = k;
    kept.renumber = renumber;
    return filterEntry("glccl::keepLargest()", labels, kept, out, stop);
}

LabelExtents::LabelExtents(std::size_t axes, std::unique_ptr<LabelRecords> records)
    : axes_(axes), records_(std::move(records)) {}
LabelExtents::LabelExtents(LabelExtents&&) noexcept = default;
LabelExtents& LabelExtents::operator=(LabelExtents&&) noexcept = default;
LabelExtents::~LabelExtents() = default;

const std::vector<std::uint64_t>& LabelExtents::labels() const { return records_->labels(); }

LabelExtents::Extent LabelExtents::of(std::uint64_t label) const {
    const std::uint64_t* record = records_->find(label);
    if (record == nullptr || record[0] == 0) return {};
    return {record[0], record + 1, record + 1 + axes_};
}

LabelExtents labelExtents(const LabelArrayView& labels, std::uint64_t maxLabel, bool background,
                          const StopRequested& stop) {
    const std::size_t axes = labels.shape.size();
    LabelExtents extents(axes, std::make_unique<LabelRecords>(1 + 2 * axes,
                                                              detail::tableLimitFor(labels.count(), 1 + 2 * axes)));
    Measured measured{maxLabel, background, 0};
    runEntry("glccl::labelExtents()", labels, stop, [&](auto type) {
        measureLabels<decltype(type)>(stridedOf(labels), measured, *extents.records_, stop);
    });
    extents.largest_ = measured.largest;
    return extents;
}

LabelRange labelRange(const LabelArrayView& labels, const StopRequested& stop) {
    return runEntry("glccl::labelRange()", labels, stop, [&](auto type) {
        return rangeOfLabels<decltype(type)>(stridedOf(labels), stop);
    });
}

}  // namespace glccl

// The host side of glccl.relabel, remove_small, keep_largest and
// find_objects, and the per-label extents of glccl.cc3d.statistics
// (glccl/_helpers.py calls these entries for numpy arrays). Labels of any
// integer dtype in native byte order, any number of dimensions and any
// strides; each call is a pass or two over them, without the GIL:
//
//   filterLabels (relabel, remove_small, keep_largest)
//     countLabels     each label's count, and the labels in the order of
//                     their first element (raster order)
//     numberKept      each label's new value: 1..m in that order for the
//                     labels kept (or their own value without relabel), 0
//                     for the others
//     rewriteLabels   each element's new value
//   measureLabels (find_objects, label_extents)
//                     each label's count and first and last index along
//                     every axis
//
// The per-label records (LabelRecords) are a table indexed by label for
// labels up to about twice the element count, and a hash map beyond: a
// sparse label such as 2^40 costs one entry, not a table of 2^40.
//
// Calls over kInterruptibleElements run on a worker thread that Ctrl-C
// abandons (interruptible.hpp); the passes look whether theirs was every
// kPieceElements elements and stop.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "interruptible.hpp"
#include "label_filters.hpp"

namespace glccl::python {
namespace {

// ---- label arrays ------------------------------------------------------------------------------

// The elements a pass walks at a time (a piece of a row): it looks whether
// its call was abandoned before each (a fraction of a millisecond apart),
// and finds the runs of each in one list (RunFinder).
constexpr std::uint64_t kPieceElements = std::uint64_t(1) << 16;

// Labels below this always have a table entry (a table this small costs
// nothing), whatever the element count.
constexpr std::uint64_t kTableLabels = std::uint64_t(1) << 16;

// Thrown by a pass whose call was abandoned: the worker stops, nobody reads
// its results.
struct Abandoned {};

// Thrown by a pass that met a negative label; the entry then names the
// smallest (refuseNegativeLabels).
struct NegativeLabel {};

// A numpy array's elements as the passes see them. Holds no reference: the
// entry keeps the array alive (and runInterruptibly, for a worker).
struct StridedArray {
    char* data = nullptr;
    std::vector<std::uint64_t> shape;
    std::vector<std::ptrdiff_t> strides;  // bytes, any sign

    std::uint64_t count() const {
        std::uint64_t elements = 1;
        for (const std::uint64_t side : shape) elements *= side;
        return elements;
    }
};

StridedArray stridedOf(const py::array& array) {
    StridedArray strided;
    strided.data = static_cast<char*>(const_cast<void*>(array.data()));
    for (py::ssize_t axis = 0; axis < array.ndim(); ++axis) {
        strided.shape.push_back(std::uint64_t(array.shape(axis)));
        strided.strides.push_back(std::ptrdiff_t(array.strides(axis)));
    }
    return strided;
}

// The arrays' axes reordered so that `order`'s strides fall from the first
// axis to the last: the walk then follows its memory (a Fortran-ordered
// array from its first element to its last). For the passes whose result
// does not depend on the order of the walk. `axisOf[i]` is the original
// axis of the walk's axis i.
template <std::size_t Arrays>
std::vector<std::size_t> inMemoryOrder(std::array<StridedArray*, Arrays> arrays) {
    const StridedArray& order = *arrays[0];
    std::vector<std::size_t> axisOf(order.shape.size());
    for (std::size_t axis = 0; axis < axisOf.size(); ++axis) axisOf[axis] = axis;
    const auto magnitude = [](std::ptrdiff_t stride) { return stride < 0 ? -stride : stride; };
    std::stable_sort(axisOf.begin(), axisOf.end(), [&](std::size_t a, std::size_t b) {
        return magnitude(order.strides[a]) > magnitude(order.strides[b]);
    });
    for (StridedArray* array : arrays) {
        const StridedArray original = *array;
        for (std::size_t axis = 0; axis < axisOf.size(); ++axis) {
            array->shape[axis] = original.shape[axisOf[axis]];
            array->strides[axis] = original.strides[axisOf[axis]];
        }
    }
    return axisOf;
}

// Walks arrays of one shape together in raster (C) order, row by row (the
// last axis): visit(first, strides, length, index) for each piece of a row
// of at most kPieceElements elements, first[k] the piece's first element in
// array k, strides[k] the step along the row, index the piece's indices (the
// last axis's at its first element). With mergeAxes, axes that every
// array's strides allow are walked as one (a C-contiguous array is one row,
// and index means nothing). A 0-d array is one row of one element. Throws
// Abandoned when the call was abandoned.
template <std::size_t Arrays, typename Visit>
void walkRows(const std::array<const StridedArray*, Arrays>& arrays, bool mergeAxes, Visit&& visit) {
    struct Axis {
        std::uint64_t size;
        std::array<std::ptrdiff_t, Arrays> strides;
    };
    std::vector<Axis> axes;
    for (std::size_t axis = 0; axis < arrays[0]->shape.size(); ++axis) {
        Axis next{arrays[0]->shape[axis], {}};
        if (next.size == 0) return;
        bool merges = mergeAxes && !axes.empty();
        for (std::size_t k = 0; k < Arrays; ++k) {
            next.strides[k] = arrays[k]->strides[axis];
            merges = merges && axes.back().strides[k] == next.strides[k] * std::ptrdiff_t(next.size);
        }
        if (merges) {
            axes.back().size *= next.size;
            axes.back().strides = next.strides;
        } else {
            axes.push_back(next);
        }
    }
    if (axes.empty()) axes.push_back(Axis{1, {}});
    const Axis row = axes.back();
    std::vector<std::uint64_t> index(axes.size(), 0);
    std::array<char*, Arrays> rowStart;
    for (std::size_t k = 0; k < Arrays; ++k) rowStart[k] = arrays[k]->data;
    for (;;) {
        for (std::uint64_t piece = 0; piece < row.size; piece += kPieceElements) {
            if (callAbandoned()) throw Abandoned{};
            std::array<char*, Arrays> first;
            for (std::size_t k = 0; k < Arrays; ++k) first[k] = rowStart[k] + std::ptrdiff_t(piece) * row.strides[k];
            index.back() = piece;
            visit(first, row.strides, std::min(kPieceElements, row.size - piece), index);
        }
        // The next row: the outer axes counted like an odometer.
        std::size_t axis = axes.size() - 1;
        for (;;) {
            if (axis == 0) return;
            --axis;
            for (std::size_t k = 0; k < Arrays; ++k) rowStart[k] += axes[axis].strides[k];
            if (++index[axis] < axes[axis].size) break;
            for (std::size_t k = 0; k < Arrays; ++k)
                rowStart[k] -= std::ptrdiff_t(axes[axis].size) * axes[axis].strides[k];
            index[axis] = 0;
        }
    }
}

// Unaligned arrays are read and written as they are.
template <typename T>
T loadLabel(const char* at) {
    T label;
    std::memcpy(&label, at, sizeof label);
    return label;
}

template <typename T>
void storeLabel(char* at, T label) {
    std::memcpy(at, &label, sizeof label);
}

// The runs of equal labels in pieces of rows: run(label, start, length)
// for each, in order. Blobs are runs, each counted once instead of once per
// element. Where runs end is where a labeling is unpredictable, so the
// pass over the elements has no branch there: it writes each element's
// index into the list of run starts and moves the list's end by one where
// a run starts (starts_), and the runs are then visited from that list.
template <typename T>
class RunFinder {
public:
    RunFinder() : starts_(kPieceElements + 1) {}

    template <typename Run>
    void visit(const char* first, std::ptrdiff_t stride, std::uint64_t length, Run&& run) {
        const std::uint64_t runs = stride == std::ptrdiff_t(sizeof(T)) ? findStarts<true>(first, stride, length)
                                                                       : findStarts<false>(first, stride, length);
        for (std::uint64_t r = 0; r < runs; ++r) {
            const std::uint32_t start = starts_[r];
            run(loadLabel<T>(first + std::ptrdiff_t(start) * stride), std::uint64_t(start),
                std::uint64_t(starts_[r + 1] - start));
        }
    }

private:
    // Fills starts_ with the runs' first indices, then `length`; returns the
    // number of runs.
    template <bool Packed>
    std::uint64_t findStarts(const char* first, std::ptrdiff_t stride, std::uint64_t length) {
        const std::ptrdiff_t step = Packed ? std::ptrdiff_t(sizeof(T)) : stride;
        std::uint32_t* starts = starts_.data();
        std::uint64_t runs = 1;
        starts[0] = 0;
        T previous = loadLabel<T>(first);
        for (std::uint64_t i = 1; i < length; ++i) {
            const T label = loadLabel<T>(first + std::ptrdiff_t(i) * step);
            starts[runs] = std::uint32_t(i);
            runs += label != previous;
            previous = label;
        }
        starts[runs] = std::uint32_t(length);
        return runs;
    }

    std::vector<std::uint32_t> starts_;
};

// The ValueError of a negative label, naming the smallest, as glccl's
// helpers name it on every array.
template <typename T>
[[noreturn]] void refuseNegativeLabels(const StridedArray& labels, const std::string& where) {
    T smallest = 0;
    walkRows<1>({&labels}, true, [&](const auto& first, const auto& strides, std::uint64_t length, const auto&) {
        for (std::uint64_t i = 0; i < length; ++i)
            smallest = std::min(smallest, loadLabel<T>(first[0] + std::ptrdiff_t(i) * strides[0]));
    });
    throw py::value_error(where + ": labels must be 0 (background) or positive; the smallest is " +
                          std::to_string(static_cast<long long>(smallest)));
}

template <typename T>
void checkNotNegative(T label) {
    if constexpr (std::is_signed_v<T>) {
        if (label < 0) throw NegativeLabel{};
    }
}

// call(T{}) with T the labels' element type: int8..int64, uint8..uint64.
template <typename Call>
void withLabelType(char kind, py::ssize_t itemSize, Call&& call) {
    const bool isSigned = kind == 'i';
    switch (itemSize) {
    case 1: return isSigned ? call(std::int8_t{}) : call(std::uint8_t{});
    case 2: return isSigned ? call(std::int16_t{}) : call(std::uint16_t{});
    case 4: return isSigned ? call(std::int32_t{}) : call(std::uint32_t{});
    default: return isSigned ? call(std::int64_t{}) : call(std::uint64_t{});
    }
}

// The checks glccl/_helpers.py makes first (an integer dtype) and what the
// passes need (8 bytes or fewer, native byte order: the helpers convert
// other orders).
void checkLabelArray(const py::array& labels, const std::string& where) {
    const py::dtype dtype = labels.dtype();
    if (dtype.kind() != 'i' && dtype.kind() != 'u')
        throw py::type_error(where + ": labels must be an array of an integer dtype, not " +
                             std::string(py::str(labels.attr("dtype"))));
    const py::ssize_t size = dtype.itemsize();
    if (size != 1 && size != 2 && size != 4 && size != 8)
        throw py::type_error(where + ": labels of " + std::to_string(size) + "-byte elements are not taken");
    if (dtype.byteorder() == '>' || (dtype.byteorder() == '<' && !PY_LITTLE_ENDIAN))
        throw py::type_error(where + ": labels must be in native byte order, not " +
                             std::string(py::str(labels.attr("dtype"))));
}

// Runs `work` without the GIL: on this thread for fewer than
// kInterruptibleElements elements, else on a worker that Ctrl-C abandons,
// holding `arrays` until it is done.
void runWithoutGil(std::uint64_t elements, const char* stage, const std::function<void()>& work,
                   PythonReferences arrays) {
    if (elements < kInterruptibleElements) {
        py::gil_scoped_release noGil;
        work();
        return;
    }
    runInterruptibly(work, [stage] { return stage; }, py::none(), std::move(arrays));
}

// ---- per-label records -------------------------------------------------------------------------

// Per label, `words` 64-bit words, all 0 until the label is added; word 0 is
// its count, which the caller raises at once. Labels below tableLimit live
// in a table indexed by label, grown to the largest added; the others in a
// hash map (open addressing, linear probing).
class LabelRecords {
public:
    LabelRecords(std::size_t words, std::uint64_t tableLimit) : words_(words), tableLimit_(tableLimit) {}

    // The label's record, zeroed and appended to labels() the first time.
    // Valid until the next add.
    std::uint64_t* add(std::uint64_t label, bool& added) {
        if (label >= tableLabels_) return addBeyondTable(label, added);
        std::uint64_t* record = &table_[label * words_];
        added = record[0] == 0;
        if (added) labels_.push_back(label);
        return record;
    }

    // The label's record: all 0 for a label of the table never added,
    // nullptr for another label never added.
    std::uint64_t* find(std::uint64_t label) {
        if (label < tableLabels_) return &table_[label * words_];
        if (keys_.empty() || label < tableLimit_) return nullptr;
        for (std::size_t slot = slotOf(label); keys_[slot] != 0; slot = (slot + 1) & (keys_.size() - 1))
            if (keys_[slot] == label) return &hashed_[positions_[slot]];
        return nullptr;
    }

    // The table: the records of labels 0..tableLabels()-1, `words` words each.
    const std::uint64_t* table() const { return table_.data(); }
    std::uint64_t tableLabels() const { return tableLabels_; }

    // Every label added, in the order they were.
    const std::vector<std::uint64_t>& labels() const { return labels_; }

private:
    // add() for a label the table does not hold yet: the table grown to it,
    // or the hash map.
    std::uint64_t* addBeyondTable(std::uint64_t label, bool& added) {
        if (label < tableLimit_) {
            growTable(label);
            return add(label, added);
        }
        if (2 * (hashed_.size() / words_ + 1) > keys_.size()) growHash();
        std::size_t slot = slotOf(label);
        while (keys_[slot] != 0 && keys_[slot] != label) slot = (slot + 1) & (keys_.size() - 1);
        added = keys_[slot] == 0;
        if (added) {
            keys_[slot] = label;
            positions_[slot] = hashed_.size();
            hashed_.resize(hashed_.size() + words_, 0);
            labels_.push_back(label);
        }
        return &hashed_[positions_[slot]];
    }

    void growTable(std::uint64_t label) {
        tableLabels_ = std::min(tableLimit_, std::max({label + 1, 2 * tableLabels_, std::uint64_t(1024)}));
        table_.resize(tableLabels_ * words_, 0);
    }

    void growHash() {
        const std::vector<std::uint64_t> keys = std::move(keys_), positions = std::move(positions_);
        const std::size_t slots = std::max<std::size_t>(16, 2 * keys.size());
        keys_.assign(slots, 0);
        positions_.assign(slots, 0);
        shift_ = 64;
        for (std::size_t size = slots; size > 1; size /= 2) --shift_;
        for (std::size_t old = 0; old < keys.size(); ++old) {
            if (keys[old] == 0) continue;
            std::size_t slot = slotOf(keys[old]);
            while (keys_[slot] != 0) slot = (slot + 1) & (slots - 1);
            keys_[slot] = keys[old];
            positions_[slot] = positions[old];
        }
    }

    // Fibonacci hashing: the top bits of label * 2^64 / phi.
    std::size_t slotOf(std::uint64_t label) const {
        return std::size_t((label * 0x9E3779B97F4A7C15ull) >> shift_);
    }

    std::size_t words_;
    std::uint64_t tableLimit_;
    std::uint64_t tableLabels_ = 0;     // the table's labels: 0..tableLabels_-1
    std::vector<std::uint64_t> table_;  // tableLabels_ records
    std::vector<std::uint64_t> keys_;   // the hash map's labels, 0 for a free slot (0 is never hashed)
    std::vector<std::uint64_t> positions_;  // of each key's record in hashed_
    std::vector<std::uint64_t> hashed_;     // the records of hashed labels, in the order added
    int shift_ = 64;
    std::vector<std::uint64_t> labels_;
};

// The labels a table holds records of directly for an array of `elements`:
// tables of at most about 16 bytes an element, and never fewer than
// kTableLabels.
std::uint64_t tableLimitFor(std::uint64_t elements, std::size_t words) {
    return std::max(kTableLabels, std::min(elements, std::uint64_t(1) << 60) * 2 / words);
}

// ---- relabel, remove_small, keep_largest ---------------------------------------------------------

// Which labels a filter keeps.
struct FilterRule {
    enum class Keep { All, AtLeast, Largest } keep = Keep::All;
    std::uint64_t parameter = 0;  // AtLeast: the least count kept; Largest: how many labels
    bool renumber = true;         // kept labels become 1..m (else keep their value)
};

// Pass 1: each nonzero label's count (word 0 of its record), the labels in
// the order of their first element.
template <typename T>
void countLabels(const StridedArray& labels, LabelRecords& records) {
    RunFinder<T> runs;
    walkRows<1>({&labels}, true, [&](const auto& first, const auto& strides, std::uint64_t length, const auto&) {
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

// keep_largest's order: more elements first, then the lower label.
bool ranksBefore(const Ranked& a, const Ranked& b) {
    return a.count > b.count || (a.count == b.count && a.label < b.label);
}

// Sets word 0 of each label's record to what its elements become: 1..m in
// the order of first elements for the labels the rule keeps (their own
// value without renumbering), 0 for the others. Returns m.
std::uint64_t numberKept(LabelRecords& records, const FilterRule& rule) {
    using Keep = FilterRule::Keep;
    const std::vector<std::uint64_t>& labels = records.labels();
    const bool keepsAll = rule.keep == Keep::All || (rule.keep == Keep::Largest && rule.parameter >= labels.size());
    const bool keepsNone = rule.keep == Keep::Largest && rule.parameter == 0;
    // keep_largest keeps the labels that rank no later than the k-th.
    Ranked kth{0, 0};
    if (rule.keep == Keep::Largest && !keepsAll && !keepsNone) {
        std::vector<Ranked> ranked;
        ranked.reserve(labels.size());
        for (const std::uint64_t label : labels) ranked.push_back({records.find(label)[0], label});
        const auto at = ranked.begin() + std::ptrdiff_t(rule.parameter - 1);
        std::nth_element(ranked.begin(), at, ranked.end(), ranksBefore);
        kth = *at;
    }
    std::uint64_t kept = 0;
    for (const std::uint64_t label : labels) {
        std::uint64_t& value = records.find(label)[0];
        bool keep = keepsAll;
        if (!keepsAll && !keepsNone)
            keep = rule.keep == Keep::AtLeast ? value >= rule.parameter : !ranksBefore(kth, Ranked{value, label});
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

template <typename T, bool Packed>
void rewritePiece(const char* in, std::ptrdiff_t inStride, char* out, std::ptrdiff_t outStride,
                  std::uint64_t length, LabelRecords& records) {
    const std::ptrdiff_t inStep = Packed ? std::ptrdiff_t(sizeof(T)) : inStride;
    const std::ptrdiff_t outStep = Packed ? std::ptrdiff_t(sizeof(T)) : outStride;
    const std::uint64_t* table = records.table();
    const std::uint64_t tableLabels = records.tableLabels();
    for (std::uint64_t i = 0; i < length; ++i) {
        const std::uint64_t label = std::uint64_t(loadLabel<T>(in + std::ptrdiff_t(i) * inStep));
        const std::uint64_t value = label < tableLabels ? table[label] : newValueBeyondTable(records, label);
        storeLabel<T>(out + std::ptrdiff_t(i) * outStep, T(value));
    }
}

// Pass 2: each element's new value (word 0 of its label's record), walked
// in the labels' memory order. A label never counted (the array changed
// meanwhile) becomes 0.
template <typename T>
void rewriteLabels(StridedArray labels, StridedArray out, LabelRecords& records) {
    inMemoryOrder<2>({&labels, &out});
    walkRows<2>({&labels, &out}, true, [&](const auto& first, const auto& strides, std::uint64_t length, const auto&) {
        if (strides[0] == std::ptrdiff_t(sizeof(T)) && strides[1] == std::ptrdiff_t(sizeof(T)))
            rewritePiece<T, true>(first[0], strides[0], first[1], strides[1], length, records);
        else
            rewritePiece<T, false>(first[0], strides[0], first[1], strides[1], length, records);
    });
}

// One call of relabel, remove_small or keep_largest, shared with its worker.
struct FilterCall {
    StridedArray labels, out;
    FilterRule rule;
    std::uint64_t kept = 0;
};

template <typename T>
void filterLabels(FilterCall& call, const std::string& where) {
    LabelRecords records(1, tableLimitFor(call.labels.count(), 1));
    StridedArray counted = call.labels;
    // The order of first elements matters only for renumbering.
    if (!call.rule.renumber) inMemoryOrder<1>({&counted});
    try {
        countLabels<T>(counted, records);
    } catch (const NegativeLabel&) {
        refuseNegativeLabels<T>(call.labels, where);
    }
    call.kept = numberKept(records, call.rule);
    rewriteLabels<T>(call.labels, call.out, records);
}

// (labels, m): the filtered labels, of the labels' shape and dtype, C-ordered
// when renumbered (and in the labels' own memory order otherwise, as
// np.where gives them), and the labels kept.
py::tuple filterOnHost(const py::array& labels, const FilterRule& rule, const std::string& where) {
    checkLabelArray(labels, where);
    const std::vector<py::ssize_t> shape(labels.shape(), labels.shape() + labels.ndim());
    const py::object emptyLike = py::module_::import("numpy").attr("empty_like");
    py::array out = rule.renumber ? py::array(labels.dtype(), shape)
                                  : py::array(emptyLike(labels, py::arg("subok") = false));
    auto call = std::make_shared<FilterCall>();
    call->labels = stridedOf(labels);
    call->out = stridedOf(out);
    call->rule = rule;
    const char kind = labels.dtype().kind();
    const py::ssize_t itemSize = labels.dtype().itemsize();
    runWithoutGil(call->labels.count(), "filter", [call, kind, itemSize, where] {
        withLabelType(kind, itemSize, [&](auto type) { filterLabels<decltype(type)>(*call, where); });
    }, {labels, out});
    return py::make_tuple(std::move(out), py::int_(call->kept));
}

// ---- find_objects, label_extents -----------------------------------------------------------------

// One call of find_objects or label_extents, shared with its worker. A
// record: count, then the first index along each axis, then the last.
struct MeasureCall {
    StridedArray labels;
    std::uint64_t top = 0;    // labels above are left out
    bool background = false;  // whether label 0 is measured
    std::unique_ptr<LabelRecords> records;
    std::uint64_t largest = 0;  // the largest label measured
};

// The one pass: each label's count and first and last index along each
// axis, walked in the labels' memory order (the boxes do not depend on it).
template <typename T>
void measureLabels(MeasureCall& call, const std::string& where) {
    const std::size_t axes = call.labels.shape.size();
    call.records = std::make_unique<LabelRecords>(1 + 2 * axes, tableLimitFor(call.labels.count(), 1 + 2 * axes));
    LabelRecords& records = *call.records;
    StridedArray walked = call.labels;
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
            if ((value == 0 && !call.background) || value > call.top) return;
            call.largest = std::max(call.largest, value);
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
    try {
        walkRows<1>({&walked}, false, measure);
    } catch (const NegativeLabel&) {
        refuseNegativeLabels<T>(call.labels, where);
    }
}

std::shared_ptr<MeasureCall> measureOnHost(const py::array& labels, std::uint64_t top, bool background,
                                           const std::string& where) {
    checkLabelArray(labels, where);
    auto call = std::make_shared<MeasureCall>();
    call->labels = stridedOf(labels);
    call->top = top;
    call->background = background;
    const char kind = labels.dtype().kind();
    const py::ssize_t itemSize = labels.dtype().itemsize();
    runWithoutGil(call->labels.count(), "measure", [call, kind, itemSize, where] {
        withLabelType(kind, itemSize, [&](auto type) { measureLabels<decltype(type)>(*call, where); });
    }, {labels});
    return call;
}

py::tuple relabelHost(const py::array& labels) { return filterOnHost(labels, FilterRule{}, "glccl.relabel()"); }

py::tuple removeSmallHost(const py::array& labels, std::uint64_t leastKept, bool relabel) {
    return filterOnHost(labels, FilterRule{FilterRule::Keep::AtLeast, leastKept, relabel}, "glccl.remove_small()");
}

py::tuple keepLargestHost(const py::array& labels, std::uint64_t k, bool relabel) {
    return filterOnHost(labels, FilterRule{FilterRule::Keep::Largest, k, relabel}, "glccl.keep_largest()");
}

// find_objects' list: entry i the box of label i + 1 for labels 1..top, top
// maxLabel, or the largest label when it is 0, none when it is negative.
py::list findObjectsHost(const py::array& labels, std::int64_t maxLabel) {
    const std::uint64_t bound = maxLabel < 0 ? 0 : maxLabel == 0 ? ~std::uint64_t(0) : std::uint64_t(maxLabel);
    const std::shared_ptr<MeasureCall> call = measureOnHost(labels, bound, false, "glccl.find_objects()");
    const std::uint64_t top = maxLabel == 0 ? call->largest : bound;
    if (top > std::uint64_t(PY_SSIZE_T_MAX)) throw std::bad_alloc();
    PyObject* list = PyList_New(py::ssize_t(top));
    if (list == nullptr) throw py::error_already_set();
    py::list boxes = py::reinterpret_steal<py::list>(list);
    const std::size_t axes = call->labels.shape.size();
    std::vector<std::int64_t> low(axes), high(axes);
    for (const std::uint64_t label : call->records->labels()) {
        const std::uint64_t* record = call->records->find(label);
        std::copy(record + 1, record + 1 + axes, low.begin());
        std::copy(record + 1 + axes, record + 1 + 2 * axes, high.begin());
        PyList_SET_ITEM(list, py::ssize_t(label - 1), boxSlices(low.data(), high.data(), py::ssize_t(axes), 1).release().ptr());
    }
    for (py::ssize_t i = 0; i < py::ssize_t(top); ++i) {
        if (PyList_GET_ITEM(list, i) != nullptr) continue;
        Py_INCREF(Py_None);
        PyList_SET_ITEM(list, i, Py_None);
    }
    return boxes;
}

// (counts, lows, highs) of labels 0..top: int64 arrays of shape (top + 1,)
// and (ndim, top + 1), lows int64's largest and highs -1 for a label that
// is absent.
py::tuple labelExtentsHost(const py::array& labels, std::uint64_t top) {
    const std::shared_ptr<MeasureCall> call = measureOnHost(labels, top, true, "glccl.cc3d.statistics()");
    if (top >= std::uint64_t(PY_SSIZE_T_MAX)) throw std::bad_alloc();
    const py::ssize_t axes = labels.ndim();
    const py::ssize_t count = py::ssize_t(top) + 1;
    py::array_t<std::int64_t> counts(count), lows({axes, count}), highs({axes, count});
    std::int64_t* countOf = counts.mutable_data();
    std::int64_t* lowOf = lows.mutable_data();
    std::int64_t* highOf = highs.mutable_data();
    std::fill(countOf, countOf + count, 0);
    std::fill(lowOf, lowOf + axes * count, std::numeric_limits<std::int64_t>::max());
    std::fill(highOf, highOf + axes * count, -1);
    for (const std::uint64_t label : call->records->labels()) {
        const std::uint64_t* record = call->records->find(label);
        countOf[label] = std::int64_t(record[0]);
        for (py::ssize_t axis = 0; axis < axes; ++axis) {
            lowOf[axis * count + py::ssize_t(label)] = std::int64_t(record[1 + axis]);
            highOf[axis * count + py::ssize_t(label)] = std::int64_t(record[1 + axes + axis]);
        }
    }
    return py::make_tuple(std::move(counts), std::move(lows), std::move(highs));
}

}  // namespace

void bindHostLabelFilters(py::module_& module) {
    module.def("host_relabel", &relabelHost, py::arg("labels"),
               "glccl.relabel() on a numpy array of an integer dtype in native byte order: (labels, m).");
    module.def("host_remove_small", &removeSmallHost, py::arg("labels"), py::arg("least_kept"), py::arg("relabel"),
               "glccl.remove_small() on a numpy array, keeping the labels of least_kept (0..2**64-1) elements or "
               "more: (labels, m).");
    module.def("host_keep_largest", &keepLargestHost, py::arg("labels"), py::arg("k"), py::arg("relabel"),
               "glccl.keep_largest() on a numpy array, k an int 0..2**64-1: (labels, m).");
    module.def("host_find_objects", &findObjectsHost, py::arg("labels"), py::arg("max_label"),
               "glccl.find_objects() on a numpy array: the list of boxes of labels 1..max_label (up to the "
               "largest label for 0, none for a negative max_label).");
    module.def("host_label_extents", &labelExtentsHost, py::arg("labels"), py::arg("top"),
               "Per label 0..top of a numpy array: (counts, lows, highs), int64 of shapes (top + 1,) and "
               "(ndim, top + 1), the first and last index along each axis (lows > highs for an absent label).");
}

}  // namespace glccl::python

// The host side of glccl.relabel, remove_small, keep_largest and
// find_objects, and the per-label extents of glccl.cc3d.statistics
// (glccl/_helpers.py calls these entries for numpy arrays): the passes of
// glccl/label_filters.hpp over the array where it is, without the GIL, and
// their results as Python objects.
//
// Calls over kInterruptibleElements run on a worker thread that Ctrl-C
// abandons (interruptible.hpp); the passes ask whether theirs was
// (callAbandoned) every kPieceElements elements and stop.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "glccl/label_filters.hpp"
#include "interruptible.hpp"
#include "label_filters.hpp"

namespace glccl::python {
namespace {

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

// A numpy array of checkLabelArray's dtypes as the library's view. Holds no
// reference: the entry keeps the array alive (and runInterruptibly, for a
// worker).
LabelArrayView viewOf(const py::array& array) {
    const bool isSigned = array.dtype().kind() == 'i';
    LabelArrayView view;
    view.data = const_cast<void*>(array.data());
    switch (array.dtype().itemsize()) {
    case 1: view.element = isSigned ? LabelElement::Int8 : LabelElement::UInt8; break;
    case 2: view.element = isSigned ? LabelElement::Int16 : LabelElement::UInt16; break;
    case 4: view.element = isSigned ? LabelElement::Int32 : LabelElement::UInt32; break;
    default: view.element = isSigned ? LabelElement::Int64 : LabelElement::UInt64; break;
    }
    for (py::ssize_t axis = 0; axis < array.ndim(); ++axis) {
        view.shape.push_back(std::uint64_t(array.shape(axis)));
        view.strides.push_back(std::ptrdiff_t(array.strides(axis)));
    }
    return view;
}

// Runs `work(stop)` without the GIL: on this thread for fewer than
// kInterruptibleElements elements, else on a worker that Ctrl-C abandons,
// holding `arrays` until it is done; `stop` says whether the call was
// abandoned. A negative label is the ValueError that names the smallest, as
// glccl's helpers name it on every array.
void runWithoutGil(std::uint64_t elements, const std::string& where,
                   const std::function<void(const StopRequested&)>& work, PythonReferences arrays) {
    try {
        if (elements < kInterruptibleElements) {
            py::gil_scoped_release noGil;
            work({});
            return;
        }
        runInterruptibly([work] { work([] { return callAbandoned(); }); }, std::move(arrays));
    } catch (const NegativeLabels& error) {
        throw py::value_error(where + ": labels must be 0 (background) or positive; the smallest is " +
                              std::to_string(error.smallest()));
    }
}

// ---- relabel, remove_small, keep_largest ---------------------------------------------------------

// (labels, m): the filtered labels, of the labels' shape and dtype, C-ordered
// when renumbered (and in the labels' own memory order otherwise, as
// np.where gives them), and the labels kept.
py::tuple filterOnHost(const py::array& labels, const KeptLabels& rule, const std::string& where) {
    checkLabelArray(labels, where);
    const std::vector<py::ssize_t> shape(labels.shape(), labels.shape() + labels.ndim());
    const py::object emptyLike = py::module_::import("numpy").attr("empty_like");
    py::array out = rule.renumber ? py::array(labels.dtype(), shape)
                                  : py::array(emptyLike(labels, py::arg("subok") = false));
    // Shared with the worker, which may outlive an abandoned call.
    struct Call {
        LabelArrayView labels, out;
        KeptLabels rule;
        std::uint64_t kept = 0;
    };
    auto call = std::make_shared<Call>(Call{viewOf(labels), viewOf(out), rule});
    runWithoutGil(labels.size(), where, [call](const StopRequested& stop) {
        call->kept = filterLabels(call->labels, call->rule, call->out, stop);
    }, {labels, out});
    return py::make_tuple(std::move(out), py::int_(call->kept));
}

py::tuple relabelHost(const py::array& labels) { return filterOnHost(labels, KeptLabels{}, "glccl.relabel()"); }

py::tuple removeSmallHost(const py::array& labels, std::uint64_t leastKept, bool relabel) {
    KeptLabels rule;
    rule.minSize = leastKept;
    rule.renumber = relabel;
    return filterOnHost(labels, rule, "glccl.remove_small()");
}

py::tuple keepLargestHost(const py::array& labels, std::uint64_t k, bool relabel) {
    KeptLabels rule;
    rule.largest = k;
    rule.renumber = relabel;
    return filterOnHost(labels, rule, "glccl.keep_largest()");
}

// ---- find_objects, label_extents -----------------------------------------------------------------

// The extents of the labels 1..top (and 0 with `background`).
std::shared_ptr<LabelExtents> measureOnHost(const py::array& labels, std::uint64_t top, bool background,
                                            const std::string& where) {
    checkLabelArray(labels, where);
    // Shared with the worker, which may outlive an abandoned call.
    struct Call {
        LabelArrayView labels;
        std::shared_ptr<LabelExtents> extents;
    };
    auto call = std::make_shared<Call>(Call{viewOf(labels), nullptr});
    runWithoutGil(labels.size(), where, [call, top, background](const StopRequested& stop) {
        call->extents = std::make_shared<LabelExtents>(labelExtents(call->labels, top, background, stop));
    }, {labels});
    return call->extents;
}

// find_objects' list: entry i the box of label i + 1 for labels 1..top, top
// maxLabel, or the largest label when it is 0, none when it is negative.
py::list findObjectsHost(const py::array& labels, std::int64_t maxLabel) {
    const std::uint64_t bound = maxLabel < 0 ? 0 : maxLabel == 0 ? ~std::uint64_t(0) : std::uint64_t(maxLabel);
    const std::shared_ptr<LabelExtents> extents = measureOnHost(labels, bound, false, "glccl.find_objects()");
    const std::uint64_t top = maxLabel == 0 ? extents->largest() : bound;
    if (top > std::uint64_t(PY_SSIZE_T_MAX)) throw std::bad_alloc();
    PyObject* list = PyList_New(py::ssize_t(top));
    if (list == nullptr) throw py::error_already_set();
    py::list boxes = py::reinterpret_steal<py::list>(list);
    const std::size_t axes = extents->axes();
    std::vector<std::int64_t> low(axes), high(axes);
    for (const std::uint64_t label : extents->labels()) {
        const LabelExtents::Extent extent = extents->of(label);
        std::copy(extent.low, extent.low + axes, low.begin());
        std::copy(extent.high, extent.high + axes, high.begin());
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
    const std::shared_ptr<LabelExtents> extents = measureOnHost(labels, top, true, "glccl.cc3d.statistics()");
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
    for (const std::uint64_t label : extents->labels()) {
        const LabelExtents::Extent extent = extents->of(label);
        countOf[label] = std::int64_t(extent.count);
        for (py::ssize_t axis = 0; axis < axes; ++axis) {
            lowOf[axis * count + py::ssize_t(label)] = std::int64_t(extent.low[axis]);
            highOf[axis * count + py::ssize_t(label)] = std::int64_t(extent.high[axis]);
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

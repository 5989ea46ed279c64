// The device side of glccl.relabel, remove_small, keep_largest and
// find_objects (glccl/_helpers.py calls these entries for device arrays:
// CuPy, torch, any __cuda_array_interface__ or CUDA DLPack producer). The
// labels are read where they are (device_arrays.hpp), filtered on their
// device and stream by glccl::cuda's label filters
// (glccl/cuda_label_filters.hpp), and the result is an array of the labels'
// kind and dtype on that device (torch in, torch out; CuPy otherwise). What
// comes back to the host: the largest and smallest label (to size the
// tables and refuse negative labels), then the count m, or the box table.
//
// Offered only in a module built with CUDA (GLCCL_HAVE_CUDA); elsewhere a
// device array is a TypeError that says so.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "device_arrays.hpp"
#include "label_filters.hpp"

#if GLCCL_HAVE_CUDA
#include "glccl/cuda_label_filters.hpp"
#include "glccl/cuda_labeler.hpp"
#endif

namespace glccl::python {
namespace {

#if !GLCCL_HAVE_CUDA

[[noreturn]] void refuseDeviceArrays(const std::string& where) {
    throw py::type_error(where + ": this glccl module was built without CUDA, so it does not take device arrays "
                                 "(CuPy, torch); pass a numpy array (cupy.asnumpy(labels), labels.cpu().numpy()) "
                                 "or rebuild glccl with a CUDA compiler");
}

py::tuple relabelDevice(const py::handle&) { refuseDeviceArrays("glccl.relabel()"); }
py::tuple removeSmallDevice(const py::handle&, std::uint64_t, bool) { refuseDeviceArrays("glccl.remove_small()"); }
py::tuple keepLargestDevice(const py::handle&, std::uint64_t, bool) { refuseDeviceArrays("glccl.keep_largest()"); }
py::tuple boxesDevice(const py::handle&, std::int64_t) { refuseDeviceArrays("glccl.find_objects()"); }
// No device array is taken here: the call that takes them says so.
bool devicesOverlap(const py::handle&, const py::handle&) { return false; }

#else

bool devicesOverlap(const py::handle& a, const py::handle& b) {
    const std::string where = "glccl.devices_overlap()";
    return mayShareMemory(readDeviceArray(a, "the first array", where), readDeviceArray(b, "the second array", where));
}

// numpy's name of an array-interface typestr: "<i4" -> "int32", "|b1" -> "bool".
std::string dtypeOfTypestr(const std::string& typestr) {
    if (typestr.size() < 3 || typestr.find_first_not_of("0123456789", 2) != std::string::npos)
        return "typestr '" + typestr + "'";
    return dtypeName(typestr[1], std::stoi(typestr.substr(2)));
}

// The labels of one call, read where they are and in C order.
struct DeviceLabels {
    DeviceView view;
    cuda::DeviceLabelArray array;
    int device = 0;
    std::string dtype;  // numpy's name, also the result's
};

// The checks of the host helpers (an integer dtype) and the filters' own
// (the four dtypes they take, a device CUDA can use), then the labels'
// device and, where they are not in C order, a C-ordered copy.
DeviceLabels readLabels(const py::handle& object, const std::string& where) {
    static const std::map<std::string, cuda::LabelType> kTaken = {{"int32", cuda::LabelType::Int32},
                                                                   {"uint32", cuda::LabelType::UInt32},
                                                                   {"int64", cuda::LabelType::Int64},
                                                                   {"uint64", cuda::LabelType::UInt64}};
    DeviceLabels labels;
    labels.view = readDeviceArray(object, "labels", where);
    const std::string& typestr = labels.view.typestr;
    labels.dtype = dtypeOfTypestr(typestr);
    const char kind = typestr.size() > 1 ? typestr[1] : '?';
    if (kind != 'i' && kind != 'u')
        throw py::type_error(where + ": labels must be an array of an integer dtype, not " + labels.dtype);
    const bool bigEndian = typestr[0] == '>';
    const auto taken = kTaken.find(labels.dtype);
    if (bigEndian || taken == kTaken.end())
        throw py::type_error(where + ": device labels must be int32, uint32, int64 or uint64, not " +
                             (bigEndian ? "big-endian " : "") + labels.dtype +
                             "; convert them on the device first (labels.astype('int32'))");
    std::string why;
    if (!cuda::available(&why))
        throw std::runtime_error(where + ": device labels are filtered with CUDA, which cannot run here: " + why);
    labels.device = deviceOfArray(object, labels.view, "labels", where);
    if (!isCContiguous(labels.view)) labels.view = contiguousCopy(object, labels.view, labels.device, "labels", where);
    labels.array.data = reinterpret_cast<const void*>(labels.view.data);
    labels.array.type = taken->second;
    for (const py::ssize_t side : labels.view.shape) labels.array.shape.push_back(std::uint64_t(side));
    return labels;
}

// The labels' range, negative labels refused as the host helpers refuse
// them (ValueError, the smallest named).
cuda::LabelRange rangeOf(const DeviceLabels& labels, const std::string& where) {
    cuda::LabelRange range;
    {
        py::gil_scoped_release noGil;
        CurrentDevice current(labels.device);
        range = cuda::labelRange(labels.array, labels.view.stream);
    }
    if (range.smallest < 0)
        throw py::value_error(where + ": labels must be 0 (background) or positive; the smallest is " +
                              std::to_string(range.smallest));
    return range;
}

// (filtered labels, m): `filter(array, range, out, stream)` writes the new
// labels into an array of the labels' shape, dtype and kind and returns m.
template <typename Filter>
py::tuple filterOnDevice(const py::handle& object, const std::string& where, Filter&& filter) {
    const DeviceLabels labels = readLabels(object, where);
    const cuda::LabelRange range = rangeOf(labels, where);
    py::object result = emptyLabels(object, labels.view.shape, labels.device, where, labels.dtype);
    void* out = reinterpret_cast<void*>(writableView(result, "the result", where).data);
    std::uint64_t kept = 0;
    {
        py::gil_scoped_release noGil;
        CurrentDevice current(labels.device);
        kept = filter(labels.array, range, out, labels.view.stream);
    }
    return py::make_tuple(std::move(result), py::int_(kept));
}

py::tuple relabelDevice(const py::handle& labels) {
    return filterOnDevice(labels, "glccl.relabel()", [](const auto&... arguments) {
        return cuda::relabel(arguments...);
    });
}

py::tuple removeSmallDevice(const py::handle& labels, std::uint64_t minSize, bool relabel) {
    return filterOnDevice(labels, "glccl.remove_small()", [&](const cuda::DeviceLabelArray& array,
                                                              const cuda::LabelRange& range, void* out,
                                                              CUstream_st* stream) {
        return cuda::removeSmall(array, range, minSize, relabel, out, stream);
    });
}

py::tuple keepLargestDevice(const py::handle& labels, std::uint64_t k, bool relabel) {
    return filterOnDevice(labels, "glccl.keep_largest()", [&](const cuda::DeviceLabelArray& array,
                                                              const cuda::LabelRange& range, void* out,
                                                              CUstream_st* stream) {
        return cuda::keepLargest(array, range, k, relabel, out, stream);
    });
}

// (low, high): uint64 numpy arrays of shape (ndim, top), entry [axis, i] the
// first and last index of label i + 1 along axis, low > high where it is
// absent; top is maxLabel, or the largest label when it is 0 (none for a
// negative maxLabel, as the host helper gives).
py::tuple boxesDevice(const py::handle& object, std::int64_t maxLabel) {
    const std::string where = "glccl.find_objects()";
    const DeviceLabels labels = readLabels(object, where);
    const std::size_t axes = labels.array.shape.size();
    if (axes == 0 || axes > std::size_t(cuda::kMaxBoxAxes))
        throw py::value_error(where + ": device labels must have 1 to " + std::to_string(cuda::kMaxBoxAxes) +
                              " dimensions, not " + std::to_string(axes));
    const cuda::LabelRange range = rangeOf(labels, where);
    cuda::LabelBoxes boxes;
    boxes.axes = int(axes);
    if (maxLabel >= 0) {
        py::gil_scoped_release noGil;
        CurrentDevice current(labels.device);
        boxes = cuda::findObjects(labels.array, range, std::uint64_t(maxLabel), labels.view.stream);
    }
    const std::vector<py::ssize_t> shape = {py::ssize_t(axes), py::ssize_t(boxes.labels)};
    py::array_t<std::uint64_t> low(shape), high(shape);
    std::copy(boxes.low.begin(), boxes.low.end(), low.mutable_data());
    std::copy(boxes.high.begin(), boxes.high.end(), high.mutable_data());
    return py::make_tuple(std::move(low), std::move(high));
}

#endif

// find_objects' list from its box table, host or device alike: entry i a
// tuple of slice(low[axis, i], high[axis, i] + 1) per axis, or None where
// present[i] is 0. Built with the C API: a Python loop costs about a
// microsecond a label, and label arrays hold millions of labels.
py::list slicesOfBoxes(const py::array_t<bool, py::array::c_style | py::array::forcecast>& present,
                       const py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>& low,
                       const py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>& high) {
    const py::ssize_t count = present.size();
    if (low.ndim() != 2 || high.ndim() != 2 || low.shape(0) != high.shape(0) || low.shape(1) != count ||
        high.shape(1) != count)
        throw py::value_error("slices_of_boxes(): low and high must both be of shape (axes, len(present))");
    const py::ssize_t axes = low.shape(0);
    const bool* isPresent = present.data();
    const std::int64_t* lows = low.data();
    const std::int64_t* highs = high.data();
    py::list boxes(count);
    for (py::ssize_t i = 0; i < count; ++i) {
        if (!isPresent[i]) {
            PyList_SET_ITEM(boxes.ptr(), i, py::none().release().ptr());
            continue;
        }
        PyList_SET_ITEM(boxes.ptr(), i, boxSlices(lows + i, highs + i, axes, count).release().ptr());
    }
    return boxes;
}

}  // namespace

py::tuple boxSlices(const std::int64_t* low, const std::int64_t* high, py::ssize_t axes, py::ssize_t step) {
    py::tuple box(axes);
    for (py::ssize_t axis = 0; axis < axes; ++axis) {
        py::object start = py::reinterpret_steal<py::object>(PyLong_FromLongLong(low[axis * step]));
        py::object stop = py::reinterpret_steal<py::object>(PyLong_FromLongLong(high[axis * step] + 1));
        PyObject* slice = PySlice_New(start.ptr(), stop.ptr(), nullptr);
        if (slice == nullptr) throw py::error_already_set();
        PyTuple_SET_ITEM(box.ptr(), axis, slice);
    }
    return box;
}

void bindLabelFilters(py::module_& module) {
    module.def("slices_of_boxes", &slicesOfBoxes, py::arg("present"), py::arg("low"), py::arg("high"),
               "find_objects' list from a box table: entry i the tuple of slice(low[axis, i], high[axis, i] + 1) "
               "per axis, or None where present[i] is false; low and high int64 of shape (axes, len(present)).");
    module.def("is_device_array", [](const py::handle& object) { return isDeviceArray(object); },
               py::arg("array"), "Whether the array is in CUDA device memory (__cuda_array_interface__, or a CUDA "
               "DLPack producer): what glccl's helpers hand to the device_* entries.");
    module.def("devices_overlap", &devicesOverlap, py::arg("a"), py::arg("b"),
               "Whether two device arrays may share memory (numpy's may_share_memory, on device pointers).");
    module.def("device_relabel", &relabelDevice, py::arg("labels"),
               "glccl.relabel() on a device array: (labels, m), see help(glccl.relabel).");
    module.def("device_remove_small", &removeSmallDevice, py::arg("labels"), py::arg("min_size"), py::arg("relabel"),
               "glccl.remove_small() on a device array, min_size an int 0..2**64-1: (labels, m).");
    module.def("device_keep_largest", &keepLargestDevice, py::arg("labels"), py::arg("k"), py::arg("relabel"),
               "glccl.keep_largest() on a device array, k an int 0..2**64-1: (labels, m).");
    module.def("device_boxes", &boxesDevice, py::arg("labels"), py::arg("max_label"),
               "The boxes glccl.find_objects() builds its slices from, for a device array: (low, high), uint64 "
               "numpy arrays of shape (ndim, top), [axis, i] the first and last index of label i + 1 along axis, "
               "low > high for a label that is absent.");
}

}  // namespace glccl::python

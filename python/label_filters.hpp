#pragma once
// The helpers on label arrays (glccl/_helpers.py: relabel, remove_small,
// keep_largest, find_objects, and cc3d.statistics' per-label extents): the
// module's entries for numpy arrays (host_label_filters.cpp, over the host
// library's glccl/label_filters.hpp) and for device arrays
// (label_filters.cpp, over glccl/cuda_label_filters.hpp), and what the two
// share.

#include <pybind11/pybind11.h>

#include <cstdint>

namespace glccl::python {

namespace py = pybind11;

// Registers the device side: is_device_array, device_relabel,
// device_remove_small, device_keep_largest, device_boxes, and
// slices_of_boxes (label_filters.cpp).
void bindLabelFilters(py::module_& module);

// Registers the host side: host_relabel, host_remove_small,
// host_keep_largest, host_find_objects, host_label_extents
// (host_label_filters.cpp).
void bindHostLabelFilters(py::module_& module);

// One entry of find_objects' list: the tuple of slice(low[axis * step],
// high[axis * step] + 1) for axis 0..axes-1. Needs the GIL.
py::tuple boxSlices(const std::int64_t* low, const std::int64_t* high, py::ssize_t axes, py::ssize_t step);

}  // namespace glccl::python

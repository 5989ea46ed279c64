#pragma once
// glccl._glccl.host_sums_by_label: scipy.ndimage's reductions over a list of
// labels of numpy arrays in one threaded pass (glccl::sumsByLabel), the
// host's counterpart of device_sums_by_label, for glccl.ndimage.

#include <pybind11/pybind11.h>

namespace glccl::python {

void bindHostSums(pybind11::module_& module);

}  // namespace glccl::python

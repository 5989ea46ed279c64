#pragma once
// glccl._glccl.device_measure_regions: region properties of labels in CUDA
// device memory (CuPy, torch CUDA tensors, any __cuda_array_interface__ or
// CUDA DLPack producer), measured on their GPU (glccl::cuda::
// measureDeviceLabels) and finalized as measure_regions finalizes host
// labels, so that glccl/_measure.py makes the same columns of them.
//
// Registered only in a module built with CUDA (GLCCL_HAVE_CUDA); without it
// the entry is absent and glccl/_measure.py keeps refusing device arrays.

#include <pybind11/pybind11.h>

namespace glccl::python {

void bindDeviceMeasure(pybind11::module_& module);

}  // namespace glccl::python

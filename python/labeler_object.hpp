#pragma once
// glccl.Labeler: one connectivity, criterion and backend, many images (the
// frames of a video, a batch of tiles): buffers kept from call to call.

#include <pybind11/pybind11.h>

namespace glccl::python {

// Adds the class glccl.Labeler to the module.
void bindLabeler(pybind11::module_& module);

}  // namespace glccl::python

#pragma once
// glccl._glccl.measure_regions and term_properties: region properties of a
// label image (glccl/measure.hpp), the entries glccl/_measure.py builds
// regionprops_table and the drop-ins' measurements on.

#include <pybind11/pybind11.h>

namespace glccl::python {

void bindMeasure(pybind11::module_& module);

}  // namespace glccl::python

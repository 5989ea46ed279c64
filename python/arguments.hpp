#pragma once
// The keyword arguments every Python entry shares (connectivity, criterion,
// backend), parsed into glccl's types. `where` is the Python entry that was
// called ("glccl.label()"); every message starts with it. Wrong types raise
// TypeError, wrong values ValueError.

#include <pybind11/pybind11.h>

#include <string>

#include "glccl/backend.hpp"
#include "glccl/types.hpp"

namespace glccl::python {

namespace py = pybind11;

// 4 or 8, or scikit-image's 1 and 2.
Connectivity parseConnectivity(const py::handle& value, const std::string& where);

// "binary", "segments", ("threshold", T), ("binary", L), or the command
// line's "threshold:T" and "binary:L"; T and L in 0..2^32-1 here, checked
// against the image's sampleBits once the image is known (checkCriterionForSampleBits).
Criterion parseCriterion(const py::handle& value, const std::string& where);

// "auto", "compute", "raster", "cuda" or "cpu".
Backend parseBackend(const py::handle& value, const std::string& where);

// ValueError when the criterion's threshold or level exceeds what samples of
// `sampleBits` bits hold (a threshold of 300 on uint8 images).
void checkCriterionForSampleBits(const Criterion& criterion, int sampleBits, const std::string& where);

}  // namespace glccl::python

#pragma once
// glccl._glccl.measure_regions and term_properties: region properties of a
// label image (glccl/measure.hpp), the entries glccl/_measure.py builds
// regionprops_table and the drop-ins' measurements on; and the measuring of
// glccl.label(properties=): the terms gathered by the engine that labeled.

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glccl/backend.hpp"
#include "glccl/measure.hpp"
#include "glccl/region_properties.hpp"
#include "glccl/route.hpp"
#include "glccl/session.hpp"
#include "interruptible.hpp"

namespace glccl::python {

void bindMeasure(pybind11::module_& module);

// What glccl.label(properties=) measures of the labeling it makes: the
// request, and once measured the table and the engine whose gatherer
// gathered its terms. Holds no Python object (it goes to the worker).
struct LabelingMeasurement {
    TermRequest request;
    PropertyOptions properties;
    std::optional<IntensitySamples> intensity;
    int threads = 0;
    PropertyTable table;
    // compute, raster or cuda where that GPU engine gathered the terms from
    // its own labels; cpu where the cpu engine's accumulator read the host
    // labels.
    Backend gatherer = Backend::Cpu;
};

// The measurement glccl.label's `measure` argument asks for: (term
// properties, intensity or None, spacing or None), the intensity a
// C-contiguous native array of `shape` (numpy order) plus perhaps a channel
// axis, as glccl/_measure.py checks it; nullptr for None. The intensity
// array goes into `keep`. Needs the GIL.
std::shared_ptr<LabelingMeasurement> labelingMeasurement(const pybind11::handle& measure, const Shape& shape,
                                                         PythonReferences& keep, const std::string& where);

// Gathers `m`'s terms by the engine that just labeled `labels` (1..n,
// uint32, `shape`) with `table` (Session::measureTerms: on its GPU where it
// can, else on the host), finalizes them into m.table, and notes in
// m.gatherer whose gatherer ran (RegionTotals::gatheredBy). Runs under the
// Session's hold (labelHostImage's `then`); needs no GIL.
void measureLabeling(Session& session, LabelingMeasurement& m, const std::uint32_t* labels, const Shape& shape,
                     const std::vector<Component>& table);

// The columns of m.table as numpy arrays, which take its values over (m.table
// is left empty). Needs the GIL.
pybind11::dict measuredColumns(LabelingMeasurement& m);

// A table's columns as numpy arrays by name (int64, uint64 or float64), which
// take the columns' values over without a copy.
pybind11::dict columnsOf(PropertyTable&& table);

// Whether an array of `dtype` is in this machine's byte order.
bool nativeOrder(const pybind11::dtype& dtype);

}  // namespace glccl::python

// The compiled side of glccl's measurements: numpy label and intensity
// arrays in, the property table's columns out, measured by the cpu engine's
// accumulator without the GIL (on a worker thread that Ctrl-C abandons for
// large images).

#include "measure_binding.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/measure.hpp"
#include "interruptible.hpp"

namespace py = pybind11;

namespace glccl::python {
namespace {

const char* const kWhere = "glccl.measure_regions()";

bool nativeOrder(const py::dtype& dtype) { return !(dtype.byteorder() == '>' || (dtype.byteorder() == '<' && !PY_LITTLE_ENDIAN)); }

void requireContiguous(const py::array& a, const char* what) {
    if (!(a.flags() & py::array::c_style))
        throw py::value_error(std::string(kWhere) + ": the " + what + " must be C-contiguous");
    if (!nativeOrder(a.dtype()))
        throw py::value_error(std::string(kWhere) + ": the " + what + " must be in native byte order");
}

Shape shapeOf(const py::array& labels) {
    if (labels.ndim() == 2) return Shape::image(labels.shape(1), labels.shape(0));
    if (labels.ndim() == 3) return Shape::volume(labels.shape(2), labels.shape(1), labels.shape(0));
    throw py::value_error(std::string(kWhere) + ": labels must be 2-D or 3-D, not " + std::to_string(labels.ndim()) + "-D");
}

py::dict measureRegions(const py::array& labels, const py::object& intensityObject, const std::vector<std::string>& properties,
                        const std::optional<std::vector<double>>& spacing, const std::string& separator,
                        const std::optional<int>& threads, bool background) {
    requireContiguous(labels, "labels");
    const char kind = labels.dtype().kind();
    if (kind != 'i' && kind != 'u' && kind != 'b')
        throw py::type_error(std::string(kWhere) + ": labels must be of an integer dtype, not " +
                             std::string(py::str(labels.attr("dtype"))));
    LabelSamples samples;
    samples.shape = shapeOf(labels);
    samples.data = labels.data();
    samples.bytes = int(labels.dtype().itemsize());
    samples.isSigned = kind == 'i';

    std::optional<IntensitySamples> intensity;
    MeasureOptions options;
    py::array intensityArray;
    if (!intensityObject.is_none()) {
        intensityArray = py::reinterpret_borrow<py::array>(intensityObject);
        requireContiguous(intensityArray, "intensity image");
        const int dims = int(labels.ndim());
        bool sameShape = intensityArray.ndim() == dims || intensityArray.ndim() == dims + 1;
        for (int a = 0; sameShape && a < dims; ++a) sameShape = intensityArray.shape(a) == labels.shape(a);
        if (!sameShape)
            throw py::value_error(std::string(kWhere) + ": the intensity image's shape must be the labels' (plus a channel axis)");
        IntensitySamples s;
        s.shape = samples.shape;
        s.channels = intensityArray.ndim() == dims + 1 ? int(intensityArray.shape(dims)) : 1;
        options.intensityChannelAxis = intensityArray.ndim() == dims + 1;
        s.data = intensityArray.data();
        s.bytes = int(intensityArray.dtype().itemsize());
        const char k = intensityArray.dtype().kind();
        if (k == 'f') s.kind = SampleKind::Float;
        else if (k == 'i') s.kind = SampleKind::Signed;
        else if (k == 'u' || k == 'b') s.kind = SampleKind::Unsigned;
        else
            throw py::type_error(std::string(kWhere) + ": intensity of dtype " + std::string(py::str(intensityArray.attr("dtype"))) +
                                 " is not measured");
        intensity = s;
    }
    options.properties.properties = properties;
    if (spacing) options.properties.spacing = *spacing;
    options.properties.separator = separator;
    options.threads = threads.value_or(0);
    options.backgroundIsRegion = background;

    auto table = std::make_shared<PropertyTable>();
    auto work = [table, samples, intensity, options]() {
        *table = measureRegions(samples, intensity ? &*intensity : nullptr, options);
    };
    try {
        if (std::uint64_t(labels.size()) < kInterruptibleElements) {
            py::gil_scoped_release noGil;
            work();
        } else {
            PythonReferences keep{labels};
            if (intensity) keep.push_back(intensityArray);
            runInterruptibly(work, std::move(keep));
        }
    } catch (const Error& error) {
        throw py::value_error(std::string(kWhere) + ": " + userMessage(error.what()));
    }

    py::dict columns;
    for (auto& c : table->columns) {
        py::array column;
        switch (c.type) {
        case PropertyColumn::Type::Int64: column = py::array_t<std::int64_t>(py::ssize_t(c.ints.size()), c.ints.data()); break;
        case PropertyColumn::Type::UInt64: column = py::array_t<std::uint64_t>(py::ssize_t(c.uints.size()), c.uints.data()); break;
        default: column = py::array_t<double>(py::ssize_t(c.reals.size()), c.reals.data()); break;
        }
        columns[py::str(c.name)] = std::move(column);
    }
    return columns;
}

std::vector<std::string> termProperties() {
    std::vector<std::string> names;
    for (const auto& d : propertyDeclarations()) names.emplace_back(d.name);
    return names;
}

}  // namespace

void bindMeasure(py::module_& m) {
    m.def("measure_regions", &measureRegions, py::arg("labels"), py::arg("intensity").none() = py::none(),
          py::arg("properties"), py::arg("spacing").none() = py::none(), py::arg("separator") = "-",
          py::arg("threads").none() = py::none(), py::arg("background") = false,
          R"doc(measure_regions(labels, intensity, properties, spacing=None, separator="-", threads=None, background=False)

The columns of regionprops_table for `properties` (every one a name of
term_properties()), measured by the cpu engine: a dict of 1-D arrays, rows
in ascending label order. labels: a C-contiguous 2-D or 3-D array of an
integer (or bool) dtype; intensity: None or a C-contiguous array of the
labels' shape, with or without a trailing channel axis. background: label 0
is measured too, as the first row. glccl.regionprops_table is the entry to
call.)doc");
    m.def("term_properties", &termProperties,
          "The property names measure_regions computes (the others are computed from each region's crop).");
}

}  // namespace glccl::python

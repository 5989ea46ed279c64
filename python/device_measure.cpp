// The compiled side of measuring device arrays: the labels (and an integer
// intensity) read where they are, numbered, counted, boxed and measured on
// their GPU without the GIL; the totals finalized on the host into the
// columns measure_regions gives of host labels.

#include "device_measure.hpp"

#if GLCCL_HAVE_CUDA

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device_arrays.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/measure.hpp"
#include "glccl/region_properties.hpp"

namespace py = pybind11;

namespace glccl::python {
namespace {

// A device array's element type from its typestr ("<u4", "|i1", "|b1").
struct ElementType {
    char kind = 'u';
    int bytes = 4;
};

ElementType elementTypeOf(const DeviceView& view) {
    ElementType t;
    if (view.typestr.size() < 3) return {'?', 0};
    t.kind = view.typestr[1];
    try {
        t.bytes = std::stoi(view.typestr.substr(2));
    } catch (const std::exception&) {
        t.bytes = 0;
    }
    if (view.typestr[0] == '>' && t.bytes > 1) t.kind = '>';  // big-endian: no CUDA kernel reads it
    return t;
}

bool integerType(const ElementType& t) {
    return (t.kind == 'i' || t.kind == 'u' || t.kind == 'b') &&
           (t.bytes == 1 || t.bytes == 2 || t.bytes == 4 || t.bytes == 8);
}

py::dict columnsOf(const PropertyTable& table) {
    py::dict columns;
    for (const auto& c : table.columns) {
        py::array column;
        switch (c.type) {
            case PropertyColumn::Type::Int64:
                column = py::array_t<std::int64_t>(py::ssize_t(c.ints.size()), c.ints.data());
                break;
            case PropertyColumn::Type::UInt64:
                column = py::array_t<std::uint64_t>(py::ssize_t(c.uints.size()), c.uints.data());
                break;
            default: column = py::array_t<double>(py::ssize_t(c.reals.size()), c.reals.data()); break;
        }
        columns[py::str(c.name)] = std::move(column);
    }
    return columns;
}

py::dict deviceMeasureRegions(const py::handle& labelsObject, const py::object& intensityObject,
                              const std::vector<std::string>& properties,
                              const std::optional<std::vector<double>>& spacing, const std::string& separator,
                              bool background, const std::string& where) {
    DeviceView labels = readDeviceArray(labelsObject, "label_image", where);
    const std::size_t ndim = labels.shape.size();
    if (ndim != 2 && ndim != 3)
        throw py::value_error(where + ": label_image must have 2 or 3 dimensions, not " + std::to_string(ndim) +
                              " (shape " + shapeText(labels.shape) + ")");
    const ElementType labelType = elementTypeOf(labels);
    if (!integerType(labelType))
        throw py::type_error(where + ": device labels must be integers of 1 to 8 bytes in native byte order, not "
                                     "typestr '" + labels.typestr + "'");
    std::string why;
    if (!cuda::available(&why))
        throw std::runtime_error(where + ": device labels are measured with CUDA, which cannot run here: " + why);
    const int device = deviceOfArray(labelsObject, labels, "label_image", where);
    if (!isCContiguous(labels)) labels = contiguousCopy(labelsObject, labels, device, "label_image", where);
    const Shape shape = ndim == 3 ? Shape::volume(labels.shape[2], labels.shape[1], labels.shape[0])
                                  : Shape::image(labels.shape[1], labels.shape[0]);
    cuda::DeviceLabelSamples samples;
    samples.shape = shape;
    samples.data = reinterpret_cast<const void*>(labels.data);
    samples.bytes = labelType.bytes;
    samples.isSigned = labelType.kind == 'i';

    std::optional<IntensitySamples> intensity;
    DeviceView intensityView;
    int channels = 0, bits = 8;
    SampleKind kind = SampleKind::Unsigned;
    if (!intensityObject.is_none()) {
        intensityView = readDeviceArray(intensityObject, "intensity_image", where);
        if (intensityView.shape != labels.shape)
            throw py::value_error(where + ": a device intensity_image must have the labels' shape " +
                                  shapeText(labels.shape) + " (one channel), not " + shapeText(intensityView.shape));
        const ElementType t = elementTypeOf(intensityView);
        if (!integerType(t))
            throw py::type_error(where + ": a device intensity_image is measured on the GPU when it holds "
                                         "integers or booleans, not typestr '" + intensityView.typestr +
                                         "' (floating-point intensities are measured on the host)");
        if (deviceOfArray(intensityObject, intensityView, "intensity_image", where) != device)
            throw py::value_error(where + ": intensity_image is on another device than label_image");
        if (!isCContiguous(intensityView))
            intensityView = contiguousCopy(intensityObject, intensityView, device, "intensity_image", where);
        IntensitySamples s;
        s.shape = shape;
        s.channels = 1;
        s.data = reinterpret_cast<const void*>(intensityView.data);
        s.bytes = t.bytes;
        s.kind = t.kind == 'i' ? SampleKind::Signed : SampleKind::Unsigned;
        intensity = s;
        channels = 1;
        kind = s.kind;
        bits = t.bytes * 8;
    }

    TermRequest request;
    PropertyOptions options;
    options.properties = properties;
    if (spacing) options.spacing = *spacing;
    options.separator = separator;
    try {
        request = termsFor(properties, shape.dimensions, channels, kind, bits);
    } catch (const Error& error) {
        throw py::value_error(where + ": " + userMessage(error.what()));
    }

    // The labels' stream orders the work; an intensity queued on another
    // stream is waited for first.
    CUstream_st* stream = labels.stream ? labels.stream : intensityView.stream;
    PropertyTable table;
    std::string failure;
    {
        py::gil_scoped_release noGil;
        CurrentDevice current(device);
        try {
            if (intensity && intensityView.stream && intensityView.stream != stream &&
                cudaStreamSynchronize(intensityView.stream) != cudaSuccess) {
                failure = std::string("waiting for the intensity's stream: ") + cudaGetErrorString(cudaGetLastError());
            } else {
                const IntensitySamples* read = intensity ? &*intensity : nullptr;
                const RegionTotals totals = cuda::measureDeviceLabels(samples, request, read, background, stream);
                table = finalizeProperties(totals, options);
            }
        } catch (const Error& error) {
            failure = userMessage(error.what());
        }
    }
    if (!failure.empty()) throw py::value_error(where + ": " + failure);
    return columnsOf(table);
}

}  // namespace

void bindDeviceMeasure(py::module_& m) {
    m.def("device_measure_regions", &deviceMeasureRegions, py::arg("labels"), py::arg("intensity").none() = py::none(),
          py::arg("properties"), py::arg("spacing").none() = py::none(), py::arg("separator") = "-",
          py::arg("background") = false, py::arg("where") = "glccl.device_measure_regions()",
          R"doc(device_measure_regions(labels, intensity, properties, spacing=None, separator="-", background=False, where=...)

measure_regions for labels in CUDA device memory (CuPy, torch CUDA tensors,
__cuda_array_interface__ or CUDA DLPack producers): the same columns, every
distinct positive label a region (label 0 too where background), rows in
ascending label order, gathered on the labels' GPU on their stream. labels:
a 2-D or 3-D array of integers of 1 to 8 bytes (any layout; other than C
order copied on the device first); intensity: None or a device array of the
labels' shape holding integers or booleans (one channel; floating-point
intensities are measured on the host: glccl/_measure.py copies them there).
Only the table of totals comes back to the host. where: the entry named in
errors. glccl.regionprops_table is the entry to call.)doc");
}

}  // namespace glccl::python

#else

namespace glccl::python {

void bindDeviceMeasure(pybind11::module_&) {}

}  // namespace glccl::python

#endif

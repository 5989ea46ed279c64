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
#include <type_traits>
#include <vector>

#include "device_arrays.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/measure.hpp"
#include "glccl/region_properties.hpp"
#include "measure_binding.hpp"

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
    return columnsOf(std::move(table));
}

// sumsByLabel for CuPy arrays: labels and values C-ordered on one device,
// the sorted list int64 (uint64 for uint64 labels), outputs (name -> array)
// written in place: counts, minimums, minimum_at, maximums, maximum_at as
// int64; sums, centred, centre-0.. as float64; each of the list's length.
void deviceSumsByLabel(const py::handle& labelsObject, const py::object& valuesObject, const py::handle& listObject,
                       unsigned terms, const py::dict& outputs, const std::string& where) {
    DeviceView labels = readDeviceArray(labelsObject, "labels", where);
    const ElementType labelType = elementTypeOf(labels);
    if (!integerType(labelType) || !isCContiguous(labels))
        throw py::type_error(where + ": labels must be C-ordered integers of 1 to 8 bytes, not typestr '" +
                             labels.typestr + "'");
    const std::size_t axes = labels.shape.size();
    if (axes < 1 || axes > 3) throw py::value_error(where + ": labels of 1 to 3 axes, not " + std::to_string(axes));
    std::string why;
    if (!cuda::available(&why))
        throw std::runtime_error(where + ": device labels are measured with CUDA, which cannot run here: " + why);
    const int device = deviceOfArray(labelsObject, labels, "labels", where);
    auto side = [&](std::size_t axis) { return axis < axes ? int(labels.shape[axes - 1 - axis]) : 1; };
    cuda::DeviceLabelSamples labelSamples;
    labelSamples.shape = axes == 3 ? Shape::volume(side(0), side(1), side(2)) : Shape::image(side(0), side(1));
    labelSamples.data = reinterpret_cast<const void*>(labels.data);
    labelSamples.bytes = labelType.bytes;
    labelSamples.isSigned = labelType.kind == 'i';

    cuda::DeviceLabelSamples valueSamples;
    DeviceView values;
    if (!valuesObject.is_none()) {
        values = readDeviceArray(valuesObject, "input", where);
        const ElementType t = elementTypeOf(values);
        if (values.shape != labels.shape || !isCContiguous(values) || !integerType(t) || t.bytes > 4)
            throw py::type_error(where + ": input must be C-ordered integers or booleans of 1 to 4 bytes of the "
                                         "labels' shape, not typestr '" + values.typestr + "' of shape " +
                                 shapeText(values.shape));
        if (deviceOfArray(valuesObject, values, "input", where) != device)
            throw py::value_error(where + ": input is on another device than labels");
        valueSamples.shape = labelSamples.shape;
        valueSamples.data = reinterpret_cast<const void*>(values.data);
        valueSamples.bytes = t.bytes;
        valueSamples.isSigned = t.kind == 'i';
    }
    const DeviceView list = readDeviceArray(listObject, "index", where);
    const char listKind = labelType.kind == 'u' && labelType.bytes == 8 ? 'u' : 'i';
    if (list.shape.size() != 1 || !isCContiguous(list) || list.typestr != std::string("<") + listKind + "8")
        throw py::type_error(where + ": the sorted labels must be a 1-D " + (listKind == 'u' ? "uint64" : "int64") +
                             " array, not typestr '" + list.typestr + "'");
    const std::size_t count = std::size_t(list.shape[0]);

    cuda::LabelSumsOutput out;
    auto output = [&](const char* name, const char* typestr, auto*& pointer) {
        if (!outputs.contains(name)) return;
        const DeviceView view = writableView(outputs[name], name, where);
        if (view.typestr != typestr || view.shape.size() != 1 || std::size_t(view.shape[0]) != count ||
            !isCContiguous(view))
            throw py::type_error(where + ": output '" + name + "' must be a C-ordered " + typestr + " array of " +
                                 std::to_string(count) + " elements");
        pointer = reinterpret_cast<std::remove_reference_t<decltype(pointer)>>(view.data);
    };
    output("counts", "<i8", out.counts);
    output("sums", "<f8", out.sums);
    output("centred", "<f8", out.centred);
    output("minimums", "<i8", out.minimums);
    output("minimum_at", "<i8", out.minimumAt);
    output("maximums", "<i8", out.maximums);
    output("maximum_at", "<i8", out.maximumAt);
    const char* centres[3] = {"centre-0", "centre-1", "centre-2"};
    for (std::size_t axis = 0; axis < axes; ++axis) output(centres[axis], "<f8", out.centres[axis]);

    CUstream_st* stream = labels.stream ? labels.stream : values.stream;
    std::string failure;
    {
        py::gil_scoped_release noGil;
        CurrentDevice current(device);
        try {
            if (values.stream && values.stream != stream && cudaStreamSynchronize(values.stream) != cudaSuccess)
                failure = std::string("waiting for the input's stream: ") + cudaGetErrorString(cudaGetLastError());
            else
                cuda::sumsByLabel(labelSamples, int(axes), valueSamples, reinterpret_cast<const void*>(list.data),
                                  count, terms, out, stream);
        } catch (const Error& error) {
            failure = userMessage(error.what());
        }
    }
    if (!failure.empty()) throw py::value_error(where + ": " + failure);
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
    m.def("device_sums_by_label", &deviceSumsByLabel, py::arg("labels"), py::arg("values").none(),
          py::arg("sorted_labels"), py::arg("terms"), py::arg("outputs"), py::arg("where"),
          R"doc(device_sums_by_label(labels, values, sorted_labels, terms, outputs, where)

scipy.ndimage's reductions over labels for a list of labels, on the GPU
where the arrays are (glccl::cuda::sumsByLabel): labels C-ordered integers
of 1 to 8 bytes (1 to 3 axes), values None or C-ordered integers/booleans of
1 to 4 bytes of the same shape, sorted_labels the distinct labels asked in
ascending order (int64; uint64 for uint64 labels), terms the bits count 1,
sum 2, squares 4, extrema 8, centre 16. outputs: name -> device array of
sorted_labels' length written in place (counts, minimums, minimum_at,
maximums, maximum_at: int64; sums, centred, centre-0..: float64). Queued on
the labels' stream. glccl.cupyx's functions are the entries to call.)doc");
}

}  // namespace glccl::python

#else

namespace glccl::python {

void bindDeviceMeasure(pybind11::module_&) {}

}  // namespace glccl::python

#endif

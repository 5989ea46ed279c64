// glccl._glccl, the compiled module of the package `glccl` (python/glccl/,
// whose __init__.py wraps these entries with their Python signatures, the
// table type and the drop-ins): connected-component labeling of numpy (and,
// with CUDA, CuPy) images. The module's entries, top-down:
//
//   label()          arguments.cpp (connectivity, criterion, backend)
//                    -> host_image.cpp (numpy -> the image to label: the
//                       array's own memory, or a glccl::Image at its sampleBits)
//                    -> shared_context.cpp (the process's one GL context)
//                    -> label_arrays.cpp (labels and table as numpy arrays,
//                       label storage recycled through buffer_pool.hpp)
//                    on a worker thread for long calls: interruptible.cpp
//                    (Ctrl-C, the progress callback)
//                    or, for a device array, device_arrays.cpp (cuda backend)
//   glccl.Labeler    labeler_object.cpp: the same, with buffers kept
//   glccl.backends() shared_context.cpp
//   host_relabel() and the other host_* entries: host_label_filters.cpp,
//                    the helpers of glccl/_helpers.py on numpy arrays
//   device_relabel() and the other device_* entries: label_filters.cpp, the
//                    helpers of glccl/_helpers.py on device arrays
//   measure_regions() measure_binding.cpp: region properties (glccl/_measure.py);
//                    label(measure=) gathers them with the labeling's engine
//   device_measure_regions() device_measure.cpp: the same of device labels, on their GPU

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "buffer_pool.hpp"
#include "device_arrays.hpp"
#include "device_measure.hpp"
#include "glccl/error.hpp"
#include "glccl/version.hpp"
#include "host_image.hpp"
#include "host_sums.hpp"
#include "interruptible.hpp"
#include "label_arrays.hpp"
#include "label_filters.hpp"
#include "labeler_object.hpp"
#include "measure_binding.hpp"
#include "process_wide.hpp"
#include "shared_context.hpp"

namespace py = pybind11;

namespace glccl::python {

namespace {

// The storage of a component table, kept from one call to the next: a noisy
// image's table is hundreds of megabytes, and the page faults of fresh
// memory cost more than labeling it. One spare, at most kMaxBytes; a call
// that finds none (another thread holds it) allocates.
class SpareComponents {
public:
    static constexpr std::size_t kMaxBytes = std::size_t(2) << 30;
    std::vector<Component> take() {
        std::vector<Component> taken;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            taken.swap(spare_);
        }
        taken.clear();  // keeps the capacity
        return taken;
    }
    void giveBack(std::vector<Component>&& table) noexcept {
        if (table.capacity() * sizeof(Component) > kMaxBytes) return;
        std::lock_guard<std::mutex> lock(mutex_);
        if (table.capacity() > spare_.capacity()) spare_.swap(table);  // the smaller goes with `table`
    }

private:
    std::mutex mutex_;
    std::vector<Component> spare_;
};

SpareComponents& spareComponents() { return processWide<SpareComponents>(); }

// One host call's state, shared with the worker that labels it. It holds no
// Python object: the array it reads is kept alive by runInterruptibly.
struct HostCall {
    HostArray source;
    LabelOptions options;
    GlContext gl = GlContext::Desktop;  // the context compute and raster label in
    LabelStorage labels;  // storage of a label array numpy freed, where one has this size
    std::uint32_t* out = nullptr;  // or the caller's out=, where the labels are written straight into it
    bool copyFirst = false;        // out may share memory with the array: label a copy of the array
    std::vector<Component> components;
    LabelProgress progress;  // what the progress callback is told
    // glccl.label(properties=): measured by the engine that labeled, under
    // the same hold of the Session; null: nothing measured.
    std::shared_ptr<LabelingMeasurement> measurement;
};

// The share of a call that copies its array (a layout or sample width the
// engines do not read in place) before labeling it: one pass over the
// elements, against the several of labeling.
constexpr double kCopyShare = 0.1;

// Reads (copies, where it must) and labels call.source into call.labels and
// call.components. Needs no GIL.
void labelHostCall(HostCall& call, const std::string& where) {
    const std::size_t count = std::size_t(call.source.shape().count());
    std::optional<ImageView> view;
    if (!call.copyFirst) view = imageViewOf(call.source, call.options.criterion);
    const double readShare = view ? 0.0 : kCopyShare;
    call.progress.beginStage("read", 0.0, readShare);
    LabelPool::Lease labelStorage(releasedLabels(), call.labels, call.out ? 0 : count);
    PixelStorage copy;  // where the array is not labeled in place: storage from, and back to, releasedPixels()
    PixelPool::Lease copyStorage(releasedPixels(), copy, view ? 0 : call.source.imageBytes());
    if (!view) view = copyToPixels(call.source, copy, where);
    call.progress.endStage();
    call.progress.setSpan(readShare, 1.0);
    LabelOptions options = call.options;
    options.progress = &call.progress;
    std::uint32_t* labels = call.out ? call.out : call.labels.data();
    if (call.measurement) {
        const Shape shape = call.source.shape();
        labelHostImage(*view, options, call.gl, labels, call.components, where, [&](Session& session, const Route&) {
            measureLabeling(session, *call.measurement, labels, shape, call.components);
        });
    } else {
        labelHostImage(*view, options, call.gl, labels, call.components, where);
    }
    labelStorage.release();  // the array returned owns it
}

py::tuple label(const py::object& image, const py::object& connectivity, const py::object& criterion,
                const py::object& backend, bool returnTable, const py::object& channelAxisArgument,
                const py::object& progress, const py::object& threads, const py::object& out,
                const py::object& measure, const py::object& glArgument) {
    const std::string where = "glccl.label()";
    LabelOptions options;
    options.criterion = parseCriterion(criterion, where);
    options.backend = parseBackend(backend, where);
    options.threads = parseThreads(threads, where);
    const GlContext gl = parseGlContext(glArgument, where);
    checkGlContextFits(gl, options.backend, where);
    const std::optional<int> channelAxis = parseChannelAxis(channelAxisArgument, where);
    const ProgressCallback progressCallback(progress, where);
    if (isDeviceArray(image)) {
        if (!measure.is_none())
            throw py::type_error(where + ": properties are measured on host labels; label a numpy image");
        if (gl == GlContext::Es)
            throw py::value_error(where + ": gl='es' chooses the GL context of the compute and raster backends, "
                                          "which label host images; a device array is labeled by cuda (leave out gl)");
        options.connectivity = parseConnectivity(connectivity, deviceArrayDimensions(image, channelAxis), where);
        checkDeviceArrayShape(image, options.connectivity, channelAxis, where);
        return labelDeviceArray(image, py::none(), options.connectivity, options.criterion, options.backend,
                                returnTable, sharedDeviceLabelers(), where);
    }

    auto call = std::make_shared<HostCall>();
    call->progress.beginStage("read", 0.0, 0.0);
    call->components = spareComponents().take();
    call->source = describeHostArray(image, options.criterion, channelAxis, where);
    const Shape shape = call->source.shape();
    parseNeighbours(connectivity, shape.dimensions, options, where);
    checkConnectivityFits(options.connectivity, shape, where);
    checkCriterionForSampleBits(options.criterion, call->source.sampleBits, where);
    call->options = options;
    call->gl = gl;
    call->out = labelsInto(out, shape);
    call->copyFirst = call->out && mayShareMemory(py::reinterpret_borrow<py::array>(out), call->source.array);
    PythonReferences measured;  // the intensity the measurement reads
    call->measurement = labelingMeasurement(measure, shape, measured, where);
    if (call->measurement) call->measurement->threads = options.threads;
    // glccl::Error is a std::runtime_error: pybind11 raises it as
    // RuntimeError with glccl's message, on the calling thread with the GIL.
    if (progress.is_none() && shape.count() < kInterruptibleElements) {
        py::gil_scoped_release noGil;
        labelHostCall(*call, where);
    } else {
        PythonReferences keepAlive;
        keepAlive.push_back(py::reinterpret_steal<py::object>(call->source.array.release()));
        if (call->out) keepAlive.push_back(out);
        for (auto& reference : measured) keepAlive.push_back(std::move(reference));
        runInterruptibly([call, where] { labelHostCall(*call, where); },
                         std::shared_ptr<const LabelProgress>(call, &call->progress), progressCallback,
                         std::move(keepAlive));
    }
    py::object labels = call->out ? out : adoptLabels(std::move(call->labels), shape);
    py::tuple result = call->measurement
                           ? py::make_tuple(std::move(labels), call->components.size(), measuredColumns(*call->measurement),
                                            backendName(call->measurement->gatherer))
                           : labelResult(std::move(labels), call->components, returnTable, shape.dimensions == 3);
    spareComponents().giveBack(std::move(call->components));
    return result;
}

py::list backends(const py::object& glArgument) {
    const GlContext gl = parseGlContext(glArgument, "glccl.backends()");
    std::vector<BackendReport> reports;
    {
        py::gil_scoped_release noGil;
        reports = backendReports(gl);
    }
    py::list out;
    for (const BackendReport& report : reports) {
        py::dict entry;
        entry["name"] = backendName(report.backend);
        entry["available"] = report.whyNot.empty();
        entry["reason"] = report.whyNot;
        entry["device"] = report.device;
        entry["gpu"] = report.gpu;
        entry["software_renderer"] = report.softwareRenderer;
        entry["note"] = report.note;
        out.append(entry);
    }
    return out;
}

bool cudaRunsHere() {
    py::gil_scoped_release noGil;
    return cudaRuns();
}

constexpr const char* kLabelDoc = R"doc(The compiled entry of glccl.label() (see help(glccl.label)): the same
arguments but dtype, out= only where the labels go into it as they are (else
ignored), and (labels, n) or (labels, n, dict of columns). measure: None, or
(term properties, intensity or None, spacing or None) as glccl/_measure.py
checks them, gathered by the engine that labeled (on its GPU where it can):
then (labels, n, dict of the properties' columns, name of the engine whose
gatherer ran: compute, raster, cuda, or cpu for the host's). gl: "desktop" or
"es", the GL context compute and raster label in.)doc";

}  // namespace

}  // namespace glccl::python

PYBIND11_MODULE(_glccl, m) {
    using namespace glccl::python;
    m.doc() = R"doc(glccl._glccl: the compiled module of the glccl package, which re-exports
its entries (help(glccl)).

One headless OpenGL context (EGL) is created on the first call and kept for
the life of the process (and an OpenGL ES one beside it where gl="es" is
asked for); they are used from one thread at a time under one lock,
and every function releases the GIL while it labels, so all of glccl is
thread-safe. See help(glccl.label) and help(glccl.Labeler).)doc";
    // The library's errors reach Python as RuntimeError, in the user's words:
    // without the C++ entries their messages start with.
    py::register_exception_translator([](std::exception_ptr thrown) {
        try {
            if (thrown) std::rethrow_exception(thrown);
        } catch (const glccl::Error& error) {
            PyErr_SetString(PyExc_RuntimeError, glccl::userMessage(error.what()).c_str());
        }
    });
    m.attr("__version__") = glccl::versionString();
    m.attr("built_with_cuda") = builtWithCuda();
    m.def("cuda_runs", &cudaRunsHere, "Whether the cuda backend runs here (glccl.has_cuda).");
    m.def(
        "checked_threads",
        [](const py::object& threads, const std::string& where) -> py::object {
            const int count = parseThreads(threads, where);
            return count == 0 ? py::object(py::none()) : py::object(py::int_(count));
        },
        py::arg("threads"), py::arg("where"),
        "threads as glccl.label() takes them: None (every core) or 1..the most a call may ask for; TypeError, "
        "ValueError otherwise.");

    m.def("label", &label, py::arg("image"), py::arg("connectivity").none() = py::none(),
          py::arg("criterion") = "binary", py::arg("backend") = "auto", py::arg("return_table") = false,
          py::arg("channel_axis").none() = py::none(), py::arg("progress").none() = py::none(),
          py::arg("threads").none() = py::none(), py::arg("out").none() = py::none(),
          py::arg("measure").none() = py::none(), py::arg("gl") = "desktop", kLabelDoc);
    m.def("backends", &backends, py::arg("gl") = "desktop", R"doc(backends(gl="desktop")

The labeling engines, whether they run in this process, on what, and what
to expect of them: a list of dicts, "auto" first, with the keys
  name               the backend= value
  available          whether it runs here
  reason             why not ("" when available)
  device             where it labels: "CPU (8 threads)", the GL renderer and
                     its EGL platform, the CUDA device ("" for auto and
                     where it cannot run)
  gpu                whether it labels on a GPU
  software_renderer  a GL engine (compute, raster) on a renderer that runs
                     on the CPU, such as Mesa's llvmpipe: available, but
                     many times slower than the cpu backend, and never
                     chosen by auto
  note               what to expect, in a sentence ("" where nothing
                     needs saying): for auto, the backend it chooses here
"auto" is always available. Creates the shared GL context on first use.
gl: the GL context compute and raster are asked about, "desktop" (an OpenGL
core profile context) or "es" (OpenGL ES 3, as glccl.label(gl="es")).)doc");
    bindLabeler(m);
    bindLabelBatch(m);
    bindLabelFilters(m);
    bindHostLabelFilters(m);
    bindMeasure(m);
    bindDeviceMeasure(m);
    bindHostSums(m);
}

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
#include "glccl/version.hpp"
#include "host_image.hpp"
#include "interruptible.hpp"
#include "label_arrays.hpp"
#include "label_filters.hpp"
#include "labeler_object.hpp"
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
    LabelStorage labels;  // storage of a label array numpy freed, where one has this size
    std::uint32_t* out = nullptr;  // or the caller's out=, where the labels are written straight into it
    bool copyFirst = false;        // out may share memory with the array: label a copy of the array
    std::vector<Component> components;
    std::atomic<const char*> stage{"read"};  // what the progress callback is told
};

// Reads (copies, where it must) and labels call.source into call.labels and
// call.components. Needs no GIL.
void labelHostCall(HostCall& call, const std::string& where) {
    const std::size_t count = std::size_t(call.source.shape().count());
    LabelPool::Lease labelStorage(releasedLabels(), call.labels, call.out ? 0 : count);
    std::optional<ImageView> view;
    if (!call.copyFirst) view = imageViewOf(call.source, call.options.criterion);
    PixelStorage copy;  // where the array is not labeled in place: storage from, and back to, releasedPixels()
    PixelPool::Lease copyStorage(releasedPixels(), copy, view ? 0 : call.source.imageBytes());
    if (!view) view = copyToPixels(call.source, copy, where);
    call.stage = "label";
    labelHostImage(*view, call.options, call.out ? call.out : call.labels.data(), call.components, where);
    labelStorage.release();  // the array returned owns it
}

py::tuple label(const py::object& image, const py::object& connectivity, const py::object& criterion,
                const py::object& backend, bool returnTable, const py::object& channelAxisArgument,
                const py::object& progress, const py::object& threads, const py::object& out) {
    const std::string where = "glccl.label()";
    LabelOptions options;
    options.criterion = parseCriterion(criterion, where);
    options.backend = parseBackend(backend, where);
    options.threads = parseThreads(threads, where);
    const std::optional<int> channelAxis = parseChannelAxis(channelAxisArgument, where);
    if (!progress.is_none() && !PyCallable_Check(progress.ptr()))
        throw py::type_error(where + ": progress must be None or a callable taking (stage, seconds), not " +
                             std::string(py::str(py::type::of(progress).attr("__name__"))));
    if (isDeviceArray(image)) {
        options.connectivity = parseConnectivity(connectivity, deviceArrayDimensions(image, channelAxis), where);
        checkDeviceArrayShape(image, options.connectivity, channelAxis, where);
        return labelDeviceArray(image, py::none(), options.connectivity, options.criterion, options.backend,
                                returnTable, sharedDeviceLabelers(), where);
    }

    auto call = std::make_shared<HostCall>();
    call->components = spareComponents().take();
    call->source = describeHostArray(image, options.criterion, channelAxis, where);
    const Shape shape = call->source.shape();
    parseNeighbours(connectivity, shape.dimensions, options, where);
    checkConnectivityFits(options.connectivity, shape, where);
    checkCriterionForSampleBits(options.criterion, call->source.sampleBits, where);
    call->options = options;
    call->out = labelsInto(out, shape);
    call->copyFirst = call->out && mayShareMemory(py::reinterpret_borrow<py::array>(out), call->source.array);
    // glccl::Error is a std::runtime_error: pybind11 raises it as
    // RuntimeError with glccl's message, on the calling thread with the GIL.
    if (progress.is_none() && shape.count() < kInterruptibleElements) {
        py::gil_scoped_release noGil;
        labelHostCall(*call, where);
    } else {
        PythonReferences keepAlive;
        keepAlive.push_back(py::reinterpret_steal<py::object>(call->source.array.release()));
        if (call->out) keepAlive.push_back(out);
        runInterruptibly([call, where] { labelHostCall(*call, where); }, [call] { return call->stage.load(); },
                         progress, std::move(keepAlive));
    }
    py::tuple result = labelResult(call->out ? out : adoptLabels(std::move(call->labels), shape), call->components,
                                   returnTable, shape.dimensions == 3);
    spareComponents().giveBack(std::move(call->components));
    return result;
}

py::list backends() {
    std::vector<BackendRow> rows;
    {
        py::gil_scoped_release noGil;
        rows = backendRows();
    }
    py::list out;
    for (const BackendRow& row : rows) {
        py::dict entry;
        entry["name"] = row.name;
        entry["available"] = row.whyNot.empty();
        entry["reason"] = row.whyNot;
        out.append(entry);
    }
    return out;
}

constexpr const char* kLabelDoc = R"doc(The compiled entry of glccl.label() (see help(glccl.label)): the same
arguments but dtype, out= only where the labels go into it as they are (else
ignored), and (labels, n) or (labels, n, dict of columns).)doc";

}  // namespace

}  // namespace glccl::python

PYBIND11_MODULE(_glccl, m) {
    using namespace glccl::python;
    m.doc() = R"doc(glccl._glccl: the compiled module of the glccl package, which re-exports
its entries (help(glccl)).

One headless OpenGL context (EGL) is created on the first call and kept for
the life of the process; it is used from one thread at a time under a lock,
and every function releases the GIL while it labels, so all of glccl is
thread-safe. See help(glccl.label) and help(glccl.Labeler).)doc";
    m.attr("__version__") = glccl::versionString();
    m.attr("has_cuda") = builtWithCuda();

    m.def("label", &label, py::arg("image"), py::arg("connectivity").none() = py::none(),
          py::arg("criterion") = "binary", py::arg("backend") = "auto", py::arg("return_table") = false,
          py::arg("channel_axis").none() = py::none(), py::arg("progress").none() = py::none(),
          py::arg("threads").none() = py::none(), py::arg("out").none() = py::none(), kLabelDoc);
    m.def("backends", &backends, R"doc(backends()

The labeling engines and whether they run in this process: a list of dicts
{"name": str, "available": bool, "reason": str}, "reason" saying why not
("" when available). "auto" is always available. Creates the shared GL
context on first use.)doc");
    bindLabeler(m);
    bindLabelBatch(m);
    bindLabelFilters(m);
    bindHostLabelFilters(m);
}

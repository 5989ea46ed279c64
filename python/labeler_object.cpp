#include "labeler_object.hpp"

#include <pybind11/numpy.h>

#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "arguments.hpp"
#include "device_arrays.hpp"
#include "host_image.hpp"
#include "label_arrays.hpp"
#include "shared_context.hpp"

namespace glccl::python {

namespace {

namespace py = pybind11;

// Takes `mutex`, waiting without the GIL: the thread that holds the mutex
// may need the GIL to finish its call.
std::unique_lock<std::mutex> lockWithoutGil(std::mutex& mutex) {
    std::unique_lock<std::mutex> lock(mutex, std::try_to_lock);
    if (!lock.owns_lock()) {
        py::gil_scoped_release noGil;
        lock.lock();
    }
    return lock;
}

class Labeler {
public:
    Labeler(const py::object& connectivity, const py::object& criterion, const py::object& backend,
            const py::object& threads, const py::object& gl) {
        const std::string where = "glccl.Labeler()";
        options_.connectivity = parseConnectivity(connectivity, 2, where);
        // A glccl.Labeler labels 2-D images: the rule of every 2-D shape.
        checkConnectivityFits(options_.connectivity, Shape{}, where);
        options_.criterion = parseCriterion(criterion, where);
        options_.backend = parseBackend(backend, where);
        options_.threads = parseThreads(threads, where);
        gl_ = parseGlContext(gl, where);
        checkGlContextFits(gl_, options_.backend, where);
    }

    py::tuple label(const py::object& image, const py::object& out, bool returnTable,
                    const py::object& channelAxisArgument) {
        const std::string where = "glccl.Labeler.label()";
        const std::optional<int> channelAxis = parseChannelAxis(channelAxisArgument, where);
        const std::unique_lock<std::mutex> lock = lockWithoutGil(mutex_);
        if (isDeviceArray(image)) {
            if (gl_ == GlContext::Es)
                throw py::value_error(where + ": this Labeler labels in an OpenGL ES context (gl='es'), which "
                                              "labels host images; a device array is labeled by cuda");
            checkDeviceArrayShape(image, options_.connectivity, channelAxis, where);
            Backend ran = Backend::Auto;
            py::tuple result = labelDeviceArray(image, out, options_.connectivity, options_.criterion,
                                                options_.backend, returnTable, device_, where, &ran);
            lastBackend_ = ran;
            return result;
        }
        if (!out.is_none() && isDeviceArray(out))
            throw py::type_error(where + ": out is a device array but the image is in host memory");

        const HostArray source = describeHostArray(image, options_.criterion, channelAxis, where);
        if (source.volume)
            throw py::value_error(where + ": the array is a volume (D, H, W); a glccl.Labeler labels 2-D images "
                                          "(label volumes with glccl.label)");
        checkConnectivityFits(options_.connectivity, Shape::image(source.width, source.height), where);
        checkCriterionForSampleBits(options_.criterion, source.sampleBits, where);

        // Where the labels go: an array this Labeler handed out (passed back
        // as out, or no longer referenced by anyone), or a C-contiguous out,
        // is written in place; a strided out gets a copy; otherwise a new
        // array is kept for reuse.
        LabelArrays::Slot* slot = nullptr;
        std::optional<py::array> foreign;  // (py::array() would be an empty array, not null)
        if (!out.is_none()) {
            checkOutArray(out, source.height, source.width, where);
            slot = arrays_.find(out);
            if (!slot) foreign = py::reinterpret_borrow<py::array>(out);
        } else {
            slot = arrays_.reusable(source.height, source.width);
        }
        // An out that is the image, or overlaps it, is written only once the
        // image is copied: labels written while the image is read would be
        // read as pixels.
        const bool overlaps = (slot && mayShareMemory(slot->array, source.array)) ||
                              (foreign && mayShareMemory(*foreign, source.array));
        const std::size_t count = std::size_t(source.width) * std::size_t(source.height);
        std::uint32_t* target = slot ? slot->storage->data() : foreign ? packedLabels(*foreign) : nullptr;
        const bool strided = foreign && !target;
        LabelStorage fresh;  // a new kept array's storage
        Backend ran = Backend::Auto;
        {
            py::gil_scoped_release noGil;
            std::optional<ImageView> view;
            if (!overlaps) view = imageViewOf(source, options_.criterion);
            if (!view) view = copyToPixels(source, image_, where);
            if (strided) {
                scratch_.resize(count);
                target = scratch_.data();
            } else if (!target) {
                fresh.resize(count);
                target = fresh.data();
            }
            ran = labelHostImage(*view, options_, gl_, target, components_, where);
            if (strided) copyLabels(scratch_, *foreign);
        }
        lastBackend_ = ran;

        py::object labels;
        if (slot) labels = slot->array;
        else if (foreign) labels = *foreign;
        else labels = arrays_.keep(std::move(fresh), source.height, source.width).array;
        return labelResult(std::move(labels), components_, returnTable);
    }

    int connectivity() const { return neighbourCount(options_.connectivity); }
    std::string criterion() const { return options_.criterion.toString(); }
    std::string backend() const { return backendName(options_.backend); }
    std::string gl() const { return gl_ == GlContext::Es ? "es" : "desktop"; }
    py::object lastBackend() const {
        if (!lastBackend_) return py::none();
        return py::str(backendName(*lastBackend_));
    }
    std::string repr() const {
        return "glccl.Labeler(connectivity=" + std::to_string(connectivity()) + ", criterion='" + criterion() +
               "', backend='" + backend() + "'" + (gl_ == GlContext::Es ? ", gl='es'" : "") + ")";
    }

private:
    std::mutex mutex_;           // one call at a time on this object's buffers
    LabelOptions options_;
    GlContext gl_ = GlContext::Desktop;  // the context compute and raster label in
    PixelStorage image_;         // the host copy of an image that needs one, reused while its size repeats
    LabelStorage scratch_;       // labels on their way to a strided out
    std::vector<Component> components_;     // the table, reused
    LabelArrays arrays_;         // label arrays handed out, refilled once released
    DeviceLabelers device_;      // device arrays: this object's cuda labelers
    std::optional<Backend> lastBackend_;
};

constexpr const char* kClassDoc = R"doc(Labeler(connectivity=8, criterion="binary", backend="auto", gl="desktop")

Labels many images with one connectivity, criterion and backend (the frames
of a video, a batch of tiles), keeping its buffers from one call to the next.

    labeler = glccl.Labeler(connectivity=8, backend="auto")
    for frame in frames:                       # numpy arrays of one shape
        labels, n = labeler.label(frame)

What is reused. The process's GL context and, in it, the input texture and
the Labeler's buffers (while the size repeats); the table storage; the host
copy of an image that needs one (see glccl.label(): C-contiguous bool,
uint8, uint16 and uint32 images are uploaded from their own memory, others
copied once, into a buffer kept while the shape and dtype repeat); and the
label arrays it returns, into which the labels are downloaded directly: it
keeps the last two, and refills one once nothing else refers to it (in the
loop above, the frame before the previous one), so a steady loop allocates
no label array. Pass out= to choose the array.
The labels of a call are complete when label() returns.

Memory: up to two label arrays of the last shape stay alive as long as the
Labeler does (4 bytes a pixel each), and, once a strided out= was filled,
the labels' way to it (4 bytes a pixel); delete the Labeler to free them.

Arguments as for glccl.label(): connectivity 4 or 8 (or 1, 2; 6, 18 and 26
are for volumes and refused on 2-D images when labeling), criterion
"binary", "segments", ("threshold", T), ("binary", L), backend "auto",
"compute", "raster", "cuda" or "cpu", gl "desktop" or "es" (the GL context
compute and raster label in; with "es" raster runs, and compute from
OpenGL ES 3.1 with image atomics).
Wrong values raise at construction.

Thread-safety. A Labeler is safe to call from several threads; its calls
run one at a time. All Labelers and glccl.label() share the process's
headless GL contexts (a desktop one, and an OpenGL ES one where gl="es" is
asked for), which are used from one thread at a time under one lock,
so GL labeling is serialized across the process (two Labelers of different
sizes used in turns re-create the shared input texture on each switch). The
GIL is released while an image is read (copied, where it needs a copy) and
labeled, so other Python threads run meanwhile; they must not write to the
image or out during the call.

CuPy. In a module built with CUDA, a device array (__cuda_array_interface__)
is labeled on its device by the cuda backend (backend "auto" or "cuda"), with
this Labeler's own cuda labeler, which keeps its device buffers between
calls; the labels come back as a CuPy uint32 array, or in out=.)doc";

constexpr const char* kLabelerLabelDoc = R"doc(label(image, out=None, return_table=False, channel_axis=None)

Labels one image; see glccl.label() for the image's dtypes and shapes, the
numbering and the table.

Parameters
----------
image : numpy.ndarray or device array
    (H, W) (or (H, W, 3|4) for threshold, with channel_axis=-1) array in
    host memory, or a CuPy / __cuda_array_interface__ array in device memory
    (CUDA builds). A 3-D array without channel_axis is a volume, which a
    Labeler refuses with ValueError: glccl.label() labels volumes.
out : numpy.ndarray of uint32, shape (H, W), optional
    Where the labels go. An array this Labeler returned, or any C-contiguous
    one, is filled in place (the labels are downloaded into its memory);
    any other writeable uint32 array of the shape (Fortran order, strided
    views) receives a copy of the labels. For a device image, a device uint32 array
    (C order, any row pitch) filled in place. out may be the image itself or
    overlap it: the image is then copied before any label is written.
return_table : bool
    Also return the component table (dict of numpy arrays, as glccl.label).
channel_axis : int or None
    As for glccl.label(): -1 or 2 when the last axis holds channels.

Returns
-------
(labels, n) or (labels, n, table); labels is `out` when given.

Raises
------
TypeError, ValueError for wrong input (dtype, shape, values, out),
RuntimeError when the backend cannot run or labeling fails.)doc";

}  // namespace

void bindLabeler(py::module_& module) {
    py::class_<Labeler>(module, "Labeler", kClassDoc)
        .def(py::init<const py::object&, const py::object&, const py::object&, const py::object&,
                      const py::object&>(),
             py::arg("connectivity") = 8, py::arg("criterion") = "binary", py::arg("backend") = "auto",
             py::arg("threads").none() = py::none(), py::arg("gl") = "desktop")
        .def("label", &Labeler::label, py::arg("image"), py::arg("out") = py::none(),
             py::arg("return_table") = false, py::arg("channel_axis") = py::none(), kLabelerLabelDoc)
        .def_property_readonly("connectivity", &Labeler::connectivity, "4, 8, 6, 18 or 26.")
        .def_property_readonly("criterion", &Labeler::criterion,
                               "The criterion in the command line's spelling: \"binary\", \"binary:L\", "
                               "\"segments\" or \"threshold:T\".")
        .def_property_readonly("backend", &Labeler::backend, "The backend asked for (\"auto\" stays \"auto\").")
        .def_property_readonly("gl", &Labeler::gl,
                               "The GL context compute and raster label in: \"desktop\" or \"es\".")
        .def_property_readonly("last_backend", &Labeler::lastBackend,
                               "The backend that ran the last call (what \"auto\" resolved to), None before "
                               "the first.")
        .def("__repr__", &Labeler::repr);
}

}  // namespace glccl::python

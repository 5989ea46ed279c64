// glccl.label_batch(): a stack of N independent 2-D images labeled in one
// call. In device memory (CuPy, torch, DLPack producers) the stack is one
// batch of the cuda backend, one launch sequence (device_arrays.cpp); in
// host memory (numpy, or a CPU DLPack producer) each image goes through a
// glccl.Labeler of the host route in turn, its labels written straight into
// the stack's label array.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

#include "arguments.hpp"
#include "device_arrays.hpp"

namespace py = pybind11;

namespace glccl::python {
namespace {

constexpr const char* kLabelBatchDoc = R"doc(label_batch(stack, connectivity=8, criterion="binary", return_table=False, backend="auto", *, threads=None, gl="desktop")

Labels a stack of N independent 2-D images, shape (N, H, W) (or (N, H, W, C)
for the threshold criterion on color), each as if labeled alone: labels 1..n_i
in the image's own raster order, 0 for background.

Returns (labels, counts), or (labels, counts, tables) with return_table:
labels (N, H, W) uint32, counts (N,) uint32, tables a list of N table dicts
(as glccl.label's). Arrays come back as the input's kind on its device:
  - numpy (or any CPU DLPack producer): numpy arrays; each image goes
    through the host route of `backend` in turn.
  - CuPy, torch CUDA tensors, CUDA DLPack producers: arrays of the same
    library on the same device; the whole stack is one batch of the cuda
    backend (one launch sequence), queued on the input's stream (CuPy's
    interface stream, torch's current stream) without a host wait, unless
    return_table asks for the tables.

threads and gl are glccl.label's, for every image of a host stack: threads
those of the CPU engine, gl the GL context ("desktop" or "es") the compute
and raster backends label in. gl="es" raises ValueError with a backend that
makes no GL context (cpu, reference, cuda) and with a device stack, and
RuntimeError where an image would be labeled in tiles (past one call's
texture size) or compute does not run in the ES context.)doc";

py::tuple labelBatch(const py::object& stack, const py::object& connectivity, const py::object& criterion,
                     bool returnTable, const py::object& backend, const py::object& threads,
                     const py::object& gl) {
    const std::string where = "glccl.label_batch()";
    const Criterion parsedCriterion = parseCriterion(criterion, where);
    const Backend parsedBackend = parseBackend(backend, where);
    // Refused here, in this call's words, before any image.
    parseThreads(threads, where);
    const GlContext parsedGl = parseGlContext(gl, where);
    checkGlContextFits(parsedGl, parsedBackend, where);
    if (isDeviceArray(stack)) {
        if (parsedGl == GlContext::Es)
            throw py::value_error(where + ": gl='es' chooses the GL context of the compute and raster backends, "
                                          "which label host images; a device stack is labeled by cuda (leave out gl)");
        const Connectivity parsed = parseConnectivity(connectivity, 2, where);
        if (dimensionsOf(parsed) != 2)
            throw py::value_error(where + ": connectivity " + std::to_string(neighbourCount(parsed)) +
                                  " is for volumes; a batch of 2-D images takes 4 or 8");
        return labelDeviceStack(stack, parsed, parsedCriterion, parsedBackend, returnTable, sharedDeviceLabelers(),
                                where);
    }

    const py::module_ numpy = py::module_::import("numpy");
    py::object host = isHostDlpack(stack) ? numpy.attr("from_dlpack")(stack) : numpy.attr("asarray")(stack);
    const py::array array = host;
    if (array.ndim() != 3 && array.ndim() != 4)
        throw py::value_error(where + ": a stack must be (N, H, W), or (N, H, W, C) for color; got " +
                              std::to_string(array.ndim()) + "-D");
    const py::ssize_t images = array.shape(0), height = array.shape(1), width = array.shape(2);
    // Colour images carry their channels last, 1, 3 or 4 of them, and only
    // the threshold criterion compares colours: said for the stack, before
    // any image.
    const bool color = array.ndim() == 4;
    if (color) {
        const py::ssize_t channels = array.shape(3);
        if (channels != 1 && channels != 3 && channels != 4)
            throw py::value_error(where + ": a stack of colour images is (N, H, W, C) with C 1, 3 or 4; got C = " +
                                  std::to_string(channels));
        if (channels != 1 && parsedCriterion.kind != Criterion::Kind::Threshold)
            throw py::value_error(where + ": a stack of colour images (N, H, W, " + std::to_string(channels) +
                                  ") is only for criterion=(\"threshold\", T); binary and segments take a stack "
                                  "(N, H, W)");
    }
    // A clear error for 6, 18 or 26 before any image.
    checkConnectivityFits(parseConnectivity(connectivity, 2, where), Shape::image(width, height), where);
    // Made by numpy itself, so that they do not depend on how this module
    // was built against numpy.
    const py::object uint32 = numpy.attr("uint32");
    py::object labels = numpy.attr("empty")(py::make_tuple(images, height, width), uint32);
    py::object counts = numpy.attr("zeros")(images, uint32);
    py::list tables;
    if (images > 0) {
        const py::object labeler =
            py::module_::import("glccl").attr("Labeler")(connectivity, criterion, backend, py::arg("threads") = threads,
                                                         py::arg("gl") = gl);
        const py::object channelAxis = color ? py::object(py::int_(-1)) : py::object(py::none());
        for (py::ssize_t i = 0; i < images; ++i) {
            try {
                const py::tuple result =
                    labeler.attr("label")(host[py::int_(i)], py::arg("out") = labels[py::int_(i)],
                                          py::arg("return_table") = returnTable, py::arg("channel_axis") = channelAxis);
                counts[py::int_(i)] = result[1];
                if (returnTable) tables.append(result[2]);
            } catch (py::error_already_set& error) {
                // The image's error in the words of this call, with its place
                // in the stack (a RuntimeError's subclasses keep their own).
                const bool runtime = error.type().is(py::handle(PyExc_RuntimeError));
                if (!error.matches(PyExc_ValueError) && !error.matches(PyExc_TypeError) && !runtime) throw;
                std::string message = py::str(error.value());
                const std::string labelerWhere = "glccl.Labeler.label(): ";
                if (message.rfind(labelerWhere, 0) == 0) message.erase(0, labelerWhere.size());
                const std::string text = where + ": image " + std::to_string(i) + " of the stack: " + message;
                if (error.matches(PyExc_TypeError)) throw py::type_error(text);
                if (runtime) throw std::runtime_error(text);
                throw py::value_error(text);
            }
        }
    }
    if (!returnTable) return py::make_tuple(labels, counts);
    return py::make_tuple(labels, counts, tables);
}

}  // namespace

void bindLabelBatch(py::module_& m) {
    m.def("label_batch", &labelBatch, py::arg("stack"), py::arg("connectivity") = 8,
          py::arg("criterion") = "binary", py::arg("return_table") = false, py::arg("backend") = "auto",
          py::arg("threads").none() = py::none(), py::arg("gl") = "desktop", kLabelBatchDoc);
}

}  // namespace glccl::python

// `import glccl`: connected-component labeling of numpy (and, with CUDA,
// CuPy) images from Python. The module's entries, top-down:
//
//   glccl.label()    arguments.cpp (connectivity, criterion, backend)
//                    -> host_image.cpp (numpy -> the image to label: the
//                       array's own memory, or a glccl::Image at its sampleBits)
//                    -> shared_context.cpp (the process's one GL context)
//                    -> label_arrays.cpp (labels and table as numpy arrays,
//                       label storage recycled through buffer_pool.hpp)
//                    or, for a device array, device_arrays.cpp (cuda backend)
//   glccl.Labeler    labeler_object.cpp: the same, with buffers kept
//   glccl.backends() shared_context.cpp

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "buffer_pool.hpp"
#include "device_arrays.hpp"
#include "glccl/version.hpp"
#include "host_image.hpp"
#include "label_arrays.hpp"
#include "labeler_object.hpp"
#include "shared_context.hpp"

namespace py = pybind11;

namespace glccl::python {

namespace {

py::tuple label(const py::object& image, const py::object& connectivity, const py::object& criterion,
                const py::object& backend, bool returnTable, const py::object& channelAxisArgument) {
    const std::string where = "glccl.label()";
    LabelOptions options;
    options.criterion = parseCriterion(criterion, where);
    options.backend = parseBackend(backend, where);
    const std::optional<int> channelAxis = parseChannelAxis(channelAxisArgument, where);
    if (isDeviceArray(image)) {
        options.connectivity = parseConnectivity(connectivity, deviceArrayDimensions(image, channelAxis), where);
        checkDeviceArrayShape(image, options.connectivity, channelAxis, where);
        return labelDeviceArray(image, py::none(), options.connectivity, options.criterion, options.backend,
                                returnTable, sharedDeviceLabelers(), where);
    }

    const HostArray source = describeHostArray(image, options.criterion, channelAxis, where);
    const Shape shape = source.shape();
    options.connectivity = parseConnectivity(connectivity, shape.dimensions, where);
    checkConnectivityFits(options.connectivity, shape, where);
    checkCriterionForSampleBits(options.criterion, source.sampleBits, where);
    std::vector<std::uint32_t> labels;  // storage of a label array numpy freed, where one has this size
    std::vector<Component> components;
    {
        // glccl::Error is a std::runtime_error: pybind11 raises it as
        // RuntimeError with glccl's message, after re-taking the GIL.
        py::gil_scoped_release noGil;
        BufferPool<std::uint32_t>::Lease labelStorage(releasedLabels(), labels, std::size_t(shape.count()));
        std::optional<ImageView> view = imageViewOf(source, options.criterion);
        Image copy;  // where the array is not labeled in place: storage from, and back to, releasedPixels()
        BufferPool<std::uint8_t>::Lease copyStorage(releasedPixels(), copy.pixels, view ? 0 : source.imageBytes());
        if (!view) {
            copyToImage(source, copy, where);
            view = ImageView(copy);
        }
        labelHostImage(*view, options, labels.data(), components, where);
        labelStorage.release();  // the array below owns it
    }
    return labelResult(adoptLabels(std::move(labels), shape), components, returnTable, shape.dimensions == 3);
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

constexpr const char* kLabelDoc = R"doc(label(image, connectivity=None, criterion="binary", backend="auto", return_table=False,
      channel_axis=None)

Connected-component labeling of a 2-D image or a 3-D volume.

Parameters
----------
image : numpy.ndarray (or a CuPy array, in a module built with CUDA)
    2-D (H, W) array in any memory layout (C, Fortran, strided views). Its
    dtype sets the sampleBits of the samples glccl labels, and no value is ever
    reduced or rounded:
      bool, uint8, int8                      8-bit samples (0..255)
      uint16, int16                          16-bit samples (0..65535)
      uint32, int32, float32,
      uint64, int64, float64                 32-bit samples (0..2**32-1)
    Every value must be an unsigned integer of its sampleBits: a negative,
    fractional, NaN or too large value raises ValueError naming it and its
    place. A float32 image must hold whole numbers.
    For criterion=("threshold", T) also (H, W, 3) or (H, W, 4) color of 8- or
    16-bit samples (an RGB image gets an opaque alpha), with channel_axis=-1;
    (H, W, 1) with channel_axis=-1 is gray. Without channel_axis a 3-D
    array is a volume (D, H, W), as in scikit-image and scipy, of the same
    dtypes and any memory layout, at most 32768 a side; every criterion
    applies. Volumes are labeled in host memory (the router picks an engine
    that takes them; the cpu reference takes any).
    A device array (__cuda_array_interface__: CuPy) of bool or uint8 is
    labeled on its GPU by the cuda backend and the labels come back as a
    CuPy array on that device, without a trip through host memory.
connectivity : int or None
    4 or 8 for a 2-D image, 6 (faces), 18 (and edges) or 26 (and corners)
    for a volume, a Python or a numpy integer; one of the other dimension's
    raises ValueError. scikit-image's numbering works too: 1 and 2 are 4 and
    8 on a 2-D image, 6 and 18 on a volume, and 3 is 26 (volumes only).
    None (the default): the full connectivity, 8 for a 2-D image and 26 for
    a volume, as scikit-image's connectivity=None.
criterion : str or tuple
    "binary": nonzero pixels are foreground and connect to foreground
    neighbours. ("binary", L) or "binary:L": foreground where the value is
    above L. "segments": the values are segment ids, 0 is background,
    neighbours connect when their values are equal (16- and 32-bit ids
    included: 256 and 257 are two segments). ("threshold", T) or
    "threshold:T": every pixel is foreground and neighbours connect when
    every channel differs by at most T. L and T are in the units of the
    samples (at most 255 for 8-bit images, 65535 for 16-bit).
backend : str
    "auto" (the fastest engine that runs here; the CPU reference on a
    software rasterizer), "compute", "raster", "cuda" or "cpu". The cuda
    backend reads 8-bit samples only and refuses deeper images with
    RuntimeError; compute, raster and cpu take every sampleBits (32-bit color is
    for the cpu backend only).
return_table : bool
    Also return the component table.
channel_axis : int or None
    None (the default): the array has no channel axis. -1 or 2: the last
    axis of a 3-D array holds the channels of a 2-D (H, W, C) image.

Returns
-------
(labels, n) or (labels, n, table)
    labels: uint32 array of shape (H, W), or (D, H, W) for a volume, 0 for
    background and 1..n numbered in raster order of each component's first
    pixel (slice by slice, then row by row: the numbering of
    skimage.measure.label, scipy.ndimage.label and OpenCV's SAUF). table:
    dict of numpy arrays of length n, entry i describing label i + 1: left,
    top, width, height (uint32, the bounding box), area (uint64, pixels or
    voxels), centroid_x, centroid_y (float64, mean column / row); for a
    volume also front, depth (uint32, the box's first slice and slice
    count) and centroid_z (float64, mean slice).

Raises
------
TypeError for an input of the wrong type or dtype (complex, object, a
device array in a module without CUDA), ValueError for a wrong value
(shape, size 0, sample values, connectivity, criterion, backend name),
RuntimeError with glccl's message when the backend cannot run or labeling
fails.

Cost
----
The backend's labeling (upload, GPU work, download of 4 bytes a pixel) and
nothing more on the host where it can be: a C-contiguous bool, uint8,
uint16 or uint32 image (gray, or (H, W, 4) color of 8 or 16 bits) is
uploaded from its own memory, and the labels are downloaded straight into
the returned array. Any other image (signed or float dtypes, whose values
are checked; Fortran order, strided views, RGB) is first copied once into a
host buffer of glccl's. The storage of label arrays (and of those copies)
that numpy has freed is kept for the next call of that size, at most two
buffers and 2 GiB of each, so that a loop allocates no fresh memory; an
array that is still referenced, if only by a view, is never reused. For
many images of one size, glccl.Labeler also keeps the GPU buffers and can
write into an array of yours (out=).

Thread-safety
-------------
Safe to call from several threads. The GIL is released while the image is
read (copied, where it needs a copy) and labeled, so another thread must not
write to it during the call. The process's one headless GL context is shared
by all calls and glccl.Labeler objects under a lock, so GL labeling runs one
call at a time.
)doc";

}  // namespace

}  // namespace glccl::python

PYBIND11_MODULE(glccl, m) {
    using namespace glccl::python;
    m.doc() = R"doc(glccl: connected-component labeling on the GPU (OpenGL compute or raster,
CUDA) or the CPU, for numpy and CuPy images.

    labels, n = glccl.label(image, connectivity=8)
    labeler = glccl.Labeler(connectivity=8)       # many images of one size
    labels, n = labeler.label(frame)

One headless OpenGL context (EGL) is created on the first call and kept for
the life of the process; it is used from one thread at a time under a lock,
and every function releases the GIL while it labels, so all of glccl is
thread-safe. See help(glccl.label) and help(glccl.Labeler).)doc";
    m.attr("__version__") = glccl::versionString();
    m.attr("has_cuda") = builtWithCuda();

    m.def("label", &label, py::arg("image"), py::arg("connectivity") = py::none(), py::arg("criterion") = "binary",
          py::arg("backend") = "auto", py::arg("return_table") = false, py::arg("channel_axis") = py::none(),
          kLabelDoc);
    m.def("backends", &backends, R"doc(backends()

The labeling engines and whether they run in this process: a list of dicts
{"name": str, "available": bool, "reason": str}, "reason" saying why not
("" when available). "auto" is always available. Creates the shared GL
context on first use.)doc");
    bindLabeler(m);
    bindLabelBatch(m);
}

// `import glccl`: connected-component labeling of numpy images from Python.
//
// One headless GL context (an OffscreenLabeler) serves the whole process. It
// is created on first use and deliberately never destroyed: NVIDIA's EGL
// tears itself down at process exit before static destructors run, so a
// destructor that released the context then would crash the interpreter on
// exit. Where no context can be created (no EGL at all), "auto" and "cpu"
// still label with the host reference labeler.

#include <EGL/egl.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "glccl/backend.hpp"
#include "glccl/error.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/reference.hpp"
#include "glccl/types.hpp"
#include "glccl/version.hpp"

namespace py = pybind11;

namespace {

// The process-wide labeler and the lock every use of it takes: a GL context
// is current on one thread at a time, and the Labeler keeps per-call state.
struct Shared {
    std::mutex mutex;
    glccl::OffscreenLabeler* offscreen = nullptr;  // leaked on purpose (see top)
    bool tried = false;
    std::string whyNoContext;
};

Shared& shared() {
    static Shared* instance = new Shared;  // leaked: no destructor at exit
    return *instance;
}

// Releases the context from this thread, so that the next call, possibly
// from another Python thread, can make it current (EGL refuses a context
// that is current on a different thread).
void releaseCurrentContext() {
    EGLDisplay display = eglGetCurrentDisplay();
    if (display != EGL_NO_DISPLAY) eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

// The labeler, created on the first call; nullptr with whyNoContext set when
// no headless context can be made. Call with shared().mutex held.
glccl::OffscreenLabeler* offscreenLocked(Shared& s) {
    if (!s.tried) {
        s.tried = true;
        try {
            s.offscreen = new glccl::OffscreenLabeler();
            releaseCurrentContext();
        } catch (const glccl::Error& error) {
            s.whyNoContext = std::string("no headless GL context: ") + error.what();
        }
    }
    return s.offscreen;
}

// ---- argument parsing --------------------------------------------------------

glccl::Connectivity parseConnectivity(const py::object& value) {
    if (!py::isinstance<py::int_>(value) || py::isinstance<py::bool_>(value))
        throw py::type_error("glccl.label(): connectivity must be an int (4 or 8, or scikit-image's 1 or 2)");
    const long c = value.cast<long>();
    if (c == 1 || c == 4) return glccl::Connectivity::Four;
    if (c == 2 || c == 8) return glccl::Connectivity::Eight;
    throw py::value_error("glccl.label(): connectivity must be 4 or 8 (or scikit-image's 1 or 2), not " +
                          std::to_string(c));
}

int parseThreshold(const py::object& value) {
    if (!py::isinstance<py::int_>(value) || py::isinstance<py::bool_>(value))
        throw py::type_error("glccl.label(): the threshold T of (\"threshold\", T) must be an int");
    const long t = value.cast<long>();
    if (t < 0 || t > 255)
        throw py::value_error("glccl.label(): the threshold must be in 0..255, not " + std::to_string(t));
    return int(t);
}

glccl::Criterion parseCriterion(const py::object& value) {
    const char* choices = "\"binary\", \"segments\" or (\"threshold\", T)";
    if (py::isinstance<py::str>(value)) {
        const std::string text = value.cast<std::string>();
        if (text == "binary") return glccl::Criterion::binary();
        if (text == "segments") return glccl::Criterion::segments();
        // The command line's spelling, "threshold:T", is accepted too.
        if (text.rfind("threshold:", 0) == 0) {
            try {
                return glccl::Criterion::parse(text);
            } catch (const glccl::Error& error) {
                throw py::value_error(std::string("glccl.label(): ") + error.what());
            }
        }
        throw py::value_error("glccl.label(): criterion must be " + std::string(choices) + ", not '" + text + "'");
    }
    if (py::isinstance<py::tuple>(value)) {
        auto tuple = value.cast<py::tuple>();
        if (tuple.size() == 2 && py::isinstance<py::str>(tuple[0]) && tuple[0].cast<std::string>() == "threshold")
            return glccl::Criterion::thresholded(parseThreshold(tuple[1]));
        throw py::value_error("glccl.label(): criterion must be " + std::string(choices));
    }
    throw py::type_error("glccl.label(): criterion must be " + std::string(choices));
}

glccl::Backend parseBackend(const py::object& value) {
    if (!py::isinstance<py::str>(value))
        throw py::type_error("glccl.label(): backend must be a str: auto, compute, raster, cuda or cpu");
    try {
        return glccl::parseBackend(value.cast<std::string>());
    } catch (const glccl::Error& error) {
        throw py::value_error(std::string("glccl.label(): ") + error.what());
    }
}

// ---- numpy -> glccl::Image -----------------------------------------------------

// Reads element (y, x[, c]) of any strided layout as a double, then checks it
// is an integer in 0..255: the engine takes 8-bit images today.
template <typename T>
void copyChannels(const py::array& array, glccl::Image& image, int arrayChannels) {
    const auto* base = static_cast<const char*>(array.data());
    const py::ssize_t s0 = array.strides(0), s1 = array.strides(1);
    const py::ssize_t s2 = array.ndim() == 3 ? array.strides(2) : 0;
    for (int y = 0; y < image.height; ++y) {
        for (int x = 0; x < image.width; ++x) {
            for (int c = 0; c < arrayChannels; ++c) {
                T value;
                std::memcpy(&value, base + y * s0 + x * s1 + c * s2, sizeof(T));
                if constexpr (std::is_floating_point_v<T>) {
                    if (!(value >= 0 && value <= 255) || std::floor(value) != value)
                        throw py::value_error("glccl.label(): float images must hold integers in 0..255 (the engine "
                                              "takes 8-bit images); found " + py::repr(py::float_(double(value))).cast<std::string>() +
                                              " at [" + std::to_string(y) + ", " + std::to_string(x) + "]");
                } else if constexpr (!std::is_same_v<T, bool>) {
                    if (value < 0 || value > 255)
                        throw py::value_error("glccl.label(): values must be in 0..255 (the engine takes 8-bit "
                                              "images); found " + std::to_string(value) + " at [" +
                                              std::to_string(y) + ", " + std::to_string(x) + "]");
                }
                image.at(x, y, c) = std::uint8_t(value);
            }
            // RGB input: an opaque alpha, equal everywhere, so it never
            // separates neighbours under the threshold criterion.
            if (arrayChannels == 3) image.at(x, y, 3) = 255;
        }
    }
}

glccl::Image toImage(const py::object& object, const glccl::Criterion& criterion) {
    py::array array = py::array::ensure(object);
    if (!array) throw py::type_error("glccl.label(): image must be a numpy array (or convertible to one)");
    const bool threshold = criterion.kind == glccl::Criterion::Kind::Threshold;

    if (array.ndim() == 3) {
        if (!threshold)
            throw py::value_error("glccl.label(): a 3-D (H, W, 3|4) image is only for criterion=(\"threshold\", T); "
                                  "binary and segments take a 2-D image");
        if (array.shape(2) != 3 && array.shape(2) != 4)
            throw py::value_error("glccl.label(): a 3-D image must be (H, W, 3) or (H, W, 4), not (..., " +
                                  std::to_string(array.shape(2)) + ")");
        if (!array.dtype().is(py::dtype::of<std::uint8_t>()))
            throw py::type_error("glccl.label(): a 3-D (color) image must be uint8, not " +
                                 py::str(array.dtype()).cast<std::string>());
    } else if (array.ndim() != 2) {
        throw py::value_error("glccl.label(): image must be 2-D (H, W), or (H, W, 3|4) for threshold; got " +
                              std::to_string(array.ndim()) + "-D");
    }
    if (array.shape(0) == 0 || array.shape(1) == 0)
        throw py::value_error("glccl.label(): image is empty (shape has a zero)");
    if (array.shape(0) > 32768 || array.shape(1) > 32768)
        throw py::value_error("glccl.label(): image sides are limited to 32768 pixels");

    // Byte-swapped arrays (e.g. '>u2') are converted once to native order so
    // the copy below can read every element with memcpy.
    if (!array.dtype().attr("isnative").cast<bool>())
        array = array.attr("astype")(array.dtype().attr("newbyteorder")("="));

    const int height = int(array.shape(0)), width = int(array.shape(1));
    const int arrayChannels = array.ndim() == 3 ? int(array.shape(2)) : 1;
    glccl::Image image(width, height, arrayChannels == 1 ? 1 : 4);

    const char kind = array.dtype().kind();
    const auto size = array.itemsize();
    if (kind == 'b') copyChannels<bool>(array, image, arrayChannels);
    else if (kind == 'u' && size == 1) copyChannels<std::uint8_t>(array, image, arrayChannels);
    else if (kind == 'u' && size == 2) copyChannels<std::uint16_t>(array, image, arrayChannels);
    else if (kind == 'u' && size == 4) copyChannels<std::uint32_t>(array, image, arrayChannels);
    else if (kind == 'u' && size == 8) copyChannels<std::uint64_t>(array, image, arrayChannels);
    else if (kind == 'i' && size == 1) copyChannels<std::int8_t>(array, image, arrayChannels);
    else if (kind == 'i' && size == 2) copyChannels<std::int16_t>(array, image, arrayChannels);
    else if (kind == 'i' && size == 4) copyChannels<std::int32_t>(array, image, arrayChannels);
    else if (kind == 'i' && size == 8) copyChannels<std::int64_t>(array, image, arrayChannels);
    else if (kind == 'f' && size == 4) copyChannels<float>(array, image, arrayChannels);
    else if (kind == 'f' && size == 8) copyChannels<double>(array, image, arrayChannels);
    else
        throw py::type_error("glccl.label(): unsupported dtype " + py::str(array.dtype()).cast<std::string>() +
                             " (bool, integer or float arrays with values in 0..255)");
    return image;
}

// ---- labeling ---------------------------------------------------------------------

// Labels with the shared labeler, or the host reference where that is what
// the backend would run anyway. Called without the GIL.
glccl::Labeling labelImage(const glccl::Image& image, glccl::Connectivity connectivity,
                           const glccl::Criterion& criterion, glccl::Backend backend) {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    glccl::OffscreenLabeler* offscreen = offscreenLocked(s);
    if (!offscreen) {
        if (backend == glccl::Backend::Auto || backend == glccl::Backend::Cpu)
            return glccl::labelReference(image, connectivity, criterion);
        throw glccl::Error(std::string("glccl.label(): backend ") + glccl::backendName(backend) +
                           " cannot run: " + s.whyNoContext);
    }
    // The cpu backend is the reference labeler on a download of the texture;
    // on the host image it gives the same labels without the GL round trip.
    if (glccl::resolveBackend(backend, offscreen->context().info()) == glccl::Backend::Cpu)
        return glccl::labelReference(image, connectivity, criterion);

    glccl::LabelOptions options;
    options.connectivity = connectivity;
    options.criterion = criterion;
    options.backend = backend;
    struct Release {  // leaves no context current on this thread, even on error
        ~Release() { releaseCurrentContext(); }
    } release;
    return offscreen->label(image, options, nullptr);
}

template <typename T>
py::array_t<T> column(const std::vector<glccl::Component>& table, T (*get)(const glccl::Component&)) {
    py::array_t<T> out(py::ssize_t(table.size()));
    auto view = out.template mutable_unchecked<1>();
    for (py::ssize_t i = 0; i < py::ssize_t(table.size()); ++i) view(i) = get(table[size_t(i)]);
    return out;
}

py::tuple label(const py::object& image, const py::object& connectivity, const py::object& criterion,
                const py::object& backend, bool returnTable) {
    const glccl::Connectivity c = parseConnectivity(connectivity);
    const glccl::Criterion k = parseCriterion(criterion);
    const glccl::Backend b = parseBackend(backend);
    const glccl::Image host = toImage(image, k);

    auto labeling = std::make_unique<glccl::Labeling>();
    {
        // glccl::Error is a std::runtime_error: pybind11 raises it as
        // RuntimeError with glccl's message, after re-taking the GIL.
        py::gil_scoped_release noGil;
        *labeling = labelImage(host, c, k, b);
    }

    // The labels array borrows the Labeling's vector (no copy); the capsule
    // frees it when numpy drops the array.
    const auto height = py::ssize_t(labeling->height), width = py::ssize_t(labeling->width);
    const std::size_t count = labeling->count();
    auto* labels = new std::vector<std::uint32_t>(std::move(labeling->labels));
    py::capsule owner(labels, [](void* p) { delete static_cast<std::vector<std::uint32_t>*>(p); });
    py::array_t<std::uint32_t> array({height, width},
                                     {width * py::ssize_t(sizeof(std::uint32_t)), py::ssize_t(sizeof(std::uint32_t))},
                                     labels->data(), owner);
    if (!returnTable) return py::make_tuple(array, count);

    const auto& t = labeling->components;
    py::dict table;
    table["left"] = column<std::uint32_t>(t, [](const glccl::Component& x) { return x.left; });
    table["top"] = column<std::uint32_t>(t, [](const glccl::Component& x) { return x.top; });
    table["width"] = column<std::uint32_t>(t, [](const glccl::Component& x) { return x.width; });
    table["height"] = column<std::uint32_t>(t, [](const glccl::Component& x) { return x.height; });
    table["area"] = column<std::uint64_t>(t, [](const glccl::Component& x) { return x.area; });
    table["centroid_x"] = column<double>(t, [](const glccl::Component& x) { return x.centroidX; });
    table["centroid_y"] = column<double>(t, [](const glccl::Component& x) { return x.centroidY; });
    return py::make_tuple(array, count, table);
}

py::list backends() {
    std::vector<std::pair<std::string, std::string>> rows;  // name, reason
    {
        py::gil_scoped_release noGil;
        Shared& s = shared();
        std::lock_guard<std::mutex> lock(s.mutex);
        glccl::OffscreenLabeler* offscreen = offscreenLocked(s);
        std::vector<glccl::Backend> all{glccl::Backend::Auto};
        for (glccl::Backend b : glccl::concreteBackends()) all.push_back(b);
        for (glccl::Backend b : all) {
            std::string reason;
            if (offscreen) reason = glccl::whyUnavailable(b, offscreen->context().info());
            else if (b != glccl::Backend::Auto && b != glccl::Backend::Cpu) reason = s.whyNoContext;
            rows.emplace_back(glccl::backendName(b), reason);
        }
    }
    py::list out;
    for (const auto& [name, reason] : rows) {
        py::dict row;
        row["name"] = name;
        row["available"] = reason.empty();
        row["reason"] = reason;
        out.append(row);
    }
    return out;
}

constexpr const char* kLabelDoc = R"doc(label(image, connectivity=8, criterion="binary", backend="auto", return_table=False)

Connected-component labeling of a 2-D image.

Parameters
----------
image : numpy.ndarray
    2-D (H, W) array of bool, integer (uint8, uint16, int32, ...) or float
    dtype whose values are integers in 0..255 (the engine takes 8-bit images;
    anything else raises ValueError). Any memory layout (C, Fortran, strided
    views) is accepted; it is copied into a contiguous 8-bit buffer.
    A 3-D (H, W, 3) or (H, W, 4) uint8 array is accepted with
    criterion=("threshold", T) only.
connectivity : int
    4 or 8 (scikit-image's 1 and 2 are accepted as 4 and 8).
criterion : str or tuple
    "binary": nonzero pixels are foreground and connect to foreground
    neighbours. "segments": 0 is background, neighbours connect when their
    values are equal. ("threshold", T): every pixel is foreground and
    neighbours connect when every channel differs by at most T (0..255).
backend : str
    "auto" (the fastest engine that runs here; the CPU reference on a
    software rasterizer), "compute", "raster", "cuda" or "cpu".
return_table : bool
    Also return the component table.

Returns
-------
(labels, n) or (labels, n, table)
    labels: numpy.uint32 array of shape (H, W), 0 for background and 1..n
    numbered in raster order of each component's first pixel (the numbering
    of skimage.measure.label). table: dict of numpy arrays of length n, entry
    i describing label i + 1: left, top, width, height (uint32, the bounding
    box), area (uint64), centroid_x, centroid_y (float64, mean column / row).

Raises
------
TypeError for an input of the wrong type or dtype, ValueError for a wrong
value (shape, range, connectivity, criterion, backend name), RuntimeError
with glccl's message when the backend cannot run or labeling fails.

Thread-safety
-------------
Safe to call from several threads: the GIL is released while labeling, and
one process-wide GL context is shared under a lock, so calls run one at a time.
)doc";

}  // namespace

PYBIND11_MODULE(glccl, m) {
    m.doc() = R"doc(glccl: connected-component labeling on the GPU (OpenGL compute or raster,
CUDA) or the CPU, for numpy images.

    labels, n = glccl.label(image, connectivity=8)

One headless OpenGL context (EGL) is created on the first call and kept for
the life of the process; every function is thread-safe (calls share it
under a lock and release the GIL while labeling).)doc";
    m.attr("__version__") = glccl::versionString();

    m.def("label", &label, py::arg("image"), py::arg("connectivity") = 8, py::arg("criterion") = "binary",
          py::arg("backend") = "auto", py::arg("return_table") = false, kLabelDoc);
    m.def("backends", &backends, R"doc(backends()

The labeling engines and whether they run in this process: a list of dicts
{"name": str, "available": bool, "reason": str}, "reason" saying why not
("" when available). "auto" is always available. Creates the shared GL
context on first use.)doc");
}

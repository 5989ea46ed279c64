#include "arguments.hpp"

#include <cstdint>
#include <optional>
#include <vector>

#include <pybind11/numpy.h>

#include "glccl/error.hpp"

namespace glccl::python {

namespace {

constexpr const char* kCriterionChoices =
    "\"binary\", \"segments\", (\"threshold\", T), (\"delta\", D) or (\"binary\", L), or the strings \"threshold:T\", \"delta:D\", \"binary:L\"";
constexpr std::int64_t kLargestSample = 0xFFFFFFFFll;

// A Python int, or an integer that indexes like one (numpy's np.int64(4),
// an element of an integer array); never a bool (True would otherwise pass
// as 1, and so would numpy's bool_). std::nullopt for anything else.
std::optional<py::int_> integerOf(const py::handle& value) {
    if (py::isinstance<py::bool_>(value)) return std::nullopt;
    if (py::isinstance<py::int_>(value)) return py::reinterpret_borrow<py::int_>(value);
    // numpy before 2.0 still indexes its bool_ as 0 or 1.
    if (py::hasattr(value, "dtype") && py::str(value.attr("dtype").attr("kind")).cast<std::string>() == "b")
        return std::nullopt;
    PyObject* index = PyNumber_Index(value.ptr());
    if (index == nullptr) {
        PyErr_Clear();
        return std::nullopt;
    }
    return py::reinterpret_steal<py::int_>(index);
}

// T of ("threshold", T) or L of ("binary", L): an int in 0..2^32-1, the
// range of the deepest samples; the image's own sampleBits is checked later.
std::int64_t parseSampleValue(const py::handle& value, const char* what, const std::string& where) {
    const std::optional<py::int_> integer = integerOf(value);
    if (!integer)
        throw py::type_error(where + ": the " + what + " must be an int, not " +
                             std::string(py::str(py::type::of(value).attr("__name__"))));
    // Through Python's int: a value past int64 must not wrap around.
    const bool negative = *integer < py::int_(0);
    const bool tooLarge = *integer > py::int_(kLargestSample);
    if (negative || tooLarge)
        throw py::value_error(where + ": the " + what + " must be in 0..4294967295, not " +
                              std::string(py::str(value)));
    return integer->cast<std::int64_t>();
}

}  // namespace

Connectivity parseConnectivity(const py::handle& value, int dimensions, const std::string& where) {
    const bool volume = dimensions == 3;
    // None: the full connectivity of the input, scikit-image's default.
    if (value.is_none()) return volume ? Connectivity::TwentySix : Connectivity::Eight;
    const std::optional<py::int_> integer = integerOf(value);
    if (!integer)
        throw py::type_error(where + ": connectivity must be None or an int (4 or 8, 6, 18 or 26, or scikit-image's "
                                     "1, 2 or 3), not " + std::string(py::str(py::type::of(value).attr("__name__"))));
    // scikit-image's 1..ndim: neighbours at most that many steps apart.
    if (integer->equal(py::int_(1))) return volume ? Connectivity::Six : Connectivity::Four;
    if (integer->equal(py::int_(2))) return volume ? Connectivity::Eighteen : Connectivity::Eight;
    if (integer->equal(py::int_(3)) && volume) return Connectivity::TwentySix;
    if (integer->equal(py::int_(3)))
        throw py::value_error(where + ": connectivity 3 (scikit-image's full connectivity of a volume) is for "
                                      "volumes; a 2-D image takes 1 or 2 (4 or 8)");
    if (integer->equal(py::int_(4))) return Connectivity::Four;
    if (integer->equal(py::int_(8))) return Connectivity::Eight;
    if (integer->equal(py::int_(6))) return Connectivity::Six;
    if (integer->equal(py::int_(18))) return Connectivity::Eighteen;
    if (integer->equal(py::int_(26))) return Connectivity::TwentySix;
    throw py::value_error(where + ": connectivity must be 4 or 8 for 2-D images (or scikit-image's 1 or 2), or 6, "
                                  "18 or 26 for volumes (or 1, 2 or 3), not " + std::string(py::str(value)));
}

void parseNeighbours(const py::handle& value, int dimensions, LabelOptions& options, const std::string& where) {
    const bool listed = py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value);
    if (!listed && !(py::isinstance<py::array>(value) && py::reinterpret_borrow<py::array>(value).ndim() > 0)) {
        options.connectivity = parseConnectivity(value, dimensions, where);
        options.neighbourhood.reset();
        return;
    }
    const py::array mask = py::module_::import("numpy").attr("asarray")(value);
    const char kind = mask.dtype().kind();
    if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f')
        throw py::type_error(where + ": a connectivity mask holds bools or numbers (nonzero: the neighbour at that "
                                     "offset joins), not " + std::string(py::str(mask.dtype())));
    std::string sides;
    for (py::ssize_t axis = 0; axis < mask.ndim(); ++axis)
        sides += (axis ? ", " : "") + std::to_string(mask.shape(axis));
    bool threes = mask.ndim() == dimensions;
    for (py::ssize_t axis = 0; axis < mask.ndim(); ++axis) threes = threes && mask.shape(axis) == 3;
    if (!threes)
        throw py::value_error(where + ": a connectivity mask of this " + (dimensions == 3 ? "volume" : "image") +
                              " is " + (dimensions == 3 ? "3x3x3 (its D, H and W axes)" : "3x3 (its H and W axes)") +
                              ", not of shape (" + sides + ")");
    // Offset (dx, dy, dz) is element [dz + 1][dy + 1][dx + 1] (no dz in 2-D), in C order.
    const py::array_t<bool> joins = py::module_::import("numpy").attr("ascontiguousarray")(
        py::reinterpret_borrow<py::object>(mask).attr("__ne__")(0));
    std::uint32_t bits = 0;
    for (int i = 0; i < (dimensions == 3 ? 27 : 9); ++i) {
        const int dx = i % 3 - 1, dy = i / 3 % 3 - 1, dz = dimensions == 3 ? i / 9 - 1 : 0;
        if (joins.data()[i]) bits |= std::uint32_t(1) << Neighbourhood::bitOf(dx, dy, dz);
    }
    try {
        options = neighbourhoodOptions(options, Neighbourhood::fromMask(dimensions, bits));
    } catch (const Error& error) {
        throw py::value_error(where + ": connectivity: " + userMessage(error.what()));
    }
}

void checkConnectivityFits(Connectivity connectivity, const Shape& shape, const std::string& where) {
    const std::string misfit = whyConnectivityDoesNotFit(connectivity, shape);
    if (!misfit.empty()) throw py::value_error(where + ": " + misfit);
}

std::optional<int> parseChannelAxis(const py::handle& value, const std::string& where) {
    if (value.is_none()) return std::nullopt;
    const std::optional<py::int_> integer = integerOf(value);
    if (!integer)
        throw py::type_error(where + ": channel_axis must be None or an int, not " +
                             std::string(py::str(py::type::of(value).attr("__name__"))));
    if (!integer->equal(py::int_(-1)) && !integer->equal(py::int_(2)))
        throw py::value_error(where + ": channel_axis must be None, -1 or 2 (the channels are the last axis of an "
                                      "(H, W, C) array), not " + std::string(py::str(value)));
    return 2;
}

void checkArrayDimensions(std::size_t ndim, std::optional<int> channelAxis, const std::string& where) {
    if (channelAxis) {
        if (ndim != 3)
            throw py::value_error(where + ": channel_axis names the channels of an (H, W, C) array, but the image is " +
                                  std::to_string(ndim) + "-D");
        return;
    }
    if (ndim != 2 && ndim != 3)
        throw py::value_error(where + ": image must be 2-D (H, W), a volume (D, H, W), or (H, W, C) with "
                                      "channel_axis=-1; got " + std::to_string(ndim) + "-D");
}

int deviceArrayDimensions(const py::handle& image, std::optional<int> channelAxis) {
    try {
        const std::size_t ndim = py::len(image.attr("__cuda_array_interface__")["shape"]);
        return ndim == 3 && !channelAxis ? 3 : 2;
    } catch (const py::error_already_set&) {
        return 2;
    }
}

void checkDeviceArrayShape(const py::handle& image, Connectivity connectivity, std::optional<int> channelAxis,
                           const std::string& where) {
    // A malformed interface is left to the device path, which names what is wrong with it.
    std::vector<std::int64_t> sides;
    try {
        for (const py::handle side : py::tuple(image.attr("__cuda_array_interface__")["shape"]))
            sides.push_back(side.cast<std::int64_t>());
    } catch (const py::error_already_set&) {
        return;
    } catch (const py::cast_error&) {
        return;
    }
    checkArrayDimensions(sides.size(), channelAxis, where);
    const Shape shape = sides.size() == 3 && !channelAxis ? Shape::volume(sides[2], sides[1], sides[0])
                                                          : Shape::image(sides[1], sides[0]);
    checkConnectivityFits(connectivity, shape, where);
}

Criterion parseCriterion(const py::handle& value, const std::string& where) {
    // Every spelling of a str goes to the engine's parser, the one list of
    // criteria: a criterion the engines gain is taken here without a change,
    // and one they lack is answered with their message ("unknown criterion").
    const auto parsed = [&](const std::string& text) {
        try {
            return Criterion::parse(text);
        } catch (const Error& error) {
            throw py::value_error(where + ": " + userMessage(error.what()));
        }
    };
    if (py::isinstance<py::str>(value)) return parsed(value.cast<std::string>());
    if (py::isinstance<py::tuple>(value)) {
        const auto tuple = py::reinterpret_borrow<py::tuple>(value);
        const std::string kind = tuple.size() == 2 && py::isinstance<py::str>(tuple[0]) ? tuple[0].cast<std::string>() : "";
        if (kind == "threshold") return Criterion::thresholded(parseSampleValue(tuple[1], "threshold T", where));
        if (kind == "binary") return Criterion::binaryAbove(parseSampleValue(tuple[1], "binary level L", where));
        // (name, value) of any other criterion: the command line's "name:value".
        if (!kind.empty()) return parsed(kind + ":" + std::to_string(parseSampleValue(tuple[1], "criterion's value", where)));
        throw py::value_error(where + ": criterion must be " + kCriterionChoices);
    }
    throw py::type_error(where + ": criterion must be " + kCriterionChoices);
}

Backend parseBackend(const py::handle& value, const std::string& where) {
    if (!py::isinstance<py::str>(value))
        throw py::type_error(where + ": backend must be a str: auto, compute, raster, cuda, cpu or reference");
    try {
        return glccl::parseBackend(value.cast<std::string>());
    } catch (const Error& error) {
        throw py::value_error(where + ": " + userMessage(error.what()));
    }
}

GlContext parseGlContext(const py::handle& value, const std::string& where) {
    constexpr const char* kChoices = "\"desktop\" (an OpenGL core profile context) or \"es\" (OpenGL ES 3)";
    if (!py::isinstance<py::str>(value))
        throw py::type_error(where + ": gl must be a str, " + kChoices + ", not " +
                             std::string(py::str(py::type::of(value).attr("__name__"))));
    const std::string name = value.cast<std::string>();
    if (name == "desktop") return GlContext::Desktop;
    if (name == "es") return GlContext::Es;
    throw py::value_error(where + ": gl='" + name + "' is not a GL context; expected " + kChoices);
}

void checkGlContextFits(GlContext gl, Backend backend, const std::string& where) {
    if (gl != GlContext::Es || backend == Backend::Auto || backend == Backend::Compute || backend == Backend::Raster)
        return;
    throw py::value_error(where + ": gl='es' chooses the GL context of the compute and raster backends; the " +
                          backendName(backend) + " backend labels without one (pass backend='raster', or leave "
                          "out gl)");
}

int parseThreads(const py::handle& value, const std::string& where) {
    if (value.is_none()) return 0;
    const std::optional<py::int_> integer = integerOf(value);
    if (!integer)
        throw py::type_error(where + ": threads must be None or an int, not " +
                             std::string(py::str(py::type::of(value).attr("__name__"))));
    if (*integer < py::int_(1) || *integer > py::int_(kMostThreads))
        throw py::value_error(where + ": threads must be None (every core this process may run on) or 1.." +
                              std::to_string(kMostThreads) + ", not " + std::string(py::str(value)));
    return integer->cast<int>();
}

void checkCriterionForSampleBits(const Criterion& criterion, int sampleBits, const std::string& where) {
    const std::string problem = criterion.problemForSampleBits(sampleBits);
    if (!problem.empty()) throw py::value_error(where + ": " + problem);
}

std::string dtypeName(char kind, int itemSize) {
    const std::string bits = std::to_string(itemSize * 8);
    switch (kind) {
        case 'b': return "bool";
        case 'i': return "int" + bits;
        case 'u': return "uint" + bits;
        case 'f': return "float" + bits;
        case 'c': return "complex" + bits;
        default: return std::string("kind '") + kind + "', " + std::to_string(itemSize) + " bytes";
    }
}

}  // namespace glccl::python

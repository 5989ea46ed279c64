#pragma once
// The keyword arguments every Python entry shares (connectivity, criterion,
// backend), parsed into glccl's types. `where` is the Python entry that was
// called ("glccl.label()"); every message starts with it. Wrong types raise
// TypeError, wrong values ValueError.

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "glccl/backend.hpp"
#include "glccl/labeler.hpp"
#include "glccl/types.hpp"
#include "shared_context.hpp"

namespace glccl::python {

namespace py = pybind11;

// The connectivity for an input of `dimensions` (2 or 3): 4 or 8 (2-D
// images), 6, 18 or 26 (volumes), an int or a numpy integer; scikit-image's
// 1 and 2 (4 and 8 on a 2-D image, 6 and 18 on a volume) and 3 (26, volumes
// only); None the full connectivity (8, or 26 for a volume). Whether a
// named one fits the input is checked apart (checkConnectivityFits).
Connectivity parseConnectivity(const py::handle& value, int dimensions, const std::string& where);

// connectivity= of glccl.label() on a host array: parseConnectivity's ints
// and None, or a neighbourhood mask: an array (or nested lists) of 3 along
// each of the input's `dimensions` axes ((H, W), or (D, H, W) for a volume),
// symmetric about its centre, nonzero where the neighbour at that offset
// joins (scipy.ndimage's structure). Sets options.connectivity, and
// options.neighbourhood for a mask that is none of the named
// connectivities (neighbourhoodOptions). Whether a named one fits the input
// is checked apart (checkConnectivityFits).
void parseNeighbours(const py::handle& value, int dimensions, LabelOptions& options, const std::string& where);

// ValueError when `connectivity` cannot join the elements of `shape`
// (glccl::whyConnectivityDoesNotFit: 6, 18 and 26 are for volumes).
void checkConnectivityFits(Connectivity connectivity, const Shape& shape, const std::string& where);

// The channel_axis keyword, scikit-image's and scipy's convention: None (no
// channel axis: a 3-D array is a volume) or the last axis of an (H, W, C)
// array, -1 or 2 (returned as 2).
std::optional<int> parseChannelAxis(const py::handle& value, const std::string& where);

// The one rule for an array's dimensions: 2-D is an image; 3-D is an
// (H, W, C) image when channel_axis names the channels, else a volume
// (D, H, W). ValueError otherwise.
void checkArrayDimensions(std::size_t ndim, std::optional<int> channelAxis, const std::string& where);

// 3 for a device array whose interface shape is a volume (3-D without
// channelAxis), else 2 (a malformed interface included: the device path
// names what is wrong with it).
int deviceArrayDimensions(const py::handle& image, std::optional<int> channelAxis);

// checkArrayDimensions and checkConnectivityFits for a device array
// (__cuda_array_interface__), from its interface's shape; a volume is
// refused (the device path labels 2-D images); a malformed interface is
// left to the device path's own checks.
void checkDeviceArrayShape(const py::handle& image, Connectivity connectivity, std::optional<int> channelAxis,
                           const std::string& where);

// "binary", "segments", ("threshold", T), ("binary", L), or the command
// line's "threshold:T" and "binary:L"; T and L in 0..2^32-1 here, checked
// against the image's sampleBits once the image is known (checkCriterionForSampleBits).
Criterion parseCriterion(const py::handle& value, const std::string& where);

// "auto", "compute", "raster", "cuda", "cpu" or "reference".
Backend parseBackend(const py::handle& value, const std::string& where);

// The gl keyword: "desktop" (an OpenGL core profile context) or "es" (an
// OpenGL ES 3 one); TypeError for a non-str, ValueError naming the choices
// for another str.
GlContext parseGlContext(const py::handle& value, const std::string& where);

// ValueError where gl="es" is asked of a backend that makes no GL context
// (cpu, reference, cuda), as the command line's --gl es: the keyword would
// go unused.
void checkGlContextFits(GlContext gl, Backend backend, const std::string& where);

// The cpu engine's threads: None (0: every core this process may run on) or
// an int in 1..kMostThreads (TypeError, ValueError otherwise).
int parseThreads(const py::handle& value, const std::string& where);

// ValueError when the criterion's threshold or level exceeds what samples of
// `sampleBits` bits hold (a threshold of 300 on uint8 images).
void checkCriterionForSampleBits(const Criterion& criterion, int sampleBits, const std::string& where);

// numpy's name of a dtype from its kind ('b', 'i', 'u', 'f', 'c': the array
// interface's) and item size in bytes: "bool", "int32", "float64"...; an
// unknown kind is named by both ("kind 'x', 2 bytes").
std::string dtypeName(char kind, int itemSize);

}  // namespace glccl::python

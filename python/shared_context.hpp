#pragma once
// The process's glccl::Sessions (the front door: each call routed once,
// its engines and its headless GL context kept, the context made only when a
// GL engine is routed to), shared by glccl.label(), glccl.backends(), every
// glccl.Labeler and the routes of device arrays: one whose GL engines label
// in a desktop OpenGL context, and, made when gl="es" is first asked for,
// one whose GL engines label in an OpenGL ES context.
//
// Thread-safety. A GL context is current on one thread at a time and the
// OffscreenLabeler keeps per-call state, so every use of either Session takes
// one process-wide mutex, and leaves no context current on the calling thread when it is done
// (so that the next call, from any thread, can make it current). Callers
// release the GIL before calling these functions: the lock is never waited
// for while holding the GIL, and no Python object is touched under it.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "glccl/labeler.hpp"
#include "glccl/route.hpp"
#include "glccl/session.hpp"
#include "glccl/types.hpp"

namespace glccl::python {

// The GL context the compute and raster engines label in (gl=): desktop, an
// OpenGL core profile one, or es, an OpenGL ES 3.0 or newer one (raster runs
// there, and compute from ES 3.1 with image atomics). Each is made on first
// use and kept, in a Session of its own.
enum class GlContext { Desktop, Es };

// Labels a host image into `labels` (width x height uint32, row-major, every
// element written) and its table into `components` (storage reused), by the
// route the router chooses once for the call (Session::label): the cpu
// engine and the reference read `image`'s pixels where they are; the GL
// backends upload from them and download the labels straight into `labels`
// (a numpy array's memory on both sides); cuda runs CUDA's host route; an
// image past one call goes in tiles (not in an ES context: the tiles' GL
// workers make desktop contexts, so a GL route in pieces is refused there).
// Errors are glccl::Error with the message starting with `where`, the Python
// entry. Returns the backend that ran.
Backend labelHostImage(const ImageView& image, const LabelOptions& options, GlContext gl, std::uint32_t* labels,
                       std::vector<Component>& components, const std::string& where);

// labelHostImage, then `then(session, route)` under the same hold of the
// Session, `route` the one the image was labeled by: no other call labels
// between, so what `then` reads of the last labeling (Session::measureTerms)
// is this image's. Errors of either as labelHostImage's.
Backend labelHostImage(const ImageView& image, const LabelOptions& options, GlContext gl, std::uint32_t* labels,
                       std::vector<Component>& components, const std::string& where,
                       const std::function<void(Session&, const Route&)>& then);

// Every backend (auto first) as the process's Session of `gl` finds it
// here: whether it runs, on what, and what to expect (describeBackends).
std::vector<BackendReport> backendReports(GlContext gl);

// Whether the cuda backend runs here: built with CUDA, and a driver and a
// device usable.
bool cudaRuns();

}  // namespace glccl::python

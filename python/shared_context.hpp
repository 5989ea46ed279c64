#pragma once
// The process's one headless GL context and the OffscreenLabeler in it,
// shared by glccl.label(), glccl.backends() and every glccl.Labeler.
//
// Thread-safety. A GL context is current on one thread at a time and the
// OffscreenLabeler keeps per-call state, so every use takes one process-wide
// mutex, and leaves no context current on the calling thread when it is done
// (so that the next call, from any thread, can make it current). Callers
// release the GIL before calling these functions: the lock is never waited
// for while holding the GIL, and no Python object is touched under it.

#include <cstdint>
#include <string>
#include <vector>

#include "glccl/labeler.hpp"
#include "glccl/types.hpp"

namespace glccl::python {

// Labels a host image into `labels` (width x height uint32, row-major, every
// element written) and its table into `components` (storage reused), by the
// route the router chooses once for the call (OffscreenLabeler::label): the
// GL backends upload from `image`'s pixels where they are and download the
// labels straight into `labels` (a numpy array's memory on both sides); the
// cpu backend, and auto where it resolves to cpu (a software rasterizer, or
// no GL context at all), run the reference on the host image; cuda runs
// CUDA's host route; an image past one call goes in tiles. Errors are
// glccl::Error with the message starting with `where`, the Python entry.
// Returns the backend that ran.
Backend labelHostImage(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                       std::vector<Component>& components, const std::string& where);

// Every backend (auto first) with why it cannot run here, "" when it can.
struct BackendRow {
    std::string name;
    std::string whyNot;
};
std::vector<BackendRow> backendRows();

}  // namespace glccl::python

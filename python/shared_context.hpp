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

#include <string>
#include <vector>

#include "glccl/labeler.hpp"
#include "glccl/types.hpp"

namespace glccl::python {

// Labels a host image into `out`, reusing its storage: out.labels is written
// in place, never moved or reallocated while its capacity holds the image
// (a glccl.Labeler lends it a numpy array's memory), and the OffscreenLabeler
// keeps its input texture for same-sized images. The cpu backend, and auto where it
// resolves to cpu (a software rasterizer), run the reference labeler on the
// host image, which gives the same labels without the GL round trip; where
// no GL context can be created at all, so do auto and cpu, and the GL
// backends throw glccl::Error naming the reason (its message starts with
// `where`, the Python entry). Returns the backend that ran.
Backend labelHostImage(const Image& image, const LabelOptions& options, Labeling& out, const std::string& where);

// Every backend (auto first) with why it cannot run here, "" when it can.
struct BackendRow {
    std::string name;
    std::string whyNot;
};
std::vector<BackendRow> backendRows();

}  // namespace glccl::python

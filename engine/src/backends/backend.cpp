// Names of the backends and the one place that decides which can run.

#include "glccl/backend.hpp"

#include <mutex>

#include "glccl/error.hpp"
#ifdef GLCCL_HAVE_CUDA
#include "glccl/cuda_labeler.hpp"
#endif

namespace glccl {

namespace {

bool atLeast(const ContextInfo& context, int major, int minor) {
    return context.major > major || (context.major == major && context.minor >= minor);
}

// The CUDA driver is asked once per process: the answer does not change and
// the first question costs a driver initialisation.
const std::string& cudaUnavailableReason() {
    static std::once_flag once;
    static std::string why;
    std::call_once(once, [] {
#ifdef GLCCL_HAVE_CUDA
        if (!cuda::available(&why) && why.empty()) why = "no usable CUDA device";
#else
        why = "it is not built into this glccl (no CUDA compiler was found at build time)";
#endif
    });
    return why;
}

}  // namespace

const char* backendName(Backend backend) {
    switch (backend) {
        case Backend::Auto: return "auto";
        case Backend::Compute: return "compute";
        case Backend::Raster: return "raster";
        case Backend::Cuda: return "cuda";
        case Backend::Cpu: return "cpu";
    }
    return "?";
}

Backend parseBackend(std::string_view name) {
    for (Backend backend : {Backend::Auto, Backend::Compute, Backend::Raster, Backend::Cuda, Backend::Cpu})
        if (name == backendName(backend)) return backend;
    throw Error("unknown backend '" + std::string(name) + "' (expected auto, compute, raster, cuda or cpu)");
}

const std::vector<Backend>& concreteBackends() {
    static const std::vector<Backend> all = {Backend::Compute, Backend::Cuda, Backend::Raster, Backend::Cpu};
    return all;
}

std::string whyUnavailable(Backend backend, const ContextInfo& context) {
    switch (backend) {
        case Backend::Auto:
        case Backend::Cpu: return "";
        case Backend::Raster:
            if (!atLeast(context, 3, 3)) return "it needs OpenGL 3.3, the context is " + context.version;
            return "";
        case Backend::Compute:
            if (!atLeast(context, 4, 3))
                return "it needs OpenGL 4.3 (compute shaders), the context is " + context.version +
                       "; the raster backend runs there";
            return "";
        case Backend::Cuda: return cudaUnavailableReason();
    }
    return "unknown backend";
}

bool isSoftwareRenderer(const ContextInfo& context) {
    for (const char* name : {"llvmpipe", "softpipe", "SwiftShader", "Software Rasterizer"})
        if (context.renderer.find(name) != std::string::npos) return true;
    return false;
}

Backend resolveBackend(Backend requested, const ContextInfo& context) {
    if (requested != Backend::Auto) return requested;
    // A software rasterizer runs shaders on the CPU, where the reference
    // labeler itself is several times faster than either GL engine
    // (llvmpipe, 1024x1024 noise: cpu 53 ms, compute 395 ms, raster 673 ms).
    if (isSoftwareRenderer(context)) return Backend::Cpu;
    if (whyUnavailable(Backend::Compute, context).empty()) return Backend::Compute;
    return Backend::Raster;
}

}  // namespace glccl

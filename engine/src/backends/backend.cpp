// Names of the backends (no GL here: the options fuzzer links this file
// alone). Which of them runs is the router's: route.cpp.

#include "glccl/backend.hpp"

#include "glccl/error.hpp"

namespace glccl {

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

bool isSoftwareRenderer(const ContextInfo& context) {
    for (const char* name : {"llvmpipe", "softpipe", "SwiftShader", "Software Rasterizer"})
        if (context.renderer.find(name) != std::string::npos) return true;
    return false;
}

}  // namespace glccl

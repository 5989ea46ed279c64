// Names of the backends (no GL here: the options fuzzer links the host
// library alone). Which of them runs is the router's: engine/src/route.cpp.

#include "glccl/backend.hpp"

#include <string>

#include "glccl/error.hpp"

namespace glccl {

namespace {

constexpr Backend kEveryBackend[] = {Backend::Auto, Backend::Compute, Backend::Raster,
                                     Backend::Cuda, Backend::Cpu,     Backend::Reference};
static_assert(sizeof(kEveryBackend) / sizeof(kEveryBackend[0]) == kBackendCount);

}  // namespace

const char* backendName(Backend backend) {
    switch (backend) {
        case Backend::Auto: return "auto";
        case Backend::Compute: return "compute";
        case Backend::Raster: return "raster";
        case Backend::Cuda: return "cuda";
        case Backend::Cpu: return "cpu";
        case Backend::Reference: return "reference";
    }
    return "?";
}

Backend parseBackend(std::string_view name) {
    for (Backend backend : kEveryBackend)
        if (name == backendName(backend)) return backend;
    throw Error("unknown backend '" + std::string(name) +
                "' (expected auto, compute, raster, cuda, cpu or reference)");
}

const std::vector<Backend>& concreteBackends() {
    static const std::vector<Backend> all = {Backend::Compute, Backend::Cuda, Backend::Raster, Backend::Cpu,
                                             Backend::Reference};
    return all;
}

}  // namespace glccl

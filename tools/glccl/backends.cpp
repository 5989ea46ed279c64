#include "backends.hpp"

#include <chrono>

#include "glccl/error.hpp"
#include "glccl/reference.hpp"

namespace glccl::tools {

Backend parseBackend(std::string_view name) {
    if (name == "cpu") return Backend::Cpu;
    if (name == "raster") return Backend::Raster;
    if (name == "cuda") return Backend::Cuda;
    throw Error("glccl: unknown backend '" + std::string(name) + "' (expected cpu, raster or cuda)");
}

const char* backendName(Backend backend) {
    switch (backend) {
        case Backend::Cpu: return "cpu";
        case Backend::Raster: return "raster";
        case Backend::Cuda: return "cuda";
    }
    return "?";
}

namespace {

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

BackendRun runBackend(Backend backend, const Image& image, Connectivity connectivity, Criterion criterion) {
    BackendRun run;
    const auto start = std::chrono::steady_clock::now();
    switch (backend) {
        case Backend::Cpu:
            run.labeling = labelReference(image, connectivity, criterion);
            run.device = "CPU";
            break;
        case Backend::Raster:
            throw Error("glccl: the raster backend is not built into this binary yet");
        case Backend::Cuda:
            throw Error("glccl: the cuda backend is not built into this binary yet");
    }
    run.milliseconds = millisecondsSince(start);
    return run;
}

}  // namespace glccl::tools

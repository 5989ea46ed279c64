#include "backends.hpp"

#include <chrono>

#include "glccl/error.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/reference.hpp"
#ifdef GLCCL_HAVE_CUDA
#include "glccl/cuda_labeler.hpp"
#endif

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

// One headless context for every image of a run: creating it costs more
// than labeling a small image. Never destroyed: NVIDIA's EGL library tears
// itself down at exit before static destructors run, and destroying a
// context after that corrupts the heap.
OffscreenLabeler& offscreenLabeler() {
    static OffscreenLabeler* labeler = new OffscreenLabeler();
    return *labeler;
}

}  // namespace

BackendRun runBackend(Backend backend, const Image& image, Connectivity connectivity, Criterion criterion) {
    BackendRun run;
    if (backend == Backend::Raster) offscreenLabeler();  // the context's creation is not labeling time
    const auto start = std::chrono::steady_clock::now();
    switch (backend) {
        case Backend::Cpu:
            run.labeling = labelReference(image, connectivity, criterion);
            run.device = "CPU";
            break;
        case Backend::Raster: {
            OffscreenLabeler& labeler = offscreenLabeler();
            run.labeling = labeler.label(image, connectivity, criterion, &run.stages);
            run.device = rasterDevice();
            break;
        }
        case Backend::Cuda: {
#ifdef GLCCL_HAVE_CUDA
            std::string why;
            if (!cuda::available(&why)) throw Error("glccl: the cuda backend cannot run here: " + why);
            run.labeling = cuda::labelImage(image, connectivity, criterion, &run.stages);
            run.device = cuda::deviceName();
            break;
#else
            throw Error("glccl: the cuda backend is not built into this binary (no CUDA compiler was found at build time)");
#endif
        }
    }
    run.milliseconds = millisecondsSince(start);
    return run;
}

std::string rasterDevice() {
    const OffscreenLabeler& labeler = offscreenLabeler();
    return labeler.context().info().renderer + " (" + labeler.context().platform() + ")";
}

double rasterFullscreenPassMilliseconds(int width, int height, int reps) {
    return offscreenLabeler().fullscreenPassMilliseconds(width, height, reps);
}

}  // namespace glccl::tools

#pragma once
// The labeling backends the glccl command can run, behind one call.

#include <string>
#include <string_view>

#include "glccl/types.hpp"

namespace glccl::tools {

enum class Backend { Cpu, Raster, Cuda };

Backend parseBackend(std::string_view name);  // "cpu", "raster", "cuda"; throws glccl::Error
const char* backendName(Backend backend);

struct BackendRun {
    Labeling labeling;
    double milliseconds = 0.0;   // wall time of the labeling call (upload/download included)
    StageTimings stages;         // per-stage GPU times where the backend measures them
    std::string device;          // "CPU", GL renderer string, or CUDA device name
};

// Labels `image` with `backend`. Throws glccl::Error when the backend is not
// built into this binary or cannot run on this machine, saying why.
BackendRun runBackend(Backend backend, const Image& image, Connectivity connectivity, Criterion criterion);

// The raster backend's yardstick: the GPU time of one full-screen fragment
// pass of this size in its context (OffscreenLabeler::fullscreenPassMilliseconds).
double rasterFullscreenPassMilliseconds(int width, int height, int reps);
std::string rasterDevice();  // the raster backend's GL renderer and EGL platform

}  // namespace glccl::tools

#pragma once
// compute and raster on host memory (gl_engine.cpp): an Engine
// (glccl/engine.hpp) over an OffscreenLabeler, and what placing one takes.

#include <memory>

#include "glccl/engine.hpp"
#include "glccl/offscreen.hpp"

namespace glccl::backends {

// compute or raster on `offscreen`'s context, shared with the other GL
// engine of the place.
std::unique_ptr<Engine> makeGlEngine(Backend backend, std::shared_ptr<OffscreenLabeler> offscreen);
// The EGL device of an EnginePlace's device entry: the one that reports that
// CUDA device (EGL_NV_device_cuda), else the EGL device of that index; -1
// for -1 (the first that works).
int eglDeviceOf(int entry);

}  // namespace glccl::backends

#pragma once
// The labeling engines of glccl, side by side. Which of them labels an input
// is the router's choice (glccl/route.hpp, chooseRoute).
//
//   compute  GLSL compute shaders (OpenGL 4.3): block union-find, the fastest GL path
//   raster   O'Connell's pipeline as render passes (any OpenGL 3.3 core context)
//   cuda     Stava & Benes' tiled union-find on the same texture (CUDA-GL interop)
//   cpu      the reference labeler on a download of the texture (the oracle)
//   auto     the fastest of them that runs here and takes the input (chooseRoute)

#include <string>
#include <string_view>
#include <vector>

#include "glccl/context.hpp"

namespace glccl {

enum class Backend { Auto, Compute, Raster, Cuda, Cpu };
// The name the first GL engines were chosen by; every value is a Backend.
using GpuBackend = Backend;

// "auto", "compute", "raster", "cuda", "cpu".
const char* backendName(Backend backend);
// The inverse of backendName; throws glccl::Error naming the choices.
Backend parseBackend(std::string_view name);
// Every backend but auto, fastest first where all run.
const std::vector<Backend>& concreteBackends();

// Why `backend` cannot label in a context described by `context`, or "" when
// it can (auto always can): capabilitiesOf(backend, &context).whyNotHere. Cheap after the first call for cuda (the CUDA
// driver is asked once per process). Thread-safe.
std::string whyUnavailable(Backend backend, const ContextInfo& context);

// The backend `requested` stands for in that context, for an input of any
// size in host memory: itself, or chooseRoute's choice for auto (compute on
// a GPU with OpenGL 4.3+, raster on an older GPU context, cpu on a software
// rasterizer).
Backend resolveBackend(Backend requested, const ContextInfo& context);

// Is the context's renderer one that runs on the CPU (Mesa's llvmpipe or
// softpipe, SwiftShader)?
bool isSoftwareRenderer(const ContextInfo& context);

}  // namespace glccl

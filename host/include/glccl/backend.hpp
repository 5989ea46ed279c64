#pragma once
// The labeling engines of glccl, side by side, by name. Which of them labels
// an input is the router's choice (glccl/route.hpp, chooseRoute); what each
// takes is its declaration (glccl/capabilities.hpp).
//
//   compute    GLSL compute shaders (OpenGL 4.3): block union-find, the fastest GL path
//   raster     O'Connell's pipeline as render passes (any OpenGL 3.3 core context)
//   cuda       the CUDA engine: host memory, CUDA device memory, and GL textures
//              through CUDA-GL interop
//   cpu        the CPU engine: host memory on every core, no GL context
//   reference  the oracle: small and obviously right, one thread; never
//              chosen by auto
//   auto       the fastest engine that runs here and takes the input (the
//              router's rule, glccl/route.hpp)

#include <string_view>
#include <vector>

namespace glccl {

enum class Backend { Auto, Compute, Raster, Cuda, Cpu, Reference };
// The name the first GL engines were chosen by; every value is a Backend.
using GpuBackend = Backend;

// How many values Backend has (auto included): the size of a table indexed by one.
constexpr int kBackendCount = 6;

// "auto", "compute", "raster", "cuda", "cpu", "reference".
const char* backendName(Backend backend);
// The inverse of backendName; throws glccl::Error naming the choices.
Backend parseBackend(std::string_view name);
// Every backend but auto, in the order summaries list them.
const std::vector<Backend>& concreteBackends();

}  // namespace glccl

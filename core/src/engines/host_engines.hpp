#pragma once
// The constructors of the engines that need no GL context, one file each in
// this folder: the engines of host memory (cpu, reference) and cuda's host
// and device entry. compute and raster are the GL engine's (engine/), which
// hands its constructor to the registry (engine_registry.hpp).

#include <memory>

#include "glccl/engine.hpp"

namespace glccl::engines {

std::unique_ptr<Engine> makeCpuEngine(const EnginePlace& place);
std::unique_ptr<Engine> makeReferenceEngine();
std::unique_ptr<Engine> makeCudaEngine(const EnginePlace& place);

}  // namespace glccl::engines

#include "backends/engine.hpp"
#include "glccl/error.hpp"

namespace glccl::backends {

std::unique_ptr<Engine> makeComputeEngine(const ContextInfo&) { throw Error("the compute backend is being built"); }

}  // namespace glccl::backends

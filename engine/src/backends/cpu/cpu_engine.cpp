// The cpu backend: host memory on the CPU, no GL context. Until the
// multi-threaded engine is built in, the reference labels for it.

#include "backends/host_engines.hpp"

namespace glccl::backends {

std::unique_ptr<Engine> makeCpuEngine(const EnginePlace&) { return makeReferenceEngine(); }

}  // namespace glccl::backends

// What the cpu engine takes: its declaration, which the router reads
// (core/src/route.cpp). It takes what the reference takes, every input
// glccl has a contract for, byte for byte the same.

#include "glccl/cpu_labeler.hpp"
#include "glccl/reference.hpp"

namespace glccl::cpu {

EngineCapabilities capabilities() {
    EngineCapabilities engine = referenceCapabilities();
    engine.backend = Backend::Cpu;
#if defined(GLCCL_CPU_NEEDS_POPCNT)
    if (!__builtin_cpu_supports("popcnt"))
        engine.whyNotHere = "this processor lacks POPCNT, which this build of the cpu engine needs (build with "
                            "-DGLCCL_CPU_POPCNT=OFF)";
#endif
    return engine;
}

}  // namespace glccl::cpu

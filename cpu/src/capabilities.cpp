// What the cpu engine takes: its declaration, which the router reads
// (engine/src/route.cpp).

#include <cstdint>
#include <limits>

#include "glccl/cpu_labeler.hpp"

namespace glccl::cpu {

EngineCapabilities capabilities() {
    EngineCapabilities engine;
    engine.backend = Backend::Cpu;
#if defined(GLCCL_CPU_NEEDS_POPCNT)
    if (!__builtin_cpu_supports("popcnt"))
        engine.whyNotHere = "this processor lacks POPCNT, which this build of the cpu engine needs (build with "
                            "-DGLCCL_CPU_POPCNT=OFF)";
#endif
    engine.residences = {Residence::HostMemory};
    engine.textureDownload = true;
    engine.sampleBits = {8, 16, 32, 64};
    // Binary and segments read the red channel of a color texture.
    engine.channels = {1, 4};
    engine.thresholdChannels = {1, 4};
    engine.connectivities = {Connectivity::Four, Connectivity::Eight, Connectivity::Six, Connectivity::Eighteen,
                             Connectivity::TwentySix};
    engine.dimensions = {2, 3};
    // Stripes of at most 2^31 - 1 elements each reach any size.
    engine.largestExtent = std::numeric_limits<int>::max();
    engine.largestCount = std::numeric_limits<std::uint64_t>::max();
    return engine;
}

}  // namespace glccl::cpu

#include "stages.hpp"

namespace glccl::cpu::detail {

std::uint32_t labelDelta(const EngineContext& ctx, int dimensions, int sampleBits, std::uint64_t delta) {
    return withSampleType(sampleBits, [&](auto sample) {
        return runStages(DeltaRule<decltype(sample)>{delta}, ctx, dimensions);
    });
}

}  // namespace glccl::cpu::detail

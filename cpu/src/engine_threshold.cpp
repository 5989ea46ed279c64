#include "stages.hpp"

namespace glccl::cpu::detail {

std::uint32_t labelThreshold(const EngineContext& ctx, int dimensions, int sampleBits, int channels,
                             std::uint64_t threshold) {
    return withSampleType(sampleBits, [&](auto sample) {
        using Sample = decltype(sample);
        if (channels == 4) return runStages(ThresholdRule<Sample, 4>{threshold}, ctx, dimensions);
        return runStages(ThresholdRule<Sample, 1>{threshold}, ctx, dimensions);
    });
}

}  // namespace glccl::cpu::detail

#include "stages.hpp"

namespace glccl::cpu::detail {

std::uint32_t labelSegments(const EngineContext& ctx, int dimensions, int sampleBits) {
    return withSampleType(sampleBits, [&](auto sample) {
        return runStages(SegmentsRule<decltype(sample)>{}, ctx, dimensions);
    });
}

}  // namespace glccl::cpu::detail

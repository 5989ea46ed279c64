#include "stages.hpp"

namespace glccl::cpu::detail {

std::uint32_t labelBinary(const EngineContext& ctx, int dimensions, int sampleBits, std::uint64_t level) {
    return withSampleType(sampleBits, [&](auto sample) {
        return runStages(BinaryRule<decltype(sample)>{level}, ctx, dimensions);
    });
}

}  // namespace glccl::cpu::detail

#include "neighbourhood_rule.hpp"
#include "stages.hpp"

namespace glccl::cpu::detail {

std::uint32_t labelNeighbourhood(const EngineContext& ctx, int dimensions, int sampleBits, int channels,
                                 const Criterion& criterion, bool joinsAlongX) {
    return withSampleType(sampleBits, [&](auto sample) -> std::uint32_t {
        using Sample = decltype(sample);
        const auto stages = [&](auto rule) {
            return runStages(NeighbourhoodRule<decltype(rule)>{rule, joinsAlongX}, ctx, dimensions);
        };
        switch (criterion.kind) {
            case Criterion::Kind::Binary: return stages(BinaryRule<Sample>{std::uint64_t(criterion.level)});
            case Criterion::Kind::Segments: return stages(SegmentsRule<Sample>{});
            case Criterion::Kind::Threshold:
                if (channels == 4) return stages(ThresholdRule<Sample, 4>{std::uint64_t(criterion.threshold)});
                return stages(ThresholdRule<Sample, 1>{std::uint64_t(criterion.threshold)});
            case Criterion::Kind::Delta: return stages(DeltaRule<Sample>(std::uint64_t(criterion.delta)));
        }
        return 0;
    });
}

}  // namespace glccl::cpu::detail

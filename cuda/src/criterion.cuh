#pragma once
// The criterion on the device, written once: whether a sample is foreground
// and whether two neighbouring samples connect, for every sample type and
// criterion the cuda engine takes. The twin of the CPU reference's
// pixelIsForeground / pixelsConnect (host/src/reference.cpp) and of
// glsl/criterion.glsl, and like the GLSL a compile-time choice: every kernel
// that reads samples is built per SampleCriterion, so its inner loops hold
// one comparison, not a switch.
//
//   Nonzero    binary: nonzero is foreground; foreground neighbours connect
//   Above      binary:L: above the level is foreground
//   Segments   0 is background; neighbours connect when their values are equal
//   Threshold  every sample is foreground; neighbours connect when every
//              channel differs by at most the threshold
//   Delta      0 is background; nonzero neighbours connect when they differ
//              by at most the delta
//
// Samples are unsigned integers, compared as the reference compares them
// (as unsigned 64-bit values, differences the larger minus the smaller):
// std::uint8_t, std::uint16_t, std::uint32_t and std::uint64_t for one
// channel, uchar4, ushort4 and uint4 (RGBA) for threshold. A criterion's
// number fits 32 bits (glccl::Criterion), whatever the samples.
//
// withSampleCriterion() is the one list of the pairs the kernels are built
// for: 4 sample widths x 5 criteria, and the 3 colour widths under
// threshold.

#include <cstdint>
#include <cstdlib>
#include <type_traits>

#include <vector_types.h>

#include "passes.hpp"

// Host and device code: the same functions are checked on the host against
// the CPU reference (tests/cuda_criterion.cpp, which needs no GPU).
#if defined(__CUDACC__)
#define GLCCL_CRITERION_HD __host__ __device__ __forceinline__
#else
#define GLCCL_CRITERION_HD inline
#endif

namespace glccl::cuda {

enum class CriterionRule : int { Nonzero, Above, Segments, Threshold, Delta };

namespace sample {

// |a - b| of unsigned samples, in their own width (never negative, never wrapped).
template <typename T>
GLCCL_CRITERION_HD T distance(T a, T b) {
    return a > b ? a - b : b - a;
}

// Whether every channel of a and b differs by at most `largest`.
template <typename T>
GLCCL_CRITERION_HD bool within(T a, T b, std::uint32_t largest) {
    if constexpr (sizeof(T) <= 2) {
        return abs(int(a) - int(b)) <= int(largest);
    } else {
        return std::uint64_t(distance(a, b)) <= std::uint64_t(largest);
    }
}
GLCCL_CRITERION_HD bool within(uchar4 a, uchar4 b, std::uint32_t largest) {
    return within(a.x, b.x, largest) && within(a.y, b.y, largest) && within(a.z, b.z, largest) &&
           within(a.w, b.w, largest);
}
GLCCL_CRITERION_HD bool within(ushort4 a, ushort4 b, std::uint32_t largest) {
    return within(a.x, b.x, largest) && within(a.y, b.y, largest) && within(a.z, b.z, largest) &&
           within(a.w, b.w, largest);
}
GLCCL_CRITERION_HD bool within(uint4 a, uint4 b, std::uint32_t largest) {
    return within(a.x, b.x, largest) && within(a.y, b.y, largest) && within(a.z, b.z, largest) &&
           within(a.w, b.w, largest);
}

template <typename T>
constexpr bool isGray = std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t> ||
                        std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>;

}  // namespace sample

// The criterion `Rule` on samples of type `SampleType`, with its number.
template <typename SampleType, CriterionRule Rule>
struct SampleCriterion {
    using Sample = SampleType;
    static constexpr CriterionRule kRule = Rule;
    // Binary criteria are labeled over blocks of pixels (node_grid.cuh,
    // volume_nodes.cuh); the others over single pixels.
    static constexpr bool kBinary = Rule == CriterionRule::Nonzero || Rule == CriterionRule::Above;
    static_assert(sample::isGray<Sample> || Rule == CriterionRule::Threshold, "colour samples take threshold only");

    // Above: the level; Threshold and Delta: the largest difference that connects.
    std::uint32_t number = 0;

    // The criterion of `rule` (its kind and samples are this type's).
    static GLCCL_CRITERION_HD SampleCriterion of(const PixelRule& rule) {
        return {Rule == CriterionRule::Above ? rule.level : rule.largestDifference};
    }

    GLCCL_CRITERION_HD bool isForeground(Sample v) const {
        if constexpr (Rule == CriterionRule::Threshold) {
            return true;
        } else if constexpr (Rule == CriterionRule::Above) {
            return std::uint64_t(v) > std::uint64_t(number);
        } else {
            return v != Sample(0);
        }
    }

    // Do the neighbouring samples a and b belong to one component? False
    // whenever either is background.
    GLCCL_CRITERION_HD bool connects(Sample a, Sample b) const {
        if constexpr (kBinary) {
            return isForeground(a) && isForeground(b);
        } else if constexpr (Rule == CriterionRule::Segments) {
            return a == b && isForeground(a);
        } else if constexpr (Rule == CriterionRule::Threshold) {
            return sample::within(a, b, number);
        } else {
            return isForeground(a) && isForeground(b) && sample::within(a, b, number);
        }
    }
};

// The binary criterion of the 8-bit fast paths.
using NonzeroBytes = SampleCriterion<std::uint8_t, CriterionRule::Nonzero>;

namespace detail {

template <typename Sample, class F>
void withCriterionOf(const PixelRule& rule, F&& f) {
    switch (rule.kind) {
        case PixelRuleKind::Binary:
            if (rule.level == 0) return f(SampleCriterion<Sample, CriterionRule::Nonzero>::of(rule));
            return f(SampleCriterion<Sample, CriterionRule::Above>::of(rule));
        case PixelRuleKind::Segments: return f(SampleCriterion<Sample, CriterionRule::Segments>::of(rule));
        case PixelRuleKind::Threshold: return f(SampleCriterion<Sample, CriterionRule::Threshold>::of(rule));
        case PixelRuleKind::Delta: return f(SampleCriterion<Sample, CriterionRule::Delta>::of(rule));
    }
}

}  // namespace detail

// Calls f(SampleCriterion<Sample, Rule>::of(rule)) for the rule's samples
// and criterion (checkedRequest took them: 1 channel of 8, 16, 32 or 64
// bits, or 4 channels of 8, 16 or 32 bits under threshold). A call
// instantiates f for all 23 pairs.
template <class F>
void withSampleCriterion(const PixelRule& rule, F&& f) {
    if (rule.channels == 4) {
        switch (rule.sampleBits) {
            case 8: return f(SampleCriterion<uchar4, CriterionRule::Threshold>::of(rule));
            case 16: return f(SampleCriterion<ushort4, CriterionRule::Threshold>::of(rule));
            default: return f(SampleCriterion<uint4, CriterionRule::Threshold>::of(rule));
        }
    }
    switch (rule.sampleBits) {
        case 8: return detail::withCriterionOf<std::uint8_t>(rule, f);
        case 16: return detail::withCriterionOf<std::uint16_t>(rule, f);
        case 32: return detail::withCriterionOf<std::uint32_t>(rule, f);
        default: return detail::withCriterionOf<std::uint64_t>(rule, f);
    }
}

}  // namespace glccl::cuda

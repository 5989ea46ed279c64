#pragma once
// Division by an invariant divisor d (1 <= d < 2^32), exact for every 32-bit
// dividend (Granlund and Montgomery, "Division by invariant integers using
// multiplication", fig. 4.1): q = (t + ((n - t) >> shift1)) >> shift2 with
// t the high word of multiplier * n. A volume's node keys are divided by its
// width and lines by its height in every pass, where a hardware division
// costs several times a multiply: the CUDA engine's volume nodes
// (cuda/src/volume_nodes.cuh) divide with it on the device, the compute
// engine hands multiplier and shifts to glsl/volume_nodes.glsl as uniforms.

#include <cstdint>

#if defined(__CUDACC__)
#define GLCCL_DIVISOR_HD __host__ __device__ __forceinline__
#else
#define GLCCL_DIVISOR_HD inline
#endif

namespace glccl::detail {

struct Divisor {
    std::uint32_t divisor = 1, multiplier = 1, shift1 = 0, shift2 = 0;

    static Divisor of(std::uint32_t d) {
        Divisor out;
        out.divisor = d;
        int l = 0;
        while (l < 32 && (std::uint64_t(1) << l) < d) ++l;
        out.multiplier = std::uint32_t(((std::uint64_t(1) << 32) * ((std::uint64_t(1) << l) - d)) / d + 1);
        out.shift1 = l < 1 ? std::uint32_t(l) : 1u;
        out.shift2 = l > 1 ? std::uint32_t(l - 1) : 0u;
        return out;
    }
    GLCCL_DIVISOR_HD std::uint32_t quotient(std::uint32_t n) const {
#if defined(__CUDA_ARCH__)
        const std::uint32_t t = __umulhi(multiplier, n);
#else
        const std::uint32_t t = std::uint32_t((std::uint64_t(multiplier) * n) >> 32);
#endif
        return (t + ((n - t) >> shift1)) >> shift2;
    }
};

}  // namespace glccl::detail

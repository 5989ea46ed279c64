#pragma once
// What the cuda engine takes, whether or not this glccl was built with it:
// its one declaration, completed by the cuda library with whether CUDA runs
// here (cuda/src/capabilities.cpp) and by a build without CUDA with why it
// does not (core/src/engine_registry.cpp), so that the router answers the
// same of any input in either build and only then says where cuda cannot
// run.

#include <climits>
#include <cstdint>

#include "gl_formats.hpp"
#include "glccl/capabilities.hpp"

namespace glccl::detail {

// The kernels index elements with 32-bit integers (cuda/src/pipeline.cpp).
constexpr std::uint64_t kCudaLargestCount = std::uint64_t(1) << 32;

inline EngineCapabilities cudaInputs() {
    EngineCapabilities engine;
    engine.backend = Backend::Cuda;
    engine.residences = {Residence::GlTexture, Residence::HostMemory, Residence::CudaDevice};
    // The kernels are built per sample type and criterion (criterion.cuh):
    // unsigned samples of 8, 16, 32 and 64 bits, color (RGBA, for
    // threshold) of 8, 16 and 32, every criterion. Textures of those
    // formats are read as their samples, a GL_RG32UI texel as one 64-bit
    // sample (red the low half); float textures are not.
    engine.sampleBits = {8, 16, 32, 64};
    engine.colorSampleBits = {8, 16, 32};
    engine.textureFormats = {GL_R8, GL_R8UI, GL_R16, GL_R32UI, GL_RG32UI, GL_RGBA8, GL_RGBA16};
    engine.channels = {1};
    engine.thresholdChannels = {1, 4};
    engine.binaryLevel = true;
    engine.delta = true;
    engine.connectivities = {Connectivity::Four, Connectivity::Eight, Connectivity::Six, Connectivity::Eighteen,
                             Connectivity::TwentySix};
    engine.dimensions = {2, 3};
    // Its GL texture route (CUDA-GL interop) reads 2-D textures.
    engine.volumeResidences = {Residence::HostMemory, Residence::CudaDevice};
    engine.largestExtent = INT_MAX;
    engine.largestCount = kCudaLargestCount;
    return engine;
}

}  // namespace glccl::detail

// What the cuda engine takes: its one declaration, read by the router
// (core/src/route.cpp) and by this library's own entries
// (whySamplesAreRefused, pipeline.cpp).

#include <GL/gl.h>
#include <GL/glext.h>

#include <climits>
#include <cstdint>

#include "glccl/cuda_labeler.hpp"

namespace glccl::cuda {

namespace {

// The kernels index elements with 32-bit integers (pipeline.cpp).
constexpr std::uint64_t kLargestCount = std::uint64_t(1) << 32;

// The declaration, made once per process: whether CUDA runs does not
// change, and the first question costs a driver initialisation.
EngineCapabilities declaration() {
    EngineCapabilities engine;
    engine.backend = Backend::Cuda;
    if (!available(&engine.whyNotHere) && engine.whyNotHere.empty()) engine.whyNotHere = "no usable CUDA device";
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
    engine.largestCount = kLargestCount;
    return engine;
}

}  // namespace

EngineCapabilities capabilities() {
    static const EngineCapabilities declared = declaration();  // thread-safe static initialisation
    return declared;
}

}  // namespace glccl::cuda

// The engines, one entry each (engine_registry.hpp), and the GL engines'
// declarations, which read a context's description only; the cpu engine,
// the reference and cuda declare themselves in their own libraries (what
// cuda takes in host/internal/cuda_inputs.hpp, which a build without it
// declares too).

#include "engine_registry.hpp"

#include <algorithm>
#include <atomic>
#include <string>

#include "cuda_inputs.hpp"
#include "engines/host_engines.hpp"
#include "glccl/cpu_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/reference.hpp"
#include "glccl/route.hpp"
#ifdef GLCCL_HAVE_CUDA
#include "glccl/cuda_labeler.hpp"
#endif

namespace glccl::engines {

namespace {

// The compute engine's voxel keys stay below 2^31, its rank flag
// (compute_common.glsl): 2^30 voxels, whose width rounded up to a power of
// two at most doubles the keys' range; the division of lines by the height
// is exact below 2^30 too.
constexpr std::uint64_t kLargestComputeVolumeCount = std::uint64_t(1) << 30;

// The compute engine's largest work group and shared memory, what every
// desktop OpenGL 4.3 context has (an ES 3.1 context may have less).
constexpr int kComputeGroupThreads = 1024;
constexpr int kComputeSharedBytes = 32768;

bool atLeast(const ContextInfo& context, int major, int minor) {
    return context.major > major || (context.major == major && context.minor >= minor);
}

std::string noContextReason(const std::string& whyNoContext) {
    return whyNoContext.empty() ? "no GL context could be made" : whyNoContext;
}

// The GL engines: every format the Labeler accepts, 2-D, up to the
// context's texture size.
EngineCapabilities glEngine(Backend backend, const ContextInfo* context) {
    EngineCapabilities engine;
    engine.backend = backend;
    engine.residences = {Residence::GlTexture};
    engine.hostUpload = true;
    // 64-bit samples as GL_RG32UI, both halves compared (criterion.glsl).
    engine.sampleBits = {8, 16, 32, 64};
    // Binary and segments read the red channel of a color texture.
    engine.channels = {1, 4};
    engine.thresholdChannels = {1, 4};
    engine.connectivities = {Connectivity::Four, Connectivity::Eight};
    engine.dimensions = {2};
    if (context) {
        engine.largestExtent = std::min(context->maxTextureSize, kLargestTextureSide);
        engine.largestCount = std::uint64_t(engine.largestExtent) * std::uint64_t(engine.largestExtent);
    }
    return engine;
}

EngineCapabilities computeDeclaration(const ContextInfo* context, const std::string& whyNoContext) {
    EngineCapabilities engine = glEngine(Backend::Compute, context);
    // Volumes: GL_TEXTURE_3D up to the context's 3-D size, 2^30 voxels.
    engine.connectivities.insert(engine.connectivities.end(),
                                 {Connectivity::Six, Connectivity::Eighteen, Connectivity::TwentySix});
    engine.dimensions = {2, 3};
    engine.largestVolumeCount = kLargestComputeVolumeCount;
    if (context) engine.largestVolumeExtent = std::min(context->max3DTextureSize, kLargestTextureSide);
    if (const std::string notBuilt = whyNoGlEngines(); !notBuilt.empty()) engine.whyNotHere = notBuilt;
    else if (!context) engine.whyNotHere = noContextReason(whyNoContext);
    else if (context->es && !atLeast(*context, 3, 1))
        engine.whyNotHere = "it needs OpenGL ES 3.1 (compute shaders), the context is " + context->version +
                            "; the raster backend runs there";
    else if (context->es && !context->imageAtomics)
        engine.whyNotHere = "it needs image atomics (OpenGL ES 3.2, or ES 3.1 with OES_shader_image_atomic), the "
                            "context is " + context->version + " without them; the raster backend runs there";
    else if (!context->es && !atLeast(*context, 4, 3))
        engine.whyNotHere = "it needs OpenGL 4.3 (compute shaders), the context is " + context->version +
                            "; the raster backend runs there";
    else if (context->es && (context->computeGroupThreads < kComputeGroupThreads ||
                             context->computeSharedBytes < kComputeSharedBytes))
        engine.whyNotHere = "it needs work groups of " + std::to_string(kComputeGroupThreads) + " threads and " +
                            std::to_string(kComputeSharedBytes / 1024) + " KiB of shared memory (what desktop "
                            "OpenGL 4.3 guarantees), the context is " + context->version + " with " +
                            std::to_string(context->computeGroupThreads) + " and " +
                            std::to_string(context->computeSharedBytes / 1024) + " KiB; the raster backend runs there";
    return engine;
}

EngineCapabilities rasterDeclaration(const ContextInfo* context, const std::string& whyNoContext) {
    EngineCapabilities engine = glEngine(Backend::Raster, context);
    if (const std::string notBuilt = whyNoGlEngines(); !notBuilt.empty()) engine.whyNotHere = notBuilt;
    else if (!context) engine.whyNotHere = noContextReason(whyNoContext);
    else if (context->es && (context->major < 3 || !context->floatTargets || !context->floatBlend))
        engine.whyNotHere = "it needs OpenGL ES 3.0 with EXT_color_buffer_float and EXT_float_blend, the context is " +
                            context->version;
    else if (!context->es && !atLeast(*context, 3, 3))
        engine.whyNotHere = "it needs OpenGL 3.3, the context is " + context->version;
    return engine;
}

EngineCapabilities cudaDeclaration(const ContextInfo*, const std::string&) {
#ifdef GLCCL_HAVE_CUDA
    return cuda::capabilities();
#else
    EngineCapabilities engine = detail::cudaInputs();
    engine.whyNotHere = "it is not built into this glccl (no CUDA compiler was found at build time, or "
                        "GLCCL_WITH_CUDA or GLCCL_WITH_GL was off)";
    return engine;
#endif
}

// The host memory of the GPU engines: their pinned copies of the pixels
// and labels where they stage them (room grown by doubling), and per
// component the rows they read back (likewise) and their own table, which
// the caller's is copied from.
constexpr EngineEntry::HostMemory kGpuHostMemory{24, 3 * sizeof(Component)};

// Each engine once. The ranks give auto's rule (glccl/route.hpp): a GL
// texture goes to compute, raster, cuda, cpu (cpu first on a software
// rasterizer), host memory to cuda, compute, cpu, CUDA device memory to cuda;
// the reference is the oracle, never auto's. The cpu engine's own host
// memory is its stripes' scratch, a few rows a thread, and a binary
// image's foreground bits and run labels (3/8 of a byte an element at
// most; the labels are the caller's); the reference's
// its copy of the input, its forest and labels and their canonical copy,
// and its sums and tables a component, the last of which takes the
// caller's table's place when it is done.
const EngineEntry kEngines[] = {
    {Backend::Compute, true, computeDeclaration, nullptr, AutoRanks{1, 0, 1, kNotAuto}, kGpuHostMemory},
    {Backend::Raster, true, rasterDeclaration, nullptr, AutoRanks{kNotAuto, 1, 2, kNotAuto}, kGpuHostMemory},
    {Backend::Cuda, false, cudaDeclaration, makeCudaEngine, AutoRanks{0, 2, 3, 0}, kGpuHostMemory},
    {Backend::Cpu, false, [](const ContextInfo*, const std::string&) { return cpu::capabilities(); },
     makeCpuEngine, AutoRanks{2, 3, 0, kNotAuto}, {4, 0}},
    {Backend::Reference, false, [](const ContextInfo*, const std::string&) { return referenceCapabilities(); },
     [](const EnginePlace&) { return makeReferenceEngine(); }, AutoRanks{}, {16, 3 * sizeof(Component)}},
};

std::atomic<GlEngineMaker> glMaker{nullptr};

}  // namespace

const EngineEntry& engineEntry(Backend backend) { return entryOf(kEngines, backend); }

void setGlEngineMaker(GlEngineMaker maker) { glMaker.store(maker); }
GlEngineMaker glEngineMaker() { return glMaker.load(); }

std::string whyNoGlEngines() {
#ifdef GLCCL_WITH_GL
    if (glEngineMaker()) return "";
    return "it is not linked into this program (the GL engine library, glccl::glccl_engine)";
#else
    return "it is not built into this glccl (built without OpenGL: GLCCL_WITH_GL=OFF)";
#endif
}

}  // namespace glccl::engines

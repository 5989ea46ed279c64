// The router: each engine's declaration and the one choice made from them.

#include "glccl/route.hpp"

#include <algorithm>
#include <limits>
#include <mutex>

#include "gl.hpp"
#include "glccl/error.hpp"
#ifdef GLCCL_HAVE_CUDA
#include "glccl/cuda_labeler.hpp"
#endif

namespace glccl {

namespace {

// The CUDA path indexes pixels with 32-bit integers (cuda/src/pipeline.cpp).
constexpr std::uint64_t kLargestCudaCount = std::uint64_t(1) << 32;
// The compute engine's voxel keys stay below 2^31, its rank flag
// (compute_common.glsl): 2^30 voxels, whose width rounded up to a power of
// two at most doubles the keys' range; the division of lines by the height
// is exact below 2^30 too.
constexpr std::uint64_t kLargestComputeVolumeCount = std::uint64_t(1) << 30;
constexpr std::int64_t kLargestIntSide = std::numeric_limits<int>::max();

bool atLeast(const ContextInfo& context, int major, int minor) {
    return context.major > major || (context.major == major && context.minor >= minor);
}

// The CUDA driver is asked once per process: the answer does not change and
// the first question costs a driver initialisation.
const std::string& cudaUnavailableReason() {
    static std::once_flag once;
    static std::string why;
    std::call_once(once, [] {
#ifdef GLCCL_HAVE_CUDA
        if (!cuda::available(&why) && why.empty()) why = "no usable CUDA device";
#else
        why = "it is not built into this glccl (no CUDA compiler was found at build time)";
#endif
    });
    return why;
}

// What a texel of a format holds, for messages.
const char* sampleDescription(unsigned format) {
    switch (format) {
        case GL_R16:
        case GL_RGBA16: return "16-bit samples";
        case GL_R32UI: return "32-bit samples";
        case GL_RG32UI: return "64-bit samples";
        case GL_R32F: return "32-bit float samples";
        default: return "8-bit samples";
    }
}

template <class T>
bool contains(const std::vector<T>& list, const T& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
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

}  // namespace

const char* textureFormatName(unsigned format) {
    switch (format) {
        case GL_R8: return "GL_R8";
        case GL_RGBA8: return "GL_RGBA8";
        case GL_RGB8: return "GL_RGB8";
        case GL_R16: return "GL_R16";
        case GL_RGBA16: return "GL_RGBA16";
        case GL_R32F: return "GL_R32F";
        case GL_R8UI: return "GL_R8UI";
        case GL_R32UI: return "GL_R32UI";
        case GL_RG32UI: return "GL_RG32UI";
        default: return "an unsupported format";
    }
}

const char* residenceName(Residence residence) {
    switch (residence) {
        case Residence::GlTexture: return "a GL texture";
        case Residence::HostMemory: return "host memory";
        case Residence::CudaDevice: return "CUDA device memory";
    }
    return "?";
}

InputDescription InputDescription::hostImage(int width, int height, int channels, int sampleBits) {
    InputDescription input;
    input.residence = Residence::HostMemory;
    input.shape = Shape::image(width, height);
    input.channels = channels;
    input.sampleBits = sampleBits;
    return input;
}

InputDescription InputDescription::texture(int width, int height, unsigned internalFormat) {
    InputDescription input;
    input.residence = Residence::GlTexture;
    input.shape = Shape::image(width, height);
    const bool color = internalFormat == GL_RGBA8 || internalFormat == GL_RGBA16;
    input.channels = color ? 4 : 1;
    input.sampleBits = internalFormat == GL_R16 || internalFormat == GL_RGBA16 ? 16
                       : internalFormat == GL_R32UI || internalFormat == GL_R32F ? 32
                       : internalFormat == GL_RG32UI                             ? 64
                                                                                   : 8;
    input.textureFormat = internalFormat;
    return input;
}

InputDescription InputDescription::volumeTexture(int width, int height, int depth, unsigned internalFormat) {
    InputDescription input = texture(width, height, internalFormat);
    input.shape = Shape::volume(width, height, depth);
    return input;
}

InputDescription InputDescription::cudaDeviceImage(int width, int height, int channels, int sampleBits) {
    InputDescription input = hostImage(width, height, channels, sampleBits);
    input.residence = Residence::CudaDevice;
    return input;
}

bool EngineCapabilities::takes(Residence residence) const { return contains(residences, residence); }
bool EngineCapabilities::takes(Connectivity connectivity) const { return contains(connectivities, connectivity); }

EngineCapabilities capabilitiesOf(Backend backend, const ContextInfo* context, const std::string& whyNoContext) {
    const std::string noContext = whyNoContext.empty() ? "no GL context could be made" : whyNoContext;
    switch (backend) {
        case Backend::Compute: {
            EngineCapabilities engine = glEngine(backend, context);
            // Volumes: GL_TEXTURE_3D up to the context's 3-D size, 2^30 voxels.
            engine.connectivities.insert(engine.connectivities.end(),
                                         {Connectivity::Six, Connectivity::Eighteen, Connectivity::TwentySix});
            engine.dimensions = {2, 3};
            engine.largestVolumeCount = kLargestComputeVolumeCount;
            if (context) engine.largestVolumeExtent = std::min(context->max3DTextureSize, kLargestTextureSide);
            if (!context) engine.whyNotHere = noContext;
            else if (!atLeast(*context, 4, 3))
                engine.whyNotHere = "it needs OpenGL 4.3 (compute shaders), the context is " + context->version +
                                    "; the raster backend runs there";
            return engine;
        }
        case Backend::Raster: {
            EngineCapabilities engine = glEngine(backend, context);
            if (!context) engine.whyNotHere = noContext;
            else if (!atLeast(*context, 3, 3))
                engine.whyNotHere = "it needs OpenGL 3.3, the context is " + context->version;
            return engine;
        }
        case Backend::Cuda: {
            // The one statement of what the CUDA kernels compare: 8-bit
            // samples (GL_R8, GL_RGBA8 for threshold), binary as nonzero.
            // Anything else would be a silently wrong answer there.
            EngineCapabilities engine;
            engine.backend = backend;
            engine.whyNotHere = cudaUnavailableReason();
            engine.residences = {Residence::GlTexture, Residence::HostMemory, Residence::CudaDevice};
            engine.sampleBits = {8};
            engine.textureFormats = {GL_R8, GL_RGBA8};
            engine.channels = {1};
            engine.thresholdChannels = {1, 4};
            engine.binaryLevel = false;
            engine.delta = false;
            // Volumes from host and CUDA device memory (cuda/src/image_labeler.cpp).
            engine.connectivities = {Connectivity::Four, Connectivity::Eight, Connectivity::Six,
                                     Connectivity::Eighteen, Connectivity::TwentySix};
            engine.dimensions = {2, 3};
            // Its GL texture route (CUDA-GL interop) reads 2-D textures.
            engine.volumeResidences = {Residence::HostMemory, Residence::CudaDevice};
            engine.largestExtent = kLargestIntSide;
            engine.largestCount = kLargestCudaCount;
            return engine;
        }
        case Backend::Cpu: {
            // The reference reads the host image itself; a texture it
            // downloads first.
            EngineCapabilities engine;
            engine.backend = backend;
            engine.residences = {Residence::HostMemory, Residence::GlTexture};
            engine.sampleBits = {8, 16, 32, 64};
            engine.channels = {1, 4};  // binary and segments read the red channel of a color texture
            engine.thresholdChannels = {1, 4};
            // The reference labels volumes of host memory as well (labelReference).
            engine.connectivities = {Connectivity::Four, Connectivity::Eight, Connectivity::Six,
                                     Connectivity::Eighteen, Connectivity::TwentySix};
            engine.dimensions = {2, 3};
            engine.largestExtent = kLargestIntSide;
            engine.largestCount = std::numeric_limits<std::uint64_t>::max();
            return engine;
        }
        case Backend::Auto: break;
    }
    throw Error("auto is not an engine: resolve it with chooseRoute()");
}

namespace {

// The engines that label volumes, but `refusing`: "compute, cuda or cpu".
// The engines that label a volume that lives where `residence` says, but
// `refusing`: "compute or cpu", for the refusals' advice.
std::string volumeEngines(Backend refusing, Residence residence) {
    std::vector<std::string> names;
    for (Backend backend : {Backend::Compute, Backend::Cuda, Backend::Cpu}) {
        if (backend == refusing) continue;
        const EngineCapabilities engine = capabilitiesOf(backend, nullptr);
        const auto& from = engine.volumeResidences.empty() ? engine.residences : engine.volumeResidences;
        if (contains(engine.dimensions, 3) && contains(from, residence)) names.push_back(backendName(backend));
    }
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i)
        list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return list;
}

// What of the input itself the engine does not take ("" when it takes it);
// whether it runs here is asked apart.
std::string whyInputRefused(const EngineCapabilities& engine, const InputDescription& input,
                            const LabelOptions& options) {
    const std::string name = backendName(engine.backend);
    const bool reached = engine.takes(input.residence) ||
                         (input.residence == Residence::HostMemory && engine.hostUpload);
    if (!reached)
        return "the " + name + " backend does not read " + residenceName(input.residence);
    // A host's 3-D texture handed to the Labeler: say what takes it.
    if (!contains(engine.dimensions, input.shape.dimensions) && input.shape.dimensions == 3 &&
        input.residence == Residence::GlTexture)
        return "the " + name + " backend labels 2-D images; this texture is a volume (" +
               std::to_string(input.shape.width) + "x" + std::to_string(input.shape.height) + "x" +
               std::to_string(input.shape.depth) + "): use " + volumeEngines(engine.backend, input.residence);
    if (!contains(engine.dimensions, input.shape.dimensions))
        return "the " + name + " backend does not label " + std::to_string(input.shape.dimensions) + "-D input";
    if (input.shape.dimensions == 3 && !engine.volumeResidences.empty() &&
        !contains(engine.volumeResidences, input.residence)) {
        std::string from;
        for (std::size_t i = 0; i < engine.volumeResidences.size(); ++i)
            from += (i == 0 ? "" : " or ") + std::string(residenceName(engine.volumeResidences[i]));
        return "the " + name + " backend labels volumes from " + from + ", not from " +
               residenceName(input.residence) + ": use " + volumeEngines(engine.backend, input.residence);
    }
    const bool textureTaken = engine.textureFormats.empty() || contains(engine.textureFormats, input.textureFormat);
    const bool samplesTaken = input.residence == Residence::GlTexture ? textureTaken
                                                                      : contains(engine.sampleBits, input.sampleBits);
    // cuda's refusal in the words its users know from the Labeler.
    if (!samplesTaken && engine.backend == Backend::Cuda) {
        const std::string what = input.residence == Residence::GlTexture
                                     ? std::string("this texture is ") + textureFormatName(input.textureFormat) + " (" +
                                           sampleDescription(input.textureFormat) + ")"
                                     : "this image has " + std::to_string(input.sampleBits) + "-bit samples";
        return "the " + name + " backend labels 8-bit input (GL_R8, or GL_RGBA8 for threshold); " + what +
               ": use the compute, raster or cpu backend";
    }
    if (!samplesTaken) {
        std::string bits;
        for (std::size_t i = 0; i < engine.sampleBits.size(); ++i)
            bits += (i == 0 ? "" : i + 1 == engine.sampleBits.size() ? " or " : ", ") +
                    std::to_string(engine.sampleBits[i]) + "-";
        return "the " + name + " backend labels " + bits + "bit samples, not " + std::to_string(input.sampleBits) +
               "-bit";
    }
    const bool threshold = options.criterion.kind == Criterion::Kind::Threshold;
    if (!contains(threshold ? engine.thresholdChannels : engine.channels, input.channels)) {
        if (input.residence == Residence::GlTexture)
            return "the " + name + " backend reads GL_R8 textures (and GL_RGBA8 for the threshold criterion)";
        return "the " + name + " backend does not label " + std::to_string(input.channels) +
               "-channel images with the " + options.criterion.toString() + " criterion";
    }
    if (!engine.binaryLevel && options.criterion.kind == Criterion::Kind::Binary && options.criterion.level != 0)
        return "the " + name + " backend labels binary as nonzero only, not '" + options.criterion.toString() +
               "': use the compute, raster or cpu backend";
    if (!engine.delta && options.criterion.kind == Criterion::Kind::Delta)
        return "the " + name + " backend does not take the delta criterion ('" + options.criterion.toString() +
               "'): use the compute, raster or cpu backend";
    return "";
}

}  // namespace

std::string whyRefused(const EngineCapabilities& capabilities, const InputDescription& input,
                       const LabelOptions& options) {
    const std::string why = whyInputRefused(capabilities, input, options);
    if (!why.empty()) return why;
    if (!capabilities.whyNotHere.empty())
        return std::string("the ") + backendName(capabilities.backend) + " backend cannot run here: " +
               capabilities.whyNotHere;
    return "";
}

bool exceedsOneCall(const EngineCapabilities& capabilities, const Shape& shape) {
    if (shape.count() == 0) return false;  // any size: nothing to decide
    const bool volume = shape.dimensions == 3 && capabilities.largestVolumeExtent > 0;
    const std::int64_t largestExtent = volume ? capabilities.largestVolumeExtent : capabilities.largestExtent;
    for (int axis = 0; axis < shape.dimensions; ++axis)
        if (shape.extent(axis) > largestExtent) return true;
    return shape.count() > (volume ? capabilities.largestVolumeCount : capabilities.largestCount);
}

Route chooseRoute(const InputDescription& input, const LabelOptions& options, const ContextInfo* context,
                  const std::string& whyNoContext) {
    auto routeOf = [&](const EngineCapabilities& engine) {
        Route route;
        route.backend = engine.backend;
        route.pieces = exceedsOneCall(engine, input.shape);
        return route;
    };
    if (options.backend != Backend::Auto) {
        const EngineCapabilities engine = capabilitiesOf(options.backend, context, whyNoContext);
        const std::string why = whyRefused(engine, input, options);
        if (!why.empty()) throw Error(why);
        return routeOf(engine);
    }
    // A software rasterizer runs shaders on the CPU, where the reference
    // labeler itself is several times faster than either GL engine.
    std::vector<Backend> order;
    if (context && isSoftwareRenderer(*context)) order.push_back(Backend::Cpu);
    for (Backend backend : {Backend::Compute, Backend::Raster, Backend::Cpu, Backend::Cuda})
        if (!contains(order, backend)) order.push_back(backend);
    std::string reasons;
    for (Backend backend : order) {
        const EngineCapabilities engine = capabilitiesOf(backend, context, whyNoContext);
        const std::string why = whyRefused(engine, input, options);
        if (why.empty()) {
            Route route = routeOf(engine);
            if (!context && backend == Backend::Cpu)
                route.note = (whyNoContext.empty() ? std::string("no GL context could be made") : whyNoContext) +
                             "; auto runs the cpu backend";
            return route;
        }
        reasons += (reasons.empty() ? "" : "; ") + why;
    }
    throw Error("no backend takes " + std::string(residenceName(input.residence)) + " here: " + reasons);
}

std::string whyUnavailable(Backend backend, const ContextInfo& context) {
    return backend == Backend::Auto ? "" : capabilitiesOf(backend, &context).whyNotHere;
}

Backend resolveBackend(Backend requested, const ContextInfo& context) {
    return requested != Backend::Auto ? requested : chooseRoute({}, LabelOptions{}, &context).backend;
}

}  // namespace glccl

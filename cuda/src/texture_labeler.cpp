// TextureLabeler: the CUDA path on GL textures through CUDA-GL interop, with
// its buffers and texture registrations kept from frame to frame (the
// header's "Texture lifetime" says what a host must do for that to be safe).
//
// One frame:  map both textures -> copy the input's level 0 into the input
// buffer (its texels are the samples: inputFormatOf) -> findLabels -> copy
// the labels into the label texture -> table -> unmap. With timings, the two
// copies are stages of their own (copy_input, copy_labels). The label copy
// is queued before the host waits for the count, so it runs while the host
// is busy with the table.

#include <dlfcn.h>

#include <string>

// cuda_gl_interop.h uses GL's types and expects them declared first.
#include <GL/gl.h>
#include <GL/glext.h>
#include <cuda_gl_interop.h>

#include "glccl/cuda_labeler.hpp"
#include "graphics_resource.hpp"
#include "host_staging.hpp"
#include "pipeline.hpp"
#include "texture_surface.hpp"

namespace glccl::cuda {
namespace {

// glIsTexture, the one GL call made here, found at run time as the engine
// finds its entry points (engine/src/gl_runtime.cpp): glccl links no GL
// library. Null where the process has no GL library, and then no context
// can be current and no name is a texture.
using IsTexture = GLboolean (*)(GLuint);
IsTexture isTextureFunction() {
    static const IsTexture found = [] {
        for (const char* library : {"libOpenGL.so.0", "libGL.so.1"}) {
            if (void* handle = dlopen(library, RTLD_LAZY | RTLD_LOCAL))
                return reinterpret_cast<IsTexture>(dlsym(handle, "glIsTexture"));
        }
        return IsTexture(nullptr);
    }();
    return found;
}

// An input texture's samples, and its texels as CUDA maps them.
struct InputFormat {
    unsigned format;   // the GL internal format
    int channels;      // samples per pixel: 1, or 4 (RGBA)
    int sampleBits;    // bits of one sample
    int texelChannels; // channels of the mapped array (GL_RG32UI: 2)
    int channelBits;   // bits of one of them
    const char* name;
};

// The internal formats the input may have (capabilities()'s textureFormats):
// each texel copied as it is is the pixel's samples, little-endian; a
// GL_RG32UI texel (red the low, green the high 32 bits) one 64-bit sample.
InputFormat inputFormatOf(const CudaCheck& check, unsigned format) {
    switch (format) {
        case GL_R8: return {format, 1, 8, 1, 8, "GL_R8"};
        case GL_R8UI: return {format, 1, 8, 1, 8, "GL_R8UI"};
        case GL_R16: return {format, 1, 16, 1, 16, "GL_R16"};
        case GL_R32UI: return {format, 1, 32, 1, 32, "GL_R32UI"};
        case GL_RG32UI: return {format, 1, 64, 2, 32, "GL_RG32UI"};
        case GL_RGBA8: return {format, 4, 8, 4, 8, "GL_RGBA8"};
        case GL_RGBA16: return {format, 4, 16, 4, 16, "GL_RGBA16"};
        default: break;
    }
    check.fail("inputFormat is " + std::to_string(format) +
               "; expected GL_R8, GL_R8UI, GL_R16, GL_R32UI, GL_RG32UI, GL_RGBA8 or GL_RGBA16");
}

// The stages of the copies between the textures and the pipeline's buffers.
constexpr const char* kCopyInputStage = "copy_input";
constexpr const char* kCopyLabelsStage = "copy_labels";

}  // namespace

// What TextureLabeler and labelGlTexture() share; each passes the CudaCheck
// that names its entry.
class TextureLabelerCore {
public:
    // The registrations go first, the pipeline last (reverse order of
    // declaration), after everything queued has finished.
    ~TextureLabelerCore() { pipeline_.synchronize(); }

    void reserve(const CudaCheck& check, int width, int height, int channels) {
        pipeline_.reserve(check, checkedPixelCount(check, width, height, channels));
        pipeline_.inputBuffer(check, std::size_t(channels));
        pipeline_.labelBuffer(check);
        pipeline_.reserveTable(check, kReservedTableComponents);
        pipeline_.reserveBlocks(check);
        pipeline_.reserveLines(check, height, 1);
    }

    const std::vector<Component>& label(const CudaCheck& check, unsigned inputTexture, const InputFormat& format,
                                        unsigned labelTexture, int width, int height, Connectivity connectivity,
                                        Criterion criterion, StageTimings* timings) {
        const LabelRequest request =
            checkedRequest(check, width, height, format.channels, format.sampleBits, connectivity, criterion);
        if (inputTexture == 0) check.fail("inputTexture is 0; expected a GL texture name");
        if (labelTexture == 0) check.fail("labelTexture is 0; expected a GL texture name");
        if (inputTexture == labelTexture) {
            check.fail("inputTexture and labelTexture are both texture " + std::to_string(inputTexture) +
                       "; the labels need a GL_R32UI texture of their own");
        }
        requireTexture(check, input_, inputTexture);
        requireTexture(check, labels_, labelTexture);

        pipeline_.reserve(check, request.pixelCount());
        const std::size_t elementBytes = request.rule.bytesPerElement();
        std::uint8_t* d_input = pipeline_.inputBuffer(check, elementBytes);
        std::uint32_t* d_labels = pipeline_.labelBuffer(check);
        const cudaStream_t stream = pipeline_.stream();

        MappedTextures mapped;
        cudaArray_t arrays[2] = {};
        const TextureKey inputKey{inputTexture, width, height, format.format};
        const TextureKey labelKey{labelTexture, width, height, GL_R32UI};
        mapTextures(check, inputKey, labelKey, format, mapped, arrays);

        // The copies between the textures and the pipeline's buffers are
        // device work of this call like the kernels, and timed as stages.
        copyTimer_.start(timings != nullptr, stream, check);
        const std::size_t inputRow = std::size_t(width) * elementBytes;
        {
            auto scope = copyTimer_.scope(kCopyInputStage);
            check(cudaMemcpy2DFromArrayAsync(d_input, inputRow, arrays[0], 0, 0, inputRow, std::size_t(height),
                                             cudaMemcpyDeviceToDevice, stream),
                  "cudaMemcpy2DFromArrayAsync (inputTexture)");
        }
        pipeline_.findLabels(check, request, d_input, d_labels, timings != nullptr);
        const ArraySurface labelSurface(check, arrays[1], stream);
        {
            auto scope = copyTimer_.scope(kCopyLabelsStage);
            labelSurface.write(check, d_labels, width, height);
        }
        const std::vector<Component>& table = pipeline_.componentTable(check, timings);
        if (timings != nullptr) {
            // The input's copy first, the labels' after the kernels.
            StageTimings copies;
            copyTimer_.collect(copies);
            for (const StageTime& copy : copies) {
                if (copy.stage == kCopyInputStage) timings->insert(timings->begin(), copy);
                else timings->push_back(copy);
            }
        }
        labeledPixels_ = request.pixelCount();
        return table;
    }

    void downloadLabels(const CudaCheck& check, std::uint32_t* out, std::size_t count) {
        if (labeledPixels_ == 0) check.fail("nothing was labeled yet");
        if (out == nullptr || count != labeledPixels_)
            check.fail("room for " + std::to_string(count) + " labels given, the last labeling has " +
                       std::to_string(labeledPixels_));
        staging_.downloadTo(check, pipeline_.labelBuffer(check), count * sizeof(std::uint32_t), pipeline_.stream(), out,
                            pipeline_.counts());
    }

    void forget(unsigned texture) {
        if (input_.holds(texture) || labels_.holds(texture)) pipeline_.synchronize();
        if (input_.holds(texture)) input_.reset();
        if (labels_.holds(texture)) labels_.reset();
    }

    ResourceCounts counts() const { return pipeline_.counts(); }
    const std::vector<Component>& table() const { return pipeline_.table(); }

private:
    // A name that is no longer a texture: its registration (if we hold one)
    // would read the deleted texture's storage, so it goes, and the call is
    // an error. glIsTexture is a name lookup, without a pipeline stall.
    void requireTexture(const CudaCheck& check, const GraphicsResource& role, unsigned texture) {
        const IsTexture isTexture = isTextureFunction();
        if (isTexture && isTexture(texture) == GL_TRUE) return;
        forget(texture);
        check.fail(std::string(role.what()) + " " + std::to_string(texture) +
                   " is not a texture of the current GL context (deleted, or another context is current)");
    }

    // Registers what is not registered under its key yet; true when it did.
    bool registerIfNeeded(GraphicsResource& role, const TextureKey& key, const CudaCheck& check) {
        if (!role.ensure(key, check)) return false;
        ++pipeline_.counts().registrations;
        return true;
    }

    // Maps both textures and checks that CUDA sees what the caller states.
    // A registration kept from an earlier call that no longer maps, or that
    // maps storage of another size or format, belongs to a texture that has
    // since been replaced: it is made once more, and only a mismatch of a
    // registration made in this call is an error. A failed call leaves the
    // offending registration dropped and nothing mapped.
    void mapTextures(const CudaCheck& check, const TextureKey& inputKey, const TextureKey& labelKey,
                     const InputFormat& format, MappedTextures& mapped, cudaArray_t (&arrays)[2]) {
        GraphicsResource* const roles[2] = {&input_, &labels_};
        const int roleChannels[2] = {format.texelChannels, 1};
        const int roleBits[2] = {format.channelBits, 32};
        const char* roleFormats[2] = {format.name, "GL_R32UI"};
        for (int attempt = 0;; ++attempt) {
            const bool fresh[2] = {registerIfNeeded(input_, inputKey, check),
                                   registerIfNeeded(labels_, labelKey, check)};
            const bool mayRetry = attempt == 0 && !(fresh[0] && fresh[1]);

            const cudaError_t status = mapped.map(roles, 2, pipeline_.stream());
            if (status != cudaSuccess) {
                // Which one failed is not said: retry both kept ones.
                for (int i = 0; i < 2; ++i) {
                    if (!mayRetry || !fresh[i]) roles[i]->reset();
                }
                if (mayRetry) continue;
                check(status, "cudaGraphicsMapResources");
            }

            std::string problems[2];
            for (int i = 0; i < 2; ++i) {
                arrays[i] = mapped.array(i);
                problems[i] = describeMismatch(arrays[i], *roles[i], inputKey.width, inputKey.height,
                                               roleChannels[i], roleBits[i], roleFormats[i]);
            }
            if (problems[0].empty() && problems[1].empty()) return;
            mapped.unmap();
            const std::string* fatal = nullptr;
            for (int i = 0; i < 2; ++i) {
                if (problems[i].empty()) continue;
                roles[i]->reset();
                if ((!mayRetry || fresh[i]) && fatal == nullptr) fatal = &problems[i];
            }
            if (fatal != nullptr) check.fail(*fatal);
        }
    }

    // Declared first, destroyed last.
    LabelPipeline pipeline_;
    StageTimer copyTimer_;           // the copies to and from the textures, with timings
    HostStaging staging_;            // downloadLabels(): made on its first call
    std::size_t labeledPixels_ = 0;  // of the last successful label(); 0 before
    GraphicsResource input_{"inputTexture", cudaGraphicsRegisterFlagsReadOnly};
    // Written through a surface (texture_surface.cu), never read by CUDA.
    GraphicsResource labels_{"labelTexture",
                             cudaGraphicsRegisterFlagsWriteDiscard | cudaGraphicsRegisterFlagsSurfaceLoadStore};
};

struct TextureLabeler::Impl {
    TextureLabelerCore core;
};

TextureLabeler::TextureLabeler() : impl_(std::make_unique<Impl>()) {}
TextureLabeler::~TextureLabeler() = default;
TextureLabeler::TextureLabeler(TextureLabeler&&) noexcept = default;
TextureLabeler& TextureLabeler::operator=(TextureLabeler&&) noexcept = default;

void TextureLabeler::reserve(int width, int height, int channels) {
    const CudaCheck check("glccl::cuda::TextureLabeler::reserve");
    impl_->core.reserve(check, width, height, channels);
}

const std::vector<Component>& TextureLabeler::label(unsigned inputTexture, unsigned inputFormat,
                                                    unsigned labelTexture, int width, int height,
                                                    Connectivity connectivity, Criterion criterion,
                                                    StageTimings* timings) {
    const CudaCheck check("glccl::cuda::TextureLabeler::label");
    return impl_->core.label(check, inputTexture, inputFormatOf(check, inputFormat), labelTexture, width, height,
                             connectivity, criterion, timings);
}

void TextureLabeler::downloadLabels(std::uint32_t* out, std::size_t count) {
    const CudaCheck check("glccl::cuda::TextureLabeler::downloadLabels");
    impl_->core.downloadLabels(check, out, count);
}

void TextureLabeler::forget(unsigned texture) { impl_->core.forget(texture); }

const std::vector<Component>& TextureLabeler::table() const { return impl_->core.table(); }

ResourceCounts TextureLabeler::resourceCounts() const { return impl_->core.counts(); }

std::vector<Component> labelGlTexture(unsigned inputTexture, unsigned labelTexture, int width, int height,
                                      int channels, Connectivity connectivity, Criterion criterion,
                                      StageTimings* timings) {
    const CudaCheck check("glccl::cuda::labelGlTexture");
    if (channels != 1 && channels != 4) {
        check.fail("channels is " + std::to_string(channels) + "; expected 1 (GL_R8) or 4 (GL_RGBA8)");
    }
    TextureLabelerCore core;
    return core.label(check, inputTexture, inputFormatOf(check, channels == 4 ? GL_RGBA8 : GL_R8), labelTexture,
                      width, height, connectivity, criterion, timings);
}

}  // namespace glccl::cuda

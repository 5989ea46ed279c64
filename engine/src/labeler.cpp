#include "glccl/labeler.hpp"

#include <optional>

#include "gl.hpp"
#include "gl_error.hpp"
#include "glccl/error.hpp"
#include "raster_pipeline.hpp"
#include "stage_timer.hpp"
#include "state_guard.hpp"
#ifdef GLCCL_HAVE_CUDA
#include "glccl/cuda_labeler.hpp"
#endif

namespace glccl {

namespace {

// IDs keep 15 bits per coordinate (common.glsl).
constexpr int kLargestSide = 32768;

const char* formatName(GLint format) {
    switch (format) {
        case GL_R8: return "GL_R8";
        case GL_RGBA8: return "GL_RGBA8";
        case GL_RGB8: return "GL_RGB8";
        case GL_R16: return "GL_R16";
        case GL_R32F: return "GL_R32F";
        case GL_R8UI: return "GL_R8UI";
        case GL_R32UI: return "GL_R32UI";
        default: return "an unsupported format";
    }
}

}  // namespace

struct Labeler::Impl {
    ContextInfo info;
    std::optional<RasterPipeline> pipeline;
    StageTimings timings;
    bool timingsOn = false;
    bool labeled = false;
    // The CUDA backend computes the table with the labels.
    bool tableReady = false;
    std::vector<Component> table;
};

Labeler::Labeler() : impl_(std::make_unique<Impl>()) {
    loadGlFunctions();
    impl_->info = currentContextInfo();
    const ContextInfo& info = impl_->info;
    if (info.major < 3 || (info.major == 3 && info.minor < 3))
        throw Error("glccl::Labeler: needs OpenGL 3.3 or newer, the current context is " + info.version);
    StateGuard guard;
    impl_->pipeline.emplace();
    checkGlError("glccl::Labeler");
}

Labeler::~Labeler() {
    if (impl_ && impl_->pipeline) {
        StateGuard guard;
        impl_->pipeline.reset();
        clearGlErrors();
    }
}

void Labeler::reserve(int width, int height, const LabelOptions& options) {
    const int largest = std::min(impl_->info.maxTextureSize, kLargestSide);
    if (width < 1 || height < 1 || width > largest || height > largest)
        throw Error("glccl::Labeler::reserve(): " + std::to_string(width) + "x" + std::to_string(height) +
                    " is outside 1.." + std::to_string(largest) + " (GL_MAX_TEXTURE_SIZE is " +
                    std::to_string(impl_->info.maxTextureSize) + ")");
    StateGuard guard;
    // The CUDA backend labels into labelTexture() too, which the raster
    // pipeline owns: its resources serve both.
    impl_->pipeline->reserve(width, height, NodeShape::of(options.connectivity, options.criterion));
}

std::uint32_t Labeler::label(unsigned texture, const LabelOptions& options) {
    const std::string where = "glccl::Labeler::label(): ";
    StateGuard guard;
    clearGlErrors();
    if (texture == 0 || !glIsTexture(texture)) throw Error(where + "texture " + std::to_string(texture) + " is not a texture of the current context");
    GLint width = 0, height = 0, format = 0;
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, texture);
    clearGlErrors();
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, &width);
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_HEIGHT, &height);
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_INTERNAL_FORMAT, &format);
    if (glGetError() != GL_NO_ERROR) throw Error(where + "texture " + std::to_string(texture) + " is not a 2-D texture");
    // Binary and segments read the red channel of GL_RGBA8 (a mask rendered
    // into a color target); threshold compares all four channels.
    const bool supported = format == GL_R8 || format == GL_R8UI || format == GL_R16 || format == GL_R32F ||
                           format == GL_RGBA8;
    if (!supported)
        throw Error(where + "the texture is " + formatName(format) +
                    "; glccl labels GL_R8, GL_R8UI, GL_R16, GL_R32F and GL_RGBA8 textures");
    if (width < 1 || height < 1) throw Error(where + "the texture has no level 0 image");
    reserve(width, height, options);

    if (options.backend == GpuBackend::Cuda) return labelWithCuda(texture, format, width, height, options);
    auto input = gl::Texture::borrow(texture, GLenum(format), width, height);
    StageTimer timer(options.timings);
    const std::uint32_t count = impl_->pipeline->label(input, options.connectivity, options.criterion, timer);
    impl_->timings = timer.collect();
    impl_->timingsOn = options.timings;
    impl_->labeled = true;
    impl_->tableReady = false;
    checkGlError("glccl::Labeler::label()");
    return count;
}

std::uint32_t Labeler::labelWithCuda(unsigned texture, int format, int width, int height, const LabelOptions& options) {
    const std::string where = "glccl::Labeler::label(): ";
#ifdef GLCCL_HAVE_CUDA
    std::string why;
    if (!cuda::available(&why)) throw Error(where + "the CUDA backend cannot run here: " + why);
    const bool threshold = options.criterion.kind == Criterion::Kind::Threshold;
    if (format != GL_R8 && !(threshold && format == GL_RGBA8))
        throw Error(where + "the CUDA backend reads GL_R8 textures (and GL_RGBA8 for the threshold criterion), not " +
                    formatName(format));
    impl_->timings.clear();
    impl_->table = cuda::labelGlTexture(texture, labelTexture(), width, height, format == GL_R8 ? 1 : 4,
                                        options.connectivity, options.criterion,
                                        options.timings ? &impl_->timings : nullptr);
    impl_->tableReady = true;
    impl_->timingsOn = options.timings;
    impl_->labeled = true;
    checkGlError("glccl::Labeler::label()");
    return std::uint32_t(impl_->table.size());
#else
    (void)texture, (void)format, (void)width, (void)height, (void)options;
    throw Error(where + "the CUDA backend is not built into this glccl (no CUDA compiler was found at build time)");
#endif
}

unsigned Labeler::labelTexture() const { return impl_->pipeline->labelTexture().id(); }

std::vector<Component> Labeler::components() {
    if (!impl_->labeled) throw Error("glccl::Labeler::components(): nothing was labeled yet");
    if (impl_->tableReady) return impl_->table;
    StateGuard guard;
    StageTimer timer(impl_->timingsOn);
    auto table = impl_->pipeline->components(timer);
    for (const StageTime& t : timer.collect()) impl_->timings.push_back(t);
    checkGlError("glccl::Labeler::components()");
    return table;
}

std::vector<std::uint32_t> Labeler::downloadLabels() {
    if (!impl_->labeled) throw Error("glccl::Labeler::downloadLabels(): nothing was labeled yet");
    StateGuard guard;
    const gl::Texture& labels = impl_->pipeline->labelTexture();
    std::vector<std::uint32_t> pixels(std::size_t(labels.width()) * labels.height());
    labels.download(pixels.data(), GL_RED_INTEGER, GL_UNSIGNED_INT);
    return pixels;
}

const StageTimings& Labeler::stageTimings() const { return impl_->timings; }
const ContextInfo& Labeler::contextInfo() const { return impl_->info; }

}  // namespace glccl

// OffscreenLabeler: the GL engines' place for host images.

#include "glccl/offscreen.hpp"

#include <mutex>
#include <optional>

#include "glccl/error.hpp"
#include "glccl/route.hpp"
#include "glccl/texture.hpp"

namespace glccl {

namespace {

// Making and destroying headless contexts is not thread-safe in the engine
// (its EGL display use counts, GLEW's loading): one at a time. Labeling in
// the contexts, once made, runs in parallel, except in software contexts:
// Mesa's llvmpipe crashes now and then when two contexts of one process
// draw at once (seen in the raster backend's passes with two contexts on
// one device, about one run in sixty), and it spreads every draw and
// dispatch over all cores itself, so there labelings take this mutex too
// and lose nothing.
std::mutex& contextMutex() {
    static std::mutex mutex;
    return mutex;
}

}  // namespace

struct OffscreenLabeler::Impl {
    std::optional<HeadlessContext> context;
    std::optional<Labeler> labeler;
    bool software = false;
    // The last image's texture, kept for the next image of the same size,
    // channels and sampleBits; the same for the last intensity measured.
    ImageTexture input;
    ImageTexture intensity;

    explicit Impl(const HeadlessContext::Options& options) {
        const std::lock_guard<std::mutex> lock(contextMutex());
        context.emplace(options);
        labeler.emplace();
        software = isSoftwareRenderer(context->info());
    }
    ~Impl() {
        const std::lock_guard<std::mutex> lock(contextMutex());
        try {
            context->makeCurrent();
            labeler->forget(input.id());  // before the texture goes: the cuda backend's registration
        } catch (...) {
        }
        input = ImageTexture();
        intensity = ImageTexture();
        labeler.reset();  // in its context, before the context goes
        context.reset();
    }
};

OffscreenLabeler::OffscreenLabeler(const HeadlessContext::Options& options)
    : impl_(std::make_unique<Impl>(options)) {}
OffscreenLabeler::~OffscreenLabeler() = default;

Labeler& OffscreenLabeler::labeler() { return *impl_->labeler; }
void OffscreenLabeler::makeCurrent() { impl_->context->makeCurrent(); }
const HeadlessContext& OffscreenLabeler::context() const { return *impl_->context; }
std::string OffscreenLabeler::device() const {
    return impl_->context->info().renderer + " (" + impl_->context->platform() + ")";
}

unsigned OffscreenLabeler::intensityTexture(const ImageView& image) {
    Impl& state = *impl_;
    state.context->makeCurrent();
    if (image.dimensions != 3 && state.intensity.fits(image)) {
        state.intensity.update(image);
    } else {
        state.intensity = ImageTexture();  // the old one goes first: peak GPU memory
        state.intensity = image.dimensions == 3 ? ImageTexture::volume(image) : ImageTexture(image);
    }
    return state.intensity.id();
}

void OffscreenLabeler::label(const ImageView& image, Backend backend, const LabelOptions& requested,
                             std::uint32_t* labels, std::vector<Component>& table, StageTimings* timings) {
    std::unique_lock<std::mutex> turn(contextMutex(), std::defer_lock);
    if (impl_->software) turn.lock();
    Impl& state = *impl_;
    state.context->makeCurrent();
    Labeler& labeler = *state.labeler;
    // ImageTexture checks what the router left to it (the samples), so only
    // a GL error (out of memory) can leave it, in its own words.
    if (image.dimensions != 3 && state.input.fits(image)) {
        state.input.update(image);
    } else {
        labeler.forget(state.input.id());
        state.input = ImageTexture();  // the old one goes first: peak GPU memory
        state.input = image.dimensions == 3 ? ImageTexture::volume(image) : ImageTexture(image);
    }
    LabelOptions options = requested;
    options.backend = backend;
    options.timings = options.timings || timings != nullptr;
    // The caller's route, carried to the Labeler: no second choice.
    Route route;
    route.backend = backend;
    route.engine = capabilitiesOf(backend, &state.context->info());
    const ContextInfo& info = state.context->info();
    if (info.es && info.major == 3 && info.minor == 0 && image.dimensions != 3) {
        // OpenGL ES 3.0 cannot say a texture's size and format
        // (glGetTexLevelParameteriv is ES 3.1): the Labeler is told them,
        // and routes the backend asked for itself.
        labeler.label(state.input.id(), state.input.width(), state.input.height(), state.input.internalFormat(),
                      options);
    } else {
        labeler.label(state.input.id(), route, options);
    }
    labeler.components(table);
    labeler.downloadLabels(labels, std::size_t(image.shape().count()));
    if (timings) *timings = labeler.stageTimings();
}

}  // namespace glccl

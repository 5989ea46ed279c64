// OffscreenLabeler: the executor of the router's choice for host images.

#include "glccl/offscreen.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "glccl/error.hpp"
#include "glccl/image_source.hpp"
#include "glccl/label_sink.hpp"
#include "glccl/labeler.hpp"
#include "glccl/reference.hpp"
#include "glccl/texture.hpp"
#include "glccl/tiled.hpp"
#include "parallel_copy.hpp"
#ifdef GLCCL_HAVE_CUDA
#include "glccl/cuda_labeler.hpp"
#endif

namespace glccl {

namespace {

const std::string kWhere = "glccl::OffscreenLabeler::label(): ";

// Runs `step`; a glccl::Error from inside that has no entry of its own (the
// router's words) gets label()'s prefix.
template <class Step>
void withPrefix(Step&& step) {
    try {
        step();
    } catch (const Error& error) {
        const std::string what = error.what();
        if (what.rfind("glccl::", 0) == 0) throw;
        throw Error(kWhere + what);
    }
}

// An owned copy of a view's pixels, for the entries that read an Image.
Image copyOf(const ImageView& view) {
    Image image;
    image.width = view.width;
    image.height = view.height;
    image.depth = view.depth;
    image.dimensions = view.dimensions;
    image.channels = view.channels;
    image.sampleBits = view.sampleBits;
    image.pixels.assign(view.pixels, view.pixels + view.byteCount());
    return image;
}

// A labeling moved into the caller's storage.
void deliver(const Labeling& labeling, std::uint32_t* labels, std::vector<Component>& components) {
    std::copy(labeling.labels.begin(), labeling.labels.end(), labels);
    components = labeling.components;
}

}  // namespace

struct OffscreenLabeler::Impl {
    // Without a context (NoContext::LabelOnHost and no EGL) both stay empty.
    std::optional<HeadlessContext> context;
    std::optional<Labeler> labeler;
    std::string whyNoContext;
    // The last image's texture, kept for the next image of the same size,
    // channels and sampleBits: a batch or a video uploads into it, allocating
    // nothing.
    ImageTexture input;
    Backend last = Backend::Auto;  // the backend of the last label()
    std::function<bool(const TiledProgress&)> tiledProgress;
#ifdef GLCCL_HAVE_CUDA
    // Host images for the cuda backend go to CUDA directly, through its
    // page-locked staging: no texture, no interop, no GL pixel buffers.
    std::unique_ptr<cuda::ImageLabeler> cudaImages;
    CopyThreads tableCopier;
#endif
    explicit Impl(std::string why) : whyNoContext(std::move(why)) {}
    Impl(const HeadlessContext::Options& options, NoContext noContext) {
        try {
            context.emplace(options);
            labeler.emplace();
        } catch (const Error& error) {
            if (noContext == NoContext::Throw) throw;
            labeler.reset();
            context.reset();
            whyNoContext = std::string("no headless GL context: ") + error.what();
        }
    }
    ~Impl() {
        if (!context) return;
        try {
            context->makeCurrent();
            labeler->forget(input.id());  // before the texture goes: the cuda backend's registration
        } catch (...) {
        }
        input = ImageTexture();
        labeler.reset();  // in its context, before the context goes
    }
    const ContextInfo* info() const { return context ? &context->info() : nullptr; }
    void requireContext() const {
        if (!context) throw Error("glccl::OffscreenLabeler: " + whyNoContext);
    }
};

OffscreenLabeler::OffscreenLabeler(const HeadlessContext::Options& options, NoContext noContext)
    : impl_(std::make_unique<Impl>(options, noContext)) {}
OffscreenLabeler::OffscreenLabeler(HostOnly, const std::string& why) : impl_(std::make_unique<Impl>(why)) {}
OffscreenLabeler::~OffscreenLabeler() = default;

std::unique_ptr<OffscreenLabeler> OffscreenLabeler::hostOnly(const std::string& why) {
    return std::unique_ptr<OffscreenLabeler>(new OffscreenLabeler(HostOnly{}, why));
}

bool OffscreenLabeler::hasContext() const { return impl_->context.has_value(); }
const std::string& OffscreenLabeler::whyNoContext() const { return impl_->whyNoContext; }

const HeadlessContext& OffscreenLabeler::context() const {
    impl_->requireContext();
    return *impl_->context;
}

Labeler& OffscreenLabeler::labeler() {
    impl_->requireContext();
    return *impl_->labeler;
}

void OffscreenLabeler::makeCurrent() {
    impl_->requireContext();
    impl_->context->makeCurrent();
}

Labeling OffscreenLabeler::label(const Image& image, Connectivity connectivity, Criterion criterion,
                                 StageTimings* timings) {
    LabelOptions options;
    options.connectivity = connectivity;
    options.criterion = criterion;
    return label(image, options, timings);
}

void OffscreenLabeler::label(const Image& image, const LabelOptions& options, Labeling& out, StageTimings* timings) {
    if (image.pixelBufferMismatched())
        throw Error("glccl::OffscreenLabeler::label(): the image's pixel buffer does not match its size");
    // Every element is overwritten: a vector of this size already is reused
    // as it is (resize() would zero-fill only a new size).
    const std::size_t count = std::size_t(image.shape().count());
    if (out.labels.size() != count) out.labels.resize(count);
    label(ImageView(image), options, out.labels.data(), out.components, timings);
    out.width = image.width;
    out.height = image.height;
    out.depth = image.depth;
    out.dimensions = image.dimensions;
}

void OffscreenLabeler::checkImage(const ImageView& image, const LabelOptions& options) const {
    if (image.width < 1 || image.height < 1 || image.depth < 1 || image.pixels == nullptr)
        throw Error(kWhere + "the image is empty");
    if (const std::string misfit = whyConnectivityDoesNotFit(options.connectivity, image.shape()); !misfit.empty())
        throw Error(kWhere + misfit);
    if (image.channels != 1 && image.channels != 4)
        throw Error(kWhere + "images have 1 or 4 channels, not " + std::to_string(image.channels));
    if (image.channels == 4 && options.criterion.kind != Criterion::Kind::Threshold)
        throw Error(kWhere + "the " + options.criterion.toString() +
                    " criterion needs a 1-channel image; convert color to gray first");
}

Route OffscreenLabeler::route(const ImageView& image, const LabelOptions& options) const {
    checkImage(image, options);
    Route chosen;
    withPrefix([&] {
        InputDescription input = InputDescription::hostImage(image.width, image.height, image.channels, image.sampleBits);
        input.shape = image.shape();
        chosen = chooseRoute(input, options, impl_->info(), impl_->whyNoContext);
    });
    return chosen;
}

void OffscreenLabeler::label(const ImageView& image, const LabelOptions& requested, std::uint32_t* labels,
                             std::vector<Component>& components, StageTimings* timings) {
    const Route chosen = route(image, requested);
    if (labels == nullptr) throw Error(kWhere + "no storage for the labels");
    LabelOptions options = requested;
    options.backend = chosen.backend;
    if (chosen.pieces) return labelInPieces(image, options, labels, components, timings);
    switch (chosen.backend) {
        case Backend::Cpu: return labelOnHost(image, options, labels, components, timings);
        case Backend::Cuda: return labelWithCuda(image, options, labels, components, timings);
        default: return labelTexture(image, options, labels, components, timings);
    }
}

void OffscreenLabeler::labelOneCall(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                                    std::vector<Component>& components, StageTimings* timings) {
    const Route chosen = route(image, options);
    if (chosen.pieces)
        throw Error("glccl::OffscreenLabeler::labelOneCall(): the image is " + std::to_string(image.width) + "x" +
                    std::to_string(image.height) + ", more than one call of the " + backendName(chosen.backend) +
                    " backend takes");
    label(image, options, labels, components, timings);
}

// The reference reads the host image itself: the same labels as the cpu
// engine behind the Labeler, without the upload and the download.
void OffscreenLabeler::labelOnHost(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                                   std::vector<Component>& components, StageTimings* timings) {
    const Labeling labeling = labelReference(copyOf(image), options.connectivity, options.criterion);
    deliver(labeling, labels, components);
    if (timings) timings->clear();
    impl_->last = Backend::Cpu;
}

// The cuda backend on a host image (the router took its samples and
// criterion): CUDA's own upload, labeling and download. Against the texture
// route (upload into a texture, interop, a copy into the label texture), it
// spares the GL pixel buffers of the upload (3 x 32 MiB of host memory) and
// a device copy of the labels.
void OffscreenLabeler::labelWithCuda(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                                     std::vector<Component>& components, StageTimings* timings) {
#ifdef GLCCL_HAVE_CUDA
    if (!impl_->cudaImages) impl_->cudaImages = std::make_unique<cuda::ImageLabeler>();
    StageTimings kernels;
    const std::vector<Component>& table =
        impl_->cudaImages->label(image, options.connectivity, options.criterion, labels,
                                 timings || options.timings ? &kernels : nullptr);
    impl_->tableCopier.copyTable(components, table);
    if (timings) *timings = kernels;
    impl_->last = Backend::Cuda;
#else
    // The router never chooses cuda where it is not built.
    (void)image, (void)options, (void)labels, (void)components, (void)timings;
    throw Error(kWhere + "the cuda backend is not built into this glccl");
#endif
}

void OffscreenLabeler::labelTexture(const ImageView& image, const LabelOptions& requested, std::uint32_t* labels,
                                    std::vector<Component>& components, StageTimings* timings) {
    impl_->requireContext();
    impl_->context->makeCurrent();
    Labeler& labeler = *impl_->labeler;
    // ImageTexture checks what the router left to it (the samples), so only
    // a GL error (out of memory) can leave it, in its own words.
    if (image.dimensions != 3 && impl_->input.fits(image)) {
        impl_->input.update(image);
    } else {
        labeler.forget(impl_->input.id());
        impl_->input = ImageTexture();  // the old one goes first: peak GPU memory
        impl_->input = image.dimensions == 3 ? ImageTexture::volume(image) : ImageTexture(image);
    }
    LabelOptions options = requested;
    options.timings = options.timings || timings != nullptr;
    labeler.label(impl_->input.id(), options);
    labeler.components(components);
    labeler.downloadLabels(labels, std::size_t(image.shape().count()));
    if (timings) *timings = labeler.stageTimings();
    impl_->last = labeler.backend();
}

// Past one call: tiles of the backend's largest side, labeled by workers of
// their own (labelTiled), then numbered and measured as one image, read from
// the caller's pixels and written into the caller's labels.
void OffscreenLabeler::labelInPieces(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                                     std::vector<Component>& components, StageTimings* timings) {
    TiledOptions tiled;
    tiled.label = options;
    tiled.label.timings = false;
    tiled.progress = impl_->tiledProgress;
    const ImageMemorySource source(image);
    LabelStorageSink sink(labels, components);
    labelTiled(source, tiled, sink);
    if (timings) timings->clear();
    impl_->last = options.backend;
}

Backend OffscreenLabeler::backend() const { return impl_->last; }

void OffscreenLabeler::setTiledProgress(std::function<bool(const TiledProgress&)> progress) {
    impl_->tiledProgress = std::move(progress);
}

Labeling OffscreenLabeler::label(const Image& image, const LabelOptions& options, StageTimings* timings) {
    Labeling labeling;
    label(image, options, labeling, timings);
    return labeling;
}

}  // namespace glccl

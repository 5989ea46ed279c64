#include "glccl/offscreen.hpp"

#include <algorithm>
#include <string>

#include "glccl/error.hpp"
#include "glccl/labeler.hpp"
#include "glccl/texture.hpp"
#include "parallel_copy.hpp"
#ifdef GLCCL_HAVE_CUDA
#include "glccl/cuda_labeler.hpp"
#endif

namespace glccl {

struct OffscreenLabeler::Impl {
    HeadlessContext context;
    Labeler labeler;
    // The last image's texture, kept for the next image of the same size,
    // channels and sampleBits: a batch or a video uploads into it, allocating
    // nothing.
    ImageTexture input;
    Backend last = Backend::Auto;  // the backend of the last label()
#ifdef GLCCL_HAVE_CUDA
    // Host images for the cuda backend go to CUDA directly, through its
    // page-locked staging: no texture, no interop, no GL pixel buffers.
    std::unique_ptr<cuda::ImageLabeler> cudaImages;
    CopyThreads tableCopier;
#endif
    explicit Impl(const HeadlessContext::Options& options) : context(options) {}
    ~Impl() {
        try {
            context.makeCurrent();
            labeler.forget(input.id());  // before the texture goes: the cuda backend's registration
        } catch (...) {
        }
    }
};

OffscreenLabeler::OffscreenLabeler(const HeadlessContext::Options& options) : impl_(std::make_unique<Impl>(options)) {}
OffscreenLabeler::~OffscreenLabeler() = default;

const HeadlessContext& OffscreenLabeler::context() const { return impl_->context; }

Labeler& OffscreenLabeler::labeler() { return impl_->labeler; }

void OffscreenLabeler::makeCurrent() { impl_->context.makeCurrent(); }

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
    const std::size_t count = std::size_t(std::max(image.width, 0)) * std::size_t(std::max(image.height, 0));
    if (out.labels.size() != count) out.labels.resize(count);
    label(ImageView(image), options, out.labels.data(), out.components, timings);
    out.width = image.width;
    out.height = image.height;
}

void OffscreenLabeler::label(const ImageView& image, const LabelOptions& requested, std::uint32_t* labels,
                             std::vector<Component>& components, StageTimings* timings) {
    const Criterion criterion = requested.criterion;
    if (image.width < 1 || image.height < 1 || image.pixels == nullptr)
        throw Error("glccl::OffscreenLabeler::label(): the image is empty");
    if (labels == nullptr) throw Error("glccl::OffscreenLabeler::label(): no storage for the labels");
    if (image.dimensions == 3)
        throw Error("glccl::OffscreenLabeler::label(): the input is a volume; volumes are not labeled yet");
    if (const std::string misfit = whyConnectivityDoesNotFit(requested.connectivity, image.shape()); !misfit.empty())
        throw Error("glccl::OffscreenLabeler::label(): " + misfit);
    if (image.channels != 1 && image.channels != 4)
        throw Error("glccl::OffscreenLabeler::label(): images have 1 or 4 channels, not " + std::to_string(image.channels));
    if (image.channels == 4 && criterion.kind != Criterion::Kind::Threshold)
        throw Error("glccl::OffscreenLabeler::label(): the " + criterion.toString() +
                    " criterion needs a 1-channel image; convert color to gray first");
    const int largest = impl_->context.info().maxTextureSize;
    if (image.width > largest || image.height > largest)
        throw Error("glccl::OffscreenLabeler::label(): the image is " + std::to_string(image.width) + "x" +
                    std::to_string(image.height) + " but GL_MAX_TEXTURE_SIZE is " + std::to_string(largest));
    impl_->context.makeCurrent();
    if (labelWithCuda(image, requested, labels, components, timings)) return;
    // The checks above are ImageTexture's too, so only a GL error (out of
    // memory) can leave it, in its own words.
    if (impl_->input.fits(image)) {
        impl_->input.update(image);
    } else {
        impl_->labeler.forget(impl_->input.id());
        impl_->input = ImageTexture();  // the old one goes first: peak GPU memory
        impl_->input = ImageTexture(image);
    }

    LabelOptions options = requested;
    options.timings = options.timings || timings != nullptr;
    impl_->labeler.label(impl_->input.id(), options);
    impl_->labeler.components(components);
    impl_->labeler.downloadLabels(labels, std::size_t(image.width) * std::size_t(image.height));
    if (timings) *timings = impl_->labeler.stageTimings();
    impl_->last = impl_->labeler.backend();
}

// The cuda backend on a host image it takes (8-bit samples, binary as
// nonzero): CUDA's own upload, labeling and download. Against the texture
// route (upload into a texture, interop, a copy into the label texture),
// it spares the GL pixel buffers of the upload (3 x 32 MiB of host memory)
// and a device copy of the labels. Anything else, and a context where the
// cuda backend cannot run, goes the texture route, which says why.
bool OffscreenLabeler::labelWithCuda(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                                     std::vector<Component>& components, StageTimings* timings) {
#ifdef GLCCL_HAVE_CUDA
    const ContextInfo& info = impl_->context.info();
    if (resolveBackend(options.backend, info) != Backend::Cuda || !whyUnavailable(Backend::Cuda, info).empty())
        return false;
    const Criterion& criterion = options.criterion;
    if (image.sampleBits != 8 || (criterion.kind == Criterion::Kind::Binary && criterion.level != 0)) return false;
    if (!impl_->cudaImages) impl_->cudaImages = std::make_unique<cuda::ImageLabeler>();
    StageTimings kernels;
    const std::vector<Component>& table =
        impl_->cudaImages->label(image.pixels, image.width, image.height, image.channels, options.connectivity,
                                 criterion, labels, timings || options.timings ? &kernels : nullptr);
    impl_->tableCopier.copyTable(components, table);
    if (timings) *timings = kernels;
    impl_->last = Backend::Cuda;
    return true;
#else
    (void)image, (void)options, (void)labels, (void)components, (void)timings;
    return false;
#endif
}

Backend OffscreenLabeler::backend() const { return impl_->last; }

Labeling OffscreenLabeler::label(const Image& image, const LabelOptions& options, StageTimings* timings) {
    Labeling labeling;
    label(image, options, labeling, timings);
    return labeling;
}

}  // namespace glccl

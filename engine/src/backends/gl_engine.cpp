// compute and raster on host memory: an OffscreenLabeler (a headless
// context, the Labeler, the upload and the downloads) with the engine's
// backend. The GL engines of one Session share one OffscreenLabeler.

#include <utility>

#include "backends/gl_engines.hpp"
#include "engine_registry.hpp"
#include "glccl/error.hpp"
#include "glccl/context.hpp"
#include "labeler_with_table.hpp"

namespace glccl::backends {

namespace {

class GlEngine final : public Engine {
public:
    GlEngine(Backend backend, std::shared_ptr<OffscreenLabeler> offscreen)
        : backend_(backend), offscreen_(std::move(offscreen)) {}

    Backend backend() const override { return backend_; }
    std::string device() const override { return offscreen_->device(); }
    void label(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
               std::vector<Component>& table, StageTimings* timings) override {
        offscreen_->label(image, backend_, options, labels, table, timings);
    }

    // From the Labeler's label texture; an intensity the GPU reads (one
    // channel of unsigned integers up to 32 bits) uploaded into the
    // offscreen context's intensity texture.
    RegionTotals measureTerms(const TermRequest& request, const IntensitySamples* intensity, const LabelSamples& labels,
                              const std::vector<Component>& table, int threads) override {
        const bool readsIntensity = request.intensitySums || request.intensityExtrema || request.weightedMomentLevel > 0;
        const bool intensityTerms = intensity && request.channels > 0 && readsIntensity;
        if (intensityTerms &&
            !(intensity->kind == SampleKind::Unsigned && intensity->channels == 1 && intensity->bytes <= 4))
            return Engine::measureTerms(request, intensity, labels, table, threads);
        offscreen_->makeCurrent();
        if (!intensityTerms) {
            // An intensity beside properties that read none of it is left
            // unread, as the other engines and scikit-image leave it.
            TermRequest labelsOnly = request;
            if (!readsIntensity) labelsOnly.channels = 0;
            return detail::LabelerWithTable::measureTerms(offscreen_->labeler(), labelsOnly, 0, table);
        }
        const unsigned texture =
            offscreen_->intensityTexture(ImageView(labels.shape, 1, intensity->bytes * 8, intensity->data));
        return detail::LabelerWithTable::measureTerms(offscreen_->labeler(), request, texture, table);
    }

private:
    Backend backend_;
    std::shared_ptr<OffscreenLabeler> offscreen_;
};

}  // namespace

int eglDeviceOf(int entry) {
    if (entry < 0) return -1;
    for (const HeadlessDevice& device : headlessDevices())
        if (device.cudaDevice == entry) return device.index;
    return entry;  // out of range: HeadlessContext says which devices there are
}

std::unique_ptr<Engine> makeGlEngine(Backend backend, std::shared_ptr<OffscreenLabeler> offscreen) {
    return std::make_unique<GlEngine>(backend, std::move(offscreen));
}

}  // namespace glccl::backends

namespace glccl {

std::unique_ptr<Engine> makeEngine(Backend backend, std::shared_ptr<OffscreenLabeler> offscreen) {
    if (backend == Backend::Auto || !engines::engineEntry(backend).gl)
        throw Error(std::string("the ") + backendName(backend) + " backend does not label in a GL context");
    return backends::makeGlEngine(backend, std::move(offscreen));
}

}  // namespace glccl

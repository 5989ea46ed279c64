// The reference backend: the oracle (host/, labelReference) on host memory,
// one thread, obviously right. It reads an Image, so the caller's pixels are
// copied once: the reference is never the fast path.

#include "engines/host_engines.hpp"
#include "glccl/reference.hpp"

namespace glccl::engines {

namespace {

class ReferenceEngine final : public Engine {
public:
    Backend backend() const override { return Backend::Reference; }
    std::string device() const override { return "CPU"; }
    void label(const ImageView& view, const LabelOptions& options, std::uint32_t* labels,
               std::vector<Component>& table, StageTimings* timings) override {
        Image image(view.shape(), view.channels, view.sampleBits);
        std::copy(view.pixels, view.pixels + view.byteCount(), image.pixels.begin());
        Labeling labeling = labelReference(
            image, options.neighbourhood ? *options.neighbourhood : Neighbourhood(options.connectivity),
            options.criterion);
        std::copy(labeling.labels.begin(), labeling.labels.end(), labels);
        table = std::move(labeling.components);
        if (timings) timings->clear();
    }
};

}  // namespace

std::unique_ptr<Engine> makeReferenceEngine() { return std::make_unique<ReferenceEngine>(); }

}  // namespace glccl::engines

// The raster backend: O'Connell's pipeline as render passes (raster_pipeline.hpp).

#include "backends/texture_engine.hpp"
#include "glccl/tuning.hpp"
#include "raster_pipeline.hpp"

namespace glccl::backends {

namespace {

class RasterEngine final : public TextureEngine {
public:
    void reserve(int width, int height, const LabelOptions& options) override {
        pipeline_.reserve(width, height, raster::NodeSize::of(options.connectivity, options.criterion));
    }
    std::uint32_t label(const gl::Texture& input, const gl::Texture& labels, const LabelOptions& options,
                        StageTimer& timer) override {
        // The process's Tuning picks the variants at every call.
        pipeline_.setOptions(RasterPipeline::tuned(pipeline_.options(), tuning()));
        return pipeline_.label(input, labels, options.connectivity, options.criterion, timer);
    }
    void components(std::vector<Component>& out, StageTimer& timer) override { pipeline_.components(out, timer); }

private:
    RasterPipeline pipeline_;
};

}  // namespace

std::unique_ptr<TextureEngine> makeRasterEngine(const ContextInfo&) { return std::make_unique<RasterEngine>(); }

}  // namespace glccl::backends

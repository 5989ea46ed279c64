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
        const Tuning current = tuning();
        RasterPipeline::Options variants = pipeline_.options();
        variants.blockWidth = current.rasterBlockWidth;
        variants.resolveInFragments = current.rasterResolve == Tuning::RasterWork::Fragment;
        variants.tableByRuns = current.rasterTable == Tuning::RasterTable::Runs;
        variants.tableBySlots = current.rasterTable == Tuning::RasterTable::Slots;
        variants.scanAlways = current.rasterNumbering == Tuning::RasterNumbering::Scan;
        variants.borderRounds = current.rasterBorderRounds;
        variants.fusedColumnPoints = current.rasterColumnDraws == 2;
        variants.columnGroup = current.rasterColumnGroup;
        variants.resolveGroup = current.rasterResolveGroup;
        variants.resolveCheckInDraw = current.rasterResolveCheck == Tuning::RasterCheck::Draw;
        variants.resolveAhead = current.rasterResolveAhead;
        variants.tableInOneRead = current.rasterTableReads == 1;
        variants.runHops = current.rasterRunHops;
        variants.bitsSpread = current.rasterBitsSpread;
        variants.tableSpread = current.rasterTableSpread;
        pipeline_.setOptions(variants);
        return pipeline_.label(input, labels, options.connectivity, options.criterion, timer);
    }
    void components(std::vector<Component>& out, StageTimer& timer) override { pipeline_.components(out, timer); }

private:
    RasterPipeline pipeline_;
};

}  // namespace

std::unique_ptr<TextureEngine> makeRasterEngine(const ContextInfo&) { return std::make_unique<RasterEngine>(); }

}  // namespace glccl::backends

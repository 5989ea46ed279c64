// makeEngine(): one engine of a backend at a place (glccl/engine.hpp).

#include "backends/host_engines.hpp"
#include "glccl/error.hpp"

namespace glccl {

const std::vector<Component>* Engine::labelDevice(const DeviceVolume&, const DeviceVolumeLabels&, const LabelOptions&,
                                                  CUstream_st*, std::uint32_t*, bool, StageTimings*) {
    throw Error(std::string("the ") + backendName(backend()) + " backend does not read CUDA device memory");
}

RegionTotals Engine::measureTerms(const TermRequest& request, const IntensitySamples* intensity, const LabelSamples& labels,
                                  const std::vector<Component>& table, int threads) {
    return measureComponentTerms(labels, table, intensity, request, threads);
}

const std::vector<Component>& Engine::deviceTable(int) {
    throw Error(std::string("the ") + backendName(backend()) + " backend does not read CUDA device memory");
}

const std::vector<std::uint32_t>& Engine::deviceCounts() {
    throw Error(std::string("the ") + backendName(backend()) + " backend does not read CUDA device memory");
}

std::unique_ptr<Engine> makeEngine(Backend backend, const EnginePlace& place) {
    switch (backend) {
        case Backend::Cpu: return backends::makeCpuEngine(place);
        case Backend::Reference: return backends::makeReferenceEngine();
        case Backend::Cuda: return backends::makeCudaEngine(place);
        case Backend::Compute:
        case Backend::Raster: {
            HeadlessContext::Options context = place.context;
            context.device = backends::eglDeviceOf(place.device);
            auto offscreen = std::make_shared<OffscreenLabeler>(context);
            backends::holdComputeClock(offscreen->context().info().cudaDevice);
            return backends::makeGlEngine(backend, std::move(offscreen));
        }
        case Backend::Auto: break;
    }
    throw Error("auto is not an engine: resolve it with chooseRoute()");
}

std::unique_ptr<Engine> makeEngine(Backend backend, std::shared_ptr<OffscreenLabeler> offscreen) {
    if (backend != Backend::Compute && backend != Backend::Raster)
        throw Error(std::string("the ") + backendName(backend) + " backend does not label in a GL context");
    return backends::makeGlEngine(backend, std::move(offscreen));
}

}  // namespace glccl

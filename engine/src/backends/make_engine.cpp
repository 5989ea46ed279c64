// makeEngine(): one engine of a backend at a place (glccl/engine.hpp).

#include "backends/host_engines.hpp"
#include "backends/registry.hpp"
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
    return backends::engineEntry(backend).make(place);
}

std::unique_ptr<Engine> makeEngine(Backend backend, std::shared_ptr<OffscreenLabeler> offscreen) {
    if (backend == Backend::Auto || !backends::engineEntry(backend).gl)
        throw Error(std::string("the ") + backendName(backend) + " backend does not label in a GL context");
    return backends::makeGlEngine(backend, std::move(offscreen));
}

}  // namespace glccl

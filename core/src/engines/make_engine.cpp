// makeEngine(): one engine of a backend at a place (glccl/engine.hpp), and
// what every engine does unless it does better.

#include "engine_registry.hpp"
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
    const engines::EngineEntry& entry = engines::engineEntry(backend);
    if (entry.make) return entry.make(place);
    const engines::GlEngineMaker maker = engines::glEngineMaker();
    if (!maker)
        throw Error(std::string("the ") + backendName(backend) + " backend cannot run here: " +
                    engines::whyNoGlEngines());
    return maker(backend, place);
}

}  // namespace glccl

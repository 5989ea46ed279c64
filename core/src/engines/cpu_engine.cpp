// The cpu backend: the multi-threaded CPU engine (cpu/, glccl_cpu) on host
// memory, no GL context. One cpu::Labeler for the engine's life: its threads
// and scratch are kept from call to call.

#include <string>

#include "engines/host_engines.hpp"
#include "glccl/cpu_labeler.hpp"

namespace glccl::engines {

namespace {

class CpuEngine final : public Engine {
public:
    Backend backend() const override { return Backend::Cpu; }
    std::string device() const override {
        return "CPU (" + std::to_string(labeler_.threads()) + (labeler_.threads() == 1 ? " thread)" : " threads)");
    }
    void label(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
               std::vector<Component>& table, StageTimings* timings) override {
        cpu::Options call;
        call.threads = options.threads;
        call.cancelled = options.cancelled;
        call.progress = options.progress;
        if (timings) timings->clear();
        call.timings = timings;
        if (options.neighbourhood)
            labeler_.label(image, *options.neighbourhood, options.criterion, labels, table, call);
        else
            labeler_.label(image, options.connectivity, options.criterion, labels, table, call);
    }

private:
    cpu::Labeler labeler_;
};

}  // namespace

std::unique_ptr<Engine> makeCpuEngine(const EnginePlace&) { return std::make_unique<CpuEngine>(); }

}  // namespace glccl::engines

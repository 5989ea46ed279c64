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
        call.foreground = &foreground_;
        call.runLabels = &runLabels_;
        call.runStarts = &runStarts_;
        labeled_ = nullptr;  // until this call's labels and bits are whole
        if (options.neighbourhood)
            labeler_.label(image, *options.neighbourhood, options.criterion, labels, table, call);
        else
            labeler_.label(image, options.connectivity, options.criterion, labels, table, call);
        labeled_ = labels;
        labeledShape_ = image.shape();
    }
    // The labels of the last labeling measured from its foreground's bits
    // (cpu::Options::foreground), which the labeler wrote as it read the
    // image, and its runs' labels where the labeler kept them
    // (cpu::Options::runLabels): then the measuring reads no label.
    RegionTotals measureTerms(const TermRequest& request, const IntensitySamples* intensity, const LabelSamples& labels,
                              const std::vector<Component>& table, int threads) override {
        LabelSamples given = labels;
        if (given.foregroundConnected && !given.foreground && !foreground_.empty() && given.data == labeled_ &&
            given.bytes == 4 && given.shape == labeledShape_) {
            given.foreground = foreground_.data();
            if (!runStarts_.empty()) {
                given.runLabels = runLabels_.data();
                given.runStarts = runStarts_.data();
            }
        }
        return Engine::measureTerms(request, intensity, given, table, threads);
    }

private:
    cpu::Labeler labeler_;
    // The last labeling's foreground in bits (empty: not a binary image's)
    // and its labels, for measureTerms.
    std::vector<std::uint64_t> foreground_;
    std::vector<std::uint32_t> runLabels_;
    std::vector<std::uint64_t> runStarts_;
    const std::uint32_t* labeled_ = nullptr;
    Shape labeledShape_;
};

}  // namespace

std::unique_ptr<Engine> makeCpuEngine(const EnginePlace&) { return std::make_unique<CpuEngine>(); }

}  // namespace glccl::engines

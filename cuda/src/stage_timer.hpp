#pragma once
// Device time per stage, measured with CUDA events around each launch and
// summed per stage name (merge_patches runs once per level). Does nothing when
// the caller asked for no timings, so the common path records no events. The
// events are kept from one labeling to the next: a labeler that is timed on
// every frame creates them once.

#include <cstddef>
#include <exception>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"
#include "device_memory.hpp"
#include "glccl/types.hpp"

namespace glccl::cuda {

class StageTimer {
public:
    // Starts the timing of one labeling on `stream` and forgets the previous
    // one; with enabled false, begin() and end() do nothing. `check` must
    // outlive the labeling.
    void start(bool enabled, cudaStream_t stream, const CudaCheck& check);

    // Brackets the launches of one stage from here to the end of the scope:
    // auto scope = timer.scope("merge_patches"); stage is a string literal.
    // A scope left by an exception records nothing more: the labeling has
    // failed, and a failing record must not throw during the unwinding.
    class Scope {
    public:
        Scope(StageTimer& timer, const char* stage) : timer_(timer) { timer_.begin(stage); }
        ~Scope() noexcept(false) {
            if (std::uncaught_exceptions() == exceptions_) timer_.end();
        }
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        StageTimer& timer_;
        int exceptions_ = std::uncaught_exceptions();
    };
    Scope scope(const char* stage) { return Scope(*this, stage); }

    // Waits for the stream and replaces `timings` with one entry per stage,
    // in first-seen order. Their sum is the device time of the kernels,
    // without host transfers and without the host's wait for the component
    // count between relabel and component_stats.
    void collect(StageTimings& timings);

private:
    void begin(const char* stage);
    void end();

    struct Interval {
        const char* stage = nullptr;
        Event start, stop;
    };
    bool enabled_ = false;
    cudaStream_t stream_ = nullptr;
    const CudaCheck* check_ = nullptr;
    std::vector<Interval> intervals_;  // the first used_ belong to this labeling
    std::size_t used_ = 0;
};

}  // namespace glccl::cuda

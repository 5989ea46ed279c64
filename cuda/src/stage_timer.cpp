#include "stage_timer.hpp"

#include <algorithm>

namespace glccl::cuda {

StageTimer::StageTimer(bool enabled, cudaStream_t stream, const CudaCheck& check)
    : enabled_(enabled), stream_(stream), check_(check) {}

void StageTimer::begin(const char* stage) {
    if (!enabled_) return;
    intervals_.push_back(std::make_unique<Interval>(Interval{stage, Event(check_), Event(check_)}));
    check_(cudaEventRecord(intervals_.back()->start.get(), stream_), "cudaEventRecord");
}

void StageTimer::end() {
    if (!enabled_) return;
    check_(cudaEventRecord(intervals_.back()->stop.get(), stream_), "cudaEventRecord");
}

StageTimings StageTimer::collect() {
    StageTimings timings;
    if (!enabled_) return timings;
    check_(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    double total = 0.0;
    for (const auto& interval : intervals_) {
        float milliseconds = 0.0f;
        check_(cudaEventElapsedTime(&milliseconds, interval->start.get(), interval->stop.get()),
               "cudaEventElapsedTime");
        total += milliseconds;
        auto same = [&](const StageTime& t) { return t.stage == interval->stage; };
        auto found = std::find_if(timings.begin(), timings.end(), same);
        if (found == timings.end()) {
            timings.push_back({interval->stage, milliseconds});
        } else {
            found->milliseconds += milliseconds;
        }
    }
    timings.push_back({"total", total});
    return timings;
}

}  // namespace glccl::cuda

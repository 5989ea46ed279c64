#include "stage_timer.hpp"

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
    for (const auto& interval : intervals_) {
        float milliseconds = 0.0f;
        check_(cudaEventElapsedTime(&milliseconds, interval->start.get(), interval->stop.get()),
               "cudaEventElapsedTime");
        addStageTime(timings, interval->stage, milliseconds);
    }
    return timings;
}

}  // namespace glccl::cuda

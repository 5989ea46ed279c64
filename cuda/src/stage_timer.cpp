#include "stage_timer.hpp"

namespace glccl::cuda {

void StageTimer::start(bool enabled, cudaStream_t stream, const CudaCheck& check) {
    enabled_ = enabled;
    stream_ = stream;
    check_ = &check;
    used_ = 0;
}

void StageTimer::begin(const char* stage) {
    if (!enabled_) return;
    if (used_ == intervals_.size()) {
        Interval interval;
        interval.start = Event(*check_, cudaEventDefault);
        interval.stop = Event(*check_, cudaEventDefault);
        intervals_.push_back(std::move(interval));
    }
    Interval& interval = intervals_[used_++];
    interval.stage = stage;
    (*check_)(cudaEventRecord(interval.start.get(), stream_), "cudaEventRecord");
}

void StageTimer::end() {
    if (!enabled_) return;
    (*check_)(cudaEventRecord(intervals_[used_ - 1].stop.get(), stream_), "cudaEventRecord");
}

void StageTimer::collect(StageTimings& timings) {
    timings.clear();
    if (!enabled_) return;
    (*check_)(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    for (std::size_t i = 0; i < used_; ++i) {
        float milliseconds = 0.0f;
        (*check_)(cudaEventElapsedTime(&milliseconds, intervals_[i].start.get(), intervals_[i].stop.get()),
                  "cudaEventElapsedTime");
        addStageTime(timings, intervals_[i].stage, milliseconds);
    }
}

}  // namespace glccl::cuda

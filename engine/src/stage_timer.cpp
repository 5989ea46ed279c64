#include "stage_timer.hpp"

namespace glccl {

StageTimer::Scope::Scope(StageTimer& timer, const char* stage) : timer_(timer) {
    // GL_TIME_ELAPSED queries cannot nest: an inner scope is folded into the outer one.
    if (!timer_.enabled_ || timer_.open_) return;
    timer_.samples_.push_back({stage, gl::Query::create()});
    glBeginQuery(GL_TIME_ELAPSED, timer_.samples_.back().query.id());
    timer_.open_ = true;
    active_ = true;
}

StageTimer::Scope::~Scope() {
    if (!active_) return;
    glEndQuery(GL_TIME_ELAPSED);
    timer_.open_ = false;
}

StageTimings StageTimer::collect() {
    StageTimings timings;
    for (const Sample& sample : samples_) {
        GLuint64 nanoseconds = 0;
        glGetQueryObjectui64v(sample.query.id(), GL_QUERY_RESULT, &nanoseconds);
        addStageTime(timings, sample.stage, double(nanoseconds) * 1e-6);
    }
    for (const StageTime& time : measured_) addStageTime(timings, time.stage, time.milliseconds);
    samples_.clear();
    measured_.clear();
    return timings;
}

}  // namespace glccl

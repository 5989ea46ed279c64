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
    // A counter of 0 bits times nothing. Every stage dispatches or draws, and
    // no GPU runs one in under kLeastNanoseconds (a launch alone costs more):
    // a query that reads less was not timed by the driver, and its stage is
    // reported as not measured rather than as free. llvmpipe times the
    // draws of its rasterizer threads only; for a compute dispatch, which
    // runs outside them, its query reads 1 ns (the wrapped difference of two
    // timestamps it never took).
    constexpr GLuint64 kLeastNanoseconds = 100;
    GLint counterBits = 0;
    if (!samples_.empty()) glGetQueryiv(GL_TIME_ELAPSED, GL_QUERY_COUNTER_BITS, &counterBits);
    for (const Sample& sample : samples_) {
        GLuint64 nanoseconds = 0;
        glGetQueryObjectui64v(sample.query.id(), GL_QUERY_RESULT, &nanoseconds);
        addStageTime(timings, sample.stage, double(nanoseconds) * 1e-6,
                     counterBits > 0 && nanoseconds >= kLeastNanoseconds);
    }
    for (const StageTime& time : measured_) addStageTime(timings, time.stage, time.milliseconds, time.measured);
    samples_.clear();
    measured_.clear();
    return timings;
}

}  // namespace glccl

#include "stage_timer.hpp"

#include "gl.hpp"

namespace glccl {

namespace {

// EXT_disjoint_timer_query's flag (GLES2/gl2ext.h, which gl.hpp does not
// include): true once the GPU's timer was disturbed since the flag was last
// read, and cleared by reading it.
constexpr GLenum kGpuDisjoint = 0x8FBB;

bool gpuDisjoint() {
    GLint disjoint = 0;
    glGetIntegerv(kGpuDisjoint, &disjoint);
    return disjoint != 0;
}

}  // namespace

#ifdef __EMSCRIPTEN__
// WebGL gives a query's result only after the page's task has ended:
// nothing is timed there, and collect() gives no stages.
StageTimer::StageTimer(bool) : enabled_(false) {}
#else
StageTimer::StageTimer(bool enabled) : enabled_(enabled) {
    if (!enabled_) return;
    if (!gl::isEs()) {
        queries_ = true;
        getResult_ = glGetQueryObjectui64v;
        return;
    }
    // ES 3 has query objects but no GL_TIME_ELAPSED target of its own: the
    // extension adds it, with the disjoint flag and glGetQueryObjectui64vEXT.
    getResult_ = gl::hasExtension("GL_EXT_disjoint_timer_query")
                     ? reinterpret_cast<GetQueryObjectui64v>(gl::procAddress("glGetQueryObjectui64vEXT"))
                     : nullptr;
    queries_ = getResult_ != nullptr;
    if (queries_) {
        disjointChecked_ = true;
        gpuDisjoint();  // cleared: what counts is a disjoint event from here on
    }
}
#endif

StageTimer::Scope::Scope(StageTimer& timer, const char* stage) : timer_(timer) {
    // GL_TIME_ELAPSED queries cannot nest: an inner scope is folded into the outer one.
    if (!timer_.enabled_ || timer_.open_) return;
    if (!timer_.queries_) {
        // Listed as run, and not measured.
        timer_.samples_.push_back({stage, gl::Query()});
        return;
    }
    if (timer_.samples_.empty()) timer_.firstBegin_ = std::chrono::steady_clock::now();
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
    if (queries_ && !samples_.empty()) glGetQueryiv(GL_TIME_ELAPSED, GL_QUERY_COUNTER_BITS, &counterBits);
    std::vector<GLuint64> nanoseconds(samples_.size(), 0);
    for (std::size_t i = 0; i < samples_.size(); ++i)
        if (samples_[i].query) getResult_(samples_[i].query.id(), GL_QUERY_RESULT, &nanoseconds[i]);
    // Read after every result is in: a disjoint event while any query ran
    // leaves all of them undefined.
    const bool disjoint = disjointChecked_ && !samples_.empty() && gpuDisjoint();
    // A stage cannot take longer on the GPU than the host waited from the
    // first query's begin to its results (doubled, and a millisecond more,
    // for two clocks): a query that reads more took a timestamp it never
    // set, as llvmpipe's ES contexts do at times for a labeling's first
    // stage (the difference from 0, the time since boot).
    const double hostNanoseconds =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - firstBegin_).count();
    const double mostNanoseconds = 2.0 * hostNanoseconds + 1e6;
    for (std::size_t i = 0; i < samples_.size(); ++i)
        addStageTime(timings, samples_[i].stage, double(nanoseconds[i]) * 1e-6,
                     samples_[i].query && !disjoint && counterBits > 0 && nanoseconds[i] >= kLeastNanoseconds &&
                         double(nanoseconds[i]) <= mostNanoseconds);
    for (const StageTime& time : measured_) addStageTime(timings, time.stage, time.milliseconds, time.measured);
    samples_.clear();
    measured_.clear();
    return timings;
}

}  // namespace glccl

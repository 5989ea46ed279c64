#pragma once
// GPU time per named stage from GL_TIME_ELAPSED queries. Results are read
// once at the end (collect), so timing adds no stall between passes; a stage
// run several times (a loop) accumulates under its one name. A stage whose
// query the driver did not time is reported with measured false.

#include <string>
#include <vector>

#include "gl_objects.hpp"
#include "glccl/types.hpp"

namespace glccl {

class StageTimer {
public:
#ifdef __EMSCRIPTEN__
    // WebGL gives a query's result only after the page's task has ended:
    // nothing is timed there, and stageTimings() stays empty.
    explicit StageTimer(bool) : enabled_(false) {}
#else
    explicit StageTimer(bool enabled) : enabled_(enabled) {}
#endif

    class Scope {
    public:
        Scope(StageTimer& timer, const char* stage);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        StageTimer& timer_;
        bool active_ = false;
    };
    Scope scope(const char* stage) { return Scope(*this, stage); }

    bool enabled() const { return enabled_; }
    // A stage timed elsewhere (CUDA events), reported with the others.
    void add(const std::string& stage, double milliseconds) { measured_.push_back({stage, milliseconds}); }
    // Waits for the queries; stages in the order they first ran.
    StageTimings collect();

private:
    struct Sample {
        std::string stage;
        gl::Query query;
    };
    bool enabled_;
    bool open_ = false;
    std::vector<Sample> samples_;
    StageTimings measured_;
};

}  // namespace glccl

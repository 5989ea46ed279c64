#pragma once
// GPU time per named stage from GL_TIME_ELAPSED queries. Results are read
// once at the end (collect), so timing adds no stall between passes; a stage
// run several times (a loop) accumulates under its one name. A stage whose
// query the driver did not time is reported with measured false.
//
// Desktop OpenGL has timer queries in its core (3.3). OpenGL ES has them
// only with EXT_disjoint_timer_query: where an ES context lacks it, every
// stage is listed as not measured; where it has it, a labeling during which
// the GPU reported a disjoint event (a clock change, a power state: its
// queries' results are undefined) has all its stages not measured.

#include <chrono>
#include <string>
#include <vector>

#include "gl_objects.hpp"
#include "glccl/types.hpp"

namespace glccl {

class StageTimer {
public:
    // Asks the current context what it times when `enabled`; nothing of GL
    // is called otherwise.
    explicit StageTimer(bool enabled);

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
        gl::Query query;  // none where the context has no timer queries
    };
    using GetQueryObjectui64v = void (*)(GLuint, GLenum, GLuint64*);
    bool enabled_;
    bool open_ = false;
    // The context has timer queries: desktop, or ES with EXT_disjoint_timer_query.
    bool queries_ = false;
    // ES: the GPU_DISJOINT_EXT flag is read, and the extension's own entry
    // point reads the results.
    bool disjointChecked_ = false;
    GetQueryObjectui64v getResult_ = nullptr;
    // When the first query began, on the host's clock: no stage's GPU time
    // can exceed what passed from then until its result was read.
    std::chrono::steady_clock::time_point firstBegin_;
    std::vector<Sample> samples_;
    StageTimings measured_;
};

}  // namespace glccl

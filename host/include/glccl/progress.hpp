#pragma once
// glccl::LabelProgress: where a labeling is, for another thread to show
// while it runs (the command line's progress line, Python's progress=
// callback). The labeling writes it, the watcher reads it, both without a
// lock:
//
//   glccl::LabelProgress progress;
//   options.progress = &progress;          // LabelOptions, TiledOptions::label
//   // labeling on one thread; on another, every now and then:
//   show(progress.stage(), progress.fraction());
//
// The fraction is of the work done, never of time guessed: each part of a
// call covers a share of [0, 1] fixed by its cost relative to the others
// (the cpu engine's stages "scan" "merge" "number" "final"; the pieces of a
// tiled run "label" and "write"), and inside a part it moves with the units
// of work finished (rows, tiles, bands). A part that reports no units (a GL
// engine's dispatches, which run asynchronously on the device) stays at its
// start until it ends. The fraction never goes back, and is 1 once the
// work is done.
//
// Thread-safety: stage() and fraction() from any thread at any time;
// setSpan(), beginStage() and endStage() from the thread that runs the
// labeling, advance() from it and from the workers of the current stage.

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace glccl {

class LabelProgress {
public:
    // The stage running ("start" before the first, "done" after finish()).
    const char* stage() const { return stage_.load(std::memory_order_acquire); }
    // The part of the call done, 0..1, never decreasing.
    double fraction() const { return double(done_.load(std::memory_order_acquire)) / kScale; }

    // The share of the call the next stages cover: an entry that runs an
    // engine after work of its own (reading the input) gives the engine's
    // stages [from, to] of the whole. Stage shares below are relative to it.
    void setSpan(double from, double to) {
        spanFrom_ = from;
        spanTo_ = to;
    }

    // Stage `name` (a static string) starts and covers [from, to] of the
    // span, with `units` units of work that advance() counts (0: none).
    void beginStage(const char* name, double from, double to, std::uint64_t units = 0) {
        from_ = absolute(from);
        to_ = absolute(to);
        units_ = units;
        unitsDone_.store(0, std::memory_order_relaxed);
        raiseTo(from_);
        stage_.store(name, std::memory_order_release);
    }
    // `units` more units of the current stage done; from any of its threads.
    void advance(std::uint64_t units) {
        if (units_ == 0) return;
        const std::uint64_t done = unitsDone_.fetch_add(units, std::memory_order_relaxed) + units;
        const double share = std::min(1.0, double(done) / double(units_));
        raiseTo(from_ + share * (to_ - from_));
    }
    // The current stage is done: the fraction reaches its end.
    void endStage() { raiseTo(to_); }
    // The call is done: stage "done", fraction 1.
    void finish() {
        raiseTo(1.0);
        stage_.store("done", std::memory_order_release);
    }

private:
    static constexpr double kScale = double(std::uint64_t(1) << 32);

    double absolute(double share) const {
        return spanFrom_ + std::clamp(share, 0.0, 1.0) * (spanTo_ - spanFrom_);
    }
    void raiseTo(double value) {
        const auto scaled = std::uint64_t(std::clamp(value, 0.0, 1.0) * kScale);
        std::uint64_t seen = done_.load(std::memory_order_relaxed);
        while (seen < scaled && !done_.compare_exchange_weak(seen, scaled, std::memory_order_release)) {
        }
    }

    std::atomic<const char*> stage_{"start"};
    std::atomic<std::uint64_t> done_{0};  // the fraction, times kScale
    std::atomic<std::uint64_t> unitsDone_{0};
    // Set by the labeling's thread before the stage's workers start.
    double spanFrom_ = 0.0, spanTo_ = 1.0;
    double from_ = 0.0, to_ = 0.0;
    std::uint64_t units_ = 0;
};

}  // namespace glccl

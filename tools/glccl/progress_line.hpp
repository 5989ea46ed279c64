#pragma once
// The line `glccl label` shows on a terminal while a long labeling runs:
// from about a second into the call, rewritten in place a few times a
// second with the stage and the fraction done (glccl::LabelProgress), and
// erased when the call ends, before anything is printed on stdout.
//
//   LabelProgressLine line(input, showProgressLine(quiet));
//   options.progress = line.progress();  // nullptr where no line is shown
//   session.label(image, options, ...);
//   // the line goes with `line`

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "glccl/progress.hpp"

namespace glccl::tools {

// Whether a progress line is shown: stderr is a terminal and --quiet was
// not given. Logs and pipes get none.
bool showProgressLine(bool quiet);

class LabelProgressLine {
public:
    // The line names `input`. Where `shown` is false nothing is started and
    // progress() is nullptr.
    LabelProgressLine(std::string input, bool shown);
    // Stops showing the line and erases it.
    ~LabelProgressLine();
    LabelProgressLine(const LabelProgressLine&) = delete;
    LabelProgressLine& operator=(const LabelProgressLine&) = delete;

    LabelProgress* progress() { return shown_ ? &progress_ : nullptr; }

    // A call shorter than this shows no line.
    static constexpr std::chrono::milliseconds kDelay{1000};
    static constexpr std::chrono::milliseconds kInterval{200};

private:
    void show();

    std::string input_;
    bool shown_ = false;
    LabelProgress progress_;
    std::mutex mutex_;
    std::condition_variable stopChanged_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace glccl::tools

#include "progress_line.hpp"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace glccl::tools {

bool showProgressLine(bool quiet) { return !quiet && isatty(STDERR_FILENO) == 1; }

LabelProgressLine::LabelProgressLine(std::string input, bool shown) : input_(std::move(input)), shown_(shown) {
    if (shown_) thread_ = std::thread([this] { show(); });
}

LabelProgressLine::~LabelProgressLine() {
    if (!thread_.joinable()) return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    stopChanged_.notify_all();
    thread_.join();
}

void LabelProgressLine::show() {
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    if (stopChanged_.wait_for(lock, kDelay, [&] { return stop_; })) return;
    do {
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::fprintf(stderr, "\rlabeling %s: %3.0f%% (%s, %.1f s)\033[K", input_.c_str(),
                     100.0 * progress_.fraction(), progress_.stage(), seconds);
        std::fflush(stderr);
    } while (!stopChanged_.wait_for(lock, kInterval, [&] { return stop_; }));
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
}

}  // namespace glccl::tools

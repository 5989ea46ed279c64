#include "thread_pool.hpp"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <system_error>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace glccl::cpu::detail {

namespace {

// How long an idle thread polls before it sleeps: about 20 to 100
// microseconds, longer than the gap between two stages of a call.
constexpr int kSpins = 2000;

// No run yet seen (run numbers have fewer bits).
constexpr std::uint64_t kNoRun = ~std::uint64_t(0);

void relax() {
#if defined(__SSE2__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

}  // namespace

ThreadPool::ThreadPool(int threads) { grow(threads); }

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_.store(true);
    }
    wake_.notify_all();
    for (std::thread& thread : threads_) thread.join();
}

void ThreadPool::grow(int threads) {
    if (size_ >= threads) return;
    // The workers block every signal (a thread starts with its creator's
    // mask, and the threads a worker starts with its): a signal for the
    // process reaches the threads of the program, whose handlers (a tool's
    // cleanup of its temporaries) were written for them, never a worker in
    // the middle of a stripe.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    try {
        start(size_, threads, threads_);
    } catch (...) {
        pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        throw;
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    size_ = threads;
}

void ThreadPool::start(int first, int end, std::vector<std::thread>& into) {
    into.emplace_back([this, first, end] { work(first, end); });
}

void ThreadPool::run(std::size_t count, int width, TaskRef task) {
    if (count == 0) return;
    const int most = (1 << kWidthBits) - 1;
    width = std::max(1, std::min({width, threads(), most, int(std::min<std::size_t>(count, std::size_t(most)))}));
    task_ = &task;
    count_ = count;
    failure_ = nullptr;
    next_.store(0, std::memory_order_relaxed);
    // The previous run is closed and empty: nothing else writes `state_` now.
    const std::uint64_t runs = runOf(state_.load(std::memory_order_relaxed)) + 1;
    state_.store((runs << kRunShift) | (std::uint64_t(width) << kCountBits), std::memory_order_release);
    if (width > 1) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (sleepers_ > 0) wake_.notify_all();
    }
    takeTasks(0);
    // Every task is taken: no worker joins from now on; those in the run
    // finish in microseconds on a small stage: poll, then sleep.
    const std::uint64_t closed = state_.fetch_or(kClosed, std::memory_order_acq_rel);
    if ((closed & kCountMask) != 0) {
        auto finished = [this] { return (state_.load(std::memory_order_acquire) & kCountMask) == 0; };
        for (int spin = 0; spin < kSpins && !finished(); ++spin) relax();
        if (!finished()) {
            std::unique_lock<std::mutex> lock(mutex_);
            callerSleeps_ = true;
            finished_.wait(lock, finished);
            callerSleeps_ = false;
        }
    }
    task_ = nullptr;
    std::exception_ptr failure;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        failure = std::exchange(failure_, nullptr);
    }
    if (failure) std::rethrow_exception(failure);
}

void ThreadPool::takeTasks(int worker) {
    const TaskRef& task = *task_;
    for (;;) {
        const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
        if (i >= count_) return;
        try {
            task(i, worker);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!failure_) failure_ = std::current_exception();
        }
    }
}

void ThreadPool::work(int worker, int end) {
    // First the workers (worker, end) in a tree: half of those left to a
    // new thread at a time, which starts its half the same way, so that
    // they all run after about log2 of their number thread starts. A
    // thread that cannot be started leaves its share out: the runs go on
    // with the workers there are.
    std::vector<std::thread> started;
    try {
        while (end > worker + 1) {
            const int half = (end - worker) / 2;
            start(end - half, end, started);
            end -= half;
        }
    } catch (const std::system_error&) {
    }
    std::uint64_t seen = kNoRun;
    for (;;) {
        // Wait for a run: poll, then sleep.
        std::uint64_t state = state_.load(std::memory_order_acquire);
        for (int spin = 0; spin < kSpins && runOf(state) == seen && !stopping_.load(std::memory_order_relaxed); ++spin) {
            relax();
            state = state_.load(std::memory_order_acquire);
        }
        if (runOf(state) == seen && !stopping_.load()) {
            std::unique_lock<std::mutex> lock(mutex_);
            ++sleepers_;
            wake_.wait(lock, [&] { return stopping_.load() || runOf(state_.load(std::memory_order_acquire)) != seen; });
            --sleepers_;
            state = state_.load(std::memory_order_acquire);
        }
        if (stopping_.load()) break;
        // Join the run unless it is closed or not this worker's; a failed
        // swap of a newer run leaves that one for the next turn.
        const std::uint64_t run = runOf(state);
        bool joined = false;
        while (runOf(state) == run && !(state & kClosed) && worker < widthOf(state))
            if (state_.compare_exchange_weak(state, state + 1, std::memory_order_acquire, std::memory_order_acquire)) {
                joined = true;
                break;
            }
        if (runOf(state) != run) continue;
        seen = run;
        if (!joined) continue;
        takeTasks(worker);
        const std::uint64_t left = state_.fetch_sub(1, std::memory_order_acq_rel);
        if ((left & kClosed) && (left & kCountMask) == 1) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (callerSleeps_) finished_.notify_one();
        }
    }
    for (std::thread& thread : started) thread.join();
}

}  // namespace glccl::cpu::detail

#include "thread_pool.hpp"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace glccl::cpu::detail {

namespace {

// How long an idle thread polls before it sleeps: about 20 to 100
// microseconds, longer than the gap between two stages of a call.
constexpr int kSpins = 2000;

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
    if (this->threads() >= threads) return;
    // The workers block every signal (a thread starts with its creator's
    // mask): a signal for the process reaches the threads of the program,
    // whose handlers (a tool's cleanup of its temporaries) were written
    // for them, never a worker in the middle of a stripe.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    while (this->threads() < threads) {
        // The runs the thread has seen are those before it exists: a run
        // that starts before the thread does is still its to join.
        const int worker = this->threads();
        const std::uint64_t seen = runs_.load();
        threads_.emplace_back([this, worker, seen] { work(worker, seen); });
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

void ThreadPool::run(std::size_t count, int width, TaskRef task) {
    if (count == 0) return;
    const int most = (1 << kWidthBits) - 1;
    width = std::max(1, std::min({width, threads(), most, int(std::min<std::size_t>(count, std::size_t(most)))}));
    task_ = &task;
    count_ = count;
    failure_ = nullptr;
    next_.store(0, std::memory_order_relaxed);
    pending_.store(width - 1, std::memory_order_relaxed);
    const std::uint64_t previous = runs_.load(std::memory_order_relaxed);
    runs_.store(((previous >> kWidthBits) + 1) << kWidthBits | std::uint64_t(width), std::memory_order_release);
    if (width > 1) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (sleepers_ > 0) wake_.notify_all();
    }
    takeTasks(0);
    // The workers of this run finish in microseconds on a small stage: poll, then sleep.
    for (int spin = 0; spin < kSpins && pending_.load(std::memory_order_acquire) != 0; ++spin) relax();
    if (pending_.load(std::memory_order_acquire) != 0) {
        std::unique_lock<std::mutex> lock(mutex_);
        callerSleeps_ = true;
        finished_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
        callerSleeps_ = false;
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

void ThreadPool::work(int worker, std::uint64_t seen) {
    for (;;) {
        // Wait for a run: poll, then sleep.
        std::uint64_t runs = runs_.load(std::memory_order_acquire);
        for (int spin = 0; spin < kSpins && runs == seen && !stopping_.load(std::memory_order_relaxed); ++spin) {
            relax();
            runs = runs_.load(std::memory_order_acquire);
        }
        if (runs == seen) {
            std::unique_lock<std::mutex> lock(mutex_);
            ++sleepers_;
            wake_.wait(lock, [&] { return stopping_.load() || runs_.load(std::memory_order_acquire) != seen; });
            --sleepers_;
            runs = runs_.load(std::memory_order_acquire);
        }
        if (stopping_.load()) return;
        seen = runs;
        if (worker >= int(runs & ((1u << kWidthBits) - 1))) continue;  // not needed in this run
        takeTasks(worker);
        if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (callerSleeps_) finished_.notify_one();
        }
    }
}

}  // namespace glccl::cpu::detail

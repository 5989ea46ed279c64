#pragma once
// A small team of persistent threads for the cpu engine's stages: each stage
// is one run() of independent tasks (stripes, borders), the calling thread
// taking tasks too. Plain std::thread, atomics, mutex and condition
// variables, so that ThreadSanitizer sees every synchronisation (an OpenMP
// runtime built without it reports false races).
//
// A call's stages follow each other within microseconds, so an idle worker
// spins on the run counter for a while before it sleeps: waking a sleeping
// thread costs more than a small stage. Between calls the workers sleep.
//
// A run waits for the workers that joined it, never for one still waking
// or starting: once its tasks are all taken the run is closed, and a worker
// that comes later leaves it to the workers that came. So a run costs what
// its tasks do on the workers at hand, and a team's threads, started in a
// tree (each new thread starts some of the others), join as they come.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace glccl::cpu::detail {

// A callable task(i, worker) passed by reference, without the allocation a
// std::function of a capturing lambda may make on every stage.
class TaskRef {
public:
    template <class Task>
    TaskRef(const Task& task)  // NOLINT(google-explicit-constructor): a reference to any task
        : task_(&task), call_([](const void* t, std::size_t i, int worker) { (*static_cast<const Task*>(t))(i, worker); }) {}
    void operator()(std::size_t i, int worker) const { call_(task_, i, worker); }

private:
    const void* task_;
    void (*call_)(const void*, std::size_t, int);
};

class ThreadPool {
public:
    // A team of `threads` workers (at least 1): the caller and threads - 1 threads.
    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int threads() const { return size_; }
    // Adds threads until the team has `threads` workers. Returns once the
    // first of them is started; it starts the others (some of them, each
    // starting the rest of its share), and each takes part in runs once
    // it is running.
    void grow(int threads);

    // Runs task(i, worker) for every i in 0..count-1 on workers 0..width-1
    // (0 is the calling thread; width at most threads()), each task once, in
    // no particular order, and returns when all have finished. A task's
    // exception is rethrown here (the first one); the other tasks still run.
    // Not reentrant: one run at a time.
    void run(std::size_t count, int width, TaskRef task);

private:
    // Worker `first` of the workers [first, end) it starts.
    void start(int first, int end, std::vector<std::thread>& into);
    void work(int worker, int end);
    void takeTasks(int worker);

    int size_ = 1;
    std::vector<std::thread> threads_;  // the threads grow() started; each joins those it started

    // The current run: written by run() before it publishes the run in
    // `state_` (release), read by its workers after they join it (acquire);
    // run() waits for them before it writes the next. `state_` holds the
    // run's number, its width (a worker past it is not in the run), whether
    // it is closed (no worker may join: its tasks are all taken) and the
    // workers in it: a worker joins by one compare-and-swap of the run it
    // saw, so it learns that it is too late, or not needed, without reading
    // what the next run may be writing.
    static constexpr int kCountBits = 16, kWidthBits = 16;
    static constexpr std::uint64_t kCountMask = (std::uint64_t(1) << kCountBits) - 1;
    static constexpr std::uint64_t kClosed = std::uint64_t(1) << (kCountBits + kWidthBits);
    static constexpr int kRunShift = kCountBits + kWidthBits + 1;
    static std::uint64_t runOf(std::uint64_t state) { return state >> kRunShift; }
    static int widthOf(std::uint64_t state) { return int((state >> kCountBits) & ((1u << kWidthBits) - 1)); }
    const TaskRef* task_ = nullptr;
    std::size_t count_ = 0;
    std::atomic<std::uint64_t> state_{0};
    std::atomic<std::size_t> next_{0};  // the next task to take
    std::atomic<bool> stopping_{false};

    // Sleeping, on either side, and the first failure of a run.
    std::mutex mutex_;
    std::condition_variable wake_;      // workers wait for a run
    std::condition_variable finished_;  // the caller waits for the workers in a closed run
    int sleepers_ = 0;
    bool callerSleeps_ = false;
    std::exception_ptr failure_;
};

}  // namespace glccl::cpu::detail

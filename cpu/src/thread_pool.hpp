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

    int threads() const { return int(threads_.size()) + 1; }
    // Adds threads until the team has `threads` workers.
    void grow(int threads);

    // Runs task(i, worker) for every i in 0..count-1 on workers 0..width-1
    // (0 is the calling thread; width at most threads()), each task once, in
    // no particular order, and returns when all have finished. A task's
    // exception is rethrown here (the first one); the other tasks still run.
    // Not reentrant: one run at a time.
    void run(std::size_t count, int width, TaskRef task);

private:
    void work(int worker, std::uint64_t seen);
    void takeTasks(int worker);

    std::vector<std::thread> threads_;
    // The current run: written by run() before it bumps `runs_` (release),
    // read by its workers after they see it (acquire); run() waits for them
    // before it writes the next. `runs_` counts the runs in its high bits
    // and holds the current run's width in its low kWidthBits, so that a
    // worker left out of a run learns so without reading what the next run
    // may be writing.
    static constexpr int kWidthBits = 16;
    const TaskRef* task_ = nullptr;
    std::size_t count_ = 0;
    std::atomic<std::uint64_t> runs_{0};
    std::atomic<std::size_t> next_{0};  // the next task to take
    std::atomic<int> pending_{0};       // workers of this run still taking tasks
    std::atomic<bool> stopping_{false};

    // Sleeping, on either side, and the first failure of a run.
    std::mutex mutex_;
    std::condition_variable wake_;      // workers wait for a run
    std::condition_variable finished_;  // the caller waits for the workers
    int sleepers_ = 0;
    bool callerSleeps_ = false;
    std::exception_ptr failure_;
};

}  // namespace glccl::cpu::detail

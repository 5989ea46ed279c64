#pragma once
// A small team of persistent threads for the cpu engine's stages: each stage
// is one run() of independent tasks (stripes, borders), the calling thread
// taking tasks too. Plain std::thread, mutex and condition variables, so
// that ThreadSanitizer sees every synchronisation (an OpenMP runtime built
// without it reports false races).

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace glccl::cpu::detail {

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
    void run(std::size_t count, int width, const std::function<void(std::size_t task, int worker)>& task);

private:
    void work(int worker, unsigned seen);
    void takeTasks(int worker);

    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable finished_;
    // The current run, guarded by mutex_ (next_ too: tasks are coarse, a
    // lock per task costs nothing beside them).
    const std::function<void(std::size_t, int)>* task_ = nullptr;
    std::size_t count_ = 0, next_ = 0;
    int width_ = 0, busy_ = 0;
    unsigned generation_ = 0;
    bool stopping_ = false;
    std::exception_ptr failure_;
};

}  // namespace glccl::cpu::detail

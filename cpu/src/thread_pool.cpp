#include "thread_pool.hpp"

#include <algorithm>
#include <utility>

namespace glccl::cpu::detail {

ThreadPool::ThreadPool(int threads) { grow(threads); }

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& thread : threads_) thread.join();
}

void ThreadPool::grow(int threads) {
    while (this->threads() < threads) {
        // The generation the thread has seen is the one before it exists:
        // a run that starts before the thread does is still its to join.
        const int worker = this->threads();
        const unsigned seen = generation_;
        threads_.emplace_back([this, worker, seen] { work(worker, seen); });
    }
}

void ThreadPool::run(std::size_t count, int width, const std::function<void(std::size_t, int)>& task) {
    width = std::max(1, std::min({width, threads(), int(std::min<std::size_t>(count, 1u << 30))}));
    if (count == 0) return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        task_ = &task;
        count_ = count;
        next_ = 0;
        width_ = width;
        busy_ = width - 1;
        failure_ = nullptr;
        ++generation_;
    }
    if (width > 1) wake_.notify_all();
    takeTasks(0);
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [this] { return busy_ == 0; });
    task_ = nullptr;
    if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

void ThreadPool::takeTasks(int worker) {
    for (;;) {
        std::size_t i;
        const std::function<void(std::size_t, int)>* task;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (next_ >= count_) return;
            i = next_++;
            task = task_;
        }
        try {
            (*task)(i, worker);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!failure_) failure_ = std::current_exception();
        }
    }
}

void ThreadPool::work(int worker, unsigned seen) {
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stopping_ || (generation_ != seen && worker < width_); });
            if (stopping_) return;
            seen = generation_;
        }
        takeTasks(worker);
        bool last;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            last = --busy_ == 0;
        }
        if (last) finished_.notify_one();
    }
}

}  // namespace glccl::cpu::detail

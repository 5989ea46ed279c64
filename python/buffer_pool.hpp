#pragma once
// Released host buffers kept for the next call of the same size, so that a
// loop of glccl.label() calls neither allocates nor page-faults fresh memory
// on each one (at 8192 x 8192 a label array is 268 MB, and first touching
// that much memory costs more than labeling it on a GPU).
//
// Bounded: at most kKept buffers and kMaxBytes in all; beyond that the
// oldest are freed. Every member takes the pool's own mutex (never the GIL),
// so it is usable with or without the GIL: glccl.label() takes buffers with
// the GIL released, and numpy arrays give theirs back from their capsule's
// destructor, with the GIL held.

#include <cstddef>
#include <deque>
#include <iterator>
#include <mutex>
#include <utility>
#include <vector>

namespace glccl::python {

template <class T>
class BufferPool {
public:
    // Two: a loop that holds the last result while the next call runs.
    static constexpr std::size_t kKept = 2;
    static constexpr std::size_t kMaxBytes = std::size_t(2) << 30;

    // The last released buffer of exactly `count` elements (its old
    // contents left in place; the last, whose pages are the likeliest to be
    // in cache), or a new zero-filled one.
    std::vector<T> take(std::size_t count) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            for (auto it = buffers_.rbegin(); it != buffers_.rend(); ++it) {
                if (it->size() != count) continue;
                std::vector<T> buffer = std::move(*it);
                buffers_.erase(std::next(it).base());
                bytes_ -= bytesOf(buffer);
                return buffer;
            }
        }
        return std::vector<T>(count);
    }

    // Keeps `buffer` for a later take(), freeing the oldest ones beyond the
    // bounds (outside the lock). Never throws: called from destructors.
    void giveBack(std::vector<T>&& buffer) noexcept {
        if (buffer.empty() || bytesOf(buffer) > kMaxBytes) return;  // freed with the argument's owner
        try {
            std::vector<std::vector<T>> dropped;
            dropped.reserve(kKept + 1);  // so that dropping never allocates under the lock
            std::lock_guard<std::mutex> lock(mutex_);
            buffers_.push_back(std::move(buffer));
            bytes_ += bytesOf(buffers_.back());
            while (buffers_.size() > kKept || bytes_ > kMaxBytes) {
                bytes_ -= bytesOf(buffers_.front());
                dropped.push_back(std::move(buffers_.front()));
                buffers_.pop_front();
            }
        } catch (...) {
            // No memory to keep it: the buffer is freed by its owner instead.
        }
    }

    // Fills `storage` with take(count) and gives it back when the scope
    // ends, errors included, unless release()d first (a buffer that left
    // `storage` by a move is empty, and giving back nothing does nothing).
    class Lease {
    public:
        Lease(BufferPool& pool, std::vector<T>& storage, std::size_t count) : pool_(&pool), storage_(storage) {
            storage_ = pool.take(count);
        }
        ~Lease() {
            if (pool_) pool_->giveBack(std::move(storage_));
        }
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;

        void release() { pool_ = nullptr; }

    private:
        BufferPool* pool_;
        std::vector<T>& storage_;
    };

private:
    static std::size_t bytesOf(const std::vector<T>& buffer) { return buffer.size() * sizeof(T); }

    std::mutex mutex_;
    std::deque<std::vector<T>> buffers_;  // oldest first
    std::size_t bytes_ = 0;
};

}  // namespace glccl::python

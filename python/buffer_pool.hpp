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
//
// Label storage (LabelStorage) and host copies of images (PixelStorage) are
// not zero-filled when they are made: every engine writes every label and
// every copy every sample. A zero fill would fault all the fresh pages on
// one thread first; without it the cpu engine's threads fault those of
// their own stripes of labels, in parallel. Storage of kHugeBytes and more is
// mapped on its own, aligned to and advised for 2 MiB pages (the kernel's
// transparent huge pages, where they are enabled): one fault a 2 MiB page
// instead of one a 4 KiB page.

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <iterator>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace glccl::python {

// A std::allocator that leaves elements default-initialized (no zero fill for
// integers), with large blocks mapped as described at the top.
template <class T>
class FreshPages {
public:
    using value_type = T;
    static constexpr std::size_t kHugePage = std::size_t(2) << 20;
    static constexpr std::size_t kHugeBytes = std::size_t(8) << 20;

    FreshPages() = default;
    template <class U>
    FreshPages(const FreshPages<U>&) noexcept {}

    T* allocate(std::size_t count) {
        const std::size_t bytes = count * sizeof(T);
        if (bytes < kHugeBytes) return std::allocator<T>().allocate(count);
        // One huge page more than needed, so that an aligned start fits; the
        // unaligned head and the tail are unmapped again.
        const std::size_t mapped = roundUp(bytes) + kHugePage;
        void* start = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (start == MAP_FAILED) throw std::bad_alloc();
        const auto address = reinterpret_cast<std::uintptr_t>(start);
        const std::uintptr_t aligned = (address + kHugePage - 1) & ~std::uintptr_t(kHugePage - 1);
        if (aligned > address) munmap(start, aligned - address);
        const std::uintptr_t end = aligned + roundUp(bytes);
        if (end < address + mapped) munmap(reinterpret_cast<void*>(end), address + mapped - end);
#if defined(MADV_HUGEPAGE)
        madvise(reinterpret_cast<void*>(aligned), roundUp(bytes), MADV_HUGEPAGE);  // advice: failure changes nothing
#endif
        return reinterpret_cast<T*>(aligned);
    }

    void deallocate(T* pointer, std::size_t count) noexcept {
        const std::size_t bytes = count * sizeof(T);
        if (bytes < kHugeBytes) return std::allocator<T>().deallocate(pointer, count);
        munmap(pointer, roundUp(bytes));
    }

    template <class U, class... Arguments>
    void construct(U* place, Arguments&&... arguments) {
        if constexpr (sizeof...(Arguments) == 0) ::new (static_cast<void*>(place)) U;
        else ::new (static_cast<void*>(place)) U(std::forward<Arguments>(arguments)...);
    }

    template <class U>
    bool operator==(const FreshPages<U>&) const noexcept { return true; }
    template <class U>
    bool operator!=(const FreshPages<U>&) const noexcept { return false; }

private:
    static std::size_t roundUp(std::size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }
};

template <class T, class Allocator = std::allocator<T>>
class BufferPool {
public:
    using Buffer = std::vector<T, Allocator>;
    // Two: a loop that holds the last result while the next call runs.
    static constexpr std::size_t kKept = 2;
    static constexpr std::size_t kMaxBytes = std::size_t(2) << 30;

    // The last released buffer of exactly `count` elements (its old
    // contents left in place; the last, whose pages are the likeliest to be
    // in cache), or a new one, zero-filled unless Allocator says otherwise.
    Buffer take(std::size_t count) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            for (auto it = buffers_.rbegin(); it != buffers_.rend(); ++it) {
                if (it->size() != count) continue;
                Buffer buffer = std::move(*it);
                buffers_.erase(std::next(it).base());
                bytes_ -= bytesOf(buffer);
                return buffer;
            }
        }
        return Buffer(count);
    }

    // Keeps `buffer` for a later take(), freeing the oldest ones beyond the
    // bounds (outside the lock). Never throws: called from destructors.
    void giveBack(Buffer&& buffer) noexcept {
        if (buffer.empty() || bytesOf(buffer) > kMaxBytes) return;  // freed with the argument's owner
        try {
            std::vector<Buffer> dropped;
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
        Lease(BufferPool& pool, Buffer& storage, std::size_t count) : pool_(&pool), storage_(storage) {
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
        Buffer& storage_;
    };

private:
    static std::size_t bytesOf(const Buffer& buffer) { return buffer.size() * sizeof(T); }

    std::mutex mutex_;
    std::deque<Buffer> buffers_;  // oldest first
    std::size_t bytes_ = 0;
};

// The storage of label arrays (glccl.label()'s, a glccl.Labeler's) and its pool.
using LabelStorage = std::vector<std::uint32_t, FreshPages<std::uint32_t>>;
using LabelPool = BufferPool<std::uint32_t, FreshPages<std::uint32_t>>;
// The storage of host copies of images (samples of 8 to 64 bits) and its pool.
using PixelStorage = std::vector<std::uint8_t, FreshPages<std::uint8_t>>;
using PixelPool = BufferPool<std::uint8_t, FreshPages<std::uint8_t>>;

}  // namespace glccl::python

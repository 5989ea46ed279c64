#pragma once
// Work over the rows of a region table split among threads, and fresh
// memory mapped before it is written: the host's share of measuring, where
// a table holds hundreds of thousands of regions. Each row depends on its own
// inputs only, so rows split among threads give the same result at every
// thread count.
//
// Why: a table's rows are converted, filled and finalized at memory speed
// once the memory is there, but its pages come first, and a first write of
// fresh memory faults a page at a time (in a virtual machine each fault is
// an exit, several microseconds). Faults taken by several threads at once,
// or a range mapped in one call, cost a fraction of one thread's faults.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <unistd.h>

namespace glccl {

// Rows a thread takes at the least: fewer cost more to hand to a thread
// than to work on.
constexpr std::size_t kRowsPerThread = 2048;

namespace row_ranges_detail {

// The process's threads that work on ranges, started as the first call
// that needs them asks and kept: a call hands its ranges to threads that
// wait, rather than starting a thread each. Several calls may run at once
// (from several threads, or a task's own call); each caller works on its
// own call's ranges too, and waits only for ranges another thread took, so
// that a call never waits on threads busy elsewhere.
class RangeTeam {
public:
    // Runs piece(context, i) for every i in [0, pieces), on the calling
    // thread and up to pieces - 1 of the team's; returns when all are done.
    // piece must not throw.
    void run(std::size_t pieces, void (*piece)(const void*, std::size_t), const void* context) {
        Job job{piece, context, pieces};
        {
            std::lock_guard<std::mutex> lock(mutex_);
            while (threads_ < pieces - 1) {
                std::thread(&RangeTeam::work, this).detach();
                ++threads_;
            }
            queue_.push_back(&job);
        }
        for (std::size_t i = 1; i < pieces; ++i) wake_.notify_one();
        for (;;) {
            std::size_t i;
            {
                std::lock_guard<std::mutex> lock(mutex_);
                if (job.next == pieces) break;
                i = claim(job);
            }
            finish(job, i);
        }
        std::unique_lock<std::mutex> lock(mutex_);
        finished_.wait(lock, [&] { return job.done == pieces; });
    }

    // The team of this process: a forked child (whose parent's threads are
    // not there) starts a team of its own rather than wait on them.
    static RangeTeam& ofProcess() {
        static std::atomic<RangeTeam*> current{nullptr};
        RangeTeam* team = current.load(std::memory_order_acquire);
        const long pid = long(::getpid());
        while (!team || team->pid_ != pid) {
            // Never destroyed: its threads wait on it until the process
            // ends. A parent's team, in a child, stays reachable from the
            // child's (leak checkers), never touched (its lock may have
            // been held across fork()).
            RangeTeam* fresh = new RangeTeam(pid, team);
            if (current.compare_exchange_strong(team, fresh, std::memory_order_acq_rel)) return *fresh;
            delete fresh;  // another thread's came first
        }
        return *team;
    }

private:
    struct Job {
        void (*piece)(const void*, std::size_t);
        const void* context;
        std::size_t pieces;
        std::size_t next = 0, done = 0;  // under mutex_
    };

    RangeTeam(long pid, RangeTeam* parents) : pid_(pid), parents_(parents) {}

    // The next piece of a job with pieces left, the job leaving the queue
    // with its last. Under mutex_.
    std::size_t claim(Job& job) {
        const std::size_t i = job.next++;
        if (job.next == job.pieces) queue_.erase(std::find(queue_.begin(), queue_.end(), &job));
        return i;
    }
    void finish(Job& job, std::size_t i) {
        job.piece(job.context, i);
        bool last;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            last = ++job.done == job.pieces;
        }
        if (last) finished_.notify_all();
    }
    void work() {
        for (;;) {
            Job* job;
            std::size_t i;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return !queue_.empty(); });
                job = queue_.front();
                i = claim(*job);
            }
            finish(*job, i);
        }
    }

    const long pid_;
    [[maybe_unused]] RangeTeam* const parents_;  // kept reachable only (ofProcess())
    std::mutex mutex_;
    std::condition_variable wake_, finished_;
    std::vector<Job*> queue_;  // jobs with pieces no thread has claimed, oldest first
    std::size_t threads_ = 0;
};

}  // namespace row_ranges_detail

// task(first, last) over [0, count) in one contiguous range a thread, on
// `threads` threads (0: every core) but at most one per `grain` elements,
// the calling thread among them (the process's range team the others);
// returns when all are done and rethrows the first failure. The ranges
// depend on count, grain and threads only.
template <class Task>
void forRanges(std::size_t count, std::size_t grain, int threads, const Task& task) {
    const std::size_t most = threads > 0 ? std::size_t(threads) : std::max(1u, std::thread::hardware_concurrency());
    const std::size_t workers =
        std::max<std::size_t>(1, std::min(most, (count + std::max<std::size_t>(grain, 1) - 1) / std::max<std::size_t>(grain, 1)));
    if (workers <= 1) {
        task(std::size_t(0), count);
        return;
    }
    struct Call {
        const Task& task;
        std::size_t count, workers;
        std::vector<std::exception_ptr> failures;
    } call{task, count, workers, std::vector<std::exception_ptr>(workers)};
    row_ranges_detail::RangeTeam::ofProcess().run(workers, [](const void* context, std::size_t w) {
        auto& c = *static_cast<Call*>(const_cast<void*>(context));
        try {
            c.task(c.count * w / c.workers, c.count * (w + 1) / c.workers);
        } catch (...) {
            c.failures[w] = std::current_exception();
        }
    }, &call);
    for (const std::exception_ptr& failure : call.failures)
        if (failure) std::rethrow_exception(failure);
}

// forRanges over a table's rows, kRowsPerThread rows a thread at the least.
template <class Task>
void forRowRanges(std::size_t rows, int threads, const Task& task) {
    forRanges(rows, kRowsPerThread, threads, task);
}

// `value` stored into `to` past the caches. A table's wide totals (a row's
// moment sums, hundreds of bytes) are written once, row after row, far
// more of them than the caches hold, and read again only once the whole
// table is written: a plain store first reads each line in from memory,
// these write it without reading it. The thread that stores calls
// streamFence() before its stores are read elsewhere.
template <class T>
inline void streamStore(T& to, const T& value) {
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) % 8 == 0, "whole 64-bit words");
#if defined(__x86_64__)
    std::uint64_t words[sizeof(T) / 8];
    std::memcpy(words, &value, sizeof(T));
    auto* out = reinterpret_cast<long long*>(&to);
    for (std::size_t k = 0; k < sizeof(T) / 8; ++k) _mm_stream_si64(out + k, static_cast<long long>(words[k]));
#else
    to = value;
#endif
}

// Orders this thread's streamStore()s before what it does next (the end of
// its share of rows).
inline void streamFence() {
#if defined(__x86_64__)
    _mm_sfence();
#endif
}

// Maps the pages of [p, p + bytes) in one call rather than a fault a page.
// Advice only: a kernel without it (before Linux 5.14), or a range it
// refuses, faults the pages in as they are reached.
inline void populate(const void* p, std::size_t bytes, bool write) {
#if defined(__linux__) && defined(MADV_POPULATE_READ) && defined(MADV_POPULATE_WRITE)
    static const std::uintptr_t page = std::uintptr_t(sysconf(_SC_PAGESIZE));
    if (!p || bytes == 0) return;
    const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(p) + bytes;
    madvise(reinterpret_cast<void*>(begin), end - begin, write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
#else
    (void)p, (void)bytes, (void)write;
#endif
}

// Fresh memory of several arrays, mapped at once by several threads before
// it is first written: add() each array as it is reserved, then map().
// The kernel clears each fresh page as it maps it, and several threads
// clear several at once, whatever the arrays' sizes.
class FreshPages {
public:
    // v with room for n elements, in fresh memory where v must grow (its
    // elements are not kept), asked as transparent huge pages where it
    // spans them (the kernel lends them on request only), and its pages to
    // be mapped by map().
    template <class T, class Allocator>
    void reserve(std::vector<T, Allocator>& v, std::size_t n) {
        if (v.capacity() >= n) return;
        v = std::vector<T, Allocator>();
        v.reserve(n);
        const std::size_t bytes = n * sizeof(T);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        constexpr std::uintptr_t kHuge = std::uintptr_t(1) << 21;
        const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(v.data()) + kHuge - 1) & ~(kHuge - 1);
        const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(v.data()) + bytes) & ~(kHuge - 1);
        if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice only: failure is harmless
#endif
        add(v.data(), bytes);
    }

    // [p, p + bytes), fresh memory, to be mapped by map().
    void add(void* p, std::size_t bytes) {
        char* at = static_cast<char*>(p);
        for (std::size_t offset = 0; offset < bytes; offset += kPiece)
            pieces_.emplace_back(at + offset, std::min(kPiece, bytes - offset));
    }

    // Maps every piece added, on `threads` threads (0: every core).
    void map(int threads = 0) {
        // A thread for each kBytesPerThread at the most: many small arrays
        // (a small table's columns) are mapped on the calling thread.
        std::size_t bytes = 0;
        for (const auto& piece : pieces_) bytes += piece.second;
        const std::size_t most = threads > 0 ? std::size_t(threads) : std::max(1u, std::thread::hardware_concurrency());
        const std::size_t workers = std::max<std::size_t>(1, std::min(most, bytes / kBytesPerThread));
        forRanges(pieces_.size(), 1, int(workers), [&](std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) populate(pieces_[i].first, pieces_[i].second, true);
        });
        pieces_.clear();
    }

private:
    static constexpr std::size_t kPiece = std::size_t(256) << 10, kBytesPerThread = std::size_t(2) << 20;
    std::vector<std::pair<char*, std::size_t>> pieces_;
};

}  // namespace glccl

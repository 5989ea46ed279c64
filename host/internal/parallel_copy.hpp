#pragma once
// Large host-to-host copies split over a few threads: the one copy helper of
// the GL transfers (transfer.cpp: image bands into pixel-unpack buffers,
// label bands out of pixel-pack buffers) and the cuda backend's page-locked
// staging (cuda/src/host_staging.cpp); its pool also decodes large
// component tables (forRanges). Both transfers cut their bands by the same
// rule (pipelinedBandBytes).
//
// Why threads: one core copies far below the bus's speed; a few cores
// together keep up with it (memory bandwidth, not cores, bounds a copy past
// a few threads). Why a pool: a band of a pipelined transfer is copied every
// millisecond or so, and starting threads per band would cost more than the
// copy saves.
//
// Header-only, on the ground floor under both the engine library and
// glccl_cuda (which the engine links): it has no link dependency of its own,
// and every layer reaches it through the build-only glccl_host_internal
// target (host/CMakeLists.txt).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "glccl/tuning.hpp"

namespace glccl {

// Copies below this many bytes are one memcpy on the calling thread: waking
// workers costs more than it saves. Larger copies are split: one core
// copies far slower than the bus moves data, even a megabyte's worth.
constexpr std::size_t kParallelCopyBytes = std::size_t(1) << 20;
// The smallest piece a thread takes of a larger copy.
constexpr std::size_t kCopyPieceBytes = std::size_t(256) << 10;
// A pipelined transfer (GL's pixel-buffer bands, the CUDA staging chunks)
// moves a transfer smaller than kSmallTransferBands bands of the Tuning's
// size in about that many bands, each a multiple of kBandGranule and at
// least kMinBandBytes: the host then copies one band while the bus moves
// the next, where one band would leave the copy and the bus taking turns.
constexpr std::size_t kSmallTransferBands = 4;
constexpr std::size_t kMinBandBytes = std::size_t(1) << 20;
constexpr std::size_t kBandGranule = std::size_t(64) << 10;

// The bytes per band of a pipelined transfer of `total` bytes, whose bands
// are at most `bandBytes` (Tuning::transferBandBytes).
inline std::size_t pipelinedBandBytes(std::size_t total, std::size_t bandBytes) {
    const std::size_t share = (total / kSmallTransferBands + kBandGranule - 1) / kBandGranule * kBandGranule;
    return std::max<std::size_t>(1, std::min(bandBytes, std::max(kMinBandBytes, share)));
}
// Component tables of fewer entries are decoded on the calling thread, larger
// ones by the copy threads in ranges of kTableGrain entries: a noisy image
// has about one component in three hundred pixels, tens of megabytes of
// table that one core writes far slower than the bus delivers it.
constexpr std::size_t kParallelTableEntries = std::size_t(1) << 16;
constexpr std::size_t kTableGrain = std::size_t(1) << 14;
// How long a copy thread, and a caller waiting for the last piece, spins
// before it sleeps. A pipelined transfer hands out its next band within
// about the time the bus takes to move one, far less than a sleeping
// thread takes to wake: sleeping between bands cost more than the copies.
constexpr std::chrono::microseconds kCopySpin{250};

// A short pause inside a spin loop (the processor's spin-wait hint).
inline void spinPause() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}
// The copy threads the Tuning asks for: Tuning::copyThreads where set,
// else the machine's hardware threads, at most 16: memory bandwidth, not
// cores, bounds a copy past that.
inline int copyThreads(const Tuning& tuning) {
    if (tuning.copyThreads > 0) return tuning.copyThreads;
    const unsigned hardware = std::thread::hardware_concurrency();
    return int(std::clamp(hardware, 1u, 16u));
}

// Threads for a component table of `entries`: the copy threads from
// kParallelTableEntries on, the calling thread alone below.
inline int tableThreads(std::size_t entries) {
    return entries >= kParallelTableEntries ? copyThreads(tuning()) : 1;
}

// memcpy with streaming (non-temporal) stores where the processor has them:
// the destination is written in aligned 64-byte lines without being read
// into the caches first. A plain store of a line the cache lacks first
// reads the line from memory, so a copy of labels out of a mapped buffer
// would move three bytes of memory traffic per byte copied; streaming
// stores move two. The caller's later reads of it come from memory, which a
// copy far larger than the caches would do anyway.
inline void streamingCopy(unsigned char* destination, const unsigned char* source, std::size_t bytes) {
#if defined(__SSE2__)
    const std::size_t head = std::min(bytes, (64 - (reinterpret_cast<std::uintptr_t>(destination) & 63)) & 63);
    std::memcpy(destination, source, head);
    destination += head, source += head, bytes -= head;
    const std::size_t lines = bytes / 64;
    for (std::size_t i = 0; i < lines; ++i, destination += 64, source += 64) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(source));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(source + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(source + 32));
        const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(source + 48));
        _mm_stream_si128(reinterpret_cast<__m128i*>(destination), a);
        _mm_stream_si128(reinterpret_cast<__m128i*>(destination + 16), b);
        _mm_stream_si128(reinterpret_cast<__m128i*>(destination + 32), c);
        _mm_stream_si128(reinterpret_cast<__m128i*>(destination + 48), d);
    }
    std::memcpy(destination, source, bytes % 64);
    // Streaming stores are weakly ordered: they must be visible before the
    // copy counts as done.
    _mm_sfence();
#else
    std::memcpy(destination, source, bytes);
#endif
}

// A pool of copy threads. copy() blocks until the copy is complete; the
// calling thread copies a piece itself. Workers start on the first copy
// that needs them and sleep between copies. Not for concurrent use: one
// owner (a texture's uploader, a labeler's downloader, a CUDA staging
// object) calls it from one thread at a time.
class CopyThreads {
public:
    CopyThreads() = default;
    ~CopyThreads() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (std::thread& worker : workers_) worker.join();
    }
    CopyThreads(const CopyThreads&) = delete;
    CopyThreads& operator=(const CopyThreads&) = delete;

    // Copies `bytes` from `source` to `destination` (which must not
    // overlap) with up to `threads` threads, the caller included: one
    // memcpy below kParallelCopyBytes, else pieces of at least
    // kCopyPieceBytes, one per thread, with streaming stores
    // (streamingCopy).
    void copy(void* destination, const void* source, std::size_t bytes, int threads) {
        const std::size_t pieces =
            bytes < kParallelCopyBytes ? 1 : std::min<std::size_t>(std::size_t(std::max(threads, 1)), bytes / kCopyPieceBytes);
        if (pieces <= 1) {
            if (bytes > 0) std::memcpy(destination, source, bytes);
            return;
        }
        // Piece boundaries on cache lines, so that two threads never write
        // one line.
        const std::size_t piece = ((bytes / pieces) + 63) / 64 * 64;
        auto* to = static_cast<unsigned char*>(destination);
        const auto* from = static_cast<const unsigned char*>(source);
        forEach((bytes + piece - 1) / piece, threads, [=](std::size_t i) {
            const std::size_t offset = i * piece;
            streamingCopy(to + offset, from + offset, std::min(piece, bytes - offset));
        });
    }

    // Runs task(i) for every i below `pieces` on up to `threads` threads,
    // the caller included, and returns when all have run. The task must not
    // throw; pieces write disjoint memory (the component tables' decoding
    // uses it as well as copy()).
    void forEach(std::size_t pieces, int threads, const std::function<void(std::size_t)>& task) {
        const int helpers = int(std::min<std::size_t>(pieces, std::size_t(std::max(threads, 1)))) - 1;
        if (helpers <= 0) {
            for (std::size_t i = 0; i < pieces; ++i) task(i);
            return;
        }
        startWorkers(helpers);
        auto job = std::make_shared<Job>();
        job->task = &task;
        job->pieces = pieces;
        job->remaining = pieces;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            job_ = job;
            ++generation_;
        }
        wake_.notify_all();
        work(*job);
        if (spinUntil([&] { return job->remaining.load() == 0; })) return;
        std::unique_lock<std::mutex> lock(job->mutex);
        job->done.wait(lock, [&] { return job->remaining.load() == 0; });
    }

    // `source` into `destination`, resized to it (a vector of its size is
    // overwritten in place, not zero-filled first), copied as bytes by
    // tableThreads(size) threads: the component tables a caller keeps.
    template <class T>
    void copyTable(std::vector<T>& destination, const std::vector<T>& source) {
        static_assert(std::is_trivially_copyable_v<T>, "a table is copied as bytes");
        if (destination.size() != source.size()) destination.resize(source.size());
        copy(destination.data(), source.data(), source.size() * sizeof(T), tableThreads(source.size()));
    }

    // task(begin, end) over [0, count) in ranges of at least `grain`
    // elements, on up to `threads` threads (forEach): a few ranges a thread,
    // so that a slow thread holds up little.
    void forRanges(std::size_t count, std::size_t grain, int threads,
                   const std::function<void(std::size_t, std::size_t)>& task) {
        const std::size_t most = std::max<std::size_t>(1, count / std::max<std::size_t>(grain, 1));
        const std::size_t pieces = std::min(most, std::size_t(std::max(threads, 1)) * 4);
        const std::size_t range = (count + pieces - 1) / pieces;
        forEach(pieces, threads, [&](std::size_t i) {
            const std::size_t begin = i * range;
            if (begin < count) task(begin, std::min(count, begin + range));
        });
    }

private:
    // One forEach(); workers that wake after it is done find no piece left.
    // Each has its own, so a late worker never takes a piece of the next
    // (and never calls its task, which may be gone: no piece is left).
    struct Job {
        const std::function<void(std::size_t)>* task = nullptr;
        std::size_t pieces = 0;
        std::atomic<std::size_t> next{0};
        std::atomic<std::size_t> remaining{0};
        std::mutex mutex;
        std::condition_variable done;
    };

    static void work(Job& job) {
        for (std::size_t i = job.next++; i < job.pieces; i = job.next++) {
            (*job.task)(i);
            if (job.remaining.fetch_sub(1) == 1) {
                std::lock_guard<std::mutex> lock(job.mutex);
                job.done.notify_all();
            }
        }
    }

    // Spins for up to kCopySpin until done() holds; whether it did.
    template <class Done>
    static bool spinUntil(Done&& done) {
        const auto until = std::chrono::steady_clock::now() + kCopySpin;
        for (int i = 0;; ++i) {
            if (done()) return true;
            spinPause();
            if (i % 64 == 63 && std::chrono::steady_clock::now() > until) return done();
        }
    }

    void startWorkers(int count) {
        while (int(workers_.size()) < count) workers_.emplace_back([this] { run(); });
    }

    void run() {
        std::uint64_t seen = 0;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            seen = generation_;
        }
        for (;;) {
            std::shared_ptr<Job> job;
            // The next job of a transfer usually comes while we spin.
            spinUntil([&] { return stopping_.load() || generation_.load() != seen; });
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
                if (stopping_) return;
                seen = generation_;
                job = job_;
            }
            work(*job);
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    std::shared_ptr<Job> job_;
    // Written under mutex_ (the condition variable's protocol), read by
    // spinning workers without it.
    std::atomic<std::uint64_t> generation_{0};
    std::atomic<bool> stopping_{false};
    std::vector<std::thread> workers_;
};

}  // namespace glccl

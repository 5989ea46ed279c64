// TileFlow: the tiles of both passes on host threads, in order, band by
// band behind the calling thread; and the buffers they keep from tile to
// tile.
//
//   calling thread:   merge / write band 0 | band 1 | band 2 ...
//   host threads:     tiles of bands 0, 1 | 2 | 3 ...   (allowBands)
//   pool workers:     label whichever tile a host thread hands them
//
// A host thread takes tiles in raster order, so the bands finish in order
// and the calling thread never waits for a tile that no thread has taken.

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "pipeline_state.hpp"

namespace glccl::detail {

LabelBuffer::~LabelBuffer() {
    if (data_ != nullptr) ::munmap(data_, bytes_);
}

void LabelBuffer::reserve(std::size_t bytes) {
    if (bytes <= bytes_) return;
    if (data_ != nullptr) ::munmap(data_, bytes_);
    data_ = nullptr;
    bytes_ = 0;
    void* data = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (data == MAP_FAILED)
        throw Error("glccl::labelTiled(): cannot allocate " + std::to_string(bytes) + " bytes for labels: " +
                    std::strerror(errno));
    data_ = data;
    bytes_ = bytes;
}

TileFlow::TileFlow(std::size_t count, std::uint32_t perBand, unsigned threads,
                   std::function<void(TileBuffers&, std::size_t)> tile)
    : count_(count), perBand_(perBand), tile_(std::move(tile)),
      buffers_(std::max<std::size_t>(1, std::min<std::size_t>(count, threads))),
      doneInBand_(perBand == 0 ? 0 : (count + perBand - 1) / perBand, 0) {
    threads_.reserve(buffers_.size());
    for (unsigned t = 0; t < buffers_.size(); ++t) threads_.emplace_back(&TileFlow::serve, this, t);
}

TileFlow::~TileFlow() {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    allowed_.notify_all();
    for (std::thread& thread : threads_) thread.join();
}

void TileFlow::allowBands(std::uint32_t end) {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        allowedEnd_ = std::max(allowedEnd_, std::min(count_, std::size_t(end) * perBand_));
    }
    allowed_.notify_all();
}

void TileFlow::waitForBand(std::uint32_t band) {
    std::unique_lock<std::mutex> lock(mutex_);
    const std::uint32_t inBand = std::uint32_t(std::min<std::size_t>(perBand_, count_ - std::size_t(band) * perBand_));
    finished_.wait(lock, [&] { return error_ != nullptr || doneInBand_[band] == inBand; });
    if (error_) std::rethrow_exception(error_);
}

void TileFlow::serve(unsigned thread) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        allowed_.wait(lock, [&] { return stopping_ || error_ != nullptr || next_ >= count_ || next_ < allowedEnd_; });
        if (stopping_ || error_ != nullptr || next_ >= count_) return;
        const std::size_t i = next_++;
        lock.unlock();
        std::exception_ptr failure;
        try {
            tile_(buffers_[thread], i);
        } catch (...) {
            failure = std::current_exception();
        }
        lock.lock();
        if (failure && !error_) error_ = failure;
        ++doneInBand_[i / perBand_];
        finished_.notify_all();
        if (error_) allowed_.notify_all();
    }
}

}  // namespace glccl::detail

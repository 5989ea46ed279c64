#pragma once
// CUDA objects that own themselves (docs/design.md, The CUDA path): device
// buffers, page-locked host buffers, a stream and events are released in
// their destructors; moved-from and default-constructed wrappers hold
// nothing. Destructors ignore errors: they may run while an exception from
// a failed call is already on its way, and a sticky error would only repeat
// it.

#include <cstddef>
#include <utility>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"

namespace glccl::cuda {

// `count` elements of T in device memory, uninitialised.
template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(std::size_t count, const CudaCheck& check) {
        if (count == 0) return;
        void* memory = nullptr;
        check(cudaMalloc(&memory, count * sizeof(T)), "cudaMalloc");
        data_ = static_cast<T*>(memory);
        count_ = count;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            count_ = std::exchange(other.count_, 0);
        }
        return *this;
    }
    ~DeviceBuffer() { release(); }

    T* get() const { return data_; }
    std::size_t count() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

private:
    void release() {
        if (data_ != nullptr) cudaFree(data_);
        data_ = nullptr;
        count_ = 0;
    }

    T* data_ = nullptr;
    std::size_t count_ = 0;
};

// `count` elements of T in device memory for work queued on one stream,
// uninitialised: taken from the device's memory pool in stream order
// (cudaMallocAsync) and given back in stream order when destroyed, so that
// neither waits for the device. On a device without memory pools: cudaMalloc
// and cudaFree. For the scratch of a call on the caller's stream, where a
// cudaFree would wait for every stream of the device, the caller's included.
template <typename T>
class StreamBuffer {
public:
    StreamBuffer() = default;
    // Null when the device has not `count` elements free (the error cleared),
    // for callers that say what was too large; other failures throw.
    static StreamBuffer unlessOutOfMemory(std::size_t count, cudaStream_t stream, const CudaCheck& check) {
        StreamBuffer buffer;
        buffer.stream_ = stream;
        if (count == 0) return buffer;
        if (count > ~std::size_t(0) / sizeof(T)) return buffer;
        // Past the device's whole memory: not even tried, as a driver may
        // answer such sizes with another error than out of memory.
        if (count * sizeof(T) >= (std::size_t(1) << 30)) {
            std::size_t freeBytes = 0, totalBytes = 0;
            check(cudaMemGetInfo(&freeBytes, &totalBytes), "cudaMemGetInfo");
            if (count * sizeof(T) > totalBytes) return buffer;
        }
        int device = 0, pools = 0;
        check(cudaGetDevice(&device), "cudaGetDevice");
        check(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device), "cudaDeviceGetAttribute");
        buffer.pooled_ = pools != 0;
        void* memory = nullptr;
        const cudaError_t status = buffer.pooled_ ? cudaMallocAsync(&memory, count * sizeof(T), stream)
                                                  : cudaMalloc(&memory, count * sizeof(T));
        if (status == cudaErrorMemoryAllocation) {
            cudaGetLastError();
            return buffer;
        }
        check(status, buffer.pooled_ ? "cudaMallocAsync" : "cudaMalloc");
        buffer.data_ = static_cast<T*>(memory);
        buffer.count_ = count;
        return buffer;
    }
    StreamBuffer(const StreamBuffer&) = delete;
    StreamBuffer& operator=(const StreamBuffer&) = delete;
    StreamBuffer(StreamBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)),
          stream_(other.stream_), pooled_(other.pooled_) {}
    StreamBuffer& operator=(StreamBuffer&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            count_ = std::exchange(other.count_, 0);
            stream_ = other.stream_;
            pooled_ = other.pooled_;
        }
        return *this;
    }
    ~StreamBuffer() { release(); }

    T* get() const { return data_; }
    std::size_t count() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

private:
    void release() {
        if (data_ != nullptr) {
            if (pooled_) {
                cudaFreeAsync(data_, stream_);
            } else {
                cudaFree(data_);
            }
        }
        data_ = nullptr;
        count_ = 0;
    }

    T* data_ = nullptr;
    std::size_t count_ = 0;
    cudaStream_t stream_ = nullptr;
    bool pooled_ = false;
};

// `count` elements of T in page-locked host memory (cudaMallocHost),
// uninitialised. Copies between it and the device run at the bus's speed and
// truly asynchronously; pageable memory goes through the driver's own
// staging and blocks the calling thread.
template <typename T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    PinnedBuffer(std::size_t count, const CudaCheck& check) {
        if (count == 0) return;
        void* memory = nullptr;
        check(cudaMallocHost(&memory, count * sizeof(T)), "cudaMallocHost");
        data_ = static_cast<T*>(memory);
        count_ = count;
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    PinnedBuffer(PinnedBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            count_ = std::exchange(other.count_, 0);
        }
        return *this;
    }
    ~PinnedBuffer() { release(); }

    T* get() const { return data_; }
    std::size_t count() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

private:
    void release() {
        if (data_ != nullptr) cudaFreeHost(data_);
        data_ = nullptr;
        count_ = 0;
    }

    T* data_ = nullptr;
    std::size_t count_ = 0;
};

// A non-blocking stream: the pipeline's work does not serialise with other
// users of the legacy default stream in the host application.
class Stream {
public:
    Stream() = default;
    explicit Stream(const CudaCheck& check) {
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
    Stream& operator=(Stream&& other) noexcept {
        if (this != &other) {
            release();
            stream_ = std::exchange(other.stream_, nullptr);
        }
        return *this;
    }
    ~Stream() { release(); }
    cudaStream_t get() const { return stream_; }

private:
    void release() {
        if (stream_ != nullptr) cudaStreamDestroy(stream_);
        stream_ = nullptr;
    }

    cudaStream_t stream_ = nullptr;
};

// flags: cudaEventDefault for timing, cudaEventDisableTiming for events that
// only order or wait (cheaper to record and to wait on).
class Event {
public:
    Event() = default;
    Event(const CudaCheck& check, unsigned flags) {
        check(cudaEventCreateWithFlags(&event_, flags), "cudaEventCreateWithFlags");
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
    Event& operator=(Event&& other) noexcept {
        if (this != &other) {
            release();
            event_ = std::exchange(other.event_, nullptr);
        }
        return *this;
    }
    ~Event() { release(); }
    cudaEvent_t get() const { return event_; }

private:
    void release() {
        if (event_ != nullptr) cudaEventDestroy(event_);
        event_ = nullptr;
    }

    cudaEvent_t event_ = nullptr;
};

}  // namespace glccl::cuda

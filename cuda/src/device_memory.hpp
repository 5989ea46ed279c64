#pragma once
// CUDA objects that own themselves (STYLE.md): device buffers, a stream and
// events are released in their destructors; moved-from wrappers hold nothing.
// Destructors ignore errors: they may run while an exception from a failed
// call is already on its way, and a sticky error would only repeat it.

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
    DeviceBuffer(std::size_t count, const CudaCheck& check) : count_(count) {
        if (count == 0) return;
        void* memory = nullptr;
        check(cudaMalloc(&memory, count * sizeof(T)), "cudaMalloc");
        data_ = static_cast<T*>(memory);
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

// A non-blocking stream: the pipeline's work does not serialise with other
// users of the legacy default stream in the host application.
class Stream {
public:
    explicit Stream(const CudaCheck& check) {
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream() {
        if (stream_ != nullptr) cudaStreamDestroy(stream_);
    }
    cudaStream_t get() const { return stream_; }

private:
    cudaStream_t stream_ = nullptr;
};

class Event {
public:
    explicit Event(const CudaCheck& check) { check(cudaEventCreate(&event_), "cudaEventCreate"); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
    Event& operator=(Event&&) = delete;
    ~Event() {
        if (event_ != nullptr) cudaEventDestroy(event_);
    }
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

}  // namespace glccl::cuda

#pragma once
// One path for CUDA errors: every runtime call and every kernel launch of the
// CUDA path goes through a CudaCheck, which turns a failure into
//   glccl::Error("glccl::cuda::labelImage(): cudaMalloc failed: out of memory (cudaErrorMemoryAllocation)")
// with the public entry that was called first, so the message says where.

#include <string>

#include <cuda_runtime_api.h>

namespace glccl::cuda {

class CudaCheck {
public:
    // entry: the public function, "glccl::cuda::labelImage" (no parentheses).
    // Kernels are followed by a stream synchronisation when the environment
    // variable GLCCL_CUDA_SYNC is 1, or always in builds without NDEBUG, so
    // that an asynchronous fault is reported by the kernel that caused it.
    explicit CudaCheck(std::string entry);

    // Throws glccl::Error when status is not cudaSuccess; call names the API
    // call ("cudaMalloc"), or what was done ("copy of the input texture").
    void operator()(cudaError_t status, const char* call) const;

    // After a launch: the launch error, then (debug option) the execution error.
    void launched(const char* kernel, cudaStream_t stream) const;

    // Throws glccl::Error("<entry>(): <what>") for invalid arguments.
    [[noreturn]] void fail(const std::string& what) const;

    const std::string& entry() const { return entry_; }
    bool syncEachKernel() const { return syncEachKernel_; }

private:
    std::string entry_;
    bool syncEachKernel_;
};

// "out of memory (cudaErrorMemoryAllocation)"
std::string describeCudaError(cudaError_t status);

}  // namespace glccl::cuda

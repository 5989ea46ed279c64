#pragma once
// One path for CUDA errors: every runtime call and every kernel launch of the
// CUDA path goes through a CudaCheck, which turns a failure into
//   glccl::Error("glccl::cuda::labelImage(): cudaMalloc failed: out of memory (cudaErrorMemoryAllocation)")
// with the public entry that was called first, so the message says where.
// A CudaCheck costs nothing on success: no string is built unless a call
// failed, so it can sit on the per-frame path.

#include <string>

#include <cuda_runtime_api.h>

namespace glccl::cuda {

class CudaCheck {
public:
    // entry: the public function as a string literal, "glccl::cuda::labelImage"
    // (no parentheses); it must outlive the check. Kernels are followed by a
    // stream synchronisation when syncEachKernel() (cuda_labeler.hpp; its
    // default: GLCCL_CUDA_SYNC=1 in the environment), or always in builds
    // without NDEBUG, so that an asynchronous fault is reported by the
    // kernel that caused it.
    explicit CudaCheck(const char* entry);

    // Throws glccl::Error when status is not cudaSuccess; call names the API
    // call ("cudaMalloc"), or what was done ("copy of the input texture").
    void operator()(cudaError_t status, const char* call) const;

    // After a launch: the launch error, then (debug option) the execution error.
    void launched(const char* kernel, cudaStream_t stream) const;

    // Throws glccl::Error("<entry>(): <what>") for invalid arguments.
    [[noreturn]] void fail(const std::string& what) const;

    const char* entry() const { return entry_; }
    bool syncEachKernel() const { return syncEachKernel_; }

private:
    [[noreturn]] void raise(cudaError_t status, const std::string& call) const;

    const char* entry_;
    bool syncEachKernel_;
};

// "out of memory (cudaErrorMemoryAllocation)"
std::string describeCudaError(cudaError_t status);

}  // namespace glccl::cuda

#include "cuda_check.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "glccl/cuda_labeler.hpp"
#include "glccl/error.hpp"

namespace glccl::cuda {
namespace {

std::atomic<bool>& syncSetting() {
    static std::atomic<bool> sync = [] {
        const char* value = std::getenv("GLCCL_CUDA_SYNC");
        return value != nullptr && std::strcmp(value, "1") == 0;
    }();
    return sync;
}

// Builds without NDEBUG always synchronise; release builds where asked
// (setSyncEachKernel, whose default is the GLCCL_CUDA_SYNC debug switch).
bool syncRequested() {
#ifndef NDEBUG
    return true;
#else
    return syncEachKernel();
#endif
}

}  // namespace

void setSyncEachKernel(bool sync) { syncSetting().store(sync); }

bool syncEachKernel() { return syncSetting().load(); }

std::string describeCudaError(cudaError_t status) {
    return std::string(cudaGetErrorString(status)) + " (" + cudaGetErrorName(status) + ")";
}

CudaCheck::CudaCheck(const char* entry) : entry_(entry), syncEachKernel_(syncRequested()) {}

void CudaCheck::operator()(cudaError_t status, const char* call) const {
    if (status != cudaSuccess) raise(status, call);
}

void CudaCheck::launched(const char* kernel, cudaStream_t stream) const {
    const cudaError_t launch = cudaGetLastError();
    if (launch != cudaSuccess) raise(launch, std::string(kernel) + " launch");
    if (syncEachKernel_) {
        const cudaError_t run = cudaStreamSynchronize(stream);
        if (run != cudaSuccess) raise(run, std::string(kernel) + " (synchronised after launch)");
    }
}

void CudaCheck::raise(cudaError_t status, const std::string& call) const {
    // Clear a non-sticky error so that it does not resurface in a later,
    // unrelated check; sticky errors (a kernel fault) stay whatever we do.
    cudaGetLastError();
    throw Error(std::string(entry_) + "(): " + call + " failed: " + describeCudaError(status));
}

void CudaCheck::fail(const std::string& what) const { throw Error(std::string(entry_) + "(): " + what); }

}  // namespace glccl::cuda

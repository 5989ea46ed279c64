#include "cuda_check.hpp"

#include "glccl/error.hpp"
#include "glccl/tuning.hpp"

namespace glccl::cuda {
namespace {

// Builds without NDEBUG always synchronise; release builds where the
// process's Tuning asks for it (Tuning::cudaSyncEachKernel, whose default is
// the GLCCL_CUDA_SYNC debug switch).
bool syncRequested() {
#ifndef NDEBUG
    return true;
#else
    return tuning().cudaSyncEachKernel;
#endif
}

}  // namespace

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

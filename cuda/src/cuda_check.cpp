#include "cuda_check.hpp"

#include <cstdlib>
#include <cstring>
#include <utility>

#include "glccl/error.hpp"

namespace glccl::cuda {
namespace {

bool syncRequested() {
#ifndef NDEBUG
    return true;
#else
    const char* value = std::getenv("GLCCL_CUDA_SYNC");
    return value != nullptr && std::strcmp(value, "1") == 0;
#endif
}

}  // namespace

std::string describeCudaError(cudaError_t status) {
    return std::string(cudaGetErrorString(status)) + " (" + cudaGetErrorName(status) + ")";
}

CudaCheck::CudaCheck(std::string entry) : entry_(std::move(entry)), syncEachKernel_(syncRequested()) {}

void CudaCheck::operator()(cudaError_t status, const char* call) const {
    if (status == cudaSuccess) return;
    // Clear a non-sticky error so that it does not resurface in a later,
    // unrelated check; sticky errors (a kernel fault) stay whatever we do.
    cudaGetLastError();
    throw Error(entry_ + "(): " + call + " failed: " + describeCudaError(status));
}

void CudaCheck::launched(const char* kernel, cudaStream_t stream) const {
    const std::string launch = std::string(kernel) + " launch";
    (*this)(cudaGetLastError(), launch.c_str());
    if (syncEachKernel_) {
        const std::string run = std::string(kernel) + " (synchronised after launch)";
        (*this)(cudaStreamSynchronize(stream), run.c_str());
    }
}

void CudaCheck::fail(const std::string& what) const { throw Error(entry_ + "(): " + what); }

}  // namespace glccl::cuda

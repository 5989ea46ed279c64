// Whether the CUDA path can run here, and on what. The labeling entries are
// texture_labeler.cpp (GL textures) and image_labeler.cpp (host and device
// memory); pipeline.cpp does the rest.

#include "glccl/cuda_labeler.hpp"

#include <string>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"
#include "passes.hpp"

#ifndef GLCCL_CUDA_ARCHITECTURES
#define GLCCL_CUDA_ARCHITECTURES "unknown"
#endif

namespace glccl::cuda {
namespace {

std::string runtimeVersion() {
    int version = 0;
    cudaRuntimeGetVersion(&version);
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// Why cudaGetDeviceCount failed, for a person reading a test log.
std::string unavailableReason(cudaError_t status) {
    switch (status) {
        case cudaErrorNoDevice: return "no CUDA device: the driver reports none (" + describeCudaError(status) + ")";
        case cudaErrorInsufficientDriver:
            return "no usable CUDA driver: libcuda.so.1 is missing or older than this CUDA " + runtimeVersion() +
                   " runtime (" + describeCudaError(status) + ")";
        default: return "CUDA unavailable: cudaGetDeviceCount() failed: " + describeCudaError(status);
    }
}

}  // namespace

bool available(std::string* why) {
    auto unavailable = [&](const std::string& reason) {
        if (why != nullptr) *why = reason;
        return false;
    };
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError();  // not an error of whatever the caller does next
        return unavailable(unavailableReason(status));
    }
    if (count == 0) return unavailable("no CUDA device: cudaGetDeviceCount() found 0 devices");

    // A device without machine code or PTX for it fails at the first launch;
    // say so now, with the architectures this build has.
    const cudaError_t probe = probeKernelImage();
    if (probe != cudaSuccess) {
        cudaGetLastError();
        cudaDeviceProp properties{};
        cudaGetDeviceProperties(&properties, 0);
        return unavailable("CUDA device 0 (" + std::string(properties.name) + ", compute capability " +
                           std::to_string(properties.major) + "." + std::to_string(properties.minor) +
                           ") cannot run glccl's kernels, built for CMAKE_CUDA_ARCHITECTURES=" +
                           GLCCL_CUDA_ARCHITECTURES + ": " + describeCudaError(probe));
    }
    if (why != nullptr) why->clear();
    return true;
}

bool kernelsOptimized() {
#if defined(GLCCL_CUDA_KERNELS_UNOPTIMIZED)
    return false;
#else
    return true;
#endif
}

std::string deviceName() {
    const CudaCheck check("glccl::cuda::deviceName");
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    cudaDeviceProp properties{};
    check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    return properties.name;
}

}  // namespace glccl::cuda

// Public entries of the CUDA path: where the pixels come from and go to
// (host memory, GL textures through interop); pipeline.cpp does the rest.

#include "glccl/cuda_labeler.hpp"

#include <string>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"
#include "graphics_resource.hpp"
#include "passes.hpp"
#include "pipeline.hpp"

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

std::string deviceName() {
    const CudaCheck check("glccl::cuda::deviceName");
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    cudaDeviceProp properties{};
    check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    return properties.name;
}

Labeling labelImage(const Image& image, Connectivity connectivity, Criterion criterion, StageTimings* timings) {
    const CudaCheck check("glccl::cuda::labelImage");
    const std::size_t expectedBytes = std::size_t(image.width > 0 ? image.width : 0) *
                                      std::size_t(image.height > 0 ? image.height : 0) *
                                      std::size_t(image.channels > 0 ? image.channels : 0);
    if (image.pixels.size() != expectedBytes) {
        check.fail("the image is " + std::to_string(image.width) + "x" + std::to_string(image.height) + "x" +
                   std::to_string(image.channels) + " but holds " + std::to_string(image.pixels.size()) + " bytes");
    }
    LabelPipeline pipeline(check, image.width, image.height, image.channels, connectivity, criterion);
    check(cudaMemcpyAsync(pipeline.d_input(), image.pixels.data(), image.pixels.size(), cudaMemcpyHostToDevice,
                          pipeline.stream()),
          "cudaMemcpyAsync (image upload)");

    Labeling labeling;
    labeling.width = image.width;
    labeling.height = image.height;
    labeling.components = pipeline.run(timings);
    labeling.labels = pipeline.downloadLabels();
    return labeling;
}

std::vector<Component> labelGlTexture(unsigned inputTexture, unsigned labelTexture, int width, int height,
                                      int channels, Connectivity connectivity, Criterion criterion,
                                      StageTimings* timings) {
    const CudaCheck check("glccl::cuda::labelGlTexture");
    // Destroyed in reverse order: unmap, then unregister, then free memory.
    LabelPipeline pipeline(check, width, height, channels, connectivity, criterion);
    const GraphicsResource input(inputTexture, cudaGraphicsRegisterFlagsReadOnly, "inputTexture", check);
    const GraphicsResource output(labelTexture, cudaGraphicsRegisterFlagsWriteDiscard, "labelTexture", check);
    const MappedTextures mapped({&input, &output}, pipeline.stream(), check);
    const cudaArray_t inputArray = mapped.array(0, width, height, channels, 8);
    const cudaArray_t labelArray = mapped.array(1, width, height, 1, 32);

    const std::size_t inputRow = std::size_t(width) * std::size_t(channels);
    check(cudaMemcpy2DFromArrayAsync(pipeline.d_input(), inputRow, inputArray, 0, 0, inputRow, std::size_t(height),
                                     cudaMemcpyDeviceToDevice, pipeline.stream()),
          "cudaMemcpy2DFromArrayAsync (inputTexture)");
    std::vector<Component> table = pipeline.run(timings);
    const std::size_t labelRow = std::size_t(width) * sizeof(std::uint32_t);
    check(cudaMemcpy2DToArrayAsync(labelArray, 0, 0, pipeline.d_labels(), labelRow, labelRow, std::size_t(height),
                                   cudaMemcpyDeviceToDevice, pipeline.stream()),
          "cudaMemcpy2DToArrayAsync (labelTexture)");
    return table;
}

}  // namespace glccl::cuda

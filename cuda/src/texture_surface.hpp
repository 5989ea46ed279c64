#pragma once
// copy_labels of the cuda engine on GL textures: the pipeline's labels into
// the label texture's mapped array, through a surface object.

#include <cstdint>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"

namespace glccl::cuda {

// A surface object on a mapped 2-D array (its texture registered with
// cudaGraphicsRegisterFlagsSurfaceLoadStore), for the launches of `stream`:
// destroyed once the stream has done them.
class ArraySurface {
public:
    ArraySurface(const CudaCheck& check, cudaArray_t array, cudaStream_t stream);
    ~ArraySurface();
    ArraySurface(const ArraySurface&) = delete;
    ArraySurface& operator=(const ArraySurface&) = delete;

    // Queues the copy of width x height labels (row-major) into the array,
    // whose texels are 32-bit.
    void write(const CudaCheck& check, const std::uint32_t* d_labels, int width, int height) const;

private:
    cudaSurfaceObject_t surface_ = 0;
    cudaStream_t stream_;
};

}  // namespace glccl::cuda

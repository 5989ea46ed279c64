#pragma once
// CUDA-GL interop objects that own themselves: a registered GL texture, and
// a scope in which registered textures are mapped for CUDA. Need the GL
// context that owns the textures current on the calling thread, from
// registration to unregistration.

#include <cstddef>
#include <initializer_list>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"

namespace glccl::cuda {

// cudaGraphicsGLRegisterImage on a GL_TEXTURE_2D; unregistered on destruction.
// The texture itself stays the caller's: it is never deleted here.
class GraphicsResource {
public:
    // flags: cudaGraphicsRegisterFlagsReadOnly / ...WriteDiscard; what names
    // the texture in error messages ("inputTexture").
    GraphicsResource(unsigned texture, unsigned flags, const char* what, const CudaCheck& check);
    GraphicsResource(const GraphicsResource&) = delete;
    GraphicsResource& operator=(const GraphicsResource&) = delete;
    ~GraphicsResource();
    cudaGraphicsResource_t get() const { return resource_; }
    const char* what() const { return what_; }

private:
    cudaGraphicsResource_t resource_ = nullptr;
    const char* what_;
};

// Maps resources on a stream for the lifetime of the object. Unmapping on the
// same stream orders GL's later use of the textures after the CUDA work
// queued before it, so nobody needs to wait here.
class MappedTextures {
public:
    MappedTextures(std::initializer_list<const GraphicsResource*> resources, cudaStream_t stream,
                   const CudaCheck& check);
    MappedTextures(const MappedTextures&) = delete;
    MappedTextures& operator=(const MappedTextures&) = delete;
    ~MappedTextures();

    // Level 0 of the i-th texture, after checking that it is width x height
    // with `channels` unsigned channels of `bits` bits each; throws
    // glccl::Error naming the texture and what it holds otherwise.
    cudaArray_t array(std::size_t i, int width, int height, int channels, int bits) const;

private:
    std::vector<cudaGraphicsResource_t> resources_;
    std::vector<const char*> names_;
    cudaStream_t stream_;
    const CudaCheck& check_;
};

}  // namespace glccl::cuda

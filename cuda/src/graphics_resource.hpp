#pragma once
// CUDA-GL interop objects that own themselves: a GL texture registered with
// CUDA (kept from call to call, with what it was registered as), and a scope
// in which registered textures are mapped for CUDA. Need the GL context that
// owns the textures current on the calling thread, from registration to
// unregistration.

#include <cstddef>
#include <string>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"

namespace glccl::cuda {

// What a registration was made for: the GL name and what the caller said the
// texture is. A texture that changed any of them needs a new registration.
struct TextureKey {
    unsigned texture = 0;
    int width = 0;
    int height = 0;
    unsigned format = 0;  // GL internal format
    bool operator==(const TextureKey& other) const {
        return texture == other.texture && width == other.width && height == other.height && format == other.format;
    }
    bool operator!=(const TextureKey& other) const { return !(*this == other); }
};

// cudaGraphicsGLRegisterImage on a GL_TEXTURE_2D, kept until reset() or
// destruction (then unregistered). The texture itself stays the caller's: it
// is never deleted here.
class GraphicsResource {
public:
    // what: names the texture in error messages ("inputTexture"); flags:
    // cudaGraphicsRegisterFlagsReadOnly / ...WriteDiscard.
    GraphicsResource(const char* what, unsigned flags) : what_(what), flags_(flags) {}
    GraphicsResource(const GraphicsResource&) = delete;
    GraphicsResource& operator=(const GraphicsResource&) = delete;
    ~GraphicsResource() { reset(); }

    // Registers key.texture unless it is registered under `key` already
    // (then nothing happens). Returns true when it registered now.
    bool ensure(const TextureKey& key, const CudaCheck& check);
    void reset();

    bool holds(unsigned texture) const { return resource_ != nullptr && key_.texture == texture; }
    cudaGraphicsResource_t get() const { return resource_; }
    const TextureKey& key() const { return key_; }
    const char* what() const { return what_; }

private:
    cudaGraphicsResource_t resource_ = nullptr;
    TextureKey key_;
    const char* what_;
    unsigned flags_;
};

// Maps up to kMost registered textures on a stream until unmap() or
// destruction. Unmapping on the same stream orders GL's later use of the
// textures after the CUDA work queued before it, so nobody needs to wait.
class MappedTextures {
public:
    static constexpr int kMost = 2;

    MappedTextures() = default;
    MappedTextures(const MappedTextures&) = delete;
    MappedTextures& operator=(const MappedTextures&) = delete;
    ~MappedTextures() { unmap(); }

    // Maps the textures of `resources` (count <= kMost); returns the status
    // instead of throwing, so that the caller can retry with new
    // registrations. Nothing is mapped after a failure.
    cudaError_t map(const GraphicsResource* const* resources, int count, cudaStream_t stream);
    void unmap();

    // Level 0 of the i-th mapped texture, or null when CUDA cannot give it.
    cudaArray_t array(int i) const;

private:
    cudaGraphicsResource_t resources_[kMost] = {};
    int count_ = 0;
    cudaStream_t stream_ = nullptr;
};

// Empty when `array` is width x height with `channels` unsigned channels of
// `bits` bits each (8- and 16-bit normalized count as unsigned: the same
// bytes); otherwise what it is instead, for an error message about
// resource.what() that names the expected format (`formatName`).
std::string describeMismatch(cudaArray_t array, const GraphicsResource& resource, int width, int height,
                             int channels, int bits, const char* formatName);

}  // namespace glccl::cuda

#include "graphics_resource.hpp"

// cuda_gl_interop.h uses GL's types and expects them declared first.
#include <GL/gl.h>
#include <cuda_gl_interop.h>

namespace glccl::cuda {

bool GraphicsResource::ensure(const TextureKey& key, const CudaCheck& check) {
    if (resource_ != nullptr && key_ == key) return false;
    reset();
    const cudaError_t status = cudaGraphicsGLRegisterImage(&resource_, key.texture, GL_TEXTURE_2D, flags_);
    if (status != cudaSuccess) {
        resource_ = nullptr;
        const std::string call = std::string("cudaGraphicsGLRegisterImage (") + what_ + " " +
                                 std::to_string(key.texture) + ")";
        check(status, call.c_str());
    }
    key_ = key;
    return true;
}

void GraphicsResource::reset() {
    if (resource_ != nullptr) cudaGraphicsUnregisterResource(resource_);
    resource_ = nullptr;
    key_ = {};
}

cudaError_t MappedTextures::map(const GraphicsResource* const* resources, int count, cudaStream_t stream) {
    unmap();
    for (int i = 0; i < count; ++i) resources_[i] = resources[i]->get();
    const cudaError_t status = cudaGraphicsMapResources(count, resources_, stream);
    if (status != cudaSuccess) {
        cudaGetLastError();  // the caller decides whether this is an error
        return status;
    }
    count_ = count;
    stream_ = stream;
    return cudaSuccess;
}

void MappedTextures::unmap() {
    if (count_ > 0) cudaGraphicsUnmapResources(count_, resources_, stream_);
    count_ = 0;
}

cudaArray_t MappedTextures::array(int i) const {
    cudaArray_t array = nullptr;
    if (i >= count_ || cudaGraphicsSubResourceGetMappedArray(&array, resources_[i], 0, 0) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    return array;
}

std::string describeMismatch(cudaArray_t array, const GraphicsResource& resource, int width, int height,
                             int channels, int bits, const char* formatName) {
    // Built only for a message: this runs on every frame.
    auto name = [&] { return std::string(resource.what()) + " " + std::to_string(resource.key().texture); };
    cudaChannelFormatDesc format{};
    cudaExtent extent{};
    unsigned flags = 0;
    if (array == nullptr) return name() + " has no level 0 image CUDA can map";
    const cudaError_t status = cudaArrayGetInfo(&format, &extent, &flags, array);
    if (status != cudaSuccess) {
        cudaGetLastError();
        return name() + ": cudaArrayGetInfo failed: " + describeCudaError(status);
    }

    const int formatBits[4] = {format.x, format.y, format.z, format.w};
    int formatChannels = 0;
    bool uniform = true;
    for (int b : formatBits) {
        if (b == 0) continue;
        ++formatChannels;
        uniform = uniform && b == bits;
    }
    // GL_R8, GL_RGBA8, GL_R16 and GL_RGBA16 may map as plain unsigned or as
    // unsigned normalized; both are the same bytes for a copy.
    const bool unsignedInt = format.f == cudaChannelFormatKindUnsigned ||
                             (bits == 8 && (format.f == cudaChannelFormatKindUnsignedNormalized8X1 ||
                                            format.f == cudaChannelFormatKindUnsignedNormalized8X2 ||
                                            format.f == cudaChannelFormatKindUnsignedNormalized8X4)) ||
                             (bits == 16 && (format.f == cudaChannelFormatKindUnsignedNormalized16X1 ||
                                             format.f == cudaChannelFormatKindUnsignedNormalized16X2 ||
                                             format.f == cudaChannelFormatKindUnsignedNormalized16X4));
    if (formatChannels != channels || !uniform || !unsignedInt) {
        return name() + " holds " + std::to_string(formatChannels) + " channel(s) of " + std::to_string(format.x) +
               " bits" + (unsignedInt ? "" : " (not unsigned)") + "; expected " + std::to_string(channels) +
               " unsigned channel(s) of " + std::to_string(bits) + " bits (" + formatName + ")";
    }
    if (extent.width != std::size_t(width) || extent.height != std::size_t(height)) {
        return name() + " is " + std::to_string(extent.width) + "x" + std::to_string(extent.height) +
               " but the image is " + std::to_string(width) + "x" + std::to_string(height);
    }
    return {};
}

}  // namespace glccl::cuda

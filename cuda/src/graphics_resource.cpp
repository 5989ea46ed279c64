#include "graphics_resource.hpp"

#include <string>

// cuda_gl_interop.h uses GL's types and expects them declared first.
#include <GL/gl.h>
#include <cuda_gl_interop.h>

namespace glccl::cuda {

GraphicsResource::GraphicsResource(unsigned texture, unsigned flags, const char* what, const CudaCheck& check)
    : what_(what) {
    if (texture == 0) check.fail(std::string(what) + " is 0; expected a GL texture name");
    const std::string call = std::string("cudaGraphicsGLRegisterImage (") + what + " " + std::to_string(texture) + ")";
    check(cudaGraphicsGLRegisterImage(&resource_, texture, GL_TEXTURE_2D, flags), call.c_str());
}

GraphicsResource::~GraphicsResource() {
    if (resource_ != nullptr) cudaGraphicsUnregisterResource(resource_);
}

MappedTextures::MappedTextures(std::initializer_list<const GraphicsResource*> resources, cudaStream_t stream,
                               const CudaCheck& check)
    : stream_(stream), check_(check) {
    for (const GraphicsResource* resource : resources) {
        resources_.push_back(resource->get());
        names_.push_back(resource->what());
    }
    check(cudaGraphicsMapResources(int(resources_.size()), resources_.data(), stream), "cudaGraphicsMapResources");
}

MappedTextures::~MappedTextures() { cudaGraphicsUnmapResources(int(resources_.size()), resources_.data(), stream_); }

cudaArray_t MappedTextures::array(std::size_t i, int width, int height, int channels, int bits) const {
    cudaArray_t array = nullptr;
    check_(cudaGraphicsSubResourceGetMappedArray(&array, resources_[i], 0, 0),
           "cudaGraphicsSubResourceGetMappedArray");
    cudaChannelFormatDesc format{};
    cudaExtent extent{};
    unsigned flags = 0;
    check_(cudaArrayGetInfo(&format, &extent, &flags, array), "cudaArrayGetInfo");

    const int formatBits[4] = {format.x, format.y, format.z, format.w};
    int formatChannels = 0;
    bool uniform = true;
    for (int b : formatBits) {
        if (b == 0) continue;
        ++formatChannels;
        uniform = uniform && b == bits;
    }
    // GL_R8 / GL_RGBA8 may map as plain unsigned or as unsigned normalized;
    // both are the same bytes for a copy.
    const bool unsignedInt = format.f == cudaChannelFormatKindUnsigned ||
                             (bits == 8 && (format.f == cudaChannelFormatKindUnsignedNormalized8X1 ||
                                            format.f == cudaChannelFormatKindUnsignedNormalized8X2 ||
                                            format.f == cudaChannelFormatKindUnsignedNormalized8X4));
    if (formatChannels != channels || !uniform || !unsignedInt) {
        check_.fail(std::string(names_[i]) + " holds " + std::to_string(formatChannels) + " channel(s) of " +
                    std::to_string(format.x) + " bits" + (unsignedInt ? "" : " (not unsigned)") + "; expected " +
                    std::to_string(channels) + " unsigned channel(s) of " + std::to_string(bits) + " bits (" +
                    (bits == 32 ? "GL_R32UI" : channels == 1 ? "GL_R8" : "GL_RGBA8") + ")");
    }
    if (extent.width != std::size_t(width) || extent.height != std::size_t(height)) {
        check_.fail(std::string(names_[i]) + " is " + std::to_string(extent.width) + "x" +
                    std::to_string(extent.height) + " but the image is " + std::to_string(width) + "x" +
                    std::to_string(height));
    }
    return array;
}

}  // namespace glccl::cuda

// The vocabulary of engine declarations; the router that reads them is
// engine/src/route.cpp.

#include "glccl/capabilities.hpp"

#include <GL/glcorearb.h>  // GL's numbers for texture formats only: the host library calls no GL

#include <algorithm>

namespace glccl {

namespace {

template <class T>
bool contains(const std::vector<T>& list, const T& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

const char* residenceName(Residence residence) {
    switch (residence) {
        case Residence::GlTexture: return "a GL texture";
        case Residence::HostMemory: return "host memory";
        case Residence::CudaDevice: return "CUDA device memory";
    }
    return "?";
}

const char* textureFormatName(unsigned format) {
    switch (format) {
        case GL_R8: return "GL_R8";
        case GL_RGBA8: return "GL_RGBA8";
        case GL_RGB8: return "GL_RGB8";
        case GL_R16: return "GL_R16";
        case GL_RGBA16: return "GL_RGBA16";
        case GL_R32F: return "GL_R32F";
        case GL_R8UI: return "GL_R8UI";
        case GL_R32UI: return "GL_R32UI";
        case GL_RG32UI: return "GL_RG32UI";
        default: return "an unsupported format";
    }
}

InputDescription InputDescription::texture(int width, int height, unsigned internalFormat) {
    InputDescription input;
    input.residence = Residence::GlTexture;
    input.shape = Shape::image(width, height);
    const bool color = internalFormat == GL_RGBA8 || internalFormat == GL_RGBA16;
    input.channels = color ? 4 : 1;
    input.sampleBits = internalFormat == GL_R16 || internalFormat == GL_RGBA16 ? 16
                       : internalFormat == GL_R32UI || internalFormat == GL_R32F ? 32
                       : internalFormat == GL_RG32UI                             ? 64
                                                                                   : 8;
    input.textureFormat = internalFormat;
    return input;
}

InputDescription InputDescription::volumeTexture(int width, int height, int depth, unsigned internalFormat) {
    InputDescription input = texture(width, height, internalFormat);
    input.shape = Shape::volume(width, height, depth);
    return input;
}

InputDescription InputDescription::host(const Shape& shape, int channels, int sampleBits) {
    InputDescription input;
    input.residence = Residence::HostMemory;
    input.shape = shape;
    input.channels = channels;
    input.sampleBits = sampleBits;
    return input;
}

InputDescription InputDescription::hostImage(int width, int height, int channels, int sampleBits) {
    return host(Shape::image(width, height), channels, sampleBits);
}

InputDescription InputDescription::cudaDevice(const Shape& shape, int channels, int sampleBits) {
    InputDescription input = host(shape, channels, sampleBits);
    input.residence = Residence::CudaDevice;
    return input;
}

InputDescription InputDescription::cudaDeviceImage(int width, int height, int channels, int sampleBits) {
    return cudaDevice(Shape::image(width, height), channels, sampleBits);
}

bool EngineCapabilities::takes(Residence residence) const { return contains(residences, residence); }
bool EngineCapabilities::takes(Connectivity connectivity) const { return contains(connectivities, connectivity); }
bool EngineCapabilities::takesSampleBits(int bits) const { return contains(sampleBits, bits); }
bool EngineCapabilities::takesColorSampleBits(int bits) const {
    return takesSampleBits(bits) && (colorSampleBits.empty() || contains(colorSampleBits, bits));
}
bool EngineCapabilities::takesDimensions(int count) const { return contains(dimensions, count); }

bool EngineCapabilities::reaches(Residence residence) const {
    return takes(residence) || (residence == Residence::HostMemory && hostUpload) ||
           (residence == Residence::GlTexture && textureDownload);
}

bool exceedsOneCall(const EngineCapabilities& capabilities, const Shape& shape) {
    if (shape.count() == 0) return false;  // any size: nothing to decide
    const bool volume = shape.dimensions == 3 && capabilities.largestVolumeExtent > 0;
    const std::int64_t largestExtent = volume ? capabilities.largestVolumeExtent : capabilities.largestExtent;
    for (int axis = 0; axis < shape.dimensions; ++axis)
        if (shape.extent(axis) > largestExtent) return true;
    return shape.count() > (volume ? capabilities.largestVolumeCount : capabilities.largestCount);
}

}  // namespace glccl

// The vocabulary of engine declarations; the router that reads them is
// core/src/route.cpp.

#include "glccl/capabilities.hpp"

#include <algorithm>
#include <cstring>

#include "gl_formats.hpp"
#include "small_helpers.hpp"

namespace glccl {

namespace {


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
        case GL_R16UI: return "GL_R16UI";
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
    input.sampleBits = internalFormat == GL_R16 || internalFormat == GL_R16UI || internalFormat == GL_RGBA16 ? 16
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


namespace {

template <typename Sample>
std::uint64_t runStarts(const std::uint8_t* row, std::int64_t from, std::int64_t to, int channels,
                        const Criterion& criterion) {
    const auto at = [&](std::int64_t x) {
        Sample value;
        std::memcpy(&value, row + std::size_t(x) * std::size_t(channels) * sizeof(Sample), sizeof(Sample));
        return std::uint64_t(value);
    };
    std::uint64_t starts = 0;
    switch (criterion.kind) {
        case Criterion::Kind::Binary: {
            const auto level = std::uint64_t(criterion.level);
            bool before = from > 0 && at(from - 1) > level;
            for (std::int64_t x = from; x < to; ++x) {
                const bool inside = at(x) > level;
                starts += std::uint64_t(inside && !before);
                before = inside;
            }
            break;
        }
        case Criterion::Kind::Segments:
        case Criterion::Kind::Delta: {
            const auto delta = std::uint64_t(criterion.kind == Criterion::Kind::Delta ? criterion.delta : 0);
            std::uint64_t before = from > 0 ? at(from - 1) : 0;
            for (std::int64_t x = from; x < to; ++x) {
                const std::uint64_t value = at(x);
                const std::uint64_t step = value > before ? value - before : before - value;
                starts += std::uint64_t(value != 0 && (before == 0 || step > delta));
                before = value;
            }
            break;
        }
        case Criterion::Kind::Threshold: {
            const auto threshold = std::uint64_t(criterion.threshold);
            std::uint64_t before = at(from > 0 ? from - 1 : 0);
            starts = from > 0 ? 0 : 1;
            for (std::int64_t x = from > 0 ? from : 1; x < to; ++x) {
                const std::uint64_t value = at(x);
                starts += std::uint64_t((value > before ? value - before : before - value) > threshold);
                before = value;
            }
            break;
        }
    }
    return starts;
}

}  // namespace

double sampleRunsPerElement(const ImageView& image, const Criterion& criterion) {
    const Shape shape = image.shape();
    const auto rows = std::int64_t(shape.height) * std::int64_t(shape.depth);
    if (image.pixels == nullptr || shape.width <= 0 || rows <= 0) return 0.0;
    const std::int64_t sampled = std::min<std::int64_t>(rows, kRunSampleRows);
    const std::int64_t window = std::min<std::int64_t>(shape.width, kRunSampleWidth);
    const std::size_t rowBytes = std::size_t(shape.width) * std::size_t(image.channels) * std::size_t(image.sampleBits / 8);
    std::uint64_t starts = 0;
    for (std::int64_t i = 0; i < sampled; ++i) {
        // Row i of `sampled` spread over all rows: the middle of its share;
        // on it a window spread over the width (eight places in turn).
        const std::int64_t row = (2 * i + 1) * rows / (2 * sampled);
        const std::int64_t from = (shape.width - window) * (2 * (i % 8) + 1) / 16;
        const std::uint8_t* pixels = image.pixels + std::size_t(row) * rowBytes;
        const int c = image.channels;
        switch (image.sampleBits) {
            case 8: starts += runStarts<std::uint8_t>(pixels, from, from + window, c, criterion); break;
            case 16: starts += runStarts<std::uint16_t>(pixels, from, from + window, c, criterion); break;
            case 32: starts += runStarts<std::uint32_t>(pixels, from, from + window, c, criterion); break;
            case 64: starts += runStarts<std::uint64_t>(pixels, from, from + window, c, criterion); break;
            default: return -1.0;
        }
    }
    return double(starts) / (double(sampled) * double(window));
}

}  // namespace glccl

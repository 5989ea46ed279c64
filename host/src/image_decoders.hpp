#pragma once
// The decoders behind glccl::readImage, one per format, and the limits they
// share. Every decoder either fills every sample of the Image it returns or
// throws glccl::Error with the reason: a file is never partly decoded.
// Claimed sizes are checked against the limits, the machine's memory and the
// bytes the file can hold before anything is allocated for the pixels.

#include <cstdint>
#include <string>

#include "byte_source.hpp"
#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "glccl/types.hpp"

// Image samples are little-endian bytes, and the decoders hand libraries'
// host-order samples straight to them.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "glccl's image I/O assumes a little-endian host");

namespace glccl::detail {

// One read: the API entry that messages start with, the bytes, the mode.
struct ReadContext {
    std::string where;  // "glccl::readImage(): "
    ByteSource& source;
    ChannelMode mode;

    // "glccl::readImage(): 'name': why"
    Error fail(const std::string& why) const { return Error(where + "'" + source.name() + "': " + why); }
};

Image decodePng(const ReadContext& context);
Image decodeJpeg(const ReadContext& context);
Image decodeTiff(const ReadContext& context);
Image decodePnm(const ReadContext& context);  // binary PGM/PPM, P5 and P6
Image decodeNpy(const ReadContext& context);

// "" when a width x height image is within kMaxImageDimension and
// kMaxImagePixels, else what is wrong ("is 40000x2 but ...").
std::string dimensionProblem(std::uint64_t width, std::uint64_t height);

// Throws unless width x height is within the limits and channels x depth
// samples of it fit in the machine's memory.
void checkClaimedSize(const ReadContext& context, const char* format, std::uint64_t width, std::uint64_t height,
                      int channels, int depth);

// Throws when `decodedBytes` of pixel data cannot come out of the `encodedBytes`
// the file holds for them, even at the coder's largest possible ratio: the
// header claims more than the data can be (a truncated or forged file, or a
// decompression bomb aimed at the allocation).
void checkExpansion(const ReadContext& context, const char* format, std::uint64_t decodedBytes,
                    std::uint64_t encodedBytes, std::uint64_t largestRatio, const char* coder);

// Luma of an RGB sample as OpenCV's IMREAD_GRAYSCALE computes it for TIFF and
// PPM files (and cvtColor(COLOR_RGB2GRAY) for 8- and 16-bit images): the
// BT.601 weights 0.299, 0.587, 0.114 in 14-bit fixed point, rounded.
inline std::uint32_t lumaOf(std::uint32_t red, std::uint32_t green, std::uint32_t blue) {
    return (red * 4899u + green * 9617u + blue * 1868u + 8192u) >> 14;
}

}  // namespace glccl::detail

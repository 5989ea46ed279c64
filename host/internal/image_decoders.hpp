#pragma once
// The decoders behind glccl::readImage, one per format, and the limits they
// share. Every decoder either fills every sample of the Image it returns or
// throws glccl::Error with the reason: a file is never partly decoded.
// Claimed sizes are checked against the limits, the machine's memory and the
// bytes the file can hold before anything is allocated for the pixels.

#include <cstdint>
#include <memory>
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
    NpyChannelAxis channelAxis = NpyChannelAxis::None;  // .npy only

    // "glccl::readImage(): 'name': why"
    Error fail(const std::string& why) const { return Error(where + "'" + source.name() + "': " + why); }
};

Image decodePng(const ReadContext& context);
Image decodeJpeg(const ReadContext& context);
Image decodeTiff(const ReadContext& context);
Image decodePnm(const ReadContext& context);  // binary PGM/PPM, P5 and P6
Image decodeNpy(const ReadContext& context);
// The full-resolution pages of a TIFF (glccl::countTiffSlices).
std::size_t countTiffSlices(const ReadContext& context);

// A TIFF or BigTIFF file, one strip or tile at a time (libtiff's
// TIFFReadEncodedStrip / TIFFReadEncodedTile), for tiled labeling of files
// past memory: the image, or every page of a stack (a volume, a page a
// slice), with the files, layouts and checks of decodeTiff and the same
// samples, but sides up to kMaxStreamedSide, a stack of up to
// kMaxStreamedLines rows in all (pages x height), the image never whole in
// memory, and each strip or tile at most kMaxStrileBytes decoded. The pages
// are found in one walk over the file's directories, which stops at the
// first page past those limits; a page is then reached by its offset. Throws
// glccl::Error ("WHERE'PATH': TIFF: why") for what decodeTiff refuses, and
// for strips or tiles too large to read one at a time. Not thread-safe: one
// reader per thread (each has its own file handle and libtiff state), made
// by another().
constexpr std::uint32_t kMaxStreamedSide = 0x7FFFFFFF;
constexpr std::uint64_t kMaxStreamedLines = 0xFFFFFFFF;
constexpr std::uint64_t kMaxStrileBytes = std::uint64_t(256) << 20;
class TiffStrileReader {
public:
    TiffStrileReader(const std::string& where, const std::string& path, ChannelMode mode);
    ~TiffStrileReader();
    TiffStrileReader(const TiffStrileReader&) = delete;
    TiffStrileReader& operator=(const TiffStrileReader&) = delete;

    // Another reader of the same file, for another thread, with the pages
    // this one found: the directories are not walked again.
    std::unique_ptr<TiffStrileReader> another() const;

    std::uint32_t width() const;  // of every page
    std::uint32_t height() const;
    std::uint32_t pages() const;  // full-resolution pages: 1 for an image, the slices of a stack
    int channels() const;  // of the Image, as decodeTiff gives it in the reader's mode
    int sampleBits() const;
    // Page `page`'s layout (pages of a stack may differ): a tile, or a
    // strip: the image width by the rows a strip holds (the last strip or a
    // tile on the edge may hold fewer inside the image).
    bool tiled(std::uint32_t page) const;
    std::uint32_t strileWidth(std::uint32_t page) const;
    std::uint32_t strileHeight(std::uint32_t page) const;
    // Decodes the strip or tile of page `page` whose top-left pixel is (x0,
    // y0), multiples of the page's strile sides: its pixels inside the
    // image, as an Image.
    void read(std::uint32_t page, std::uint32_t x0, std::uint32_t y0, Image& out);
    // "tiled BigTIFF (256x256 tiles, Deflate)", "striped TIFF stack of 64 pages (32 rows a strip, none)".
    std::string describe() const;

private:
    TiffStrileReader();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// "" when a width x height image is within kMaxImageDimension and
// kMaxImagePixels, else what is wrong ("is 40000x2 but ...").
std::string dimensionProblem(std::uint64_t width, std::uint64_t height);

// Throws unless width x height is within the limits and channels x sampleBits
// samples of it fit in the machine's memory.
void checkClaimedSize(const ReadContext& context, const char* format, std::uint64_t width, std::uint64_t height,
                      int channels, int sampleBits);

// "" when a width x height x depth volume is within kMaxImageDimension a
// side and kMaxImagePixels voxels, else what is wrong ("is ... but ...").
std::string volumeProblem(std::uint64_t width, std::uint64_t height, std::uint64_t depth);

// Throws unless the volume is within those limits and its samples fit in
// the machine's memory.
void checkClaimedVolumeSize(const ReadContext& context, const char* format, std::uint64_t width,
                            std::uint64_t height, std::uint64_t depth, int sampleBits);

// Throws when `decodedBytes` of pixel data cannot come out of the `encodedBytes`
// the file holds for them, even at the coder's largest possible ratio: the
// header claims more than the data can be (a truncated or forged file, or a
// decompression bomb aimed at the allocation).
void checkExpansion(const ReadContext& context, const char* format, std::uint64_t decodedBytes,
                    std::uint64_t encodedBytes, std::uint64_t largestRatio, const char* coder);

// Luma of an RGB sample as OpenCV's IMREAD_GRAYSCALE computes it for TIFF and
// PPM files: the BT.601 weights 0.299, 0.587, 0.114 in 14-bit fixed point,
// rounded. (cvtColor(COLOR_RGB2GRAY) is another formula: its 8-bit result
// differs for some colors.)
inline std::uint32_t lumaOf(std::uint32_t red, std::uint32_t green, std::uint32_t blue) {
    return (red * 4899u + green * 9617u + blue * 1868u + 8192u) >> 14;
}

}  // namespace glccl::detail

// PNG through libpng: every color type and bit depth, interlaced or not, at
// the file's own sampleBits (16-bit samples stay 16-bit). Color read as gray goes
// through libpng's png_set_rgb_to_gray with the weights 0.299 and 0.587,
// the very call OpenCV's IMREAD_GRAYSCALE makes, so the luma is OpenCV's.

#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

#include "image_decoders.hpp"

namespace glccl::detail {

namespace {

// zlib's deflate turns at most 1032 bytes into one (a 258-byte match in two
// one-bit codes), so the pixels of a PNG need at least 1/1032 of their size
// in IDAT bytes.
constexpr std::uint64_t kDeflateLargestRatio = 1032;
// Ancillary chunks (iCCP, sPLT, unknown chunks) are held in memory while
// read; none needs more, and libpng refuses a larger one.
constexpr png_alloc_size_t kChunkMemory = 8u << 20;

// State for libpng's callbacks. libpng leaves an error by longjmp, so the
// message is a plain buffer and the functions that setjmp hold no object
// with a destructor (C++ allows the jump only then).
struct PngState {
    ByteSource* source = nullptr;
    char message[256] = {};
};

[[noreturn]] void onPngError(png_structp png, png_const_charp message) {
    auto* state = static_cast<PngState*>(png_get_error_ptr(png));
    std::snprintf(state->message, sizeof state->message, "%s", message);
    png_longjmp(png, 1);
}

// Warnings concern ancillary data (a bad CRC on a text chunk, an unknown
// sRGB intent) that libpng then ignores; the pixels are not affected.
void onPngWarning(png_structp, png_const_charp) {}

void readPngBytes(png_structp png, png_bytep out, png_size_t size) {
    auto* state = static_cast<PngState*>(png_get_io_ptr(png));
    if (state->source->read(out, size) != size) png_error(png, "the file ends early (truncated)");
}

struct PngReadStruct {
    png_structp png = nullptr;
    png_infop info = nullptr;
    ~PngReadStruct() { png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr); }
};

struct PngHeader {
    png_uint_32 width = 0, height = 0;
    int bitDepth = 0, colorType = 0;
};

// Reads the chunks up to the first IDAT. False (the message in the state)
// when libpng refuses them.
bool readPngInfo(png_structp png, png_infop info, PngHeader* header) {
    if (setjmp(png_jmpbuf(png))) return false;
    png_read_info(png, info);
    int interlace = 0;
    png_get_IHDR(png, info, &header->width, &header->height, &header->bitDepth, &header->colorType, &interlace,
                 nullptr, nullptr);
    return true;
}

// Sets the transformations that give `channels` samples of `sampleBits` bits per
// pixel, then decodes every row into `rows` and reads the rest of the file
// up to IEND (a file cut after its pixels is refused too). Returns 0 on
// success, 1 on a libpng error (message in the state), 2 when libpng's row
// layout is not the one expected (nothing is decoded then).
int readPngPixels(png_structp png, png_infop info, const PngHeader* header, bool gray, int channels, int sampleBits,
                  png_bytep* rows, png_size_t rowBytes) {
    if (setjmp(png_jmpbuf(png))) return 1;
    const bool colorFile = (header->colorType & PNG_COLOR_MASK_COLOR) != 0;
    if (header->colorType == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (!colorFile && header->bitDepth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (gray || !colorFile) {
        // OpenCV's order: alpha stripped first, then RGB to gray.
        png_set_strip_alpha(png);
        if (colorFile) png_set_rgb_to_gray(png, PNG_ERROR_ACTION_NONE, 0.299, 0.587);
    } else if (png_get_valid(png, info, PNG_INFO_tRNS) != 0) {
        png_set_tRNS_to_alpha(png);  // a transparent color is alpha 0, as in any viewer
    } else if ((header->colorType & PNG_COLOR_MASK_ALPHA) == 0) {
        png_set_filler(png, 0xFFFF, PNG_FILLER_AFTER);  // opaque
    }
    if (sampleBits == 16) png_set_swap(png);  // PNG is big-endian; Image samples are little-endian
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_channels(png, info) != channels || png_get_bit_depth(png, info) != sampleBits ||
        png_get_rowbytes(png, info) != rowBytes)
        return 2;
    png_read_image(png, rows);
    png_read_end(png, nullptr);
    return 0;
}

std::uint32_t bigEndian32(const std::uint8_t* p) {
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | p[3];
}

int samplesPerPixel(int colorType) {
    switch (colorType) {
        case PNG_COLOR_TYPE_RGB: return 3;
        case PNG_COLOR_TYPE_GRAY_ALPHA: return 2;
        case PNG_COLOR_TYPE_RGB_ALPHA: return 4;
        default: return 1;  // gray, palette index
    }
}

}  // namespace

Image decodePng(const ReadContext& context) {
    ByteSource& source = context.source;
    // The size from IHDR (always the first chunk), checked before libpng
    // reads anything else, so that an oversized claim is refused at once
    // and with its size.
    std::uint8_t head[33];
    if (!source.seek(0) || source.read(head, sizeof head) != sizeof head)
        throw context.fail("PNG: truncated: the file ends inside its header (" + std::to_string(source.size()) +
                           " bytes)");
    if (std::memcmp(head + 12, "IHDR", 4) != 0) throw context.fail("PNG: corrupt: the first chunk is not IHDR");
    const std::uint64_t width = bigEndian32(head + 16), height = bigEndian32(head + 20);
    const int fileDepth = head[24], colorType = head[25];
    const std::string problem = dimensionProblem(width, height);
    if (!problem.empty()) throw context.fail("PNG: the image " + problem);
    if (fileDepth == 0 || fileDepth > 16 || (fileDepth & (fileDepth - 1)) != 0)
        throw context.fail("PNG: corrupt: bit depth " + std::to_string(fileDepth));
    const std::uint64_t fileRowBytes = (width * std::uint64_t(samplesPerPixel(colorType)) * fileDepth + 7) / 8;
    checkExpansion(context, "PNG", fileRowBytes * height, source.size(), kDeflateLargestRatio, "deflate");

    PngState state;
    state.source = &source;
    PngReadStruct read;
    read.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &state, onPngError, onPngWarning);
    if (read.png == nullptr) throw context.fail("PNG: libpng cannot start (out of memory)");
    read.info = png_create_info_struct(read.png);
    if (read.info == nullptr) throw context.fail("PNG: libpng cannot start (out of memory)");
    png_set_read_fn(read.png, &state, readPngBytes);
    png_set_user_limits(read.png, kMaxImageDimension, kMaxImageDimension);
    png_set_chunk_malloc_max(read.png, kChunkMemory);
    png_set_chunk_cache_max(read.png, 128);
    // Text and metadata chunks never change a pixel: they are skipped unread
    // (compressed text is not inflated).
    static const png_byte kIgnored[] = "tEXt\0zTXt\0iTXt\0eXIf\0tIME\0pHYs\0sPLT\0hIST";
    png_set_keep_unknown_chunks(read.png, PNG_HANDLE_CHUNK_NEVER, kIgnored, 8);
    source.seek(0);

    PngHeader header;
    if (!readPngInfo(read.png, read.info, &header)) throw context.fail(std::string("PNG: ") + state.message);
    if (header.width != width || header.height != height)
        throw context.fail("PNG: corrupt: libpng reads the size as " + std::to_string(header.width) + "x" +
                           std::to_string(header.height));

    const bool colorFile = (header.colorType & PNG_COLOR_MASK_COLOR) != 0;
    const bool gray = context.mode == ChannelMode::Gray;
    const int channels = (gray || !colorFile) ? 1 : 4;
    const int sampleBits = header.bitDepth == 16 ? 16 : 8;
    checkClaimedSize(context, "PNG", width, height, channels, sampleBits);

    Image image(int(width), int(height), channels, sampleBits);
    const std::size_t rowBytes = std::size_t(width) * std::size_t(channels) * std::size_t(sampleBits / 8);
    std::vector<png_bytep> rows(static_cast<std::size_t>(height));
    for (std::size_t y = 0; y < rows.size(); ++y) rows[y] = image.pixels.data() + y * rowBytes;
    switch (readPngPixels(read.png, read.info, &header, gray, channels, sampleBits, rows.data(), rowBytes)) {
        case 0: return image;
        case 1: throw context.fail(std::string("PNG: ") + state.message);
        default:
            throw context.fail("PNG: libpng's decoded layout is not " + std::to_string(channels) + " channels of " +
                               std::to_string(sampleBits) + " bits");
    }
}

}  // namespace glccl::detail

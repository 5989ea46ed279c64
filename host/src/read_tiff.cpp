// TIFF and BigTIFF through libtiff: the full-resolution image of the file,
// or its pages as the slices of a volume (a stack), striped or tiled (whole,
// or one strip or tile at a time for tiled labeling), contiguous samples,
// 8- or 16-bit gray (with or without an extra sample), RGB or RGBA, and
// 32-bit unsigned gray (label images), either byte order. Compressions:
// none, LZW, Deflate, PackBits and ZSTD, with or without a predictor. The
// Orientation tag is not applied (pixels are labeled as stored). The pages
// are found in one walk over the directories (readTiffPages), then reached
// by their offsets.

#include <tiffio.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "image_decoders.hpp"

namespace glccl::detail {

// TiffStrileReader::Impl holds a TiffHandle and TiffPages: they and the types
// they hold are outside the unnamed namespace, as a member's type of a class
// with external linkage.

struct TiffCodec {
    std::uint16_t id;
    const char* name;
    std::uint64_t largestRatio;  // decoded bytes per coded byte, at most
};

// The first message libtiff reports, kept for the exception; warnings
// (unknown tags, for instance) do not affect pixels and are dropped.
struct TiffMessages {
    std::string error;
};

struct TiffCloser {
    void operator()(TIFF* tiff) const { TIFFClose(tiff); }
};
struct TiffOpenOptionsFree {
    void operator()(TIFFOpenOptions* options) const { TIFFOpenOptionsFree(options); }
};

// What one pixel of the file holds and how it becomes the Image's samples.
struct TiffLayout {
    int fileSamples = 1;  // per pixel
    int bytesPerSample = 1;
    bool color = false;   // RGB (else gray)
    bool alpha = false;   // RGB with a fourth sample
    int channels = 1;     // of the Image
};

namespace {

// The largest tile (in decoded bytes) read: real files use 256x256 to
// 1024x1024 tiles; a header claiming one tile for a huge image would need
// it all at once.
constexpr std::uint64_t kMaxTileBytes = std::uint64_t(256) << 20;

// The largest ratios: none is 1; PackBits codes 128 bytes in 2; an LZW code
// (9 bits at least) stands for at most 4096 bytes; deflate for at most 1032
// per byte; a ZSTD block of one repeated byte codes 128 KiB in 4 bytes.
constexpr TiffCodec kCodecs[] = {{COMPRESSION_NONE, "none", 1},
                                 {COMPRESSION_PACKBITS, "PackBits", 64},
                                 {COMPRESSION_LZW, "LZW", 4096},
                                 {COMPRESSION_ADOBE_DEFLATE, "Deflate", 1032},
                                 {COMPRESSION_DEFLATE, "Deflate", 1032},
                                 {COMPRESSION_ZSTD, "ZSTD", 65536}};

int onTiffError(TIFF*, void* user, const char* module, const char* format, va_list arguments) {
    auto* messages = static_cast<TiffMessages*>(user);
    if (messages->error.empty()) {
        char text[512];
        std::vsnprintf(text, sizeof text, format, arguments);
        messages->error = (module != nullptr ? std::string(module) + ": " : std::string()) + text;
    }
    return 1;  // handled: libtiff's default handler would print to stderr
}

int onTiffWarning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

tmsize_t readTiff(thandle_t handle, void* out, tmsize_t size) {
    return tmsize_t(static_cast<ByteSource*>(handle)->read(out, std::size_t(size)));
}
tmsize_t writeTiff(thandle_t, void*, tmsize_t) { return 0; }
toff_t seekTiff(thandle_t handle, toff_t offset, int whence) {
    auto* source = static_cast<ByteSource*>(handle);
    std::uint64_t target = offset;
    if (whence == SEEK_CUR) target = source->tell() + offset;
    if (whence == SEEK_END) target = source->size() + offset;
    return source->seek(target) ? target : toff_t(-1);
}
int closeTiff(thandle_t) { return 0; }
toff_t sizeTiff(thandle_t handle) { return static_cast<ByteSource*>(handle)->size(); }
int mapTiff(thandle_t, void**, toff_t*) { return 0; }
void unmapTiff(thandle_t, void*, toff_t) {}

std::uint32_t nativeSample(const std::uint8_t* p, int bytes) {
    switch (bytes) {
        case 1: return p[0];
        case 2: {
            std::uint16_t value;
            std::memcpy(&value, p, 2);
            return value;
        }
        default: {
            std::uint32_t value;
            std::memcpy(&value, p, 4);
            return value;
        }
    }
}

// Converts `count` decoded pixels (libtiff gives samples in the host's byte
// order) into the Image at pixel index `at`.
void convertPixels(const TiffLayout& layout, const std::uint8_t* in, std::size_t count, Image& image, std::size_t at) {
    const std::size_t stride = std::size_t(layout.fileSamples) * std::size_t(layout.bytesPerSample);
    if (!layout.color && layout.fileSamples == 1) {
        // Gray: the host's byte order is the Image's (little-endian).
        std::memcpy(image.pixels.data() + at * std::size_t(layout.bytesPerSample), in, count * stride);
        return;
    }
    const std::uint32_t opaque = image.maxValue();
    for (std::size_t i = 0; i < count; ++i, in += stride) {
        const auto sample = [&](int s) { return nativeSample(in + s * layout.bytesPerSample, layout.bytesPerSample); };
        if (!layout.color) {
            image.setSample(at + i, 0, sample(0));
        } else if (layout.channels == 1) {
            image.setSample(at + i, 0, lumaOf(sample(0), sample(1), sample(2)));
        } else {
            for (int c = 0; c < 3; ++c) image.setSample(at + i, c, sample(c));
            image.setSample(at + i, 3, layout.alpha ? sample(3) : opaque);
        }
    }
}

}  // namespace

// libtiff open on a ByteSource, with the first error libtiff reports kept
// for the exception.
class TiffHandle {
public:
    explicit TiffHandle(const ReadContext& context) : context_(context) {
        ByteSource& source = context.source;
        source.seek(0);
        options_.reset(TIFFOpenOptionsAlloc());
        if (!options_) throw context.fail("TIFF: libtiff cannot start (out of memory)");
        // libtiff's own allocations (strip and tile buffers, tag arrays): the
        // coded data of one strip, at most the file, or a tile.
        TIFFOpenOptionsSetMaxSingleMemAlloc(
            options_.get(), tmsize_t(std::max<std::uint64_t>(source.size() + (1u << 20), kMaxTileBytes)));
        TIFFOpenOptionsSetErrorHandlerExtR(options_.get(), onTiffError, &messages_);
        TIFFOpenOptionsSetWarningHandlerExtR(options_.get(), onTiffWarning, nullptr);
        tiff_.reset(TIFFClientOpenExt(source.name().c_str(), "rm", &source, readTiff, writeTiff, seekTiff, closeTiff,
                                      sizeTiff, mapTiff, unmapTiff, options_.get()));
        if (!tiff_) throw fail("cannot read its header");
    }
    TIFF* get() const { return tiff_.get(); }
    // "TIFF: why (libtiff: its first message)"
    Error fail(const std::string& why) const {
        return context_.fail("TIFF: " + why + (messages_.error.empty() ? "" : " (libtiff: " + messages_.error + ")"));
    }

private:
    const ReadContext& context_;
    TiffMessages messages_;
    std::unique_ptr<TIFFOpenOptions, TiffOpenOptionsFree> options_;
    std::unique_ptr<TIFF, TiffCloser> tiff_;
};

// The first image's header, checked: what glccl reads and how.
struct TiffHeader {
    std::uint32_t width = 0, height = 0;
    int bits = 8;
    TiffLayout layout;
    const TiffCodec* codec = nullptr;
    bool tiled = false;
    bool bigTiff = false;
    std::uint32_t strileWidth = 0, strileHeight = 0;  // a tile, or the image width x rows per strip
    std::uint32_t striles = 0;                        // strips or tiles
    std::size_t pixelStride() const { return std::size_t(layout.fileSamples) * std::size_t(layout.bytesPerSample); }
};

// A full-resolution page: where its directory starts in the file, and its
// checked header.
struct TiffPage {
    std::uint64_t directory = 0;
    TiffHeader header;
};

namespace {

// What is wrong with a stack of `pages` pages like `first`, "" for nothing.
using TiffPageLimit = std::function<std::string(const TiffHeader& first, std::size_t pages)>;

// Reads and checks the current directory's header, everything but the
// image's size against readImage's limits and memory (the caller's choice):
// the layout, the codec, every strip or tile inside the file, and enough
// coded bytes for the pixels. `page` is the page's number in a stack, named
// in the messages of every page but the first.
TiffHeader readTiffHeader(const ReadContext& context, const TiffHandle& handle, std::size_t page = 0) {
    TIFF* t = handle.get();
    ByteSource& source = context.source;
    const std::string which = page == 0 ? std::string() : "page " + std::to_string(page) + " of the stack: ";
    const auto fail = [&](const std::string& why) { return context.fail("TIFF: " + which + why); };
    const auto failWithLibtiff = [&](const std::string& why) { return handle.fail(which + why); };
    TiffHeader header;
    if (TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &header.width) != 1 ||
        TIFFGetField(t, TIFFTAG_IMAGELENGTH, &header.height) != 1)
        throw failWithLibtiff(page == 0 ? "the first image has no ImageWidth or ImageLength"
                                        : "the page has no ImageWidth or ImageLength");
    if (header.width == 0 || header.height == 0)
        throw fail("the image has no pixels (" + std::to_string(header.width) + "x" + std::to_string(header.height) +
                   ")");

    std::uint16_t bits = 1, samples = 1, sampleFormat = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG,
                  compression = COMPRESSION_NONE, photometric = 0;
    TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &samples);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &sampleFormat);
    TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &compression);
    if (TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &photometric) != 1)
        photometric = samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;  // as most readers assume

    for (const TiffCodec& c : kCodecs)
        if (c.id == compression) header.codec = &c;
    if (header.codec == nullptr)
        throw fail("compression " + std::to_string(compression) +
                   " is not read; glccl reads uncompressed, LZW, Deflate, PackBits and ZSTD TIFFs");
    if (photometric != PHOTOMETRIC_MINISBLACK && photometric != PHOTOMETRIC_RGB)
        throw fail("photometric interpretation " + std::to_string(photometric) +
                   " is not read; glccl reads gray (MinIsBlack) and RGB TIFFs");
    if (planar != PLANARCONFIG_CONTIG)
        throw fail("its samples are stored in separate planes; glccl reads contiguous (chunky) TIFFs");
    if (sampleFormat != SAMPLEFORMAT_UINT && sampleFormat != SAMPLEFORMAT_VOID)
        throw fail("sample format " + std::to_string(sampleFormat) +
                   " (signed or floating point) is not read; samples must be unsigned integers");
    TiffLayout& layout = header.layout;
    layout.fileSamples = samples;
    layout.color = photometric == PHOTOMETRIC_RGB;
    const bool grayOk = !layout.color && (samples == 1 || samples == 2) && (bits == 8 || bits == 16 || (bits == 32 && samples == 1));
    const bool colorOk = layout.color && (samples == 3 || samples == 4) && (bits == 8 || bits == 16);
    if (!grayOk && !colorOk)
        throw fail(std::to_string(samples) + " samples of " + std::to_string(bits) + " bits per " +
                   (layout.color ? "RGB" : "gray") + " pixel are not read; glccl reads 8- or 16-bit gray "
                   "(1 sample, or 2 with alpha), RGB or RGBA, and 32-bit gray");
    layout.alpha = layout.color && samples == 4;
    layout.bytesPerSample = bits / 8;
    layout.channels = (layout.color && context.mode == ChannelMode::Natural) ? 4 : 1;
    header.bits = bits;
    header.bigTiff = TIFFIsBigTIFF(t) != 0;

    // Every coded strip or tile must lie inside the file, and together they
    // must be able to hold the pixels at the codec's largest ratio: checked
    // from the header, before the pixels are allocated.
    header.tiled = TIFFIsTiled(t) != 0;
    const std::uint32_t striles = header.tiled ? TIFFNumberOfTiles(t) : TIFFNumberOfStrips(t);
    if (striles == 0) throw failWithLibtiff("the image has no strips or tiles");
    std::uint64_t coded = 0;
    for (std::uint32_t i = 0; i < striles; ++i) {
        int offsetError = 0, countError = 0;
        const std::uint64_t offset = TIFFGetStrileOffsetWithErr(t, i, &offsetError);
        const std::uint64_t count = TIFFGetStrileByteCountWithErr(t, i, &countError);
        if (offsetError != 0 || countError != 0)
            throw failWithLibtiff("cannot read the place of strip or tile " + std::to_string(i));
        if (offset > source.size() || count > source.size() - offset)
            throw fail("truncated: " + std::string(header.tiled ? "tile " : "strip ") + std::to_string(i) + " (" +
                       std::to_string(count) + " bytes at " + std::to_string(offset) + ") lies past the end of the " +
                       std::to_string(source.size()) + "-byte file");
        coded += count;
    }
    const std::uint64_t pixelBytes = std::uint64_t(header.width) * header.height * header.pixelStride();
    checkExpansion(context, "TIFF", pixelBytes, coded, header.codec->largestRatio, header.codec->name);

    if (header.tiled) {
        TIFFGetField(t, TIFFTAG_TILEWIDTH, &header.strileWidth);
        TIFFGetField(t, TIFFTAG_TILELENGTH, &header.strileHeight);
        const std::uint64_t tileBytes = std::uint64_t(header.strileWidth) * header.strileHeight * header.pixelStride();
        if (header.strileWidth == 0 || header.strileHeight == 0 || tileBytes > kMaxTileBytes)
            throw fail("tiles of " + std::to_string(header.strileWidth) + "x" + std::to_string(header.strileHeight) +
                       " pixels are not read (at most " + std::to_string(kMaxTileBytes) + " bytes each)");
        if (TIFFTileSize64(t) != tileBytes) throw failWithLibtiff("libtiff's tile size does not match the tile's pixels");
    } else {
        std::uint32_t rowsPerStrip = 0;
        TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &rowsPerStrip);
        header.strileWidth = header.width;
        header.strileHeight = std::max<std::uint32_t>(1, std::min(rowsPerStrip, header.height));
        const tmsize_t lineBytes = TIFFScanlineSize(t);
        if (lineBytes <= 0 || std::uint64_t(lineBytes) != std::uint64_t(header.width) * header.pixelStride())
            throw failWithLibtiff("libtiff's scanline size does not match the image");
    }
    header.striles = striles;
    return header;
}

}  // namespace

namespace {

// Decodes the current page, whose checked header is `header`, into slice
// `slice` of `image`.
void decodePage(const TiffHandle& handle, const TiffHeader& header, Image& image, std::uint32_t slice) {
    TIFF* t = handle.get();
    const std::uint32_t width = header.width, height = header.height;
    const std::size_t first = std::size_t(slice) * width * height;  // the slice's first pixel
    const TiffLayout& layout = header.layout;
    const std::size_t pixelStride = header.pixelStride();
    const std::string page = image.dimensions == 3 ? " of page " + std::to_string(slice) : "";
    if (!header.tiled) {
        // Row by row: libtiff decodes each strip sequentially, so one
        // scanline of memory is enough whatever the strip size.
        std::vector<std::uint8_t> line(std::size_t(width) * pixelStride);
        for (std::uint32_t y = 0; y < height; ++y) {
            if (TIFFReadScanline(t, line.data(), y, 0) != 1)
                throw handle.fail("cannot decode row " + std::to_string(y) + page);
            convertPixels(layout, line.data(), width, image, first + std::size_t(y) * width);
        }
        return;
    }
    const std::uint32_t tileWidth = header.strileWidth, tileHeight = header.strileHeight;
    const std::uint64_t tileBytes = std::uint64_t(tileWidth) * tileHeight * pixelStride;
    std::vector<std::uint8_t> tile(static_cast<std::size_t>(tileBytes));
    for (std::uint32_t y0 = 0; y0 < height; y0 += tileHeight) {
        for (std::uint32_t x0 = 0; x0 < width; x0 += tileWidth) {
            const std::uint32_t index = TIFFComputeTile(t, x0, y0, 0, 0);
            if (TIFFReadEncodedTile(t, index, tile.data(), tmsize_t(tileBytes)) != tmsize_t(tileBytes))
                throw handle.fail("cannot decode the tile at (" + std::to_string(x0) + ", " + std::to_string(y0) +
                                  ")" + page);
            const std::uint32_t columns = std::min(tileWidth, width - x0), rows = std::min(tileHeight, height - y0);
            for (std::uint32_t r = 0; r < rows; ++r)
                convertPixels(layout, tile.data() + std::size_t(r) * tileWidth * pixelStride, columns, image,
                              first + std::size_t(y0 + r) * width + x0);
        }
    }
}

// Why page `page` cannot be a slice beside the first page, "" when it can.
std::string pageMismatch(const TiffHeader& first, const TiffHeader& page) {
    const auto describe = [](const TiffHeader& h) {
        return std::to_string(h.width) + "x" + std::to_string(h.height) + " " +
               (h.layout.color ? (h.layout.alpha ? "RGBA" : "RGB") : h.layout.fileSamples == 2 ? "gray+alpha" : "gray") +
               " of " + std::to_string(h.bits) + " bits";
    };
    const bool same = page.width == first.width && page.height == first.height && page.bits == first.bits &&
                      page.layout.fileSamples == first.layout.fileSamples && page.layout.color == first.layout.color;
    return same ? std::string() : describe(page) + " but the first page is " + describe(first);
}

// The full-resolution pages of the file open in `handle`, in file order: a
// stack as Fiji, tifffile and OME-TIFF write it has one a slice. Reduced-
// resolution pages (NewSubfileType bit 0: thumbnails, pyramid levels) are
// not slices and are left out; a file of reduced-resolution pages only has
// its first page. The directories are walked once, from the first, with
// TIFFReadDirectory (libtiff's TIFFSetDirectory walks from the first
// directory again for each page, which makes a stack quadratic in its
// pages), and each page's header is read and checked as it is reached
// (readTiffHeader, pageMismatch). After each page, `limit(first, pages)`
// says what is wrong with a stack of that many pages like the first ("" for
// nothing); the walk stops there with that error, so a stack past the limit
// is refused after reading the headers up to the limit, none beyond it and
// no strip. libtiff stops at a directory loop.
std::vector<TiffPage> readTiffPages(const ReadContext& context, const TiffHandle& handle, const TiffPageLimit& limit) {
    TIFF* t = handle.get();
    std::vector<TiffPage> pages;
    do {
        std::uint32_t subfileType = 0;
        TIFFGetFieldDefaulted(t, TIFFTAG_SUBFILETYPE, &subfileType);
        if ((subfileType & FILETYPE_REDUCEDIMAGE) != 0) continue;
        pages.push_back({TIFFCurrentDirOffset(t), readTiffHeader(context, handle, pages.size())});
        const std::string mismatch = pageMismatch(pages.front().header, pages.back().header);
        if (!mismatch.empty())
            throw context.fail("TIFF: page " + std::to_string(pages.size() - 1) + " of the stack is " + mismatch +
                               "; a stack's pages are slices of one size and type");
        const std::string problem = limit(pages.front().header, pages.size());
        if (!problem.empty())
            throw context.fail("TIFF: " + problem + " (the pages past the limit are not read)");
    } while (TIFFReadDirectory(t) == 1);
    if (pages.empty()) {
        // Reduced-resolution pages only: the first is the image.
        if (TIFFSetDirectory(t, 0) != 1) throw handle.fail("cannot read its first image");
        pages.push_back({TIFFCurrentDirOffset(t), readTiffHeader(context, handle)});
    }
    return pages;
}

// Makes `page` (number `number` of the stack) the current directory, by its
// offset: no walk from the first directory.
void selectTiffPage(const TiffHandle& handle, const TiffPage& page, std::size_t number) {
    TIFF* t = handle.get();
    if (TIFFCurrentDirOffset(t) == page.directory) return;
    std::uint32_t width = 0, height = 0;
    if (TIFFSetSubDirectory(t, page.directory) != 1 || TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &width) != 1 ||
        TIFFGetField(t, TIFFTAG_IMAGELENGTH, &height) != 1)
        throw handle.fail("cannot read page " + std::to_string(number));
    if (width != page.header.width || height != page.header.height)
        throw handle.fail("page " + std::to_string(number) + " changed while the file was read");
}

}  // namespace

Image decodeTiff(const ReadContext& context) {
    const TiffHandle handle(context);
    TIFF* t = handle.get();
    std::uint32_t width = 0, height = 0;
    if (TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &width) == 1 && TIFFGetField(t, TIFFTAG_IMAGELENGTH, &height) == 1) {
        const std::string problem = dimensionProblem(width, height);
        if (!problem.empty()) throw context.fail("TIFF: the image " + problem);
    }
    // A volume is within readImage's limits: the walk stops at the first
    // page past them.
    const std::vector<TiffPage> pages =
        readTiffPages(context, handle, [](const TiffHeader& first, std::size_t count) {
            if (count <= 1) return std::string();
            const std::string problem = volumeProblem(first.width, first.height, count);
            return problem.empty() ? problem : "the stack of " + std::to_string(first.width) + "x" +
                                                   std::to_string(first.height) + " pages " + problem;
        });
    const TiffHeader& first = pages.front().header;
    if (pages.size() == 1) {
        // One page (beside any reduced-resolution ones): a 2-D image.
        checkClaimedSize(context, "TIFF", first.width, first.height, first.layout.channels, first.bits);
        selectTiffPage(handle, pages.front(), 0);
        Image image(int(first.width), int(first.height), first.layout.channels, first.bits);
        decodePage(handle, first, image, 0);
        return image;
    }
    // A stack, a page a slice: every page's header was checked (strips or
    // tiles inside the file, enough coded bytes) before the volume is
    // allocated.
    checkClaimedVolumeSize(context, "TIFF", first.width, first.height, pages.size(), first.bits * first.layout.channels);
    Image image(Shape::volume(first.width, first.height, std::int64_t(pages.size())), first.layout.channels, first.bits);
    for (std::size_t z = 0; z < pages.size(); ++z) {
        selectTiffPage(handle, pages[z], z);
        decodePage(handle, pages[z].header, image, std::uint32_t(z));
    }
    return image;
}

std::size_t countTiffSlices(const ReadContext& context) {
    const TiffHandle handle(context);
    TIFF* t = handle.get();
    std::size_t slices = 0;
    do {
        std::uint32_t subfileType = 0;
        TIFFGetFieldDefaulted(t, TIFFTAG_SUBFILETYPE, &subfileType);
        if ((subfileType & FILETYPE_REDUCEDIMAGE) == 0) ++slices;
    } while (TIFFReadDirectory(t) == 1);
    return slices;
}

// ---------------------------------------------------------------- strips and tiles

namespace {

// Why the streamed reader cannot read `header` (page `page`), "" when it can:
// its strips or tiles are found by position and read whole.
std::string strileProblem(const TiffHeader& header, std::size_t page) {
    const std::string which = page == 0 ? std::string() : "page " + std::to_string(page) + " of the stack: ";
    // Strips or tiles are found by position (TIFFComputeStrip, TIFFComputeTile):
    // there must be exactly one for each.
    const std::uint64_t across = (std::uint64_t(header.width) + header.strileWidth - 1) / header.strileWidth;
    const std::uint64_t down = (std::uint64_t(header.height) + header.strileHeight - 1) / header.strileHeight;
    if (across * down != header.striles)
        return which + "the file has " + std::to_string(header.striles) + (header.tiled ? " tiles" : " strips") +
               ", but its " + std::to_string(header.width) + "x" + std::to_string(header.height) + " pixels make " +
               std::to_string(across * down);
    const std::uint64_t strileBytes = std::uint64_t(header.strileWidth) * header.strileHeight * header.pixelStride();
    if (strileBytes > kMaxStrileBytes)
        return which + "its strips of " + std::to_string(header.strileHeight) + " rows of " +
               std::to_string(header.width) + " pixels decode to " + std::to_string(strileBytes) +
               " bytes each; strips and tiles are read whole, and at most " + std::to_string(kMaxStrileBytes) +
               " bytes each (write the file with fewer rows a strip, or tiled, e.g. tifffile's tile=(256, 256))";
    return {};
}

}  // namespace

struct TiffStrileReader::Impl {
    ByteSource source;
    ReadContext context;
    TiffHandle handle;
    // The pages the first reader found, shared by the readers it opened.
    std::shared_ptr<const std::vector<TiffPage>> pages;
    std::vector<std::uint8_t> coded;  // one decoded strip or tile, as libtiff gives it

    Impl(const std::string& where, const std::string& path, ChannelMode mode)
        : source(where, path), context{where, source, mode}, handle(context) {}
};

TiffStrileReader::TiffStrileReader(const std::string& where, const std::string& path, ChannelMode mode)
    : impl_(std::make_unique<Impl>(where, path, mode)) {
    Impl& impl = *impl_;
    // Sides up to kMaxStreamedSide, the stack's lines (pages x height)
    // counted in 32 bits.
    impl.pages = std::make_shared<const std::vector<TiffPage>>(
        readTiffPages(impl.context, impl.handle, [](const TiffHeader& first, std::size_t count) {
            const std::string size = std::to_string(first.width) + "x" + std::to_string(first.height);
            if (first.width > kMaxStreamedSide || first.height > kMaxStreamedSide)
                return "the image is " + size + "; sides up to " + std::to_string(kMaxStreamedSide) + " are read";
            if (std::uint64_t(first.height) * count > kMaxStreamedLines)
                return "the stack of " + size + " pages has more than " + std::to_string(count - 1) +
                       " of them; a stack of up to " + std::to_string(kMaxStreamedLines) + " rows in all is read";
            return std::string();
        }));
    for (std::size_t page = 0; page < impl.pages->size(); ++page) {
        const std::string problem = strileProblem((*impl.pages)[page].header, page);
        if (!problem.empty()) throw impl.context.fail("TIFF: " + problem);
    }
}

std::unique_ptr<TiffStrileReader> TiffStrileReader::another() const {
    const Impl& impl = *impl_;
    std::unique_ptr<TiffStrileReader> reader(new TiffStrileReader());
    reader->impl_ = std::make_unique<Impl>(impl.context.where, impl.source.name(), impl.context.mode);
    reader->impl_->pages = impl.pages;
    return reader;
}

TiffStrileReader::TiffStrileReader() = default;
TiffStrileReader::~TiffStrileReader() = default;

std::uint32_t TiffStrileReader::width() const { return impl_->pages->front().header.width; }
std::uint32_t TiffStrileReader::height() const { return impl_->pages->front().header.height; }
std::uint32_t TiffStrileReader::pages() const { return std::uint32_t(impl_->pages->size()); }
int TiffStrileReader::channels() const { return impl_->pages->front().header.layout.channels; }
int TiffStrileReader::sampleBits() const { return impl_->pages->front().header.bits; }
bool TiffStrileReader::tiled(std::uint32_t page) const { return impl_->pages->at(page).header.tiled; }
std::uint32_t TiffStrileReader::strileWidth(std::uint32_t page) const { return impl_->pages->at(page).header.strileWidth; }
std::uint32_t TiffStrileReader::strileHeight(std::uint32_t page) const {
    return impl_->pages->at(page).header.strileHeight;
}

std::string TiffStrileReader::describe() const {
    const std::vector<TiffPage>& pages = *impl_->pages;
    const TiffHeader& header = pages.front().header;
    const bool mixed = std::any_of(pages.begin(), pages.end(), [&](const TiffPage& page) {
        return page.header.tiled != header.tiled || page.header.strileWidth != header.strileWidth ||
               page.header.strileHeight != header.strileHeight ||
               std::strcmp(page.header.codec->name, header.codec->name) != 0;
    });
    const std::string layout =
        header.tiled ? std::to_string(header.strileWidth) + "x" + std::to_string(header.strileHeight) + " tiles"
                     : std::to_string(header.strileHeight) + (header.strileHeight == 1 ? " row" : " rows") + " a strip";
    return std::string(header.tiled ? "tiled " : "striped ") + (header.bigTiff ? "BigTIFF" : "TIFF") +
           (pages.size() > 1 ? " stack of " + std::to_string(pages.size()) + " pages" : std::string()) + " (" +
           layout + ", " + header.codec->name + (mixed ? "; other pages otherwise" : "") + ")";
}

void TiffStrileReader::read(std::uint32_t page, std::uint32_t x0, std::uint32_t y0, Image& out) {
    Impl& impl = *impl_;
    if (page >= impl.pages->size())
        throw impl.context.fail("TIFF: no page " + std::to_string(page) + " in a stack of " +
                                std::to_string(impl.pages->size()));
    const TiffHeader& header = (*impl.pages)[page].header;
    const std::string where = impl.pages->size() > 1 ? " of page " + std::to_string(page) : std::string();
    if (x0 >= header.width || y0 >= header.height || x0 % header.strileWidth != 0 || y0 % header.strileHeight != 0)
        throw impl.context.fail("TIFF: no strip or tile starts at (" + std::to_string(x0) + ", " +
                                std::to_string(y0) + ")" + where);
    selectTiffPage(impl.handle, (*impl.pages)[page], page);
    TIFF* t = impl.handle.get();
    const std::uint32_t columns = std::min(header.strileWidth, header.width - x0);
    const std::uint32_t rows = std::min(header.strileHeight, header.height - y0);
    const std::size_t stride = header.pixelStride();
    // libtiff decodes a whole tile, edge tiles included; the last strip
    // holds only the rows left.
    const std::size_t expected = header.tiled ? std::size_t(header.strileWidth) * header.strileHeight * stride
                                              : std::size_t(rows) * header.width * stride;
    // libtiff reads an uncompressed strip or tile whole from its offset,
    // whatever its byte count says: one that says fewer bytes than it holds
    // is refused here, as the whole image's reader refuses it.
    const std::uint32_t strile = header.tiled ? TIFFComputeTile(t, x0, y0, 0, 0) : TIFFComputeStrip(t, y0, 0);
    if (header.codec->id == COMPRESSION_NONE && TIFFGetStrileByteCount(t, strile) < expected)
        throw impl.context.fail("TIFF: the uncompressed " + std::string(header.tiled ? "tile" : "strip") + " at (" +
                                std::to_string(x0) + ", " + std::to_string(y0) + ")" + where + " holds " +
                                std::to_string(TIFFGetStrileByteCount(t, strile)) + " bytes of its " +
                                std::to_string(expected));
    impl.coded.resize(expected);
    const tmsize_t decoded =
        header.tiled ? TIFFReadEncodedTile(t, strile, impl.coded.data(), tmsize_t(expected))
                     : TIFFReadEncodedStrip(t, strile, impl.coded.data(), tmsize_t(expected));
    if (decoded != tmsize_t(expected))
        throw impl.handle.fail("cannot decode the " + std::string(header.tiled ? "tile" : "strip") + " at (" +
                               std::to_string(x0) + ", " + std::to_string(y0) + ")" + where);
    out = Image(int(columns), int(rows), header.layout.channels, header.bits);
    const std::size_t rowBytes = std::size_t(header.tiled ? header.strileWidth : header.width) * stride;
    for (std::uint32_t r = 0; r < rows; ++r)
        convertPixels(header.layout, impl.coded.data() + std::size_t(r) * rowBytes, columns, out, std::size_t(r) * columns);
}

}  // namespace glccl::detail

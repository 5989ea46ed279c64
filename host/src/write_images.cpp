// The picture writers: PNG through libpng (gray or RGBA, 8 or 16 bits,
// compressed at any size) and the label image (a 16-bit PNG or a 32-bit
// TIFF through libtiff). Each fills an OutputFile, so a failure leaves no
// partial file behind.

#include <png.h>
#include <tiffio.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <csetjmp>
#include <cstring>
#include <memory>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "output_file.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "glccl's image I/O assumes a little-endian host");

namespace glccl {

namespace {

// zlib level 3 (its fast match search): label pictures are flat regions and
// compress nearly as well as at the default level, several times faster on
// images of a gigapixel.
constexpr int kZlibLevel = 3;

// ---------------------------------------------------------------- PNG

// libpng leaves an error by longjmp: the message is a plain buffer and the
// function that setjmps holds no object with a destructor.
struct PngWriteState {
    detail::OutputFile* file = nullptr;
    char message[512] = {};
};

[[noreturn]] void onPngWriteError(png_structp png, png_const_charp message) {
    auto* state = static_cast<PngWriteState*>(png_get_error_ptr(png));
    if (state->message[0] == '\0') std::snprintf(state->message, sizeof state->message, "libpng: %s", message);
    png_longjmp(png, 1);
}
void onPngWriteWarning(png_structp, png_const_charp) {}

void writePngBytes(png_structp png, png_bytep data, png_size_t size) {
    auto* state = static_cast<PngWriteState*>(png_get_io_ptr(png));
    // The exception must not cross libpng's C frames: it is turned into a
    // libpng error once the handler has finished.
    bool failed = false;
    try {
        state->file->write(data, size);
    } catch (const std::exception& error) {
        std::snprintf(state->message, sizeof state->message, "%s", error.what());
        failed = true;
    }
    if (failed) png_error(png, "write failed");
}
void flushPng(png_structp) {}  // OutputFile::close flushes

struct PngWriteStruct {
    png_structp png = nullptr;
    png_infop info = nullptr;
    ~PngWriteStruct() { png_destroy_write_struct(&png, info != nullptr ? &info : nullptr); }
};

bool writePngImage(png_structp png, png_infop info, png_uint_32 width, png_uint_32 height, int sampleBits,
                   int colorType, png_bytep const* rows) {
    if (setjmp(png_jmpbuf(png))) return false;
    png_set_IHDR(png, info, width, height, sampleBits, colorType, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, kZlibLevel);
    png_write_info(png, info);
    if (sampleBits == 16) png_set_swap(png);  // Image samples are little-endian, PNG's big-endian
    for (png_uint_32 y = 0; y < height; ++y) png_write_row(png, rows[y]);
    png_write_end(png, nullptr);
    return true;
}

void encodePng(const std::string& where, detail::OutputFile& file, const Image& image) {
    PngWriteState state;
    state.file = &file;
    PngWriteStruct write;
    write.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, onPngWriteError, onPngWriteWarning);
    if (write.png == nullptr) throw Error(where + "libpng cannot start (out of memory)");
    write.info = png_create_info_struct(write.png);
    if (write.info == nullptr) throw Error(where + "libpng cannot start (out of memory)");
    png_set_write_fn(write.png, &state, writePngBytes, flushPng);
    const std::size_t rowBytes = std::size_t(image.width) * std::size_t(image.channels) * std::size_t(image.bytesPerSample());
    std::vector<png_bytep> rows(std::size_t(image.height));
    for (std::size_t y = 0; y < rows.size(); ++y)
        rows[y] = const_cast<png_bytep>(image.pixels.data() + y * rowBytes);  // libpng only reads them
    const int colorType = image.channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB_ALPHA;
    if (!writePngImage(write.png, write.info, png_uint_32(image.width), png_uint_32(image.height), image.sampleBits,
                       colorType, rows.data())) {
        // A write error's message is the OutputFile's own ("cannot write ...").
        const std::string message = state.message;
        if (message.rfind("glccl::", 0) == 0) throw Error(message);
        throw Error(where + "cannot encode '" + file.path() + "': " + message);
    }
}

// ---------------------------------------------------------------- TIFF

struct TiffWriteMessages {
    std::string error;
};

int onTiffWriteError(TIFF*, void* user, const char* module, const char* format, va_list arguments) {
    auto* messages = static_cast<TiffWriteMessages*>(user);
    if (messages->error.empty()) {
        char text[512];
        std::vsnprintf(text, sizeof text, format, arguments);
        messages->error = (module != nullptr ? std::string(module) + ": " : std::string()) + text;
    }
    return 1;
}
int onTiffWriteWarning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

// libtiff writes through the OutputFile's stream (it seeks back to link the
// directory), and may read back what it wrote.
tmsize_t readTiffStream(thandle_t handle, void* out, tmsize_t size) {
    return tmsize_t(std::fread(out, 1, std::size_t(size), static_cast<std::FILE*>(handle)));
}
tmsize_t writeTiffStream(thandle_t handle, void* data, tmsize_t size) {
    return tmsize_t(std::fwrite(data, 1, std::size_t(size), static_cast<std::FILE*>(handle)));
}
toff_t seekTiffStream(thandle_t handle, toff_t offset, int whence) {
    auto* stream = static_cast<std::FILE*>(handle);
    if (::fseeko(stream, off_t(offset), whence) != 0) return toff_t(-1);
    return toff_t(::ftello(stream));
}
int closeTiffStream(thandle_t) { return 0; }  // the OutputFile closes it
toff_t sizeTiffStream(thandle_t handle) {
    auto* stream = static_cast<std::FILE*>(handle);
    const off_t here = ::ftello(stream);
    ::fseeko(stream, 0, SEEK_END);
    const off_t end = ::ftello(stream);
    ::fseeko(stream, here, SEEK_SET);
    return toff_t(end);
}
int mapTiffStream(thandle_t, void**, toff_t*) { return 0; }
void unmapTiffStream(thandle_t, void*, toff_t) {}

struct TiffOptionsFree {
    void operator()(TIFFOpenOptions* options) const { TIFFOpenOptionsFree(options); }
};

void encodeTiff32(const std::string& where, detail::OutputFile& file, const Labeling& labeling) {
    TiffWriteMessages messages;
    std::unique_ptr<TIFFOpenOptions, TiffOptionsFree> options(TIFFOpenOptionsAlloc());
    if (!options) throw Error(where + "libtiff cannot start (out of memory)");
    TIFFOpenOptionsSetErrorHandlerExtR(options.get(), onTiffWriteError, &messages);
    TIFFOpenOptionsSetWarningHandlerExtR(options.get(), onTiffWriteWarning, nullptr);
    const auto fail = [&](const std::string& what) {
        return Error(where + "cannot write '" + file.path() + "': " + what +
                     (messages.error.empty() ? "" : " (libtiff: " + messages.error + ")"));
    };
    // Classic TIFF addresses 4 GiB; larger label arrays (a 32768^2 one is
    // 4 GiB before compression) go to BigTIFF, which napari (tifffile), Fiji
    // and QuPath (Bio-Formats) read as well.
    const std::uint64_t rawBytes = std::uint64_t(labeling.labels.size()) * 4;
    const char* mode = rawBytes > (std::uint64_t(2) << 30) ? "w8" : "w";
    TIFF* tiff = TIFFClientOpenExt(file.path().c_str(), mode, file.stream(), readTiffStream, writeTiffStream,
                                   seekTiffStream, closeTiffStream, sizeTiffStream, mapTiffStream, unmapTiffStream,
                                   options.get());
    if (tiff == nullptr) throw fail("libtiff cannot start");
    const std::uint32_t width = std::uint32_t(labeling.width), height = std::uint32_t(labeling.height);
    const std::uint32_t depth = std::uint32_t(labeling.depth);
    const bool volume = labeling.dimensions == 3;
    // Strips of about 256 KiB.
    const std::uint32_t rowsPerStrip = std::max<std::uint32_t>(1, std::uint32_t((256u << 10) / (width * 4u)));
    bool ok = true;
    // A volume is a page a slice, the stack Fiji, napari (tifffile) and
    // Bio-Formats open as (depth, height, width); PageNumber says each
    // page's place in it.
    for (std::uint32_t z = 0; ok && z < depth; ++z) {
        ok = TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, width) && TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, height) &&
             TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, 32) && TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, 1) &&
             TIFFSetField(tiff, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT) &&
             TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK) &&
             TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
             TIFFSetField(tiff, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE) &&
             TIFFSetField(tiff, TIFFTAG_ZIPQUALITY, kZlibLevel) &&
             TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, rowsPerStrip);
        if (ok && volume) ok = TIFFSetField(tiff, TIFFTAG_PAGENUMBER, std::uint16_t(std::min<std::uint32_t>(z, 65535)),
                                            std::uint16_t(std::min<std::uint32_t>(depth, 65535)));
        const std::size_t slice = std::size_t(z) * width * height;
        for (std::uint32_t y = 0, strip = 0; ok && y < height; y += rowsPerStrip, ++strip) {
            const std::uint32_t rows = std::min(rowsPerStrip, height - y);
            // libtiff may compress in place; it gets a copy of the strip.
            std::vector<std::uint32_t> data(
                labeling.labels.begin() + std::ptrdiff_t(slice + std::size_t(y) * width),
                labeling.labels.begin() + std::ptrdiff_t(slice + std::size_t(y + rows) * width));
            ok = TIFFWriteEncodedStrip(tiff, strip, data.data(), tmsize_t(data.size() * 4)) >= 0;
        }
        if (ok) ok = TIFFWriteDirectory(tiff) != 0;
    }
    TIFFClose(tiff);
    if (!ok || !messages.error.empty()) throw fail("libtiff failed");
}

std::uint32_t largestLabel(const Labeling& labeling) {
    std::uint32_t largest = 0;
    for (std::uint32_t label : labeling.labels) largest = std::max(largest, label);
    return largest;
}

}  // namespace

void writePng(const std::string& path, const Image& image, bool overwrite) {
    const std::string where = "glccl::writePng(): ";
    if (!image.isConsistent())
        throw Error(where + "invalid image: " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                    "x" + std::to_string(image.channels) + " of " + std::to_string(image.sampleBits) + " bits with " +
                    std::to_string(image.pixels.size()) + " bytes");
    if (image.sampleBits > 16)
        throw Error(where + "'" + path + "': the image has " + std::to_string(image.sampleBits) +
                    "-bit samples but PNG holds at most 16 bits; write a TIFF or .npy instead");
    detail::OutputFile file(where, path, overwrite);
    encodePng(where, file, image);
    file.close();
}

LabelImageFormat resolveLabelImageFormat(const Labeling& labeling, LabelImageFormat requested) {
    if (requested == LabelImageFormat::Tiff32) return requested;
    // A PNG holds one slice: a volume's labels are a TIFF stack.
    if (labeling.dimensions == 3 && requested == LabelImageFormat::Auto) return LabelImageFormat::Tiff32;
    if (labeling.dimensions == 3)
        throw Error("glccl::writeLabelImage(): the labels are a " + std::to_string(labeling.width) + "x" +
                    std::to_string(labeling.height) + "x" + std::to_string(labeling.depth) +
                    " volume but a PNG holds one 2-D image; write a 32-bit TIFF stack (.tif) instead");
    const std::uint32_t largest = largestLabel(labeling);
    if (largest <= 65535) return LabelImageFormat::Png16;
    if (requested == LabelImageFormat::Auto) return LabelImageFormat::Tiff32;
    throw Error("glccl::writeLabelImage(): the labels go up to " + std::to_string(largest) +
                " but a 16-bit PNG holds labels up to 65535; write a 32-bit TIFF (.tif) instead");
}

void writeLabelImage(const std::string& path, const Labeling& labeling, LabelImageFormat format, bool overwrite) {
    const std::string where = "glccl::writeLabelImage(): ";
    detail::checkLabeling(where, labeling);
    format = resolveLabelImageFormat(labeling, format);
    detail::OutputFile file(where, path, overwrite);
    if (format == LabelImageFormat::Png16) {
        Image image(labeling.width, labeling.height, 1, 16);
        for (std::size_t i = 0; i < labeling.labels.size(); ++i) image.setSample(i, 0, labeling.labels[i]);
        encodePng(where, file, image);
    } else {
        encodeTiff32(where, file, labeling);
    }
    file.close();
}

}  // namespace glccl

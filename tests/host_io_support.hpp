#pragma once
// Test inputs for the image I/O tests: temporary folders, byte helpers, and
// files written by the reference libraries themselves (libpng, libtiff,
// libjpeg-turbo) or byte by byte from the format specifications, so that
// glccl's readers are checked against files they did not write.
// libpng, libtiff and libjpeg come through glccl_host, which links them.

#include <png.h>
#include <tiffio.h>
// jpeglib.h needs size_t and FILE declared first.
#include <cstddef>
#include <cstdio>
#include <jpeglib.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "glccl/types.hpp"

namespace iotest {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

// A fresh directory per test case, removed afterwards.
class TempDir {
public:
    TempDir() {
        static std::atomic<int> counter{0};
        path_ = fs::temp_directory_path() /
                ("glccl_host_io_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    fs::path path_;
};

inline void writeBytes(const std::string& path, const Bytes& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    REQUIRE(out.good());
}

inline Bytes readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in.good());
    return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void append(Bytes& bytes, const std::string& text) { bytes.insert(bytes.end(), text.begin(), text.end()); }
inline void append(Bytes& bytes, std::initializer_list<int> values) {
    for (int v : values) bytes.push_back(std::uint8_t(v));
}
inline void appendLe16(Bytes& bytes, std::uint32_t v) { append(bytes, {int(v & 0xFF), int((v >> 8) & 0xFF)}); }
inline void appendLe32(Bytes& bytes, std::uint32_t v) {
    appendLe16(bytes, v & 0xFFFF);
    appendLe16(bytes, v >> 16);
}
inline void appendBe16(Bytes& bytes, std::uint32_t v) { append(bytes, {int((v >> 8) & 0xFF), int(v & 0xFF)}); }
inline void appendBe32(Bytes& bytes, std::uint32_t v) {
    append(bytes, {int(v >> 24), int((v >> 16) & 0xFF), int((v >> 8) & 0xFF), int(v & 0xFF)});
}

// ---- PNG byte by byte (PNG spec: chunks with CRC-32, zlib with stored
// deflate blocks), for crafted and corrupt files.
inline std::uint32_t crc32(const std::uint8_t* data, std::size_t size) {
    std::uint32_t crc = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < size; ++i) {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

inline void appendChunk(Bytes& png, const std::string& type, const Bytes& data) {
    appendBe32(png, std::uint32_t(data.size()));
    Bytes typed(type.begin(), type.end());
    typed.insert(typed.end(), data.begin(), data.end());
    png.insert(png.end(), typed.begin(), typed.end());
    appendBe32(png, crc32(typed.data(), typed.size()));
}

inline Bytes pngHeader(std::uint32_t width, std::uint32_t height, int bitDepth, int colorType) {
    Bytes png = {137, 80, 78, 71, 13, 10, 26, 10};
    Bytes ihdr;
    appendBe32(ihdr, width);
    appendBe32(ihdr, height);
    append(ihdr, {bitDepth, colorType, 0, 0, 0});
    appendChunk(png, "IHDR", ihdr);
    return png;
}

// A zlib stream of stored blocks holding `data`.
inline Bytes storedZlib(const Bytes& data) {
    Bytes zlib = {0x78, 0x01};
    std::size_t at = 0;
    do {
        const std::size_t size = std::min<std::size_t>(65535, data.size() - at);
        zlib.push_back(at + size == data.size() ? 1 : 0);
        appendLe16(zlib, std::uint32_t(size));
        appendLe16(zlib, std::uint32_t(~size & 0xFFFF));
        zlib.insert(zlib.end(), data.begin() + std::ptrdiff_t(at), data.begin() + std::ptrdiff_t(at + size));
        at += size;
    } while (at < data.size());
    std::uint32_t a = 1, b = 0;
    for (std::uint8_t v : data) {
        a = (a + v) % 65521;
        b = (b + a) % 65521;
    }
    appendBe32(zlib, (b << 16) | a);
    return zlib;
}

inline Bytes makePng(std::uint32_t width, std::uint32_t height, int bitDepth, int colorType, const Bytes& scanlines) {
    Bytes png = pngHeader(width, height, bitDepth, colorType);
    appendChunk(png, "IDAT", storedZlib(scanlines));
    appendChunk(png, "IEND", {});
    return png;
}

// ---- PNG through libpng. `rows` hold the samples as PNG stores them
// (big-endian 16-bit, packed sub-byte depths), without filter bytes.
struct PngSpec {
    std::uint32_t width = 1, height = 1;
    int bitDepth = 8, colorType = PNG_COLOR_TYPE_GRAY;
    bool interlaced = false;
    double gamma = 0.0;             // a gAMA chunk when nonzero
    std::vector<png_color> palette;
    Bytes transparency;             // tRNS for palettes
    int transparentGray = -1;       // tRNS for gray
    int transparentRgb[3] = {-1, -1, -1};
};

inline void writePngWithLibpng(const std::string& path, const PngSpec& spec, const std::vector<Bytes>& rows) {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    REQUIRE(file != nullptr);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(png);
    REQUIRE((png != nullptr && info != nullptr));
    volatile bool ok = false;  // read after a longjmp
    if (setjmp(png_jmpbuf(png)) == 0) {
        png_init_io(png, file);
        png_set_IHDR(png, info, spec.width, spec.height, spec.bitDepth, spec.colorType,
                     spec.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                     PNG_FILTER_TYPE_DEFAULT);
        if (!spec.palette.empty()) png_set_PLTE(png, info, spec.palette.data(), int(spec.palette.size()));
        if (!spec.transparency.empty())
            png_set_tRNS(png, info, spec.transparency.data(), int(spec.transparency.size()), nullptr);
        if (spec.transparentGray >= 0 || spec.transparentRgb[0] >= 0) {
            png_color_16 key{};
            key.gray = png_uint_16(spec.transparentGray);
            key.red = png_uint_16(spec.transparentRgb[0]);
            key.green = png_uint_16(spec.transparentRgb[1]);
            key.blue = png_uint_16(spec.transparentRgb[2]);
            png_set_tRNS(png, info, nullptr, 0, &key);
        }
        if (spec.gamma > 0.0) png_set_gAMA(png, info, spec.gamma);
        png_write_info(png, info);
        const int passes = png_set_interlace_handling(png);
        for (int pass = 0; pass < passes; ++pass)
            for (const Bytes& row : rows) png_write_row(png, const_cast<png_bytep>(row.data()));
        png_write_end(png, nullptr);
        ok = true;
    }
    png_destroy_write_struct(&png, &info);
    std::fclose(file);
    REQUIRE(ok);
}

// ---- TIFF through libtiff. `data` holds the samples in the host's order,
// pixel-interleaved, rows tightly packed.
struct TiffSpec {
    std::uint32_t width = 1, height = 1;
    int samples = 1, bits = 8;
    int photometric = PHOTOMETRIC_MINISBLACK;
    int sampleFormat = SAMPLEFORMAT_UINT;
    int compression = COMPRESSION_NONE;
    int predictor = 0;                  // 2: horizontal differencing
    bool tiled = false;
    std::uint32_t tileSize = 16;        // tile width and height
    std::uint32_t rowsPerStrip = 3;
    bool bigTiff = false;
    bool bigEndian = false;
    int planar = PLANARCONFIG_CONTIG;
    bool extraAlpha = false;            // an ExtraSamples tag for the last sample
};

// One page of `spec` into the open `tiff`; false when libtiff fails.
inline bool writeTiffPageWithLibtiff(TIFF* tiff, const TiffSpec& spec, const Bytes& data) {
    TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, spec.width);
    TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, spec.height);
    TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, spec.samples);
    TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, spec.bits);
    TIFFSetField(tiff, TIFFTAG_SAMPLEFORMAT, spec.sampleFormat);
    TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, spec.photometric);
    TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, spec.planar);
    TIFFSetField(tiff, TIFFTAG_COMPRESSION, spec.compression);
    if (spec.predictor != 0) TIFFSetField(tiff, TIFFTAG_PREDICTOR, spec.predictor);
    if (spec.extraAlpha) {
        const std::uint16_t extra[1] = {EXTRASAMPLE_UNASSALPHA};
        TIFFSetField(tiff, TIFFTAG_EXTRASAMPLES, 1, extra);
    }
    const std::size_t pixelBytes = std::size_t(spec.samples) * std::size_t(spec.bits / 8);
    const std::size_t rowBytes = spec.width * pixelBytes;
    bool ok = true;
    if (spec.tiled) {
        TIFFSetField(tiff, TIFFTAG_TILEWIDTH, spec.tileSize);
        TIFFSetField(tiff, TIFFTAG_TILELENGTH, spec.tileSize);
        Bytes tile(std::size_t(spec.tileSize) * spec.tileSize * pixelBytes);
        for (std::uint32_t y0 = 0; y0 < spec.height; y0 += spec.tileSize)
            for (std::uint32_t x0 = 0; x0 < spec.width; x0 += spec.tileSize) {
                std::fill(tile.begin(), tile.end(), 0);
                for (std::uint32_t y = y0; y < std::min(spec.height, y0 + spec.tileSize); ++y)
                    for (std::uint32_t x = x0; x < std::min(spec.width, x0 + spec.tileSize); ++x)
                        std::memcpy(&tile[(std::size_t(y - y0) * spec.tileSize + (x - x0)) * pixelBytes],
                                    &data[y * rowBytes + x * pixelBytes], pixelBytes);
                ok = ok && TIFFWriteTile(tiff, tile.data(), x0, y0, 0, 0) >= 0;
            }
    } else {
        TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, spec.rowsPerStrip);
        for (std::uint32_t y = 0; y < spec.height; ++y) {
            Bytes row(data.begin() + std::ptrdiff_t(y * rowBytes), data.begin() + std::ptrdiff_t((y + 1) * rowBytes));
            ok = ok && TIFFWriteScanline(tiff, row.data(), y, 0) == 1;
        }
    }
    return ok;
}

// A stack: page i of `specs[i]` holding `data[i]`, in one file (the byte
// order and BigTIFF of the first spec).
inline void writeTiffStackWithLibtiff(const std::string& path, const std::vector<TiffSpec>& specs,
                                      const std::vector<Bytes>& data) {
    REQUIRE(!specs.empty());
    REQUIRE(specs.size() == data.size());
    std::string mode = "w";
    if (specs.front().bigTiff) mode += "8";
    mode += specs.front().bigEndian ? "b" : "l";
    TIFF* tiff = TIFFOpen(path.c_str(), mode.c_str());
    REQUIRE(tiff != nullptr);
    bool ok = true;
    for (std::size_t page = 0; page < specs.size(); ++page)
        ok = ok && writeTiffPageWithLibtiff(tiff, specs[page], data[page]) && TIFFWriteDirectory(tiff) == 1;
    TIFFClose(tiff);
    REQUIRE(ok);
}

inline void writeTiffWithLibtiff(const std::string& path, const TiffSpec& spec, const Bytes& data) {
    writeTiffStackWithLibtiff(path, {spec}, {data});
}

// ---- JPEG through libjpeg-turbo. `data` holds 8-bit samples,
// `components` per pixel (1 gray, 3 RGB, 4 CMYK).
struct JpegSpec {
    int width = 16, height = 16, components = 3;
    int quality = 95;
    bool progressive = false;
    bool fullChroma = true;  // no chroma subsampling
};

inline Bytes writeJpegWithLibjpeg(const JpegSpec& spec, const Bytes& data) {
    jpeg_compress_struct info{};
    jpeg_error_mgr errors{};
    info.err = jpeg_std_error(&errors);
    jpeg_create_compress(&info);
    unsigned char* buffer = nullptr;
    unsigned long size = 0;
    jpeg_mem_dest(&info, &buffer, &size);
    info.image_width = JDIMENSION(spec.width);
    info.image_height = JDIMENSION(spec.height);
    info.input_components = spec.components;
    info.in_color_space = spec.components == 1 ? JCS_GRAYSCALE : spec.components == 3 ? JCS_RGB : JCS_CMYK;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, spec.quality, TRUE);
    if (spec.progressive) jpeg_simple_progression(&info);
    if (spec.fullChroma && spec.components == 3)
        for (int c = 0; c < 3; ++c) info.comp_info[c].h_samp_factor = info.comp_info[c].v_samp_factor = 1;
    jpeg_start_compress(&info, TRUE);
    const std::size_t rowBytes = std::size_t(spec.width) * std::size_t(spec.components);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = const_cast<JSAMPROW>(&data[info.next_scanline * rowBytes]);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    Bytes bytes(buffer, buffer + size);
    jpeg_destroy_compress(&info);
    std::free(buffer);
    return bytes;
}

// Deterministic pseudo-random samples.
class Random {
public:
    explicit Random(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}
    std::uint32_t next() {
        state_ ^= state_ << 13;
        state_ ^= state_ >> 7;
        state_ ^= state_ << 17;
        return std::uint32_t(state_ >> 16);
    }
    std::uint32_t below(std::uint32_t bound) { return next() % bound; }

private:
    std::uint64_t state_;
};

inline bool sameImage(const glccl::Image& a, const glccl::Image& b) {
    return a.width == b.width && a.height == b.height && a.channels == b.channels && a.sampleBits == b.sampleBits &&
           a.pixels == b.pixels;
}

}  // namespace iotest

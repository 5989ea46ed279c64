// Image reading and writing: PNG (libpng), PGM/PPM and .npy (glccl's
// parsers), format detection, and the writers (PNG, NPY, CSV). Inputs are
// written by libpng itself or byte by byte from the specifications
// (host_io_support.hpp); expected values are computed here from those
// inputs, never taken from glccl's output. TIFF, JPEG, truncation and
// hostile headers: host_image_formats.cpp.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/image_io.hpp"
#include "glccl/npy_image_writer.hpp"
#include "glccl/reference.hpp"
#include "host_io_support.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using glccl::ChannelMode;
using glccl::Image;
using glccl::Labeling;
using namespace iotest;

namespace {

// Samples spread over the whole range of `sampleBits` bits.
Image gradient(int w, int h, int channels, int sampleBits = 8) {
    Image image(w, h, channels, sampleBits);
    const std::uint64_t range = sampleBits == 32 ? 0x100000000ull : (1ull << sampleBits);
    for (std::size_t i = 0; i < std::size_t(w) * h; ++i)
        for (int c = 0; c < channels; ++c)
            image.setSample(i, c, std::uint32_t(((i * 2654435761ull) + std::uint64_t(c) * 977 + i / 7) % range));
    return image;
}

Labeling smallLabeling() {
    Image image(5, 3, 1);
    // 1 1 0 0 1
    // 0 1 0 1 1
    // 0 0 0 0 1
    for (auto [x, y] : {std::pair{0, 0}, {1, 0}, {4, 0}, {1, 1}, {3, 1}, {4, 1}, {4, 2}}) image.at(x, y) = 255;
    return glccl::labelReference(image, glccl::Connectivity::Four, glccl::Criterion::binary());
}

// libpng's rgb_to_gray with OpenCV's weights (png_set_rgb_to_gray(png, 1,
// 0.299, 0.587)) and no gamma: the coefficients are 0.299 and 0.587 of 32768
// truncated (9797, 19234), blue the rest (3737); libpng 1.6 truncates the
// 8-bit sum and rounds the 16-bit one (pngrtran.c, png_do_rgb_to_gray).
std::uint32_t pngLuma(std::uint32_t r, std::uint32_t g, std::uint32_t b, int sampleBits = 8) {
    return (9797 * r + 19234 * g + 3737 * b + (sampleBits == 16 ? 16384 : 0)) >> 15;
}

// A row of PNG samples from values: big-endian 16-bit, packed below 8 bits.
Bytes pngRow(const std::vector<std::uint32_t>& values, int bitDepth) {
    Bytes row;
    if (bitDepth >= 8) {
        for (std::uint32_t v : values) {
            if (bitDepth == 16) row.push_back(std::uint8_t(v >> 8));
            row.push_back(std::uint8_t(v & 0xFF));
        }
        return row;
    }
    const int perByte = 8 / bitDepth;
    row.assign((values.size() + std::size_t(perByte) - 1) / std::size_t(perByte), 0);
    for (std::size_t i = 0; i < values.size(); ++i)
        row[i / std::size_t(perByte)] |= std::uint8_t(values[i] << (8 - bitDepth * int(i % std::size_t(perByte) + 1)));
    return row;
}

// A hand-built .npy file (format 1.0) with this header dict and data.
Bytes npyBytes(const std::string& dict, const Bytes& data) {
    std::string header = dict;
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    Bytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    appendLe16(out, std::uint32_t(header.size()));
    append(out, header);
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

template <class T>
Bytes littleEndian(const std::vector<T>& values) {
    Bytes bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

// The values in the opposite byte order ('>u2', '>f8', ...).
template <class T>
Bytes bigEndian(const std::vector<T>& values) {
    Bytes bytes = littleEndian(values);
    for (std::size_t i = 0; i < bytes.size(); i += sizeof(T)) std::reverse(bytes.begin() + std::ptrdiff_t(i),
                                                                           bytes.begin() + std::ptrdiff_t(i + sizeof(T)));
    return bytes;
}

}  // namespace

// ---------------------------------------------------------------- PNG

TEST_CASE("image_io: PNG round trip through writePng, 8 and 16 bits, gray and RGBA", "[host]") {
    TempDir dir;
    for (auto [w, h] : {std::pair{1, 1}, {1, 9}, {9, 1}, {37, 53}, {256, 3}}) {
        for (int channels : {1, 4}) {
            for (int sampleBits : {8, 16}) {
                INFO(w << "x" << h << "x" << channels << " at " << sampleBits << " bits");
                const Image image = gradient(w, h, channels, sampleBits);
                const std::string path = dir.file("rt.png");
                glccl::writePng(path, image, true);
                const Bytes file = readBytes(path);
                REQUIRE(file.size() > 8);
                CHECK(Bytes(file.begin(), file.begin() + 8) == Bytes{137, 80, 78, 71, 13, 10, 26, 10});
                CHECK(sameImage(glccl::readImage(path, ChannelMode::Natural), image));
            }
        }
    }
}

TEST_CASE("image_io: writePng compresses, and refuses 32-bit samples", "[host]") {
    TempDir dir;
    // A flat 1024x1024 RGBA picture is 4 MiB of samples.
    Image flat(1024, 1024, 4);
    std::fill(flat.pixels.begin(), flat.pixels.end(), 200);
    glccl::writePng(dir.file("flat.png"), flat, false);
    CHECK(readBytes(dir.file("flat.png")).size() < 64 * 1024);
    CHECK(sameImage(glccl::readImage(dir.file("flat.png")), flat));
    CHECK_THROWS_WITH(glccl::writePng(dir.file("deep.png"), Image(2, 2, 1, 32), false),
                      StartsWith("glccl::writePng(): ") && Contains("32-bit") && Contains("at most 16 bits"));
    CHECK_FALSE(fs::exists(dir.file("deep.png")));
}

TEST_CASE("image_io: PNG of every color type and bit depth reads at its own sample bits", "[host]") {
    TempDir dir;
    Random random(7);
    const std::uint32_t w = 7, h = 5;
    for (bool interlaced : {false, true}) {
        SECTION(interlaced ? "Adam7 interlaced" : "not interlaced") {
            // Gray at 1, 2, 4, 8 and 16 bits: below 8 bits the levels are
            // spread over 0..255 (PNG spec, "sample sampleBits scaling").
            for (int bitDepth : {1, 2, 4, 8, 16}) {
                INFO("gray, " << bitDepth << " bits");
                const std::uint32_t levels = 1u << bitDepth;
                std::vector<std::vector<std::uint32_t>> values(h, std::vector<std::uint32_t>(w));
                std::vector<Bytes> rows;
                for (auto& row : values) {
                    for (auto& v : row) v = random.below(levels);
                    rows.push_back(pngRow(row, bitDepth));
                }
                PngSpec spec;
                spec.width = w, spec.height = h, spec.bitDepth = bitDepth, spec.interlaced = interlaced;
                writePngWithLibpng(dir.file("g.png"), spec, rows);
                for (ChannelMode mode : {ChannelMode::Natural, ChannelMode::Gray}) {
                    const Image image = glccl::readImage(dir.file("g.png"), mode);
                    REQUIRE(image.channels == 1);
                    REQUIRE(image.sampleBits == (bitDepth == 16 ? 16 : 8));
                    for (std::uint32_t y = 0; y < h; ++y)
                        for (std::uint32_t x = 0; x < w; ++x) {
                            const std::uint32_t v = values[y][x];
                            const std::uint32_t expected = bitDepth >= 8 ? v : v * 255 / (levels - 1);
                            if (image.sample(int(x), int(y)) != expected)
                                FAIL("(" << x << ", " << y << ") is " << image.sample(int(x), int(y)) << ", not "
                                         << expected);
                        }
                }
            }
            // RGB and RGBA at 8 and 16 bits: RGBA exactly (opaque alpha for
            // RGB), and as gray libpng's luma.
            for (int bitDepth : {8, 16}) {
                for (int colorType : {PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA, PNG_COLOR_TYPE_GRAY_ALPHA}) {
                    INFO("color type " << colorType << ", " << bitDepth << " bits");
                    const int samples = colorType == PNG_COLOR_TYPE_RGB ? 3 : colorType == PNG_COLOR_TYPE_RGB_ALPHA ? 4 : 2;
                    const std::uint32_t top = bitDepth == 16 ? 65536 : 256;
                    std::vector<std::vector<std::uint32_t>> values(h, std::vector<std::uint32_t>(w * std::uint32_t(samples)));
                    std::vector<Bytes> rows;
                    for (auto& row : values) {
                        for (auto& v : row) v = random.below(top);
                        rows.push_back(pngRow(row, bitDepth));
                    }
                    PngSpec spec;
                    spec.width = w, spec.height = h, spec.bitDepth = bitDepth, spec.colorType = colorType;
                    spec.interlaced = interlaced;
                    writePngWithLibpng(dir.file("c.png"), spec, rows);
                    const Image natural = glccl::readImage(dir.file("c.png"), ChannelMode::Natural);
                    const Image gray = glccl::readImage(dir.file("c.png"), ChannelMode::Gray);
                    const bool color = colorType != PNG_COLOR_TYPE_GRAY_ALPHA;
                    REQUIRE(natural.channels == (color ? 4 : 1));
                    REQUIRE(natural.sampleBits == bitDepth);
                    REQUIRE(gray.channels == 1);
                    REQUIRE(gray.sampleBits == bitDepth);
                    for (std::uint32_t y = 0; y < h; ++y)
                        for (std::uint32_t x = 0; x < w; ++x) {
                            const std::uint32_t* v = &values[y][x * std::uint32_t(samples)];
                            if (!color) {
                                CHECK(natural.sample(int(x), int(y)) == v[0]);  // alpha dropped
                                CHECK(gray.sample(int(x), int(y)) == v[0]);
                                continue;
                            }
                            for (int c = 0; c < 3; ++c) CHECK(natural.sample(int(x), int(y), c) == v[c]);
                            CHECK(natural.sample(int(x), int(y), 3) == (samples == 4 ? v[3] : top - 1));
                            CHECK(gray.sample(int(x), int(y)) == pngLuma(v[0], v[1], v[2], bitDepth));
                        }
                }
            }
        }
    }
}

TEST_CASE("image_io: palette and tRNS PNGs", "[host]") {
    TempDir dir;
    PngSpec spec;
    spec.width = 4, spec.height = 1, spec.bitDepth = 2, spec.colorType = PNG_COLOR_TYPE_PALETTE;
    spec.palette = {{10, 20, 30}, {200, 100, 0}, {0, 0, 255}, {7, 7, 7}};
    spec.transparency = {255, 0};  // entry 1 fully transparent, the rest opaque
    writePngWithLibpng(dir.file("p.png"), spec, {pngRow({0, 1, 2, 3}, 2)});
    const Image rgba = glccl::readImage(dir.file("p.png"), ChannelMode::Natural);
    REQUIRE(rgba.channels == 4);
    CHECK(rgba.pixels == Bytes{10, 20, 30, 255, 200, 100, 0, 0, 0, 0, 255, 255, 7, 7, 7, 255});
    const Image gray = glccl::readImage(dir.file("p.png"), ChannelMode::Gray);
    REQUIRE(gray.channels == 1);
    CHECK(gray.pixels == Bytes{std::uint8_t(pngLuma(10, 20, 30)), std::uint8_t(pngLuma(200, 100, 0)),
                               std::uint8_t(pngLuma(0, 0, 255)), 7});

    PngSpec keyed;
    keyed.width = 2, keyed.height = 1, keyed.colorType = PNG_COLOR_TYPE_RGB;
    keyed.transparentRgb[0] = 1, keyed.transparentRgb[1] = 2, keyed.transparentRgb[2] = 3;
    writePngWithLibpng(dir.file("k.png"), keyed, {Bytes{1, 2, 3, 4, 5, 6}});
    CHECK(glccl::readImage(dir.file("k.png")).pixels == Bytes{1, 2, 3, 0, 4, 5, 6, 255});

    PngSpec grayKey;
    grayKey.width = 2, grayKey.height = 1, grayKey.transparentGray = 9;
    writePngWithLibpng(dir.file("gk.png"), grayKey, {Bytes{9, 10}});
    const Image g = glccl::readImage(dir.file("gk.png"));
    REQUIRE(g.channels == 1);
    CHECK(g.pixels == Bytes{9, 10});
}

TEST_CASE("image_io: a PNG with gAMA becomes luma in linear light, as libpng (and OpenCV) compute it", "[host]") {
    TempDir dir;
    // gAMA 1/2.2 (stored as 45455): libpng's rgb_to_gray of an 8-bit file
    // maps each sample to linear light through an 8-bit table (exponent
    // 1/0.45455), weighs and rounds, and maps back through another
    // (exponent 0.45455): pngrtran.c, png_build_gamma_table and
    // png_do_rgb_to_gray. Computed here from that description.
    const auto table = [](std::uint32_t v, double exponent) {
        return std::uint32_t(std::floor(255.0 * std::pow(v / 255.0, exponent) + 0.5));
    };
    const double fileGamma = 0.45455;
    const std::uint32_t colors[][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {30, 10, 5},
                                       {90, 90, 90}, {250, 240, 10}, {30, 0, 0}, {128, 64, 32}};
    Bytes row;
    for (const auto& c : colors) append(row, {int(c[0]), int(c[1]), int(c[2])});
    PngSpec spec;
    spec.width = std::uint32_t(std::size(colors)), spec.colorType = PNG_COLOR_TYPE_RGB, spec.gamma = 1.0 / 2.2;
    writePngWithLibpng(dir.file("gamma.png"), spec, {row});
    const Image gray = glccl::readImage(dir.file("gamma.png"), ChannelMode::Gray);
    REQUIRE(gray.width == int(std::size(colors)));
    for (std::size_t i = 0; i < std::size(colors); ++i) {
        const std::uint32_t* c = colors[i];
        std::uint32_t expected = c[0];  // gray colors pass unchanged
        if (c[0] != c[1] || c[0] != c[2]) {
            const std::uint32_t r = table(c[0], 1.0 / fileGamma), g = table(c[1], 1.0 / fileGamma),
                                b = table(c[2], 1.0 / fileGamma);
            expected = table((9797 * r + 19234 * g + 3737 * b + 16384) >> 15, fileGamma);
        }
        INFO("color " << i << ": " << gray.sample(i) << " vs " << expected);
        CHECK(std::abs(double(gray.sample(i)) - double(expected)) <= 1.0);
    }
    // Pure red: 76 without gamma, 147 in linear light; the test tells them apart.
    CHECK(gray.sample(std::size_t(0)) > 140);
}

TEST_CASE("image_io: hand-built PNGs: 16-bit gray keeps all 16 bits", "[host]") {
    TempDir dir;
    // Two rows of two 16-bit big-endian samples, each row led by filter 0.
    const Bytes scanlines = {0, 0xAB, 0xCD, 0x12, 0x34, 0, 0xFF, 0xFF, 0x00, 0xFF};
    writeBytes(dir.file("gray16.png"), makePng(2, 2, 16, 0, scanlines));
    const Image image = glccl::readImage(dir.file("gray16.png"));
    REQUIRE(image.channels == 1);
    REQUIRE(image.sampleBits == 16);
    CHECK(image.sample(0, 0) == 0xABCD);
    CHECK(image.sample(1, 0) == 0x1234);
    CHECK(image.sample(0, 1) == 0xFFFF);
    CHECK(image.sample(1, 1) == 0x00FF);
}

// ---------------------------------------------------------------- PGM / PPM

TEST_CASE("image_io: reads hand-written PGM and PPM at 8 and 16 bits", "[host]") {
    TempDir dir;
    SECTION("P5 with a comment") {
        Bytes pgm;
        append(pgm, "P5\n# made by hand\n3 2\n255\n");
        append(pgm, {0, 1, 2, 253, 254, 255});
        writeBytes(dir.file("a.pgm"), pgm);
        const Image image = glccl::readImage(dir.file("a.pgm"));
        REQUIRE(image.width == 3);
        REQUIRE(image.height == 2);
        REQUIRE(image.channels == 1);
        REQUIRE(image.sampleBits == 8);
        CHECK(image.pixels == Bytes{0, 1, 2, 253, 254, 255});
    }
    SECTION("P5 with 16-bit big-endian samples keeps them whole") {
        Bytes pgm;
        append(pgm, "P5 3 1 65535\n");
        append(pgm, {0x80, 0x01, 0x01, 0xFF, 0x01, 0x00});
        writeBytes(dir.file("b.pgm"), pgm);
        const Image image = glccl::readImage(dir.file("b.pgm"));
        REQUIRE(image.channels == 1);
        REQUIRE(image.sampleBits == 16);
        CHECK(image.sample(0, 0) == 0x8001);
        CHECK(image.sample(1, 0) == 0x01FF);
        CHECK(image.sample(2, 0) == 256);
    }
    SECTION("maxval 1000: values as stored, not rescaled; one above maxval is refused") {
        Bytes pgm;
        append(pgm, "P5 2 1 1000\n");
        append(pgm, {0x03, 0xE8, 0x00, 0x07});
        writeBytes(dir.file("m.pgm"), pgm);
        const Image image = glccl::readImage(dir.file("m.pgm"));
        CHECK(image.sample(0, 0) == 1000);
        CHECK(image.sample(1, 0) == 7);
        pgm[pgm.size() - 3] = 0xE9;  // 1001
        writeBytes(dir.file("m.pgm"), pgm);
        CHECK_THROWS_WITH(glccl::readImage(dir.file("m.pgm")), Contains("above maxval 1000"));
    }
    SECTION("P6, 8 and 16 bits; gray is OpenCV's BT.601 luma in 14-bit fixed point") {
        Bytes ppm;
        append(ppm, "P6\n2 1\n255\n");
        append(ppm, {10, 20, 30, 200, 100, 50});
        writeBytes(dir.file("c.ppm"), ppm);
        const Image image = glccl::readImage(dir.file("c.ppm"));
        REQUIRE(image.channels == 4);
        CHECK(image.pixels == Bytes{10, 20, 30, 255, 200, 100, 50, 255});
        const Image gray = glccl::readImage(dir.file("c.ppm"), ChannelMode::Gray);
        REQUIRE(gray.channels == 1);
        // cv::cvtColor(COLOR_RGB2GRAY): R 4899, G 9617, B 1868 of 2^14, rounded.
        CHECK(gray.sample(0, 0) == (10u * 4899 + 20u * 9617 + 30u * 1868 + 8192) >> 14);
        CHECK(gray.sample(1, 0) == (200u * 4899 + 100u * 9617 + 50u * 1868 + 8192) >> 14);

        Bytes ppm16;
        append(ppm16, "P6 1 1 65535\n");
        append(ppm16, {0xFF, 0xFE, 0x12, 0x34, 0x00, 0x01});
        writeBytes(dir.file("d.ppm"), ppm16);
        const Image deep = glccl::readImage(dir.file("d.ppm"));
        REQUIRE(deep.sampleBits == 16);
        CHECK(deep.sample(0, 0, 0) == 0xFFFE);
        CHECK(deep.sample(0, 0, 1) == 0x1234);
        CHECK(deep.sample(0, 0, 2) == 1);
        CHECK(deep.sample(0, 0, 3) == 0xFFFF);
        const Image deepGray = glccl::readImage(dir.file("d.ppm"), ChannelMode::Gray);
        CHECK(deepGray.sample(0, 0) == (0xFFFEu * 4899 + 0x1234u * 9617 + 1u * 1868 + 8192) >> 14);
    }
}

TEST_CASE("image_io: rejects truncated PGM data and overlong header numbers", "[host]") {
    TempDir dir;
    Bytes shortPgm;
    append(shortPgm, "P5\n4 4\n255\n");
    append(shortPgm, {1, 2, 3});
    writeBytes(dir.file("short.pgm"), shortPgm);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("short.pgm")),
                      StartsWith("glccl::readImage(): ") && Contains("truncated"));

    Bytes longNumber;
    append(longNumber, "P5\n99999999999 1\n255\n");
    writeBytes(dir.file("long.pgm"), longNumber);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("long.pgm")),
                      StartsWith("glccl::readImage(): ") && Contains("longer than 9 digits"));

    Bytes chatty;
    append(chatty, "P5\n");
    for (int i = 0; i < 100; ++i) append(chatty, "# a long comment line that pushes the header past 4 KiB\n");
    append(chatty, "2 1\n255\n");
    append(chatty, {1, 2});
    writeBytes(dir.file("chatty.pgm"), chatty);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("chatty.pgm")), Contains("header is longer than"));
}

// ---------------------------------------------------------------- format detection

TEST_CASE("image_io: refuses a well-formed 24-bit BMP, naming the format", "[host]") {
    TempDir dir;
    // 3x2, bottom-up rows of BGR padded to 4 bytes (9 + 3).
    const int w = 3, h = 2, rowBytes = 12;
    Bytes bmp;
    append(bmp, "BM");
    appendLe32(bmp, 54 + rowBytes * h);  // file size
    appendLe32(bmp, 0);                  // reserved
    appendLe32(bmp, 54);                 // pixel data offset
    appendLe32(bmp, 40);                 // BITMAPINFOHEADER
    appendLe32(bmp, w);
    appendLe32(bmp, h);
    appendLe16(bmp, 1);                  // planes
    appendLe16(bmp, 24);                 // bits per pixel
    appendLe32(bmp, 0);                  // BI_RGB
    appendLe32(bmp, rowBytes * h);
    appendLe32(bmp, 2835);
    appendLe32(bmp, 2835);
    appendLe32(bmp, 0);
    appendLe32(bmp, 0);
    // Bottom row (y = 1) first: blue, green, red pixels.
    append(bmp, {255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0});
    // Top row (y = 0): (1,2,3), (4,5,6), (7,8,9) as RGB.
    append(bmp, {3, 2, 1, 6, 5, 4, 9, 8, 7, 0, 0, 0});
    writeBytes(dir.file("a.bmp"), bmp);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("a.bmp")),
                      StartsWith("glccl::readImage(): ") && Contains("a BMP file, which is not supported"));
    // Under another name too: the signature decides, not the extension.
    writeBytes(dir.file("a.png"), bmp);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("a.png")), Contains("a BMP file, which is not supported"));
}

TEST_CASE("image_io: refuses well-formed TGA files, naming the format", "[host]") {
    TempDir dir;
    auto tgaHeader = [](int imageType, int w, int h, int bits, int descriptor) {
        Bytes tga = {0, 0, std::uint8_t(imageType), 0, 0, 0, 0, 0, 0, 0, 0, 0};
        appendLe16(tga, std::uint32_t(w));
        appendLe16(tga, std::uint32_t(h));
        append(tga, {bits, descriptor});
        return tga;
    };
    SECTION("uncompressed true color, bottom-left origin") {
        Bytes tga = tgaHeader(2, 2, 2, 24, 0);
        append(tga, {30, 20, 10, 60, 50, 40});       // bottom row, BGR
        append(tga, {3, 2, 1, 6, 5, 4});             // top row
        writeBytes(dir.file("a.tga"), tga);
        CHECK_THROWS_WITH(glccl::readImage(dir.file("a.tga")), Contains("a TGA file, which is not supported"));
    }
    SECTION("uncompressed gray, top-left origin") {
        Bytes tga = tgaHeader(3, 3, 1, 8, 0x20);
        append(tga, {7, 8, 9});
        writeBytes(dir.file("b.tga"), tga);
        CHECK_THROWS_WITH(glccl::readImage(dir.file("b.tga")), Contains("a TGA file, which is not supported"));
        // Without the name it is no known format at all.
        writeBytes(dir.file("b.dat"), tga);
        CHECK_THROWS_WITH(glccl::readImage(dir.file("b.dat")), Contains("not an image in a supported format"));
    }
}

TEST_CASE("image_io: refuses GIF, PSD, HDR and ASCII PNM by name", "[host]") {
    TempDir dir;
    // A complete 1x1 GIF89a.
    const Bytes gif = {'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255,
                       0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3B};
    writeBytes(dir.file("a.gif"), gif);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("a.gif")),
                      StartsWith("glccl::readImage(): ") && Contains("GIF") && Contains("not supported") &&
                          Contains("PNG"));

    Bytes psd;
    append(psd, "8BPS");
    append(psd, {0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 8, 0, 3});
    writeBytes(dir.file("a.psd"), psd);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("a.psd")), Contains("PSD") && Contains("not supported"));

    Bytes hdr;
    append(hdr, "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 1\n");
    append(hdr, {128, 128, 128, 128});
    writeBytes(dir.file("a.hdr"), hdr);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("a.hdr")), Contains("HDR") && Contains("not supported"));

    Bytes asciiPgm;
    append(asciiPgm, "P2\n1 1\n255\n7\n");
    writeBytes(dir.file("ascii.pgm"), asciiPgm);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("ascii.pgm")), Contains("not supported"));
}

TEST_CASE("image_io: rejects missing, empty and garbage files", "[host]") {
    TempDir dir;
    const std::string missing = dir.file("missing.png");
    CHECK_THROWS_WITH(glccl::readImage(missing), StartsWith("glccl::readImage(): ") && Contains("cannot open") &&
                                                     Contains("missing.png") && Contains("No such file"));

    writeBytes(dir.file("empty.png"), {});
    CHECK_THROWS_WITH(glccl::readImage(dir.file("empty.png")), StartsWith("glccl::readImage(): ") && Contains("empty"));

    Bytes garbage;
    append(garbage, "this is not an image, just some text that goes on for a while\n");
    writeBytes(dir.file("garbage.png"), garbage);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("garbage.png")),
                      StartsWith("glccl::readImage(): ") && Contains("not an image in a supported format") &&
                          Contains("PNG") && Contains("JPEG") && Contains("TIFF"));

    CHECK_THROWS_WITH(glccl::readImage(dir.file("")), StartsWith("glccl::readImage(): ") && Contains("directory"));
}

TEST_CASE("image_io: rejects oversized and zero-sized images with their size, from the header", "[host]") {
    TempDir dir;
    Bytes huge = pngHeader(100000, 100000, 8, 0);
    appendChunk(huge, "IEND", {});
    writeBytes(dir.file("huge.png"), huge);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("huge.png")),
                      StartsWith("glccl::readImage(): ") && Contains("100000x100000") && Contains("32768"));

    Bytes wide = pngHeader(40000, 2, 8, 0);
    appendChunk(wide, "IEND", {});
    writeBytes(dir.file("wide.png"), wide);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("wide.png")), Contains("40000x2") && Contains("32768"));

    Bytes tallPgm;
    append(tallPgm, "P5\n1 40000\n255\n");
    writeBytes(dir.file("tall.pgm"), tallPgm);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("tall.pgm")), Contains("1x40000") && Contains("32768"));

    Bytes zeroWidth;
    append(zeroWidth, "P5\n0 4\n255\n");
    writeBytes(dir.file("zero.pgm"), zeroWidth);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("zero.pgm")),
                      StartsWith("glccl::readImage(): ") && Contains("no pixels") && Contains("0x4"));

    Bytes bigPgm;
    append(bigPgm, "P5\n50000 3\n255\n");
    bigPgm.resize(bigPgm.size() + 50000 * 3, 0);
    writeBytes(dir.file("big.pgm"), bigPgm);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("big.pgm")), Contains("50000x3") && Contains("32768"));
}

// ---------------------------------------------------------------- NumPy

TEST_CASE("image_io: reads .npy images of every accepted dtype and order at the dtype's sample bits", "[host]") {
    TempDir dir;
    // A 2x3 image, rows (0 1 2) (250 0 255) and, for the deep dtypes,
    // values past 8 and 16 bits.
    auto check = [&](const std::string& name, const std::string& dict, const Bytes& data, int sampleBits,
                     const std::vector<std::uint32_t>& expected) {
        writeBytes(dir.file(name), npyBytes(dict, data));
        const Image image = glccl::readImage(dir.file(name));
        INFO(name);
        REQUIRE(image.width == 3);
        REQUIRE(image.height == 2);
        REQUIRE(image.channels == 1);
        REQUIRE(image.sampleBits == sampleBits);
        for (std::size_t i = 0; i < expected.size(); ++i) CHECK(image.sample(i) == expected[i]);
    };
    const std::vector<std::uint32_t> small = {0, 1, 2, 250, 0, 255};
    check("c.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }", {0, 1, 2, 250, 0, 255}, 8, small);
    // Fortran order stores columns: (0 250) (1 0) (2 255).
    check("f.npy", "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3), }", {0, 250, 1, 0, 2, 255}, 8, small);
    check("b1.npy", "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 3), }", {0, 1, 1, 0, 0, 1}, 8,
          {0, 1, 1, 0, 0, 1});
    const std::vector<std::uint32_t> wide = {0, 256, 257, 65535, 300, 1};
    check("u2.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }",
          littleEndian(std::vector<std::uint16_t>{0, 256, 257, 65535, 300, 1}), 16, wide);
    const std::vector<std::uint32_t> deep = {0, 70000, 0x7FFFFFFF, 16777217, 5, 1};
    check("i4.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
          littleEndian(std::vector<std::int32_t>{0, 70000, 0x7FFFFFFF, 16777217, 5, 1}), 32, deep);
    check("u4.npy", "{'descr': '<u4', 'fortran_order': False, 'shape': (2, 3), }",
          littleEndian(std::vector<std::uint32_t>{0, 70000, 0xFFFFFFFFu, 16777217, 5, 1}), 32,
          {0, 70000, 0xFFFFFFFFu, 16777217, 5, 1});
    check("f4.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
          littleEndian(std::vector<float>{0.0f, 1.0f, 2.0f, 250.0f, 4294967040.0f, 16777216.0f}), 32,
          {0, 1, 2, 250, 4294967040u, 16777216});
    // (H, W, C) in Fortran order: C-major, then columns.
    writeBytes(dir.file("f3.npy"), npyBytes("{'descr': '<u2', 'fortran_order': True, 'shape': (1, 2, 3), }",
                                            littleEndian(std::vector<std::uint16_t>{1, 4, 2, 5, 3, 600})));
    const Image f3 = glccl::readImage(dir.file("f3.npy"), ChannelMode::Natural, glccl::NpyChannelAxis::Last);
    REQUIRE(f3.channels == 4);
    REQUIRE(f3.sampleBits == 16);
    CHECK(std::vector<std::uint64_t>{f3.sample(0, 0, 0), f3.sample(0, 0, 1), f3.sample(0, 0, 2), f3.sample(0, 0, 3),
                                     f3.sample(1, 0, 0), f3.sample(1, 0, 1), f3.sample(1, 0, 2), f3.sample(1, 0, 3)} ==
          std::vector<std::uint64_t>{1, 2, 3, 65535, 4, 5, 600, 65535});
    // The uint8 array glccl generate writes reads back as the same image.
    const Image noise = glccl::generateFamily("noise50", 37, 23, 4);
    glccl::writeImageNpy(dir.file("noise.npy"), noise, false);
    CHECK(sameImage(glccl::readImage(dir.file("noise.npy")), noise));
    // writeImageNpy at 16 and 32 bits reads back whole too.
    for (int sampleBits : {16, 32}) {
        const Image image = gradient(5, 4, 1, sampleBits);
        const std::string path = dir.file("deep" + std::to_string(sampleBits) + ".npy");
        glccl::writeImageNpy(path, image, false);
        CHECK(sameImage(glccl::readImage(path), image));
    }
}

TEST_CASE("image_io: refuses .npy images it cannot take exactly, from the header where it can", "[host]") {
    TempDir dir;
    auto refuse = [&](const std::string& name, const std::string& dict, const Bytes& data, const std::string& why) {
        writeBytes(dir.file(name), npyBytes(dict, data));
        INFO(name);
        CHECK_THROWS_WITH(glccl::readImage(dir.file(name)), StartsWith("glccl::readImage(): ") && Contains(why));
    };
    refuse("negative.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 2), }",
           littleEndian(std::vector<std::int32_t>{1, -3}), "-3");
    refuse("half.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }",
           littleEndian(std::vector<float>{0.5f}), "never rounded");
    refuse("nan.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }",
           littleEndian(std::vector<float>{std::nanf("")}), "is not an unsigned integer");
    refuse("over.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }",
           littleEndian(std::vector<float>{4294967296.0f}), "is not an unsigned integer");
    refuse("cut.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (4, 4), }", Bytes(10, 1), "truncated");
    refuse("long.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2), }", Bytes(3, 1), "bytes after");
    refuse("huge.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (100000, 100000), }", {},
           "largest accepted side");
    refuse("cube.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2, 2, 2), }", Bytes(16, 1),
           "images are (height, width)");
    refuse("f2.npy", "{'descr': '<f2', 'fortran_order': False, 'shape': (1, 1), }", Bytes(2, 0), "'<f2'");
    refuse("c8.npy", "{'descr': '<c8', 'fortran_order': False, 'shape': (1, 1), }", Bytes(8, 0), "'<c8'");
    // Color for binary or segments (gray mode) is refused, not converted.
    writeBytes(dir.file("rgb.npy"), npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (1, 1, 3), }",
                                             {1, 2, 3}));
    CHECK_THROWS_WITH(glccl::readImage(dir.file("rgb.npy"), ChannelMode::Gray, glccl::NpyChannelAxis::Last),
                      Contains("3 channels"));
    // Without a channel axis a 3-D array is a volume (scikit-image's and
    // scipy's convention: depth, height, width); a named channel axis on a
    // 2-D array is refused.
    const Image volume = glccl::readImage(dir.file("rgb.npy"), ChannelMode::Natural);
    CHECK(volume.shape() == glccl::Shape::volume(3, 1, 1));
    CHECK(volume.channels == 1);
    writeBytes(dir.file("gray.npy"), npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2), }", {1, 2}));
    CHECK_THROWS_WITH(glccl::readImage(dir.file("gray.npy"), ChannelMode::Gray, glccl::NpyChannelAxis::Last),
                      Contains("is 2-D but a channel axis was named"));
}

TEST_CASE("image_io: reads every .npy dtype numpy writes by default, in either byte order, exactly", "[host]") {
    TempDir dir;
    const auto dict = [](const std::string& descr, const std::string& shape = "(2, 3)") {
        return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    };
    int files = 0;
    auto check = [&](const std::string& descr, const Bytes& data, int sampleBits,
                     const std::vector<std::uint64_t>& expected) {
        const std::string path = dir.file("dtype" + std::to_string(files++) + ".npy");
        writeBytes(path, npyBytes(dict(descr), data));
        INFO(descr);
        const Image image = glccl::readImage(path);
        REQUIRE(image.shape() == glccl::Shape::image(3, 2));
        REQUIRE(image.sampleBits == sampleBits);
        for (std::size_t i = 0; i < expected.size(); ++i) CHECK(image.sample(i) == expected[i]);
    };
    check("|i1", littleEndian(std::vector<std::int8_t>{0, 1, 2, 127, 0, 5}), 8, {0, 1, 2, 127, 0, 5});
    const std::vector<std::int16_t> i2 = {0, 256, 32767, 300, 1, 2};
    check("<i2", littleEndian(i2), 16, {0, 256, 32767, 300, 1, 2});
    check(">i2", bigEndian(i2), 16, {0, 256, 32767, 300, 1, 2});
    check(">u2", bigEndian(std::vector<std::uint16_t>{0, 256, 257, 65535, 300, 1}), 16, {0, 256, 257, 65535, 300, 1});
    check(">u4", bigEndian(std::vector<std::uint32_t>{0, 70000, 0xFFFFFFFFu, 16777217, 5, 1}), 32,
          {0, 70000, 0xFFFFFFFFu, 16777217, 5, 1});
    check(">i4", bigEndian(std::vector<std::int32_t>{0, 70000, 0x7FFFFFFF, 16777217, 5, 1}), 32,
          {0, 70000, 0x7FFFFFFF, 16777217, 5, 1});
    check(">f4", bigEndian(std::vector<float>{0.0f, 1.0f, 2.0f, 250.0f, 4294967040.0f, 16777216.0f}), 32,
          {0, 1, 2, 250, 4294967040u, 16777216});
    // 64-bit integers keep every bit: ids past 2^32 whose low halves collide.
    const std::uint64_t above = (std::uint64_t(1) << 32) + 1;
    const std::vector<std::uint64_t> u8 = {0, above, 1, ~std::uint64_t(0), std::uint64_t(1) << 63, 5};
    check("<u8", littleEndian(u8), 64, u8);
    check(">u8", bigEndian(u8), 64, u8);
    const std::vector<std::int64_t> i8 = {0, std::int64_t(above), 1, INT64_MAX, std::int64_t(1) << 40, 5};
    const std::vector<std::uint64_t> i8Values(i8.begin(), i8.end());
    check("<i8", littleEndian(i8), 64, i8Values);
    check(">i8", bigEndian(i8), 64, i8Values);
    // float64 becomes 64-bit samples: whole values below 2^64, exactly.
    const std::vector<double> f8 = {0.0, 1.0, 9007199254740992.0, 9007199254740994.0, 18446744073709549568.0,
                                    4294967297.0};
    const std::vector<std::uint64_t> f8Values = {0, 1, 9007199254740992ull, 9007199254740994ull,
                                                 18446744073709549568ull, 4294967297ull};
    check("<f8", littleEndian(f8), 64, f8Values);
    check(">f8", bigEndian(f8), 64, f8Values);

    // A 64-bit image written by writeImageNpy ('<u8') reads back whole.
    Image wide(glccl::Shape::image(3, 2), 1, 64);
    for (std::size_t i = 0; i < 6; ++i) wide.setSample(i, 0, u8[i]);
    glccl::writeImageNpy(dir.file("wide.npy"), wide, false);
    CHECK(sameImage(glccl::readImage(dir.file("wide.npy")), wide));
    // A 3-D '<i8' array is a volume of 64-bit samples.
    writeBytes(dir.file("volume.npy"),
               npyBytes(dict("<i8", "(2, 1, 3)"), littleEndian(std::vector<std::int64_t>{0, 1, 2, 3, 4, INT64_MAX})));
    const Image volume = glccl::readImage(dir.file("volume.npy"));
    REQUIRE(volume.shape() == glccl::Shape::volume(3, 1, 2));
    CHECK(volume.sampleBits == 64);
    CHECK(volume.sampleAt(2, 0, 1) == std::uint64_t(INT64_MAX));
}

TEST_CASE("image_io: refuses .npy values a criterion cannot take, with the value and its position", "[host]") {
    TempDir dir;
    auto refuse = [&](const std::string& name, const std::string& descr, const std::string& shape, const Bytes& data,
                      const std::string& why) {
        writeBytes(dir.file(name), npyBytes("{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape +
                                                ", }",
                                            data));
        INFO(name);
        CHECK_THROWS_WITH(glccl::readImage(dir.file(name)), StartsWith("glccl::readImage(): ") && Contains(why));
    };
    refuse("i8.npy", "<i8", "(2, 3)", littleEndian(std::vector<std::int64_t>{0, 1, 2, 3, 4, -5}),
           "the value -5 at [1, 2] is not an unsigned integer in 0..18446744073709551615");
    refuse("i8_min.npy", ">i8", "(1, 2)", bigEndian(std::vector<std::int64_t>{1, INT64_MIN}),
           "the value -9223372036854775808 at [0, 1]");
    refuse("i2.npy", ">i2", "(1, 2)", bigEndian(std::vector<std::int16_t>{-1, 1}), "-1 at [0, 0]");
    refuse("i1.npy", "|i1", "(1, 2)", littleEndian(std::vector<std::int8_t>{1, -128}), "-128 at [0, 1]");
    refuse("nan.npy", "<f8", "(1, 2)", littleEndian(std::vector<double>{1.0, std::nan("")}), "nan at [0, 1]");
    refuse("inf.npy", ">f8", "(2, 1)", bigEndian(std::vector<double>{1.0, HUGE_VAL}), "inf at [1, 0]");
    refuse("half.npy", "<f8", "(1, 1)", littleEndian(std::vector<double>{2.5}), "2.5 at [0, 0]");
    refuse("two64.npy", "<f8", "(1, 1)", littleEndian(std::vector<double>{18446744073709551616.0}),
           "is not an unsigned integer in 0..18446744073709551615");
    refuse("negative_f4.npy", ">f4", "(1, 1)", bigEndian(std::vector<float>{-1.0f}), "-1 at [0, 0]");
    // A volume's position is (z, y, x).
    refuse("volume.npy", "<i8", "(2, 2, 3)",
           littleEndian(std::vector<std::int64_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -7, 0}),
           "the value -7 at [1, 1, 1] is not an unsigned integer");
}

// ---------------------------------------------------------------- writers

TEST_CASE("image_io: writers refuse to overwrite without overwrite=true", "[host]") {
    TempDir dir;
    const Labeling labeling = smallLabeling();
    const Image image = gradient(3, 3, 1);
    const std::string png = dir.file("out.png"), npy = dir.file("out.npy"), csv = dir.file("out.csv");
    for (const std::string& path : {png, npy, csv}) writeBytes(path, {'o', 'l', 'd'});

    CHECK_THROWS_WITH(glccl::writePng(png, image, false),
                      StartsWith("glccl::writePng(): ") && Contains("already exists") && Contains("--force"));
    CHECK_THROWS_WITH(glccl::writeLabelsNpy(npy, labeling, false),
                      StartsWith("glccl::writeLabelsNpy(): ") && Contains("already exists") && Contains("--force"));
    CHECK_THROWS_WITH(glccl::writeStatsCsv(csv, labeling, false),
                      StartsWith("glccl::writeStatsCsv(): ") && Contains("already exists") && Contains("--force"));
    for (const std::string& path : {png, npy, csv}) CHECK(readBytes(path) == Bytes{'o', 'l', 'd'});

    glccl::writePng(png, image, true);
    glccl::writeLabelsNpy(npy, labeling, true);
    glccl::writeStatsCsv(csv, labeling, true);
    CHECK(sameImage(glccl::readImage(png), image));
    CHECK(readBytes(npy).size() > 3);
    CHECK(readBytes(csv).size() > 3);
}

TEST_CASE("image_io: writers replace a file only with a complete one, and leave nothing else", "[host]") {
    TempDir dir;
    const Labeling labeling = smallLabeling();
    const std::string npy = dir.file("labels.npy");
    writeBytes(npy, {'o', 'l', 'd'});
    // A write that fails at its very end: the target name is a folder, so
    // the finished temporary file cannot take it. Nothing changes.
    const std::string folder = dir.file("taken.npy");
    fs::create_directory(folder);
    CHECK_THROWS_WITH(glccl::writeLabelsNpy(folder, labeling, true),
                      StartsWith("glccl::writeLabelsNpy(): ") && Contains("cannot finish writing"));
    CHECK(fs::is_directory(folder));
    CHECK(fs::is_empty(folder));
    // A successful overwrite swaps the whole file in at once.
    glccl::writeLabelsNpy(npy, labeling, true);
    CHECK(glccl::readLabelsNpy(npy).labels == labeling.labels);
    // No temporary file is left beside the outputs.
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(fs::path(dir.file("")))) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    CHECK(names == std::vector<std::string>{"labels.npy", "taken.npy"});
}

TEST_CASE("image_io: writers report a missing directory", "[host]") {
    TempDir dir;
    const std::string nowhere = dir.file("no/such/dir/out");
    CHECK_THROWS_WITH(glccl::writePng(nowhere + ".png", gradient(2, 2, 1), false),
                      StartsWith("glccl::writePng(): ") && Contains("cannot create") && Contains("No such file"));
    CHECK_THROWS_WITH(glccl::writeLabelsNpy(nowhere + ".npy", smallLabeling(), true),
                      StartsWith("glccl::writeLabelsNpy(): ") && Contains("cannot create"));
    CHECK_THROWS_WITH(glccl::writeStatsCsv(nowhere + ".csv", smallLabeling(), false),
                      StartsWith("glccl::writeStatsCsv(): ") && Contains("cannot create"));
    CHECK_THROWS_WITH(glccl::writePng(dir.file("bad.png"), Image(2, 2, 3), false),
                      StartsWith("glccl::writePng(): ") && Contains("invalid image"));
    CHECK_FALSE(fs::exists(dir.file("bad.png")));
}

TEST_CASE("image_io: writeLabelsNpy writes a valid NPY 1.0 file", "[host]") {
    TempDir dir;
    for (auto [w, h] : {std::pair{5, 3}, {1, 1}, {1, 7}, {300, 2}}) {
        INFO(w << "x" << h);
        Labeling labeling;
        labeling.width = w;
        labeling.height = h;
        for (int i = 0; i < w * h; ++i) labeling.labels.push_back(std::uint32_t(i) * 16777259u);
        const std::string path = dir.file("l" + std::to_string(w) + "_" + std::to_string(h) + ".npy");
        glccl::writeLabelsNpy(path, labeling, false);
        const Bytes bytes = readBytes(path);

        REQUIRE(bytes.size() >= 10);
        CHECK(Bytes(bytes.begin(), bytes.begin() + 6) == Bytes{0x93, 'N', 'U', 'M', 'P', 'Y'});
        CHECK(bytes[6] == 1);
        CHECK(bytes[7] == 0);
        const std::size_t headerLength = bytes[8] | (std::size_t(bytes[9]) << 8);
        const std::size_t dataOffset = 10 + headerLength;
        CHECK(dataOffset % 64 == 0);
        REQUIRE(bytes.size() == dataOffset + std::size_t(w) * h * 4);
        const std::string header(bytes.begin() + 10, bytes.begin() + std::ptrdiff_t(dataOffset));
        CHECK(header.back() == '\n');
        CHECK(header.front() == '{');
        CHECK_THAT(header, Contains("'descr': '<u4'"));
        CHECK_THAT(header, Contains("'fortran_order': False"));
        CHECK_THAT(header, Contains("'shape': (" + std::to_string(h) + ", " + std::to_string(w) + ")"));
        // Only spaces pad the dict up to the newline.
        const std::size_t close = header.rfind('}');
        REQUIRE(close != std::string::npos);
        CHECK(header.find_first_not_of(' ', close + 1) == header.size() - 1);

        for (std::size_t i = 0; i < labeling.labels.size(); ++i) {
            const std::uint8_t* p = &bytes[dataOffset + i * 4];
            const std::uint32_t v = p[0] | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) |
                                    (std::uint32_t(p[3]) << 24);
            if (v != labeling.labels[i]) FAIL("label " << i << " reads back as " << v);
        }
    }
}

TEST_CASE("image_io: readLabelsNpy reads back what writeLabelsNpy wrote and refuses other files", "[host]") {
    TempDir dir;
    Labeling labeling;
    labeling.width = 7;
    labeling.height = 3;
    for (int i = 0; i < 21; ++i) labeling.labels.push_back(std::uint32_t(i) * 16777259u);
    const std::string path = dir.file("labels.npy");
    glccl::writeLabelsNpy(path, labeling, false);
    const Labeling back = glccl::readLabelsNpy(path);
    CHECK(back.width == 7);
    CHECK(back.height == 3);
    CHECK(back.labels == labeling.labels);
    CHECK(back.components.empty());

    const std::string image = dir.file("image.npy");
    glccl::writeImageNpy(image, Image(4, 2), false);
    CHECK_THROWS_WITH(glccl::readLabelsNpy(image), StartsWith("glccl::readLabelsNpy(): ") && Contains("'|u1'"));
    const std::string junk = dir.file("junk.npy");
    writeBytes(junk, {'o', 'l', 'd'});
    CHECK_THROWS_WITH(glccl::readLabelsNpy(junk), Contains("is not a NumPy .npy file"));
    Bytes cut = readBytes(path);
    cut.pop_back();
    writeBytes(junk, cut);
    CHECK_THROWS_WITH(glccl::readLabelsNpy(junk), Contains("ends before its 7x3 labels"));
    CHECK_THROWS_WITH(glccl::readLabelsNpy(dir.file("missing.npy")), Contains("cannot open"));
}

TEST_CASE("image_io: writeImageNpy writes the sample bits's dtype, shape (height, width[, channels])", "[host]") {
    TempDir dir;
    for (int channels : {1, 4}) {
        Image image(3, 2, channels);
        for (std::size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = std::uint8_t(i * 7);
        const std::string path = dir.file("image" + std::to_string(channels) + ".npy");
        glccl::writeImageNpy(path, image, false);
        const Bytes bytes = readBytes(path);
        REQUIRE(bytes.size() >= 10);
        const std::size_t dataOffset = 10 + (bytes[8] | (std::size_t(bytes[9]) << 8));
        CHECK(dataOffset % 64 == 0);
        const std::string header(bytes.begin() + 10, bytes.begin() + std::ptrdiff_t(dataOffset));
        CHECK_THAT(header, Contains("'descr': '|u1'"));
        CHECK_THAT(header, Contains(channels == 1 ? "'shape': (2, 3)" : "'shape': (2, 3, 4)"));
        CHECK(Bytes(bytes.begin() + std::ptrdiff_t(dataOffset), bytes.end()) == image.pixels);
    }
    CHECK_THROWS_WITH(glccl::writeImageNpy(dir.file("image1.npy"), Image(3, 2), false), Contains("already exists"));
    glccl::writeImageNpy(dir.file("deep.npy"), Image(3, 2, 1, 16), false);
    const Bytes deep = readBytes(dir.file("deep.npy"));
    CHECK_THAT(std::string(deep.begin(), deep.begin() + 64), Contains("'descr': '<u2'"));
}

TEST_CASE("image_io: writeStatsCsv writes the exact table", "[host]") {
    TempDir dir;
    const Labeling labeling = smallLabeling();
    REQUIRE(labeling.count() == 2);
    const std::string path = dir.file("stats.csv");
    glccl::writeStatsCsv(path, labeling, false);
    const Bytes bytes = readBytes(path);
    const std::string text(bytes.begin(), bytes.end());
    // Component 1: (0,0) (1,0) (1,1): centroid (2/3, 1/3).
    // Component 2: (4,0) (3,1) (4,1) (4,2): centroid (15/4, 1).
    CHECK(text == "label,left,top,width,height,area,centroid_x,centroid_y\n"
                  "1,0,0,2,2,3,0.6666666666666666,0.3333333333333333\n"
                  "2,3,0,2,3,4,3.75,1\n");
    // The printed centroids read back to the very same doubles.
    CHECK(std::strtod("0.6666666666666666", nullptr) == 2.0 / 3.0);
    CHECK(std::strtod("0.3333333333333333", nullptr) == 1.0 / 3.0);

    Labeling empty;
    empty.width = empty.height = 1;
    empty.labels = {0};
    glccl::writeStatsCsv(dir.file("empty.csv"), empty, false);
    const Bytes headerOnly = readBytes(dir.file("empty.csv"));
    CHECK(std::string(headerOnly.begin(), headerOnly.end()) == "label,left,top,width,height,area,centroid_x,centroid_y\n");
}

TEST_CASE("image_io: writeStatsCsv centroids round-trip", "[host]") {
    TempDir dir;
    Labeling labeling;
    labeling.width = labeling.height = 1;
    labeling.labels = {1};
    const double values[] = {0.1, 1.0 / 3.0, 32767.0, 12345.678901234567, 0.0, 1e-7, 2.5};
    for (double v : values) {
        glccl::Component c;
        c.centroidX = v;
        c.centroidY = v / 7.0;
        c.area = 1;
        labeling.components.push_back(c);
    }
    const std::string path = dir.file("round.csv");
    glccl::writeStatsCsv(path, labeling, false);
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    for (double v : values) {
        REQUIRE(std::getline(in, line));
        const std::size_t lastComma = line.rfind(',');
        const std::size_t secondLast = line.rfind(',', lastComma - 1);
        const double x = std::strtod(line.c_str() + secondLast + 1, nullptr);
        const double y = std::strtod(line.c_str() + lastComma + 1, nullptr);
        CHECK(x == v);
        CHECK(y == v / 7.0);
        CHECK(line.find('e') == std::string::npos);  // plain decimal notation
    }
}

TEST_CASE("image_io: colorizeLabels and labelColor", "[host]") {
    std::uint8_t rgb[3] = {1, 1, 1};
    glccl::labelColor(0, rgb);
    CHECK((rgb[0] == 0 && rgb[1] == 0 && rgb[2] == 0));

    std::set<std::uint32_t> distinct;
    std::uint8_t previous[3] = {0, 0, 0};
    for (std::uint32_t label = 1; label <= 20000; ++label) {
        glccl::labelColor(label, rgb);
        const int brightest = std::max({rgb[0], rgb[1], rgb[2]});
        if (brightest < 128) FAIL("label " << label << " is too dark");
        const int step = std::abs(rgb[0] - previous[0]) + std::abs(rgb[1] - previous[1]) + std::abs(rgb[2] - previous[2]);
        if (label > 1 && step < 60) FAIL("labels " << label - 1 << " and " << label << " look alike");
        std::copy(rgb, rgb + 3, previous);
        distinct.insert((std::uint32_t(rgb[0]) << 16) | (std::uint32_t(rgb[1]) << 8) | rgb[2]);
    }
    CHECK(distinct.size() > 5000);
    for (std::uint32_t label : {1u, 77u, 0xFFFFFFFFu}) {
        std::uint8_t a[3], b[3];
        glccl::labelColor(label, a);
        glccl::labelColor(label, b);
        CHECK(std::equal(a, a + 3, b));
    }

    const Labeling labeling = smallLabeling();
    const Image colored = glccl::colorizeLabels(labeling);
    REQUIRE(colored.width == 5);
    REQUIRE(colored.height == 3);
    REQUIRE(colored.channels == 4);
    for (int y = 0; y < 3; ++y) {
        for (int x = 0; x < 5; ++x) {
            std::uint8_t expected[3];
            glccl::labelColor(labeling.at(x, y), expected);
            CHECK(colored.at(x, y, 0) == expected[0]);
            CHECK(colored.at(x, y, 1) == expected[1]);
            CHECK(colored.at(x, y, 2) == expected[2]);
            CHECK(colored.at(x, y, 3) == 255);
        }
    }
    TempDir dir;
    glccl::writePng(dir.file("colored.png"), colored, false);
    CHECK(sameImage(glccl::readImage(dir.file("colored.png")), colored));
}

TEST_CASE("image_io: NpyImageWriter writes in bands the file writeImageNpy writes whole", "[host]") {
    iotest::TempDir dir;
    const Image image = glccl::randomImage(263, 71, 0.5, 256, 1, 5);
    const std::string whole = dir.file("whole.npy"), banded = dir.file("banded.npy");
    glccl::writeImageNpy(whole, image, false);
    glccl::NpyImageWriter writer(banded, 263, 71, false);
    for (int row = 0; row < 71; row += 10) writer.writeRows(image.pixels.data() + std::size_t(row) * 263, std::min(10, 71 - row));
    writer.close();
    CHECK(iotest::readBytes(banded) == iotest::readBytes(whole));
    CHECK(glccl::readImage(banded).pixels == image.pixels);
}

TEST_CASE("image_io: NpyImageWriter refuses extra rows and leaves no file when rows are missing", "[host]") {
    using Catch::Matchers::StartsWith;
    iotest::TempDir dir;
    const std::string path = dir.file("short.npy");
    const std::vector<std::uint8_t> rows(3 * 4, 255);
    {
        glccl::NpyImageWriter writer(path, 4, 3, false);
        writer.writeRows(rows.data(), 2);
        CHECK_THROWS_WITH(writer.writeRows(rows.data(), 2), StartsWith("glccl::NpyImageWriter::writeRows(): "));
        CHECK_THROWS_WITH(writer.close(), StartsWith("glccl::NpyImageWriter::close(): 2 of 3 rows written"));
    }
    CHECK_FALSE(std::filesystem::exists(path));
    CHECK_THROWS_WITH(glccl::NpyImageWriter(path, 0, 3, false), StartsWith("glccl::NpyImageWriter(): size 0x3"));
}

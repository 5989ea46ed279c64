// Image reading (hardened stb_image) and the writers: PNG, NPY, CSV. Test
// images are built byte by byte here, from the file format specifications,
// so that the reader is checked against files it did not write.

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/image_io.hpp"
#include "glccl/reference.hpp"
// White-box: the uncompressed encoder is only used for images over 768 MiB,
// far too large for a unit test, so it is called directly.
#include "../host/src/png_stored.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using glccl::ChannelMode;
using glccl::Image;
using glccl::Labeling;

namespace {

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

void writeBytes(const std::string& path, const Bytes& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    REQUIRE(out.good());
}

Bytes readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in.good());
    return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void append(Bytes& bytes, const std::string& text) { bytes.insert(bytes.end(), text.begin(), text.end()); }
void append(Bytes& bytes, std::initializer_list<int> values) {
    for (int v : values) bytes.push_back(std::uint8_t(v));
}
void appendLe16(Bytes& bytes, std::uint32_t v) { append(bytes, {int(v & 0xFF), int((v >> 8) & 0xFF)}); }
void appendLe32(Bytes& bytes, std::uint32_t v) {
    appendLe16(bytes, v & 0xFFFF);
    appendLe16(bytes, v >> 16);
}
void appendBe32(Bytes& bytes, std::uint32_t v) {
    append(bytes, {int(v >> 24), int((v >> 16) & 0xFF), int((v >> 8) & 0xFF), int(v & 0xFF)});
}

// ---- a minimal PNG writer (PNG spec: chunks with CRC-32, zlib with one
// stored deflate block), for files that glccl::writePng cannot produce.
std::uint32_t crc32(const std::uint8_t* data, std::size_t size) {
    std::uint32_t crc = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < size; ++i) {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

void appendChunk(Bytes& png, const std::string& type, const Bytes& data) {
    appendBe32(png, std::uint32_t(data.size()));
    Bytes typed(type.begin(), type.end());
    typed.insert(typed.end(), data.begin(), data.end());
    png.insert(png.end(), typed.begin(), typed.end());
    appendBe32(png, crc32(typed.data(), typed.size()));
}

Bytes pngHeader(std::uint32_t width, std::uint32_t height, int bitDepth, int colorType) {
    Bytes png = {137, 80, 78, 71, 13, 10, 26, 10};
    Bytes ihdr;
    appendBe32(ihdr, width);
    appendBe32(ihdr, height);
    append(ihdr, {bitDepth, colorType, 0, 0, 0});
    appendChunk(png, "IHDR", ihdr);
    return png;
}

Bytes makePng(std::uint32_t width, std::uint32_t height, int bitDepth, int colorType, const Bytes& scanlines) {
    Bytes png = pngHeader(width, height, bitDepth, colorType);
    REQUIRE(scanlines.size() < 65536);
    Bytes zlib = {0x78, 0x01, 0x01};
    appendLe16(zlib, std::uint32_t(scanlines.size()));
    appendLe16(zlib, std::uint32_t(~scanlines.size() & 0xFFFF));
    zlib.insert(zlib.end(), scanlines.begin(), scanlines.end());
    std::uint32_t a = 1, b = 0;
    for (std::uint8_t v : scanlines) {
        a = (a + v) % 65521;
        b = (b + a) % 65521;
    }
    appendBe32(zlib, (b << 16) | a);
    appendChunk(png, "IDAT", zlib);
    appendChunk(png, "IEND", {});
    return png;
}

Image gradient(int w, int h, int channels) {
    Image image(w, h, channels);
    for (std::size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = std::uint8_t((i * 37 + i / 7) & 0xFF);
    return image;
}

bool sameImage(const Image& a, const Image& b) {
    return a.width == b.width && a.height == b.height && a.channels == b.channels && a.pixels == b.pixels;
}

Labeling smallLabeling() {
    Image image(5, 3, 1);
    // 1 1 0 0 1
    // 0 1 0 1 1
    // 0 0 0 0 1
    for (auto [x, y] : {std::pair{0, 0}, {1, 0}, {4, 0}, {1, 1}, {3, 1}, {4, 1}, {4, 2}}) image.at(x, y) = 255;
    return glccl::labelReference(image, glccl::Connectivity::Four, glccl::Criterion::binary());
}

}  // namespace

// ---------------------------------------------------------------- PNG

TEST_CASE("image_io: PNG round trip, gray and RGBA", "[host]") {
    TempDir dir;
    for (auto [w, h] : {std::pair{1, 1}, {1, 9}, {9, 1}, {37, 53}, {256, 3}}) {
        for (int channels : {1, 4}) {
            INFO(w << "x" << h << "x" << channels);
            const Image image = gradient(w, h, channels);
            const std::string path = dir.file("rt_" + std::to_string(w) + "_" + std::to_string(h) + "_" +
                                              std::to_string(channels) + ".png");
            glccl::writePng(path, image, false);
            const Bytes file = readBytes(path);
            REQUIRE(file.size() > 8);
            CHECK(Bytes(file.begin(), file.begin() + 8) == Bytes{137, 80, 78, 71, 13, 10, 26, 10});
            CHECK(sameImage(glccl::readImage(path, ChannelMode::Natural), image));
        }
    }
}

TEST_CASE("image_io: Gray mode reduces color to luma", "[host]") {
    TempDir dir;
    Image image(4, 1, 4);
    const std::uint8_t colors[4][4] = {{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {90, 90, 90, 255}};
    for (int x = 0; x < 4; ++x) std::copy(colors[x], colors[x] + 4, &image.at(x, 0));
    const std::string path = dir.file("colors.png");
    glccl::writePng(path, image, false);
    const Image gray = glccl::readImage(path, ChannelMode::Gray);
    REQUIRE(gray.channels == 1);
    REQUIRE(gray.width == 4);
    // ITU-R BT.601 luma, 0.299 R + 0.587 G + 0.114 B, to within one level.
    CHECK(std::abs(int(gray.at(0, 0)) - 76) <= 1);
    CHECK(std::abs(int(gray.at(1, 0)) - 150) <= 1);
    CHECK(std::abs(int(gray.at(2, 0)) - 29) <= 1);
    CHECK(gray.at(3, 0) == 90);
}

TEST_CASE("image_io: hand-built PNGs: 16-bit gray, gray+alpha, RGB", "[host]") {
    TempDir dir;
    SECTION("16-bit gray keeps the high byte") {
        // Two rows of two 16-bit big-endian samples, each row led by filter 0.
        const Bytes scanlines = {0, 0xAB, 0xCD, 0x12, 0x34, 0, 0xFF, 0xFF, 0x00, 0xFF};
        const std::string path = dir.file("gray16.png");
        writeBytes(path, makePng(2, 2, 16, 0, scanlines));
        const Image image = glccl::readImage(path);
        REQUIRE(image.channels == 1);
        REQUIRE(image.width == 2);
        REQUIRE(image.height == 2);
        CHECK(int(image.at(0, 0)) == 0xAB);
        CHECK(int(image.at(1, 0)) == 0x12);
        CHECK(int(image.at(0, 1)) == 0xFF);
        CHECK(int(image.at(1, 1)) == 0x00);
    }
    SECTION("gray+alpha reads as one channel") {
        const std::string path = dir.file("graya.png");
        writeBytes(path, makePng(2, 1, 8, 4, {0, 10, 255, 200, 0}));
        const Image image = glccl::readImage(path, ChannelMode::Natural);
        REQUIRE(image.channels == 1);
        CHECK(int(image.at(0, 0)) == 10);
        CHECK(int(image.at(1, 0)) == 200);
    }
    SECTION("RGB reads as RGBA with opaque alpha") {
        const std::string path = dir.file("rgb.png");
        writeBytes(path, makePng(2, 1, 8, 2, {0, 1, 2, 3, 4, 5, 6}));
        const Image image = glccl::readImage(path, ChannelMode::Natural);
        REQUIRE(image.channels == 4);
        CHECK(image.pixels == Bytes{1, 2, 3, 255, 4, 5, 6, 255});
    }
}

TEST_CASE("image_io: the uncompressed PNG encoder writes valid PNGs", "[host]") {
    TempDir dir;
    // 700x500 RGBA is 1.4 MB of scanlines: many stored blocks of 65535 bytes
    // and more than one IDAT chunk of 1 MiB.
    for (auto [w, h, c] : {std::tuple{1, 1, 1}, {3, 2, 1}, {700, 500, 4}, {257, 255, 1}}) {
        INFO(w << "x" << h << "x" << c);
        const Image image = gradient(w, h, c);
        Bytes encoded;
        glccl::detail::encodePngStored(image, [&](const std::uint8_t* data, std::size_t size) {
            encoded.insert(encoded.end(), data, data + size);
        });
        REQUIRE(encoded.size() > std::size_t(w) * h * c);
        CHECK(Bytes(encoded.end() - 12, encoded.end()) == Bytes{0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82});
        // Every chunk's CRC must be right: walk the chunks.
        std::size_t at = 8;
        int chunks = 0;
        while (at < encoded.size()) {
            REQUIRE(at + 12 <= encoded.size());
            const std::uint32_t length = (std::uint32_t(encoded[at]) << 24) | (std::uint32_t(encoded[at + 1]) << 16) |
                                         (std::uint32_t(encoded[at + 2]) << 8) | encoded[at + 3];
            REQUIRE(at + 12 + length <= encoded.size());
            const std::uint32_t crc = crc32(&encoded[at + 4], length + 4);
            const std::uint8_t* stored = &encoded[at + 8 + length];
            CHECK(crc == ((std::uint32_t(stored[0]) << 24) | (std::uint32_t(stored[1]) << 16) |
                          (std::uint32_t(stored[2]) << 8) | stored[3]));
            at += 12 + length;
            ++chunks;
        }
        CHECK(at == encoded.size());
        CHECK(chunks >= 3);
        const std::string path = dir.file("stored.png");
        writeBytes(path, encoded);
        CHECK(sameImage(glccl::readImage(path), image));
    }
}

// ---------------------------------------------------------------- other formats

TEST_CASE("image_io: reads hand-written PGM and PPM", "[host]") {
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
        CHECK(image.pixels == Bytes{0, 1, 2, 253, 254, 255});
    }
    SECTION("P5 with 16-bit samples") {
        Bytes pgm;
        append(pgm, "P5 2 1 65535\n");
        append(pgm, {0x80, 0x01, 0x01, 0xFF});
        writeBytes(dir.file("b.pgm"), pgm);
        const Image image = glccl::readImage(dir.file("b.pgm"));
        REQUIRE(image.channels == 1);
        CHECK(image.pixels == Bytes{0x80, 0x01});
    }
    SECTION("P6") {
        Bytes ppm;
        append(ppm, "P6\n2 1\n255\n");
        append(ppm, {10, 20, 30, 40, 50, 60});
        writeBytes(dir.file("c.ppm"), ppm);
        const Image image = glccl::readImage(dir.file("c.ppm"));
        REQUIRE(image.channels == 4);
        CHECK(image.pixels == Bytes{10, 20, 30, 255, 40, 50, 60, 255});
        const Image gray = glccl::readImage(dir.file("c.ppm"), ChannelMode::Gray);
        REQUIRE(gray.channels == 1);
        REQUIRE(gray.width == 2);
        // BT.601 luma of (10, 20, 30) is 18.15.
        CHECK(std::abs(int(gray.at(0, 0)) - 18) <= 1);
    }
}

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
                      StartsWith("glccl::readImage(): ") && Contains("is a BMP file, which is not supported"));
    // Under another name too: the signature decides, not the extension.
    writeBytes(dir.file("a.png"), bmp);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("a.png")), Contains("is a BMP file, which is not supported"));
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
        CHECK_THROWS_WITH(glccl::readImage(dir.file("a.tga")), Contains("is a TGA file, which is not supported"));
    }
    SECTION("uncompressed gray, top-left origin") {
        Bytes tga = tgaHeader(3, 3, 1, 8, 0x20);
        append(tga, {7, 8, 9});
        writeBytes(dir.file("b.tga"), tga);
        CHECK_THROWS_WITH(glccl::readImage(dir.file("b.tga")), Contains("is a TGA file, which is not supported"));
        // Without the name it is no known format at all.
        writeBytes(dir.file("b.dat"), tga);
        CHECK_THROWS_WITH(glccl::readImage(dir.file("b.dat")), Contains("not an image in a supported format"));
    }
}

TEST_CASE("image_io: reads a JPEG", "[host]") {
    const std::string path = std::string(GLCCL_TEST_DATA) + "/quadrants.jpg";
    const Image image = glccl::readImage(path);
    REQUIRE(image.width == 16);
    REQUIRE(image.height == 16);
    REQUIRE(image.channels == 4);
    // tests/data/README.md: four flat 8x8 quadrants.
    const int colors[4][3] = {{200, 40, 40}, {40, 180, 60}, {50, 60, 190}, {128, 128, 128}};
    for (int y = 0; y < 16; ++y) {
        for (int x = 0; x < 16; ++x) {
            const int* expected = colors[(y / 8) * 2 + x / 8];
            for (int c = 0; c < 3; ++c) {
                if (std::abs(int(image.at(x, y, c)) - expected[c]) > 4) {
                    FAIL("pixel (" << x << ", " << y << ") channel " << c << " is " << int(image.at(x, y, c)));
                }
            }
            CHECK(image.at(x, y, 3) == 255);
        }
    }
    const Image gray = glccl::readImage(path, ChannelMode::Gray);
    REQUIRE(gray.channels == 1);
    CHECK(std::abs(int(gray.at(12, 12)) - 128) <= 4);
}

// ---------------------------------------------------------------- rejection

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
                          Contains("PNG") && Contains("JPEG"));

    CHECK_THROWS_WITH(glccl::readImage(dir.file("")), StartsWith("glccl::readImage(): ") && Contains("directory"));
}

TEST_CASE("image_io: rejects a truncated PNG", "[host]") {
    TempDir dir;
    const std::string whole = dir.file("whole.png");
    glccl::writePng(whole, gradient(64, 64, 4), false);
    const Bytes bytes = readBytes(whole);
    for (std::size_t keep : {std::size_t(10), std::size_t(40), bytes.size() / 2, bytes.size() - 20}) {
        INFO("first " << keep << " of " << bytes.size() << " bytes");
        writeBytes(dir.file("cut.png"), Bytes(bytes.begin(), bytes.begin() + std::ptrdiff_t(keep)));
        CHECK_THROWS_WITH(glccl::readImage(dir.file("cut.png")),
                          StartsWith("glccl::readImage(): ") && Contains("cut.png") && Contains("PNG"));
    }
}

TEST_CASE("image_io: rejects oversized and zero-sized images with their size", "[host]") {
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

    // Within 32768 a side, but 24000 x 24000 x 3 bytes is more than the
    // PNG decoder allocates.
    Bytes heavy = pngHeader(24000, 24000, 8, 2);
    appendChunk(heavy, "IEND", {});
    writeBytes(dir.file("heavy.png"), heavy);
    CHECK_THROWS_WITH(glccl::readImage(dir.file("heavy.png")),
                      StartsWith("glccl::readImage(): ") && Contains("24000x24000") && Contains("more than the PNG decoder accepts"));

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
    CHECK_THROWS_WITH(glccl::readImage(dir.file("chatty.pgm")), Contains("header longer than"));
}

TEST_CASE("image_io: rejects GIF and other disabled formats by name", "[host]") {
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

TEST_CASE("image_io: rejects a truncated JPEG", "[host]") {
    TempDir dir;
    const Bytes jpeg = readBytes(std::string(GLCCL_TEST_DATA) + "/quadrants.jpg");
    for (std::size_t keep : {std::size_t(3), std::size_t(20), std::size_t(100), jpeg.size() / 2}) {
        INFO("first " << keep << " bytes");
        writeBytes(dir.file("cut.jpg"), Bytes(jpeg.begin(), jpeg.begin() + std::ptrdiff_t(keep)));
        CHECK_THROWS_WITH(glccl::readImage(dir.file("cut.jpg")),
                          StartsWith("glccl::readImage(): ") && Contains("JPEG"));
    }
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

TEST_CASE("image_io: reads .npy images of every accepted dtype and order, exactly", "[host]") {
    TempDir dir;
    // A 2x3 image, rows (0 1 2) (250 0 255).
    const Bytes expected = {0, 1, 2, 250, 0, 255};
    auto check = [&](const std::string& name, const std::string& dict, const Bytes& data) {
        writeBytes(dir.file(name), npyBytes(dict, data));
        const Image image = glccl::readImage(dir.file(name));
        INFO(name);
        REQUIRE(image.width == 3);
        REQUIRE(image.height == 2);
        REQUIRE(image.channels == 1);
        CHECK(image.pixels == expected);
    };
    check("c.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }", expected);
    // Fortran order stores columns: (0 250) (1 0) (2 255).
    check("f.npy", "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3), }", {0, 250, 1, 0, 2, 255});
    check("u2.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }",
          {0, 0, 1, 0, 2, 0, 250, 0, 0, 0, 255, 0});
    Bytes floats;
    for (float f : {0.0f, 1.0f, 2.0f, 250.0f, 0.0f, 255.0f}) {
        std::uint8_t b[4];
        std::memcpy(b, &f, 4);
        append(floats, {b[0], b[1], b[2], b[3]});
    }
    check("f4.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", floats);
    // The uint8 array glccl generate writes reads back as the same image.
    const Image noise = glccl::generateFamily("noise50", 37, 23, 4);
    glccl::writeImageNpy(dir.file("noise.npy"), noise, false);
    CHECK(sameImage(glccl::readImage(dir.file("noise.npy")), noise));
    // (H, W, 3) is RGB with an opaque alpha, for the threshold criterion.
    writeBytes(dir.file("rgb.npy"), npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2, 3), }",
                                             {1, 2, 3, 4, 5, 6}));
    const Image rgb = glccl::readImage(dir.file("rgb.npy"), ChannelMode::Natural);
    REQUIRE(rgb.channels == 4);
    CHECK(rgb.pixels == Bytes{1, 2, 3, 255, 4, 5, 6, 255});
}

TEST_CASE("image_io: refuses .npy images it cannot take exactly, from the header where it can", "[host]") {
    TempDir dir;
    auto refuse = [&](const std::string& name, const std::string& dict, const Bytes& data, const std::string& why) {
        writeBytes(dir.file(name), npyBytes(dict, data));
        INFO(name);
        CHECK_THROWS_WITH(glccl::readImage(dir.file(name)), StartsWith("glccl::readImage(): ") && Contains(why));
    };
    // A 16-bit value above 255 is an error, never a reduction to 8 bits.
    refuse("big.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (1, 2), }", {1, 0, 44, 1},
           "values must be integers in 0..255");
    Bytes half;
    for (float f : {0.5f}) {
        std::uint8_t b[4];
        std::memcpy(b, &f, 4);
        append(half, {b[0], b[1], b[2], b[3]});
    }
    refuse("half.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }", half, "integers in 0..255");
    refuse("cut.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (4, 4), }", Bytes(10, 1), "is truncated");
    refuse("long.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2), }", Bytes(3, 1), "bytes after");
    refuse("huge.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (100000, 100000), }", {},
           "largest accepted side");
    refuse("cube.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2, 2, 2), }", Bytes(16, 1),
           "images are (height, width)");
    refuse("f8.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", Bytes(8, 0), "'<f8'");
    refuse("big_endian.npy", "{'descr': '>u2', 'fortran_order': False, 'shape': (1, 1), }", Bytes(2, 0), "'>u2'");
    // Color for binary or segments (gray mode) is refused, not converted.
    writeBytes(dir.file("rgb.npy"), npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (1, 1, 3), }",
                                             {1, 2, 3}));
    CHECK_THROWS_WITH(glccl::readImage(dir.file("rgb.npy"), ChannelMode::Gray), Contains("3 channels"));
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

TEST_CASE("image_io: writeImageNpy writes uint8 of shape (height, width[, channels])", "[host]") {
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

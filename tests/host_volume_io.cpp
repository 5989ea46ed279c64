// Volumes in and out of files: 3-D .npy arrays (C and Fortran order, every
// dtype the 2-D reader takes) and multi-page TIFF stacks read as volumes,
// hostile headers refused before anything is allocated, and the label
// outputs of a volume (.npy, TIFF stack, CSV, the colour picture) read back.

#include <tiffio.h>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "glccl/reference.hpp"
#include "host_io_support.hpp"
#include "skip.hpp"

using Catch::Matchers::Contains;
using glccl::ChannelMode;
using glccl::Image;
using glccl::Labeling;
using glccl::Shape;
using namespace iotest;

namespace {

// An .npy file (format 1.0) of `shape` ("(D, H, W)") holding `data`.
Bytes npyFile(const std::string& descr, const std::string& shape, bool fortran, const Bytes& data) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                         ", 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    Bytes bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    appendLe16(bytes, std::uint32_t(header.size()));
    append(bytes, header);
    bytes.insert(bytes.end(), data.begin(), data.end());
    return bytes;
}

// A value for voxel (x, y, z) that tells every voxel of a small volume apart.
std::uint32_t voxelValue(int x, int y, int z) { return std::uint32_t(z * 10000 + y * 100 + x); }

// Writes `pages` 8- or 16-bit gray pages of `width` x `height` through
// libtiff, page z filled with (x + y + z) % 7 (0 background); a page may
// be given another size or bits to forge a mismatched stack.
struct PageSpec {
    std::uint32_t width, height;
    int bits = 8;
    bool tiled = false;
};
void writeStack(const std::string& path, const std::vector<PageSpec>& pages) {
    TIFF* tiff = TIFFOpen(path.c_str(), "w");
    REQUIRE(tiff != nullptr);
    for (std::size_t z = 0; z < pages.size(); ++z) {
        const PageSpec& page = pages[z];
        TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, page.width);
        TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, page.height);
        TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, page.bits);
        TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        TIFFSetField(tiff, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
        const std::size_t bytes = std::size_t(page.bits / 8);
        const auto sample = [&](std::uint32_t x, std::uint32_t y, Bytes& out, std::size_t at) {
            const std::uint32_t v = (x + y + std::uint32_t(z)) % 7;
            for (std::size_t b = 0; b < bytes; ++b) out[at + b] = std::uint8_t(v >> (8 * b));
        };
        if (page.tiled) {
            constexpr std::uint32_t kTile = 16;
            TIFFSetField(tiff, TIFFTAG_TILEWIDTH, kTile);
            TIFFSetField(tiff, TIFFTAG_TILELENGTH, kTile);
            Bytes tile(kTile * kTile * bytes);
            for (std::uint32_t y0 = 0; y0 < page.height; y0 += kTile)
                for (std::uint32_t x0 = 0; x0 < page.width; x0 += kTile) {
                    std::fill(tile.begin(), tile.end(), 0);
                    for (std::uint32_t y = y0; y < std::min(page.height, y0 + kTile); ++y)
                        for (std::uint32_t x = x0; x < std::min(page.width, x0 + kTile); ++x)
                            sample(x, y, tile, (std::size_t(y - y0) * kTile + (x - x0)) * bytes);
                    REQUIRE(TIFFWriteTile(tiff, tile.data(), x0, y0, 0, 0) >= 0);
                }
        } else {
            TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, 3);
            Bytes row(page.width * bytes);
            for (std::uint32_t y = 0; y < page.height; ++y) {
                for (std::uint32_t x = 0; x < page.width; ++x) sample(x, y, row, x * bytes);
                REQUIRE(TIFFWriteScanline(tiff, row.data(), y, 0) == 1);
            }
        }
        REQUIRE(TIFFWriteDirectory(tiff) == 1);
    }
    TIFFClose(tiff);
}

std::string readText(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("volume io: a 3-D .npy is a volume (D, H, W), C and Fortran order, every dtype", "[host]") {
    const TempDir dir;
    constexpr int kWidth = 5, kHeight = 4, kDepth = 3;
    struct Dtype {
        const char* descr;
        int size, sampleBits;
    };
    for (const Dtype dtype : {Dtype{"|u1", 1, 8}, Dtype{"<u2", 2, 16}, Dtype{"<i4", 4, 32}, Dtype{"<u4", 4, 32},
                              Dtype{"<f4", 4, 32}}) {
        for (const bool fortran : {false, true}) {
            INFO(dtype.descr << (fortran ? " Fortran" : " C"));
            Bytes data;
            // File order: C is z, y, x (x fastest); Fortran x, y, z (z fastest).
            for (int a = 0; a < kWidth * kHeight * kDepth; ++a) {
                const int x = fortran ? a / (kDepth * kHeight) : a % kWidth;
                const int y = fortran ? (a / kDepth) % kHeight : (a / kWidth) % kHeight;
                const int z = fortran ? a % kDepth : a / (kWidth * kHeight);
                std::uint32_t value = voxelValue(x, y, z) % (dtype.size == 1 ? 256 : 65536);
                if (std::string(dtype.descr) == "<f4") {
                    const float f = float(value);
                    std::memcpy(&value, &f, 4);
                }
                for (int b = 0; b < dtype.size; ++b) data.push_back(std::uint8_t(value >> (8 * b)));
            }
            const std::string path = dir.file("v.npy");
            writeBytes(path, npyFile(dtype.descr, "(3, 4, 5)", fortran, data));
            const Image volume = glccl::readImage(path, ChannelMode::Gray);
            CHECK(volume.shape() == Shape::volume(kWidth, kHeight, kDepth));
            CHECK(volume.sampleBits == dtype.sampleBits);
            CHECK(volume.channels == 1);
            for (int z = 0; z < kDepth; ++z)
                for (int y = 0; y < kHeight; ++y)
                    for (int x = 0; x < kWidth; ++x)
                        REQUIRE(volume.sampleAt(x, y, z) == voxelValue(x, y, z) % (dtype.size == 1 ? 256 : 65536));
        }
    }
}

TEST_CASE("volume io: hostile 3-D .npy headers are refused before allocating", "[host]") {
    const TempDir dir;
    const std::string path = dir.file("v.npy");
    const auto refusal = [&](const std::string& shape, const Bytes& data, const char* words) {
        INFO(shape);
        writeBytes(path, npyFile("|u1", shape, false, data));
        REQUIRE_THROWS_WITH(glccl::readImage(path), Contains("glccl::readImage():") && Contains(words));
    };
    refusal("(1000000, 1000000, 1000000)", Bytes(64), "largest accepted side");
    refusal("(32768, 32768, 32768)", Bytes(64), "voxels but at most");
    refusal("(1024, 1024, 1024)", Bytes(64), "truncated");
    refusal("(0, 3, 3)", Bytes(), "no voxels");
    refusal("(2, 2, 2)", Bytes(9), "bytes after");
    // A negative int32 names its voxel.
    Bytes negative(8 * 4, 0);
    negative[4 * 5] = 0xFF, negative[4 * 5 + 1] = 0xFF, negative[4 * 5 + 2] = 0xFF, negative[4 * 5 + 3] = 0xFF;
    writeBytes(path, npyFile("<i4", "(2, 2, 2)", false, negative));
    REQUIRE_THROWS_WITH(glccl::readImage(path), Contains("at [1, 0, 1]"));
    // With the channel axis named, a 3-D array stays a 2-D colour image.
    writeBytes(path, npyFile("|u1", "(2, 2, 3)", false, Bytes(12, 7)));
    const Image color = glccl::readImage(path, ChannelMode::Natural, glccl::NpyChannelAxis::Last);
    CHECK(color.dimensions == 2);
    CHECK(color.channels == 4);
}

TEST_CASE("volume io: a multi-page TIFF is a volume, a page a slice; mismatched pages are refused", "[host]") {
    const TempDir dir;
    const std::string path = dir.file("stack.tif");
    for (const bool tiled : {false, true}) {
        for (const int bits : {8, 16}) {
            INFO((tiled ? "tiled " : "striped ") << bits);
            writeStack(path, std::vector<PageSpec>(4, PageSpec{37, 21, bits, tiled}));
            const Image volume = glccl::readImage(path, ChannelMode::Gray);
            REQUIRE(volume.shape() == Shape::volume(37, 21, 4));
            CHECK(volume.sampleBits == bits);
            for (int z = 0; z < 4; ++z)
                for (int y = 0; y < 21; ++y)
                    for (int x = 0; x < 37; ++x) REQUIRE(volume.sampleAt(x, y, z) == std::uint32_t((x + y + z) % 7));
        }
    }
    // One page: a 2-D image, as before.
    writeStack(path, {PageSpec{9, 8}});
    CHECK(glccl::readImage(path).dimensions == 2);
    writeStack(path, {PageSpec{9, 8}, PageSpec{9, 8}, PageSpec{9, 7}});
    REQUIRE_THROWS_WITH(glccl::readImage(path), Contains("page 2 of the stack is 9x7") && Contains("9x8"));
    writeStack(path, {PageSpec{9, 8}, PageSpec{9, 8, 16}});
    REQUIRE_THROWS_WITH(glccl::readImage(path), Contains("page 1 of the stack") && Contains("16 bits"));
}

namespace {

// A stack of `pages` uncompressed 8-bit pages of one pixel each, written
// byte by byte (TIFF 6.0, little-endian): an IFD of 9 entries and the
// pixel, page z holding 1 + z % 3, each IFD linking to the next.
Bytes onePixelStack(std::size_t pages) {
    constexpr std::uint32_t kEntries = 9, kIfdBytes = 2 + 12 * kEntries + 4, kPageBytes = kIfdBytes + 2;
    Bytes bytes = {'I', 'I', 42, 0};
    appendLe32(bytes, 8);
    bytes.reserve(8 + pages * kPageBytes);
    for (std::size_t z = 0; z < pages; ++z) {
        const std::uint32_t ifd = std::uint32_t(bytes.size()), pixel = ifd + kIfdBytes;
        appendLe16(bytes, kEntries);
        // tag, type (3 SHORT, 4 LONG), count 1, value in place
        const std::uint32_t entries[kEntries][3] = {{256, 3, 1}, {257, 3, 1}, {258, 3, 8}, {259, 3, 1}, {262, 3, 1},
                                                    {273, 4, pixel}, {277, 3, 1}, {278, 3, 1}, {279, 4, 1}};
        for (const auto& entry : entries) {
            appendLe16(bytes, entry[0]);
            appendLe16(bytes, entry[1]);
            appendLe32(bytes, 1);
            appendLe32(bytes, entry[2]);  // a SHORT in the low half of the field (little-endian)
        }
        appendLe32(bytes, z + 1 < pages ? pixel + 2 : 0);
        append(bytes, {int(1 + z % 3), 0});
    }
    return bytes;
}

// The bytes this process has read through read(2) so far (rchar of
// /proc/self/io): what reading a file costs in I/O, whatever the machine's
// speed. 0 where /proc does not say.
std::uint64_t bytesReadByProcess() {
    std::ifstream io("/proc/self/io");
    std::string key;
    std::uint64_t value = 0;
    while (io >> key >> value)
        if (key == "rchar:") return value;
    return 0;
}

// Skips the test where /proc does not count the bytes read.
void requireByteCounts() {
    if (bytesReadByProcess() == 0) glccl::test::skipTest("/proc/self/io does not count the bytes read here");
}

// The bytes read while readImage reads (or refuses) `path`.
std::uint64_t bytesToRead(const std::string& path) {
    const std::uint64_t before = bytesReadByProcess();
    try {
        glccl::readImage(path);
    } catch (const glccl::Error&) {
    }
    return bytesReadByProcess() - before;
}

}  // namespace

TEST_CASE("volume io: a TIFF stack is read in one walk over its pages: twice the pages, twice the bytes read",
          "[host]") {
    requireByteCounts();
    // Seeking each page from the first directory (TIFFSetDirectory) reads
    // a stack's directories over and over: quadratic in its pages.
    const TempDir dir;
    writeBytes(dir.file("s.tif"), onePixelStack(2000));
    writeBytes(dir.file("d.tif"), onePixelStack(4000));
    const Image stack = glccl::readImage(dir.file("d.tif"));
    REQUIRE(stack.shape() == Shape::volume(1, 1, 4000));
    for (int z = 0; z < 4000; ++z) REQUIRE(stack.sampleAt(0, 0, z) == std::uint32_t(1 + z % 3));
    const std::uint64_t single = bytesToRead(dir.file("s.tif")), twice = bytesToRead(dir.file("d.tif"));
    INFO(single << " bytes read for 2000 pages, " << twice << " for 4000");
    CHECK(twice < single * 5 / 2);
    CHECK(glccl::countTiffSlices(dir.file("d.tif")) == 4000);
}

TEST_CASE("volume io: a TIFF stack past 32768 pages is refused at page 32769, the pages after it never read",
          "[host]") {
    requireByteCounts();
    const TempDir dir;
    writeBytes(dir.file("40k.tif"), onePixelStack(40000));
    writeBytes(dir.file("80k.tif"), onePixelStack(80000));
    REQUIRE_THROWS_WITH(glccl::readImage(dir.file("40k.tif")),
                        Contains("the stack of 1x1 pages is 1x1x32769 but the largest accepted side is 32768") &&
                            Contains("the pages past the limit are not read"));
    // Refusing twice the pages reads no more: the walk stops at the limit.
    const std::uint64_t refused = bytesToRead(dir.file("40k.tif")), refusedTwice = bytesToRead(dir.file("80k.tif"));
    INFO(refused << " bytes read to refuse 40000 pages, " << refusedTwice << " to refuse 80000");
    CHECK(refusedTwice < refused + refused / 10);
    // Within the voxel limit too: 2^30 voxels in pages of 2^16 is 16384 pages.
    REQUIRE_THROWS_WITH(glccl::readImage(dir.file("40k.tif")), Contains("32769"));
}

TEST_CASE("volume io: a volume's labels as .npy, TIFF stack and CSV read back; PNG refused", "[host]") {
    const TempDir dir;
    Image volume(Shape::volume(6, 5, 4));
    for (int z = 0; z < 4; ++z)
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 6; ++x)
                volume.setSample((std::size_t(z) * 5 + y) * 6 + x, 0, (x * 7 + y * 3 + z * 5) % 4 == 0 ? 1 : 0);
    const Labeling labeling = glccl::labelReference(volume, glccl::Connectivity::Six, glccl::Criterion::binary());
    REQUIRE(labeling.count() > 1);

    glccl::writeLabelsNpy(dir.file("l.npy"), labeling, false);
    const Labeling npy = glccl::readLabelsNpy(dir.file("l.npy"));
    CHECK(npy.shape() == labeling.shape());
    CHECK(npy.labels == labeling.labels);

    glccl::writeLabelImage(dir.file("l.tif"), labeling, glccl::LabelImageFormat::Auto, false);
    const Image stack = glccl::readImage(dir.file("l.tif"));
    REQUIRE(stack.shape() == labeling.shape());
    CHECK(stack.sampleBits == 32);
    for (std::size_t i = 0; i < labeling.labels.size(); ++i) REQUIRE(stack.sample(i) == labeling.labels[i]);
    CHECK_THROWS_WITH(glccl::writeLabelImage(dir.file("l.png"), labeling, glccl::LabelImageFormat::Png16, false),
                      Contains("glccl::writeLabelImage():") && Contains("TIFF stack"));

    glccl::writeStatsCsv(dir.file("s.csv"), labeling, false);
    const std::string csv = readText(dir.file("s.csv"));
    CHECK(csv.rfind("label,left,top,front,width,height,depth,area,centroid_x,centroid_y,centroid_z\n", 0) == 0);

    // The picture: the three middle slices side by side, 4 columns apart.
    const Image picture = glccl::colorizeLabels(labeling);
    CHECK(picture.width == 6 + 4 + 6 + 4 + 4);
    CHECK(picture.height == 5);
}

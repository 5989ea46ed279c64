// Image reading: TIFF (libtiff) and JPEG (libjpeg-turbo) variants, every
// truncation of a file of each format, hostile headers (claims larger than
// the file can hold, refused before the pixels are allocated), the
// in-memory entry, and the label images (16-bit PNG, 32-bit TIFF). Inputs
// are written by the reference libraries or byte by byte
// (host_io_support.hpp); expected values are computed here.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "glccl/reference.hpp"
#include "host_io_support.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using glccl::ChannelMode;
using glccl::Image;
using glccl::Labeling;
using namespace iotest;

namespace {

// Host-order samples of a TIFF test image and the values they hold.
struct TiffPixels {
    Bytes data;
    std::vector<std::uint32_t> values;  // pixel-interleaved
};

TiffPixels tiffPixels(const TiffSpec& spec, std::uint64_t seed) {
    Random random(seed);
    TiffPixels pixels;
    const std::uint64_t top = spec.bits == 32 ? 0x100000000ull : (1ull << spec.bits);
    const std::size_t count = std::size_t(spec.width) * spec.height * std::size_t(spec.samples);
    for (std::size_t i = 0; i < count; ++i) {
        // Runs of equal values, so that compression has something to do.
        const std::uint32_t v = (i % 5 == 0 || pixels.values.empty()) ? std::uint32_t(random.next() % top)
                                                                       : pixels.values.back();
        pixels.values.push_back(v);
        for (int b = 0; b < spec.bits / 8; ++b) pixels.data.push_back(std::uint8_t(v >> (8 * b)));
    }
    return pixels;
}

// OpenCV's BT.601 luma in 14-bit fixed point, as its TIFF and PPM readers
// compute it for IMREAD_GRAYSCALE (not cvtColor(COLOR_RGB2GRAY), whose 8-bit
// rounding differs; tests/gl_image_formats.py compares with OpenCV itself).
std::uint32_t openCvLuma(std::uint32_t r, std::uint32_t g, std::uint32_t b) {
    return (r * 4899 + g * 9617 + b * 1868 + 8192) >> 14;
}

void checkTiff(const TiffSpec& spec, const TiffPixels& pixels, const Image& natural, const Image& gray) {
    const bool color = spec.photometric == PHOTOMETRIC_RGB;
    REQUIRE(natural.width == int(spec.width));
    REQUIRE(natural.height == int(spec.height));
    REQUIRE(natural.sampleBits == spec.bits);
    REQUIRE(natural.channels == (color ? 4 : 1));
    REQUIRE(gray.channels == 1);
    REQUIRE(gray.sampleBits == spec.bits);
    const std::uint32_t top = natural.maxValue();
    for (std::size_t i = 0; i < std::size_t(spec.width) * spec.height; ++i) {
        const std::uint32_t* v = &pixels.values[i * std::size_t(spec.samples)];
        if (!color) {
            if (natural.sample(i) != v[0] || gray.sample(i) != v[0]) FAIL("pixel " << i << " is not " << v[0]);
            continue;
        }
        for (int c = 0; c < 3; ++c)
            if (natural.sample(i, c) != v[c]) FAIL("pixel " << i << " channel " << c);
        if (natural.sample(i, 3) != (spec.samples == 4 ? v[3] : top)) FAIL("pixel " << i << " alpha");
        if (gray.sample(i) != openCvLuma(v[0], v[1], v[2])) FAIL("pixel " << i << " luma");
    }
}

Bytes fileOf(const std::string& path) { return readBytes(path); }

// A valid file of each format and sampleBits, for the truncation and memory tests.
struct Sample {
    std::string name;
    Bytes bytes;
};

std::vector<Sample> validSamples(const TempDir& dir) {
    std::vector<Sample> samples;
    {
        const std::uint32_t w = 9, h = 7;
        for (int sampleBits : {8, 16}) {
            std::vector<Bytes> rows;
            for (std::uint32_t y = 0; y < h; ++y) {
                Bytes row;
                for (std::uint32_t x = 0; x < w; ++x)
                    for (int b = 0; b < sampleBits / 8; ++b) row.push_back(std::uint8_t(x * 31 + y * 7 + b));
                rows.push_back(row);
            }
            PngSpec spec;
            spec.width = w, spec.height = h, spec.bitDepth = sampleBits;
            writePngWithLibpng(dir.file("s.png"), spec, rows);
            samples.push_back({"gray" + std::to_string(sampleBits) + ".png", fileOf(dir.file("s.png"))});
        }
    }
    for (bool progressive : {false, true}) {
        JpegSpec spec;
        spec.progressive = progressive;
        Bytes data;
        for (int i = 0; i < spec.width * spec.height * 3; ++i) data.push_back(std::uint8_t(i * 13));
        samples.push_back({progressive ? "progressive.jpg" : "baseline.jpg", writeJpegWithLibjpeg(spec, data)});
    }
    for (bool tiled : {false, true}) {
        TiffSpec spec;
        spec.width = 20, spec.height = 18, spec.bits = 16, spec.tiled = tiled, spec.compression = COMPRESSION_LZW;
        writeTiffWithLibtiff(dir.file("s.tif"), spec, tiffPixels(spec, 3).data);
        samples.push_back({tiled ? "tiled.tif" : "striped.tif", fileOf(dir.file("s.tif"))});
    }
    Bytes pgm;
    append(pgm, "P5 4 3 65535\n");
    for (int i = 0; i < 24; ++i) pgm.push_back(std::uint8_t(i));
    samples.push_back({"deep.pgm", pgm});
    Bytes ppm;
    append(ppm, "P6 2 2 255\n");
    for (int i = 0; i < 12; ++i) ppm.push_back(std::uint8_t(i * 20));
    samples.push_back({"color.ppm", ppm});
    Bytes npy = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    std::string header = "{'descr': '<u2', 'fortran_order': False, 'shape': (3, 4), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    appendLe16(npy, std::uint32_t(header.size()));
    append(npy, header);
    for (int i = 0; i < 12; ++i) appendLe16(npy, std::uint32_t(i * 5000));
    samples.push_back({"deep.npy", npy});
    return samples;
}

}  // namespace

// ---------------------------------------------------------------- TIFF

TEST_CASE("image_io: TIFF: gray, RGB and RGBA at 8 and 16 bits, 32-bit gray, every layout and codec", "[host]") {
    TempDir dir;
    struct Kind {
        int samples, bits, photometric;
        bool extraAlpha;
    };
    const Kind kinds[] = {{1, 8, PHOTOMETRIC_MINISBLACK, false},  {1, 16, PHOTOMETRIC_MINISBLACK, false},
                          {1, 32, PHOTOMETRIC_MINISBLACK, false}, {2, 8, PHOTOMETRIC_MINISBLACK, true},
                          {3, 8, PHOTOMETRIC_RGB, false},         {3, 16, PHOTOMETRIC_RGB, false},
                          {4, 8, PHOTOMETRIC_RGB, true},          {4, 16, PHOTOMETRIC_RGB, true}};
    const int codecs[] = {COMPRESSION_NONE, COMPRESSION_LZW, COMPRESSION_ADOBE_DEFLATE, COMPRESSION_PACKBITS,
                          COMPRESSION_ZSTD};
    std::uint64_t seed = 1;
    for (const Kind& kind : kinds)
        for (int codec : codecs)
            for (bool tiled : {false, true})
                for (bool bigEndian : {false, true}) {
                    TiffSpec spec;
                    spec.width = 37, spec.height = 21;  // tiles of 16 leave partial tiles on both sides
                    spec.samples = kind.samples, spec.bits = kind.bits, spec.photometric = kind.photometric;
                    spec.extraAlpha = kind.extraAlpha, spec.compression = codec, spec.tiled = tiled;
                    spec.bigEndian = bigEndian, spec.bigTiff = (seed % 3) == 0;
                    spec.predictor = (codec == COMPRESSION_LZW || codec == COMPRESSION_ADOBE_DEFLATE) ? 2 : 0;
                    INFO(kind.samples << " samples of " << kind.bits << " bits, codec " << codec
                                      << (tiled ? ", tiled" : ", striped") << (bigEndian ? ", big-endian" : "")
                                      << (spec.bigTiff ? ", BigTIFF" : ""));
                    const TiffPixels pixels = tiffPixels(spec, seed++);
                    writeTiffWithLibtiff(dir.file("t.tif"), spec, pixels.data);
                    checkTiff(spec, pixels, glccl::readImage(dir.file("t.tif"), ChannelMode::Natural),
                              glccl::readImage(dir.file("t.tif"), ChannelMode::Gray));
                }
}

TEST_CASE("image_io: TIFF variants outside what glccl reads are refused with the reason", "[host]") {
    TempDir dir;
    const auto refuse = [&](TiffSpec spec, const std::string& why) {
        writeTiffWithLibtiff(dir.file("r.tif"), spec, tiffPixels(spec, 9).data);
        CHECK_THROWS_WITH(glccl::readImage(dir.file("r.tif")),
                          StartsWith("glccl::readImage(): ") && Contains("TIFF") && Contains(why));
    };
    TiffSpec floats;
    floats.bits = 32, floats.sampleFormat = SAMPLEFORMAT_IEEEFP;
    refuse(floats, "floating point");
    TiffSpec signedInts;
    signedInts.bits = 16, signedInts.sampleFormat = SAMPLEFORMAT_INT;
    refuse(signedInts, "signed");
    TiffSpec planes;
    planes.samples = 3, planes.photometric = PHOTOMETRIC_RGB, planes.planar = PLANARCONFIG_SEPARATE;
    planes.rowsPerStrip = 1;
    planes.height = 1;
    refuse(planes, "separate planes");
    TiffSpec deepColor;
    deepColor.samples = 3, deepColor.bits = 32, deepColor.photometric = PHOTOMETRIC_RGB;
    refuse(deepColor, "32 bits");
    TiffSpec inverted;
    inverted.photometric = PHOTOMETRIC_MINISWHITE;
    refuse(inverted, "photometric");
    TiffSpec lzma;
    lzma.compression = COMPRESSION_LZMA;
    refuse(lzma, "compression");
}

// ---------------------------------------------------------------- JPEG

TEST_CASE("image_io: reads a JPEG", "[host]") {
    const std::string path = std::string(GLCCL_TEST_DATA) + "/quadrants.jpg";
    const Image image = glccl::readImage(path);
    REQUIRE(image.width == 16);
    REQUIRE(image.height == 16);
    REQUIRE(image.channels == 4);
    REQUIRE(image.sampleBits == 8);
    // tests/data/README.md: four flat 8x8 quadrants.
    const int colors[4][3] = {{200, 40, 40}, {40, 180, 60}, {50, 60, 190}, {128, 128, 128}};
    const Image gray = glccl::readImage(path, ChannelMode::Gray);
    REQUIRE(gray.channels == 1);
    for (int y = 0; y < 16; ++y) {
        for (int x = 0; x < 16; ++x) {
            const int* expected = colors[(y / 8) * 2 + x / 8];
            for (int c = 0; c < 3; ++c) {
                if (std::abs(int(image.at(x, y, c)) - expected[c]) > 4) {
                    FAIL("pixel (" << x << ", " << y << ") channel " << c << " is " << int(image.at(x, y, c)));
                }
            }
            CHECK(image.at(x, y, 3) == 255);
            // Gray is the file's Y channel: BT.601 luma of the colors.
            const double luma = 0.299 * expected[0] + 0.587 * expected[1] + 0.114 * expected[2];
            if (std::abs(gray.at(x, y) - luma) > 4) FAIL("gray (" << x << ", " << y << ") is " << int(gray.at(x, y)));
        }
    }
}

TEST_CASE("image_io: JPEG gray, progressive and subsampled files; CMYK refused", "[host]") {
    TempDir dir;
    for (int components : {1, 3}) {
        for (bool progressive : {false, true}) {
            for (bool fullChroma : {true, false}) {
                JpegSpec spec;
                spec.width = 40, spec.height = 24, spec.components = components, spec.progressive = progressive;
                spec.fullChroma = fullChroma, spec.quality = 100;
                INFO(components << " components" << (progressive ? ", progressive" : "")
                                << (fullChroma ? "" : ", 4:2:0"));
                // Flat 8x8 blocks of one color each: they decode within a few levels.
                Bytes data;
                for (int y = 0; y < spec.height; ++y)
                    for (int x = 0; x < spec.width; ++x)
                        for (int c = 0; c < components; ++c)
                            data.push_back(std::uint8_t(((x / 16) * 70 + (y / 16) * 90 + c * 40) % 256));
                writeBytes(dir.file("j.jpg"), writeJpegWithLibjpeg(spec, data));
                const Image natural = glccl::readImage(dir.file("j.jpg"), ChannelMode::Natural);
                REQUIRE(natural.channels == (components == 1 ? 1 : 4));
                REQUIRE(natural.sampleBits == 8);
                for (int y = 0; y < spec.height; y += 3)
                    for (int x = 0; x < spec.width; x += 3)
                        for (int c = 0; c < components; ++c) {
                            const int expected = data[(std::size_t(y) * spec.width + x) * components + c];
                            const bool edge = x % 16 == 15 || x % 16 == 0 || y % 16 == 15 || y % 16 == 0;
                            if (edge && !fullChroma) continue;  // chroma upsampling blends across color edges
                            if (std::abs(int(natural.at(x, y, c)) - expected) > 6)
                                FAIL("(" << x << ", " << y << ") channel " << c << ": " << int(natural.at(x, y, c))
                                         << " vs " << expected);
                        }
            }
        }
    }
    JpegSpec cmyk;
    cmyk.components = 4;
    writeBytes(dir.file("cmyk.jpg"), writeJpegWithLibjpeg(cmyk, Bytes(16 * 16 * 4, 100)));
    CHECK_THROWS_WITH(glccl::readImage(dir.file("cmyk.jpg")), Contains("JPEG") && Contains("CMYK"));
}

// ---------------------------------------------------------------- every truncation

TEST_CASE("image_io: every truncation of a file of each format is refused, from a file and from memory", "[host]") {
    TempDir dir;
    for (const Sample& sample : validSamples(dir)) {
        INFO(sample.name << ", " << sample.bytes.size() << " bytes");
        const std::string path = dir.file(sample.name);
        writeBytes(path, sample.bytes);
        // The whole file reads, both ways, to the same image.
        const Image whole = glccl::readImage(path);
        CHECK(sameImage(glccl::readImageFromMemory(sample.bytes.data(), sample.bytes.size(), sample.name), whole));
        // Every shorter prefix is refused with the reason.
        const std::string cutPath = dir.file("cut_" + sample.name);
        for (std::size_t keep = 0; keep < sample.bytes.size(); ++keep) {
            const Bytes cut(sample.bytes.begin(), sample.bytes.begin() + std::ptrdiff_t(keep));
            bool refused = false;
            try {
                glccl::readImageFromMemory(cut.data(), cut.size(), sample.name);
            } catch (const glccl::Error& error) {
                refused = std::string(error.what()).rfind("glccl::readImageFromMemory(): '" + sample.name + "'", 0) == 0;
                if (!refused) FAIL("first " << keep << " bytes: " << error.what());
            }
            if (!refused) FAIL("the first " << keep << " bytes were read as an image");
            if (keep % 97 == 0 || keep + 1 == sample.bytes.size()) {
                writeBytes(cutPath, cut);
                CHECK_THROWS_WITH(glccl::readImage(cutPath), StartsWith("glccl::readImage(): '" + cutPath + "': "));
            }
        }
    }
}

// ---------------------------------------------------------------- hostile headers

TEST_CASE("image_io: headers claiming more pixels than the file holds are refused before allocating", "[host]") {
    TempDir dir;
    SECTION("PNG: 30000x30000 RGBA16 (7.2 GB) in a few hundred bytes") {
        Bytes png = pngHeader(30000, 30000, 16, 6);
        appendChunk(png, "IDAT", storedZlib(Bytes(200, 0)));
        appendChunk(png, "IEND", {});
        CHECK_THROWS_WITH(glccl::readImageFromMemory(png.data(), png.size(), "bomb.png"),
                          Contains("PNG") && Contains("truncated or forged") && Contains("deflate"));
    }
    SECTION("JPEG: a frame header of 30000x30000") {
        JpegSpec spec;
        spec.width = 8, spec.height = 8, spec.components = 1;
        Bytes jpeg = writeJpegWithLibjpeg(spec, Bytes(64, 90));
        // Patch the SOF0 size fields (big-endian height, then width).
        for (std::size_t i = 0; i + 8 < jpeg.size(); ++i)
            if (jpeg[i] == 0xFF && jpeg[i + 1] == 0xC0) {
                jpeg[i + 5] = 30000 >> 8, jpeg[i + 6] = 30000 & 0xFF, jpeg[i + 7] = 30000 >> 8,
                jpeg[i + 8] = 30000 & 0xFF;
                break;
            }
        CHECK_THROWS_WITH(glccl::readImageFromMemory(jpeg.data(), jpeg.size(), "bomb.jpg"),
                          Contains("JPEG") && Contains("truncated or forged"));
    }
    SECTION("TIFF: a strip past the end of the file, and a 32768^2 claim in one small strip") {
        TiffSpec spec;
        spec.width = 8, spec.height = 8, spec.rowsPerStrip = 8, spec.compression = COMPRESSION_ADOBE_DEFLATE;
        writeTiffWithLibtiff(dir.file("small.tif"), spec, Bytes(64, 3));
        Bytes tiff = readBytes(dir.file("small.tif"));
        // Rewrite the ImageWidth and ImageLength entries (tags 256, 257, type
        // LONG or SHORT) of the little-endian classic TIFF's first IFD.
        const std::uint32_t ifd = tiff[4] | tiff[5] << 8 | tiff[6] << 16 | std::uint32_t(tiff[7]) << 24;
        const int entries = tiff[ifd] | tiff[ifd + 1] << 8;
        for (int e = 0; e < entries; ++e) {
            std::uint8_t* entry = &tiff[ifd + 2 + 12 * std::size_t(e)];
            const int tag = entry[0] | entry[1] << 8;
            if (tag == 256 || tag == 257) {
                entry[2] = 4, entry[3] = 0;  // LONG
                entry[8] = 0, entry[9] = 0x80, entry[10] = 0, entry[11] = 0;  // 32768
            }
            if (tag == 278) entry[8] = 0, entry[9] = 0x80, entry[10] = 0, entry[11] = 0;  // RowsPerStrip
        }
        CHECK_THROWS_WITH(glccl::readImageFromMemory(tiff.data(), tiff.size(), "bomb.tif"),
                          Contains("TIFF") && Contains("truncated or forged") && Contains("Deflate"));
        Bytes cut = readBytes(dir.file("small.tif"));
        // StripOffsets far past the end.
        for (int e = 0; e < entries; ++e) {
            std::uint8_t* entry = &cut[ifd + 2 + 12 * std::size_t(e)];
            if ((entry[0] | entry[1] << 8) == 273) entry[8] = 0, entry[9] = 0, entry[10] = 0, entry[11] = 0x10;
        }
        CHECK_THROWS_WITH(glccl::readImageFromMemory(cut.data(), cut.size(), "past.tif"),
                          Contains("TIFF") && Contains("past the end"));
    }
    SECTION("PGM and .npy: the data must all be there") {
        Bytes pgm;
        append(pgm, "P5 32768 32768 65535\n");
        CHECK_THROWS_WITH(glccl::readImageFromMemory(pgm.data(), pgm.size(), "bomb.pgm"), Contains("truncated"));
        Bytes npy = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
        std::string header = "{'descr': '<u4', 'fortran_order': False, 'shape': (32768, 32768), }";
        while ((10 + header.size() + 1) % 64 != 0) header += ' ';
        header += '\n';
        appendLe16(npy, std::uint32_t(header.size()));
        append(npy, header);
        CHECK_THROWS_WITH(glccl::readImageFromMemory(npy.data(), npy.size(), "bomb.npy"), Contains("truncated"));
    }
}

TEST_CASE("image_io: readImageFromMemory names the memory in its messages", "[host]") {
    const Bytes garbage = {'n', 'o', 'p', 'e'};
    CHECK_THROWS_WITH(glccl::readImageFromMemory(garbage.data(), garbage.size(), "upload #3"),
                      StartsWith("glccl::readImageFromMemory(): 'upload #3': ") && Contains("not an image"));
    CHECK_THROWS_WITH(glccl::readImageFromMemory(nullptr, 0, "nothing"), Contains("'nothing'") && Contains("empty"));
}

// ---------------------------------------------------------------- label images

TEST_CASE("image_io: label images: 16-bit PNG up to 65535 labels, 32-bit TIFF beyond", "[host]") {
    TempDir dir;
    Labeling labeling;
    labeling.width = 300, labeling.height = 2;
    for (std::uint32_t i = 0; i < 600; ++i) labeling.labels.push_back(i * 100);  // up to 59900
    CHECK(glccl::resolveLabelImageFormat(labeling, glccl::LabelImageFormat::Auto) == glccl::LabelImageFormat::Png16);
    glccl::writeLabelImage(dir.file("l.png"), labeling, glccl::LabelImageFormat::Auto, false);
    const Image png = glccl::readImage(dir.file("l.png"));
    REQUIRE(png.sampleBits == 16);
    REQUIRE(png.channels == 1);
    for (std::size_t i = 0; i < labeling.labels.size(); ++i) CHECK(png.sample(i) == labeling.labels[i]);

    labeling.labels[599] = 65536;
    CHECK(glccl::resolveLabelImageFormat(labeling, glccl::LabelImageFormat::Auto) == glccl::LabelImageFormat::Tiff32);
    CHECK_THROWS_WITH(glccl::writeLabelImage(dir.file("no.png"), labeling, glccl::LabelImageFormat::Png16, false),
                      StartsWith("glccl::writeLabelImage(): ") && Contains("65536") && Contains("65535"));
    CHECK_FALSE(fs::exists(dir.file("no.png")));
    labeling.labels[0] = 0xFFFFFFFFu;
    glccl::writeLabelImage(dir.file("l.tif"), labeling, glccl::LabelImageFormat::Auto, false);
    // libtiff reads it back as 32-bit unsigned gray, the same labels.
    TIFF* tiff = TIFFOpen(dir.file("l.tif").c_str(), "r");
    REQUIRE(tiff != nullptr);
    std::uint16_t bits = 0, format = 0, samples = 0;
    TIFFGetField(tiff, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLESPERPIXEL, &samples);
    CHECK(bits == 32);
    CHECK(format == SAMPLEFORMAT_UINT);
    CHECK(samples == 1);
    std::vector<std::uint32_t> row(300);
    for (std::uint32_t y = 0; y < 2; ++y) {
        REQUIRE(TIFFReadScanline(tiff, row.data(), y, 0) == 1);
        for (std::uint32_t x = 0; x < 300; ++x) CHECK(row[x] == labeling.labels[y * 300 + x]);
    }
    TIFFClose(tiff);
    // And glccl's reader takes it as a 32-bit image.
    const Image back = glccl::readImage(dir.file("l.tif"));
    REQUIRE(back.sampleBits == 32);
    for (std::size_t i = 0; i < labeling.labels.size(); ++i) CHECK(back.sample(i) == labeling.labels[i]);
}

// TIFF input out of core: every layout glccl::readImage reads gives the same
// pixels through TiffImageSource (strip by strip, tile by tile, classic and
// BigTIFF, compressed or not), any rectangle of them, before and after its
// rows are released; tiled labeling of the file equals the reference on the
// file read whole; truncated and hostile files are refused with the reason,
// a strip that does not decode fails the labeling, never a partial output.
// Files are written by libtiff itself (host_io_support.hpp).

#include <algorithm>
#include <array>
#include <cstring>

#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/image_io.hpp"
#include "host_io_support.hpp"
#include "tiles_support.hpp"

using namespace glccl;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using iotest::Bytes;
using iotest::TiffSpec;

namespace {

// Samples for a spec: runs of few values (segments that cross strips and
// tiles), host order as libtiff takes them.
Bytes samplesFor(const TiffSpec& spec, std::uint64_t seed) {
    std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    const auto next = [&state] {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        return state;
    };
    // Values far apart in 16 and 32 bits, so that a byte order or sampleBits
    // mistake changes the labels.
    const std::uint32_t scale = spec.bits == 8 ? 60 : spec.bits == 16 ? 16411 : 0x3F00F00Fu;
    Bytes data;
    std::uint32_t value = 0;
    const std::size_t count = std::size_t(spec.width) * spec.height * std::size_t(spec.samples);
    for (std::size_t i = 0; i < count; ++i) {
        if (i % 3 == 0) value = std::uint32_t(next() % 4) * scale;
        for (int b = 0; b < spec.bits / 8; ++b) data.push_back(std::uint8_t(value >> (8 * b)));
    }
    return data;
}

void requireSamePixels(const ImageSource& source, const Image& expected) {
    REQUIRE(source.width() == std::uint32_t(expected.width));
    REQUIRE(source.height() == std::uint32_t(expected.height));
    REQUIRE(source.channels() == expected.channels);
    REQUIRE(source.sampleBits() == expected.sampleBits);
    Image whole;
    source.read(0, 0, source.width(), source.height(), whole);
    REQUIRE(whole.pixels == expected.pixels);
    // Rectangles that start and end inside strips and tiles, top to bottom
    // with the rows above released, then one of the released rows again.
    const int width = std::max(1, expected.width - 5), height = 4;
    Image part;
    for (int y0 = 0; y0 + height <= expected.height; y0 += 3) {
        source.read(2, std::uint32_t(y0), std::uint32_t(width), height, part);
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                for (int c = 0; c < expected.channels; ++c)
                    if (part.sample(x, y, c) != expected.sample(x + 2, y + y0, c))
                        FAIL("(" << x + 2 << ", " << y + y0 << ") channel " << c);
        source.release(0, std::uint32_t(y0));
    }
    source.read(1, 0, 1, 1, part);
    REQUIRE(part.sample(0, 0, 0) == expected.sample(1, 0, 0));
}

void requireTiledLikeReference(const ImageSource& source, const Image& whole, const Criterion& criterion) {
    for (const Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
        for (const auto& [tw, th] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{{5, 4}, {17, 9}, {64, 1}}) {
            LabelingSink sink;
            TiledOptions options = glccl::test::cpuTiles(connectivity, criterion, tw, th);
            options.devices.assign(2, 0);  // two readers at once
            labelTiled(source, options, sink);
            const Comparison comparison =
                compareLabelings(labelReference(whole, connectivity, criterion), sink.labeling());
            INFO(criterion.toString() << " connectivity " << int(connectivity) << " tiles " << tw << "x" << th << ": "
                                      << comparison.describe());
            REQUIRE(comparison.identical());
        }
}

}  // namespace

TEST_CASE("every TIFF layout reads strip by strip and tile by tile as readImage reads it", "[tiles]") {
    const iotest::TempDir dir;
    struct Case {
        const char* name;
        int bits, samples, photometric, compression;
        bool tiled, bigTiff, bigEndian;
        std::uint32_t rowsPerStrip, tileSize;
    };
    const Case cases[] = {
        {"gray8 striped, 1 row a strip", 8, 1, PHOTOMETRIC_MINISBLACK, COMPRESSION_NONE, false, false, false, 1, 0},
        {"gray8 striped, 5 rows, Deflate", 8, 1, PHOTOMETRIC_MINISBLACK, COMPRESSION_ADOBE_DEFLATE, false, false, false, 5, 0},
        {"gray8 one strip (libtiff chops it)", 8, 1, PHOTOMETRIC_MINISBLACK, COMPRESSION_NONE, false, false, false, 1000, 0},
        {"gray8 tiled 16x16", 8, 1, PHOTOMETRIC_MINISBLACK, COMPRESSION_NONE, true, false, false, 0, 16},
        {"gray8 tiled 32x32 BigTIFF, LZW", 8, 1, PHOTOMETRIC_MINISBLACK, COMPRESSION_LZW, true, true, false, 0, 32},
        {"gray16 striped, big-endian, PackBits", 16, 1, PHOTOMETRIC_MINISBLACK, COMPRESSION_PACKBITS, false, false, true, 7, 0},
        {"gray16 tiled BigTIFF, ZSTD", 16, 1, PHOTOMETRIC_MINISBLACK, COMPRESSION_ZSTD, true, true, false, 0, 16},
        {"gray32 striped", 32, 1, PHOTOMETRIC_MINISBLACK, COMPRESSION_ADOBE_DEFLATE, false, false, false, 4, 0},
        {"RGB8 tiled", 8, 3, PHOTOMETRIC_RGB, COMPRESSION_NONE, true, false, false, 0, 16},
        {"RGBA16 striped", 16, 4, PHOTOMETRIC_RGB, COMPRESSION_LZW, false, true, false, 6, 0},
    };
    std::uint64_t seed = 1;
    for (const Case& c : cases) {
        INFO(c.name);
        TiffSpec spec;
        spec.width = 53, spec.height = 37;  // primes: partial strips and tiles on both edges
        spec.bits = c.bits, spec.samples = c.samples, spec.photometric = c.photometric;
        spec.compression = c.compression, spec.tiled = c.tiled, spec.bigTiff = c.bigTiff, spec.bigEndian = c.bigEndian;
        spec.rowsPerStrip = c.rowsPerStrip, spec.tileSize = c.tileSize;
        const std::string path = dir.file("t.tif");
        iotest::writeTiffWithLibtiff(path, spec, samplesFor(spec, seed++));
        REQUIRE(isTiffFile(path));
        for (const ChannelMode mode : {ChannelMode::Gray, ChannelMode::Natural}) {
            const Image whole = readImage(path, mode);
            const std::unique_ptr<ImageSource> source = openImageSource(path, mode);
            REQUIRE_THAT(source->describe(), StartsWith(c.tiled ? "tiled " : "striped ") &&
                                                 Contains(c.bigTiff ? "BigTIFF" : "TIFF"));
            requireSamePixels(*source, whole);
            if (whole.channels == 4)
                requireTiledLikeReference(*source, whole, Criterion::thresholded(whole.sampleBits == 8 ? 30 : 20000));
            else requireTiledLikeReference(*source, whole, Criterion::segments());
        }
    }
}

TEST_CASE("a tiled TIFF labeled through the command's source equals the reference at every band", "[tiles]") {
    // Strips of 3 rows under tiles of 7 rows: strips straddle band edges
    // and are kept for the next band; each is decoded once.
    const iotest::TempDir dir;
    TiffSpec spec;
    spec.width = 211, spec.height = 97, spec.rowsPerStrip = 3, spec.compression = COMPRESSION_ADOBE_DEFLATE;
    const Image image = generateFamily("spiral", int(spec.width), int(spec.height), 1);
    iotest::writeTiffWithLibtiff(dir.file("spiral.tif"), spec, Bytes(image.pixels.begin(), image.pixels.end()));
    const TiffImageSource source(dir.file("spiral.tif"), ChannelMode::Gray);
    REQUIRE(source.describe() == "striped TIFF (3 rows a strip, Deflate), read strip by strip");
    // A band of 7 rows holds 3 strips of 3 rows, and the one across its
    // lower edge: 4 strips of 211 pixels.
    REQUIRE(source.bandBytes(7) == 4 * 3 * 211);
    requireTiledLikeReference(source, image, Criterion::binary());
}

TEST_CASE("truncated and hostile TIFFs are refused with the reason", "[tiles]") {
    const iotest::TempDir dir;
    TiffSpec spec;
    spec.width = 40, spec.height = 30, spec.rowsPerStrip = 5, spec.compression = COMPRESSION_ADOBE_DEFLATE;
    iotest::writeTiffWithLibtiff(dir.file("good.tif"), spec, samplesFor(spec, 7));
    const Bytes good = iotest::readBytes(dir.file("good.tif"));
    const std::string where = "glccl::TiffImageSource: '";

    SECTION("cut anywhere: refused when opened or when the cut strip is read") {
        for (std::size_t size = 0; size < good.size(); size += std::max<std::size_t>(1, good.size() / 40)) {
            const std::string path = dir.file("cut.tif");
            iotest::writeBytes(path, Bytes(good.begin(), good.begin() + std::ptrdiff_t(size)));
            INFO("cut at " << size << " of " << good.size());
            try {
                const TiffImageSource source(path, ChannelMode::Gray);
                Image out;
                source.read(0, 0, source.width(), source.height(), out);
                FAIL("a TIFF cut at " << size << " bytes was read");
            } catch (const Error& error) {
                REQUIRE_THAT(error.what(), StartsWith(where + path + "': TIFF: "));
            }
        }
    }
    SECTION("a strip past the end of the file") {
        Bytes past = good;
        const std::uint32_t ifd = past[4] | past[5] << 8 | past[6] << 16 | std::uint32_t(past[7]) << 24;
        const int entries = past[ifd] | past[ifd + 1] << 8;
        for (int e = 0; e < entries; ++e) {
            std::uint8_t* entry = &past[ifd + 2 + 12 * std::size_t(e)];
            // StripByteCounts: one strip (a count stored in place) claims 1 GiB.
            if ((entry[0] | entry[1] << 8) == 279) {
                const std::uint32_t at = entry[8] | entry[9] << 8 | entry[10] << 16 | std::uint32_t(entry[11]) << 24;
                const bool shortCounts = (entry[2] | entry[3] << 8) == 3;
                std::uint8_t* first = &past[at];
                if (shortCounts) first[0] = 0xFF, first[1] = 0xFF;
                else first[0] = 0, first[1] = 0, first[2] = 0, first[3] = 0x40;
            }
        }
        iotest::writeBytes(dir.file("past.tif"), past);
        REQUIRE_THROWS_WITH(TiffImageSource(dir.file("past.tif"), ChannelMode::Gray),
                            StartsWith(where) && Contains("truncated: strip 0") && Contains("past the end"));
    }
    SECTION("a strip that does not decode fails the labeling, and only where it is read") {
        // Garbage over the coded bytes of strip 2 (rows 10..14).
        TIFF* tiff = TIFFOpen(dir.file("good.tif").c_str(), "r");
        REQUIRE(tiff != nullptr);
        const std::uint64_t offset = TIFFGetStrileOffset(tiff, 2), count = TIFFGetStrileByteCount(tiff, 2);
        TIFFClose(tiff);
        Bytes broken = good;
        for (std::uint64_t i = 0; i < count; ++i) broken[offset + i] = std::uint8_t(0xA5 ^ i);
        const std::string path = dir.file("broken.tif");
        iotest::writeBytes(path, broken);
        const TiffImageSource source(path, ChannelMode::Gray);
        Image out;
        REQUIRE_NOTHROW(source.read(0, 0, 40, 10, out));
        REQUIRE_THROWS_WITH(source.read(3, 9, 5, 2, out),
                            StartsWith(where + path + "': TIFF: cannot decode the strip at (0, 10)"));
        LabelingSink sink;
        REQUIRE_THROWS_WITH(labelTiled(source, glccl::test::cpuTiles(Connectivity::Eight, Criterion::segments(), 8, 8), sink),
                            Contains("cannot decode the strip at (0, 10)"));
    }
    SECTION("an uncompressed strip whose byte count is short is refused, as readImage refuses it") {
        // libtiff reads an uncompressed strip whole from its offset whatever
        // its count says; strip 2's count cut to 100 bytes of its 200, and
        // to 0.
        TiffSpec plain = spec;
        plain.compression = COMPRESSION_NONE;
        iotest::writeTiffWithLibtiff(dir.file("plain.tif"), plain, samplesFor(plain, 7));
        for (const std::uint32_t count : {100u, 0u}) {
            Bytes cut = iotest::readBytes(dir.file("plain.tif"));
            const std::uint32_t ifd = cut[4] | cut[5] << 8 | cut[6] << 16 | std::uint32_t(cut[7]) << 24;
            const int entries = cut[ifd] | cut[ifd + 1] << 8;
            for (int e = 0; e < entries; ++e) {
                std::uint8_t* entry = &cut[ifd + 2 + 12 * std::size_t(e)];
                if ((entry[0] | entry[1] << 8) != 279) continue;  // StripByteCounts: 6 counts, stored apart
                const std::uint32_t at = entry[8] | entry[9] << 8 | entry[10] << 16 | std::uint32_t(entry[11]) << 24;
                const std::size_t size = (entry[2] | entry[3] << 8) == 3 ? 2 : 4;
                for (std::size_t b = 0; b < size; ++b) cut[at + 2 * size + b] = std::uint8_t(count >> (8 * b));
            }
            const std::string path = dir.file("short.tif");
            iotest::writeBytes(path, cut);
            INFO("count " << count);
            REQUIRE_THROWS_AS(readImage(path), Error);
            const TiffImageSource source(path, ChannelMode::Gray);
            Image out;
            REQUIRE_NOTHROW(source.read(0, 0, 40, 10, out));
            REQUIRE_THROWS_WITH(source.read(0, 10, 40, 5, out),
                                StartsWith(where + path + "': TIFF: the uncompressed strip at (0, 10) holds " +
                                           std::to_string(count) + " bytes of its 200"));
        }
    }
    SECTION("strips too large to decode one at a time") {
        // One ZSTD strip claiming 65536x8192 pixels (512 MiB) in 8 KiB: within
        // the codec's ratio, but never decoded whole for a band.
        TIFF* tiff = TIFFOpen(dir.file("wide.tif").c_str(), "w");
        REQUIRE(tiff != nullptr);
        TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, 65536u);
        TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, 8192u);
        TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, 8);
        TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(tiff, TIFFTAG_COMPRESSION, COMPRESSION_ZSTD);
        TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, 8192u);
        Bytes coded(8192, 0);
        REQUIRE(TIFFWriteRawStrip(tiff, 0, coded.data(), tmsize_t(coded.size())) == tmsize_t(coded.size()));
        TIFFClose(tiff);
        REQUIRE_THROWS_WITH(TiffImageSource(dir.file("wide.tif"), ChannelMode::Gray),
                            StartsWith(where) && Contains("strips of 8192 rows of 65536 pixels decode to 536870912 bytes") &&
                                Contains("tile=(256, 256)"));
    }
    SECTION("not a TIFF at all") {
        iotest::writeBytes(dir.file("text.tif"), Bytes{'I', 'I', '*', 0, 'n', 'o'});
        REQUIRE(isTiffFile(dir.file("text.tif")));
        REQUIRE_THROWS_WITH(TiffImageSource(dir.file("text.tif"), ChannelMode::Gray), StartsWith(where));
        iotest::writeBytes(dir.file("png.tif"), Bytes{0x89, 'P', 'N', 'G'});
        REQUIRE_FALSE(isTiffFile(dir.file("png.tif")));
    }
}

TEST_CASE("a TIFF stack reads as the volume readImage reads, its lines across pages, and labels in bricks like the "
          "reference",
          "[tiles][volume]") {
    // Pages of one size and type in every layout, one after the other in a
    // file: strips of 3 and of 1 row, tiles of 16 and 32, compressed or not.
    const iotest::TempDir dir;
    const std::string path = dir.file("stack.tif");
    for (const int bits : {8, 16}) {
        INFO(bits << "-bit pages");
        std::vector<TiffSpec> specs;
        std::vector<Bytes> data;
        const int layouts[][3] = {{COMPRESSION_ADOBE_DEFLATE, 0, 3}, {COMPRESSION_NONE, 16, 0},
                                  {COMPRESSION_LZW, 0, 1},           {COMPRESSION_ZSTD, 32, 0},
                                  {COMPRESSION_PACKBITS, 0, 29},     {COMPRESSION_NONE, 0, 5}};
        for (int z = 0; z < 11; ++z) {
            const int* layout = layouts[z % 6];
            TiffSpec spec;
            spec.width = 37, spec.height = 29, spec.bits = bits, spec.compression = layout[0];
            spec.tiled = layout[1] != 0, spec.tileSize = std::uint32_t(layout[1]), spec.rowsPerStrip = std::uint32_t(layout[2]);
            specs.push_back(spec);
            data.push_back(samplesFor(spec, std::uint64_t(z + 1)));
        }
        iotest::writeTiffStackWithLibtiff(path, specs, data);
        const Image volume = readImage(path, ChannelMode::Gray);
        REQUIRE(volume.shape() == Shape::volume(37, 29, 11));
        const std::unique_ptr<ImageSource> source = openImageSource(path, ChannelMode::Gray);
        REQUIRE(source->dimensions() == 3);
        REQUIRE(source->depth() == 11);
        REQUIRE_THAT(source->describe(), Contains("stack of 11 pages") && Contains("other pages otherwise"));
        // Every line at once, then rectangles across page boundaries with
        // the lines above released, then a released line again.
        Image lines;
        source->read(0, 0, 37, 29 * 11, lines);
        REQUIRE(lines.pixels == volume.pixels);
        Image part;
        for (std::uint32_t y0 = 0; y0 + 40 <= 29 * 11; y0 += 23) {
            source->read(3, y0, 30, 40, part);
            for (int y = 0; y < 40; ++y)
                for (int x = 0; x < 30; ++x)
                    if (part.sample(x, y, 0) != lines.sample(x + 3, int(y0) + y, 0)) FAIL("line " << y0 + y << ", " << x + 3);
            source->release(0, y0);
        }
        source->read(5, 1, 1, 1, part);
        REQUIRE(part.sample(0, 0, 0) == lines.sample(5, 1, 0));
        // In bricks of odd shapes, on two readers at once.
        for (const Connectivity connectivity : {Connectivity::Six, Connectivity::TwentySix})
            for (const auto& [bw, bh, bd] : std::vector<std::array<std::uint32_t, 3>>{{16, 16, 4}, {37, 7, 3}, {5, 29, 11}}) {
                TiledOptions options = glccl::test::cpuTiles(connectivity, Criterion::segments(), bw, bh);
                options.tileDepth = bd;
                options.devices.assign(2, 0);
                LabelingSink sink;
                labelTiled(*source, options, sink);
                const Comparison comparison =
                    compareLabelings(labelReference(volume, connectivity, Criterion::segments()), sink.labeling());
                INFO("bricks " << bw << "x" << bh << "x" << bd << ", connectivity " << neighbourCount(connectivity)
                               << ": " << comparison.describe());
                REQUIRE(comparison.identical());
            }
    }
}

TEST_CASE("a TIFF stack's decoded pages join the memory a brick plan counts, and a limit is kept", "[tiles][volume]") {
    const iotest::TempDir dir;
    TiffSpec spec;
    spec.width = 300, spec.height = 200, spec.rowsPerStrip = 8, spec.compression = COMPRESSION_ADOBE_DEFLATE;
    const Bytes zeros(std::size_t(spec.width) * spec.height, 0);
    iotest::writeTiffStackWithLibtiff(dir.file("zeros.tif"), std::vector<TiffSpec>(40, spec),
                                      std::vector<Bytes>(40, zeros));
    const TiffImageSource source(dir.file("zeros.tif"), ChannelMode::Gray);
    // A band of 3 pages' lines touches 3 pages and the one below: 4 pages
    // of 200 rows (25 strips of 8) of 300 pixels.
    REQUIRE(source.bandBytes(3 * 200) == 4 * 200 * 300);
    const BackendLimits limits = glccl::test::limitsFor(Backend::Cpu, 3);
    TiledOptions options = glccl::test::cpuTiles(Connectivity::TwentySix, Criterion::binary(), 0, 0);
    for (const std::uint64_t limit : {std::uint64_t(96) << 20, std::uint64_t(128) << 20, std::uint64_t(1) << 30}) {
        options.memoryLimit = limit;
        std::uint64_t estimate = 0;
        const TilePlan plan = planTiles(source, options, limits, 1, &estimate);
        INFO("limit " << limit << ": bricks " << plan.tileWidth() << "x" << plan.tileHeight() << "x" << plan.tileDepth()
                      << ", estimate " << estimate);
        REQUIRE(plan.isVolume());
        REQUIRE(estimate <= limit);
    }
    // The model holds the decoded pages of the layers in flight: more than
    // for the same volume in memory, in the same bricks.
    const Image inMemory(Shape::volume(300, 200, 40));
    const ImageMemorySource memory(inMemory);
    options.tileWidth = 150, options.tileHeight = 100, options.tileDepth = 8;
    std::uint64_t fromFile = 0, fromMemory = 0;
    planTiles(source, options, limits, 1, &fromFile);
    planTiles(memory, options, limits, 1, &fromMemory);
    REQUIRE(fromFile >= fromMemory + source.bandBytes(8 * 200));
}

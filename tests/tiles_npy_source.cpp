// Memory-mapped .npy input: every dtype and layout glccl::readImage takes
// gives the same pixels through NpyImageSource, any rectangle of them, and
// tiled labeling of the mapped file equals the reference on the file read
// whole.

#include <cstring>

#include "glccl/generate.hpp"
#include "glccl/image_io.hpp"
#include "tiles_support.hpp"

using namespace glccl;

namespace {

// A .npy file (format 1.0) with any descr, shape and raw little-endian data.
void writeNpy(const std::string& path, const std::string& descr, const std::string& shape, bool fortran,
              const std::vector<std::uint8_t>& data) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                         ", 'shape': " + shape + ", }";
    header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
    header.push_back('\n');
    std::ofstream out(path, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    out.put(char(header.size() & 0xFF));
    out.put(char(header.size() >> 8));
    out << header;
    out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
}

void requireSamePixels(const ImageSource& source, const Image& expected) {
    Image whole;
    source.read(0, 0, source.width(), source.height(), whole);
    REQUIRE(whole.width == expected.width);
    REQUIRE(whole.height == expected.height);
    REQUIRE(whole.channels == expected.channels);
    REQUIRE(whole.pixels == expected.pixels);
    // A rectangle inside, and again after its rows were released.
    Image part;
    const int width = expected.width - 2, height = expected.height - 1;
    for (int pass = 0; pass < 2; ++pass) {
        source.read(1, 1, std::uint32_t(width), std::uint32_t(height), part);
        REQUIRE(part.sampleBits == expected.sampleBits);
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                for (int c = 0; c < expected.channels; ++c)
                    REQUIRE(part.sample(x, y, c) == expected.sample(x + 1, y + 1, c));
        source.release(0, source.height());
    }
}

}  // namespace

TEST_CASE("every .npy dtype and layout maps to readImage's pixels", "[tiles]") {
    const std::string folder = glccl::test::scratchFolder("npy");
    const int width = 23, height = 17;
    const Image gray = randomImage(width, height, 0.5, 200, 1, 3);

    // uint8 in C order, as glccl writes it.
    writeImageNpy(folder + "/u1.npy", gray, true);
    // uint16, bool, int32 and float32 in C order; uint16 in Fortran order.
    std::vector<std::uint8_t> u2, b1, i4, f4, u2f;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const std::uint16_t v = gray.at(x, y);
            u2.push_back(std::uint8_t(v));
            u2.push_back(std::uint8_t(v >> 8));
            b1.push_back(v != 0);
            const std::int32_t i = v;
            const float f = float(v);
            i4.insert(i4.end(), reinterpret_cast<const std::uint8_t*>(&i), reinterpret_cast<const std::uint8_t*>(&i) + 4);
            f4.insert(f4.end(), reinterpret_cast<const std::uint8_t*>(&f), reinterpret_cast<const std::uint8_t*>(&f) + 4);
        }
    for (int x = 0; x < width; ++x)
        for (int y = 0; y < height; ++y) {
            u2f.push_back(gray.at(x, y));
            u2f.push_back(0);
        }
    const std::string shape = "(" + std::to_string(height) + ", " + std::to_string(width) + ")";
    writeNpy(folder + "/u2.npy", "<u2", shape, false, u2);
    writeNpy(folder + "/b1.npy", "|b1", shape, false, b1);
    writeNpy(folder + "/i4.npy", "<i4", shape, false, i4);
    writeNpy(folder + "/f4.npy", "<f4", shape, false, f4);
    writeNpy(folder + "/u2f.npy", "<u2", shape, true, u2f);
    // RGB (read as RGBA) for the threshold criterion.
    const Image color = randomImage(width, height, 0.5, 200, 4, 4);
    std::vector<std::uint8_t> rgb;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < 3; ++c) rgb.push_back(color.at(x, y, c));
    writeNpy(folder + "/rgb.npy", "|u1", "(" + std::to_string(height) + ", " + std::to_string(width) + ", 3)", false, rgb);

    for (const std::string name : {"u1", "u2", "b1", "i4", "f4", "u2f"}) {
        const std::string path = folder + "/" + name + ".npy";
        INFO(name);
        const NpyImageSource source(path, ChannelMode::Gray);
        REQUIRE(source.width() == std::uint32_t(width));
        requireSamePixels(source, readImage(path, ChannelMode::Gray));
        const Image whole = readImage(path, ChannelMode::Gray);
        for (const Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
            const Labeling expected = labelReference(whole, connectivity, Criterion::segments());
            LabelingSink sink;
            labelTiled(source, glccl::test::cpuTiles(connectivity, Criterion::segments(), 5, 4), sink);
            REQUIRE(compareLabelings(expected, sink.labeling()).identical());
        }
    }
    const NpyImageSource rgbSource(folder + "/rgb.npy", ChannelMode::Natural, NpyChannelAxis::Last);
    REQUIRE(rgbSource.channels() == 4);
    const Image rgbWhole = readImage(folder + "/rgb.npy", ChannelMode::Natural, NpyChannelAxis::Last);
    requireSamePixels(rgbSource, rgbWhole);
    LabelingSink sink;
    labelTiled(rgbSource, glccl::test::cpuTiles(Connectivity::Eight, Criterion::thresholded(60), 6, 6), sink);
    REQUIRE(compareLabelings(labelReference(rgbWhole, Connectivity::Eight, Criterion::thresholded(60)), sink.labeling())
                .identical());
    REQUIRE_THROWS_WITH(NpyImageSource(folder + "/rgb.npy", ChannelMode::Gray, NpyChannelAxis::Last),
                        Catch::Matchers::EndsWith("holds 3 channels; binary and segments take a (height, width) array"));
    // Without a named channel axis a 3-D array is a volume, as readImage reads it.
    REQUIRE_THROWS_WITH(NpyImageSource(folder + "/rgb.npy", ChannelMode::Natural),
                        Catch::Matchers::Contains("is a volume (depth, height, width)"));
    REQUIRE_THROWS_WITH(peekNpyShape(folder + "/rgb.npy"), Catch::Matchers::Contains("is a volume"));
    REQUIRE(peekNpyShape(folder + "/rgb.npy", NpyChannelAxis::Last).channels == 3);
}

TEST_CASE("64-bit and big-endian .npy dtypes map to readImage's pixels, and a volume's refusal names [z, y, x]",
          "[tiles]") {
    const std::string folder = glccl::test::scratchFolder("npy64");
    const int width = 19, height = 13;
    // Ids 1..3, plus 2^32 in alternate columns: low halves equal side by side.
    std::vector<std::uint64_t> ids;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const std::uint64_t id = std::uint64_t((x * 7 + y * 3) % 4);
            ids.push_back(id == 0 ? 0 : id + (x % 2 == 0 ? std::uint64_t(1) << 32 : 0));
        }
    const auto bytesOf = [&](std::size_t size, bool big, auto element) {
        std::vector<std::uint8_t> bytes;
        for (const std::uint64_t id : ids) {
            const std::uint64_t bits = element(id);
            for (std::size_t b = 0; b < size; ++b)
                bytes.push_back(std::uint8_t(bits >> (8 * (big ? size - 1 - b : b))));
        }
        return bytes;
    };
    const auto asDouble = [](std::uint64_t id) {
        const double d = double(id);
        std::uint64_t bits;
        std::memcpy(&bits, &d, 8);
        return bits;
    };
    const auto same = [](std::uint64_t id) { return id; };
    const std::string shape = "(" + std::to_string(height) + ", " + std::to_string(width) + ")";
    writeNpy(folder + "/i8.npy", "<i8", shape, false, bytesOf(8, false, same));
    writeNpy(folder + "/u8be.npy", ">u8", shape, false, bytesOf(8, true, same));
    writeNpy(folder + "/f8be.npy", ">f8", shape, false, bytesOf(8, true, asDouble));
    writeNpy(folder + "/u8f.npy", "<u8", shape, true, bytesOf(8, false, same));  // read as the transpose
    for (const std::string name : {"i8", "u8be", "f8be", "u8f"}) {
        const std::string path = folder + "/" + name + ".npy";
        INFO(name);
        const NpyImageSource source(path, ChannelMode::Gray);
        REQUIRE(source.sampleBits() == 64);
        const Image whole = readImage(path, ChannelMode::Gray);
        requireSamePixels(source, whole);
        for (const Criterion& criterion : {Criterion::segments(), Criterion::withinDelta(1)}) {
            LabelingSink sink;
            labelTiled(source, glccl::test::cpuTiles(Connectivity::Eight, criterion, 5, 4), sink);
            REQUIRE(compareLabelings(labelReference(whole, Connectivity::Eight, criterion), sink.labeling())
                        .identical());
        }
    }
    CHECK(NpyImageSource(folder + "/u8be.npy", ChannelMode::Gray).describe().rfind("uint64 (big-endian) .npy", 0) ==
          0);

    // A negative int64 in a volume: its place as (z, y, x).
    std::vector<std::uint8_t> volume(2 * 3 * 4 * 8, 0);
    const std::int64_t negative = -4;
    std::memcpy(volume.data() + 8 * ((1 * 3 + 2) * 4 + 1), &negative, 8);  // [1, 2, 1]
    writeNpy(folder + "/volume.npy", "<i8", "(2, 3, 4)", false, volume);
    const NpyImageSource volumeSource(folder + "/volume.npy", ChannelMode::Gray, NpyChannelAxis::None, NpyVolumes::Read);
    TiledOptions bricks = glccl::test::cpuTiles(Connectivity::Six, Criterion::segments(), 4, 3);
    bricks.tileDepth = 1;
    LabelingSink sink;
    REQUIRE_THROWS_WITH(labelTiled(volumeSource, bricks, sink),
                        Catch::Matchers::Contains("holds the value -4 at [1, 2, 1], which is not an unsigned "
                                                  "integer in 0..18446744073709551615"));
}

TEST_CASE("16-bit .npy samples keep their values, and a negative int32 is refused where it lies", "[tiles]") {
    const std::string folder = glccl::test::scratchFolder("npy16");
    // uint16 segment ids past 255: 300 and 301 are different segments.
    std::vector<std::uint8_t> data;
    const std::uint16_t values[4][6] = {{300, 300, 0, 301, 301, 0}, {0, 300, 0, 0, 301, 7},
                                        {301, 0, 0, 300, 300, 7}, {301, 301, 0, 0, 0, 7}};
    for (const auto& row : values)
        for (const std::uint16_t v : row) {
            data.push_back(std::uint8_t(v));
            data.push_back(std::uint8_t(v >> 8));
        }
    writeNpy(folder + "/u2.npy", "<u2", "(4, 6)", false, data);
    const NpyImageSource source(folder + "/u2.npy", ChannelMode::Gray);
    REQUIRE(source.sampleBits() == 16);
    const Image whole = readImage(folder + "/u2.npy", ChannelMode::Gray);
    REQUIRE(whole.sampleBits == 16);
    requireSamePixels(source, whole);
    for (const Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        LabelingSink sink;
        labelTiled(source, glccl::test::cpuTiles(connectivity, Criterion::segments(), 2, 3), sink);
        REQUIRE(compareLabelings(labelReference(whole, connectivity, Criterion::segments()), sink.labeling()).identical());
    }

    std::vector<std::uint8_t> signedData(4 * 6 * 4, 0);
    const std::int32_t negative = -3;
    std::memcpy(signedData.data() + 4 * (2 * 6 + 5), &negative, 4);  // [2, 5] = -3
    writeNpy(folder + "/i4.npy", "<i4", "(4, 6)", false, signedData);
    const NpyImageSource signedSource(folder + "/i4.npy", ChannelMode::Gray);
    Image out;
    REQUIRE_NOTHROW(signedSource.read(0, 0, 6, 2, out));
    REQUIRE_THROWS_WITH(signedSource.read(0, 0, 6, 4, out),
                        "glccl::NpyImageSource: '" + folder + "/i4.npy' holds the value -3 at [2, 5], which is "
                        "not an unsigned integer in 0..4294967295 (signed, fractional and non-finite values are never "
                        "rounded)");
    REQUIRE_THROWS_WITH(readImage(folder + "/i4.npy", ChannelMode::Gray),
                        Catch::Matchers::Contains("-3 at [2, 5] is not an unsigned integer"));
    REQUIRE_THROWS_WITH(signedSource.read(4, 0, 3, 1, out),
                        "glccl::NpyImageSource::read(): the rectangle 3x1 at (4, 0) is not inside the 6x4 image");
}

TEST_CASE("broken .npy files are refused before mapping", "[tiles]") {
    const std::string folder = glccl::test::scratchFolder("npybad");
    writeNpy(folder + "/short.npy", "|u1", "(4, 6)", false, std::vector<std::uint8_t>(20, 1));
    REQUIRE_THROWS_WITH(NpyImageSource(folder + "/short.npy", ChannelMode::Gray),
                        Catch::Matchers::EndsWith("is truncated: its header promises 6x4 (152 bytes) but the file has 148 bytes"));
    writeNpy(folder + "/c8.npy", "<c8", "(1, 1)", false, std::vector<std::uint8_t>(8, 1));
    REQUIRE_THROWS_WITH(NpyImageSource(folder + "/c8.npy", ChannelMode::Gray),
                        Catch::Matchers::EndsWith("holds '<c8'; .npy images are bool, int8, uint8, int16, uint16, "
                                                  "int32, uint32, int64, uint64, float32 or float64 (either byte "
                                                  "order)"));
    { std::ofstream(folder + "/text.npy") << "not numpy at all"; }
    REQUIRE_THROWS_WITH(NpyImageSource(folder + "/text.npy", ChannelMode::Gray),
                        Catch::Matchers::EndsWith("is not a NumPy .npy file"));
    REQUIRE_FALSE(isNpyFile(folder + "/text.npy"));
    REQUIRE(isNpyFile(folder + "/short.npy"));
    const NpyShape shape = peekNpyShape(folder + "/short.npy");
    REQUIRE(shape.width == 6);
    REQUIRE(shape.height == 4);
}

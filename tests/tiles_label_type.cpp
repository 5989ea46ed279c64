// Label types and streamed output: uint32 while the count fits, uint64 when
// it may not (reached here with a lowered uint32 limit instead of 4 billion
// components), a uint32 request that cannot hold the count refused before a
// byte is written, and the streamed .npy and CSV equal to what the host
// writers make of the reference's labeling.

#include <cstring>

#include "glccl/generate.hpp"
#include "glccl/image_io.hpp"
#include "tiles_support.hpp"

using namespace glccl;

namespace {

// The dtype and values of a labels .npy (format 1.0), read plainly.
struct NpyLabels {
    std::string descr;
    std::uint64_t width = 0, height = 0;
    std::vector<std::uint64_t> values;
};

NpyLabels readNpyLabels(const std::string& path) {
    const std::vector<char> bytes = glccl::test::fileBytes(path);
    REQUIRE(bytes.size() > 10);
    REQUIRE(std::memcmp(bytes.data(), "\x93NUMPY\x01\x00", 8) == 0);
    const std::size_t headerLength = std::size_t(std::uint8_t(bytes[8])) | std::size_t(std::uint8_t(bytes[9])) << 8;
    const std::string header(bytes.data() + 10, headerLength);
    NpyLabels npy;
    npy.descr = header.substr(header.find("'descr': '") + 10, 3);
    REQUIRE(header.find("'fortran_order': False") != std::string::npos);
    const std::size_t shape = header.find("'shape': (") + 10;
    npy.height = std::stoull(header.substr(shape));
    npy.width = std::stoull(header.substr(header.find(", ", shape) + 2));
    const std::size_t size = npy.descr == "<u8" ? 8 : 4;
    const std::size_t data = 10 + headerLength;
    REQUIRE((10 + headerLength) % 64 == 0);
    REQUIRE(bytes.size() == data + npy.width * npy.height * size);
    for (std::size_t i = 0; i < npy.width * npy.height; ++i) {
        std::uint64_t value = 0;
        std::memcpy(&value, bytes.data() + data + i * size, size);  // little-endian host
        npy.values.push_back(value);
    }
    return npy;
}

}  // namespace

TEST_CASE("uint32 output equals the host writers' files byte for byte", "[tiles]") {
    const std::string folder = glccl::test::scratchFolder("uint32");
    for (const Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        const Image image = randomImage(61, 43, 0.55, 2, 1, 21);
        const Labeling reference = labelReference(image, connectivity, Criterion::binary());
        writeLabelsNpy(folder + "/reference.npy", reference, true);
        writeStatsCsv(folder + "/reference.csv", reference, true);

        const ImageMemorySource source(image);
        NpyLabelSink sink(folder + "/tiled.npy", folder + "/tiled.csv", true);
        const TiledResult run = labelTiled(source, glccl::test::cpuTiles(connectivity, Criterion::binary(), 8, 5), sink);
        REQUIRE(run.labelType == LabelType::Uint32);
        REQUIRE(run.count == reference.count());
        REQUIRE(glccl::test::fileBytes(folder + "/tiled.npy") == glccl::test::fileBytes(folder + "/reference.npy"));
        REQUIRE(glccl::test::fileBytes(folder + "/tiled.csv") == glccl::test::fileBytes(folder + "/reference.csv"));
        REQUIRE(sink.firstComponents().size() == std::min<std::size_t>(10, reference.count()));
        for (std::size_t i = 0; i < sink.firstComponents().size(); ++i)
            REQUIRE(sink.firstComponents()[i] == reference.components[i]);
    }
}

TEST_CASE("auto writes uint64 labels once the count passes what uint32 holds", "[tiles]") {
    const std::string folder = glccl::test::scratchFolder("auto64");
    const Image image = randomImage(40, 30, 0.5, 2, 1, 5);
    const Labeling reference = labelReference(image, Connectivity::Four, Criterion::binary());
    REQUIRE(reference.count() > 20);
    for (const std::uint64_t limit : {reference.count() - 1, std::uint64_t(5)}) {
        TiledOptions options = glccl::test::cpuTiles(Connectivity::Four, Criterion::binary(), 7, 6);
        options.uint32Limit = limit;
        const ImageMemorySource source(image);
        NpyLabelSink sink(folder + "/labels.npy", "", true);
        const TiledResult run = labelTiled(source, options, sink);
        REQUIRE(run.labelType == LabelType::Uint64);
        const NpyLabels written = readNpyLabels(folder + "/labels.npy");
        REQUIRE(written.descr == "<u8");
        REQUIRE(written.width == 40);
        REQUIRE(written.height == 30);
        REQUIRE(std::equal(written.values.begin(), written.values.end(), reference.labels.begin()));
    }
    // At the limit, uint32 still holds it.
    TiledOptions options = glccl::test::cpuTiles(Connectivity::Four, Criterion::binary(), 7, 6);
    options.uint32Limit = reference.count();
    const ImageMemorySource source(image);
    NpyLabelSink sink(folder + "/labels32.npy", "", true);
    REQUIRE(labelTiled(source, options, sink).labelType == LabelType::Uint32);
    REQUIRE(readNpyLabels(folder + "/labels32.npy").descr == "<u4");
}

TEST_CASE("uint64 on request, whatever the count", "[tiles]") {
    const std::string folder = glccl::test::scratchFolder("force64");
    const Image image = generateFamily("spiral", 50, 40, 1);
    TiledOptions options = glccl::test::cpuTiles(Connectivity::Eight, Criterion::binary(), 9, 9);
    options.labelType = LabelType::Uint64;
    const ImageMemorySource source(image);
    NpyLabelSink sink(folder + "/labels.npy", "", true);
    REQUIRE(labelTiled(source, options, sink).labelType == LabelType::Uint64);
    const NpyLabels written = readNpyLabels(folder + "/labels.npy");
    const Labeling reference = labelReference(image, Connectivity::Eight, Criterion::binary());
    REQUIRE(written.descr == "<u8");
    REQUIRE(std::equal(written.values.begin(), written.values.end(), reference.labels.begin()));
}

TEST_CASE("a uint32 request for more components than it holds fails before writing", "[tiles]") {
    const std::string folder = glccl::test::scratchFolder("refuse32");
    const Image image = randomImage(40, 30, 0.5, 2, 1, 5);
    TiledOptions options = glccl::test::cpuTiles(Connectivity::Four, Criterion::binary(), 7, 6);
    options.labelType = LabelType::Uint32;
    options.uint32Limit = 5;
    const ImageMemorySource source(image);
    NpyLabelSink sink(folder + "/labels.npy", folder + "/stats.csv", true);
    REQUIRE_THROWS_WITH(labelTiled(source, options, sink),
                        Catch::Matchers::Matches("glccl::labelTiled\\(\\): the image has [0-9]+ components but uint32 "
                                                 "labels hold at most 5; use the label type uint64 \\(or auto\\)"));
    REQUIRE(std::filesystem::is_empty(folder));
    // A Labeling holds uint32 only: more components than that are refused too.
    TiledOptions inMemory = options;
    inMemory.labelType = LabelType::Auto;
    REQUIRE_THROWS_WITH(labelTiled(image, inMemory),
                        Catch::Matchers::EndsWith("components need uint64 labels, which a glccl::Labeling does not "
                                                  "hold; label into an .npy file (glccl::NpyLabelSink) instead"));
}

TEST_CASE("the streamed output refuses an existing file unless overwriting", "[tiles]") {
    const std::string folder = glccl::test::scratchFolder("exists");
    { std::ofstream(folder + "/labels.npy") << "keep"; }
    REQUIRE_THROWS_WITH(NpyLabelSink(folder + "/labels.npy", "", false),
                        Catch::Matchers::Contains("already exists; use --force"));
    REQUIRE(glccl::test::fileBytes(folder + "/labels.npy") == std::vector<char>{'k', 'e', 'e', 'p'});
    REQUIRE(parseLabelType("uint64") == LabelType::Uint64);
    REQUIRE_THROWS_WITH(parseLabelType("int16"), "glccl::parseLabelType(): unknown label type 'int16'; expected "
                                                 "\"auto\", \"uint32\" or \"uint64\"");
}

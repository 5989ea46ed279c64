// Volumes in bricks against the reference on the whole volume, byte for
// byte (labels and table): random volumes of odd sizes with bricks that do
// not divide them, 6/18/26, every criterion and sample width, a helix and a
// comb through hundreds of brick faces, joins across brick edges and
// corners alone, several workers and tiles in flight, automatic
// bricks under a memory limit, uint64 labels into a 3-D .npy, and (where the
// compute engine labels volumes) a volume past llvmpipe's 3-D texture size.

#include <cmath>
#include <cstring>
#include <random>

#include "glccl/error.hpp"
#include "glccl/tile_pipeline.hpp"
#include "skip.hpp"
#include "tiles_support.hpp"
#include "volume_support.hpp"

using namespace glccl;

using glccl::test::kVolumeConnectivities;
using glccl::test::randomTestVolume;
using glccl::test::setVoxel;

namespace {

TiledOptions bricks(Connectivity connectivity, const Criterion& criterion, std::uint32_t bw, std::uint32_t bh,
                    std::uint32_t bd) {
    TiledOptions options = glccl::test::cpuTiles(connectivity, criterion, bw, bh);
    options.tileDepth = bd;
    return options;
}

std::string describe(const Image& volume, const TiledOptions& options) {
    return std::to_string(volume.width) + "x" + std::to_string(volume.height) + "x" + std::to_string(volume.depth) +
           " " + std::to_string(volume.sampleBits) + "-bit, " +
           std::to_string(neighbourCount(options.label.connectivity)) + "-connectivity, " +
           options.label.criterion.toString() + ", bricks " + std::to_string(options.tileWidth) + "x" +
           std::to_string(options.tileHeight) + "x" + std::to_string(options.tileDepth);
}

// Labels `volume` in bricks and requires the reference's labels and table.
TiledResult requireBricksMatchReference(const Image& volume, const TiledOptions& options, const std::string& name = "") {
    const Labeling expected = labelReference(volume, options.label.connectivity, options.label.criterion);
    TiledResult run;
    const Labeling actual = labelTiled(volume, options, &run);
    INFO(name << " " << describe(volume, options) << " (" << run.plan.tileCount() << " bricks, " << run.borderParts
              << " parts, " << expected.count() << " components)");
    REQUIRE(actual.shape() == volume.shape());
    REQUIRE(run.count == expected.count());
    REQUIRE(actual.labels == expected.labels);
    REQUIRE(actual.components.size() == expected.components.size());
    for (std::size_t i = 0; i < expected.components.size(); ++i) {
        INFO("component " << i + 1);
        REQUIRE(actual.components[i] == expected.components[i]);
    }
    return run;
}

// A helix of 3x3 voxels a slice that turns through every slice, each
// square overlapping the one before: one component at every connectivity.
Image helixVolume(int side, int depth) {
    Image helix(Shape::volume(side, side, depth));
    const int middle = side / 2, radius = side / 2 - 2;
    for (int z = 0; z < depth; ++z) {
        const double a = z * 0.2;
        const int x = middle + int(std::lround(radius * std::cos(a))), y = middle + int(std::lround(radius * std::sin(a)));
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) setVoxel(helix, x + dx, y + dy, z, 1);
    }
    return helix;
}

// Teeth in alternate slices and columns joined by a spine along the back.
Image combVolume(int w, int h, int d) {
    Image comb(Shape::volume(w, h, d));
    for (int z = 0; z < d; ++z)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                if (y == h - 1 || (z % 2 == 0 && x % 2 == 0)) setVoxel(comb, x, y, z, 1);
    return comb;
}

}  // namespace

TEST_CASE("bricks of odd shapes label random volumes like the reference", "[tiles][volume]") {
    const std::vector<std::array<std::uint32_t, 3>> brickShapes = {
        {5, 4, 3}, {2, 2, 2}, {1, 1, 1}, {3, 7, 2}, {1, 100, 1}, {100, 1, 100}, {100, 100, 1}, {100, 100, 100}};
    std::uint32_t seed = 1;
    for (const auto& size : std::vector<std::array<int, 3>>{{13, 11, 9}, {7, 5, 3}, {1, 1, 17}, {17, 1, 1}, {9, 8, 1}})
        for (const double density : {0.15, 0.45, 0.8}) {
            const Image volume = randomTestVolume(size[0], size[1], size[2], density, seed++);
            for (const Connectivity connectivity : kVolumeConnectivities)
                for (const auto& [bw, bh, bd] : brickShapes)
                    requireBricksMatchReference(volume, bricks(connectivity, Criterion::binary(), bw, bh, bd));
        }
}

TEST_CASE("a helix and a comb cross hundreds of brick faces and equal the reference", "[tiles][volume]") {
    const Image helix = helixVolume(21, 40);
    const Image comb = combVolume(19, 6, 23);
    for (const Connectivity connectivity : kVolumeConnectivities) {
        const TiledResult helixRun = requireBricksMatchReference(helix, bricks(connectivity, Criterion::binary(), 2, 2, 2), "helix");
        CHECK(helixRun.plan.tileCount() > 100);
        CHECK(helixRun.count == 1);
        requireBricksMatchReference(comb, bricks(connectivity, Criterion::binary(), 2, 2, 2), "comb");
        requireBricksMatchReference(comb, bricks(connectivity, Criterion::binary(), 3, 5, 2), "comb");
    }
}

TEST_CASE("joins across brick edges and corners alone separate 6, 18 and 26", "[tiles][volume]") {
    // Bricks of 2x2x2: every pair below straddles a brick corner or edge,
    // not a face. 26 joins all four pairs, 18 the two edge pairs, 6 none.
    Image volume(Shape::volume(16, 4, 4));
    setVoxel(volume, 1, 1, 1), setVoxel(volume, 2, 2, 2);    // corner of 8 bricks
    setVoxel(volume, 5, 2, 1), setVoxel(volume, 6, 1, 2);    // corner, the other diagonal
    setVoxel(volume, 9, 1, 0), setVoxel(volume, 10, 2, 0);   // edge along z (one slice)
    setVoxel(volume, 13, 3, 1), setVoxel(volume, 14, 3, 2);  // edge along y (across slices)
    const std::size_t expected[] = {4, 6, 8};  // at 26, 18, 6
    int i = 0;
    for (const Connectivity connectivity : {Connectivity::TwentySix, Connectivity::Eighteen, Connectivity::Six}) {
        const TiledResult run = requireBricksMatchReference(volume, bricks(connectivity, Criterion::binary(), 2, 2, 2));
        CHECK(run.count == expected[i++]);
    }
}

TEST_CASE("bricks take every criterion and sample width like the reference", "[tiles][volume]") {
    std::uint32_t seed = 100;
    for (const int bits : {8, 16, 32}) {
        const Image segments = randomTestVolume(11, 9, 7, 0.7, seed++, bits, 3);
        const Image levels = randomTestVolume(11, 9, 7, 1.0, seed++, bits, 40);
        for (const Connectivity connectivity : kVolumeConnectivities) {
            for (const Criterion& criterion : {Criterion::segments(), Criterion::binary()})
                requireBricksMatchReference(segments, bricks(connectivity, criterion, 4, 3, 2));
            for (const Criterion& criterion : {Criterion::thresholded(0), Criterion::thresholded(20)})
                requireBricksMatchReference(levels, bricks(connectivity, criterion, 4, 3, 2));
            requireBricksMatchReference(levels, bricks(connectivity, Criterion::binaryAbove(
                                                                         levels.maxValue() - 20), 3, 4, 5));
        }
    }
}

TEST_CASE("bricks take 64-bit samples and delta like the reference", "[tiles][volume]") {
    // 32-bit volumes of few levels, lifted to 64 bits where the low halves of
    // neighbouring ids collide: v and v + 2^32 are different segments.
    std::uint32_t seed = 200;
    for (const int bits : {8, 32, 64}) {
        const Image levels = randomTestVolume(11, 9, 7, 0.8, seed++, bits == 64 ? 32 : bits, 6);
        Image volume = levels;
        if (bits == 64) {
            volume = Image(levels.shape(), 1, 64);
            for (std::size_t i = 0; i < levels.shape().count(); ++i) {
                const std::uint64_t v = levels.sample(i);
                volume.setSample(i, 0, v == 0 ? 0 : v + ((i / 3) % 2 == 0 ? std::uint64_t(1) << 32 : 0));
            }
        }
        for (const Connectivity connectivity : kVolumeConnectivities)
            for (const Criterion& criterion : {Criterion::segments(), Criterion::withinDelta(0),
                                               Criterion::withinDelta(1), Criterion::withinDelta(3),
                                               Criterion::thresholded(2), Criterion::binary()})
                requireBricksMatchReference(volume, bricks(connectivity, criterion, 4, 3, 2));
    }
}

TEST_CASE("bricks on several workers, with several in flight and sized automatically equal the reference",
          "[tiles][volume]") {
    const Image volume = randomTestVolume(37, 23, 19, 0.5, 7);
    const Image larger = randomTestVolume(64, 61, 59, 0.5, 8);
    for (const Connectivity connectivity : kVolumeConnectivities) {
        TiledOptions several = bricks(connectivity, Criterion::binary(), 6, 5, 4);
        several.devices = {0, 0, 0};
        several.hostThreads = 5;
        const TiledResult run = requireBricksMatchReference(volume, several, "3 workers, 5 in flight");
        CHECK(run.workers == 3);
        CHECK(run.tilesInFlight == 5);
        // No brick size: a memory limit just below what the volume in one
        // brick needs, which only smaller bricks hold.
        std::uint64_t oneBrick = 0;
        planTiles(ImageMemorySource(larger), bricks(connectivity, Criterion::binary(), 64, 61, 59),
                  glccl::test::limitsFor(Backend::Cpu, 3), 1, &oneBrick);
        TiledOptions automatic = bricks(connectivity, Criterion::binary(), 0, 0, 0);
        automatic.memoryLimit = oneBrick - 1;
        const TiledResult sized = requireBricksMatchReference(larger, automatic, "automatic");
        CHECK(sized.plan.isVolume());
        CHECK(sized.plan.tileCount() > 1);
    }
}

namespace {

// A volume of any size that is planned, never read.
class PlannedVolume : public ImageSource {
public:
    PlannedVolume(std::uint32_t width, std::uint32_t height, std::uint32_t depth)
        : width_(width), height_(height), depth_(depth) {}
    std::uint32_t width() const override { return width_; }
    std::uint32_t height() const override { return height_; }
    std::uint32_t depth() const override { return depth_; }
    int dimensions() const override { return 3; }
    int channels() const override { return 1; }
    int sampleBits() const override { return 8; }
    void readInto(std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint8_t*) const override {
        throw Error("PlannedVolume: not read");
    }
    std::string describe() const override { return "a planned volume"; }

private:
    std::uint32_t width_, height_, depth_;
};

}  // namespace

TEST_CASE("automatic bricks keep a layer of labels within kDefaultBandBytes", "[tiles][volume]") {
    // A 2048^3 volume's layer of 512^3 bricks would hold 8 GiB of labels:
    // the bricks get shallower, not narrower, until a layer holds 1 GiB.
    TiledOptions options = bricks(Connectivity::TwentySix, Criterion::binary(), 0, 0, 0);
    options.memoryLimit = std::uint64_t(64) << 30;
    std::uint64_t estimate = 0;
    const TilePlan plan =
        planTiles(PlannedVolume(2048, 2048, 2048), options, glccl::test::limitsFor(Backend::Cpu, 3), 1, &estimate);
    CHECK(plan.tileWidth() == kDefaultBrickSide);
    CHECK(plan.tileHeight() == kDefaultBrickSide);
    CHECK(plan.tileDepth() == 64);
    CHECK(std::uint64_t(2048) * 2048 * plan.tileDepth() * 4 <= kDefaultBandBytes);
    CHECK(estimate <= options.memoryLimit);
    // A volume whose layers of full-depth bricks fit keeps them whole.
    CHECK(planTiles(PlannedVolume(600, 500, 400), options, glccl::test::limitsFor(Backend::Cpu, 3), 1).tileDepth() == 400);
}

TEST_CASE("uint64 labels of a volume stream into a 3-D .npy equal to the reference", "[tiles][volume]") {
    const Image volume = randomTestVolume(17, 13, 11, 0.3, 21);
    const Labeling expected = labelReference(volume, Connectivity::Six, Criterion::binary());
    TiledOptions options = bricks(Connectivity::Six, Criterion::binary(), 5, 4, 3);
    options.uint32Limit = expected.count() - 1;  // the count does not fit "uint32"
    const std::string folder = glccl::test::scratchFolder("volume_uint64");
    const ImageMemorySource source(volume);
    NpyLabelSink sink(folder + "/labels.npy", folder + "/stats.csv", false);
    const TiledResult run = labelTiled(source, options, sink);
    REQUIRE(run.labelType == LabelType::Uint64);
    const std::vector<char> bytes = glccl::test::fileBytes(folder + "/labels.npy");
    REQUIRE(bytes.size() > 10);
    const std::size_t headerBytes = std::size_t(std::uint8_t(bytes[8])) | std::size_t(std::uint8_t(bytes[9])) << 8;
    const std::string header(bytes.begin() + 10, bytes.begin() + 10 + std::ptrdiff_t(headerBytes));
    CHECK(header.find("'<u8'") != std::string::npos);
    CHECK(header.find("(11, 13, 17)") != std::string::npos);
    REQUIRE(bytes.size() == 10 + headerBytes + volume.shape().count() * 8);
    std::vector<std::uint64_t> labels(volume.shape().count());
    std::memcpy(labels.data(), bytes.data() + 10 + headerBytes, labels.size() * 8);
    REQUIRE(std::equal(labels.begin(), labels.end(), expected.labels.begin()));
    // The table: one CSV row per component, with the z columns.
    const std::vector<char> csv = glccl::test::fileBytes(folder + "/stats.csv");
    const std::string text(csv.begin(), csv.end());
    CHECK(text.rfind("label,left,top,front,width,height,depth,area,centroid_x,centroid_y,centroid_z\n", 0) == 0);
    CHECK(std::size_t(std::count(text.begin(), text.end(), '\n')) == expected.count() + 1);
    // A uint32 request for that count is refused before anything is written.
    options.labelType = LabelType::Uint32;
    NpyLabelSink refused(folder + "/refused.npy", "", false);
    REQUIRE_THROWS_WITH(labelTiled(source, options, refused), Catch::Contains("glccl::labelTiled(): "));
}

TEST_CASE("a 3-D .npy read as a memory-mapped volume labels in bricks like the reference", "[tiles][volume]") {
    // A uint32 volume written as the labels sink writes (depth, height, width).
    const Image volume = randomTestVolume(19, 7, 5, 0.9, 31, 32, 3);
    const std::string folder = glccl::test::scratchFolder("volume_npy");
    const std::string path = folder + "/volume.npy";
    {
        const std::string header = labelsNpyHeader(volume.shape(), LabelType::Uint32);
        std::ofstream out(path, std::ios::binary);
        out.write(header.data(), std::streamsize(header.size()));
        out.write(reinterpret_cast<const char*>(volume.pixels.data()), std::streamsize(volume.pixels.size()));
    }
    const NpyShape shape = peekNpyShape(path, NpyChannelAxis::None, NpyVolumes::Read);
    CHECK((shape.dimensions == 3 && shape.width == 19 && shape.height == 7 && shape.depth == 5));
    const NpyImageSource source(path, ChannelMode::Gray, NpyChannelAxis::None, NpyVolumes::Read);
    REQUIRE(source.dimensions() == 3);
    for (const Connectivity connectivity : kVolumeConnectivities) {
        const Labeling expected = labelReference(volume, connectivity, Criterion::segments());
        LabelingSink sink;
        labelTiled(source, bricks(connectivity, Criterion::segments(), 4, 3, 2), sink);
        REQUIRE(sink.labeling().shape() == volume.shape());
        REQUIRE(sink.labeling().labels == expected.labels);
        REQUIRE(sink.labeling().components == expected.components);
    }
    // Without NpyVolumes::Read a 3-D array is refused.
    REQUIRE_THROWS_WITH(NpyImageSource(path, ChannelMode::Gray), Catch::Contains("is a volume (depth, height, width)"));
}

TEST_CASE("bricks refuse what does not fit a volume, by name", "[tiles][volume]") {
    const Image volume = randomTestVolume(5, 4, 3, 0.5, 3);
    REQUIRE_THROWS_WITH(labelTiled(volume, bricks(Connectivity::Eight, Criterion::binary(), 2, 2, 2)),
                        Catch::StartsWith("glccl::labelTiled(): "));
    TiledOptions starved = bricks(Connectivity::Six, Criterion::binary(), 0, 0, 0);
    starved.memoryLimit = 1024;
    REQUIRE_THROWS_WITH(labelTiled(volume, starved),
                        Catch::StartsWith("glccl::labelTiled(): the memory limit of ") &&
                            Catch::Contains("is too small for a 5x4x3 volume"));
}

namespace {

// Bricks labeled by `backend` (each brick one call of it) against the
// reference: random volumes, a helix and a comb, 6/18/26.
void requireBackendBricksMatchReference(Backend backend) {
    const BackendLimits limits = glccl::test::limitsOrSkip(backend, 3, Connectivity::TwentySix);
    REQUIRE(limits.backend == backend);
    const std::vector<Image> volumes = {randomTestVolume(23, 17, 13, 0.3, 41), randomTestVolume(23, 17, 13, 0.6, 42),
                                        helixVolume(21, 40), combVolume(19, 6, 23)};
    for (const Image& volume : volumes)
        for (const Connectivity connectivity : kVolumeConnectivities) {
            TiledOptions options = bricks(connectivity, Criterion::binary(), 7, 5, 4);
            options.label.backend = backend;
            requireBricksMatchReference(volume, options, backendName(backend));
        }
}

}  // namespace

TEST_CASE("compute bricks label volumes like the reference", "[tiles][volume][gl]") {
    requireBackendBricksMatchReference(Backend::Compute);
}

TEST_CASE("cuda bricks label volumes like the reference", "[tiles][volume][cuda]") {
    requireBackendBricksMatchReference(Backend::Cuda);
}

TEST_CASE("a volume past llvmpipe's 3-D texture size is labeled in compute bricks like the reference",
          "[tiles][volume][gl]") {
    const BackendLimits limits = glccl::test::limitsOrSkip(Backend::Compute, 3, Connectivity::TwentySix);
    if (!exceedsOneCall(limits.engine, Shape::volume(2100, 3, 3)))
        glccl::test::skipTest("the compute backend labels a 2100x3x3 volume in one call here");
    const Image volume = randomTestVolume(2100, 3, 3, 0.6, 5);
    for (const Connectivity connectivity : kVolumeConnectivities) {
        TiledOptions options = bricks(connectivity, Criterion::binary(), 0, 0, 0);
        options.label.backend = Backend::Compute;
        const TiledResult run = requireBricksMatchReference(volume, options, "compute");
        CHECK(run.plan.tileCount() > 1);
    }
}

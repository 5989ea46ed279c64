// Tiled labeling with the cpu backend against the reference on the whole
// image: every tile shape (1-pixel-wide and -high, odd, larger than the
// image), both connectivities, every criterion, random images and the
// generator families, with several workers and tiles in flight, the table
// alone, and a source whose pixels change between the passes refused.

#include <unistd.h>

#include <atomic>

#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "glccl/generate.hpp"
#include "glccl/tile_pipeline.hpp"
#include "tiles_support.hpp"

using namespace glccl;
using glccl::test::cpuTiles;
using glccl::test::requireTiledMatchesReference;

namespace {

const std::vector<std::pair<std::uint32_t, std::uint32_t>> kTileShapes = {
    {1, 1}, {1, 7}, {7, 1}, {2, 3}, {3, 2}, {5, 7}, {8, 8}, {16, 3}, {1, 1000}, {1000, 1}, {1000, 1000}};

const std::vector<Criterion> kCriteria = {Criterion::binary(), Criterion::segments(), Criterion::thresholded(0),
                                          Criterion::thresholded(40), Criterion::withinDelta(1)};

// Random images whose values suit the criterion: binary and segments read
// few gray levels, threshold many (and color).
std::vector<Image> randomImagesFor(const Criterion& criterion, int width, int height, std::uint64_t seed) {
    std::vector<Image> images;
    for (const double density : {0.35, 0.6, 0.9}) {
        switch (criterion.kind) {
            case Criterion::Kind::Binary: images.push_back(randomImage(width, height, density, 2, 1, seed++)); break;
            case Criterion::Kind::Segments:
            case Criterion::Kind::Delta: images.push_back(randomImage(width, height, density, 4, 1, seed++)); break;
            case Criterion::Kind::Threshold:
                images.push_back(randomImage(width, height, density, 120, 1, seed++));
                images.push_back(randomImage(width, height, density, 120, 4, seed++));
                break;
        }
    }
    return images;
}

}  // namespace

TEST_CASE("cpu tiles of every shape label random images like the reference", "[tiles]") {
    for (const auto& [width, height] : std::vector<std::pair<int, int>>{{37, 29}, {1, 23}, {23, 1}, {13, 13}})
        for (const Criterion& criterion : kCriteria)
            for (const Image& image : randomImagesFor(criterion, width, height, 11))
                for (const Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
                    for (const auto& [tw, th] : kTileShapes)
                        requireTiledMatchesReference(image, cpuTiles(connectivity, criterion, tw, th));
}

TEST_CASE("generated families crossing hundreds of tile borders equal the reference", "[tiles]") {
    // Prime sides: no tile size divides them.
    for (const std::string& family : generatedFamilies()) {
        const Image image = generateFamily(family, 97, 61, 3);
        for (const Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
            for (const auto& [tw, th] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{{7, 5}, {1, 61}, {97, 1}, {32, 32}})
                requireTiledMatchesReference(image, cpuTiles(connectivity, Criterion::binary(), tw, th), family);
    }
    // Spirals, snakes (corridors), combs and staircases whose components wind
    // through hundreds of tiles.
    for (const std::string family : {"spiral", "corridor", "comb", "staircase", "rings"}) {
        const Image image = generateFamily(family, 211, 199, 5);
        for (const Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
            for (const auto& [tw, th] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{{13, 11}, {4, 4}, {1, 9}})
                requireTiledMatchesReference(image, cpuTiles(connectivity, Criterion::binary(), tw, th), family);
    }
}

TEST_CASE("any number of tiles in flight labels like the reference", "[tiles]") {
    // One tile in flight labels band after band; more take tiles of the
    // next bands while a band is merged or written; more than the tiles.
    for (const Criterion& criterion : kCriteria)
        for (const Image& image : randomImagesFor(criterion, 45, 31, 101))
            for (const Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
                for (const unsigned inFlight : {1u, 3u, 7u, 200u}) {
                    TiledOptions options = cpuTiles(connectivity, criterion, 6, 5);
                    options.hostThreads = inFlight;
                    TiledResult run;
                    labelTiled(image, options, &run);
                    REQUIRE(run.tilesInFlight == inFlight);
                    requireTiledMatchesReference(image, options, std::to_string(inFlight) + " in flight");
                }
}

namespace {

// An image whose pixels read differently once `reads` rectangles have been
// read: the labelings of a tile in the two passes then differ.
class ChangingSource : public ImageMemorySource {
public:
    ChangingSource(const Image& before, const Image& after, int reads)
        : ImageMemorySource(before), after_(after), left_(reads) {}
    void readInto(std::uint32_t x0, std::uint32_t y0, std::uint32_t width, std::uint32_t height,
                  std::uint8_t* pixels) const override {
        if (left_-- > 0) return ImageMemorySource::readInto(x0, y0, width, height, pixels);
        after_.readInto(x0, y0, width, height, pixels);
    }

private:
    ImageMemorySource after_;
    mutable std::atomic<int> left_;
};

}  // namespace

TEST_CASE("a tile labeled differently in the second pass is an error, not wrong labels", "[tiles]") {
    // The same pixels in both passes label; a pixel turned on in the second
    // pass (one more component, or one less) is refused by name.
    const Image before = generateFamily("sparse_disks", 40, 30, 3);
    Image after = before;
    after.pixels[after.pixels.size() / 2 + 7] ^= 255;
    TiledOptions options = cpuTiles(Connectivity::Eight, Criterion::binary(), 8, 6);  // 5 x 5 tiles, one read each
    {
        const ChangingSource same(before, before, 25);
        LabelingSink sink;
        labelTiled(same, options, sink);
        REQUIRE(sink.labeling().labels == labelReference(before, Connectivity::Eight, Criterion::binary()).labels);
    }
    const ChangingSource changing(before, after, 25);
    LabelingSink sink;
    REQUIRE_THROWS_WITH(labelTiled(changing, options, sink),
                        Catch::Matchers::StartsWith("glccl::labelTiled(): tile 10 was labeled with ") &&
                            Catch::Matchers::EndsWith("the backend's labels of a tile are not the same every time"));
}

TEST_CASE("the table alone, without labels, equals the reference's", "[tiles]") {
    const std::string folder = glccl::test::scratchFolder("table_only");
    for (const Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        const Image image = randomImage(57, 43, 0.45, 2, 1, 17);
        const std::string stats = folder + "/stats" + std::to_string(int(connectivity)) + ".csv";
        const std::string expected = folder + "/expected" + std::to_string(int(connectivity)) + ".csv";
        writeStatsCsv(expected, labelReference(image, connectivity, Criterion::binary()), false);
        const ImageMemorySource source(image);
        NpyLabelSink sink("", stats, false);
        REQUIRE_FALSE(sink.wantsLabels());
        labelTiled(source, cpuTiles(connectivity, Criterion::binary(), 7, 4), sink);
        REQUIRE(glccl::test::fileBytes(stats) == glccl::test::fileBytes(expected));
    }
}

TEST_CASE("several workers on one device label like one", "[tiles]") {
    for (const Criterion& criterion : {Criterion::binary(), Criterion::thresholded(25)})
        for (const Image& image : randomImagesFor(criterion, 53, 47, 7))
            for (const Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
                TiledOptions options = cpuTiles(connectivity, criterion, 9, 4);
                options.devices = {0, 0, 0};
                requireTiledMatchesReference(image, options, "3 workers");
                // One tile a band: the workers take several bands at once.
                options.tileWidth = 100;
                options.tileHeight = 3;
                requireTiledMatchesReference(image, options, "3 workers, full-width tiles");
            }
}

TEST_CASE("tiles take 64-bit samples whose low halves collide, and delta, like the reference", "[tiles]") {
    // Ids 1..3 and the same plus 2^32 in alternate columns: equal low halves
    // side by side.
    Image image(glccl::Shape::image(37, 29), 1, 64);
    std::uint64_t state = 88172645463325252ull;
    for (std::size_t i = 0; i < image.shape().count(); ++i) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        const std::uint64_t id = state % 4;
        image.setSample(i, 0, id == 0 ? 0 : id + (i % 2 == 0 ? std::uint64_t(1) << 32 : 0));
    }
    for (const Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
        for (const Criterion& criterion : {Criterion::segments(), Criterion::withinDelta(1), Criterion::withinDelta(2),
                                           Criterion::thresholded(1), Criterion::binary()})
            for (const auto& [w, h] : {std::pair{5u, 7u}, {8u, 3u}, {1u, 1000u}})
                glccl::test::requireTiledMatchesReference(image, glccl::test::cpuTiles(connectivity, criterion, w, h));
}

TEST_CASE("one tile is the one-piece labeling", "[tiles]") {
    const Image image = generateFamily("dense_disks", 120, 90, 2);
    TiledOptions options = cpuTiles(Connectivity::Eight, Criterion::binary(), 0, 0);
    TiledResult run;
    labelTiled(image, options, &run);
    REQUIRE(run.plan.tileCount() == 1);
    REQUIRE(run.borderParts > 0);
    requireTiledMatchesReference(image, options, "one tile");
}

TEST_CASE("all background and all foreground images", "[tiles]") {
    for (const std::string family : {"zeros", "ones", "checkerboard"})
        for (const Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
            requireTiledMatchesReference(generateFamily(family, 30, 20, 1),
                                         cpuTiles(connectivity, Criterion::binary(), 4, 3), family);
}

TEST_CASE("the plan takes a forced tile size and refuses one past the backend", "[tiles]") {
    BackendLimits limits;
    limits.backend = Backend::Compute;
    limits.maxSide = 16384;
    limits.device = "llvmpipe";
    TiledOptions options;
    options.tileWidth = 20000;
    options.tileHeight = 100;
    REQUIRE_THROWS_WITH(planTiles(70000, 300, 1, options, limits, 1),
                        "glccl::labelTiled(): tiles of 20000x100 are larger than the compute backend takes here: "
                        "at most 16384 pixels a side (GL_MAX_TEXTURE_SIZE of llvmpipe)");
    options.tileWidth = 16384;
    const TilePlan plan = planTiles(70000, 300, 1, options, limits, 1);
    REQUIRE(plan.tilesX() == 5);
    REQUIRE(plan.tilesY() == 3);
    REQUIRE(plan.tile(4, 2).width == 70000 - 4 * 16384);
    REQUIRE(plan.tile(4, 2).height == 100);
    // Wider than the backend: automatic tiles fit it.
    options.tileWidth = options.tileHeight = 0;
    const TilePlan automatic = planTiles(40000, 20, 1, options, limits, 1);
    REQUIRE(automatic.tileWidth() <= 16384);
    REQUIRE(automatic.tilesX() >= 3);
}

TEST_CASE("the memory limit shrinks tiles, and a limit too small is refused", "[tiles]") {
    BackendLimits limits;
    limits.backend = Backend::Cpu;
    limits.maxSide = kMaxTileSide;
    TiledOptions options;
    options.hostThreads = 2;
    options.memoryLimit = std::uint64_t(8) << 30;
    std::uint64_t largeEstimate = 0, smallEstimate = 0;
    const TilePlan large = planTiles(20000, 20000, 1, options, limits, 2, &largeEstimate);
    options.memoryLimit = std::uint64_t(1) << 30;
    const TilePlan small = planTiles(20000, 20000, 1, options, limits, 2, &smallEstimate);
    REQUIRE(std::uint64_t(small.tileWidth()) * small.tileHeight() < std::uint64_t(large.tileWidth()) * large.tileHeight());
    REQUIRE(smallEstimate <= options.memoryLimit);
    REQUIRE(largeEstimate <= std::uint64_t(8) << 30);
    options.memoryLimit = 1000;
    REQUIRE_THROWS_WITH(planTiles(20000, 20000, 1, options, limits, 2),
                        Catch::Matchers::StartsWith("glccl::labelTiled(): the memory limit of 1000 bytes is too small for a "
                                                    "20000x20000 image: the leanest tiles, "));
    // A small limit on a small image still labels exactly, in small tiles.
    const Image image = randomImage(300, 200, 0.5, 2, 1, 9);
    TiledOptions run = glccl::test::cpuTiles(Connectivity::Eight, Criterion::binary(), 0, 0);
    run.memoryLimit = 3u << 20;
    TiledResult result;
    labelTiled(image, run, &result);
    REQUIRE(result.plan.tileCount() > 1);
    requireTiledMatchesReference(image, run, "memory-limited");
}

TEST_CASE("automatic tiles keep a band of labels within kDefaultBandBytes", "[tiles]") {
    // 40000 x 16384 uint32 labels would be 2.4 GiB a band: the tiles get
    // lower, not narrower, until a band is within 1 GiB.
    const BackendLimits limits = glccl::test::limitsFor(Backend::Cpu);
    TiledOptions options;
    options.memoryLimit = std::uint64_t(64) << 30;
    std::uint64_t estimate = 0;
    const TilePlan plan = planTiles(40000, 36000, 1, options, limits, 1, &estimate);
    CHECK(plan.tileWidth() == kDefaultTileSide);
    CHECK(plan.tileHeight() == 4096);
    CHECK(std::uint64_t(40000) * plan.tileHeight() * 4 <= kDefaultBandBytes);
    CHECK(estimate <= options.memoryLimit);
    // A band of 64 rows is kept however wide the image.
    CHECK(planTiles(8000000, 200, 1, options, limits, 1).tileHeight() == 64);
}

TEST_CASE("a border pair across tiles is tested by the reference's criterion", "[tiles]") {
    // Upper row 10 20 over lower row 30 200, threshold 15: only 20 and 30
    // connect, diagonally, so not at 4-connectivity; with threshold 170 the
    // straight pair 10-30 connects and 20-200 still does not.
    BorderFace upper, lower;
    upper.nodes = {0, 1};
    upper.pixels = {10, 20};
    lower.nodes = {2, 3};
    lower.pixels = {30, 200};
    std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
    const auto collect = [&](std::uint64_t a, std::uint64_t b) { pairs.emplace_back(a, b); };
    forEachConnectedPair(upper, lower, Connectivity::Eight, Criterion::thresholded(15), collect);
    REQUIRE(pairs == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{1, 2}});
    pairs.clear();
    forEachConnectedPair(upper, lower, Connectivity::Four, Criterion::thresholded(15), collect);
    REQUIRE(pairs.empty());
    forEachConnectedPair(upper, lower, Connectivity::Four, Criterion::thresholded(170), collect);
    REQUIRE(pairs == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{0, 2}});
    // A pixel that connects but is labeled background is an error, not a skip.
    lower.nodes = {BorderFace::kNone, 3};
    REQUIRE_THROWS_WITH(forEachConnectedPair(upper, lower, Connectivity::Four, Criterion::thresholded(170), collect),
                        Catch::Matchers::StartsWith("glccl::labelTiled(): pixels 0 and 0 across a tile border connect"));
}

TEST_CASE("a tiled run reports its progress, and stops when told to with nothing written", "[tiles]") {
    const Image image = randomImage(61, 47, 0.5, 2, 1, 29);
    TiledOptions options = cpuTiles(Connectivity::Eight, Criterion::binary(), 9, 8);  // 7 x 6 tiles
    std::vector<TiledProgress> reports;
    options.progress = [&](const TiledProgress& at) {
        reports.push_back(at);
        return true;
    };
    const Labeling tiled = labelTiled(image, options);
    REQUIRE(tiled.labels == labelReference(image, Connectivity::Eight, Criterion::binary()).labels);
    // Every tile, then every band, counted up to their totals in order.
    REQUIRE(reports.size() == 12);
    for (std::size_t i = 0; i < reports.size(); ++i) {
        const bool labeling = i < 6;
        CHECK(std::string(reports[i].phase) == (labeling ? "label" : "write"));
        CHECK(reports[i].done == (labeling ? 7 * (i + 1) : i - 5));
        CHECK(reports[i].total == (labeling ? 42u : 6u));
    }

    // Told to stop in either phase: glccl::Cancelled, and the .npy sink
    // leaves neither its file nor a temporary behind.
    for (const char* phase : {"label", "write"}) {
        INFO(phase);
        const std::filesystem::path folder =
            std::filesystem::temp_directory_path() / ("glccl_tiles_cancel_" + std::to_string(::getpid()));
        std::filesystem::remove_all(folder);
        std::filesystem::create_directories(folder);
        options.progress = [&](const TiledProgress& at) { return !(std::string(at.phase) == phase && at.done >= 2); };
        const ImageMemorySource source(image);
        {
            NpyLabelSink sink((folder / "labels.npy").string(), (folder / "stats.csv").string(), false);
            REQUIRE_THROWS_AS(labelTiled(source, options, sink), Cancelled);
        }
        CHECK(std::filesystem::is_empty(folder));
        std::filesystem::remove_all(folder);
    }
}

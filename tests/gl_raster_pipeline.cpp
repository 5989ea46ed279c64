// The raster pipeline (O'Connell as render passes) against the CPU reference,
// exact, on llvmpipe: every generated family at odd sizes, random images,
// all criteria, both connectivities, GL 4.5 and 3.3 core contexts. Labelers
// here ask for the raster backend by name.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gl_support.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/labeler.hpp"
#include "glccl/tuning.hpp"
#include "backends/raster/raster_pipeline.hpp"
#include "embedded_shaders.hpp"
#include "stage_timer.hpp"

using namespace glccl;
using glccl::test::offscreen;
using glccl::test::session;
using glccl::test::ShaderFolder;

namespace {

const Connectivity kBoth[] = {Connectivity::Four, Connectivity::Eight};

// A GL_R8 texture of the current context holding `image`.
gl::Texture r8Texture(const Image& image) {
    auto texture = gl::Texture::allocate(GL_R8, image.width, image.height, "test");
    texture.upload(image.pixels.data(), GL_RED, GL_UNSIGNED_BYTE);
    return texture;
}

// Labels with the raster backend, whatever auto would choose, and requires
// the exact reference result.
void requireMatchesReference(Session& labeler, const Image& image, Connectivity connectivity,
                             const Criterion& criterion, const std::string& name = "",
                             StageTimings* timings = nullptr) {
    LabelOptions options;
    options.backend = Backend::Raster;
    options.connectivity = connectivity;
    options.criterion = criterion;
    const Labeling expected = labelReference(image, connectivity, criterion);
    const Labeling actual = labeler.label(image, options, timings);
    const Comparison comparison = compareLabelings(expected, actual);
    INFO(name << " " << glccl::test::describeCase(image, connectivity, criterion) << ": " << comparison.describe());
    REQUIRE(comparison.identical());
}

std::vector<std::string> stageNames(const StageTimings& timings) {
    std::vector<std::string> names;
    for (const StageTime& time : timings) names.push_back(time.stage);
    return names;
}

// The engine's variants as glccl::Tuning's defaults choose them.
RasterPipeline::Options tuningDefaults() {
    RasterPipeline::Options options = RasterPipeline::tuned({}, Tuning());
    options.checkEachPass = false;
    return options;
}

Image fromRows(const std::vector<std::string>& rows) {
    Image image(int(rows[0].size()), int(rows.size()));
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) image.at(x, y) = rows[y][x] == '#' ? 255 : 0;
    return image;
}

}  // namespace

TEST_CASE("raster: every generated family at odd sizes", "[gl][raster]") {
    const std::pair<int, int> sizes[] = {{1, 1}, {1, 37}, {37, 1}, {61, 47}, {130, 67}};
    for (const std::string& family : generatedFamilies())
        for (auto [width, height] : sizes)
            for (Connectivity connectivity : kBoth)
                requireMatchesReference(session(), generateFamily(family, width, height, 7), connectivity,
                                        Criterion::binary(), family);
}

TEST_CASE("raster: sizes that cross block borders and many blocks", "[gl][raster]") {
    const std::pair<int, int> sizes[] = {{300, 200}, {1000, 23}, {17, 513}, {257, 129}};
    for (const char* family : {"noise50", "spiral", "comb", "corridor", "rings", "sparse_disks"})
        for (auto [width, height] : sizes)
            for (Connectivity connectivity : kBoth)
                requireMatchesReference(session(), generateFamily(family, width, height, 3), connectivity,
                                        Criterion::binary(), family);
}

TEST_CASE("raster: thousands of small random images", "[gl][raster]") {
    std::mt19937_64 random(20261121);
    for (int i = 0; i < 1500; ++i) {
        const int width = 1 + int(random() % 24), height = 1 + int(random() % 24);
        const double density = double(random() % 101) / 100.0;
        const Connectivity connectivity = kBoth[i % 2];
        requireMatchesReference(session(), randomImage(width, height, density, 2, 1, random()), connectivity,
                                Criterion::binary(), "random " + std::to_string(i));
    }
}

TEST_CASE("raster: segments and threshold criteria", "[gl][raster]") {
    std::mt19937_64 random(5);
    for (int i = 0; i < 200; ++i) {
        const int width = 1 + int(random() % 40), height = 1 + int(random() % 40);
        const Connectivity connectivity = kBoth[i % 2];
        const int levels = 2 + int(random() % 4);
        requireMatchesReference(session(), randomImage(width, height, 0.7, levels, 1, random()), connectivity,
                                Criterion::segments(), "segments");
        requireMatchesReference(session(), randomImage(width, height, 0.7, levels, 1, random()), connectivity,
                                Criterion::thresholded(int(random() % 3) * 60), "gray threshold");
        requireMatchesReference(session(), randomImage(width, height, 0.8, levels, 4, random()), connectivity,
                                Criterion::thresholded(int(random() % 4) * 40), "color threshold");
    }
}

TEST_CASE("raster: links that never settle stop resolve_links with an error, not a loop without end",
          "[gl][raster]") {
    // tile_labels' fills (tile_labels.glsl's, in both files that fill)
    // never growing down a tile leave tile labels that disagree along the
    // tiles' borders from round to round: resolve_links (links across the
    // borders) finds links left after every round.
    // Correct stages cannot do this; a faulty shader or driver can, and
    // the labeling must fail, naming the stage, in a bounded time.
    const ShaderFolder shaders("glccl_raster_faulty");
    for (const char* file : {"tile_labels_lead.frag", "tile_labels_runs.frag"}) {
        std::string source = detail::shaderSource(file);
        const std::string down = "uint x = fill[r] | downFrom(fill[r - 1], links[r - 1]);";
        REQUIRE(source.find(down) != std::string::npos);
        source.replace(source.find(down), down.size(), "uint x = fill[r];");
        std::ofstream(shaders.path() / file) << source;
    }
    shaders.use();

    HeadlessContext context;
    const Image image = randomImage(64, 50, 0.6, 2, 1, 7);
    for (Connectivity connectivity : kBoth) {
        RasterPipeline pipeline(RasterPipeline::tuned({}, Tuning()));
        auto input = r8Texture(image);
        auto labels = gl::Texture::allocate(GL_R32UI, image.width, image.height, "labels");
        StageTimer timer(false);
        REQUIRE_THROWS_WITH(pipeline.label(input, labels, connectivity, Criterion::binary(), timer),
                            Catch::Contains("resolve_links") && Catch::Contains("rounds"));
    }
}

TEST_CASE("raster: a 3.3 core context gives the same labels", "[gl][raster]") {
    auto& labeler = session(3, 3);
    const ContextInfo& info = labeler.offscreen().context().info();
    INFO("context: OpenGL " << info.version);
    REQUIRE(info.coreProfile);
    // Drivers may answer a 3.3 request with a newer core version (Mesa gives
    // its newest); tests/CMakeLists.txt runs this test again with
    // MESA_GL_VERSION_OVERRIDE=3.3, and under Mesa that run must get 3.3
    // itself, so the pipeline takes its OpenGL 3.3 paths.
    const char* pinned = std::getenv("MESA_GL_VERSION_OVERRIDE");
    if (pinned && std::string(pinned) == "3.3" && info.version.find("Mesa") != std::string::npos) {
        REQUIRE(info.major == 3);
        REQUIRE(info.minor == 3);
    } else {
        REQUIRE((info.major > 3 || (info.major == 3 && info.minor >= 3)));
    }
    for (const char* family : {"noise50", "spiral", "dense_disks", "checkerboard"})
        for (Connectivity connectivity : kBoth)
            requireMatchesReference(labeler, generateFamily(family, 97, 61, 11), connectivity, Criterion::binary(), family);
    requireMatchesReference(labeler, randomImage(50, 40, 0.8, 4, 4, 9), Connectivity::Eight, Criterion::thresholded(60));
    // 64-bit ids (GL_RG32UI, low halves colliding) and delta in GLSL 3.30.
    Image ids(Shape::image(31, 23), 1, 64);
    for (std::size_t i = 0; i < ids.shape().count(); ++i)
        ids.setSample(i, 0, (i * 7) % 3 + (std::uint64_t(i % 2) << 32));
    for (const Criterion& criterion : {Criterion::segments(), Criterion::withinDelta(1), Criterion::binaryAbove(1)}) {
        LabelOptions options;
        options.backend = Backend::Raster;
        options.criterion = criterion;
        const Comparison comparison =
            compareLabelings(labelReference(ids, Connectivity::Eight, criterion), labeler.label(ids, options));
        INFO(criterion.toString() << ": " << comparison.describe());
        REQUIRE(comparison.identical());
    }
}

TEST_CASE("raster: O'Connell's Fig. 5.5, roots changed by several scatter-backs", "[gl][raster]") {
    // The paper's example (its IDs replaced by foreground marks), and the
    // same chain made longer.
    const Image figure = fromRows({"...#", "..##", ".##.", ".#.."});
    const Image longer = fromRows({"......#", ".....##", "....##.", "...##..", "..##...", ".##....", ".#....."});
    for (Connectivity connectivity : kBoth) {
        requireMatchesReference(session(), figure, connectivity, Criterion::binary(), "figure 5.5");
        requireMatchesReference(session(), longer, connectivity, Criterion::binary(), "figure 5.5, longer");
    }
}

TEST_CASE("raster: the links O'Connell's column processing loses (Fig. 5.8) are restored", "[gl][raster]") {
    // With one block, whatever the exactness loop has to merge is exactly the
    // paper's N + M failure. Random images find such cases; every result must
    // still equal the reference.
    HeadlessContext context;
    RasterPipeline pipeline;
    int imagesNeedingRepair = 0;
    std::mt19937_64 random(58);
    for (int i = 0; i < 400; ++i) {
        const int width = 2 + int(random() % 60), height = 2 + int(random() % 60);
        const Image image = randomImage(width, height, 0.6, 2, 1, random());
        const Connectivity connectivity = kBoth[i % 2];
        RasterPipeline::Options options;
        options.blockWidth = width;
        pipeline.setOptions(options);
        auto input = r8Texture(image);
        auto labels = gl::Texture::allocate(GL_R32UI, width, height, "labels");
        StageTimer timer(false);
        Labeling actual;
        actual.width = width;
        actual.height = height;
        const std::uint32_t count = pipeline.label(input, labels, connectivity, Criterion::binary(), timer);
        actual.components = pipeline.components(timer);
        actual.labels.resize(std::size_t(width) * height);
        labels.download(actual.labels.data(), GL_RED_INTEGER, GL_UNSIGNED_INT);
        const Labeling expected = labelReference(image, connectivity, Criterion::binary());
        INFO("image " << i << ": " << compareLabelings(expected, actual).describe());
        REQUIRE(count == expected.count());
        REQUIRE(compareLabelings(expected, actual).identical());
        if (pipeline.resolveRounds() > 0) ++imagesNeedingRepair;
    }
    INFO("images where column processing alone lost a link: " << imagesNeedingRepair);
    CHECK(imagesNeedingRepair > 0);
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("raster: with rasterNumbering auto, more than 255 components take the scan path, fewer the stencil routing",
          "[gl][raster]") {
    // 255 and 256 isolated dots: both sides of the stencil routing limit.
    // The timings name the stages that ran, in order; a 64x64 image has
    // several tiles, and with rasterLocal columns several column-processing
    // blocks, so their borders are merged.
    for (const bool tiles : {true, false}) {
        const test::ScopedTuning variant{{"rasterNumbering", "auto"}, {"rasterLocal", tiles ? "tiles" : "columns"}};
        for (int dots : {1, 254, 255, 256, 1000}) {
            Image image(64, 64);
            for (int i = 0; i < dots; ++i) image.at((i % 32) * 2, (i / 32) * 2) = 255;
            const std::string numbering = dots <= 255 ? "route_roots" : "scan_roots";
            std::vector<std::string> expected = {"node_graph", "tile_labels"};
            if (!tiles)
                expected = {"node_graph", "vertical_runs", "column_processing", "post_column_processing",
                            "merge_block_borders"};
            for (const char* stage : {"resolve_links", "count_roots", numbering.c_str(), "final_labels",
                                      "component_table", "download_table"})
                expected.emplace_back(stage);
            for (Connectivity connectivity : kBoth) {
                StageTimings timings;
                requireMatchesReference(session(), image, connectivity, Criterion::binary(),
                                        std::to_string(dots) + " dots", &timings);
                INFO(dots << " dots, connectivity " << int(connectivity) << (tiles ? ", tiles" : ", columns"));
                CHECK(stageNames(timings) == expected);
            }
        }
    }
}

TEST_CASE("raster: every stage the timings name has GLSL files of that name", "[gl][raster]") {
    // One name per stage: the timer key, the C++ pass unit and the shader
    // files (<stage>.vert/.frag, or <stage>_<step>.vert/.frag). Only the
    // table's download is host work.
    const Image image = generateFamily("sparse_disks", 300, 200, 2);
    for (const char* local : {"tiles", "columns"}) {
        const test::ScopedTuning variant{{"rasterLocal", local}};
        StageTimings timings;
        requireMatchesReference(session(), image, Connectivity::Eight, Criterion::binary(), "sparse_disks", &timings);
        REQUIRE(timings.size() >= 8);
        for (const std::string& stage : stageNames(timings)) {
            if (stage == "download_table") continue;
            bool named = false;
            for (std::size_t i = 0; i < detail::kEmbeddedShaderCount; ++i) {
                const std::string file = detail::kEmbeddedShaders[i].name;
                named = named || file == stage + ".vert" || file == stage + ".frag" || file.rfind(stage + "_", 0) == 0;
            }
            INFO("stage " << stage << ", rasterLocal " << local);
            CHECK(named);
        }
    }
}

TEST_CASE("raster: Labeler refuses formats and criteria it cannot label", "[gl][raster]") {
    auto& labeler = session();
    CHECK_THROWS_AS(labeler.label(Image(5, 5, 4), LabelOptions{}), Error);
    CHECK_THROWS_AS(labeler.label(Image(), LabelOptions{}), Error);
    labeler.offscreen().makeCurrent();
    Labeler direct;
    CHECK_THROWS_AS(direct.label(0), Error);
    CHECK_THROWS_AS(direct.components(), Error);
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("raster: areas and centroids stay exact for components past float precision", "[gl][raster]") {
    // A component is summed exactly in one float pass only while area *
    // (width - 1) < 2^24; these are past that and take component_bits, once
    // with the real 2^24-pixel bands and once with tiny bands to cross many;
    // with each band's points in one texel per component and spread over
    // several (rasterBitsSpread, with the table's points spread as many
    // ways; 7 does not divide the segments across).
    HeadlessContext context;
    for (auto [bandPixels, spread] : {std::pair{1 << 24, 1}, std::pair{5000, 1}, std::pair{1 << 24, 7},
                                      std::pair{5000, 64}}) {
        RasterPipeline::Options options;
        options.bandPixels = bandPixels;
        options.bitsSpread = spread;
        options.tableSpread = spread;
        RasterPipeline pipeline(options);
        for (const char* family : {"ones", "noise90", "noise75"}) {
            const Image image = generateFamily(family, 333, 257, 5);
            auto input = r8Texture(image);
            auto labels = gl::Texture::allocate(GL_R32UI, image.width, image.height, "labels");
            StageTimer timer(false);
            pipeline.label(input, labels, Connectivity::Eight, Criterion::binary(), timer);
            const Labeling expected = labelReference(image, Connectivity::Eight, Criterion::binary());
            const std::vector<Component> actual = pipeline.components(timer);
            INFO(family << " with bands of " << bandPixels << " pixels, spread " << spread);
            REQUIRE(actual.size() == expected.components.size());
            bool anyLarge = false;
            for (std::size_t i = 0; i < actual.size(); ++i) {
                const Component& c = expected.components[i];
                anyLarge = anyLarge || double(c.area) * double(c.width - 1) >= 16777216.0;
                INFO("label " << i + 1);
                CHECK(actual[i] == c);
            }
            CHECK(anyLarge);
        }
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("raster: the table's digits keep every channel's sum within float precision", "[raster]") {
    // Segments of 32 nodes, 2x2 pixels at 8-connectivity (128 pixels a
    // point), 2x1 at 4 (64).
    const auto check = [](int width, int height, int nodeWidth, int nodeHeight, std::int64_t points) {
        const raster::SumDigits digits = raster::sumDigitsFor(width, height, points, 32 * nodeWidth * nodeHeight);
        INFO(width << "x" << height << ", " << points << " points: " << digits.bits << " bits, " << digits.count
                   << "+" << digits.x << "+" << digits.y << " digits");
        if (!digits.fits()) return digits;
        // Every channel adds at most `points` digits, each below 2^bits...
        CHECK(double(points) * double((1 << digits.bits) - 1) <= 16777216.0);
        // ...and the digits hold each point's largest value.
        const double pointPixels = 32.0 * nodeWidth * nodeHeight;
        for (auto [count, largest] : {std::pair{digits.count, pointPixels}, std::pair{digits.x, pointPixels * (width - 1)},
                                      std::pair{digits.y, pointPixels * (height - 1)}})
            if (count > 1) CHECK(std::ldexp(1.0, digits.bits * count) > largest);
        return digits;
    };
    // 2048x2048 at 8-connectivity: 32 x 1024 segments, 9-bit digits; the
    // area whole (at most 2^22), x and y in two digits each.
    raster::SumDigits d = check(2048, 2048, 2, 2, 32 * 1024);
    CHECK(d.bits == 9);
    CHECK(d.count == 1);
    CHECK(d.x == 2);
    CHECK(d.y == 2);
    CHECK(d.targets() == 1);
    d = check(2048, 2048, 2, 1, 32 * 2048);
    CHECK(d.targets() == 1);
    d = check(1920, 1080, 2, 2, 30 * 540);
    CHECK(d.targets() == 1);
    // 8192x8192: 5-bit digits, the area in two, x and y in four each.
    d = check(8192, 8192, 2, 2, 128 * 4096);
    CHECK(d.bits == 5);
    CHECK(d.channels() == 10);
    CHECK(d.targets() == 2);
    d = check(8192, 8192, 2, 1, 128 * 8192);
    CHECK(d.channels() == 12);
    // Past the channels: component_bits.
    CHECK_FALSE(check(16384, 16384, 2, 2, 256 * 8192).fits());
    CHECK_FALSE(check(8192, 8192, 1, 1, 256 * 8192).fits());
    // Small images: every quantity whole, in the sums target alone.
    d = check(130, 67, 2, 2, 3 * 34);
    CHECK(d.channels() == 3);
    CHECK(d.targets() == 0);
    // Digits of at most 4 bits asked for: every quantity split.
    d = raster::sumDigitsFor(333, 257, 6 * 129, 128, 4);
    CHECK(d.bits == 4);
    CHECK(d.count == 2);
    CHECK(d.x == 4);
    CHECK(d.y == 4);
}

TEST_CASE("raster: the table's digits give exact areas and centroids without component_bits", "[gl][raster]") {
    // rasterTableSums digits: every entry exact in component_table's draw.
    // With the digits the image allows (each quantity whole at these
    // sizes), and with digits of 4 and 6 bits (the area, x and y split, in
    // one or two digit targets); with the table's points spread over copies
    // and by runs; in a 3.3 core context's masked draws and in ES 3.0's
    // draw-buffer selection too (stage list: no component_bits).
    const auto run = [](RasterPipeline& pipeline, const Image& image, Connectivity connectivity,
                        const Criterion& criterion, const std::string& name) {
        auto input = r8Texture(image);
        auto labels = gl::Texture::allocate(GL_R32UI, image.width, image.height, "labels");
        StageTimer timer(true);  // listed as run wherever queries time nothing
        pipeline.label(input, labels, connectivity, criterion, timer);
        const Labeling expected = labelReference(image, connectivity, criterion);
        const std::vector<Component> actual = pipeline.components(timer);
        INFO(name << " " << glccl::test::describeCase(image, connectivity, criterion));
        REQUIRE(actual.size() == expected.components.size());
        for (std::size_t i = 0; i < actual.size(); ++i) {
            INFO("label " << i + 1);
            CHECK(actual[i] == expected.components[i]);
        }
        const std::vector<std::string> names = stageNames(timer.collect());
        CHECK(std::count(names.begin(), names.end(), "component_bits") == 0);
    };
    Image combs(1203, 301);  // two large components in every row segment (below)
    for (int y = 0; y < combs.height; ++y)
        for (int x = 0; x < combs.width; ++x)
            if ((y == 0 && x < combs.width - 2) || (x % 4 == 0 && y < combs.height - 2) ||
                (y == combs.height - 1 && x >= 2) || (x % 4 == 2 && y > 1))
                combs.at(x, y) = 255;
    // The default desktop context, a 3.3 core one (its masked draws where
    // the driver gives 3.3 itself: MESA_GL_VERSION_OVERRIDE=3.3 under Mesa,
    // where the default one is refused) and ES 3.0, each where it is made.
    std::vector<std::unique_ptr<HeadlessContext>> contexts;
    HeadlessContext::Options core33, es;
    core33.major = 3;
    core33.minor = 3;
    es.es = true;
    es.major = 3;
    es.minor = 0;
    for (const HeadlessContext::Options& options : {HeadlessContext::Options(), core33, es}) {
        try {
            contexts.push_back(std::make_unique<HeadlessContext>(options));
        } catch (const Error&) {
            // not here: the others
        }
    }
    REQUIRE(!contexts.empty());
    // Every variant with every digit width in the first context; in the
    // others, whose draws differ from it and not from variant to variant,
    // each variant with one width, the widths in turn.
    for (std::size_t c = 0; c < contexts.size(); ++c) {
        const auto& context = contexts[c];
        context->makeCurrent();
        const int widths[] = {0, 4, 6};
        for (int w = 0; w < 3; ++w) {
            const int digitBits = widths[w];
            RasterPipeline::Options options = tuningDefaults();
            options.tableDigits = true;
            options.digitBits = digitBits;
            RasterPipeline pipeline(options);
            for (int variant = 0; variant < 6; ++variant) {
                if (c > 0 && variant % 3 != w) continue;
                options.tableByRuns = variant % 3 == 1;
                options.tableBySlots = variant % 3 != 1;
                options.tableSpread = variant % 3 == 2 ? 5 : 1;
                options.tableWords = variant < 3;  // rasterTablePack words, then floats
                pipeline.setOptions(options);
                const std::string name = context->info().version + ", digits of " +
                                         std::to_string(digitBits) + " bits, variant " + std::to_string(variant);
                for (const char* family : {"ones", "noise90", "noise50"})
                    for (Connectivity connectivity : kBoth)
                        run(pipeline, generateFamily(family, 333, 257, 5), connectivity, Criterion::binary(),
                            name + " " + family);
                run(pipeline, combs, Connectivity::Eight, Criterion::segments(), name + " combs");
                run(pipeline, generateFamily("dense_disks", 97, 61, 3), Connectivity::Four, Criterion::binary(),
                    name + " dense_disks");
            }
        }
        // Sums past 32 bits (words 3-5 of rasterTablePack words), and
        // digits of 4 bits whose shifts pass 32 bits: both in the first
        // context, one of them in each other. The ones' sum of x is
        // 600 * 4099 * 4100 / 2, past 2^32.
        for (int digitBits : {0, 4}) {
            if (c > 0 && digitBits != (c % 2 == 1 ? 4 : 0)) continue;
            RasterPipeline::Options options = tuningDefaults();
            options.tableDigits = true;
            options.tableWords = true;
            options.digitBits = digitBits;
            RasterPipeline pipeline(options);
            const std::string name = context->info().version + ", words, digits of " + std::to_string(digitBits);
            run(pipeline, generateFamily("ones", 4100, 600, 1), Connectivity::Eight, Criterion::binary(),
                name + " ones");
            run(pipeline, generateFamily("large", 3000, 1500, 2), Connectivity::Four, Criterion::binary(),
                name + " large");
        }
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("raster: several large components in one row segment are each summed exactly", "[gl][raster]") {
    // Two interleaved combs: teeth at x = 0, 4, 8, ... hang from a bar on the
    // top row, teeth at x = 2, 6, 10, ... stand on a bar on the bottom row
    // (two pixels apart everywhere, so separate at either connectivity).
    // Every row segment holds both, and both are past float precision; with
    // every node shape (binary 8: 2x2, binary 4: 2x1, segments: 1x1).
    Image combs(1203, 301);
    const int w = combs.width, h = combs.height;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const bool topComb = (y == 0 && x < w - 2) || (x % 4 == 0 && y < h - 2);
            const bool bottomComb = (y == h - 1 && x >= 2) || (x % 4 == 2 && y > 1);
            if (topComb || bottomComb) combs.at(x, y) = 255;
        }
    HeadlessContext context;
    for (auto [bandPixels, spread] : {std::pair{1 << 24, 1}, std::pair{7000, 1}, std::pair{7000, 4}}) {
        RasterPipeline::Options options;
        options.bandPixels = bandPixels;
        options.bitsSpread = spread;
        options.tableSpread = spread;
        RasterPipeline pipeline(options);
        auto input = r8Texture(combs);
        auto labels = gl::Texture::allocate(GL_R32UI, combs.width, combs.height, "labels");
        for (auto [connectivity, criterion] : {std::pair{Connectivity::Eight, Criterion::binary()},
                                               std::pair{Connectivity::Four, Criterion::binary()},
                                               std::pair{Connectivity::Eight, Criterion::segments()}}) {
            StageTimer timer(false);
            pipeline.label(input, labels, connectivity, criterion, timer);
            const Labeling expected = labelReference(combs, connectivity, criterion);
            REQUIRE(expected.components.size() == 2);
            for (const Component& c : expected.components) REQUIRE(double(c.area) * double(c.width - 1) >= 16777216.0);
            const std::vector<Component> actual = pipeline.components(timer);
            INFO("bands of " << bandPixels << " pixels, spread " << spread << ", criterion " << int(criterion.kind) << ", connectivity "
                              << int(connectivity));
            REQUIRE(actual.size() == 2);
            CHECK(actual[0] == expected.components[0]);
            CHECK(actual[1] == expected.components[1]);
        }
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("raster: the busiest row segment of the table's slots lies past the first kMostSide² segments",
          "[gl][raster]") {
    // component_table by slots takes as many slots as the most roots first
    // in one row segment, each segment's count blended into texel (segment
    // mod kMostSide²): a segment counted nowhere, or a texel left unread,
    // would leave the busiest segment's later roots out of the table. A
    // 64-pixel-wide image is one segment a node row at either node shape:
    // every fourth pixel row holds one bar (one root in its segment), and
    // one pixel row far down a component in every other pixel (32 roots).
    const int width = 64, segmentRows = raster::kMostSide * raster::kMostSide + 300;
    for (Connectivity connectivity : kBoth) {
        const int nodeHeight = connectivity == Connectivity::Eight ? 2 : 1;
        Image image(width, segmentRows * nodeHeight);
        for (int y = 0; y < image.height; y += 4)
            for (int x = 0; x < width / 2; ++x) image.at(x, y) = 255;
        const int busy = (segmentRows - 100) * nodeHeight + 2;  // two rows from the bars
        for (int x = 0; x < width; x += 2) image.at(x, busy) = 255;
        requireMatchesReference(session(), image, connectivity, Criterion::binary(), "busy segment");
    }
}

TEST_CASE("raster: Labeler reads GL_R8UI, GL_R16 and GL_R32F textures in their own units", "[gl][raster]") {
    HeadlessContext context;
    std::mt19937_64 random(16);
    // One Labeler a format, taking images of every size in turn.
    Labeler labelers[3];
    for (int i = 0; i < 30; ++i) {
        const int width = 1 + int(random() % 50), height = 1 + int(random() % 50);
        const Image image = randomImage(width, height, 0.7, 4, 1, random());
        const Connectivity connectivity = kBoth[i % 2];
        const int threshold = int(random() % 3) * 40;
        std::vector<std::uint16_t> wide(image.pixels.begin(), image.pixels.end());
        std::vector<float> real(image.pixels.begin(), image.pixels.end());
        for (auto& v : wide) v = std::uint16_t(v * 257);  // the same fraction of full scale as v / 255
        struct Format {
            GLenum internal, format, type;
            const void* pixels;
            int thresholdScale;
        } formats[] = {{GL_R8UI, GL_RED_INTEGER, GL_UNSIGNED_BYTE, image.pixels.data(), 1},
                       {GL_R16, GL_RED, GL_UNSIGNED_SHORT, wide.data(), 257},
                       {GL_R32F, GL_RED, GL_FLOAT, real.data(), 1}};
        for (int k = 0; k < 3; ++k) {
            const Format& f = formats[k];
            auto texture = gl::Texture::allocate(f.internal, width, height, "test");
            texture.upload(f.pixels, f.format, f.type);
            Labeler& labeler = labelers[k];
            for (Criterion criterion : {Criterion::binary(), Criterion::segments(), Criterion::thresholded(threshold)}) {
                LabelOptions options;
                options.backend = Backend::Raster;
                options.connectivity = connectivity;
                options.criterion = criterion;
                Criterion scaled = criterion;
                scaled.threshold *= f.thresholdScale;
                options.criterion = scaled;
                const std::uint32_t count = labeler.label(texture.id(), options);
                const Labeling actual = glccl::test::downloadResult(labeler, width, height);
                const Labeling expected = labelReference(image, connectivity, criterion);
                INFO("format " << f.internal << " " << glccl::test::describeCase(image, connectivity, criterion) << ": "
                               << compareLabelings(expected, actual).describe());
                REQUIRE(count == expected.count());
                REQUIRE(compareLabelings(expected, actual).identical());
            }
        }
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("raster: a host texture with GL's default mipmapped filter and one level still labels", "[gl][raster]") {
    // With GL_NEAREST_MIPMAP_LINEAR and no mipmaps a texture is incomplete
    // and texelFetch reads zeros, unless a sampler decides completeness.
    HeadlessContext context;
    const Image image = generateFamily("dense_disks", 120, 90, 4);
    auto texture = r8Texture(image);
    glBindTexture(GL_TEXTURE_2D, texture.id());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 1000);
    Labeler labeler;
    LabelOptions options;
    options.backend = Backend::Raster;
    const std::uint32_t count = labeler.label(texture.id(), options);
    const Labeling expected = labelReference(image, Connectivity::Eight, Criterion::binary());
    REQUIRE(expected.count() > 0);
    CHECK(count == expected.count());
    const Labeling actual = glccl::test::downloadResult(labeler, image.width, image.height);
    CHECK(compareLabelings(expected, actual).identical());
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("raster: Labeler's CUDA backend says why when it cannot run", "[gl][raster]") {
    HeadlessContext context;
    const Image image = generateFamily("noise50", 40, 30, 1);
    auto texture = r8Texture(image);
    Labeler labeler;
    LabelOptions options;
    options.backend = GpuBackend::Cuda;
    const std::string why = whyUnavailable(Backend::Cuda, labeler.contextInfo());
    if (why.empty()) {
        // CUDA runs here: then the labels must be right.
        labeler.label(texture.id(), options);
        const Labeling actual = glccl::test::downloadResult(labeler, image.width, image.height);
        const Labeling expected = labelReference(image, Connectivity::Eight, Criterion::binary());
        CHECK(compareLabelings(expected, actual).identical());
    } else {
        INFO(why);
        REQUIRE_THROWS_WITH(labeler.label(texture.id(), options),
                            "glccl::Labeler::label(): the cuda backend cannot run here: " + why);
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("raster: Labeler reads the red channel of GL_RGBA8 for binary and segments", "[gl][raster]") {
    HeadlessContext context;
    const Image color = randomImage(57, 43, 0.8, 3, 4, 77);
    Image red(color.width, color.height, 1);
    for (int y = 0; y < color.height; ++y)
        for (int x = 0; x < color.width; ++x) red.at(x, y) = color.at(x, y, 0);
    auto texture = gl::Texture::allocate(GL_RGBA8, color.width, color.height, "test");
    texture.upload(color.pixels.data(), GL_RGBA, GL_UNSIGNED_BYTE);
    Labeler labeler;
    for (Criterion criterion : {Criterion::binary(), Criterion::segments()}) {
        for (Connectivity connectivity : kBoth) {
            LabelOptions options;
            options.backend = Backend::Raster;
            options.connectivity = connectivity;
            options.criterion = criterion;
            labeler.label(texture.id(), options);
            const Labeling actual = glccl::test::downloadResult(labeler, color.width, color.height);
            const Labeling expected = labelReference(red, connectivity, criterion);
            INFO(criterion.toString() << " " << int(connectivity) << ": " << compareLabelings(expected, actual).describe());
            CHECK(compareLabelings(expected, actual).identical());
        }
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

namespace {

// The pipeline's variants (glccl::Tuning's raster knobs): each alone beside
// the defaults, then all together, with small blocks so that borders are
// merged, and one block so that resolve_links does the merging.
std::vector<std::pair<std::string, RasterPipeline::Options>> rasterVariants() {
    std::vector<std::pair<std::string, RasterPipeline::Options>> variants;
    RasterPipeline::Options options;
    variants.emplace_back("defaults", options);
    options.resolveInFragments = false;
    variants.emplace_back("rasterResolve=vertex", options);
    options = {};
    options.tableByRuns = true;
    variants.emplace_back("rasterTable=runs", options);
    options = {};
    options.columnDraws = 3;
    variants.emplace_back("rasterColumnDraws=3", options);
    options.columnDraws = 2;
    variants.emplace_back("rasterColumnDraws=2", options);
    options = {};
    options.scanAlways = true;
    variants.emplace_back("rasterNumbering=scan", options);
    options = {};
    options.columnGroup = 3;
    options.resolveGroup = 2;
    options.tableBySlots = true;
    options.runHops = 64;
    options.bitsSpread = 5;
    options.tableSpread = 3;
    variants.emplace_back("rasterColumnGroup=3 rasterResolveGroup=2 rasterTable=slots rasterRunHops=64 "
                          "rasterBitsSpread=5 rasterTableSpread=3",
                          options);
    options = tuningDefaults();
    options.scatterGroup = 8;
    variants.emplace_back("Tuning's defaults, rasterScatterGroup=8", options);
    options.scatterGroup = 0;  // the scatter back in the gathers' groups of 32
    options.columnGroup = 32;
    options.blockWidth = 5;
    variants.emplace_back("Tuning's defaults, rasterColumnGroup=32 rasterBlockWidth=5", options);
    options.scatterGroup = 1;
    options.columnGroup = 3;
    variants.emplace_back("Tuning's defaults, rasterScatterGroup=1 rasterColumnGroup=3 rasterBlockWidth=5", options);
    options.scatterGroup = 32;
    options.columnDraws = 2;
    variants.emplace_back("Tuning's defaults, rasterScatterGroup=32 rasterColumnGroup=3 rasterBlockWidth=5 "
                          "rasterColumnDraws=2",
                          options);
    options.scatterGroup = 5;
    options.columnDraws = 3;
    variants.emplace_back("Tuning's defaults, rasterScatterGroup=5 rasterColumnGroup=3 rasterBlockWidth=5 "
                          "rasterColumnDraws=3",
                          options);
    options = {};
    options.borderRounds = 1;
    options.blockWidth = 3;
    variants.emplace_back("rasterBorderRounds=1 rasterBlockWidth=3", options);
    options.resolveInFragments = false;
    options.tableByRuns = true;
    options.columnDraws = 3;
    options.scanAlways = true;
    options.columnGroup = 4;
    options.resolveGroup = 3;
    options.resolveCheckInDraw = true;
    options.runHops = 3;
    options.bitsSpread = 64;
    options.tableSpread = 64;
    variants.emplace_back("every variant, rasterBlockWidth=3", options);
    options.blockWidth = 1 << 14;
    variants.emplace_back("every variant, one block", options);
    options = {};
    options.blockWidth = 1 << 14;
    variants.emplace_back("defaults, one block", options);
    options = {};
    options.tableDigits = true;
    variants.emplace_back("rasterTableSums=digits", options);
    options.tableBySlots = true;
    options.tableSpread = 3;
    options.digitBits = 5;  // every quantity in digits, two digit targets
    variants.emplace_back("rasterTableSums=digits rasterTable=slots rasterTableSpread=3, digits of 5 bits", options);
    options.tableLocal = RasterPipeline::Options::Local::Fragments;  // into the first of the copies
    options.scanAlways = true;
    variants.emplace_back(
        "rasterTableSums=digits rasterTable=slots rasterTableLocal=fragments rasterNumbering=scan "
        "rasterTableSpread=3, digits of 5 bits",
        options);
    options.tableWords = true;
    variants.emplace_back("rasterTableSums=digits rasterTablePack=words rasterTable=slots rasterTableLocal=fragments "
                          "rasterNumbering=scan rasterTableSpread=3, digits of 5 bits",
                          options);
    options = {};
    options.tableBySlots = true;
    options.tableLocal = RasterPipeline::Options::Local::Fragments;
    options.scanAlways = true;
    variants.emplace_back("rasterTableSums=bits rasterTable=slots rasterTableLocal=fragments rasterNumbering=scan",
                          options);
    options = tuningDefaults();
    variants.emplace_back("Tuning's defaults", options);
    options.tableLocal = RasterPipeline::Options::Local::Points;
    variants.emplace_back("Tuning's defaults, rasterTableLocal=points", options);
    options = {};
    options.resolveInFragments = false;
    options.resolveAhead = 3;
    variants.emplace_back("rasterResolve=vertex rasterResolveAhead=3", options);
    options.resolveCheckInDraw = true;
    variants.emplace_back("rasterResolve=vertex rasterResolveAhead=3 rasterResolveCheck=draw", options);
    options.resolveCheckInDraw = false;
    options.scanAlways = true;  // the batch's last check read after the labels
    options.tableInOneRead = true;
    variants.emplace_back("rasterResolve=vertex rasterResolveAhead=3 rasterNumbering=scan rasterTableReads=1", options);
    options.blockWidth = 3;
    options.columnGroup = 4;
    options.resolveGroup = 3;
    options.borderRounds = 1;
    options.resolveAhead = 2;
    variants.emplace_back("rasterResolve=vertex rasterResolveAhead=2 rasterNumbering=scan rasterColumnGroup=4 "
                          "rasterResolveGroup=3 rasterBorderRounds=1 rasterBlockWidth=3",
                          options);
    options.resolveCheckInDraw = true;
    variants.emplace_back("rasterResolve=vertex rasterResolveAhead=2 rasterResolveCheck=draw rasterNumbering=scan "
                          "rasterColumnGroup=4 rasterResolveGroup=3 rasterBorderRounds=1 rasterBlockWidth=3",
                          options);
    // tile_labels, then resolve_links by each of its ways.
    options = tuningDefaults();
    options.localTiles = true;
    variants.emplace_back("Tuning's defaults, rasterLocal=tiles", options);
    options.resolveAhead = 1;
    options.resolveCheckInDraw = false;
    variants.emplace_back("Tuning's defaults, rasterLocal=tiles rasterResolveAhead=1 rasterResolveCheck=pass", options);
    options.resolveAhead = 3;
    variants.emplace_back("Tuning's defaults, rasterLocal=tiles rasterResolveAhead=3 rasterResolveCheck=pass", options);
    options.resolveInFragments = true;
    options.scanAlways = false;
    variants.emplace_back("Tuning's defaults, rasterLocal=tiles rasterResolve=fragment rasterNumbering=auto", options);
    options = tuningDefaults();
    options.tileRunRows = 1;  // as where the context draws into 4 targets
    variants.emplace_back("Tuning's defaults, tile_labels_runs a tile row a fragment", options);
    return variants;
}

// Labels `image` (one GL_R8 channel) with `pipeline` and requires the
// reference's labels, count and table.
void requirePipelineMatches(RasterPipeline& pipeline, const Image& image, Connectivity connectivity,
                            const Criterion& criterion, const std::string& name) {
    auto input = r8Texture(image);
    auto labels = gl::Texture::allocate(GL_R32UI, image.width, image.height, "labels");
    StageTimer timer(false);
    Labeling actual;
    actual.width = image.width;
    actual.height = image.height;
    const std::uint32_t count = pipeline.label(input, labels, connectivity, criterion, timer);
    actual.components = pipeline.components(timer);
    actual.labels.resize(std::size_t(image.width) * std::size_t(image.height));
    labels.download(actual.labels.data(), GL_RED_INTEGER, GL_UNSIGNED_INT);
    const Labeling expected = labelReference(image, connectivity, criterion);
    INFO(name << " " << glccl::test::describeCase(image, connectivity, criterion) << ": "
              << compareLabelings(expected, actual).describe());
    REQUIRE(count == expected.count());
    REQUIRE(compareLabelings(expected, actual).identical());
}

}  // namespace

TEST_CASE("raster: a table drawn with the last labeling's slots is drawn again where a segment holds more roots",
          "[gl][raster]") {
    // After its first table, component_table by slots draws with the slots
    // the last labeling needed and reads this one's once the table is
    // downloaded: an image whose segments hold more roots than the last
    // one's must be drawn again, or its later roots' points are left out.
    // Bars (a root in a segment), then dots (a root at every other pixel of
    // their row: 8 or 16 in a segment), then each again in turn, by one
    // pipeline.
    HeadlessContext context;
    RasterPipeline::Options options = tuningDefaults();
    REQUIRE(options.tableBySlots);
    RasterPipeline pipeline(options);
    const int width = 64, height = 40;
    Image bars(width, height), dots(width, height);
    for (int y = 0; y < height; y += 4)
        for (int x = 0; x < width / 2; ++x) bars.at(x, y) = 255;
    for (int y = 1; y < height; y += 8)
        for (int x = 0; x < width; x += 2) dots.at(x, y) = 255;
    for (Connectivity connectivity : kBoth)
        for (int round = 0; round < 2; ++round) {
            requirePipelineMatches(pipeline, bars, connectivity, Criterion::binary(), "bars");
            requirePipelineMatches(pipeline, dots, connectivity, Criterion::binary(), "dots after bars");
        }
}

TEST_CASE("raster: a table of fewer entries than the last clears and draws only its own rows", "[gl][raster]") {
    // A pipeline's table keeps its room from one labeling to the next;
    // component_table clears and draws only the rows the entries fill. Noise
    // (many rows of entries), then three bars (one row: the rows below hold
    // the noise's entries), then noise again, by one pipeline at each
    // connectivity: every table must be the reference's.
    HeadlessContext context;
    const int width = 256, height = 128;
    Image noise(width, height), bars(width, height);
    std::uint32_t state = 11;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            state = state * 1664525u + 1013904223u;
            noise.at(x, y) = (state >> 31) ? 255 : 0;
        }
    for (int y = 10; y < height; y += 40)
        for (int x = 3; x < width - 3; ++x) bars.at(x, y) = bars.at(x, y + 1) = 255;
    for (Connectivity connectivity : kBoth) {
        RasterPipeline pipeline(tuningDefaults());
        requirePipelineMatches(pipeline, noise, connectivity, Criterion::binary(), "noise");
        requirePipelineMatches(pipeline, bars, connectivity, Criterion::binary(), "bars after noise");
        requirePipelineMatches(pipeline, noise, connectivity, Criterion::binary(), "noise after bars");
    }
}

TEST_CASE("raster: the table in copies where the last table had a component over many segments stays exact",
          "[gl][raster]") {
    // With Tuning's defaults (rasterTableSpread auto) a pipeline whose last
    // table had a component whose box covers 4096 of component_table's
    // segments (32 x 4 pixels at 8-connectivity, 32 x 2 at 4) draws the
    // next table into copies, folded where it is downloaded: two with 2x2
    // nodes, four with 2x1. Noise of 512 x 1024 around a frame that spans
    // it, labeled three times by one pipeline at each connectivity (the
    // first table in one copy, the next two in copies), each image a
    // different noise.
    HeadlessContext context;
    RasterPipeline::Options options = tuningDefaults();
    REQUIRE(options.tableSpread == 0);
    const int width = 512, height = 1024;
    std::uint32_t state = 7;
    for (const auto& [connectivity, copies] : {std::pair{Connectivity::Eight, 2}, std::pair{Connectivity::Four, 4}}) {
        RasterPipeline pipeline(options);
        for (int round = 0; round < 3; ++round) {
            Image image(width, height);
            for (int y = 0; y < height; ++y)
                for (int x = 0; x < width; ++x) {
                    state = state * 1664525u + 1013904223u;
                    const bool frame = x == 0 || y == 0 || x == width - 1 || y == height - 1;
                    image.at(x, y) = frame || (state >> 31) ? 255 : 0;
                }
            const std::string what = "noise in a frame at " + std::to_string(int(connectivity)) +
                                     "-connectivity, round " + std::to_string(round);
            requirePipelineMatches(pipeline, image, connectivity, Criterion::binary(), what);
            INFO(what);
            CHECK(pipeline.tableCopies() == (round == 0 ? 1 : copies));
        }
    }
}

TEST_CASE("raster: vertical_runs takes 32 hops a pass, up to 64 where two passes of them reach a grid's height",
          "[gl][raster]") {
    HeadlessContext context;
    RasterPipeline pipeline;
    // 8-connectivity's nodes are 2x2 pixels, 4-connectivity's 2x1 (a grid
    // as high as the image). Two passes of h hops reach a node h^2 rows
    // below the top of its run, on a grid h^2 + 1 high: the hops for grids
    // 1025, 1026, 3000, 4097 and 4098 nodes high.
    const struct {
        int height;
        Connectivity connectivity;
        int hops;
    } cases[] = {{2050, Connectivity::Eight, 32}, {2052, Connectivity::Eight, 33}, {3000, Connectivity::Four, 55},
                 {8194, Connectivity::Eight, 64}, {4098, Connectivity::Four, 32}, {2, Connectivity::Eight, 32}};
    for (const auto& c : cases) {
        pipeline.reserve(3, c.height, raster::NodeSize::of(c.connectivity, Criterion::binary()));
        INFO("a 3x" << c.height << " image at " << int(c.connectivity) << "-connectivity");
        CHECK(pipeline.runHops() == c.hops);
    }
    RasterPipeline::Options options;
    options.runHops = 5;
    pipeline.setOptions(options);
    CHECK(pipeline.runHops() == 5);
    // Columns whose runs span the image, broken in a few places, labeled
    // with the hops of their height: runs longer than one pass reaches.
    pipeline.setOptions({});
    for (const auto& [height, connectivity] : {std::pair{3000, Connectivity::Four}, std::pair{8190, Connectivity::Eight}}) {
        Image image(5, height);
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < 5; x += 2)
                if ((y + 1) % (1000 + 7 * x) != 0) image.at(x, y) = 255;
        requirePipelineMatches(pipeline, image, connectivity, Criterion::binary(), "columns");
        CHECK(pipeline.runHops() > 32);
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("raster: every variant of the raster tuning labels exactly", "[gl][raster]") {
    HeadlessContext context;
    for (const auto& [name, options] : rasterVariants()) {
        INFO("variant: " << name);
        RasterPipeline::Options withBands = options;
        withBands.bandPixels = 5000;  // components past float precision take component_bits
        RasterPipeline pipeline(withBands);
        for (const char* family : {"noise50", "spiral", "comb", "ones"})
            for (Connectivity connectivity : kBoth)
                requirePipelineMatches(pipeline, generateFamily(family, 130, 67, 11), connectivity,
                                       Criterion::binary(), family);
        std::mt19937_64 random(53);
        for (int i = 0; i < 16; ++i) {
            const int width = 1 + int(random() % 90), height = 1 + int(random() % 90);
            const double density = double(random() % 101) / 100.0;
            requirePipelineMatches(pipeline, randomImage(width, height, density, 2, 1, random()), kBoth[i % 2],
                                   Criterion::binary(), "random " + std::to_string(i));
            requirePipelineMatches(pipeline, randomImage(width, height, 0.7, 3, 1, random()), kBoth[i % 2],
                                   Criterion::segments(), "segments " + std::to_string(i));
        }
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("raster: tile_labels at sizes around its tiles' borders, partial tiles included", "[gl][raster]") {
    HeadlessContext context;
    // tile_labels_runs takes as many tile rows a fragment as the context
    // draws the targets of (llvmpipe: 8 targets, 4 rows of 8-row tiles, 2
    // of 16-row ones), one where it draws only a row's: both here, and 2
    // rows of 8-row tiles. Nodes of one pixel row take tiles of 8, 16 or 32
    // rows (rasterTileRows): 16 and 32 forced, and auto, which switches
    // between them by the image before.
    const int runRows = GENERATE(0, 1, 2);
    const int tileRows = GENERATE(0, 16, 32);
    INFO("tileRunRows " << runRows << ", tileRows " << tileRows);
    RasterPipeline::Options options = tuningDefaults();
    options.localTiles = true;
    options.tileRunRows = runRows;
    options.tileRows = tileRows;
    RasterPipeline pipeline(options);
    // A tile is 32 x 16 nodes at 8-connectivity (2x2 nodes, 64 x 32
    // pixels) and 32 x 8 or 32 x 16 otherwise: 64 x 8 or 64 x 16 pixels at
    // 4 (2x1 nodes), 32 x 8 or 32 x 16 for single pixels (segments).
    const std::pair<int, int> sizes[] = {{64, 32}, {63, 31}, {65, 33}, {128, 64}, {129, 65}, {64, 8},  {65, 9},
                                         {64, 16}, {65, 17}, {62, 200}, {300, 17}, {1, 100}, {100, 1}, {33, 47}};
    for (const char* family : {"noise50", "spiral", "comb", "rings", "corridor", "staircase", "checkerboard", "ones"})
        for (auto [width, height] : sizes)
            for (Connectivity connectivity : kBoth)
                requirePipelineMatches(pipeline, generateFamily(family, width, height, 5), connectivity,
                                       Criterion::binary(), family);
    std::mt19937_64 random(20261129);
    for (int i = 0; i < 40; ++i) {
        const int width = 1 + int(random() % 200), height = 1 + int(random() % 120);
        requirePipelineMatches(pipeline, randomImage(width, height, 0.7, 3, 1, random()), kBoth[i % 2],
                               Criterion::segments(), "segments " + std::to_string(i));
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("raster: tiles of 32 rows where the last labeling had a few components over the image", "[gl][raster]") {
    // rasterTileRows auto takes 32 rows for nodes of one pixel row where the
    // last labeling had fewer components than areas of 65536 nodes: after
    // an 800 x 500 image of one component at 4-connectivity (200 000 2x1
    // nodes), a spiral, the large family and noise are labeled in turn, each
    // in the tiles the one before chose (32 rows after the first three),
    // and must equal the reference; after noise, 8 rows again.
    HeadlessContext context;
    RasterPipeline::Options options = tuningDefaults();
    REQUIRE(options.tileRows == 0);
    RasterPipeline pipeline(options);
    const raster::NodeSize rowNodes = raster::NodeSize::of(Connectivity::Four, Criterion::binary());
    const int width = 800, height = 500;
    for (const char* family : {"ones", "spiral", "large"}) {
        requirePipelineMatches(pipeline, generateFamily(family, width, height, 3), Connectivity::Four,
                               Criterion::binary(), family);
        INFO(family);
        CHECK(pipeline.tileRows(rowNodes) == 32);
    }
    requirePipelineMatches(pipeline, generateFamily("noise50", width, height, 3), Connectivity::Four,
                           Criterion::binary(), "noise50 in tiles of 32 rows");
    CHECK(pipeline.tileRows(rowNodes) == 8);
}

TEST_CASE("raster: the process's Tuning picks the raster engine's variants", "[gl][raster]") {
    // One dot is numbered by the stencil routing, unless the Tuning asks for
    // the scan; the labels are the reference's either way.
    Image image(40, 30);
    image.at(7, 5) = 255;
    const Tuning before = tuning();
    for (const bool scan : {false, true}) {
        Tuning chosen = before;
        chosen.set("rasterNumbering", scan ? "scan" : "auto");
        chosen.set("rasterTable", "runs");
        chosen.set("rasterResolve", "vertex");
        chosen.set("rasterColumnGroup", "2");
        chosen.set("rasterResolveGroup", "2");
        setTuning(chosen);
        StageTimings timings;
        requireMatchesReference(session(), image, Connectivity::Eight, Criterion::binary(), "one dot", &timings);
        const std::vector<std::string> names = stageNames(timings);
        INFO("scan: " << scan);
        CHECK(std::count(names.begin(), names.end(), "scan_roots") == (scan ? 1 : 0));
        CHECK(std::count(names.begin(), names.end(), "route_roots") == (scan ? 0 : 1));
    }
    setTuning(before);
}

namespace {

std::string describeWork(const raster::IssuedWork& work, std::int64_t gridTexels) {
    return std::to_string(work.draws) + " draws, " + std::to_string(work.fragments) + " fragments (" +
           std::to_string(double(work.fragments) / double(gridTexels)) + " node-grid passes), " +
           std::to_string(work.points) + " points, " + std::to_string(work.copies) + " copies, " +
           std::to_string(work.waits) + " waits, " + std::to_string(work.readBytes) + " table bytes read";
}

}  // namespace

// Not a check: what one label() and one components() issue at the sizes
// and families of the raster benchmarks (gl_tests "[raster-work]" prints
// it), to count what a change removes. RASTER_WORK_AHEAD,
// RASTER_WORK_BLOCK_WIDTH, RASTER_WORK_COLUMN_DRAWS, RASTER_WORK_CHECK,
// RASTER_WORK_TABLE_SUMS, RASTER_WORK_TABLE_PACK, RASTER_WORK_COLUMN_GROUP
// and RASTER_WORK_SCATTER_GROUP set rasterResolveAhead, rasterBlockWidth,
// rasterColumnDraws, rasterResolveCheck, rasterTableSums, rasterTablePack,
// rasterColumnGroup and rasterScatterGroup; RASTER_WORK_SIZE (WxH) and
// RASTER_WORK_FAMILY count one size and one family instead.
TEST_CASE("raster: the work a labeling issues", "[.][raster-work]") {
    HeadlessContext context;
    const char* ahead = std::getenv("RASTER_WORK_AHEAD");
    RasterPipeline::Options options = tuningDefaults();
    if (ahead != nullptr) options.resolveAhead = std::atoi(ahead);
    const char* blockWidth = std::getenv("RASTER_WORK_BLOCK_WIDTH");
    if (blockWidth != nullptr) options.blockWidth = std::atoi(blockWidth);
    const char* draws = std::getenv("RASTER_WORK_COLUMN_DRAWS");
    if (draws != nullptr) options.columnDraws = std::atoi(draws);
    const char* check = std::getenv("RASTER_WORK_CHECK");
    if (check != nullptr) options.resolveCheckInDraw = std::string(check) == "draw";
    const char* sums = std::getenv("RASTER_WORK_TABLE_SUMS");
    if (sums != nullptr) options.tableDigits = std::string(sums) == "digits";
    const char* pack = std::getenv("RASTER_WORK_TABLE_PACK");
    if (pack != nullptr) options.tableWords = std::string(pack) == "words";
    const char* columnGroup = std::getenv("RASTER_WORK_COLUMN_GROUP");
    if (columnGroup != nullptr) options.columnGroup = std::atoi(columnGroup);
    const char* scatterGroup = std::getenv("RASTER_WORK_SCATTER_GROUP");
    if (scatterGroup != nullptr) options.scatterGroup = std::atoi(scatterGroup);
    RasterPipeline pipeline(options);
    std::vector<std::pair<int, int>> sizes = {{2048, 2048}, {1920, 1080}};
    if (const char* size = std::getenv("RASTER_WORK_SIZE")) {
        int width = 0, height = 0;
        REQUIRE(std::sscanf(size, "%dx%d", &width, &height) == 2);
        sizes = {{width, height}};
    }
    std::vector<std::string> families = {"noise50", "sparse_disks", "dense_disks", "large"};
    if (const char* family = std::getenv("RASTER_WORK_FAMILY")) families = {family};
    for (auto [width, height] : sizes)
        for (const std::string& family : families)
            for (Connectivity connectivity : kBoth) {
                const Image image = generateFamily(family, width, height, 1);
                auto input = r8Texture(image);
                auto labels = gl::Texture::allocate(GL_R32UI, width, height, "labels");
                StageTimer timer(false);
                pipeline.label(input, labels, connectivity, Criterion::binary(), timer);  // warm: programs built
                const raster::NodeSize shape = raster::NodeSize::of(connectivity, Criterion::binary());
                const std::int64_t grid =
                    std::int64_t((width + shape.width - 1) / shape.width) * ((height + shape.height - 1) / shape.height);
                raster::issuedWork() = {};
                const std::uint32_t count = pipeline.label(input, labels, connectivity, Criterion::binary(), timer);
                const raster::IssuedWork label = raster::issuedWork();
                raster::issuedWork() = {};
                const std::vector<Component> table = pipeline.components(timer);
                const raster::IssuedWork components = raster::issuedWork();
                WARN(family << " " << width << "x" << height << " c" << (connectivity == Connectivity::Eight ? 8 : 4)
                            << ", " << count << " components, " << pipeline.resolveRounds()
                            << " resolve rounds\n  label(): " << describeWork(label, grid)
                            << "\n  components(): " << describeWork(components, grid));
                CHECK(table.size() == count);
            }
}

// The compute backend against the CPU reference: every generated family at
// odd sizes, 1xN, Nx1, 1x1, thousands of small random images, every
// criterion, both connectivities, every input format, and repeats that must
// be identical (its unions race on atomics).

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "gl_objects.hpp"
#include "gl_support.hpp"
#include "known_route.hpp"
#include "glccl/generate.hpp"
#include "glccl/texture.hpp"

using namespace glccl;
using glccl::test::offscreen;
using glccl::test::session;
using glccl::test::ShaderFolder;

namespace {

constexpr Connectivity kBoth[] = {Connectivity::Eight, Connectivity::Four};

LabelOptions computeOptions(Connectivity connectivity, Criterion criterion) {
    LabelOptions options;
    options.backend = Backend::Compute;
    options.connectivity = connectivity;
    options.criterion = criterion;
    return options;
}

void requireComputeMatchesReference(const Image& image, Connectivity connectivity, const Criterion& criterion,
                                    const std::string& name) {
    const Labeling expected = labelReference(image, connectivity, criterion);
    const Labeling actual = session().label(image, computeOptions(connectivity, criterion));
    const Comparison comparison = compareLabelings(expected, actual);
    INFO(name << " " << glccl::test::describeCase(image, connectivity, criterion) << ": " << comparison.describe());
    REQUIRE(session().backend() == Backend::Compute);
    REQUIRE(comparison.identical());
}

}  // namespace

TEST_CASE("compute: every generated family at odd sizes", "[gl][compute]") {
    for (const std::string& family : generatedFamilies())
        for (auto [w, h] : {std::pair{131, 97}, std::pair{64, 64}, std::pair{333, 70}})
            for (Connectivity connectivity : kBoth)
                requireComputeMatchesReference(generateFamily(family, w, h, 7), connectivity, Criterion::binary(),
                                               family);
}

TEST_CASE("compute: lines, single pixels and tile-sized images", "[gl][compute]") {
    std::mt19937_64 random(11);
    for (auto [w, h] : {std::pair{1, 1}, std::pair{1, 2}, std::pair{2, 1}, std::pair{1, 300}, std::pair{300, 1},
                        std::pair{64, 64}, std::pair{65, 65}, std::pair{63, 127}, std::pair{2049, 3}})
        for (double density : {0.0, 0.5, 1.0})
            for (Connectivity connectivity : kBoth)
                requireComputeMatchesReference(randomImage(w, h, density, 2, 1, random()), connectivity,
                                               Criterion::binary(), "line");
}

TEST_CASE("compute: thousands of small random images", "[gl][compute]") {
    std::mt19937_64 random(2024);
    for (int i = 0; i < 2000; ++i) {
        const int w = 1 + int(random() % 90), h = 1 + int(random() % 90);
        const double density = double(random() % 101) / 100.0;
        const Connectivity connectivity = kBoth[i % 2];
        const Criterion criterion = i % 3 == 0 ? Criterion::binary() : i % 3 == 1 ? Criterion::segments()
                                                                                  : Criterion::thresholded(40);
        const int levels = criterion.kind == Criterion::Kind::Binary ? 2 : 4;
        requireComputeMatchesReference(randomImage(w, h, density, levels, 1, random()), connectivity, criterion,
                                       "random " + std::to_string(i));
    }
}

TEST_CASE("compute: segments and threshold on 1 and 4 channels", "[gl][compute]") {
    std::mt19937_64 random(5);
    for (Connectivity connectivity : kBoth) {
        for (int channels : {1, 4}) {
            const Image image = randomImage(211, 157, 0.9, 5, channels, random());
            if (channels == 1) requireComputeMatchesReference(image, connectivity, Criterion::segments(), "segments");
            for (int t : {0, 30, 100, 255})
                requireComputeMatchesReference(image, connectivity, Criterion::thresholded(t), "threshold");
        }
    }
}

TEST_CASE("compute: components spanning many tiles are summed exactly", "[gl][compute]") {
    // A spiral and a comb cross every tile border; "ones" is one component
    // whose coordinate sums need more than 32 bits.
    for (const char* family : {"spiral", "comb", "ones", "corridor", "staircase"})
        for (Connectivity connectivity : kBoth)
            requireComputeMatchesReference(generateFamily(family, 1500, 1100, 3), connectivity, Criterion::binary(),
                                           family);
}

TEST_CASE("compute: GL_R8UI, GL_R16 and GL_R32F inputs in their own units", "[gl][compute]") {
    // Values 0..3 scaled into each format's units; the reference sees 0..3.
    const Image image = randomImage(97, 61, 0.8, 4, 1, 99);
    HeadlessContext context;
    Labeler labeler;
    std::vector<std::uint8_t> bytes(image.pixels);
    std::vector<std::uint16_t> shorts(image.pixels.begin(), image.pixels.end());
    std::vector<float> floats(image.pixels.begin(), image.pixels.end());
    struct Case {
        GLenum internal, format, type;
        const void* data;
        int thresholdScale;
    };
    const Case cases[] = {{GL_R8UI, GL_RED_INTEGER, GL_UNSIGNED_BYTE, bytes.data(), 1},
                          {GL_R16, GL_RED, GL_UNSIGNED_SHORT, shorts.data(), 1},
                          {GL_R32F, GL_RED, GL_FLOAT, floats.data(), 1}};
    for (const Case& c : cases) {
        auto texture = gl::Texture::allocate(c.internal, image.width, image.height, "test input");
        texture.upload(c.data, c.format, c.type);
        for (Connectivity connectivity : kBoth)
            for (Criterion criterion : {Criterion::binary(), Criterion::segments(), Criterion::thresholded(1)}) {
                labeler.label(texture.id(), computeOptions(connectivity, criterion));
                const Labeling actual = labeler.result();
                const Labeling expected = labelReference(image, connectivity, criterion);
                INFO("format " << c.internal << " " << criterion.toString() << " " << int(connectivity) << ": "
                               << compareLabelings(expected, actual).describe());
                CHECK(compareLabelings(expected, actual).identical());
            }
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("compute: repeated labelings are identical, across sizes", "[gl][compute]") {
    // Many frames of one size, another size, the first again: the buffers
    // are reused and every repeat equals the reference.
    std::mt19937_64 random(77);
    const Image first = randomImage(517, 301, 0.55, 2, 1, random());
    const Image second = randomImage(130, 700, 0.45, 2, 1, random());
    for (const Image* image : {&first, &second, &first}) {
        const Labeling expected = labelReference(*image, Connectivity::Eight, Criterion::binary());
        for (int repeat = 0; repeat < 10; ++repeat) {
            const Labeling actual = session().label(*image, computeOptions(Connectivity::Eight, Criterion::binary()));
            REQUIRE(compareLabelings(expected, actual).identical());
        }
    }
}

TEST_CASE("compute: timings name one stage per compute program", "[gl][compute]") {
    const Image image = generateFamily("noise50", 200, 150, 1);
    StageTimings timings;
    session().label(image, computeOptions(Connectivity::Eight, Criterion::binary()), &timings);
    std::vector<std::string> names;
    for (const StageTime& t : timings) names.push_back(t.stage);
    CHECK(names == std::vector<std::string>{"local_merge", "merge_borders", "count_roots",
                                            "final_labels", "download_table"});
}

TEST_CASE("compute: auto picks compute on a 4.3 GPU, raster on 3.3, cpu on a software rasterizer", "[gl][compute]") {
    ContextInfo gpu;
    gpu.renderer = "NVIDIA H200/PCIe/SSE2";
    gpu.version = "4.5.0 NVIDIA 580.159.04";
    gpu.major = 4;
    gpu.minor = 5;
    CHECK(whyUnavailable(Backend::Compute, gpu).empty());
    CHECK(resolveBackend(Backend::Auto, gpu) == Backend::Compute);
    ContextInfo old = gpu;
    old.version = "3.3 (test)";
    old.major = 3;
    old.minor = 3;
    CHECK(whyUnavailable(Backend::Compute, old) ==
          "it needs OpenGL 4.3 (compute shaders), the context is 3.3 (test); the raster backend runs there");
    CHECK(resolveBackend(Backend::Auto, old) == Backend::Raster);
    ContextInfo software = gpu;
    software.renderer = "llvmpipe (LLVM 15.0.6, 256 bits)";
    CHECK(resolveBackend(Backend::Auto, software) == Backend::Cpu);
    for (Backend named : concreteBackends()) CHECK(resolveBackend(named, software) == named);
    // The context the tests run in.
    const ContextInfo& here = offscreen().context().info();
    CHECK(resolveBackend(Backend::Auto, here) == (isSoftwareRenderer(here) ? Backend::Cpu : Backend::Compute));
}

TEST_CASE("compute: an OpenGL 4.3 context labels like the reference", "[gl][compute][.mesa43]") {
    // Registered by tests/CMakeLists.txt under MESA_GL_VERSION_OVERRIDE=4.3,
    // where the engine reads its table without OpenGL 4.5's sub-image reads.
    HeadlessContext::Options options;
    options.major = 4;
    options.minor = 3;
    HeadlessContext context(options);
    const ContextInfo& info = context.info();
    if (const char* pinned = std::getenv("MESA_GL_VERSION_OVERRIDE"); pinned && std::string(pinned) == "4.3" &&
                                                                      info.vendor.find("Mesa") != std::string::npos) {
        REQUIRE(info.major == 4);
        REQUIRE(info.minor == 3);
    }
    Labeler labeler;
    std::mt19937_64 random(43);
    for (int i = 0; i < 40; ++i) {
        const Image image = i % 2 ? generateFamily("checkerboard", 97 + i, 61, 1)  // > 4096 components at 4
                                  : randomImage(1 + int(random() % 150), 1 + int(random() % 150), 0.5, 2, 1, random());
        const Connectivity connectivity = kBoth[i % 4 / 2];
        ImageTexture texture(image);
        labeler.label(texture.id(), computeOptions(connectivity, Criterion::binary()));
        const Labeling expected = labelReference(image, connectivity, Criterion::binary());
        const Labeling actual = labeler.result();
        INFO(glccl::test::describeCase(image, connectivity, Criterion::binary()) << ": "
                                                                                 << compareLabelings(expected, actual).describe());
        REQUIRE(compareLabelings(expected, actual).identical());
    }
}

TEST_CASE("compute: Tuning::shaderDir replaces a built-in shader file, and only where the folder has one",
          "[gl][compute]") {
    namespace fs = std::filesystem;
    const ShaderFolder shaders("glccl_shader_dir");
    const fs::path& folder = shaders.path();
    const Image image = randomImage(70, 45, 0.5, 2, 1, 7);
    auto labelsLikeTheReference = [&image] {
        HeadlessContext context;
        Labeler labeler;
        ImageTexture texture(image);
        labeler.label(texture.id(), computeOptions(Connectivity::Eight, Criterion::binary()));
        const Labeling expected = labelReference(image, Connectivity::Eight, Criterion::binary());
        REQUIRE(compareLabelings(expected, labeler.result()).identical());
    };

    // A folder without the stage's file: the built-in shaders label as before.
    shaders.use();
    labelsLikeTheReference();
    // A stage file that includes shared code (final_labels.comp: #include
    // "label_table.glsl"), copied there from the sources as it is, labels as
    // the built-in one: the folder's files are expanded as the build does.
    fs::copy_file(fs::path(GLCCL_TEST_DATA) / ".." / ".." / "glsl" / "final_labels.comp", folder / "final_labels.comp");
    labelsLikeTheReference();
    // A local_merge.comp there is compiled instead of the built-in one.
    std::ofstream(folder / "local_merge.comp") << "this is not GLSL\n";
    {
        HeadlessContext context;
        Labeler labeler;
        ImageTexture texture(image);
        REQUIRE_THROWS_WITH(labeler.label(texture.id(), computeOptions(Connectivity::Eight, Criterion::binary())),
                            Catch::Contains("local_merge"));
    }
}

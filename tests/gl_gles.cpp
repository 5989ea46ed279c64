// The raster engine in an OpenGL ES 3 context (EGL_OPENGL_ES_API, llvmpipe
// in CI), against the CPU reference, exact: the corpus and random checks of
// the desktop raster tests (gl_raster_pipeline.cpp), at sizes that keep the
// run short, and a Labeler made in a host's ES context on its GL_R8 and
// GL_RGBA8 textures. tests/CMakeLists.txt runs the pipeline's own case
// again with Mesa pinned to ES 3.0, so no ES 3.1 or 3.2 feature slips in.
// Then what an ES context has only by extension: 16-bit gray images (GL_R16
// with EXT_texture_norm16, else GL_R16UI, both labeled here), stage timings
// (EXT_disjoint_timer_query). Then the compute engine in ES 3.1 and newer
// (images and volumes through a Session, a Labeler on a host's textures),
// and its refusal, naming raster, in ES 3.0. The command line's --gl es
// runs without each extension in tests/gl_image_formats.py (Mesa's
// MESA_EXTENSION_OVERRIDE).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/raster/raster_pipeline.hpp"
#include "gl.hpp"
#include "gl_objects.hpp"
#include "gl_support.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/labeler.hpp"
#include "glccl/measure.hpp"
#include "glccl/region_properties.hpp"
#include "glccl/texture.hpp"
#include "measure_support.hpp"
#include "skip.hpp"
#include "stage_timer.hpp"

using namespace glccl;

namespace {

const Connectivity kBoth[] = {Connectivity::Four, Connectivity::Eight};

HeadlessContext::Options esOptions() {
    HeadlessContext::Options options;
    options.es = true;
    options.major = 3;
    options.minor = 0;
    return options;
}

// One Session in an ES 3 context for the process (never destroyed, as
// gl_support.hpp's). The test is skipped where EGL gives no ES 3 context,
// but not on Mesa, which always offers one: there a failure to make it is
// a failure of the context code, not a reason to skip.
Session& esSession() {
    static Session* session = nullptr;
    static std::string why;
    if (!session && why.empty()) {
        try {
            Session::Options options;
            options.context = esOptions();
            auto made = std::make_unique<Session>(options);
            made->offscreen();  // the context itself, made now
            session = made.release();
        } catch (const Error& error) {
            why = error.what();
        }
    }
    if (!session) {
        const ContextInfo& desktop = test::offscreen().context().info();
        const bool mesa = desktop.version.find("Mesa") != std::string::npos;
        if (mesa) FAIL("Mesa offers OpenGL ES 3 through EGL, but no ES context was made: " + why);
        test::skipTest("no OpenGL ES 3 context here: " + why);
    }
    return *session;
}

// `labeler` labels `texture`, which holds `image`, as the reference does:
// the count it returns and the labels it downloads.
void requireTextureLabels(Labeler& labeler, GLuint texture, const Image& image, const LabelOptions& options,
                          const std::string& name) {
    const std::uint32_t count = labeler.label(texture, options);
    const Labeling expected = labelReference(image, options.connectivity, options.criterion);
    REQUIRE(expected.count() > 0);
    CHECK(count == expected.count());
    const Labeling actual = test::downloadResult(labeler, image.width, image.height);
    INFO(name << ", connectivity " << int(options.connectivity) << ": " << compareLabelings(expected, actual).describe());
    CHECK(compareLabelings(expected, actual).identical());
}

// A headless ES 3 context of the test's own, skipped where the machine makes
// none; on Mesa, which offers ES through EGL, not making one is a failure.
std::unique_ptr<HeadlessContext> esContextOrSkip() {
    try {
        return std::make_unique<HeadlessContext>(esOptions());
    } catch (const Error& error) {
        const bool mesa = test::offscreen().context().info().version.find("Mesa") != std::string::npos;
        if (mesa) FAIL(std::string("Mesa offers OpenGL ES 3 through EGL, but no ES context was made: ") + error.what());
        test::skipTest(std::string("no OpenGL ES 3 context here: ") + error.what());
    }
    return nullptr;
}

// `backend` labels `image` in the ES context as the reference does.
void requireMatchesIn(Backend backend, const Image& image, Connectivity connectivity, const Criterion& criterion,
                      const std::string& name) {
    LabelOptions options;
    options.backend = backend;
    options.connectivity = connectivity;
    options.criterion = criterion;
    const Labeling expected = labelReference(image, connectivity, criterion);
    const Labeling actual = esSession().label(image, options);
    REQUIRE(esSession().backend() == backend);
    const Comparison comparison = compareLabelings(expected, actual);
    INFO(name << " " << test::describeCase(image, connectivity, criterion) << ": " << comparison.describe());
    REQUIRE(comparison.identical());
}

void requireRasterMatches(const Image& image, Connectivity connectivity, const Criterion& criterion,
                          const std::string& name) {
    requireMatchesIn(Backend::Raster, image, connectivity, criterion, name);
}

}  // namespace

TEST_CASE("raster on GLES 3.0: the context is ES and labels every generated family", "[gl][gles]") {
    const ContextInfo& info = esSession().offscreen().context().info();
    INFO("context: " << info.version);
    REQUIRE(info.es);
    REQUIRE(!info.coreProfile);
    REQUIRE(info.version.rfind("OpenGL ES", 0) == 0);
    REQUIRE(info.major >= 3);
    const std::pair<int, int> sizes[] = {{1, 1}, {1, 37}, {37, 1}, {61, 47}, {130, 67}};
    for (const std::string& family : generatedFamilies())
        for (auto [width, height] : sizes)
            for (Connectivity connectivity : kBoth)
                requireRasterMatches(generateFamily(family, width, height, 7), connectivity, Criterion::binary(), family);
    // More roots than the stencil routing takes (255): the scan numbers them.
    requireRasterMatches(generateFamily("sparse_disks", 300, 200, 3), Connectivity::Eight, Criterion::binary(),
                         "sparse_disks");
    requireRasterMatches(randomImage(200, 150, 0.3, 2, 1, 12), Connectivity::Four, Criterion::binary(), "many roots");
}

TEST_CASE("raster on GLES 3.0: sizes that cross block borders and many blocks", "[gl][gles]") {
    const std::pair<int, int> sizes[] = {{300, 200}, {1000, 23}, {17, 513}, {257, 129}};
    for (const char* family : {"noise50", "spiral", "comb", "corridor", "rings", "sparse_disks"})
        for (auto [width, height] : sizes)
            for (Connectivity connectivity : kBoth)
                requireRasterMatches(generateFamily(family, width, height, 3), connectivity, Criterion::binary(), family);
}

TEST_CASE("raster on GLES 3.0: random images, segments and thresholds", "[gl][gles]") {
    std::mt19937_64 random(20261125);
    for (int i = 0; i < 400; ++i) {
        const int width = 1 + int(random() % 24), height = 1 + int(random() % 24);
        const double density = double(random() % 101) / 100.0;
        requireRasterMatches(randomImage(width, height, density, 2, 1, random()), kBoth[i % 2], Criterion::binary(),
                             "random " + std::to_string(i));
    }
    for (int i = 0; i < 60; ++i) {
        const int width = 1 + int(random() % 40), height = 1 + int(random() % 40);
        const Connectivity connectivity = kBoth[i % 2];
        const int levels = 2 + int(random() % 4);
        requireRasterMatches(randomImage(width, height, 0.7, levels, 1, random()), connectivity, Criterion::segments(),
                             "segments");
        requireRasterMatches(randomImage(width, height, 0.7, levels, 1, random()), connectivity,
                             Criterion::thresholded(int(random() % 3) * 60), "gray threshold");
        requireRasterMatches(randomImage(width, height, 0.8, levels, 4, random()), connectivity,
                             Criterion::thresholded(int(random() % 4) * 40), "color threshold");
    }
}

TEST_CASE("raster on GLES 3.0: a Labeler in a host's ES context labels its GL_R8 and GL_RGBA8 textures",
          "[gl][gles]") {
    const std::unique_ptr<HeadlessContext> context = esContextOrSkip();
    REQUIRE(context->info().es);
    Labeler labeler;
    // Auto: whichever engine runs here (raster, compute from ES 3.1, the cpu
    // engine on a software rasterizer); every one gives the same labels.
    const Image gray = generateFamily("dense_disks", 120, 90, 4);
    auto r8 = gl::Texture::allocate(GL_R8, gray.width, gray.height, "test");
    r8.upload(gray.pixels.data(), GL_RED, GL_UNSIGNED_BYTE);
    for (Connectivity connectivity : kBoth) {
        LabelOptions options;
        options.connectivity = connectivity;
        requireTextureLabels(labeler, r8.id(), gray, options, "GL_R8");
    }
    const Image color = randomImage(57, 43, 0.8, 3, 4, 77);
    Image red(color.width, color.height, 1);
    for (int y = 0; y < color.height; ++y)
        for (int x = 0; x < color.width; ++x) red.at(x, y) = color.at(x, y, 0);
    auto rgba8 = gl::Texture::allocate(GL_RGBA8, color.width, color.height, "test");
    rgba8.upload(color.pixels.data(), GL_RGBA, GL_UNSIGNED_BYTE);
    for (Criterion criterion : {Criterion::binary(), Criterion::segments()}) {
        for (Connectivity connectivity : kBoth) {
            LabelOptions options;
            options.backend = Backend::Raster;
            options.connectivity = connectivity;
            options.criterion = criterion;
            labeler.label(rgba8.id(), options);
            const Labeling actual = test::downloadResult(labeler, color.width, color.height);
            const Labeling expected = labelReference(red, connectivity, criterion);
            INFO("GL_RGBA8 " << criterion.toString() << " " << int(connectivity) << ": "
                             << compareLabelings(expected, actual).describe());
            CHECK(compareLabelings(expected, actual).identical());
        }
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("raster on GLES 3.0: every pass of the pipeline runs in an ES 3.0 context", "[gl][gles]") {
    // The pipeline itself, on textures it is handed: ES 3.0 cannot say a
    // texture's size or format (glGetTexLevelParameteriv is ES 3.1), so a
    // Labeler there learns them from nothing. Mesa gives its newest ES for
    // a 3.0 request; tests/CMakeLists.txt runs this case again with
    // MESA_GLES_VERSION_OVERRIDE=3.0, where the context must be 3.0 itself.
    const std::unique_ptr<HeadlessContext> context = esContextOrSkip();
    const ContextInfo& info = context->info();
    INFO("context: " << info.version);
    REQUIRE(info.es);
    const char* pinned = std::getenv("MESA_GLES_VERSION_OVERRIDE");
    if (pinned && std::string(pinned) == "3.0" && info.version.find("Mesa") != std::string::npos) {
        REQUIRE(info.major == 3);
        REQUIRE(info.minor == 0);
    }
    // Tiny bands: components past float precision take component_bits. The
    // defaults, then every variant of glccl::Tuning's raster knobs at once,
    // with small blocks and with one.
    RasterPipeline::Options options;
    options.bandPixels = 5000;
    RasterPipeline::Options variants = options;
    variants.resolveInFragments = !options.resolveInFragments;
    variants.tableByRuns = !options.tableByRuns;
    variants.columnDraws = options.columnDraws == 1 ? 3 : 1;
    variants.scanAlways = !options.scanAlways;
    variants.borderRounds = 1;
    variants.blockWidth = 3;
    variants.bitsSpread = 6;
    variants.tableSpread = 5;
    variants.resolveAhead = 3;  // no conditional rendering in ES: a wait each round
    variants.tableInOneRead = true;
    RasterPipeline::Options oneBlock = variants;
    oneBlock.blockWidth = 1 << 14;
    oneBlock.columnDraws = 2;
    oneBlock.resolveCheckInDraw = true;
    // Column processing's scatter back in groups larger than the gathers'.
    RasterPipeline::Options scatterGroups = options;
    scatterGroups.columnDraws = 1;
    scatterGroups.columnGroup = 3;
    scatterGroups.scatterGroup = 5;
    scatterGroups.blockWidth = 4;
    RasterPipeline pipeline(options);
    for (const RasterPipeline::Options& chosen : {options, variants, oneBlock, scatterGroups}) {
        pipeline.setOptions(chosen);
        INFO("blockWidth " << chosen.blockWidth << ", resolveInFragments " << chosen.resolveInFragments);
        struct Case {
            const char* family;
            int width, height;
        } cases[] = {{"noise50", 61, 47},       // many roots: the scan numbers them
                     {"dense_disks", 120, 90},  // few roots: stencil routing
                     {"spiral", 130, 67},       {"ones", 333, 257},  // one component past float sums
                     {"noise90", 333, 257}};
        for (const Case& c : cases) {
            const Image image = generateFamily(c.family, c.width, c.height, 5);
            for (Connectivity connectivity : kBoth) {
                auto input = gl::Texture::allocate(GL_R8, image.width, image.height, "test");
                input.upload(image.pixels.data(), GL_RED, GL_UNSIGNED_BYTE);
                auto labels = gl::Texture::allocate(GL_R32UI, image.width, image.height, "labels");
                StageTimer timer(false);
                const std::uint32_t count = pipeline.label(input, labels, connectivity, Criterion::binary(), timer);
                Labeling actual;
                actual.width = image.width;
                actual.height = image.height;
                actual.labels.resize(std::size_t(image.width) * std::size_t(image.height));
                labels.download(actual.labels.data(), GL_RED_INTEGER, GL_UNSIGNED_INT);
                actual.components = pipeline.components(timer);
                const Labeling expected = labelReference(image, connectivity, Criterion::binary());
                INFO(c.family << " " << test::describeCase(image, connectivity, Criterion::binary()) << ": "
                              << compareLabelings(expected, actual).describe());
                CHECK(count == expected.count());
                CHECK(compareLabelings(expected, actual).identical());
            }
        }
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("raster on GLES 3.0: a labeling restores the host's ES state and leaves no GL error", "[gl][gles]") {
    const std::unique_ptr<HeadlessContext> context = esContextOrSkip();
    const Image image = generateFamily("noise50", 70, 50, 2);
    auto texture = gl::Texture::allocate(GL_R8, image.width, image.height, "test");
    texture.upload(image.pixels.data(), GL_RED, GL_UNSIGNED_BYTE);
    Labeler labeler;
    // Values no pass leaves behind, each set as an ES host would.
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_REVERSE_SUBTRACT);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_GEQUAL);
    glViewport(3, 4, 5, 6);
    glColorMask(GL_TRUE, GL_FALSE, GL_TRUE, GL_FALSE);
    glClearDepthf(0.25f);
    glDepthRangef(0.125f, 0.75f);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 9);
    REQUIRE(glGetError() == GL_NO_ERROR);
    LabelOptions options;
    options.backend = Backend::Raster;
    const std::uint32_t count = labeler.label(texture.id(), options);
    CHECK(count == labelReference(image, Connectivity::Eight, Criterion::binary()).count());
    CHECK(glGetError() == GL_NO_ERROR);
    CHECK(glIsEnabled(GL_BLEND) == GL_TRUE);
    CHECK(glIsEnabled(GL_DEPTH_TEST) == GL_TRUE);
    GLint value = 0;
    glGetIntegerv(GL_BLEND_EQUATION_RGB, &value);
    CHECK(value == GL_FUNC_REVERSE_SUBTRACT);
    glGetIntegerv(GL_DEPTH_FUNC, &value);
    CHECK(value == GL_GEQUAL);
    GLint viewport[4] = {};
    glGetIntegerv(GL_VIEWPORT, viewport);
    CHECK((viewport[0] == 3 && viewport[1] == 4 && viewport[2] == 5 && viewport[3] == 6));
    GLboolean mask[4] = {};
    glGetBooleanv(GL_COLOR_WRITEMASK, mask);
    CHECK((mask[0] == GL_TRUE && mask[1] == GL_FALSE && mask[2] == GL_TRUE && mask[3] == GL_FALSE));
    GLfloat depth = 0, range[2] = {};
    glGetFloatv(GL_DEPTH_CLEAR_VALUE, &depth);
    glGetFloatv(GL_DEPTH_RANGE, range);
    CHECK(depth == 0.25f);
    CHECK((range[0] == 0.125f && range[1] == 0.75f));
    glGetIntegerv(GL_PACK_ALIGNMENT, &value);
    CHECK(value == 1);
    glGetIntegerv(GL_UNPACK_ROW_LENGTH, &value);
    CHECK(value == 9);
    CHECK(glGetError() == GL_NO_ERROR);
}

namespace {

// A 16-bit gray image whose values differ only past 8 bits (255, 256, 257,
// 65535 and 1): an engine that read 8 of them would merge or split its
// components.
Image sixteenBitImage(int width, int height, std::uint64_t seed) {
    const std::uint64_t values[] = {1, 255, 256, 257, 65535};
    std::mt19937_64 random(seed);
    Image image(width, height, 1, 16);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            image.setSample(x, y, 0, random() % 10 < 4 ? 0 : values[random() % 5]);
    return image;
}

const Criterion kSixteenBitCriteria[] = {Criterion::binary(), Criterion::segments(), Criterion::binaryAbove(256),
                                         Criterion::thresholded(1), Criterion::withinDelta(1)};

}  // namespace

TEST_CASE("GLES: 16-bit gray images label in an ES context, as GL_R16 with EXT_texture_norm16, else GL_R16UI",
          "[gl][gles]") {
    Session& session = esSession();
    session.offscreen().makeCurrent();
    const bool norm16 = gl::hasExtension("GL_EXT_texture_norm16");
    INFO("context: " << session.offscreen().context().info().version << ", EXT_texture_norm16 "
                     << (norm16 ? "offered" : "not offered"));
    const Image image = sixteenBitImage(67, 45, 9);
    {
        const ImageTexture texture(image);
        CHECK(texture.internalFormat() == (norm16 ? GLenum(GL_R16) : GLenum(GL_R16UI)));
    }
    for (const Criterion& criterion : kSixteenBitCriteria)
        for (Connectivity connectivity : kBoth) requireRasterMatches(image, connectivity, criterion, "16-bit");
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("GLES: a Labeler in an ES context labels a GL_R16UI texture (16-bit samples without EXT_texture_norm16)",
          "[gl][gles]") {
    // The texture a host without EXT_texture_norm16 has for 16-bit samples,
    // labeled whether or not this context offers the extension.
    const std::unique_ptr<HeadlessContext> context = esContextOrSkip();
    const Image image = sixteenBitImage(59, 41, 10);
    auto texture = gl::Texture::allocate(GL_R16UI, image.width, image.height, "test");
    texture.upload(image.pixels.data(), GL_RED_INTEGER, GL_UNSIGNED_SHORT);
    Labeler labeler;
    for (const Criterion& criterion : kSixteenBitCriteria) {
        for (Connectivity connectivity : kBoth) {
            LabelOptions options;
            options.backend = Backend::Raster;
            options.connectivity = connectivity;
            options.criterion = criterion;
            const std::uint32_t count = labeler.label(texture.id(), image.width, image.height, GL_R16UI, options);
            const Labeling expected = labelReference(image, connectivity, criterion);
            CHECK(count == expected.count());
            const Labeling actual = test::downloadResult(labeler, image.width, image.height);
            INFO("GL_R16UI " << criterion.toString() << " " << int(connectivity) << ": "
                             << compareLabelings(expected, actual).describe());
            CHECK(compareLabelings(expected, actual).identical());
        }
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("GLES: stage timings in an ES context are measured with EXT_disjoint_timer_query, else not measured",
          "[gl][gles]") {
    Session& session = esSession();
    session.offscreen().makeCurrent();
    const bool timerQueries = gl::hasExtension("GL_EXT_disjoint_timer_query");
    INFO("context: " << session.offscreen().context().info().version << ", EXT_disjoint_timer_query "
                     << (timerQueries ? "offered" : "not offered"));
    const Image image = generateFamily("noise50", 96, 64, 3);
    LabelOptions options;
    options.backend = Backend::Raster;
    options.timings = true;
    StageTimings stages;
    const Labeling labeling = session.label(image, options, &stages);
    CHECK(compareLabelings(labelReference(image, Connectivity::Eight, Criterion::binary()), labeling).identical());
    REQUIRE(!stages.empty());
    for (const StageTime& stage : stages) {
        INFO(stage.stage << ": " << stage.milliseconds << " ms, measured " << stage.measured);
        // Never a time of nothing: measured and at least the 100 ns no
        // stage runs under, or not measured.
        CHECK((!stage.measured || stage.milliseconds >= 1e-4));
        if (!timerQueries) CHECK(!stage.measured);
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

namespace {

// Whether the ES context can run the compute engine: ES 3.1 with image
// atomics (3.2, or OES_shader_image_atomic); tests/CMakeLists.txt runs the
// compute cases again with Mesa pinned to ES 3.0, where it is refused.
bool computeRunsIn(const ContextInfo& info) {
    return info.es && (info.major > 3 || (info.major == 3 && info.minor >= 1)) && info.imageAtomics;
}

void requireComputeMatches(const Image& image, Connectivity connectivity, const Criterion& criterion,
                           const std::string& name) {
    requireMatchesIn(Backend::Compute, image, connectivity, criterion, name);
}

}  // namespace

// Few sizes and criteria: every variant is a program compiled for the
// software rasterizer.
TEST_CASE("compute on GLES 3.1+: images and volumes label like the reference, else compute is refused naming raster",
          "[gl][gles]") {
    Session& session = esSession();
    const ContextInfo& info = session.offscreen().context().info();
    INFO("context: " << info.version);
    CHECK(session.whyUnavailable(Backend::Raster).empty());
    if (!computeRunsIn(info)) {
        const std::string why = session.whyUnavailable(Backend::Compute);
        INFO(why);
        CHECK(why.find("the raster backend runs there") != std::string::npos);
        CHECK(why.find(info.major == 3 && info.minor == 0 ? "it needs OpenGL ES 3.1" : "image atomics") !=
              std::string::npos);
        LabelOptions options;
        options.backend = Backend::Compute;
        CHECK_THROWS_WITH(session.label(generateFamily("noise50", 16, 16, 1), options),
                          Catch::Matchers::Contains("the raster backend runs there"));
        return;
    }
    CHECK(session.whyUnavailable(Backend::Compute).empty());
    for (Connectivity connectivity : kBoth) {
        for (const char* family : {"noise50", "spiral", "sparse_disks"})
            requireComputeMatches(generateFamily(family, 131, 67, 5), connectivity, Criterion::binary(), family);
        // A node line past one work group's threads, and odd sides.
        requireComputeMatches(generateFamily("comb", 1000, 23, 2), connectivity, Criterion::binary(), "comb");
        requireComputeMatches(generateFamily("rings", 17, 131, 2), connectivity, Criterion::binary(), "rings");
        std::mt19937_64 random(20261126 + int(connectivity));
        for (int i = 0; i < 12; ++i) {
            const double density = double(random() % 101) / 100.0;
            requireComputeMatches(randomImage(131, 67, density, 2, 1, random()), connectivity, Criterion::binary(),
                                  "random " + std::to_string(i));
        }
        requireComputeMatches(randomImage(131, 67, 0.7, 4, 1, 11), connectivity, Criterion::segments(), "segments");
        requireComputeMatches(randomImage(131, 67, 0.8, 4, 4, 12), connectivity, Criterion::thresholded(40),
                              "color threshold");
    }
    // Volumes: a binary one over bundle nodes (6 and 26), segments over the
    // node grid.
    for (Connectivity connectivity : {Connectivity::Six, Connectivity::TwentySix})
        requireComputeMatches(randomVolume(37, 29, 11, 0.4, 2, 9), connectivity, Criterion::binary(), "volume");
    requireComputeMatches(randomVolume(23, 19, 7, 0.8, 4, 10), Connectivity::Eighteen, Criterion::segments(),
                          "segments volume");
}

// The Labeler of a host's ES context on its own textures, with the parents
// in an R32UI image, the path whose unions are imageAtomicMin; the host's
// image units and storage buffers restored (ES 3.1 has them).
TEST_CASE("compute on GLES 3.1+: a Labeler in a host's ES context labels its GL_R8 and 3-D textures", "[gl][gles]") {
    const test::ScopedTuning parentsInImage{{"computeParents", "image"}};
    const std::unique_ptr<HeadlessContext> context = esContextOrSkip();
    if (!computeRunsIn(context->info()))
        test::skipTest("the compute engine does not run in " + context->info().version);
    Labeler labeler;
    const Image gray = generateFamily("dense_disks", 120, 90, 4);
    auto r8 = gl::Texture::allocate(GL_R8, gray.width, gray.height, "test");
    r8.upload(gray.pixels.data(), GL_RED, GL_UNSIGNED_BYTE);
    // The host's image unit and storage buffer bindings, which the engine's
    // passes rebind, are given back.
    auto hostImage = gl::Texture::allocate(GL_R32UI, 4, 4, "host image");
    glBindImageTexture(1, hostImage.id(), 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32UI);
    auto hostBuffer = gl::Buffer::create();
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, hostBuffer.id());
    glBufferData(GL_SHADER_STORAGE_BUFFER, 64, nullptr, GL_STATIC_DRAW);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, hostBuffer.id());
    for (Connectivity connectivity : kBoth) {
        LabelOptions options;
        options.backend = Backend::Compute;
        options.connectivity = connectivity;
        requireTextureLabels(labeler, r8.id(), gray, options, "GL_R8");
        REQUIRE(labeler.backend() == Backend::Compute);
        GLint image = 0, access = 0, buffer = 0;
        glGetIntegeri_v(GL_IMAGE_BINDING_NAME, 1, &image);
        glGetIntegeri_v(GL_IMAGE_BINDING_ACCESS, 1, &access);
        glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 2, &buffer);
        CHECK(GLuint(image) == hostImage.id());
        CHECK(access == GL_READ_ONLY);
        CHECK(GLuint(buffer) == hostBuffer.id());
    }
    const Image volume = randomVolume(29, 21, 15, 0.45, 2, 29);
    auto r8Volume = gl::Texture::allocateVolume(GL_R8, volume.width, volume.height, volume.depth, "test");
    r8Volume.upload(volume.pixels.data(), GL_RED, GL_UNSIGNED_BYTE);
    LabelOptions options;
    options.backend = Backend::Compute;
    options.connectivity = Connectivity::TwentySix;
    labeler.label(r8Volume.id(), options);
    const Labeling expected = labelReference(volume, Connectivity::TwentySix, Criterion::binary());
    const Labeling actual = labeler.result();
    INFO("3-D GL_R8: " << compareLabelings(expected, actual).describe());
    CHECK(compareLabelings(expected, actual).identical());
    CHECK(glGetError() == GL_NO_ERROR);
}

// Labeler::measureTerms after a compute labeling in ES: the labels' terms
// gathered by the measuring programs there, the cpu accumulator's totals
// (compared through the properties they finalize to); intensity terms,
// whose image formats ES lacks, refused in words that say where they run.
TEST_CASE("compute on GLES 3.1+: measureTerms gathers the labels' terms on the GPU as the cpu accumulator does",
          "[gl][gles]") {
    const std::unique_ptr<HeadlessContext> context = esContextOrSkip();
    if (!computeRunsIn(context->info()))
        test::skipTest("the compute engine does not run in " + context->info().version);
    Labeler labeler;
    // Noise whose largest region measure_medium measures (61 x 47), and
    // noise wider than its boxes, whose largest region the passes over the
    // labels' tiles gather.
    const Image image = randomImage(61, 47, 0.55, 2, 1, 31);
    const Image wide = randomImage(300, 40, 0.55, 2, 1, 33);
    const Image volume = randomVolume(23, 19, 9, 0.4, 2, 32);
    const std::vector<std::string> properties2d = {"moments", "perimeter", "perimeter_crofton", "euler_number",
                                                   "eccentricity"};
    const std::vector<std::string> properties3d = {"moments", "euler_number", "inertia_tensor_eigvals"};
    for (const Image* input : {&image, &wide, &volume}) {
        const bool isVolume = input->dimensions == 3;
        auto texture = isVolume ? gl::Texture::allocateVolume(GL_R8, input->width, input->height, input->depth, "test")
                                : gl::Texture::allocate(GL_R8, input->width, input->height, "test");
        texture.upload(input->pixels.data(), GL_RED, GL_UNSIGNED_BYTE);
        LabelOptions options;
        options.backend = Backend::Compute;
        options.connectivity = isVolume ? Connectivity::TwentySix : Connectivity::Eight;
        labeler.label(texture.id(), options);
        const Labeling labeling = labeler.result();
        LabelSamples samples;
        samples.shape = labeling.shape();
        samples.data = labeling.labels.data();
        MeasureOptions measure;
        measure.properties.properties = isVolume ? properties3d : properties2d;
        const TermRequest q = termsFor(measure.properties.properties, input->dimensions, 0);
        const RegionTotals gpu = labeler.measureTerms(q);
        INFO((isVolume ? "volume" : "image") << " " << input->width << "x" << input->height);
        CHECK(gpu.gatheredBy == Backend::Compute);
        test::requireSameTable(finalizeProperties(measureTerms(samples, nullptr, q, 1), measure.properties),
                               finalizeProperties(gpu, measure.properties));
        // The region rows: finalized on the host from these totals (the GPU's
        // finalizer works in doubles, which GLSL ES has not) and uploaded.
        CHECK(labeler.regionBuffer() != 0);
        if (!isVolume)
            CHECK_THROWS_WITH(labeler.measureTerms(termsFor({"intensity_mean"}, 2, 1), texture.id()),
                              Catch::Contains("measure them in a desktop context or with the cpu backend"));
    }
    CHECK(glGetError() == GL_NO_ERROR);
}

// LabelOptions::measure and Labeler::properties(): properties measured in
// the labeling call, on every backend that runs here, against the host's
// measurement (glccl::measureTerms + finalizeProperties) of the reference
// labeler's labels of the same image, column by column; the table of
// components() unchanged by it; the requests refused before anything is
// labeled.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backends/texture_engine.hpp"
#include "gl.hpp"
#include "gl_objects.hpp"
#include "gl_support.hpp"
#include "region_rows.hpp"
#include "state_guard.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/measure.hpp"
#include "glccl/reference.hpp"
#include "glccl/region_properties.hpp"
#include "glccl/texture.hpp"
#include "volume_support.hpp"
#include "measure_support.hpp"

using namespace glccl;
using glccl::test::offscreen;
using glccl::test::requireSameTable;

namespace {

const std::vector<std::string> kProperties2d = {
    "label", "num_pixels", "area", "bbox", "area_bbox", "extent", "equivalent_diameter_area", "centroid",
    "centroid_local", "moments", "moments_central", "moments_normalized", "moments_hu", "inertia_tensor",
    "inertia_tensor_eigvals", "orientation", "axis_major_length", "axis_minor_length", "eccentricity", "perimeter",
    "perimeter_crofton", "euler_number"};
const std::vector<std::string> kProperties3d = {
    "label", "num_pixels", "area", "bbox", "centroid", "moments_central", "inertia_tensor_eigvals",
    "axis_major_length", "axis_minor_length", "euler_number"};
const std::vector<std::string> kIntensityProperties = {
    "intensity_mean", "intensity_std", "intensity_min", "intensity_max", "intensity_max_position",
    "centroid_weighted", "moments_weighted_central"};

// Random 16-bit samples.
Image randomSamples(const Shape& shape, std::uint64_t seed) {
    Image image(shape, 1, 16);
    std::mt19937_64 random(seed);
    for (std::size_t i = 0; i < shape.count(); ++i) image.setSample(i, 0, std::uint32_t(random() & 0xffff));
    return image;
}

gl::Texture samplesTexture(const Image& image) {
    gl::Texture texture = image.dimensions == 3
                              ? gl::Texture::allocateVolume(GL_R16UI, image.width, image.height, image.depth, "samples")
                              : gl::Texture::allocate(GL_R16UI, image.width, image.height, "samples");
    texture.upload(image.pixels.data(), GL_RED_INTEGER, GL_UNSIGNED_SHORT);
    return texture;
}


// The host's table of `measure` for the reference's labels of `image`,
// with `intensity` where given.
PropertyTable hostTable(const Image& image, Connectivity connectivity, const Image* intensity,
                        const PropertyOptions& measure) {
    const Labeling reference = labelReference(image, connectivity, Criterion::binary());
    LabelSamples labels;
    labels.shape = reference.shape();
    labels.data = reference.labels.data();
    IntensitySamples samples;
    if (intensity) {
        samples.shape = intensity->shape();
        samples.data = intensity->pixels.data();
        samples.bytes = 2;
    }
    const TermRequest request =
        termsFor(measure.properties, image.dimensions, intensity ? 1 : 0, SampleKind::Unsigned, 16);
    return finalizeProperties(measureTerms(labels, intensity ? &samples : nullptr, request, 1), measure);
}

// Labels `image` with `backend` and the properties of `measure` and
// requires properties() to be the host's table, and components() the
// same as a labeling without properties.
void requireLabelerTable(Backend backend, const Image& image, Connectivity connectivity, const Image* intensity,
                         const PropertyOptions& measure) {
    INFO(backendName(backend) << " " << image.width << "x" << image.height << "x" << image.depth << " connectivity "
                              << int(connectivity));
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    const bool volume = image.dimensions == 3;
    ImageTexture texture = volume ? ImageTexture::volume(image) : ImageTexture(image);
    const gl::Texture samples = intensity ? samplesTexture(*intensity) : gl::Texture();
    LabelOptions options;
    options.backend = backend;
    options.connectivity = connectivity;
    const std::uint32_t plainCount = labeler.label(texture.id(), options);
    const std::vector<Component> plain = labeler.components();
    REQUIRE(labeler.properties().rows == 0);
    REQUIRE(labeler.properties().columns.empty());
    options.measure = measure;
    options.intensity = samples.id();
    const std::uint32_t count = labeler.label(texture.id(), options);
    REQUIRE(labeler.backend() == backend);
    REQUIRE(glGetError() == GL_NO_ERROR);
    REQUIRE(count == plainCount);
    REQUIRE(labeler.components() == plain);
    REQUIRE(labeler.properties().rows == count);
    requireSameTable(hostTable(image, connectivity, intensity, measure), labeler.properties());
}

// The backends here that label `dimensions` (raster labels images only).
std::vector<Backend> backendsFor(int dimensions) {
    std::vector<Backend> backends;
    for (Backend backend : glccl::test::backendsHere())
        if ((backend == Backend::Compute || backend == Backend::Cpu || (backend == Backend::Raster && dimensions == 2)))
            backends.push_back(backend);
    return backends;
}

}  // namespace

TEST_CASE("label properties: measured with the labeling, the host's table of the reference's labels",
          "[gl][measure][label properties]") {
    std::mt19937_64 seeds(71);
    for (Backend backend : backendsFor(2)) {
        for (auto [w, h] : {std::pair{1, 1}, std::pair{37, 29}, std::pair{90, 41}})
            for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
                PropertyOptions measure;
                measure.properties = kProperties2d;
                requireLabelerTable(backend, randomImage(w, h, 0.45, 2, 1, seeds()), connectivity, nullptr, measure);
            }
        // An intensity, a spacing and a separator of the caller's.
        const Image image = randomImage(53, 31, 0.5, 2, 1, seeds());
        const Image samples = randomSamples(image.shape(), seeds());
        PropertyOptions measure;
        measure.properties = {"label", "area", "centroid", "orientation", "axis_major_length", "bbox"};
        measure.properties.insert(measure.properties.end(), kIntensityProperties.begin(), kIntensityProperties.end());
        measure.spacing = {0.5, 2.0};
        measure.separator = "_";
        requireLabelerTable(backend, image, Connectivity::Eight, &samples, measure);
        // An empty image: no rows, every column there.
        measure.properties = kProperties2d;
        measure.spacing.clear();
        requireLabelerTable(backend, Image(20, 10), Connectivity::Eight, nullptr, measure);
    }
}

TEST_CASE("label properties: volumes measured with the labeling", "[gl][measure][label properties][volume]") {
    std::mt19937_64 seeds(72);
    for (Backend backend : backendsFor(3)) {
        const Image volume = glccl::test::randomTestVolume(17, 13, 9, 0.4, seeds());
        PropertyOptions measure;
        measure.properties = kProperties3d;
        requireLabelerTable(backend, volume, Connectivity::TwentySix, nullptr, measure);
        const Image samples = randomSamples(volume.shape(), seeds());
        measure.properties = kIntensityProperties;
        measure.spacing = {2.0, 1.0, 0.25};
        requireLabelerTable(backend, volume, Connectivity::Six, &samples, measure);
    }
}

TEST_CASE("label properties: what is refused, before anything is labeled", "[gl][measure][label properties]") {
    offscreen().makeCurrent();
    {
        Labeler fresh;
        CHECK_THROWS_WITH(fresh.properties(), "glccl::Labeler::properties(): nothing was labeled yet");
    }
    Labeler& labeler = offscreen().labeler();
    const Image image = randomImage(40, 30, 0.5, 2, 1, 7);
    ImageTexture texture(image);
    ImageTexture other(randomImage(30, 40, 0.5, 2, 1, 8));
    LabelOptions options;
    options.backend = Backend::Compute;
    options.measure.properties = {"area"};
    const std::uint32_t count = labeler.label(texture.id(), options);
    const std::vector<Component> table = labeler.components();
    REQUIRE(labeler.properties().rows == count);
    const std::vector<std::uint32_t> labels = labeler.downloadLabels();

    auto refused = [&](const std::vector<std::string>& properties, const auto& message,
                       unsigned intensity = 0, std::vector<double> spacing = {}, unsigned input = 0) {
        LabelOptions bad = options;
        bad.measure.properties = properties;
        bad.measure.spacing = std::move(spacing);
        bad.intensity = intensity;
        CHECK_THROWS_WITH(labeler.label(input ? input : other.id(), bad), message);
        // Nothing was labeled: the last labeling and its properties stand.
        CHECK(labeler.properties().rows == count);
        CHECK(labeler.components() == table);
    };
    refused({"area", "roundness"}, Catch::StartsWith("glccl::Labeler::label(): unknown property 'roundness' (properties: label, "));
    refused({"solidity"}, Catch::StartsWith("glccl::Labeler::label(): property 'solidity' is computed from each "
                                            "region's pixels, which the Labeler does not measure (glccl.regionprops "
                                            "of the Python module does); it measures label, num_pixels, area, bbox"));
    refused({"intensity_mean"},
            "glccl::Labeler::label(): property 'intensity_mean' needs an intensity texture (LabelOptions::intensity)");
    refused({"intensity_mean"}, "glccl::Labeler::label(): the intensity texture is 40x30, the labels are 30x40",
            texture.id());
    const gl::Texture floats = gl::Texture::allocate(GL_R32F, 30, 40, "a float intensity");
    refused({"intensity_max"},
            "glccl::Labeler::label(): the intensity texture is GL_R32F; intensity terms are gathered of GL_R8, "
            "GL_R8UI, GL_R16, GL_R16UI and GL_R32UI textures",
            floats.id());
    refused({"centroid"}, "glccl::Labeler::label(): spacing has 3 entries for a 2-D image", 0, {1.0, 1.0, 2.0});
    refused({"moments_hu"}, "glccl::Labeler::label(): 'moments_hu' is defined for a spacing of 1 only", 0, {1.0, 2.0});
    ImageTexture cube = ImageTexture::volume(glccl::test::randomTestVolume(5, 4, 3, 0.5, 8));
    LabelOptions volume = options;
    volume.connectivity = Connectivity::TwentySix;
    volume.measure.properties = {"area", "orientation"};
    CHECK_THROWS_WITH(labeler.label(cube.id(), volume),
                      "glccl::Labeler::label(): property 'orientation' is defined for 2-D images only, the texture is "
                      "a volume");
    CHECK(labeler.downloadLabels() == labels);
    // Through a route (OffscreenLabeler, the Session, tiles) the properties
    // are refused, not skipped.
    CHECK_THROWS_WITH(glccl::test::session().label(image, options),
                      Catch::Contains("LabelOptions::measure is measured by Labeler::label(texture, options) alone"));
    // An intensity no property reads is not looked at.
    options.intensity = floats.id();
    labeler.label(texture.id(), options);
    CHECK(labeler.properties().find("area") != nullptr);
    REQUIRE(glGetError() == GL_NO_ERROR);
}

// --- Labeler::regionBuffer() -------------------------------------------------

namespace {

// The rows of `buffer` (count of them), read back as a renderer's copy would.
std::vector<RegionRow> readRows(unsigned buffer, std::size_t count) {
    std::vector<RegionRow> rows(count);
    glBindBuffer(GL_COPY_READ_BUFFER, buffer);
    // A buffer smaller than the rows is GL_INVALID_VALUE here.
    if (count) glGetBufferSubData(GL_COPY_READ_BUFFER, 0, GLsizeiptr(count * sizeof(RegionRow)), rows.data());
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    REQUIRE(glGetError() == GL_NO_ERROR);
    return rows;
}

const std::vector<std::string> kRowProperties2d = {"area", "bbox", "centroid", "orientation", "axis_major_length",
                                                   "axis_minor_length", "inertia_tensor_eigvals"};
const std::vector<std::string> kRowProperties3d = {"area", "bbox", "centroid", "axis_major_length",
                                                   "axis_minor_length"};

// Every row against the host's table of the reference's labels: boxes and
// areas exactly, the rest as float32 holds the host's doubles.
void requireRowsMatchHost(const std::vector<RegionRow>& rows, const PropertyTable& host, int dimensions) {
    REQUIRE(rows.size() == host.rows);
    auto column = [&](const std::string& name) {
        const PropertyColumn* c = host.find(name);
        REQUIRE(c != nullptr);
        return c;
    };
    auto near = [](double actual, double expected, double scale) {
        return std::fabs(actual - expected) <= 1e-5 * (1.0 + std::fabs(scale));
    };
    for (std::size_t r = 0; r < rows.size(); ++r) {
        INFO("label " << r + 1);
        const RegionRow& row = rows[r];
        for (int axis = 0; axis < dimensions; ++axis) {
            const std::string numpy = std::to_string(dimensions - 1 - axis);
            INFO("axis " << axis);
            CHECK(row.boxMin[axis] == float(column("bbox-" + numpy)->ints[r]));
            CHECK(row.boxMax[axis] ==
                  float(column("bbox-" + std::to_string(dimensions - 1 - axis + dimensions))->ints[r]));
            const double centroid = column("centroid-" + numpy)->reals[r];
            CHECK(near(row.centre[axis], centroid + 0.5, centroid));
        }
        if (dimensions == 2) {
            CHECK(row.boxMin[2] == 0.0f);
            CHECK(row.boxMax[2] == 1.0f);
            CHECK(row.centre[2] == 0.5f);
        }
        CHECK(row.boxMin[3] == float(column("area")->reals[r]));
        CHECK(row.boxMax[3] == 0.0f);
        CHECK(row.centre[3] == 0.0f);
        CHECK(row.ellipse[3] == 0.0f);
        const double major = column("axis_major_length")->reals[r];
        CHECK(near(row.ellipse[1], major, major));
        CHECK(near(row.ellipse[2], column("axis_minor_length")->reals[r], major));
        if (dimensions == 3) {
            CHECK(row.ellipse[0] == 0.0f);
            continue;
        }
        // The orientation, an axis (its angle modulo pi), where the ellipse
        // is not a circle: a circle's is any angle.
        const double e0 = column("inertia_tensor_eigvals-0")->reals[r];
        const double e1 = column("inertia_tensor_eigvals-1")->reals[r];
        if (e0 - e1 > 1e-6 * e0) {
            const double pi = 3.14159265358979323846;
            double difference = double(row.ellipse[0]) - column("orientation")->reals[r];
            difference -= pi * std::round(difference / pi);
            CHECK(std::fabs(difference) <= 1e-5);
        }
    }
}

// Labels `image` with `backend` and requires regionBuffer()'s rows to be
// the host's measures of the reference's labels.
void requireRegionRows(Backend backend, const Image& image, Connectivity connectivity) {
    const bool volume = image.dimensions == 3;
    INFO(backendName(backend) << " " << image.width << "x" << image.height << "x" << image.depth << " connectivity "
                              << int(connectivity));
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    ImageTexture texture = volume ? ImageTexture::volume(image) : ImageTexture(image);
    LabelOptions options;
    options.backend = backend;
    options.connectivity = connectivity;
    const std::uint32_t count = labeler.label(texture.id(), options);
    REQUIRE(labeler.backend() == backend);
    // The host's own buffer where the rows' passes bind theirs: left bound.
    gl::Buffer mine = gl::Buffer::create();
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, mine.id());
    glBufferData(GL_SHADER_STORAGE_BUFFER, 64, nullptr, GL_STATIC_DRAW);
    for (GLuint index : {0u, 1u, 2u}) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, index, mine.id());
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, mine.id());
    const unsigned buffer = labeler.regionBuffer();
    GLint bound = 0;
    glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &bound);
    CHECK(GLuint(bound) == mine.id());
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &bound);
    CHECK(GLuint(bound) == mine.id());
    for (GLuint index : {0u, 1u, 2u}) {
        glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, index, &bound);
        CHECK(GLuint(bound) == mine.id());
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, index, 0);
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    REQUIRE(buffer != 0);
    REQUIRE(labeler.regionBuffer() == buffer);  // the same rows, not written again
    PropertyOptions measure;
    measure.properties = volume ? kRowProperties3d : kRowProperties2d;
    requireRowsMatchHost(readRows(buffer, count), hostTable(image, connectivity, nullptr, measure), image.dimensions);
}

// Regions of every shape: one pixel, lines along each axis and diagonal,
// rings, a region filling the image, random ones.
std::vector<Image> rowImages(std::uint64_t seed) {
    std::vector<Image> images;
    images.push_back(Image(1, 1));
    std::fill(images.back().pixels.begin(), images.back().pixels.end(), std::uint8_t(255));
    Image lines(61, 45);
    for (int t = 0; t < 40; ++t) {
        lines.setSample(std::size_t(3 + t) * 61 + std::size_t(2 + t), 0, 255);        // a diagonal
        lines.setSample(std::size_t(44 - t) * 61 + std::size_t(10 + t), 0, 255);      // the other
        lines.setSample(std::size_t(1) * 61 + std::size_t(20 + t / 2), 0, 255);      // along x
        lines.setSample(std::size_t(2 + t) * 61 + 59, 0, 255);                        // along y
    }
    images.push_back(lines);
    Image full(300, 200);
    std::fill(full.pixels.begin(), full.pixels.end(), std::uint8_t(255));
    images.push_back(full);
    images.push_back(generateFamily("rings", 97, 61, 5));
    images.push_back(randomImage(83, 57, 0.45, 2, 1, seed));
    images.push_back(randomImage(33, 20, 0.0, 2, 1, seed + 1));  // no regions
    return images;
}

// The outlines of the boxes, drawn from the region buffer: one instanced
// quad per region, each fragment on its box's border kept (the shaders
// docs/renderer.md shows).
const char* kOutlineVertex = R"(#version 430 core
struct RegionRow { vec4 boxMin; vec4 boxMax; vec4 centre; vec4 ellipse; };
layout(std430, binding = 0) readonly buffer Regions { RegionRow regions[]; };
uniform vec2 labelSize;                  // the label texture's width and height
flat out vec4 box;                       // the box's least corner and the corner past it
void main() {
    RegionRow region = regions[gl_InstanceID];  // label gl_InstanceID + 1
    vec2 corner = mix(region.boxMin.xy, region.boxMax.xy, vec2(gl_VertexID & 1, gl_VertexID >> 1));
    box = vec4(region.boxMin.xy, region.boxMax.xy);
    gl_Position = vec4(corner / labelSize * 2.0 - 1.0, 0.0, 1.0);
}
)";
const char* kOutlineFragment = R"(#version 430 core
flat in vec4 box;
out vec4 color;
void main() {
    vec2 texel = floor(gl_FragCoord.xy);  // drawn at the labels' size: one fragment a texel
    if (all(greaterThan(texel, box.xy)) && all(lessThan(texel, box.zw - 1.0))) discard;
    color = vec4(1.0);
}
)";

// A shader owned as the engine owns its own (gl_objects.hpp), so that a
// failed check leaves nothing behind in the shared context.
gl::Object<gl::ShaderTraits> compileShader(GLenum type, const char* source) {
    auto owned = gl::Object<gl::ShaderTraits>::adopt(glCreateShader(type));
    const GLuint shader = owned.id();
    glShaderSource(shader, 1, &source, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    char log[2048] = "";
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    INFO(log);
    REQUIRE(ok == GL_TRUE);
    return owned;
}

}  // namespace

TEST_CASE("region buffer: every row is the host's bbox, area, centroid and ellipse", "[gl][measure][region buffer]") {
    std::mt19937_64 seeds(73);
    for (Backend backend : backendsFor(2))
        for (const Image& image : rowImages(seeds()))
            for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
                requireRegionRows(backend, image, connectivity);
}

TEST_CASE("region buffer: volumes", "[gl][measure][region buffer][volume]") {
    std::mt19937_64 seeds(74);
    for (Backend backend : backendsFor(3)) {
        requireRegionRows(backend, glccl::test::randomTestVolume(19, 14, 11, 0.4, seeds()), Connectivity::TwentySix);
        requireRegionRows(backend, glccl::test::randomTestVolume(7, 9, 30, 0.6, seeds()), Connectivity::Six);
        Image rod(Shape::volume(40, 3, 5));
        for (int t = 0; t < 40; ++t) glccl::test::setVoxel(rod, t, t % 3, (t / 3) % 5);
        requireRegionRows(backend, rod, Connectivity::TwentySix);
    }
}

TEST_CASE("region buffer: the boxes drawn from it are the host's boxes", "[gl][measure][region buffer]") {
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    const int width = 160, height = 96;
    const Image image = generateFamily("dense_disks", width, height, 3);
    PropertyOptions measure;
    measure.properties = {"bbox"};
    const PropertyTable host = hostTable(image, Connectivity::Eight, nullptr, measure);
    REQUIRE(host.rows > 3);
    // The outlines the host's boxes give: each box's border texels.
    std::vector<std::uint8_t> expected(std::size_t(width) * height, 0);
    for (std::size_t r = 0; r < host.rows; ++r) {
        const std::int64_t top = host.find("bbox-0")->ints[r], left = host.find("bbox-1")->ints[r];
        const std::int64_t bottom = host.find("bbox-2")->ints[r] - 1, right = host.find("bbox-3")->ints[r] - 1;
        for (std::int64_t y = top; y <= bottom; ++y)
            for (std::int64_t x = left; x <= right; ++x)
                if (y == top || y == bottom || x == left || x == right) expected[std::size_t(y * width + x)] = 255;
    }
    const auto owned = gl::Object<gl::ProgramTraits>::create();
    const GLuint program = owned.id();
    const auto vertex = compileShader(GL_VERTEX_SHADER, kOutlineVertex);
    const auto fragment = compileShader(GL_FRAGMENT_SHADER, kOutlineFragment);
    glAttachShader(program, vertex.id());
    glAttachShader(program, fragment.id());
    glLinkProgram(program);
    GLint linked = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &linked);
    REQUIRE(linked == GL_TRUE);
    const gl::Texture target = gl::Texture::allocate(GL_R8, width, height, "the outlines");
    const gl::Framebuffer framebuffer = gl::Framebuffer::create();
    const gl::VertexArray vertexArray = gl::VertexArray::create();
    for (Backend backend : backendsFor(2)) {
        INFO(backendName(backend));
        ImageTexture texture(image);
        LabelOptions options;
        options.backend = backend;
        const std::uint32_t count = labeler.label(texture.id(), options);
        REQUIRE(count == host.rows);
        // The renderer's frame: the buffer bound as storage, one quad per region.
        glBindFramebuffer(GL_FRAMEBUFFER, framebuffer.id());
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target.id(), 0);
        REQUIRE(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE);
        glViewport(0, 0, width, height);
        glClearColor(0, 0, 0, 0);
        glClear(GL_COLOR_BUFFER_BIT);
        glUseProgram(program);
        glUniform2f(glGetUniformLocation(program, "labelSize"), float(width), float(height));
        glBindVertexArray(vertexArray.id());
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, labeler.regionBuffer());
        glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, GLsizei(count));
        std::vector<std::uint8_t> drawn(expected.size(), 0);
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        glReadPixels(0, 0, width, height, GL_RED, GL_UNSIGNED_BYTE, drawn.data());
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0);
        glBindVertexArray(0);
        glUseProgram(0);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        REQUIRE(glGetError() == GL_NO_ERROR);
        std::size_t differ = 0;
        for (std::size_t i = 0; i < drawn.size(); ++i) differ += drawn[i] != expected[i];
        CHECK(differ == 0);
    }
    {
        Labeler fresh;
        CHECK_THROWS_WITH(fresh.regionBuffer(), "glccl::Labeler::regionBuffer(): nothing was labeled yet");
    }
}

TEST_CASE("region buffer: a context without compute shaders uploads the host's rows", "[gl][measure][.mesa33]") {
    // Registered by tests/CMakeLists.txt under MESA_GL_VERSION_OVERRIDE=3.3
    // (Mesa answers a 3.3 request with its newest version otherwise).
    HeadlessContext::Options contextOptions;
    contextOptions.major = 3;
    contextOptions.minor = 3;
    HeadlessContext context(contextOptions);
    if (context.info().major != 3) {
        WARN("the context is " << context.info().version << ", not 3.3: nothing to check here");
        return;
    }
    Labeler labeler;
    const Image image = randomImage(45, 31, 0.5, 2, 1, 14);
    ImageTexture texture(image);
    LabelOptions options;
    options.backend = Backend::Raster;
    options.measure.properties = kProperties2d;
    const std::uint32_t count = labeler.label(texture.id(), options);
    requireSameTable(hostTable(image, Connectivity::Eight, nullptr, options.measure), labeler.properties());
    PropertyOptions measure;
    measure.properties = kRowProperties2d;
    requireRowsMatchHost(readRows(labeler.regionBuffer(), count), hostTable(image, Connectivity::Eight, nullptr, measure),
                         2);
    options.intensity = texture.id();
    options.measure.properties = {"intensity_mean"};
    CHECK_THROWS_WITH(labeler.label(texture.id(), options),
                      Catch::StartsWith("glccl::Labeler::label(): intensity properties are measured in OpenGL 4.3 "
                                        "contexts, this is 3.3"));
    REQUIRE(glGetError() == GL_NO_ERROR);
}

TEST_CASE("region buffer: rows written on the GPU in batches are the same", "[gl][compute][measure][region buffer]") {
    // Batches of a few regions each stand for a labeling whose moment sums
    // pass one storage block (millions of regions).
    offscreen().makeCurrent();
    const ContextInfo& info = offscreen().context().info();
    std::mt19937_64 seeds(75);
    for (bool volume : {false, true}) {
        INFO((volume ? "volume" : "image"));
        const Image image = volume ? glccl::test::randomTestVolume(21, 17, 9, 0.3, seeds())
                                   : randomImage(67, 45, 0.35, 2, 1, seeds());
        const Connectivity connectivity = volume ? Connectivity::Six : Connectivity::Four;
        ImageTexture texture = volume ? ImageTexture::volume(image) : ImageTexture(image);
        const StateGuard guard;  // as the Labeler guards its passes
        const std::unique_ptr<backends::TextureEngine> engine = backends::makeComputeEngine(info);
        const gl::Texture labels =
            volume ? gl::Texture::allocateVolume(GL_R32UI, image.width, image.height, image.depth, "labels")
                   : gl::Texture::allocate(GL_R32UI, image.width, image.height, "labels");
        const gl::Texture input = volume ? gl::Texture::borrowVolume(texture.id(), GL_R8, image.width, image.height,
                                                                     image.depth)
                                         : gl::Texture::borrow(texture.id(), GL_R8, image.width, image.height);
        LabelOptions options;
        options.connectivity = connectivity;
        StageTimer timer(false);
        const std::uint32_t count = engine->label(input, labels, options, timer);
        REQUIRE(count > 50);
        const backends::TextureEngine::GpuTable table = engine->gpuTable();
        REQUIRE(table.texture != 0);
        REQUIRE(table.volume == volume);
        PropertyOptions measure;
        measure.properties = volume ? kRowProperties3d : kRowProperties2d;
        const PropertyTable host = hostTable(image, connectivity, nullptr, measure);
        measure::TermGatherer gatherer;
        measure::RegionRowWriter writer;
        for (std::size_t bytes : {std::size_t(1000), std::size_t(4096), std::size_t(0)}) {
            INFO("batches of at most " << bytes << " bytes");
            writer.setLargestBatch(bytes);
            gl::Buffer rows;
            std::size_t capacity = 0;
            writer.writeOnGpu(labels, table.texture, table.volume, count, gatherer, rows, capacity);
            REQUIRE(glGetError() == GL_NO_ERROR);
            requireRowsMatchHost(readRows(rows.id(), count), host, image.dimensions);
        }
    }
}

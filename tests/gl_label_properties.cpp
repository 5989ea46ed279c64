// LabelOptions::measure and Labeler::properties(): properties measured in
// the labeling call, on every backend that runs here, against the host's
// measurement (glccl::measureTerms + finalizeProperties) of the reference
// labeler's labels of the same image, column by column; the table of
// components() unchanged by it; the requests refused before anything is
// labeled.

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gl.hpp"
#include "gl_objects.hpp"
#include "gl_support.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/measure.hpp"
#include "glccl/reference.hpp"
#include "glccl/region_properties.hpp"
#include "glccl/texture.hpp"
#include "volume_support.hpp"

using namespace glccl;
using glccl::test::offscreen;

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

// Every column the same, values bit for bit: the GPU's totals are exact,
// and the same finalizer turns them into values.
void requireSameTable(const PropertyTable& expected, const PropertyTable& actual) {
    REQUIRE(actual.rows == expected.rows);
    REQUIRE(actual.columns.size() == expected.columns.size());
    for (std::size_t c = 0; c < expected.columns.size(); ++c) {
        const PropertyColumn& e = expected.columns[c];
        const PropertyColumn& a = actual.columns[c];
        INFO("column " << e.name);
        REQUIRE(a.name == e.name);
        REQUIRE(a.type == e.type);
        REQUIRE(a.ints == e.ints);
        REQUIRE(a.uints == e.uints);
        REQUIRE(a.reals.size() == e.reals.size());
        REQUIRE(std::memcmp(a.reals.data(), e.reals.data(), e.reals.size() * sizeof(double)) == 0);
    }
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
    // An intensity no property reads is not looked at.
    options.intensity = floats.id();
    labeler.label(texture.id(), options);
    CHECK(labeler.properties().find("area") != nullptr);
    REQUIRE(glGetError() == GL_NO_ERROR);
}

// Labeler::measureTerms: region terms gathered on the GPU from the compute
// engine's labels, against the cpu engine's accumulator (glccl::measureTerms
// of the downloaded labels, validated against scikit-image) limb for limb,
// and the property tables finalized from both: random images and volumes,
// one-pixel regions, lines, rings with holes, regions on the borders, sums
// past 32 and 64 bits, every moment level, empty images; repeated calls the
// same; the requests it refuses.

#include <catch2/catch.hpp>

#include <cmath>
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
#include "glccl/region_properties.hpp"
#include "glccl/texture.hpp"
#include "volume_support.hpp"

using namespace glccl;
using glccl::test::offscreen;

namespace {

const std::vector<std::string> kProperties2d = {"moments", "perimeter", "perimeter_crofton", "euler_number",
                                                 "moments_hu", "inertia_tensor_eigvals", "eccentricity"};
const std::vector<std::string> kProperties3d = {"moments", "euler_number", "inertia_tensor_eigvals"};

void requireSameTotals(const RegionTotals& expected, const RegionTotals& actual) {
    REQUIRE(actual.regions == expected.regions);
    REQUIRE(actual.labels == expected.labels);
    REQUIRE(actual.imageExtents == expected.imageExtents);
    REQUIRE(actual.counts == expected.counts);
    REQUIRE(actual.boxMin == expected.boxMin);
    REQUIRE(actual.boxMax == expected.boxMax);
    REQUIRE(actual.moments.size() == expected.moments.size());
    for (std::size_t i = 0; i < expected.moments.size(); ++i) {
        INFO("moment sum " << i % TermRequest::exponents(expected.request.momentLevel, expected.request.dimensions).size()
                           << " of region " << i / TermRequest::exponents(expected.request.momentLevel,
                                                                          expected.request.dimensions).size());
        REQUIRE(actual.moments[i].limb == expected.moments[i].limb);
    }
    REQUIRE(actual.perimeterClasses == expected.perimeterClasses);
    REQUIRE(actual.croftonClasses == expected.croftonClasses);
    REQUIRE(actual.eulerTimes == expected.eulerTimes);
}

// Values the same bit for bit (NaN where scikit-image gives NaN too).
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

// Labels `image` (2-D or a volume) with the compute engine, then requires
// the GPU's totals of `properties`' terms (and of `request` where given)
// to be the cpu accumulator's on the downloaded labels, twice, and the
// finalized tables to match measureLabeling's.
void requireGpuTermsMatchCpu(const Image& image, Connectivity connectivity, const Criterion& criterion,
                             const std::vector<std::string>& properties, const std::string& name) {
    const bool volume = image.dimensions == 3;
    INFO(name << " " << image.width << "x" << image.height << (volume ? "x" + std::to_string(image.depth) : "")
              << " connectivity " << int(connectivity) << " " << criterion.toString());
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    ImageTexture texture = volume ? ImageTexture::volume(image) : ImageTexture(image);
    LabelOptions options;
    options.backend = Backend::Compute;
    options.connectivity = connectivity;
    options.criterion = criterion;
    labeler.label(texture.id(), options);
    REQUIRE(labeler.backend() == Backend::Compute);
    const Labeling labeling = labeler.result();

    LabelSamples samples;
    samples.shape = labeling.shape();
    samples.data = labeling.labels.data();
    std::vector<TermRequest> requests;
    requests.push_back(termsFor(properties, image.dimensions, 0));
    for (int level = 1; level <= 4; ++level) {
        TermRequest q;
        q.dimensions = image.dimensions;
        q.momentLevel = level;
        q.euler = level % 2 == 0;
        q.crofton = !volume && level == 3;
        requests.push_back(q);
    }
    for (const TermRequest& q : requests) {
        INFO("moment level " << q.momentLevel << ", perimeter " << q.perimeter << ", crofton " << q.crofton
                             << ", euler " << q.euler);
        const RegionTotals expected = measureTerms(samples, nullptr, q, 1);
        const RegionTotals actual = labeler.measureTerms(q);
        REQUIRE(glGetError() == GL_NO_ERROR);
        requireSameTotals(expected, actual);
        requireSameTotals(actual, labeler.measureTerms(q));
    }
    MeasureOptions measure;
    measure.properties.properties = properties;
    const PropertyTable fromLabeling = measureLabeling(labeling, nullptr, measure);
    const RegionTotals gpu = labeler.measureTerms(termsFor(properties, image.dimensions, 0));
    requireSameTable(fromLabeling, finalizeProperties(gpu, measure.properties));
    requireSameTable(finalizeProperties(measureTerms(samples, nullptr, gpu.request, 1), measure.properties),
                     finalizeProperties(gpu, measure.properties));
}

void setPixel(Image& image, int x, int y) { image.setSample(std::size_t(y) * std::size_t(image.width) + std::size_t(x), 0, 255); }

}  // namespace

TEST_CASE("measure: the GPU's 2-D terms are the cpu accumulator's, random images", "[gl][compute][measure]") {
    std::mt19937_64 seeds(61);
    for (auto [w, h] : {std::pair{1, 1}, std::pair{1, 37}, std::pair{41, 1}, std::pair{17, 13}, std::pair{70, 33},
                        std::pair{129, 65}})
        for (double density : {0.0, 0.3, 0.6, 1.0})
            for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
                requireGpuTermsMatchCpu(randomImage(w, h, density, 2, 1, seeds()), connectivity, Criterion::binary(),
                                        kProperties2d, "binary");
                // Segments: regions of different labels touch, so windows and
                // border elements hold several regions.
                requireGpuTermsMatchCpu(randomImage(w, h, density, 4, 1, seeds()), connectivity,
                                        Criterion::segments(), kProperties2d, "segments");
            }
}

TEST_CASE("measure: one-pixel regions, lines, rings with holes, borders, wide sums", "[gl][compute][measure]") {
    // A checkerboard: one-pixel regions at 4-connectivity, one region of
    // many holes at 8.
    Image checkerboard(37, 29);
    for (int y = 0; y < 29; ++y)
        for (int x = 0; x < 37; ++x)
            if ((x + y) % 2 == 0) setPixel(checkerboard, x, y);
    // Lines along x, y and both diagonals, touching every border.
    Image lines(53, 47);
    for (int x = 0; x < 53; ++x) setPixel(lines, x, 0);
    for (int y = 0; y < 47; ++y) setPixel(lines, 52, y);
    for (int t = 0; t < 40; ++t) {
        setPixel(lines, 3 + t, 4 + t);
        setPixel(lines, 45 - t, 5 + t);
    }
    // Rings with holes, nested, and frames along the image's edges.
    Image rings(64, 64);
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x) {
            const int r = std::max(std::abs(x - 32), std::abs(y - 32));
            if (r % 6 < 2 || x == 0 || y == 63) setPixel(rings, x, y);
        }
    // One region filling a wide image: every limb 0 of a moment sum carries
    // (sum of x^3 y^3 past 2^64).
    Image full(700, 300);
    std::fill(full.pixels.begin(), full.pixels.end(), std::uint8_t(255));
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        requireGpuTermsMatchCpu(checkerboard, connectivity, Criterion::binary(), kProperties2d, "checkerboard");
        requireGpuTermsMatchCpu(lines, connectivity, Criterion::binary(), kProperties2d, "lines");
        requireGpuTermsMatchCpu(rings, connectivity, Criterion::binary(), kProperties2d, "rings");
    }
    requireGpuTermsMatchCpu(full, Connectivity::Eight, Criterion::binary(), kProperties2d, "full");
    for (const char* family : {"spiral", "checkerboard", "rings", "comb"})
        requireGpuTermsMatchCpu(generateFamily(family, 97, 61, 5), Connectivity::Eight, Criterion::binary(),
                                kProperties2d, family);
}

TEST_CASE("measure: the GPU's volume terms are the cpu accumulator's", "[gl][compute][measure][volume]") {
    std::mt19937_64 seeds(62);
    for (auto [w, h, d] : {std::tuple{1, 1, 1}, std::tuple{1, 1, 23}, std::tuple{19, 1, 1}, std::tuple{17, 13, 11},
                           std::tuple{33, 9, 20}})
        for (double density : {0.0, 0.3, 0.7, 1.0})
            for (Connectivity connectivity : {Connectivity::Six, Connectivity::TwentySix})
                requireGpuTermsMatchCpu(glccl::test::randomTestVolume(w, h, d, density, seeds()), connectivity,
                                        Criterion::binary(), kProperties3d, "random volume");
    // A hollow box: a cavity (Euler number 2) and sums past 64 bits.
    Image hollow(Shape::volume(60, 50, 40));
    for (int z = 0; z < 40; ++z)
        for (int y = 0; y < 50; ++y)
            for (int x = 0; x < 60; ++x)
                if (x < 3 || y < 3 || z < 3 || x > 56 || y > 46 || z > 36) glccl::test::setVoxel(hollow, x, y, z);
    requireGpuTermsMatchCpu(hollow, Connectivity::TwentySix, Criterion::binary(), kProperties3d, "hollow box");
}

TEST_CASE("measure: a request for no terms, and the requests refused", "[gl][compute][measure]") {
    offscreen().makeCurrent();
    {
        Labeler fresh;
        CHECK_THROWS_WITH(fresh.measureTerms(TermRequest{}),
                          "glccl::Labeler::measureTerms(): nothing was labeled yet");
    }
    Labeler& labeler = offscreen().labeler();
    const Image image = randomImage(40, 30, 0.5, 2, 1, 7);
    ImageTexture texture(image);
    LabelOptions options;
    options.backend = Backend::Compute;
    labeler.label(texture.id(), options);
    const Labeling labeling = labeler.result();
    LabelSamples samples;
    samples.shape = labeling.shape();
    samples.data = labeling.labels.data();
    // Counts and boxes alone, from the table.
    const TermRequest none = termsFor({"label", "bbox", "area", "num_pixels"}, 2, 0);
    REQUIRE_FALSE(none.any());
    requireSameTotals(measureTerms(samples, nullptr, none, 1), labeler.measureTerms(none));

    TermRequest intensity;
    intensity.channels = 1;
    intensity.intensitySums = true;
    CHECK_THROWS_WITH(labeler.measureTerms(intensity),
                      "glccl::Labeler::measureTerms(): intensity terms are gathered on the host (glccl::measureTerms "
                      "of glccl/measure.hpp)");
    TermRequest volume;
    volume.dimensions = 3;
    volume.euler = true;
    CHECK_THROWS_WITH(labeler.measureTerms(volume),
                      "glccl::Labeler::measureTerms(): the request is for 3-D regions, the labels are 2-D");
    ImageTexture cube = ImageTexture::volume(glccl::test::randomTestVolume(5, 4, 3, 0.5, 8));
    options.connectivity = Connectivity::TwentySix;
    labeler.label(cube.id(), options);
    volume.perimeter = true;
    CHECK_THROWS_WITH(labeler.measureTerms(volume),
                      "glccl::Labeler::measureTerms(): perimeter and Crofton terms are 2-D terms");
    REQUIRE(glGetError() == GL_NO_ERROR);
}

TEST_CASE("measure: the host's program, image unit and storage buffer bindings are restored", "[gl][compute][measure]") {
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    const Image image = randomImage(33, 21, 0.5, 2, 1, 9);
    ImageTexture texture(image);
    LabelOptions options;
    options.backend = Backend::Compute;
    labeler.label(texture.id(), options);

    // The host's own objects bound where the passes bind theirs.
    gl::Buffer first = gl::Buffer::create(), second = gl::Buffer::create();
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, first.id());
    glBufferData(GL_SHADER_STORAGE_BUFFER, 64, nullptr, GL_STATIC_DRAW);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, second.id());
    glBufferData(GL_SHADER_STORAGE_BUFFER, 64, nullptr, GL_STATIC_DRAW);
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, second.id(), 16, 32);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, first.id());
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, first.id());
    const gl::Texture mine = gl::Texture::allocate(GL_R32UI, 4, 4, "the host's image");
    glBindImageTexture(0, mine.id(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32UI);
    REQUIRE(glGetError() == GL_NO_ERROR);
    auto snapshot = [] {
        std::vector<GLint64> s;
        GLint64 v = 0;
        for (GLenum pname : {GL_CURRENT_PROGRAM, GL_SHADER_STORAGE_BUFFER_BINDING}) {
            glGetInteger64v(pname, &v);
            s.push_back(v);
        }
        for (GLuint i = 0; i < 2; ++i)
            for (GLenum pname : {GL_SHADER_STORAGE_BUFFER_BINDING, GL_SHADER_STORAGE_BUFFER_START,
                                 GL_SHADER_STORAGE_BUFFER_SIZE}) {
                glGetInteger64i_v(pname, i, &v);
                s.push_back(v);
            }
        for (GLenum pname : {GL_IMAGE_BINDING_NAME, GL_IMAGE_BINDING_ACCESS, GL_IMAGE_BINDING_FORMAT,
                             GL_IMAGE_BINDING_LAYERED}) {
            glGetInteger64i_v(pname, 0, &v);
            s.push_back(v);
        }
        return s;
    };
    const std::vector<GLint64> before = snapshot();
    TermRequest q;
    q.momentLevel = 2;
    q.perimeter = q.crofton = q.euler = true;
    labeler.measureTerms(q);
    CHECK(snapshot() == before);
    REQUIRE(glGetError() == GL_NO_ERROR);
}

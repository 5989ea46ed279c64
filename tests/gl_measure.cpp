// Labeler::measureTerms: region terms gathered on the GPU from the compute
// engine's labels, against the cpu engine's accumulator (glccl::measureTerms
// of the downloaded labels, validated against scikit-image) limb for limb,
// and the property tables finalized from both: random images and volumes,
// one-pixel regions, lines, rings with holes, regions on the borders, sums
// past 32 and 64 bits, every moment level, empty images, small regions
// measured alone (measure_small) and an image's medium ones by a work group
// each (measure_medium) beside larger ones in batches, and the same images
// with the medium regions left to the passes over the labels; repeated
// calls the same; the requests it refuses.

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gl.hpp"
#include "gl_objects.hpp"
#include "measure_terms.hpp"
#include "state_guard.hpp"
#include "gl_support.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/measure.hpp"
#include "glccl/region_properties.hpp"
#include "glccl/session.hpp"
#include "glccl/texture.hpp"
#include "volume_support.hpp"
#include "measure_support.hpp"

using namespace glccl;
using glccl::test::offscreen;
using glccl::test::requireSameTable;

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
    REQUIRE(actual.intensitySum == expected.intensitySum);
    REQUIRE(actual.intensitySquares == expected.intensitySquares);
    REQUIRE(actual.intensitySumFloat.size() == expected.intensitySumFloat.size());
    REQUIRE(actual.intensitySquaresFloat.size() == expected.intensitySquaresFloat.size());
    REQUIRE(actual.intensityMin == expected.intensityMin);
    REQUIRE(actual.intensityMax == expected.intensityMax);
    REQUIRE(actual.intensityMinBits == expected.intensityMinBits);
    REQUIRE(actual.intensityMaxBits == expected.intensityMaxBits);
    REQUIRE(actual.intensityMinAt == expected.intensityMinAt);
    REQUIRE(actual.intensityMaxAt == expected.intensityMaxAt);
    REQUIRE(actual.weightedMoments == expected.weightedMoments);
    REQUIRE(actual.weightedMomentsFloat.size() == expected.weightedMomentsFloat.size());
}


// `image` (2-D or a volume) labeled by the compute engine in the shared
// Labeler, whose label texture then holds its labels.
Labeling computeLabeling(Labeler& labeler, const Image& image, Connectivity connectivity,
                         const Criterion& criterion = Criterion::binary()) {
    ImageTexture texture = image.dimensions == 3 ? ImageTexture::volume(image) : ImageTexture(image);
    LabelOptions options;
    options.backend = Backend::Compute;
    options.connectivity = connectivity;
    options.criterion = criterion;
    labeler.label(texture.id(), options);
    REQUIRE(labeler.backend() == Backend::Compute);
    return labeler.result();
}

// Host views of a labeling's labels and of an intensity image, for the cpu
// accumulator (valid while they live).
LabelSamples labelSamples(const Labeling& labeling) {
    LabelSamples labels;
    labels.shape = labeling.shape();
    labels.data = labeling.labels.data();
    return labels;
}

IntensitySamples intensitySamples(const Image& intensity) {
    IntensitySamples samples;
    samples.shape = intensity.shape();
    samples.data = intensity.pixels.data();
    samples.bytes = intensity.sampleBits / 8;
    return samples;
}

// The Labeler's label texture at `image`'s size, for a TermGatherer.
gl::Texture borrowedLabels(Labeler& labeler, const Image& image) {
    return image.dimensions == 3
               ? gl::Texture::borrowVolume(labeler.labelTexture(), GL_R32UI, image.width, image.height, image.depth)
               : gl::Texture::borrow(labeler.labelTexture(), GL_R32UI, image.width, image.height);
}

// The totals of `q` of the labels in the Labeler's label texture (of
// `image`, labeled as `labeling`), with no region left to measure_medium:
// the regions it would take walked by the passes over the labels.
RegionTotals gatheredWithoutMedium(Labeler& labeler, const Image& image, const Labeling& labeling,
                                   const TermRequest& q, unsigned intensity = 0) {
    const gl::Texture labels = borrowedLabels(labeler, image);
    measure::TermGatherer gatherer;
    gatherer.setLargestMedium(0);
    const StateGuard guard;  // as Labeler::measureTerms() guards the passes
    const measure::Intensity given = intensity ? measure::intensityOf(intensity, labels) : measure::Intensity{};
    const RegionTotals totals = gatherer.gather(labels, labeling.components, q, given);
    REQUIRE(glGetError() == GL_NO_ERROR);
    return totals;
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
    const Labeling labeling = computeLabeling(labeler, image, connectivity, criterion);
    const LabelSamples samples = labelSamples(labeling);
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
        requireSameTotals(expected, gatheredWithoutMedium(labeler, image, labeling, q));
    }
    MeasureOptions measure;
    measure.properties.properties = properties;
    const PropertyTable fromLabeling = measureLabeling(labeling, nullptr, measure);
    const RegionTotals gpu = labeler.measureTerms(termsFor(properties, image.dimensions, 0));
    requireSameTable(fromLabeling, finalizeProperties(gpu, measure.properties));
    requireSameTable(finalizeProperties(measureTerms(samples, nullptr, gpu.request, 1), measure.properties),
                     finalizeProperties(gpu, measure.properties));
}

// Unsigned samples of `bits`, each pick(a random 64-bit draw, the largest
// sample of `bits`).
template <class Pick>
Image drawnIntensity(const Shape& shape, int bits, std::uint64_t seed, Pick pick) {
    Image image(shape, 1, bits);
    std::mt19937_64 random(seed);
    const std::uint64_t largest = bits == 32 ? 0xffffffffu : (std::uint64_t(1) << bits) - 1;
    for (std::size_t i = 0; i < shape.count(); ++i) image.setSample(i, 0, std::uint32_t(pick(random(), largest)));
    return image;
}

// Random unsigned samples of `bits`, the format's largest value among them.
Image randomIntensity(const Shape& shape, int bits, std::uint64_t seed) {
    return drawnIntensity(shape, bits, seed, [](std::uint64_t r, std::uint64_t largest) {
        return r % 5 == 0 ? largest : r % 7 == 0 ? 0 : (r >> 8) & largest;
    });
}

// The intensity as a texture of `format`, 2-D or 3-D as the image.
gl::Texture intensityTexture(const Image& image, GLenum format) {
    const bool volume = image.dimensions == 3;
    gl::Texture texture = volume ? gl::Texture::allocateVolume(format, image.width, image.height, image.depth, "an intensity")
                                 : gl::Texture::allocate(format, image.width, image.height, "an intensity");
    const bool integer = format == GL_R8UI || format == GL_R16UI || format == GL_R32UI;
    const GLenum type = image.sampleBits == 8 ? GL_UNSIGNED_BYTE : image.sampleBits == 16 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT;
    texture.upload(image.pixels.data(), integer ? GL_RED_INTEGER : GL_RED, type);
    return texture;
}

// Labels `labelImage` with the compute engine and requires the GPU's
// intensity terms of `intensity` (a texture of `format`) to be the cpu
// accumulator's, and the finalized tables measureLabeling's.
void requireGpuIntensityTermsMatchCpu(const Image& labelImage, Connectivity connectivity, const Image& intensity,
                                      GLenum format, const std::string& name) {
    const bool volume = labelImage.dimensions == 3;
    INFO(name << " " << labelImage.width << "x" << labelImage.height << "x" << labelImage.depth << " format "
              << textureFormatName(format));
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    const gl::Texture samples = intensityTexture(intensity, format);
    const Labeling labeling = computeLabeling(labeler, labelImage, connectivity);
    const LabelSamples labels = labelSamples(labeling);
    const IntensitySamples host = intensitySamples(intensity);
    std::vector<std::string> properties = {"intensity_mean", "intensity_std", "intensity_min", "intensity_max",
                                           "intensity_min_position", "intensity_max_position", "moments_weighted",
                                           "moments_weighted_central", "moments", "euler_number"};
    if (!volume) properties.push_back("moments_weighted_hu");
    const TermRequest all = termsFor(properties, labelImage.dimensions, 1, SampleKind::Unsigned, intensity.sampleBits);
    std::vector<TermRequest> requests = {all};
    for (int level = 1; level <= 3; ++level) {
        TermRequest q;
        q.dimensions = labelImage.dimensions;
        q.channels = 1;
        q.intensityBits = intensity.sampleBits;
        q.weightedMomentLevel = level;
        q.intensitySums = level == 2;
        q.intensityExtrema = level != 2;  // with their positions at level 3 only
        q.intensityPositions = level == 3;
        requests.push_back(q);
    }
    for (const TermRequest& q : requests) {
        INFO("weighted level " << q.weightedMomentLevel << ", sums " << q.intensitySums << ", extrema "
                               << q.intensityExtrema << ", positions " << q.intensityPositions);
        const RegionTotals expected = measureTerms(labels, &host, q, 1);
        const RegionTotals actual = labeler.measureTerms(q, samples.id());
        REQUIRE(glGetError() == GL_NO_ERROR);
        requireSameTotals(expected, actual);
        requireSameTotals(actual, labeler.measureTerms(q, samples.id()));
        requireSameTotals(expected, gatheredWithoutMedium(labeler, labelImage, labeling, q, samples.id()));
    }
    MeasureOptions measure;
    measure.properties.properties = properties;
    requireSameTable(measureLabeling(labeling, &host, measure),
                     finalizeProperties(labeler.measureTerms(all, samples.id()), measure.properties));
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

TEST_CASE("measure: one region around many one-pixel regions, rows across work groups and groups across rows",
          "[gl][compute][measure]") {
    // A grid (x % 4 == 0 or y % 4 == 0) holding one pixel in each cell at
    // (2, 2): rows y % 4 == 2 alternate grid and one-pixel regions, so
    // that nearly every segment keeps the grid and passes small regions.
    // Rows of 2600 span two work groups; rows of 90 put several in one.
    for (auto [w, h] : {std::pair{2600, 11}, std::pair{90, 70}, std::pair{33, 200}}) {
        Image grid(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                if (x % 4 == 0 || y % 4 == 0 || (x % 4 == 2 && y % 4 == 2)) setPixel(grid, x, y);
        requireGpuTermsMatchCpu(grid, Connectivity::Eight, Criterion::binary(), kProperties2d, "grid");
        for (auto [format, bits] : {std::pair{GLenum(GL_R8), 8}, std::pair{GLenum(GL_R32UI), 32}})
            requireGpuIntensityTermsMatchCpu(grid, Connectivity::Eight, randomIntensity(grid.shape(), bits, 11), format,
                                             "grid");
    }
}

TEST_CASE("measure: two large regions ending the segments of a row in turn, across work groups",
          "[gl][compute][measure][intensity]") {
    // Bands 200 columns wide, a background column between them, each a
    // checkerboard with a bridge column: the even bands hang from a spine
    // along the top row, the odd ones stand on a spine along the bottom
    // row, two regions at 8-connectivity. Bands and segments (256 elements)
    // do not line up, so the runs that end the segments of one work group
    // belong to either region in no regular order: a pass that carries a
    // region's runs across segments or lanes must keep the two apart. Rows
    // of 16380 fill a work group's segments (at the widest texture of the
    // least GL limit), the last one short; rows of 3000 leave most lanes
    // idle.
    for (auto [w, h] : {std::pair{16380, 7}, std::pair{3000, 24}}) {
        Image bands(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const int band = x / 200;
                const int column = x % 200;
                const bool inner = column != 199 && ((x + y) % 2 == 0 || column == 0);
                const bool hanging = band % 2 == 0 ? y == 0 || (inner && y <= h - 3) : y == h - 1 || (inner && y >= 2);
                if (hanging) setPixel(bands, x, y);
            }
        requireGpuTermsMatchCpu(bands, Connectivity::Eight, Criterion::binary(), kProperties2d, "bands");
        for (auto [format, bits] : {std::pair{GLenum(GL_R8UI), 8}, std::pair{GLenum(GL_R16UI), 16},
                                    std::pair{GLenum(GL_R32UI), 32}})
            requireGpuIntensityTermsMatchCpu(bands, Connectivity::Eight, randomIntensity(bands.shape(), bits, 17),
                                             format, "bands");
    }
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

TEST_CASE("measure: records packed to the bits of their tiers' bounds, regions at those bounds",
          "[gl][compute][measure]") {
    // Full boxes of every w x h up to kSmallBox elements (the small tiers'
    // largest sums), grids of holes (negative Euler numbers) in a small box
    // and in one of the box tier's, a full box of that tier's largest sides,
    // and lines 255 long, under intensities of each format's largest sample.
    Image image(820, 360);
    int x = 0, y = 0, shelf = 0;
    auto place = [&](int w, int h, int d, int across, auto set) {
        if (x + w > across) x = 0, y += shelf + 1, shelf = 0;
        for (int dz = 0; dz < d; ++dz)
            for (int dy = 0; dy < h; ++dy)
                for (int dx = 0; dx < w; ++dx) set(x + dx, y + dy, dz);
        x += w + 1;
        shelf = std::max(shelf, h);
    };
    auto pixel = [&](int px, int py, int) { setPixel(image, px, py); };
    for (int w = 1; w <= measure::kSmallBox; ++w)
        for (int h = 1; w * h <= measure::kSmallBox; ++h) place(w, h, 1, 540, pixel);
    REQUIRE(y + shelf < 250);
    auto grid = [&](int x0, int y0, int w, int h) {
        for (int dy = 0; dy < h; ++dy)
            for (int dx = 0; dx < w; ++dx)
                if (dx % 2 == 0 || dy % 2 == 0) setPixel(image, x0 + dx, y0 + dy);
    };
    grid(0, 255, 99, 99);
    grid(110, 255, 7, 9);
    for (int dy = 0; dy < 255; ++dy)
        for (int dx = 0; dx < 255; ++dx) setPixel(image, 550 + dx, dy);
    for (int t = 0; t < 255; ++t) {
        setPixel(image, 130 + t, 300);
        setPixel(image, 815, t);
    }
    // The largest boxes of kPackBoxSplit elements or fewer.
    for (auto [x0, y0, w, h] : {std::array<int, 4>{400, 260, 32, 32}, std::array<int, 4>{130, 305, 255, 4},
                                std::array<int, 4>{808, 0, 4, 255}})
        for (int dy = 0; dy < h; ++dy)
            for (int dx = 0; dx < w; ++dx) setPixel(image, x0 + dx, y0 + dy);
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
        requireGpuTermsMatchCpu(image, connectivity, Criterion::binary(), kProperties2d, "tiers' bounds");
    auto largest = [](std::uint64_t, std::uint64_t most) { return most; };
    for (auto [format, bits] : {std::pair{GLenum(GL_R8), 8}, std::pair{GLenum(GL_R16UI), 16},
                                std::pair{GLenum(GL_R32UI), 32}})
        requireGpuIntensityTermsMatchCpu(image, Connectivity::Eight, drawnIntensity(image.shape(), bits, 1, largest),
                                         format, "tiers' bounds, largest samples");
    // A volume's: full boxes up to kSmallBox voxels (sides of powers of 2,
    // 64 along x), box tiers' full boxes of 1024 and 64,000 voxels, and one
    // with tunnels.
    Image volume(Shape::volume(150, 100, 40));
    x = 0, y = 0, shelf = 0;
    auto voxel = [&](int vx, int vy, int vz) { glccl::test::setVoxel(volume, vx, vy, vz); };
    for (int w : {1, 2, 4, 8, 16, 32, 64})
        for (int h : {1, 2, 4, 8, 16, 32})
            for (int d : {1, 2, 4, 8, 16, 32})
                if (w * h * d <= measure::kSmallBox) place(w, h, d, 100, voxel);
    REQUIRE(y + shelf < 100);
    for (int dz = 0; dz < 40; ++dz)
        for (int dy = 0; dy < 40; ++dy)
            for (int dx = 0; dx < 40; ++dx) {
                voxel(105 + dx, 2 + dy, dz);
                if (int(dx % 2 == 0) + int(dy % 2 == 0) + int(dz % 2 == 0) >= 2) voxel(105 + dx, 50 + dy, dz);
                if (dx < 8 && dy < 8 && dz < 16) voxel(105 + dx, 91 + dy, dz);
            }
    requireGpuTermsMatchCpu(volume, Connectivity::TwentySix, Criterion::binary(), kProperties3d, "tiers' bounds");
    requireGpuIntensityTermsMatchCpu(volume, Connectivity::Six, drawnIntensity(volume.shape(), 32, 1, largest),
                                     GL_R32UI, "tiers' bounds, largest samples");
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
    const LabelSamples samples = labelSamples(labeling);
    // Counts and boxes alone, from the table.
    const TermRequest none = termsFor({"label", "bbox", "area", "num_pixels"}, 2, 0);
    REQUIRE_FALSE(none.any());
    requireSameTotals(measureTerms(samples, nullptr, none, 1), labeler.measureTerms(none));

    TermRequest intensity;
    intensity.channels = 1;
    intensity.intensitySums = true;
    CHECK_THROWS_WITH(labeler.measureTerms(intensity),
                      "glccl::Labeler::measureTerms(): the request has intensity terms and no intensity texture is "
                      "given");
    CHECK_THROWS_WITH(labeler.measureTerms(none, texture.id()),
                      "glccl::Labeler::measureTerms(): an intensity texture is given to a request without intensity "
                      "terms (channels 1 and sums, extrema or weighted moments)");
    intensity.intensityKind = SampleKind::Float;
    CHECK_THROWS_WITH(labeler.measureTerms(intensity, texture.id()),
                      "glccl::Labeler::measureTerms(): intensity terms are gathered here of one channel of unsigned "
                      "samples; others on the host (glccl::measureTerms of glccl/measure.hpp)");
    intensity.intensityKind = SampleKind::Unsigned;
    ImageTexture other(randomImage(41, 30, 0.5, 2, 1, 8));
    CHECK_THROWS_WITH(labeler.measureTerms(intensity, other.id()),
                      "glccl::Labeler::measureTerms(): the intensity texture is 41x30, the labels are 40x30");
    const gl::Texture floats = gl::Texture::allocate(GL_R32F, 40, 30, "a float intensity");
    CHECK_THROWS_WITH(labeler.measureTerms(intensity, floats.id()),
                      "glccl::Labeler::measureTerms(): the intensity texture is GL_R32F; intensity terms are gathered "
                      "of GL_R8, GL_R8UI, GL_R16, GL_R16UI and GL_R32UI textures");
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

TEST_CASE("measure: the host's program, image unit, storage and pixel-pack buffer bindings are restored", "[gl][compute][measure]") {
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
    glBindBuffer(GL_PIXEL_PACK_BUFFER, second.id());
    const gl::Texture mine = gl::Texture::allocate(GL_R32UI, 4, 4, "the host's image");
    glBindImageTexture(0, mine.id(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32UI);
    REQUIRE(glGetError() == GL_NO_ERROR);
    auto snapshot = [] {
        std::vector<GLint64> s;
        GLint64 v = 0;
        for (GLenum pname : {GL_CURRENT_PROGRAM, GL_SHADER_STORAGE_BUFFER_BINDING, GL_PIXEL_PACK_BUFFER_BINDING}) {
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
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    REQUIRE(glGetError() == GL_NO_ERROR);
}

TEST_CASE("measure: the GPU's intensity terms are the cpu accumulator's", "[gl][compute][measure][intensity]") {
    std::mt19937_64 seeds(63);
    for (auto [w, h] : {std::pair{1, 1}, std::pair{23, 1}, std::pair{37, 29}, std::pair{130, 40}})
        for (double density : {0.3, 1.0})
            for (auto [format, bits] : {std::pair{GLenum(GL_R8), 8}, std::pair{GLenum(GL_R8UI), 8},
                                        std::pair{GLenum(GL_R16), 16}, std::pair{GLenum(GL_R16UI), 16},
                                        std::pair{GLenum(GL_R32UI), 32}})
                requireGpuIntensityTermsMatchCpu(randomImage(w, h, density, 2, 1, seeds()), Connectivity::Eight,
                                                 randomIntensity(Shape::image(w, h), bits, seeds()), format, "image");
    // One region filling a wide image: sums of squares and weighted moments
    // of 32-bit samples past 128 bits.
    Image full(500, 200);
    std::fill(full.pixels.begin(), full.pixels.end(), std::uint8_t(255));
    requireGpuIntensityTermsMatchCpu(full, Connectivity::Four, randomIntensity(full.shape(), 32, 5), GL_R32UI, "full");
    // Rows wider than 1625: x^3 takes two limbs, and so does each sample
    // times it.
    Image wide(2100, 3);
    std::fill(wide.pixels.begin(), wide.pixels.end(), std::uint8_t(255));
    requireGpuIntensityTermsMatchCpu(wide, Connectivity::Four, randomIntensity(wide.shape(), 32, 6), GL_R32UI, "wide");
    for (auto [w, h, d] : {std::tuple{1, 1, 1}, std::tuple{17, 13, 11}, std::tuple{40, 9, 21}})
        for (auto [format, bits] : {std::pair{GLenum(GL_R8), 8}, std::pair{GLenum(GL_R32UI), 32}})
            requireGpuIntensityTermsMatchCpu(glccl::test::randomTestVolume(w, h, d, 0.5, seeds()),
                                             Connectivity::TwentySix,
                                             randomIntensity(Shape::volume(w, h, d), bits, seeds()), format, "volume");
    // A box 600 voxels long: weighted moments of level 4 sized for 8 limbs.
    Image rod(Shape::volume(600, 2, 3));
    std::fill(rod.pixels.begin(), rod.pixels.end(), std::uint8_t(255));
    requireGpuIntensityTermsMatchCpu(rod, Connectivity::Six, randomIntensity(rod.shape(), 32, 7), GL_R32UI, "rod");
}

TEST_CASE("measure: timings name one stage per measuring pass, after the labeling's", "[gl][compute][measure]") {
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    // Noise wider than a medium box (its largest region is left to the
    // passes over the labels, and takes replicas: measure_fold), with
    // kSmallLeast small regions and more besides its points, which no pass
    // measures (measure_small's), and, on a cleared patch, a 40 x 30
    // rectangle (measure_medium's).
    Image image = generateFamily("noise50", 800, 300, 1);
    for (int y = 18; y < 52; ++y)
        for (int x = 198; x < 242; ++x)
            image.setSample(std::size_t(y) * 800 + std::size_t(x), 0,
                            x >= 200 && x < 240 && y >= 20 && y < 50 ? 255 : 0);
    ImageTexture texture(image);
    const gl::Texture samples = intensityTexture(randomIntensity(image.shape(), 8, 3), GL_R8);
    LabelOptions options;
    options.backend = Backend::Compute;
    options.timings = true;
    options.measure.properties = {"area", "centroid", "perimeter", "euler_number", "intensity_max_position"};
    options.intensity = samples.id();
    auto stageNames = [&] {
        std::vector<std::string> names;
        for (const StageTime& t : labeler.stageTimings()) names.push_back(t.stage);
        return names;
    };
    labeler.label(texture.id(), options);
    // The perimeter's walk counts the Euler number's windows too. The
    // noise's one-pixel regions come down as their samples alone (or as
    // nothing): the records are packed.
    CHECK(stageNames() == std::vector<std::string>{"local_merge", "merge_borders", "count_roots", "final_labels",
                                                 "download_table", "clear_records", "upload_boxes", "measure_small",
                                                 "measure_medium", "measure_terms", "measure_fold", "measure_extrema",
                                                 "measure_pack", "download_terms"});
    // The Euler number without the perimeter: the windows' own pass.
    options.measure.properties = {"euler_number"};
    options.intensity = 0;
    labeler.label(texture.id(), options);
    CHECK(stageNames() == std::vector<std::string>{"local_merge", "merge_borders", "count_roots", "final_labels",
                                                 "download_table", "clear_records", "upload_boxes", "measure_small",
                                                 "measure_medium", "measure_windows", "measure_fold", "measure_pack",
                                                 "download_terms"});
    // Moments to the third order: the small regions' records, narrower than
    // the noise's largest region's, packed before they come down.
    options.measure.properties = {"moments"};
    labeler.label(texture.id(), options);
    CHECK(stageNames() == std::vector<std::string>{"local_merge", "merge_borders", "count_roots", "final_labels",
                                                 "download_table", "clear_records", "upload_boxes", "measure_small",
                                                 "measure_medium", "measure_terms", "measure_fold", "measure_pack",
                                                 "download_terms"});
    // The region buffer's passes: the corners and rows (region_rows), the
    // moment sums between them.
    options.measure = {};
    options.intensity = 0;
    labeler.label(texture.id(), options);
    labeler.regionBuffer();
    CHECK(stageNames() == std::vector<std::string>{"local_merge", "merge_borders", "count_roots", "final_labels",
                                                 "region_rows", "measure_terms"});
}

TEST_CASE("measure: a context without compute shaders measures the downloaded labels on the host",
          "[gl][measure][.mesa33]") {
    // Registered by tests/CMakeLists.txt under MESA_GL_VERSION_OVERRIDE=3.3
    // (Mesa answers a 3.3 request with its newest version otherwise).
    HeadlessContext::Options contextOptions;
    contextOptions.major = 3;
    contextOptions.minor = 3;
    HeadlessContext context(contextOptions);
    const ContextInfo& info = context.info();
    const char* pinned = std::getenv("MESA_GL_VERSION_OVERRIDE");
    if (pinned && std::string(pinned) == "3.3" && info.vendor.find("Mesa") != std::string::npos)
        REQUIRE(info.major == 3);
    if (info.major != 3) {
        WARN("the context is " << info.version << ", not 3.3: nothing to check here");
        return;
    }
    Labeler labeler;
    const Image image = randomImage(45, 31, 0.5, 2, 1, 12);
    ImageTexture texture(image);
    LabelOptions options;
    options.backend = Backend::Raster;
    labeler.label(texture.id(), options);
    const Labeling labeling = labeler.result();
    LabelSamples samples;
    samples.shape = labeling.shape();
    samples.data = labeling.labels.data();
    const TermRequest q = termsFor(kProperties2d, 2, 0);
    requireSameTotals(measureTerms(samples, nullptr, q, 1), labeler.measureTerms(q));
    const TermRequest intensity = termsFor({"intensity_mean"}, 2, 1);
    CHECK_THROWS_WITH(labeler.measureTerms(intensity, texture.id()),
                      Catch::Contains("intensity terms are gathered in OpenGL 4.3 contexts, this is 3.3"));
    REQUIRE(glGetError() == GL_NO_ERROR);
}

TEST_CASE("measure: regions gathered in batches give the same totals", "[gl][compute][measure]") {
    // Batches of a few regions each stand for a labeling whose records pass
    // one storage block (millions of regions).
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    std::mt19937_64 seeds(64);
    for (bool volume : {false, true}) {
        const Image image = volume ? glccl::test::randomTestVolume(21, 17, 9, 0.3, seeds())
                                   : randomImage(67, 45, 0.35, 2, 1, seeds());
        const Image intensity = randomIntensity(image.shape(), 16, seeds());
        const gl::Texture samples = intensityTexture(intensity, GL_R16UI);
        const Labeling labeling = computeLabeling(labeler, image, volume ? Connectivity::Six : Connectivity::Four);
        REQUIRE(labeling.components.size() > 50);
        const LabelSamples labels = labelSamples(labeling);
        const IntensitySamples host = intensitySamples(intensity);
        std::vector<std::string> properties = {"moments", "euler_number", "intensity_mean", "intensity_min",
                                               "intensity_max_position", "moments_weighted"};
        if (!volume) properties.insert(properties.end(), {"perimeter", "perimeter_crofton"});
        const TermRequest q = termsFor(properties, image.dimensions, 1, SampleKind::Unsigned, 16);
        const RegionTotals expected = measureTerms(labels, &host, q, 1);
        const gl::Texture borrowed = borrowedLabels(labeler, image);
        measure::TermGatherer gatherer;
        for (std::size_t bytes : {std::size_t(3000), std::size_t(20000), std::size_t(0)}) {
            INFO((volume ? "volume" : "image") << ", batches of at most " << bytes << " bytes");
            gatherer.setLargestBatch(bytes);
            const StateGuard guard;  // as Labeler::measureTerms() guards the passes
            const measure::Intensity given = measure::intensityOf(samples.id(), borrowed);
            requireSameTotals(expected, gatherer.gather(borrowed, labeling.components, q, given));
        }
        REQUIRE(glGetError() == GL_NO_ERROR);
    }
}

// Noise with lines along x of kSmallBox and kSmallBox + 1 elements on rows
// (and in a volume slices) of their own: regions measure_small measures
// (one-pixel ones, ones on every side of the image, one whose box holds
// kSmallBox elements exactly) beside regions the passes over the labels
// gather.
Image smallAndLarge(bool volume, std::uint64_t seed) {
    const int w = measure::kSmallBox + 9, h = volume ? 17 : 41, d = volume ? 11 : 1;
    Image image = volume ? glccl::test::randomTestVolume(w, h, d, 0.3, seed) : randomImage(w, h, 0.42, 2, 1, seed);
    const int middle = d / 2;
    for (int z = std::max(middle - 1, 0); z <= std::min(middle + 1, d - 1); ++z)
        for (int y = 4; y < 9; ++y)
            for (int x = 0; x < w; ++x) {
                const bool line =
                    z == middle && ((y == 5 && x < measure::kSmallBox) || (y == 7 && x <= measure::kSmallBox));
                image.setSample((std::size_t(z) * std::size_t(h) + std::size_t(y)) * std::size_t(w) + std::size_t(x),
                                0, line ? 255 : 0);
            }
    return image;
}

TEST_CASE("measure: regions measured alone beside larger ones, in batches, with and without an intensity",
          "[gl][compute][measure]") {
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    std::mt19937_64 seeds(65);
    for (bool volume : {false, true}) {
        const Image image = smallAndLarge(volume, seeds());
        const Labeling labeling = computeLabeling(labeler, image, volume ? Connectivity::Six : Connectivity::Four);
        // What the image is for: both kinds of region, and among those
        // measured alone one-pixel ones, ones on each side, and a box of
        // kSmallBox elements exactly.
        std::size_t alone = 0, larger = 0, single = 0, fullBox = 0;
        bool left = false, right = false, top = false, bottom = false;
        for (const Component& c : labeling.components) {
            const std::uint64_t box = std::uint64_t(c.width) * c.height * c.depth;
            if (box > std::uint64_t(measure::kSmallBox)) {
                ++larger;
                continue;
            }
            ++alone;
            single += c.area == 1;
            fullBox += box == std::uint64_t(measure::kSmallBox);
            left = left || c.left == 0;
            top = top || c.top == 0;
            right = right || int(c.left + c.width) == image.width;
            bottom = bottom || int(c.top + c.height) == image.height;
        }
        INFO((volume ? "volume" : "image") << ": " << alone << " regions measured alone, " << larger << " larger");
        REQUIRE(alone > 20);
        REQUIRE(larger > 2);
        REQUIRE(single > 3);
        REQUIRE(fullBox > 0);
        REQUIRE((left && right && top && bottom));

        const LabelSamples labels = labelSamples(labeling);
        const gl::Texture borrowed = borrowedLabels(labeler, image);
        std::vector<std::string> spatial = {"moments", "euler_number"};
        if (!volume) spatial.insert(spatial.end(), {"perimeter", "perimeter_crofton"});
        const std::vector<std::string> intensityProperties = {"intensity_mean", "intensity_std", "intensity_min",
                                                              "intensity_max", "intensity_min_position",
                                                              "intensity_max_position", "moments_weighted"};
        measure::TermGatherer gatherer;
        // Without an intensity: every term, the windows alone (no pass over
        // the elements), the moments alone.
        std::vector<TermRequest> requests = {termsFor(spatial, image.dimensions, 0),
                                             termsFor({"euler_number"}, image.dimensions, 0),
                                             termsFor({"centroid"}, image.dimensions, 0)};
        for (const TermRequest& q : requests) {
            const RegionTotals expected = measureTerms(labels, nullptr, q, 1);
            for (std::size_t bytes : {std::size_t(2000), std::size_t(0)}) {
                INFO("moment level " << q.momentLevel << ", euler " << q.euler << ", batches of at most " << bytes
                                     << " bytes");
                gatherer.setLargestBatch(bytes);
                const StateGuard guard;
                requireSameTotals(expected, gatherer.gather(borrowed, labeling.components, q));
            }
        }
        for (auto [format, bits] : {std::pair{GLenum(GL_R8), 8}, std::pair{GLenum(GL_R16UI), 16},
                                    std::pair{GLenum(GL_R32UI), 32}}) {
            const Image intensity = randomIntensity(image.shape(), bits, seeds());
            const gl::Texture samples = intensityTexture(intensity, format);
            const IntensitySamples host = intensitySamples(intensity);
            std::vector<std::string> all = spatial;
            all.insert(all.end(), intensityProperties.begin(), intensityProperties.end());
            // Every term; the extrema and their positions alone.
            for (const TermRequest& q :
                 {termsFor(all, image.dimensions, 1, SampleKind::Unsigned, bits),
                  termsFor({"intensity_max_position", "intensity_min"}, image.dimensions, 1, SampleKind::Unsigned, bits)}) {
                const RegionTotals expected = measureTerms(labels, &host, q, 1);
                for (std::size_t bytes : {std::size_t(3000), std::size_t(0)}) {
                    INFO(bits << "-bit samples, weighted level " << q.weightedMomentLevel << ", batches of at most "
                              << bytes << " bytes");
                    gatherer.setLargestBatch(bytes);
                    const StateGuard guard;
                    const measure::Intensity given = measure::intensityOf(samples.id(), borrowed);
                    requireSameTotals(expected, gatherer.gather(borrowed, labeling.components, q, given));
                }
            }
        }
        REQUIRE(glGetError() == GL_NO_ERROR);
    }
    // Beside a rod 600 voxels long, records of 4 and 8 limbs (moments and
    // weighted moments of level 4 of 32-bit samples): the one-voxel
    // regions' sums fill their low limbs, the rest 0.
    Image rod(Shape::volume(600, 3, 3));
    for (int x = 0; x < 600; ++x) {
        glccl::test::setVoxel(rod, x, 0, 0);
        if (x % 2 == 0) glccl::test::setVoxel(rod, x, 2, 2);
    }
    requireGpuTermsMatchCpu(rod, Connectivity::Six, Criterion::binary(), kProperties3d, "rod and voxels");
    requireGpuIntensityTermsMatchCpu(rod, Connectivity::Six, randomIntensity(rod.shape(), 32, 8), GL_R32UI,
                                     "rod and voxels");
}

namespace {

// An image's regions that measure_medium measures beside ones it does not,
// on sparse noise (small regions, a few medium ones):
// - a filled 128 x 128 square in the top-left corner: a box of kMediumBox
//   elements exactly and an area of kHotArea (its group measures it, no
//   replicas do);
// - a ring 255 wide (the widest medium box), its hole cut by diagonal bars
//   into holes, some holding one-pixel regions (it and the square are
//   loaded by measure_medium in several bands of rows);
// - a bar 256 wide, and a snake past kMediumBox elements: left to the
//   passes over the labels;
// - lines of kSmallBox and kSmallBox + 1 elements (measure_small's last
//   box and measure_medium's first);
// - disks cut by the right and bottom sides, and a tall thin region.
// Each shape is drawn on a cleared margin of 2, so that none touches the
// noise.
Image mediumAndOthers(std::uint64_t seed) {
    const int w = 720, h = 330;
    Image image = randomImage(w, h, 0.3, 2, 1, seed);
    auto set = [&](int x, int y, bool on) {
        if (x >= 0 && y >= 0 && x < w && y < h)
            image.setSample(std::size_t(y) * std::size_t(w) + std::size_t(x), 0, on ? 255 : 0);
    };
    auto clear = [&](int x0, int y0, int x1, int y1) {  // [x0, x1) x [y0, y1) and the margin
        for (int y = y0 - 2; y < y1 + 2; ++y)
            for (int x = x0 - 2; x < x1 + 2; ++x) set(x, y, false);
    };
    clear(0, 0, 128, 128);
    for (int y = 0; y < 128; ++y)
        for (int x = 0; x < 128; ++x) set(x, y, true);
    // The ring: its box 255 x 60, holes in it with a one-pixel region each.
    clear(140, 10, 395, 70);
    for (int y = 10; y < 70; ++y)
        for (int x = 140; x < 395; ++x) {
            const bool hole = x >= 150 && x < 385 && y >= 20 && y < 60 && !((x + y) % 37 < 3);
            set(x, y, !hole);
        }
    for (int k = 0; k < 10; ++k) set(160 + 22 * k, 40, true);
    // The bar, 256 x 5, and the snake, 5 rows 200 long joined at alternate ends.
    clear(140, 90, 396, 95);
    for (int y = 90; y < 95; ++y)
        for (int x = 140; x < 396; ++x) set(x, y, true);
    clear(420, 10, 620, 120);
    for (int row = 0; row < 5; ++row) {
        const int y0 = 10 + 24 * row;
        for (int y = y0; y < y0 + 20 && y < 120; ++y)
            for (int x = 420; x < 620; ++x) set(x, y, true);
        const int x = row % 2 == 0 ? 612 : 420;
        for (int y = y0 + 20; y < y0 + 24 && row < 4; ++y)
            for (int dx = 0; dx < 8; ++dx) set(x + dx, y, true);
    }
    // The lines.
    clear(140, 110, 140 + measure::kSmallBox + 1, 113);
    for (int x = 140; x < 140 + measure::kSmallBox; ++x) set(x, 110, true);
    for (int x = 140; x <= 140 + measure::kSmallBox; ++x) set(x, 112, true);
    // Disks cut by the right and bottom sides, a tall thin region.
    auto disk = [&](int cx, int cy, int r) {
        clear(cx - r, cy - r, cx + r + 1, cy + r + 1);
        for (int y = cy - r; y <= cy + r; ++y)
            for (int x = cx - r; x <= cx + r; ++x) set(x, y, (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r);
    };
    disk(w - 10, 200, 30);
    disk(300, h - 8, 25);
    disk(w - 6, h - 6, 20);
    clear(650, 10, 653, 160);
    for (int y = 10; y < 160; ++y)
        for (int x = 650; x < 653; ++x) set(x, y, (x + y) % 5 != 0);
    return image;
}

}  // namespace

TEST_CASE("measure: an image's medium regions measured by a work group each, beside small and larger ones",
          "[gl][compute][measure][intensity]") {
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    const Image image = mediumAndOthers(72);
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        const Labeling labeling = computeLabeling(labeler, image, connectivity);
        // What the image is for: medium regions of every kind above, and
        // regions on either side of each of measure_medium's limits.
        std::size_t medium = 0, larger = 0, fullBox = 0, widest = 0, justAbove = 0, tooWide = 0, banded = 0;
        bool right = false, bottom = false;
        for (const Component& c : labeling.components) {
            const std::uint64_t box = std::uint64_t(c.width) * c.height;
            const bool isMedium = box > std::uint64_t(measure::kSmallBox) &&
                                  box <= std::uint64_t(measure::kMediumBox) && c.width < 256 && c.height < 256;
            larger += box > std::uint64_t(measure::kSmallBox) && !isMedium;
            tooWide += c.width == 256;
            if (!isMedium) continue;
            ++medium;
            fullBox += box == std::uint64_t(measure::kMediumBox) && c.area == measure::kHotArea;
            widest += c.width == 255;
            justAbove += box == std::uint64_t(measure::kSmallBox) + 1;
            banded += int(c.height) > measure::mediumBandRows(int(c.width));  // loaded in several bands
            right = right || int(c.left + c.width) == image.width;
            bottom = bottom || int(c.top + c.height) == image.height;
        }
        INFO("connectivity " << int(connectivity) << ": " << medium << " medium regions, " << larger << " larger");
        REQUIRE(medium >= 6);
        REQUIRE(larger >= 2);
        REQUIRE((fullBox == 1 && widest >= 1 && justAbove >= 1 && tooWide == 1 && banded >= 2 && right && bottom));

        const LabelSamples labels = labelSamples(labeling);
        const gl::Texture borrowed = borrowedLabels(labeler, image);
        const std::vector<std::string> spatial = {"moments", "perimeter", "perimeter_crofton", "euler_number"};
        // Random samples, and one value everywhere: each extremum's first
        // position is then the region's first element, whichever of the
        // group's invocations holds it.
        const Image random = randomIntensity(image.shape(), 16, 73);
        Image flat(image.shape(), 1, 16);
        for (std::size_t i = 0; i < image.shape().count(); ++i) flat.setSample(i, 0, 4242);
        measure::TermGatherer gatherer;
        for (const Image* samples : std::vector<const Image*>{nullptr, &random, &flat}) {
            std::vector<std::string> properties = spatial;
            if (samples)
                properties.insert(properties.end(), {"intensity_mean", "intensity_std", "intensity_min_position",
                                                     "intensity_max_position"});
            const TermRequest q = termsFor(properties, 2, samples ? 1 : 0, SampleKind::Unsigned, 16);
            const gl::Texture texture = samples ? intensityTexture(*samples, GL_R16UI) : gl::Texture();
            const IntensitySamples host = samples ? intensitySamples(*samples) : IntensitySamples{};
            const RegionTotals expected = measureTerms(labels, samples ? &host : nullptr, q, 1);
            // Medium regions measured by their groups, in batches too (the
            // random samples), and left to the passes (but for the flat ones).
            std::vector<std::pair<std::uint64_t, std::size_t>> ways = {{measure::kMediumBox, 0}};
            if (samples == &random) ways.push_back({measure::kMediumBox, 1500});
            if (samples != &flat) ways.push_back({0, 0});
            for (auto [largestMedium, bytes] : ways) {
                INFO((samples == &flat ? "flat" : samples ? "random" : "no")
                     << " samples, medium regions up to " << largestMedium << " elements, batches of at most "
                     << bytes << " bytes");
                gatherer.setLargestMedium(largestMedium);
                gatherer.setLargestBatch(bytes);
                const StateGuard guard;
                const measure::Intensity given =
                    samples ? measure::intensityOf(texture.id(), borrowed) : measure::Intensity{};
                requireSameTotals(expected, gatherer.gather(borrowed, labeling.components, q, given));
            }
        }
        // Weighted moments: the medium regions left to the passes.
        const TermRequest weighted = termsFor({"moments_weighted", "intensity_max"}, 2, 1, SampleKind::Unsigned, 16);
        const gl::Texture texture = intensityTexture(random, GL_R16UI);
        const IntensitySamples host = intensitySamples(random);
        gatherer.setLargestMedium(measure::kMediumBox);
        gatherer.setLargestBatch(0);
        const StateGuard guard;
        const measure::Intensity given = measure::intensityOf(texture.id(), borrowed);
        requireSameTotals(measureTerms(labels, &host, weighted, 1),
                          gatherer.gather(borrowed, labeling.components, weighted, given));
        REQUIRE(glGetError() == GL_NO_ERROR);
    }
}

namespace {

// Samples of `bits` mostly in the middle of the range, the range's ends
// rare (about one element in 90 each): a long run's extrema and their
// first positions lie far from where it starts, past a segment of the
// passes over the labels.
Image rareExtremaIntensity(const Shape& shape, int bits, std::uint64_t seed) {
    return drawnIntensity(shape, bits, seed, [](std::uint64_t r, std::uint64_t largest) {
        return r % 97 == 0 ? largest : r % 89 == 0 ? 0 : largest / 4 + (r >> 16) % (largest / 2);
    });
}

// Bands (x + 2y) % 23 < 15 with holes: regions that cross every column and
// row, their runs and borders across the edges of segments (64 and 256
// elements) and work groups, runs that span several segments.
Image holedBands(const Shape& shape, std::uint64_t seed) {
    Image image(shape, 1, 8);
    std::mt19937_64 random(seed);
    for (std::size_t i = 0; i < shape.count(); ++i) {
        const std::size_t x = i % std::size_t(shape.width), row = i / std::size_t(shape.width);
        const std::size_t y = row % std::size_t(shape.height), z = row / std::size_t(shape.height);
        const bool band = (x + 2 * y + 3 * z) % 23 < 15;
        if (band && random() % 11 != 0) image.setSample(i, 0, 255);
    }
    return image;
}

}  // namespace

namespace {

// Two requests that between them ask every term measure_medium's groups
// and strips add, with an intensity.
const std::vector<std::vector<std::string>> kGroupPropertySets = {
    {"moments", "perimeter", "euler_number", "intensity_mean", "intensity_min", "intensity_max"},
    {"centroid", "perimeter_crofton", "euler_number", "intensity_std", "intensity_min_position",
     "intensity_max_position"}};

// Disks of radius 3 to 15 on a grid, some overlapping their neighbours
// (boxes up to the 28 columns of a strip and past them), with holes
// and one-pixel regions in some, cut by the image's four sides along its
// edges, on a cleared background: many medium regions of each width.
Image narrowDisks(std::uint64_t seed) {
    const int w = 720, h = 660, step = 26;
    Image image(Shape::image(w, h), 1, 8);
    std::uint64_t state = seed;
    auto next = [&] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return int(state >> 33);
    };
    auto set = [&](int x, int y, bool on) {
        if (x >= 0 && y >= 0 && x < w && y < h)
            image.setSample(std::size_t(y) * std::size_t(w) + std::size_t(x), 0, on ? 255 : 0);
    };
    for (int cy = 0; cy <= h; cy += step)
        for (int cx = 0; cx <= w; cx += step) {
            const int r = 3 + next() % 13, dx = next() % 9 - 4, dy = next() % 9 - 4;
            for (int y = cy + dy - r; y <= cy + dy + r; ++y)
                for (int x = cx + dx - r; x <= cx + dx + r; ++x)
                    if ((x - cx - dx) * (x - cx - dx) + (y - cy - dy) * (y - cy - dy) <= r * r) set(x, y, true);
            if (r >= 6 && next() % 3 == 0) {  // a hole, a one-pixel region in it
                for (int y = cy + dy - 2; y <= cy + dy + 2; ++y)
                    for (int x = cx + dx - 2; x <= cx + dx + 2; ++x) set(x, y, false);
                set(cx + dx, cy + dy, true);
            }
        }
    return image;
}

// The medium regions of `image` (more than kSmallBox and at most kMediumBox
// elements in their boxes), by whether they are at most kNarrowWidth wide.
struct MediumCounts {
    std::size_t narrow = 0, wide = 0;
};
MediumCounts mediumCounts(const std::vector<Component>& components) {
    MediumCounts counts;
    for (const Component& c : components) {
        const std::uint64_t box = std::uint64_t(c.width) * c.height;
        if (box <= std::uint64_t(measure::kSmallBox) || box > std::uint64_t(measure::kMediumBox)) continue;
        (c.width <= std::uint64_t(measure::kNarrowWidth) ? counts.narrow : counts.wide) += 1;
    }
    return counts;
}

// measure_medium's totals of `labeling` of `image` with each of
// kGroupPropertySets against the cpu engine's, with a 16-bit intensity
// whose least and greatest values recur (extrema met again in other
// strips).
void requireMediumTotalsMatchCpu(Labeler& labeler, measure::TermGatherer& gatherer, const Image& image,
                                 const Labeling& labeling, std::uint64_t seed) {
    const LabelSamples labels = labelSamples(labeling);
    const gl::Texture borrowed = borrowedLabels(labeler, image);
    const Image random = randomIntensity(image.shape(), 16, seed);
    const gl::Texture texture = intensityTexture(random, GL_R16UI);
    const IntensitySamples host = intensitySamples(random);
    for (const std::vector<std::string>& properties : kGroupPropertySets) {
        const TermRequest q = termsFor(properties, 2, 1, SampleKind::Unsigned, 16);
        INFO(properties.front() << ", " << properties[1] << ", ...");
        const StateGuard guard;
        requireSameTotals(measureTerms(labels, &host, q, 1),
                          gatherer.gather(borrowed, labeling.components, q, measure::intensityOf(texture.id(), borrowed)));
    }
    REQUIRE(glGetError() == GL_NO_ERROR);
}

void warnWithoutStrips(measure::TermGatherer& gatherer) {
    if (!gatherer.stripsRun())
        WARN("this context has no subgroups of " << measure::kNarrowSubgroup
                                                 << " invocations with ballots: measure_medium walks bands of rows "
                                                    "here, not strips");
}

}  // namespace

TEST_CASE("measure: an image's narrow medium regions measured by a subgroup each, beside wider ones",
          "[gl][compute][measure][intensity]") {
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    const Image image = narrowDisks(91);
    measure::TermGatherer gatherer;
    warnWithoutStrips(gatherer);
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        const Labeling labeling = computeLabeling(labeler, image, connectivity);
        // What the image is for: many narrow medium regions, wider medium
        // ones beside them, on every side.
        const MediumCounts counts = mediumCounts(labeling.components);
        bool left = false, top = false, right = false, bottom = false;
        for (const Component& c : labeling.components) {
            left = left || c.left == 0;
            top = top || c.top == 0;
            right = right || int(c.left + c.width) == image.width;
            bottom = bottom || int(c.top + c.height) == image.height;
        }
        INFO("connectivity " << int(connectivity) << ": " << counts.narrow << " narrow medium regions, "
                             << counts.wide << " wider");
        REQUIRE(counts.narrow >= 256);
        REQUIRE(counts.wide >= 20);
        REQUIRE((left && top && right && bottom));
        requireMediumTotalsMatchCpu(labeler, gatherer, image, labeling, 92);
    }
}

TEST_CASE("measure: medium regions of every strip count, the last strip one column or a full one",
          "[gl][compute][measure][intensity]") {
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    // Ellipses as wide as one strip and one column more, two strips and a
    // column less or more, three and four strips and a column more (a
    // subgroup's lanes take two strips), and the widest box, some with a
    // hole holding a one-element region, on a row each.
    const std::vector<int> widths = {28, 29, 30, 55, 56, 57, 84, 85, 86, 113, 140, 141, 200, 255};
    const int rowHeight = 64, w = 270, h = rowHeight * int(widths.size());
    Image image(Shape::image(w, h), 1, 8);
    auto set = [&](int x, int y, bool on) {
        image.setSample(std::size_t(y) * std::size_t(w) + std::size_t(x), 0, on ? 255 : 0);
    };
    for (std::size_t k = 0; k < widths.size(); ++k) {
        const int ew = widths[k], eh = k % 2 == 0 ? 60 : 37, top = int(k) * rowHeight + 2, left = 3 + int(k) % 3;
        const double rx = ew / 2.0, ry = eh / 2.0;
        for (int y = 0; y < eh; ++y)
            for (int x = 0; x < ew; ++x) {
                const double dx = (x + 0.5 - rx) / rx, dy = (y + 0.5 - ry) / ry;
                // Rows and columns through the box's middle reach its sides.
                if (dx * dx + dy * dy <= 1.0 || x == ew / 2 || y == eh / 2) set(left + x, top + y, true);
            }
        if (k % 3 != 2) {  // a hole around a single element
            const int cx = left + ew / 3, cy = top + eh / 3;
            for (int y = cy - 2; y <= cy + 2; ++y)
                for (int x = cx - 2; x <= cx + 2; ++x) set(x, y, x == cx && y == cy);
        }
    }
    measure::TermGatherer gatherer;
    warnWithoutStrips(gatherer);
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        const Labeling labeling = computeLabeling(labeler, image, connectivity);
        std::set<std::uint64_t> seen;
        for (const Component& c : labeling.components) seen.insert(c.width);
        for (int width : widths) REQUIRE(seen.count(std::uint64_t(width)) == 1);
        requireMediumTotalsMatchCpu(labeler, gatherer, image, labeling, 93);
    }
}

TEST_CASE("measure: an image's few small regions measured by measure_medium's groups, beside its medium ones",
          "[gl][compute][measure][intensity]") {
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    // Four disks of measure_medium's, and small regions apart from them:
    // single elements in the corners, a 2 x 2 square, a line and a square of
    // kSmallBox elements, a 7 x 7 ring around a one-element hole.
    const int w = 300, h = 200;
    Image image(Shape::image(w, h), 1, 8);
    auto set = [&](int x, int y) { image.setSample(std::size_t(y) * std::size_t(w) + std::size_t(x), 0, 255); };
    const std::vector<std::array<int, 3>> disks = {{40, 50, 12}, {150, 60, 20}, {250, 150, 9}, {80, 160, 15}};
    for (const auto& [cx, cy, r] : disks)
        for (int y = cy - r; y <= cy + r; ++y)
            for (int x = cx - r; x <= cx + r; ++x)
                if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r) set(x, y);
    set(0, 0);
    set(w - 1, 0);
    set(0, h - 1);
    set(w - 1, h - 1);
    for (int k = 0; k < 4; ++k) set(200 + k % 2, 20 + k / 2);
    for (int y = 10; y < 10 + measure::kSmallBox; ++y) set(290, y);
    for (int k = 0; k < measure::kSmallBox; ++k) set(200 + k % 8, 90 + k / 8);
    for (int y = 0; y < 7; ++y)
        for (int x = 0; x < 7; ++x)
            if (x == 0 || y == 0 || x == 6 || y == 6 || (x == 3 && y == 3)) set(230 + x, 40 + y);
    const Image random = randomIntensity(image.shape(), 16, 93);
    const gl::Texture texture = intensityTexture(random, GL_R16UI);
    const IntensitySamples host = intensitySamples(random);
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        const Labeling labeling = computeLabeling(labeler, image, connectivity);
        std::size_t small = 0, medium = 0;
        for (const Component& c : labeling.components)
            (std::uint64_t(c.width) * c.height <= std::uint64_t(measure::kSmallBox) ? small : medium) += 1;
        INFO("connectivity " << int(connectivity) << ": " << small << " small regions, " << medium << " medium");
        REQUIRE((small == 9 && small < std::size_t(measure::kSmallLeast) && medium == 4));

        const LabelSamples labels = labelSamples(labeling);
        const gl::Texture borrowed = borrowedLabels(labeler, image);
        for (const std::vector<std::string>& properties : kGroupPropertySets) {
            const TermRequest q = termsFor(properties, 2, 1, SampleKind::Unsigned, 16);
            const RegionTotals expected = measureTerms(labels, &host, q, 1);
            // By measure_medium's groups, and with no region left to them
            // (the small ones then measure_small's).
            for (std::uint64_t largestMedium : {std::uint64_t(measure::kMediumBox), std::uint64_t(0)}) {
                INFO(properties.front() << ", ...; medium regions up to " << largestMedium << " elements");
                measure::TermGatherer gatherer;
                gatherer.setLargestMedium(largestMedium);
                const StateGuard guard;
                requireSameTotals(expected, gatherer.gather(borrowed, labeling.components, q,
                                                            measure::intensityOf(texture.id(), borrowed)));
            }
        }
    }
    // The Labeler's stages: measure_medium, and no measure_small.
    ImageTexture input(image);
    LabelOptions options;
    options.backend = Backend::Compute;
    options.timings = true;
    options.measure.properties = {"moments", "perimeter"};
    labeler.label(input.id(), options);
    std::vector<std::string> stages;
    for (const StageTime& t : labeler.stageTimings()) stages.push_back(t.stage);
    INFO(stages.size() << " stages");
    CHECK(std::count(stages.begin(), stages.end(), "measure_medium") == 1);
    CHECK(std::count(stages.begin(), stages.end(), "measure_small") == 0);
    REQUIRE(glGetError() == GL_NO_ERROR);
}

TEST_CASE("measure: widths, heights and slices off the segment and group edges, one-pixel rows and columns",
          "[gl][compute][measure][intensity]") {
    // Widths around the window segment (64) and the element segment (256)
    // and the work group's segments, one column; heights around 64 rows,
    // one row. The intensity's formats in turn, each on a third of the
    // shapes, the narrow and the wide among them.
    const std::pair<GLenum, int> formats[] = {{GL_R8, 8}, {GL_R16UI, 16}, {GL_R32UI, 32}};
    int shapes = 0;
    for (auto [w, h] : {std::pair{1, 1}, std::pair{1, 150}, std::pair{300, 1}, std::pair{31, 63},
                        std::pair{33, 65}, std::pair{65, 64}, std::pair{257, 129}, std::pair{289, 70},
                        std::pair{520, 67}}) {
        const Image image = holedBands(Shape::image(w, h), std::uint64_t(w) * 1000 + std::uint64_t(h));
        for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
            requireGpuTermsMatchCpu(image, connectivity, Criterion::binary(), kProperties2d, "holed bands");
        const auto [format, bits] = formats[shapes++ % 3];
        requireGpuIntensityTermsMatchCpu(image, Connectivity::Eight, rareExtremaIntensity(image.shape(), bits, 23),
                                         format, "holed bands, rare extrema");
    }
    // Volumes: rows (and window rows) that are not a multiple of 64,
    // one-row slices, rows past a segment.
    for (auto [w, h, d] : {std::tuple{40, 7, 13}, std::tuple{33, 1, 70}, std::tuple{1, 65, 3},
                           std::tuple{300, 9, 8}}) {
        const Image volume = holedBands(Shape::volume(w, h, d), std::uint64_t(w * h * d));
        for (Connectivity connectivity : {Connectivity::Six, Connectivity::TwentySix})
            requireGpuTermsMatchCpu(volume, connectivity, Criterion::binary(), kProperties3d, "holed bands");
        requireGpuIntensityTermsMatchCpu(volume, Connectivity::TwentySix,
                                         rareExtremaIntensity(volume.shape(), 16, 29), GL_R16UI,
                                         "holed bands, rare extrema");
    }
}

TEST_CASE("measure: the walk's labels in registers: borders on the sides and across segment edges, touching "
          "regions, sparse noise", "[gl][compute][measure][intensity]") {
    // Regions of different labels touching (segments), sparse noise (short
    // gaps of background in a row beside regions on the rows around it,
    // where the walk leaves rows unread): the perimeter classes, Crofton
    // classes and Euler numbers against the cpu accumulator's.
    std::mt19937_64 seeds(71);
    for (auto [w, h] : {std::pair{2, 3}, std::pair{257, 5}, std::pair{300, 37}, std::pair{65, 66}}) {
        const Image bands = holedBands(Shape::image(w, h), std::uint64_t(w) * 7 + std::uint64_t(h));
        for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
            requireGpuTermsMatchCpu(bands, connectivity, Criterion::binary(), kProperties2d, "holed bands");
            requireGpuTermsMatchCpu(randomImage(w, h, 0.6, 4, 1, seeds()), connectivity, Criterion::segments(),
                                    kProperties2d, "segments");
            requireGpuTermsMatchCpu(randomImage(w, h, 0.45, 2, 1, seeds()), connectivity, Criterion::binary(),
                                    kProperties2d, "sparse noise");
        }
        requireGpuIntensityTermsMatchCpu(bands, Connectivity::Eight, rareExtremaIntensity(bands.shape(), 16, 31),
                                         GL_R16UI, "holed bands, rare extrema");
    }
    for (auto [w, h, d] : {std::tuple{65, 5, 4}, std::tuple{3, 2, 9}}) {
        const Image volume = holedBands(Shape::volume(w, h, d), std::uint64_t(w * h * d));
        requireGpuTermsMatchCpu(volume, Connectivity::TwentySix, Criterion::binary(), kProperties3d, "holed bands");
    }
}

namespace {

// Stripes of 17 rows, one row of background between them, each from its
// own first column to the right side, with scattered holes: more regions
// of at least kHotArea elements than a batch gives replicas (kMaxHot), of
// different areas; one-pixel regions inside a hole of each and left of it.
Image hotStripes(std::uint64_t seed) {
    const int stripes = measure::kMaxHot + 6, width = 1300;
    Image image(Shape::image(width, stripes * 18), 1, 8);
    std::mt19937_64 random(seed);
    auto set = [&](int x, int y, std::uint32_t v) { image.setSample(std::size_t(y) * std::size_t(width) + std::size_t(x), 0, v); };
    for (int s = 0; s < stripes; ++s) {
        for (int y = s * 18; y < s * 18 + 17; ++y)
            for (int x = 4 * s; x < width; ++x)
                if (random() % 50 != 0) set(x, y, 255);
        for (int y = s * 18 + 6; y < s * 18 + 11; ++y)
            for (int x = 600 + s; x < 605 + s; ++x) set(x, y, 0);
        set(602 + s, s * 18 + 8, 255);
        if (s > 0) set(4 * s - 2, s * 18 + 8, 255);
    }
    return image;
}

}  // namespace

TEST_CASE("measure: hot regions' runs and window shares spread over replicas and folded, more of them than a batch keeps, in batches",
          "[gl][compute][measure][intensity]") {
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    for (bool volume : {false, true}) {
        // The volume: noise at 26-connectivity, one region past kHotArea
        // across every slice (replicas chosen by z too).
        const Image image = volume ? glccl::test::randomTestVolume(64, 48, 32, 0.2, 66) : hotStripes(67);
        const Image intensity = randomIntensity(image.shape(), 16, 68);
        const gl::Texture samples = intensityTexture(intensity, GL_R16UI);
        const Labeling labeling =
            computeLabeling(labeler, image, volume ? Connectivity::TwentySix : Connectivity::Eight);
        std::size_t hot = 0, other = 0;
        for (const Component& c : labeling.components) (c.area >= measure::kHotArea ? hot : other) += 1;
        INFO((volume ? "volume" : "image") << ": " << hot << " regions of at least kHotArea elements, " << other
                                            << " others");
        REQUIRE(hot >= (volume ? std::size_t(1) : std::size_t(measure::kMaxHot + 1)));
        REQUIRE(other > 10);

        const LabelSamples labels = labelSamples(labeling);
        const IntensitySamples host = intensitySamples(intensity);
        const gl::Texture borrowed = borrowedLabels(labeler, image);
        std::vector<std::string> spatial = {"moments", "euler_number"};
        if (!volume) spatial.insert(spatial.end(), {"perimeter", "perimeter_crofton"});
        std::vector<std::string> all = spatial;
        all.insert(all.end(), {"intensity_mean", "intensity_std", "intensity_min_position", "intensity_max_position",
                               "moments_weighted"});
        measure::TermGatherer gatherer;
        for (const std::vector<std::string>& properties : {spatial, all}) {
            const bool withIntensity = properties.size() > spatial.size();
            const TermRequest q = termsFor(properties, image.dimensions, withIntensity ? 1 : 0, SampleKind::Unsigned, 16);
            const RegionTotals expected = measureTerms(labels, withIntensity ? &host : nullptr, q, 1);
            // Batches with room for replicas of one region, of a few, and
            // of kMaxHot (a block of its own size).
            const std::size_t record = std::size_t(measure::recordLayout(std::uint64_t(image.width), image.shape().count(), q, 16).words) * 4;
            for (std::size_t bytes : {record * 100, record * 300, std::size_t(0)}) {
                INFO((withIntensity ? "with" : "without") << " an intensity, batches of at most " << bytes << " bytes");
                gatherer.setLargestBatch(bytes);
                const StateGuard guard;
                const measure::Intensity given =
                    withIntensity ? measure::intensityOf(samples.id(), borrowed) : measure::Intensity{};
                requireSameTotals(expected, gatherer.gather(borrowed, labeling.components, q, given));
            }
        }
        REQUIRE(glGetError() == GL_NO_ERROR);
    }
}

// Hot region 0 (the batch's largest) takes each work group's moments in
// shared memory, which the group adds into one replica word by word at its
// end, carrying where a word's add wraps into the words above it in its
// term. A region across the whole image or volume, with more work groups
// than replicas, adds two shares and more into each replica; moments of
// coordinates near the far side wrap their low words.
TEST_CASE("measure: hot region 0's moments summed by work groups in shared memory, carried into its replicas",
          "[gl][compute][measure][volume]") {
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    for (bool volume : {false, true}) {
        // Noise that percolates: one region nearly everywhere, many small.
        const Image image =
            volume ? glccl::test::randomTestVolume(128, 128, 128, 0.3, 151) : glccl::test::randomTestVolume(1024, 1024, 1, 0.7, 152);
        const Image flat = volume ? image : [&] {
            Image i(Shape::image(image.width, image.height), 1, 8);
            for (std::size_t k = 0; k < i.shape().count(); ++k) i.setSample(k, 0, image.sample(k, 0));
            return i;
        }();
        const Labeling labeling =
            computeLabeling(labeler, flat, volume ? Connectivity::TwentySix : Connectivity::Eight);
        std::uint64_t largest = 0;
        for (const Component& c : labeling.components) largest = std::max<std::uint64_t>(largest, c.area);
        INFO((volume ? "volume" : "image") << ": its largest region " << largest << " of " << flat.shape().count()
                                            << " elements, " << labeling.components.size() << " regions");
        REQUIRE(largest >= flat.shape().count() / 4);
        // Every part of the record the walk adds, beside the moments: the
        // other sums go into the replicas, and the replicas' sums of
        // squares of 16-bit samples wrap their low words.
        const Image intensity = randomIntensity(flat.shape(), 16, 153);
        const gl::Texture samples = intensityTexture(intensity, GL_R16UI);
        const IntensitySamples host = intensitySamples(intensity);
        std::vector<std::string> properties = {"moments", "euler_number", "intensity_mean", "intensity_min",
                                               "intensity_max", "intensity_std", "moments_weighted"};
        if (!volume) properties.insert(properties.end(), {"perimeter", "perimeter_crofton"});
        const TermRequest q = termsFor(properties, flat.dimensions, 1, SampleKind::Unsigned, 16);
        const RegionTotals expected = measureTerms(labelSamples(labeling), &host, q, 1);
        const gl::Texture borrowed = borrowedLabels(labeler, flat);
        measure::TermGatherer gatherer;
        const StateGuard guard;
        const measure::Intensity given = measure::intensityOf(samples.id(), borrowed);
        requireSameTotals(expected, gatherer.gather(borrowed, labeling.components, q, given));
        REQUIRE(glGetError() == GL_NO_ERROR);
    }
}

TEST_CASE("measure: the labels of every backend that runs here are measured on the GPU", "[gl][measure]") {
    // Each backend leaves its labels in the Labeler's label texture (the
    // host engines upload theirs), which the passes read.
    offscreen().makeCurrent();
    Labeler& labeler = offscreen().labeler();
    const ContextInfo& info = labeler.contextInfo();
    REQUIRE((info.major > 4 || (info.major == 4 && info.minor >= 3)));
    const Image image = randomImage(83, 52, 0.45, 3, 1, 13);
    const TermRequest q = termsFor(kProperties2d, 2, 0);
    for (Backend backend : glccl::test::backendsHere()) {
        INFO(backendName(backend));
        ImageTexture texture(image);
        LabelOptions options;
        options.backend = backend;
        options.criterion = backend == Backend::Cuda ? Criterion::binary() : Criterion::segments();
        labeler.label(texture.id(), options);
        const Labeling labeling = labeler.result();
        LabelSamples samples;
        samples.shape = labeling.shape();
        samples.data = labeling.labels.data();
        requireSameTotals(measureTerms(samples, nullptr, q, 1), labeler.measureTerms(q));
    }
}

TEST_CASE("measure: a session's GL labeling measured with the table it gave, and a table of another size refused",
          "[gl][measure]") {
    // Session::measureTerms hands the GL engines the labeling's table, which
    // they hold already, so that the measuring does not download it again.
    Session& labeler = glccl::test::session();
    const Image image = generateFamily("noise50", 97, 61, 5);
    const std::uint16_t range = 4000;
    std::vector<std::uint16_t> samples(image.shape().count());
    std::mt19937 random(7);
    for (std::uint16_t& v : samples) v = std::uint16_t(random() % range);
    IntensitySamples intensity;
    intensity.shape = image.shape();
    intensity.data = samples.data();
    intensity.bytes = 2;
    std::vector<std::string> properties = kProperties2d;
    for (const char* name : {"intensity_mean", "intensity_min", "intensity_max", "moments_weighted"})
        properties.push_back(name);
    const TermRequest q = termsFor(properties, 2, 1, SampleKind::Unsigned, 16);
    for (Backend backend : {Backend::Compute, Backend::Raster}) {
        INFO(backendName(backend));
        LabelOptions options;
        options.backend = backend;
        const Labeling labeling = labeler.label(image, options);
        LabelSamples labels;
        labels.shape = labeling.shape();
        labels.data = labeling.labels.data();
        labels.bytes = 4;
        const RegionTotals expected = measureTerms(labels, &intensity, q, 1);
        const RegionTotals given = labeler.measureTerms(q, &intensity, labels, labeling.components);
        CHECK(given.gatheredBy == backend);
        requireSameTotals(expected, given);
        REQUIRE(labeling.components.size() > 1);
        std::vector<Component> shorter(labeling.components.begin(), labeling.components.end() - 1);
        CHECK_THROWS_WITH(labeler.measureTerms(q, &intensity, labels, shorter),
                          Catch::Contains("the table given holds " + std::to_string(shorter.size()) + " regions"));
    }
}

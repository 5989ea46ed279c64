// glccl::cuda::gatherTerms and ImageLabeler::measureTerms: region terms
// gathered on the GPU from labels in device memory, against the cpu
// engine's accumulator (glccl::measureTerms of the same labels, validated
// against scikit-image) field by field and limb by limb, each gathering
// repeated kRepeats times and every repeat the same (the atomics' order
// changes nothing), and the property tables finalized from both the same:
// random images and volumes labeled by the reference, labels written
// directly (one-element regions, regions of many pieces, regions touching
// regions), lines, rings with holes, regions on the borders, one region
// filling the image (sums past 64 and 128 bits), every moment level,
// intensities of every integer type with their extremes and ties, empty
// images; a request for no terms launches nothing; the requests refused.
// The refusals and the requests that launch nothing run without a GPU too.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda_support.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/measure.hpp"
#include "glccl/reference.hpp"
#include "glccl/region_properties.hpp"
#include "volume_support.hpp"

using namespace glccl;

namespace {

constexpr int kRepeats = 20;

const std::vector<std::string> kProperties2d = {"moments", "perimeter", "perimeter_crofton", "euler_number",
                                                 "moments_hu", "inertia_tensor_eigvals", "eccentricity"};
const std::vector<std::string> kProperties3d = {"moments", "euler_number", "inertia_tensor_eigvals"};

// Labels 1..n of a shape and their table (table[i] for label i + 1).
struct Labels {
    Shape shape;
    std::vector<std::uint32_t> labels;
    std::vector<Component> table;
};

// Labels written directly: renumbered 1..n in order of first appearance
// (0 stays background), with their counts and boxes.
Labels labelsOf(const Shape& shape, const std::vector<std::uint32_t>& values) {
    Labels out;
    out.shape = shape;
    out.labels.resize(values.size());
    std::map<std::uint32_t, std::uint32_t> number;
    const auto w = std::uint64_t(shape.width), h = std::uint64_t(shape.height);
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (values[i] == 0) continue;
        auto found = number.find(values[i]);
        if (found == number.end()) {
            found = number.emplace(values[i], std::uint32_t(number.size() + 1)).first;
            out.table.emplace_back();
        }
        const std::uint32_t label = found->second;
        out.labels[i] = label;
        Component& c = out.table[label - 1];
        const auto x = std::uint32_t(i % w), y = std::uint32_t(i / w % h), z = std::uint32_t(i / w / h);
        if (c.area == 0) {
            c.left = x;
            c.top = y;
            c.front = z;
            c.width = c.height = c.depth = 1;
        }
        const std::uint32_t right = std::max(c.left + c.width - 1, x), bottom = std::max(c.top + c.height - 1, y),
                            back = std::max(c.front + c.depth - 1, z);
        c.left = std::min(c.left, x);
        c.top = std::min(c.top, y);
        c.front = std::min(c.front, z);
        c.width = right - c.left + 1;
        c.height = bottom - c.top + 1;
        c.depth = back - c.front + 1;
        ++c.area;
    }
    return out;
}

Labels labelsOf(const Labeling& labeling) { return {labeling.shape(), labeling.labels, labeling.components}; }

Labels referenceLabels(const Image& image, Connectivity connectivity, Criterion criterion = Criterion::binary()) {
    return labelsOf(labelReference(image, connectivity, criterion));
}

// Doubles as their bits: the same bits, NaN included.
std::vector<std::uint64_t> bitsOf(const std::vector<double>& values) {
    std::vector<std::uint64_t> bits(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) std::memcpy(&bits[i], &values[i], sizeof(double));
    return bits;
}

void requireSameTotals(const RegionTotals& expected, const RegionTotals& actual) {
    REQUIRE(actual.regions == expected.regions);
    REQUIRE(actual.labels == expected.labels);
    REQUIRE(actual.imageExtents == expected.imageExtents);
    REQUIRE(actual.counts == expected.counts);
    REQUIRE(actual.boxMin == expected.boxMin);
    REQUIRE(actual.boxMax == expected.boxMax);
    const std::size_t terms =
        std::max<std::size_t>(1, TermRequest::exponents(expected.request.momentLevel, expected.request.dimensions).size());
    REQUIRE(actual.moments.size() == expected.moments.size());
    for (std::size_t i = 0; i < expected.moments.size(); ++i) {
        INFO("moment sum " << i % terms << " of region " << i / terms);
        for (std::size_t k = 0; k < 4; ++k) REQUIRE(actual.moments[i].limb[k] == expected.moments[i].limb[k]);
    }
    REQUIRE(actual.perimeterClasses == expected.perimeterClasses);
    REQUIRE(actual.croftonClasses == expected.croftonClasses);
    REQUIRE(actual.eulerTimes == expected.eulerTimes);
    auto sameWide = [](const std::vector<Int256>& e, const std::vector<Int256>& a, const char* what) {
        INFO(what);
        REQUIRE(a.size() == e.size());
        for (std::size_t i = 0; i < e.size(); ++i) {
            INFO("entry " << i);
            for (std::size_t k = 0; k < 4; ++k) REQUIRE(a[i].limb[k] == e[i].limb[k]);
        }
    };
    sameWide(expected.intensitySum, actual.intensitySum, "intensity sums");
    sameWide(expected.intensitySquares, actual.intensitySquares, "intensity sums of squares");
    sameWide(expected.weightedMoments, actual.weightedMoments, "weighted moments");
    REQUIRE(actual.intensitySumFloat.size() == expected.intensitySumFloat.size());
    REQUIRE(actual.intensitySquaresFloat.size() == expected.intensitySquaresFloat.size());
    REQUIRE(actual.weightedMomentsFloat.size() == expected.weightedMomentsFloat.size());
    REQUIRE(bitsOf(actual.intensityMin) == bitsOf(expected.intensityMin));
    REQUIRE(bitsOf(actual.intensityMax) == bitsOf(expected.intensityMax));
    REQUIRE(actual.intensityMinBits == expected.intensityMinBits);
    REQUIRE(actual.intensityMaxBits == expected.intensityMaxBits);
    REQUIRE(actual.intensityMinAt == expected.intensityMinAt);
    REQUIRE(actual.intensityMaxAt == expected.intensityMaxAt);
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
        REQUIRE(bitsOf(a.reals) == bitsOf(e.reals));
    }
}

// The labels in device memory, freed with it.
struct DeviceLabels {
    test::DeviceMemory memory;
    explicit DeviceLabels(const Labels& l) : memory(test::deviceAllocate(l.labels.size() * 4)) {
        REQUIRE(cudaMemcpy(memory.get(), l.labels.data(), l.labels.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    }
    const std::uint32_t* get() const { return static_cast<const std::uint32_t*>(memory.get()); }
};

// Requests of every moment level, with Euler sums, Crofton and perimeter
// classes (2-D) in turn, and the terms of `properties`.
std::vector<TermRequest> requestsFor(const std::vector<std::string>& properties, int dimensions) {
    std::vector<TermRequest> requests = {termsFor(properties, dimensions, 0)};
    for (int level = 1; level <= 4; ++level) {
        TermRequest q;
        q.dimensions = dimensions;
        q.momentLevel = level;
        q.euler = level % 2 == 0;
        q.crofton = dimensions == 2 && level == 3;
        q.perimeter = dimensions == 2 && level == 1;
        requests.push_back(q);
    }
    TermRequest windows;
    windows.dimensions = dimensions;
    windows.euler = true;
    windows.crofton = dimensions == 2;
    requests.push_back(windows);
    return requests;
}

// The GPU's totals of each request equal the cpu accumulator's, on every
// repeat; the finalized tables of `properties` equal too.
void requireGpuTermsMatchCpu(const Labels& l, const std::vector<TermRequest>& requests,
                             const std::vector<std::string>& properties, const IntensitySamples* intensity,
                             const std::string& name) {
    INFO(name << " " << l.shape.width << "x" << l.shape.height << "x" << l.shape.depth << ", " << l.table.size()
              << " regions");
    const DeviceLabels device(l);
    LabelSamples samples;
    samples.shape = l.shape;
    samples.data = l.labels.data();
    for (const TermRequest& q : requests) {
        INFO("moment level " << q.momentLevel << ", perimeter " << q.perimeter << ", crofton " << q.crofton
                             << ", euler " << q.euler << ", channels " << q.channels << ", sums " << q.intensitySums
                             << ", extrema " << q.intensityExtrema << ", weighted level " << q.weightedMomentLevel);
        const RegionTotals expected = measureTerms(samples, intensity, q, 1);
        const RegionTotals first = cuda::gatherTerms(device.get(), l.shape, l.table, q, intensity);
        requireSameTotals(expected, first);
        for (int repeat = 1; repeat < kRepeats; ++repeat) {
            INFO("repeat " << repeat);
            requireSameTotals(first, cuda::gatherTerms(device.get(), l.shape, l.table, q, intensity));
        }
    }
    if (properties.empty()) return;
    PropertyOptions options;
    options.properties = properties;
    const int channels = intensity ? 1 : 0;
    const SampleKind kind = intensity ? intensity->kind : SampleKind::Unsigned;
    const int bits = intensity ? intensity->bytes * 8 : 8;
    const TermRequest q = termsFor(properties, l.shape.dimensions, channels, kind, bits);
    requireSameTable(finalizeProperties(measureTerms(samples, intensity, q, 1), options),
                     finalizeProperties(cuda::gatherTerms(device.get(), l.shape, l.table, q, intensity), options));
}

void requireGpuTermsMatchCpu(const Labels& l, const std::string& name) {
    const bool volume = l.shape.dimensions == 3;
    const auto& properties = volume ? kProperties3d : kProperties2d;
    requireGpuTermsMatchCpu(l, requestsFor(properties, l.shape.dimensions), properties, nullptr, name);
}

// An intensity of one integer type: raw bytes, samples drawn from the
// type's extremes, 0, 1 and random values (ties for the extrema's positions).
struct Intensity {
    std::vector<unsigned char> bytes;
    IntensitySamples samples;
};

Intensity randomIntensity(const Shape& shape, int bytes, bool isSigned, std::uint64_t seed) {
    Intensity out;
    out.bytes.resize(shape.count() * std::size_t(bytes));
    std::mt19937_64 random(seed);
    const int bits = bytes * 8;
    const std::uint64_t mask = bits == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bits) - 1;
    const std::uint64_t largest = isSigned ? mask >> 1 : mask;           // as bits
    const std::uint64_t smallest = isSigned ? (mask >> 1) + 1 : 0;       // as bits: the sign bit alone
    for (std::size_t i = 0; i < shape.count(); ++i) {
        const std::uint64_t r = random();
        std::uint64_t v = r % 5 == 0 ? largest : r % 7 == 0 ? smallest : r % 11 == 0 ? 1 : r % 13 == 0 ? 0 : (r >> 3);
        v &= mask;
        std::memcpy(&out.bytes[i * std::size_t(bytes)], &v, std::size_t(bytes));  // little-endian
    }
    out.samples.shape = shape;
    out.samples.channels = 1;
    out.samples.data = out.bytes.data();
    out.samples.bytes = bytes;
    out.samples.kind = isSigned ? SampleKind::Signed : SampleKind::Unsigned;
    return out;
}

// Intensity requests: every term at once, then weighted levels 1..4 with
// sums or extrema in turn.
std::vector<TermRequest> intensityRequests(const std::vector<std::string>& properties, int dimensions,
                                           const IntensitySamples& s) {
    std::vector<TermRequest> requests = {termsFor(properties, dimensions, 1, s.kind, s.bytes * 8)};
    for (int level = 0; level <= 4; ++level) {
        TermRequest q;
        q.dimensions = dimensions;
        q.channels = 1;
        q.intensityKind = s.kind;
        q.intensityBits = s.bytes * 8;
        q.weightedMomentLevel = level;
        q.intensitySums = level % 2 == 0;
        q.intensityExtrema = level % 2 == 1 || level == 0;
        requests.push_back(q);
    }
    return requests;
}

void requireGpuIntensityTermsMatchCpu(const Labels& l, const Intensity& intensity, const std::string& name) {
    const bool volume = l.shape.dimensions == 3;
    std::vector<std::string> properties = {"intensity_mean", "intensity_std", "intensity_min", "intensity_max",
                                           "intensity_min_position", "intensity_max_position", "moments_weighted",
                                           "moments_weighted_central", "moments", "euler_number"};
    if (!volume) properties.push_back("moments_weighted_hu");
    INFO((intensity.samples.kind == SampleKind::Signed ? "signed " : "unsigned ") << intensity.samples.bytes * 8
                                                                                    << "-bit samples");
    requireGpuTermsMatchCpu(l, intensityRequests(properties, l.shape.dimensions, intensity.samples), properties,
                            &intensity.samples, name);
}

void setPixel(Image& image, int x, int y) {
    image.setSample(std::size_t(y) * std::size_t(image.width) + std::size_t(x), 0, 255);
}

const std::string kEntry = "glccl::cuda::gatherTerms(): ";

}  // namespace

TEST_CASE("cuda measure: 2-D terms are the cpu accumulator's, random images", "[cuda][measure]") {
    test::requireCudaOrSkip();
    std::mt19937_64 seeds(71);
    for (auto [w, h] : {std::pair{1, 1}, std::pair{1, 37}, std::pair{41, 1}, std::pair{17, 13}, std::pair{70, 33},
                        std::pair{129, 65}})
        for (double density : {0.0, 0.3, 0.6, 1.0})
            for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
                requireGpuTermsMatchCpu(referenceLabels(randomImage(w, h, density, 2, 1, seeds()), connectivity),
                                        "binary");
                // Segments: regions of different labels touch, so windows and
                // border elements hold several regions.
                requireGpuTermsMatchCpu(
                    referenceLabels(randomImage(w, h, density, 4, 1, seeds()), connectivity, Criterion::segments()),
                    "segments");
            }
}

TEST_CASE("cuda measure: one-pixel regions, lines, rings with holes, borders, wide sums", "[cuda][measure]") {
    test::requireCudaOrSkip();
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
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        requireGpuTermsMatchCpu(referenceLabels(checkerboard, connectivity), "checkerboard");
        requireGpuTermsMatchCpu(referenceLabels(lines, connectivity), "lines");
        requireGpuTermsMatchCpu(referenceLabels(rings, connectivity), "rings");
    }
    // One region filling a wide image: moment sums past 64 bits (x^3 y^3).
    Image full(700, 300);
    std::fill(full.pixels.begin(), full.pixels.end(), std::uint8_t(255));
    requireGpuTermsMatchCpu(referenceLabels(full, Connectivity::Eight), "full");
    // A row past 2^16 elements: lx^3 past 64 bits in one run.
    Image row(70000, 2);
    std::fill(row.pixels.begin(), row.pixels.end(), std::uint8_t(255));
    requireGpuTermsMatchCpu(referenceLabels(row, Connectivity::Four), "long rows");
    for (const char* family : {"spiral", "checkerboard", "rings", "comb"})
        requireGpuTermsMatchCpu(referenceLabels(generateFamily(family, 97, 61, 5), Connectivity::Eight), family);
}

TEST_CASE("cuda measure: labels written directly, regions of many pieces and regions touching", "[cuda][measure]") {
    test::requireCudaOrSkip();
    // Every element a region of its own.
    {
        const Shape shape = Shape::image(13, 11);
        std::vector<std::uint32_t> values(shape.count());
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::uint32_t(i + 1);
        requireGpuTermsMatchCpu(labelsOf(shape, values), "one element each");
    }
    // Four labels in tiles: each region many pieces apart, pieces of
    // different labels touching, holes of other labels and of background.
    for (auto [w, h] : {std::pair{31, 23}, std::pair{96, 40}}) {
        const Shape shape = Shape::image(w, h);
        std::vector<std::uint32_t> values(shape.count());
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const bool hole = x % 7 == 3 && y % 5 == 2;
                values[std::size_t(y) * std::size_t(w) + std::size_t(x)] =
                    hole ? 0u : std::uint32_t((x / 3 + y / 5) % 4 + 1);
            }
        requireGpuTermsMatchCpu(labelsOf(shape, values), "tiles");
    }
    // Random labels 0..5 element by element: every window mixes regions.
    std::mt19937_64 random(72);
    for (auto [w, h] : {std::pair{1, 50}, std::pair{50, 1}, std::pair{45, 38}}) {
        const Shape shape = Shape::image(w, h);
        std::vector<std::uint32_t> values(shape.count());
        for (auto& v : values) v = std::uint32_t(random() % 6);
        requireGpuTermsMatchCpu(labelsOf(shape, values), "random labels");
    }
    for (auto [w, h, d] : {std::tuple{9, 8, 7}, std::tuple{1, 1, 30}, std::tuple{20, 1, 9}}) {
        const Shape shape = Shape::volume(w, h, d);
        std::vector<std::uint32_t> values(shape.count());
        for (auto& v : values) v = std::uint32_t(random() % 5);
        requireGpuTermsMatchCpu(labelsOf(shape, values), "random volume labels");
    }
}

TEST_CASE("cuda measure: volume terms are the cpu accumulator's", "[cuda][measure][volume]") {
    test::requireCudaOrSkip();
    std::mt19937_64 seeds(73);
    for (auto [w, h, d] : {std::tuple{1, 1, 1}, std::tuple{1, 1, 23}, std::tuple{19, 1, 1}, std::tuple{17, 13, 11},
                           std::tuple{33, 9, 20}})
        for (double density : {0.0, 0.3, 0.7, 1.0})
            for (Connectivity connectivity : {Connectivity::Six, Connectivity::TwentySix})
                requireGpuTermsMatchCpu(referenceLabels(test::randomTestVolume(w, h, d, density, seeds()), connectivity),
                                        "random volume");
    // A hollow box: a cavity (Euler number 2) and sums past 64 bits.
    Image hollow(Shape::volume(60, 50, 40));
    for (int z = 0; z < 40; ++z)
        for (int y = 0; y < 50; ++y)
            for (int x = 0; x < 60; ++x)
                if (x < 3 || y < 3 || z < 3 || x > 56 || y > 46 || z > 36) test::setVoxel(hollow, x, y, z);
    requireGpuTermsMatchCpu(referenceLabels(hollow, Connectivity::TwentySix), "hollow box");
}

TEST_CASE("cuda measure: intensity terms of every integer type are the cpu accumulator's",
          "[cuda][measure][intensity]") {
    test::requireCudaOrSkip();
    std::mt19937_64 seeds(74);
    for (auto [w, h] : {std::pair{1, 1}, std::pair{23, 1}, std::pair{37, 29}, std::pair{130, 40}})
        for (double density : {0.3, 1.0})
            for (int bytes : {1, 2, 4, 8})
                for (bool isSigned : {false, true}) {
                    const Labels l = referenceLabels(randomImage(w, h, density, 2, 1, seeds()), Connectivity::Eight);
                    requireGpuIntensityTermsMatchCpu(l, randomIntensity(l.shape, bytes, isSigned, seeds()), "image");
                }
    // One region filling an image, 64-bit samples: sums of squares and
    // weighted moments past 128 bits, negative ones too.
    {
        Image full(500, 200);
        std::fill(full.pixels.begin(), full.pixels.end(), std::uint8_t(255));
        const Labels l = referenceLabels(full, Connectivity::Four);
        for (bool isSigned : {false, true})
            requireGpuIntensityTermsMatchCpu(l, randomIntensity(l.shape, 8, isSigned, 5), "full");
    }
    // Rows wider than 2^16: lx^3 times a sample past 128 bits.
    {
        Image wide(70000, 2);
        std::fill(wide.pixels.begin(), wide.pixels.end(), std::uint8_t(255));
        const Labels l = referenceLabels(wide, Connectivity::Four);
        requireGpuIntensityTermsMatchCpu(l, randomIntensity(l.shape, 8, false, 6), "wide");
        requireGpuIntensityTermsMatchCpu(l, randomIntensity(l.shape, 4, true, 7), "wide");
    }
    for (auto [w, h, d] : {std::tuple{1, 1, 1}, std::tuple{17, 13, 11}, std::tuple{40, 9, 21}})
        for (int bytes : {1, 8})
            for (bool isSigned : {false, true}) {
                const Labels l =
                    referenceLabels(test::randomTestVolume(w, h, d, 0.5, seeds()), Connectivity::TwentySix);
                requireGpuIntensityTermsMatchCpu(l, randomIntensity(l.shape, bytes, isSigned, seeds()), "volume");
            }
}

TEST_CASE("cuda measure: ImageLabeler::measureTerms gathers from the labels it keeps", "[cuda][measure]") {
    {
        cuda::ImageLabeler fresh;
        CHECK(test::messageOf([&] { fresh.measureTerms(TermRequest{}); }) ==
              "glccl::cuda::ImageLabeler::measureTerms(): nothing has been labeled yet");
    }
    test::requireCudaOrSkip();
    cuda::ImageLabeler labeler;
    const Image image = randomImage(77, 45, 0.5, 2, 1, 75);
    Labeling labeling;
    labeler.label(image, Connectivity::Eight, Criterion::binary(), labeling);
    const Labels l = labelsOf(labeling);
    LabelSamples samples;
    samples.shape = l.shape;
    samples.data = l.labels.data();
    for (const TermRequest& q : requestsFor(kProperties2d, 2))
        requireSameTotals(measureTerms(samples, nullptr, q, 1), labeler.measureTerms(q));
    const Intensity intensity = randomIntensity(l.shape, 2, false, 76);
    for (const TermRequest& q : intensityRequests({"intensity_mean", "intensity_max_position"}, 2, intensity.samples))
        requireSameTotals(measureTerms(samples, &intensity.samples, q, 1), labeler.measureTerms(q, &intensity.samples));

    const Image volume = test::randomTestVolume(21, 17, 9, 0.4, 77);
    labeler.label(volume, Connectivity::TwentySix, Criterion::binary(), labeling);
    const Labels v = labelsOf(labeling);
    samples.shape = v.shape;
    samples.data = v.labels.data();
    for (const TermRequest& q : requestsFor(kProperties3d, 3))
        requireSameTotals(measureTerms(samples, nullptr, q, 1), labeler.measureTerms(q));

    // Labels in the caller's device memory: gatherTerms on them.
    const auto d_pixels = test::deviceAllocate(image.pixels.size());
    const auto d_labels = test::deviceAllocate(image.pixels.size() * 4);
    REQUIRE(cudaMemcpy(d_pixels.get(), image.pixels.data(), image.pixels.size(), cudaMemcpyHostToDevice) == cudaSuccess);
    DeviceVolume voxels;
    voxels.data = d_pixels.get();
    voxels.width = image.width;
    voxels.height = image.height;
    voxels.depth = 1;
    voxels.rowPitch = std::size_t(image.width);
    DeviceVolumeLabels out;
    out.data = static_cast<std::uint32_t*>(d_labels.get());
    out.rowPitch = std::size_t(image.width) * 4;
    const std::vector<Component> table = labeler.labelDevice(voxels, out, Connectivity::Eight, Criterion::binary());
    TermRequest q;
    q.momentLevel = 2;
    CHECK(test::messageOf([&] { labeler.measureTerms(q); }) ==
          "glccl::cuda::ImageLabeler::measureTerms(): the last call labeled device memory; gather its terms with "
          "glccl::cuda::gatherTerms()");
    samples.shape = l.shape;
    samples.data = l.labels.data();
    requireSameTotals(measureTerms(samples, nullptr, q, 1),
                      cuda::gatherTerms(out.data, Shape::image(image.width, image.height), table, q));
}

TEST_CASE("cuda measure: a request for no terms launches nothing; empty images; the requests refused",
          "[cuda][measure]") {
    // Runs without a GPU: nothing here reaches the device (null labels).
    const Image image = randomImage(40, 30, 0.5, 2, 1, 78);
    const Labels l = referenceLabels(image, Connectivity::Eight);
    LabelSamples samples;
    samples.shape = l.shape;
    samples.data = l.labels.data();
    // Counts and boxes alone, from the table.
    const TermRequest none = termsFor({"label", "bbox", "area", "num_pixels"}, 2, 0);
    REQUIRE_FALSE(none.any());
    requireSameTotals(measureTerms(samples, nullptr, none, 1), cuda::gatherTerms(nullptr, l.shape, l.table, none));
    // No regions: every array the request has, empty.
    const Shape emptyShape = Shape::image(9, 4);
    const std::vector<std::uint32_t> zeros(emptyShape.count(), 0);
    LabelSamples empty;
    empty.shape = emptyShape;
    empty.data = zeros.data();
    for (const TermRequest& q : requestsFor(kProperties2d, 2))
        requireSameTotals(measureTerms(empty, nullptr, q, 1), cuda::gatherTerms(nullptr, emptyShape, {}, q));

    TermRequest q;
    q.momentLevel = 1;
    auto refusal = [&](const TermRequest& request, const Shape& shape, const IntensitySamples* intensity) {
        return test::messageOf([&] { cuda::gatherTerms(nullptr, shape, l.table, request, intensity); });
    };
    TermRequest volume = q;
    volume.dimensions = 3;
    CHECK(refusal(volume, l.shape, nullptr) == kEntry + "the request is for 3-D regions, the labels are 2-D");
    volume.perimeter = true;
    CHECK(refusal(volume, Shape::volume(40, 30, 2), nullptr) == kEntry + "perimeter and Crofton terms are 2-D terms");
    CHECK(refusal(q, Shape::image(std::int64_t(1) << 25, 1), nullptr) ==
          kEntry + "every side must be 1 to 2^24 elements, not 33554432");
    TermRequest intensityTerms = q;
    intensityTerms.channels = 1;
    intensityTerms.intensitySums = true;
    CHECK(refusal(intensityTerms, l.shape, nullptr) == kEntry + "the properties asked need an intensity image");
    Intensity floats = randomIntensity(l.shape, 4, false, 79);
    floats.samples.kind = SampleKind::Float;
    CHECK(refusal(intensityTerms, l.shape, &floats.samples) ==
          kEntry + "floating-point intensities are measured on the host (glccl::measureTerms of glccl/measure.hpp)");
    Intensity twoChannels = randomIntensity(Shape::image(80, 30), 1, false, 80);
    twoChannels.samples.shape = l.shape;
    twoChannels.samples.channels = 2;
    CHECK(refusal(intensityTerms, l.shape, &twoChannels.samples) ==
          kEntry + "intensity terms are gathered on the GPU of one channel; more on the host (glccl::measureTerms of "
                   "glccl/measure.hpp)");
    const Intensity other = randomIntensity(Shape::image(41, 30), 1, false, 81);
    CHECK(refusal(intensityTerms, l.shape, &other.samples) ==
          kEntry + "the intensity image's shape differs from the labels'");
    const Intensity signedSamples = randomIntensity(l.shape, 2, true, 82);
    CHECK(refusal(intensityTerms, l.shape, &signedSamples.samples) ==
          kEntry + "the request's samples are unsigned, the intensity's are not");
    TermRequest huge = q;
    huge.momentLevel = 4;
    std::vector<Component> wide(1);  // a row of 2^20: 21 bits x degree 6 (x^3 y^3)
    wide[0].width = 1u << 20;
    wide[0].height = wide[0].depth = 1;
    wide[0].area = 1u << 20;
    CHECK(test::messageOf([&] { cuda::gatherTerms(nullptr, Shape::image(1 << 20, 1), wide, huge); }) ==
          kEntry + "the moments of a region 1048576 elements across exceed what is summed exactly");
}

TEST_CASE("cuda measure: labels past the table are refused", "[cuda][measure]") {
    test::requireCudaOrSkip();
    Labels l = referenceLabels(randomImage(40, 30, 0.5, 2, 1, 83), Connectivity::Eight);
    REQUIRE(l.table.size() > 1);
    const DeviceLabels device(l);
    l.table.pop_back();
    TermRequest q;
    q.momentLevel = 1;
    CHECK(test::messageOf([&] { cuda::gatherTerms(device.get(), l.shape, l.table, q); }) ==
          kEntry + "the labels hold labels past the table's " + std::to_string(l.table.size()) + " regions");
    CHECK(test::cudaErrorNow() == "cudaSuccess");
}

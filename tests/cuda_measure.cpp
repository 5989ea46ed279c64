// glccl::cuda::gatherTerms and ImageLabeler::measureTerms: region terms
// gathered on the GPU from labels in device memory, against the cpu
// engine's accumulator (glccl::measureTerms of the same labels, validated
// against scikit-image) field by field and limb by limb, each gathering
// repeated kRepeats times and every repeat the same (the atomics' order
// changes nothing), and the property tables finalized from both the same:
// random images and volumes labeled by the reference, labels written
// directly (one-element regions, regions of many pieces, regions touching
// regions), lines, rings with holes, regions on the borders, one region
// filling the image (sums past 64 and 128 bits), boxes on either side of
// the bounds of the regions measured whole, every moment level,
// intensities of every integer type with their extremes and ties, empty
// images; a request for no terms launches nothing; the requests refused.
// The refusals and the requests that launch nothing run without a GPU too.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
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
#include "measure_support.hpp"

using namespace glccl;
using glccl::test::requireSameTable;

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
std::vector<std::uint64_t> bitsOf(const TermArray<double>& values) {
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
    auto sameWide = [](const TermArray<Int256>& e, const TermArray<Int256>& a, const char* what) {
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
        q.intensityPositions = q.intensityExtrema && level != 3;  // level 3: the extrema alone
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
    // The widest rows summed in 64 bits (every box narrower than 2^16).
    Image narrowest(65535, 3);
    std::fill(narrowest.pixels.begin(), narrowest.pixels.end(), std::uint8_t(255));
    requireGpuTermsMatchCpu(referenceLabels(narrowest, Connectivity::Four), "rows of 2^16 - 1");
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

TEST_CASE("cuda measure: boxes at the bounds of the regions measured whole, a thread or a block each",
          "[cuda][measure][intensity]") {
    test::requireCudaOrSkip();
    // measure_small takes boxes of up to kSmallBox elements, measure_medium
    // (an image's, no weighted moments, samples of at most 4 bytes) up to
    // kMediumBox; the segment passes the rest. Regions whose boxes hold one
    // element either side of each bound, boxes wider than a block's threads
    // (a thread several columns) and one element wide (a thread every
    // kMediumThreads-th row), regions of pieces and holes.
    const std::vector<std::string> properties = {"moments", "perimeter", "perimeter_crofton", "euler_number",
                                                 "intensity_mean", "intensity_std", "intensity_min", "intensity_max",
                                                 "intensity_min_position", "intensity_max_position"};
    auto measureAll = [&](const Labels& l, const std::string& name) {
        requireGpuTermsMatchCpu(l, name);
        std::uint64_t seed = 80;
        for (int bytes : {1, 2, 4, 8})
            for (bool isSigned : {false, true}) {
                const Intensity intensity = randomIntensity(l.shape, bytes, isSigned, seed++);
                const TermRequest q =
                    termsFor(properties, 2, 1, intensity.samples.kind, intensity.samples.bytes * 8);
                INFO((isSigned ? "signed " : "unsigned ") << bytes * 8 << "-bit samples");
                requireGpuTermsMatchCpu(l, {q}, properties, &intensity.samples, name);
            }
    };
    {
        const int w = 400, h = 300;
        const Shape shape = Shape::image(w, h);
        std::vector<std::uint32_t> values(shape.count());
        auto set = [&](int x, int y, std::uint32_t label) {
            values[std::size_t(y) * std::size_t(w) + std::size_t(x)] = label;
        };
        for (int x = 0; x < 64; ++x) set(x, 0, 1);                 // 64 x 1: measure_small's largest
        for (int x = 0; x < 65; ++x) set(x, 2, 2);                 // 65 x 1: measure_medium's smallest
        for (int y = 4; y < 69; ++y) set(399, y, 3);               // 1 x 65
        for (int y = 4; y < 300; y += 3) set(397, y, 4);           // 1 x 295, in pieces
        for (int y = 10; y < 138; ++y)                              // a disk in a 128 x 128 box: 2^14
            for (int x = 10; x < 138; ++x) {
                const int dx = 2 * (x - 10) - 127, dy = 2 * (y - 10) - 127;
                if (dx * dx + dy * dy <= 128 * 128) set(x, y, 5);
            }
        for (int y = 140; y < 268; ++y)                             // a ring in a 129 x 128 box: 2^14 + 128
            for (int x = 10; x < 139; ++x) {
                const int dx = 2 * (x - 10) - 128, dy = 2 * (y - 140) - 127;
                const int r = dx * dx + dy * dy;
                if (r <= 128 * 128 && r >= 60 * 60) set(x, y, 6);
                if (r <= 20 * 20) set(x, y, 7);                     // an island in its hole
            }
        set(10, 204, 6);                                            // its box's left and right columns
        set(138, 204, 6);
        for (int y = 140; y < 267; ++y)                             // a ring in a 129 x 127 box: 2^14 - 1
            for (int x = 150; x < 279; ++x) {
                const int dx = 2 * (x - 150) - 128, dy = 2 * (y - 140) - 126;
                const int r = dx * dx + dy * dy;
                if (r <= 126 * 126 && r >= 50 * 50) set(x, y, 8);
            }
        set(150, 203, 8);
        set(278, 203, 8);
        for (int x = 150; x < 350; ++x) set(x, 10 + x % 2, 9);      // 200 x 2, zigzag
        for (int y = 20; y < 100; ++y)                               // two pieces far apart: one region
            for (int x = 150; x < 170; ++x) set(x + (y < 60 ? 0 : 150), y, 10);
        for (int y = 275; y < 300; ++y)                              // random labels 11..14 and holes
            for (int x = 0; x < 400; ++x) set(x, y, std::uint32_t((x * 7 + y * 13) % 5 == 0 ? 0 : 11 + (x / 5 + y) % 4));
        const Labels l = labelsOf(shape, values);
        for (std::uint64_t box : {64, 65, 16383, 16384, 16512})
            REQUIRE(std::any_of(l.table.begin(), l.table.end(), [&](const Component& c) {
                return std::uint64_t(c.width) * c.height == box;
            }));
        measureAll(l, "bounds");
    }
    // Lines of 2^14 elements (measure_medium, a thread 128 columns or every
    // 128th row) and of 2^14 + 1 (the segment passes).
    {
        const Shape shape = Shape::image(16400, 3);
        std::vector<std::uint32_t> values(shape.count());
        for (int x = 0; x < 16384; ++x) values[std::size_t(x)] = 1;
        for (int x = 0; x < 16385; ++x) values[2 * 16400 + std::size_t(x)] = 2;
        measureAll(labelsOf(shape, values), "rows");
    }
    {
        const Shape shape = Shape::image(3, 16400);
        std::vector<std::uint32_t> values(shape.count());
        for (int y = 0; y < 16384; ++y) values[std::size_t(y) * 3] = 1;
        for (int y = 0; y < 16385; ++y) values[std::size_t(y) * 3 + 2] = 2;
        measureAll(labelsOf(shape, values), "columns");
    }
}

TEST_CASE("cuda measure: volume terms are the cpu accumulator's", "[cuda][measure][volume]") {
    test::requireCudaOrSkip();
    std::mt19937_64 seeds(73);
    // Depths past several of measure_windows' segments along z, widths past a warp's lanes.
    for (auto [w, h, d] : {std::tuple{1, 1, 1}, std::tuple{1, 1, 23}, std::tuple{19, 1, 1}, std::tuple{17, 13, 11},
                           std::tuple{33, 9, 20}, std::tuple{45, 7, 97}, std::tuple{1, 3, 70}})
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
    // Lines along z: 8191 deep, the deepest whose third moments of each axis
    // are summed exactly; 2^16 - 1 deep, the deepest boxes measure_terms
    // walks along z (lz^3 just below 2^48), and 2^16 deep, which it walks
    // along x, with the moment levels their sums allow.
    for (int depth : {8191, 65535, 65536}) {
        Image line(Shape::volume(2, 1, depth));
        std::fill(line.pixels.begin(), line.pixels.end(), std::uint8_t(255));
        const Labels l = referenceLabels(line, Connectivity::Six);
        std::vector<TermRequest> requests;
        for (const TermRequest& q : requestsFor(kProperties3d, 3))
            if (depth < 8192 || q.momentLevel < 4) requests.push_back(q);
        requireGpuTermsMatchCpu(l, requests, depth < 8192 ? kProperties3d : std::vector<std::string>{}, nullptr,
                                "a line along z");
        const Intensity intensity = randomIntensity(l.shape, 4, true, seeds());
        TermRequest q;
        q.dimensions = 3;
        q.momentLevel = 3;
        q.channels = 1;
        q.intensityKind = intensity.samples.kind;
        q.intensityBits = 32;
        q.intensitySums = q.intensityExtrema = q.intensityPositions = true;
        requireGpuTermsMatchCpu(l, {q}, {}, &intensity.samples, "a line along z, with an intensity");
    }
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
    // The widest rows whose intensity sums are added in 64 and 128 bits:
    // samples of 4 bytes times lx^3 up to (2^16 - 1)^3.
    {
        Image wide(65535, 2);
        std::fill(wide.pixels.begin(), wide.pixels.end(), std::uint8_t(255));
        const Labels l = referenceLabels(wide, Connectivity::Four);
        for (bool isSigned : {false, true})
            requireGpuIntensityTermsMatchCpu(l, randomIntensity(l.shape, 4, isSigned, 8), "rows of 2^16 - 1");
    }
    for (auto [w, h, d] : {std::tuple{1, 1, 1}, std::tuple{17, 13, 11}, std::tuple{40, 9, 21}})
        for (int bytes : {1, 8})
            for (bool isSigned : {false, true}) {
                const Labels l =
                    referenceLabels(test::randomTestVolume(w, h, d, 0.5, seeds()), Connectivity::TwentySix);
                requireGpuIntensityTermsMatchCpu(l, randomIntensity(l.shape, bytes, isSigned, seeds()), "volume");
            }
}

TEST_CASE("cuda measure: one region met by nearly every warp, its sums added in the warp first",
          "[cuda][measure][intensity]") {
    test::requireCudaOrSkip();
    // Random images dense enough that one region spans most of them, and
    // nearly every warp's lanes end their segments in it; small regions
    // around and inside it.
    std::mt19937_64 seeds(75);
    const Labels image = referenceLabels(randomImage(1000, 700, 0.6, 2, 1, seeds()), Connectivity::Eight);
    REQUIRE(std::any_of(image.table.begin(), image.table.end(), [](const Component& c) { return c.area > 300000; }));
    requireGpuTermsMatchCpu(image, "one large region");
    requireGpuIntensityTermsMatchCpu(image, randomIntensity(image.shape, 2, false, seeds()), "one large region");
    requireGpuIntensityTermsMatchCpu(image, randomIntensity(image.shape, 8, true, seeds()), "one large region");
    const Labels volume =
        referenceLabels(test::randomTestVolume(100, 80, 70, 0.6, seeds()), Connectivity::TwentySix);
    REQUIRE(std::any_of(volume.table.begin(), volume.table.end(), [](const Component& c) { return c.area > 300000; }));
    requireGpuTermsMatchCpu(volume, "one large region of a volume");
    requireGpuIntensityTermsMatchCpu(volume, randomIntensity(volume.shape, 4, false, seeds()), "one large region of a volume");
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

// --- Labels made anywhere, measured where they are: numberRegions and
// measureDeviceLabels against the cpu accumulator of the same labels on the
// host (and the regions' ids, counts and boxes against a table counted here).

namespace {

// Labels of any integer type, as raw bytes (little-endian), with the shape.
struct AnyLabels {
    Shape shape;
    std::vector<unsigned char> bytes;
    int width = 4;  // bytes per label
    bool isSigned = false;

    std::uint64_t at(std::size_t i) const {
        std::uint64_t v = 0;
        std::memcpy(&v, &bytes[i * std::size_t(width)], std::size_t(width));
        if (isSigned && width < 8 && (v >> (width * 8 - 1)) != 0) v |= ~std::uint64_t(0) << (width * 8);
        return v;
    }
};

// dense's labels 1..n given the values ids[0..n-1] (0 stays 0), as labels of
// `width` bytes.
AnyLabels withIds(const Labels& dense, const std::vector<std::uint64_t>& ids, int width, bool isSigned) {
    AnyLabels out;
    out.shape = dense.shape;
    out.width = width;
    out.isSigned = isSigned;
    out.bytes.resize(dense.labels.size() * std::size_t(width));
    for (std::size_t i = 0; i < dense.labels.size(); ++i) {
        const std::uint64_t v = dense.labels[i] == 0 ? 0 : ids[dense.labels[i] - 1];
        std::memcpy(&out.bytes[i * std::size_t(width)], &v, std::size_t(width));
    }
    return out;
}

// n distinct positive values up to `largest`, in random order.
std::vector<std::uint64_t> distinctIds(std::size_t n, std::uint64_t smallest, std::uint64_t largest,
                                       std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<std::uint64_t> ids;
    std::map<std::uint64_t, bool> taken;
    const std::uint64_t span = largest - smallest;
    while (ids.size() < n) {
        const std::uint64_t v = smallest + (span == ~std::uint64_t(0) ? random() : random() % (span + 1));
        if (v == 0 || taken.count(v)) continue;
        taken[v] = true;
        ids.push_back(v);
    }
    return ids;
}

// The regions counted here: every distinct value (0 where background), ascending.
cuda::DeviceLabelTable countedRegions(const AnyLabels& l, bool background) {
    std::map<std::uint64_t, Component> regions;
    const auto w = std::uint64_t(l.shape.width), h = std::uint64_t(l.shape.height);
    for (std::size_t i = 0; i < l.shape.count(); ++i) {
        const std::uint64_t v = l.at(i);
        if (v == 0 && !background) continue;
        const auto x = std::uint32_t(i % w), y = std::uint32_t(i / w % h), z = std::uint32_t(i / w / h);
        auto found = regions.find(v);
        if (found == regions.end()) {
            Component c;
            c.left = x;
            c.top = y;
            c.front = z;
            c.width = c.height = c.depth = 0;  // the greatest x, y, z meanwhile
            found = regions.emplace(v, c).first;
        }
        Component& c = found->second;
        c.left = std::min(c.left, x);
        c.top = std::min(c.top, y);
        c.front = std::min(c.front, z);
        c.width = std::max(c.width, x);
        c.height = std::max(c.height, y);
        c.depth = std::max(c.depth, z);
        ++c.area;
    }
    cuda::DeviceLabelTable out;
    for (auto& [id, c] : regions) {
        c.width = c.width - c.left + 1;
        c.height = c.height - c.top + 1;
        c.depth = c.depth - c.front + 1;
        out.ids.push_back(id);
        out.table.push_back(c);
    }
    return out;
}

void requireSameRegions(const cuda::DeviceLabelTable& expected, const cuda::DeviceLabelTable& actual) {
    REQUIRE(actual.ids == expected.ids);
    REQUIRE(actual.table.size() == expected.table.size());
    for (std::size_t r = 0; r < expected.table.size(); ++r) {
        INFO("region " << r << " (label " << expected.ids[r] << ")");
        REQUIRE(actual.table[r] == expected.table[r]);
    }
}

struct DeviceCopy {
    test::DeviceMemory memory;
    explicit DeviceCopy(const std::vector<unsigned char>& bytes) : memory(test::deviceAllocate(bytes.size())) {
        if (!bytes.empty())
            REQUIRE(cudaMemcpy(memory.get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice) == cudaSuccess);
    }
};

// numberRegions' ids, table and numbers, then measureDeviceLabels' totals of
// every request, each the same as the host's, on every repeat.
void requireDeviceLabelsMatchCpu(const AnyLabels& l, const Intensity* intensity, bool background,
                                 const std::string& name) {
    INFO(name << " " << l.shape.width << "x" << l.shape.height << "x" << l.shape.depth << ", "
              << (l.isSigned ? "signed " : "unsigned ") << l.width * 8 << "-bit labels, background "
              << background);
    const DeviceCopy labels(l.bytes);
    cuda::DeviceLabelSamples device;
    device.shape = l.shape;
    device.data = labels.memory.get();
    device.bytes = l.width;
    device.isSigned = l.isSigned;
    LabelSamples host;
    host.shape = l.shape;
    host.data = l.bytes.data();
    host.bytes = l.width;
    host.isSigned = l.isSigned;

    // The regions and each element's number.
    const cuda::DeviceLabelTable expected = countedRegions(l, background);
    const test::DeviceMemory dense = test::deviceAllocate(l.shape.count() * 4);
    const auto denseLabels = static_cast<std::uint32_t*>(dense.get());
    for (int repeat = 0; repeat < kRepeats; ++repeat) {
        INFO("repeat " << repeat);
        requireSameRegions(expected, cuda::numberRegions(device, denseLabels, background));
        std::vector<std::uint32_t> numbers(l.shape.count());
        REQUIRE(cudaMemcpy(numbers.data(), denseLabels, numbers.size() * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
        for (std::size_t i = 0; i < numbers.size(); ++i) {
            const std::uint64_t v = l.at(i);
            const auto at = std::lower_bound(expected.ids.begin(), expected.ids.end(), v);
            const std::uint32_t want =
                v == 0 && !background ? 0u : std::uint32_t(at - expected.ids.begin()) + 1u;
            if (numbers[i] != want) {
                INFO("element " << i << ", label " << v);
                REQUIRE(numbers[i] == want);
            }
        }
    }

    std::unique_ptr<DeviceCopy> samples;
    IntensitySamples deviceIntensity;
    std::vector<std::string> properties(kProperties2d);
    if (l.shape.dimensions == 3) properties = kProperties3d;
    std::vector<TermRequest> requests = requestsFor(properties, l.shape.dimensions);
    if (intensity) {
        samples = std::make_unique<DeviceCopy>(intensity->bytes);
        deviceIntensity = intensity->samples;
        deviceIntensity.data = samples->memory.get();
        properties = {"intensity_mean", "intensity_std", "intensity_min", "intensity_max", "intensity_min_position",
                      "intensity_max_position", "moments_weighted", "moments", "euler_number", "centroid_weighted"};
        requests = intensityRequests(properties, l.shape.dimensions, intensity->samples);
    }
    requests.push_back(termsFor({"label", "bbox", "area"}, l.shape.dimensions, 0));
    const IntensitySamples* hostIntensity = intensity ? &intensity->samples : nullptr;
    const IntensitySamples* onDevice = intensity ? &deviceIntensity : nullptr;
    for (const TermRequest& q : requests) {
        INFO("moment level " << q.momentLevel << ", perimeter " << q.perimeter << ", crofton " << q.crofton
                             << ", euler " << q.euler << ", channels " << q.channels << ", sums " << q.intensitySums
                             << ", extrema " << q.intensityExtrema << ", weighted level " << q.weightedMomentLevel);
        const RegionTotals want = measureTerms(host, hostIntensity, q, 1, background);
        const RegionTotals first = cuda::measureDeviceLabels(device, q, onDevice, background);
        requireSameTotals(want, first);
        for (int repeat = 1; repeat < kRepeats; ++repeat) {
            INFO("repeat " << repeat);
            requireSameTotals(first, cuda::measureDeviceLabels(device, q, onDevice, background));
        }
    }
    PropertyOptions options;
    options.properties = properties;
    const TermRequest q = termsFor(properties, l.shape.dimensions, intensity ? 1 : 0,
                                   intensity ? intensity->samples.kind : SampleKind::Unsigned,
                                   intensity ? intensity->samples.bytes * 8 : 8);
    requireSameTable(finalizeProperties(measureTerms(host, hostIntensity, q, 1, background), options),
                     finalizeProperties(cuda::measureDeviceLabels(device, q, onDevice, background), options));
}

// Element i of a shape holding its own label: one-element regions.
Labels everyElementItsOwn(const Shape& shape, std::uint64_t seed) {
    std::vector<std::uint32_t> values(shape.count());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::uint32_t(i + 1);
    std::mt19937_64 random(seed);
    std::shuffle(values.begin(), values.end(), random);
    for (std::size_t i = 0; i < values.size(); i += 7) values[i] = 0;
    return labelsOf(shape, values);
}

// Regions of many pieces: a few values scattered at random.
Labels scattered(const Shape& shape, std::uint32_t values, std::uint64_t seed) {
    std::vector<std::uint32_t> v(shape.count());
    std::mt19937_64 random(seed);
    for (auto& label : v) label = std::uint32_t(random() % (values + 1));
    return labelsOf(shape, v);
}

}  // namespace

TEST_CASE("cuda measure: device labels of every integer type, ids with gaps and past 2^32, as the host measures them",
          "[cuda][measure][device_labels]") {
    test::requireCudaOrSkip();
    std::mt19937_64 seeds(91);
    std::vector<Labels> images = {
        referenceLabels(randomImage(37, 29, 0.5, 2, 1, seeds()), Connectivity::Eight),
        referenceLabels(randomImage(130, 41, 0.3, 2, 1, seeds()), Connectivity::Four),
        everyElementItsOwn(Shape::image(33, 17), seeds()),
        scattered(Shape::image(45, 31), 6, seeds()),
        referenceLabels(randomImage(1, 1, 1.0, 2, 1, seeds()), Connectivity::Four),
    };
    for (const Labels& dense : images) {
        const std::size_t n = dense.table.size();
        for (bool background : {false, true}) {
            // The presence table's range, and labels the sort numbers.
            requireDeviceLabelsMatchCpu(withIds(dense, distinctIds(n, 1, 3 * n + 5, seeds()), 4, false), nullptr,
                                        background, "uint32, small ids");
            requireDeviceLabelsMatchCpu(withIds(dense, distinctIds(n, 1, 0x7FFFFFFF, seeds()), 4, true), nullptr,
                                        background, "int32, ids up to 2^31");
            requireDeviceLabelsMatchCpu(withIds(dense, distinctIds(n, 3000000000ull, 0xFFFFFFFFull, seeds()), 4, false),
                                        nullptr, background, "uint32, ids past 2^31");
            requireDeviceLabelsMatchCpu(withIds(dense, distinctIds(n, 1ull << 32, 1ull << 40, seeds()), 8, false),
                                        nullptr, background, "uint64, ids past 2^32");
            requireDeviceLabelsMatchCpu(withIds(dense, distinctIds(n, 1, ~std::uint64_t(0), seeds()), 8, false),
                                        nullptr, background, "uint64, ids up to 2^64 - 1");
            requireDeviceLabelsMatchCpu(withIds(dense, distinctIds(n, 1ull << 40, 0x7FFFFFFFFFFFFFFFull, seeds()), 8,
                                                true),
                                        nullptr, background, "int64, ids past 2^40");
            if (n < 120) {
                requireDeviceLabelsMatchCpu(withIds(dense, distinctIds(n, 1, 127, seeds()), 1, true), nullptr,
                                            background, "int8");
                requireDeviceLabelsMatchCpu(withIds(dense, distinctIds(n, 1, 65535, seeds()), 2, false), nullptr,
                                            background, "uint16");
            }
        }
    }
    // Every element background; and one label that is the type's largest.
    const Labels zeros = labelsOf(Shape::image(9, 4), std::vector<std::uint32_t>(36, 0));
    for (bool background : {false, true})
        requireDeviceLabelsMatchCpu(withIds(zeros, {}, 8, false), nullptr, background, "background only");
    const Labels one = labelsOf(Shape::image(5, 3), std::vector<std::uint32_t>(15, 1));
    requireDeviceLabelsMatchCpu(withIds(one, {~std::uint64_t(0)}, 8, false), nullptr, false, "2^64 - 1");
    requireDeviceLabelsMatchCpu(withIds(one, {0xFFFFFFFFull}, 4, false), nullptr, false, "2^32 - 1");
}

TEST_CASE("cuda measure: device labels of volumes, as the host measures them",
          "[cuda][measure][device_labels][volume]") {
    test::requireCudaOrSkip();
    std::mt19937_64 seeds(92);
    for (auto [w, h, d] : {std::tuple{17, 13, 11}, std::tuple{40, 9, 21}, std::tuple{1, 1, 1}}) {
        const Labels dense = referenceLabels(test::randomTestVolume(w, h, d, 0.4, seeds()), Connectivity::TwentySix);
        const std::size_t n = dense.table.size();
        for (bool background : {false, true}) {
            requireDeviceLabelsMatchCpu(withIds(dense, distinctIds(n, 1, 2 * n + 3, seeds()), 4, false), nullptr,
                                        background, "volume, uint32");
            requireDeviceLabelsMatchCpu(withIds(dense, distinctIds(n, 1ull << 33, 1ull << 50, seeds()), 8, false),
                                        nullptr, background, "volume, uint64 past 2^32");
        }
    }
    requireDeviceLabelsMatchCpu(withIds(scattered(Shape::volume(12, 10, 8), 5, seeds()),
                                        distinctIds(5, 1, 1000000000, seeds()), 4, true),
                                nullptr, false, "volume, regions of many pieces");
}

TEST_CASE("cuda measure: device labels with a device intensity of every integer type, as the host measures them",
          "[cuda][measure][device_labels][intensity]") {
    test::requireCudaOrSkip();
    std::mt19937_64 seeds(93);
    const Labels image = referenceLabels(randomImage(61, 37, 0.5, 2, 1, seeds()), Connectivity::Eight);
    const Labels volume = referenceLabels(test::randomTestVolume(15, 12, 9, 0.5, seeds()), Connectivity::TwentySix);
    const Labels pieces = scattered(Shape::image(50, 20), 4, seeds());
    for (const Labels* dense : {&image, &volume, &pieces}) {
        const std::size_t n = dense->table.size();
        for (int bytes : {1, 2, 4, 8})
            for (bool isSigned : {false, true}) {
                const Intensity intensity = randomIntensity(dense->shape, bytes, isSigned, seeds());
                requireDeviceLabelsMatchCpu(withIds(*dense, distinctIds(n, 1ull << 32, 1ull << 44, seeds()), 8, false),
                                            &intensity, bytes == 4, "intensity, uint64 ids");
                requireDeviceLabelsMatchCpu(withIds(*dense, distinctIds(n, 1, 4 * n, seeds()), 4, true), &intensity,
                                            false, "intensity, int32 ids");
            }
    }
}

TEST_CASE("cuda measure: device labels refused: negative ones; no element measures nothing",
          "[cuda][measure][device_labels]") {
    // No element: no region, and nothing reaches the device (runs without a GPU).
    cuda::DeviceLabelSamples none;
    none.shape = Shape::image(0, 5);
    const TermRequest q = termsFor({"label", "area", "moments", "euler_number"}, 2, 0);
    const RegionTotals totals = cuda::measureDeviceLabels(none, q);
    CHECK(totals.regions == 0);
    CHECK(totals.labels.empty());
    CHECK(totals.moments.empty());
    CHECK(cuda::numberRegions(none, nullptr).ids.empty());

    test::requireCudaOrSkip();
    std::vector<std::int32_t> values(24, 3);
    values[17] = -5;
    values[4] = -2;
    std::vector<unsigned char> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    const DeviceCopy labels(bytes);
    cuda::DeviceLabelSamples device;
    device.shape = Shape::image(6, 4);
    device.data = labels.memory.get();
    device.bytes = 4;
    device.isSigned = true;
    CHECK(test::messageOf([&] { cuda::measureDeviceLabels(device, q); }) ==
          "glccl::cuda::measureDeviceLabels(): labels must be 0 (background) or positive; the smallest is -5");
    CHECK(test::cudaErrorNow() == "cudaSuccess");
}

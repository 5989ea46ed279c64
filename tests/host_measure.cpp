// Region measurements of the cpu engine (glccl/measure.hpp): moments and
// intensity sums against exact sums written here, boxes and areas against
// the reference labeler's table, Euler numbers against components and holes
// counted by the reference labeler; the same table at every thread count;
// an image measured in pieces with margins equal to it measured whole; the
// sums by label of a list (glccl/label_sums.hpp) against sums made serially
// here, at several thread counts; measuring from several threads at once,
// and in a forked child, equal to measuring serially; and the refusals. (Every property against scikit-image: tests/python.)

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "glccl/cpu_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/label_sums.hpp"
#include "glccl/measure.hpp"
#include "glccl/measure_team.hpp"
#include "glccl/reference.hpp"
#include "sanitizer_support.hpp"
#include "skip.hpp"

using glccl::Image;
using glccl::IntensitySamples;
using glccl::LabelSamples;
using glccl::MeasureOptions;
using glccl::PropertyTable;
using glccl::Shape;

// Built with AddressSanitizer or ThreadSanitizer (tools/run-tests.sh's
// sanitizer builds), where each measuring costs tens of times as much: the
// heaviest sweeps take a part of their cases there, each saying which.
constexpr bool kSanitized = glccl::test::kAddressSanitizer || glccl::test::kThreadSanitizer;

namespace {

// Random labels 0..regions on a w x h (x d) grid: blobs of a few labels
// with holes and strays, so regions are unconnected, touch the borders and
// interleave.
std::vector<std::uint32_t> randomLabels(std::int64_t w, std::int64_t h, std::int64_t d, std::uint32_t regions, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::uint32_t> labels(std::size_t(w * h * d));
    std::uniform_int_distribution<std::uint32_t> label(0, regions);
    std::uniform_int_distribution<int> keep(0, 9);
    std::uint32_t current = label(rng);
    for (auto& v : labels) {
        if (keep(rng) == 0) current = label(rng);
        v = current;
    }
    return labels;
}

LabelSamples samplesOf(const std::vector<std::uint32_t>& labels, const Shape& shape) {
    LabelSamples s;
    s.shape = shape;
    s.data = labels.data();
    s.bytes = 4;
    return s;
}

const glccl::PropertyColumn& column(const PropertyTable& t, const std::string& name) {
    const auto* c = t.find(name);
    REQUIRE(c != nullptr);
    return *c;
}

bool sameTables(const PropertyTable& a, const PropertyTable& b) {
    if (a.rows != b.rows || a.columns.size() != b.columns.size()) return false;
    for (std::size_t i = 0; i < a.columns.size(); ++i) {
        const auto& x = a.columns[i];
        const auto& y = b.columns[i];
        if (x.name != y.name || x.ints != y.ints || x.uints != y.uints || x.reals.size() != y.reals.size()) return false;
        for (std::size_t k = 0; k < x.reals.size(); ++k)
            if (!(x.reals[k] == y.reals[k] || (std::isnan(x.reals[k]) && std::isnan(y.reals[k])))) return false;
    }
    return true;
}

}  // namespace

TEST_CASE("measure: raw moments and intensity sums equal exact sums, local to each region's box", "[measure]") {
    const std::int64_t w = 301, h = 233;  // two chunks and a partial one
    const auto labels = randomLabels(w, h, 1, 40, 11);
    std::vector<std::int16_t> intensity(labels.size());
    std::mt19937 rng(5);
    for (auto& v : intensity) v = std::int16_t(int(rng() % 20001) - 10000);
    IntensitySamples in;
    in.shape = Shape::image(w, h);
    in.data = intensity.data();
    in.bytes = 2;
    in.kind = glccl::SampleKind::Signed;
    MeasureOptions options;
    options.properties.properties = {"label", "bbox", "moments", "intensity_sum", "intensity_min", "intensity_max", "moments_weighted"};
    options.threads = 3;
    const PropertyTable t = glccl::measureRegions(samplesOf(labels, in.shape), &in, options);

    // Exact sums here, per label: boxes first, then powers of local coordinates.
    const std::size_t n = t.rows;
    REQUIRE(n == 40);
    const auto& label = column(t, "label").uints;
    for (std::size_t r = 0; r < n; ++r) {
        const std::uint32_t l = std::uint32_t(label[r]);
        std::int64_t x0 = w, y0 = h;
        long double sum = 0;
        int lo = 1 << 20, hi = -(1 << 20);
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x)
                if (labels[std::size_t(y * w + x)] == l) {
                    x0 = std::min(x0, x);
                    y0 = std::min(y0, y);
                    const int v = intensity[std::size_t(y * w + x)];
                    sum += v;
                    lo = std::min(lo, v);
                    hi = std::max(hi, v);
                }
        CHECK(column(t, "bbox-0").ints[r] == y0);
        CHECK(column(t, "bbox-1").ints[r] == x0);
        CHECK(column(t, "intensity_sum").reals[r] == double(sum));
        CHECK(column(t, "intensity_min").reals[r] == lo);
        CHECK(column(t, "intensity_max").reals[r] == hi);
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) {
                __int128 m = 0, mw = 0;
                for (std::int64_t y = 0; y < h; ++y)
                    for (std::int64_t x = 0; x < w; ++x)
                        if (labels[std::size_t(y * w + x)] == l) {
                            __int128 p = 1;
                            for (int k = 0; k < i; ++k) p *= (y - y0);
                            for (int k = 0; k < j; ++k) p *= (x - x0);
                            m += p;
                            mw += p * intensity[std::size_t(y * w + x)];
                        }
                const std::string index = std::to_string(i) + "-" + std::to_string(j);
                CHECK(column(t, "moments-" + index).reals[r] == double(m));
                CHECK(column(t, "moments_weighted-" + index).reals[r] == double(mw));
            }
    }
}

namespace {

// Labels of type T (from `values`) measured against exact sums written
// here: areas, boxes, raw moments and intensity-weighted ones local to each
// region's box (every power 0..3 along each axis), intensity sums and
// extrema, at 1 and 3 threads; with `background`, label 0 a region too;
// without `intensityTerms`, no intensity (the narrowest accumulator).
template <class T>
void checkExactSums(const std::vector<std::uint64_t>& values, const Shape& shape, bool background = false, bool intensityTerms = true) {
    const std::int64_t w = shape.width, h = shape.height, d = shape.dimensions == 3 ? shape.depth : 1;
    const bool volume = shape.dimensions == 3;
    std::vector<T> labels(values.begin(), values.end());
    std::vector<std::uint16_t> intensity(values.size());
    std::mt19937 rng(3);
    for (auto& v : intensity) v = std::uint16_t(rng());
    LabelSamples ls;
    ls.shape = shape;
    ls.data = labels.data();
    ls.bytes = int(sizeof(T));
    ls.isSigned = std::is_signed_v<T>;
    IntensitySamples in;
    in.shape = shape;
    in.data = intensity.data();
    in.bytes = 2;
    MeasureOptions options;
    options.properties.properties = {"label", "area", "bbox", "moments", "intensity_sum", "intensity_min", "intensity_max", "moments_weighted"};
    if (!intensityTerms) options.properties.properties = {"label", "area", "bbox", "moments"};
    options.backgroundIsRegion = background;
    std::vector<std::uint64_t> present(values);
    std::sort(present.begin(), present.end());
    present.erase(std::unique(present.begin(), present.end()), present.end());
    if (!background && !present.empty() && present.front() == 0) present.erase(present.begin());
    for (int threads : {1, 3}) {
        options.threads = threads;
        const PropertyTable t = glccl::measureRegions(ls, intensityTerms ? &in : nullptr, options);
        REQUIRE(t.rows == present.size());
        const std::string p0 = volume ? "-0" : "", last = volume ? "-2" : "-1";
        for (std::size_t r = 0; r < t.rows; ++r) {
            const T l = T(present[r]);
            CHECK(column(t, "label").uints[r] == present[r]);
            std::int64_t x0 = w, y0 = h, z0 = d;
            std::uint64_t area = 0;
            __int128 sum = 0;
            int lo = 1 << 20, hi = -1;
            for (std::int64_t i = 0; i < w * h * d; ++i)
                if (labels[std::size_t(i)] == l) {
                    x0 = std::min(x0, i % w);
                    y0 = std::min(y0, i / w % h);
                    z0 = std::min(z0, i / (w * h));
                    ++area;
                    sum += intensity[std::size_t(i)];
                    lo = std::min(lo, int(intensity[std::size_t(i)]));
                    hi = std::max(hi, int(intensity[std::size_t(i)]));
                }
            CHECK(column(t, "area").reals[r] == double(area));
            CHECK(column(t, "bbox" + last).ints[r] == x0);
            if (volume) CHECK(column(t, "bbox-0").ints[r] == z0);
            CHECK(column(t, "bbox" + std::string(volume ? "-1" : "-0")).ints[r] == y0);
            if (intensityTerms) {
                CHECK(column(t, "intensity_sum").reals[r] == double(sum));
                CHECK(column(t, "intensity_min").reals[r] == lo);
                CHECK(column(t, "intensity_max").reals[r] == hi);
            }
            for (int k = 0; k < (volume ? 4 : 1); ++k)
                for (int i = 0; i < 4; ++i)
                    for (int j = 0; j < 4; ++j) {
                        __int128 m = 0, mw = 0;
                        for (std::int64_t e = 0; e < w * h * d; ++e)
                            if (labels[std::size_t(e)] == l) {
                                __int128 p = 1;
                                for (int q = 0; q < k; ++q) p *= e / (w * h) - z0;
                                for (int q = 0; q < i; ++q) p *= e / w % h - y0;
                                for (int q = 0; q < j; ++q) p *= e % w - x0;
                                m += p;
                                mw += p * intensity[std::size_t(e)];
                            }
                        const std::string index = (volume ? "-" + std::to_string(k) : "") + "-" + std::to_string(i) + "-" + std::to_string(j);
                        CHECK(column(t, "moments" + index).reals[r] == double(m));
                        if (intensityTerms) CHECK(column(t, "moments_weighted" + index).reals[r] == double(mw));
                    }
        }
    }
}

// A few regions numbered in raster order, as labelings and segmentations
// number them: disks (balls) on a background, the last rows background.
std::vector<std::uint64_t> fewRegions(const Shape& shape, int regions, std::uint64_t scale) {
    const std::int64_t w = shape.width, h = shape.height, d = shape.dimensions == 3 ? shape.depth : 1;
    std::vector<std::uint64_t> v(std::size_t(w * h * d), 0);
    std::mt19937 rng(17);
    for (int k = 1; k <= regions; ++k) {
        const std::int64_t cx = std::int64_t(rng() % std::uint32_t(w)), cy = std::int64_t(rng() % std::uint32_t(h - 4));
        const std::int64_t cz = std::int64_t(rng() % std::uint32_t(d)), rad = 2 + std::int64_t(rng() % 9);
        for (std::int64_t z = 0; z < d; ++z)
            for (std::int64_t y = 0; y < h - 3; ++y)
                for (std::int64_t x = 0; x < w; ++x)
                    if ((x - cx) * (x - cx) + (y - cy) * (y - cy) + (z - cz) * (z - cz) <= rad * rad)
                        v[std::size_t((z * h + y) * w + x)] = std::uint64_t(k) * scale;
    }
    return v;
}

}  // namespace

TEST_CASE("measure: exact sums where few regions are read once and where labels past the few are read again", "[measure]") {
    const Shape image = Shape::image(283, 419);  // chunks of 231 rows: regions span them
    SECTION("2-D, labels 1..n") { checkExactSums<std::uint32_t>(fewRegions(image, 60, 1), image); }
    SECTION("2-D, labels apart, 64-bit signed") { checkExactSums<std::int64_t>(fewRegions(image, 60, 7), image); }
    SECTION("2-D, a wide image: chunks of their least rows, regions span them") {
        const Shape wide = Shape::image(1100, 150);  // chunks of 64 rows, not of 2^16 elements
        checkExactSums<std::uint32_t>(fewRegions(wide, 60, 1), wide);
    }
    SECTION("2-D, the background measured too") { checkExactSums<std::uint8_t>(fewRegions(image, 60, 2), image, true); }
    SECTION("2-D, a label past the few late in the image") {
        auto v = fewRegions(image, 60, 1);
        v[v.size() - 5 * 283 + 9] = std::uint64_t(1) << 40;
        checkExactSums<std::uint64_t>(v, image);
    }
    SECTION("2-D, labels near 2^64") {
        auto v = fewRegions(image, 30, 1);
        for (auto& x : v) x = x ? ~x : 0;
        checkExactSums<std::uint64_t>(v, image);
    }
    SECTION("3-D, labels apart") {
        const Shape volume = Shape::volume(37, 29, 23);
        checkExactSums<std::uint16_t>(fewRegions(volume, 25, 3), volume);
    }
    SECTION("2-D, rows of 2^15 elements and one more: runs' sums of x^k in 64 and in 128 bits") {
        for (const std::int64_t w : {std::int64_t(1) << 15, (std::int64_t(1) << 15) + 1}) {
            const Shape rows = Shape::image(w, 4);
            std::vector<std::uint64_t> v(std::size_t(w * 4), 0);
            auto at = [&](std::int64_t x, std::int64_t y) -> std::uint64_t& { return v[std::size_t(y * w + x)]; };
            for (std::int64_t x = 0; x < w; ++x) at(x, 0) = 1;        // a whole row: the largest sums
            at(0, 1) = 2;                                              // a box from x = 0 ...
            for (std::int64_t x = w - 6; x < w; ++x) at(x, 2) = 2;     // ... to the row's end
            for (std::int64_t x = w - 9; x < w - 1; x += 2) at(x, 1) = 3;  // single elements far out
            at(w - 1, 3) = 3;
            for (std::int64_t x = 5; x < w - 40; x += 997) at(x, 3) = 4;
            checkExactSums<std::uint32_t>(v, rows);
        }
    }
    SECTION("3-D, a region whose y^3 z^3 pass 63 bits") {
        // Elements at both ends of a 1450 x 1450 slab of one column: the
        // moments' y and z powers multiply past 64-bit integers (summed in
        // 128 bits without an intensity).
        const Shape volume = Shape::volume(1, 1450, 1450);
        std::vector<std::uint64_t> v(std::size_t(1450) * 1450, 0);
        for (std::size_t i : {std::size_t(0), std::size_t(1), std::size_t(1450 * 700 + 3), v.size() - 2, v.size() - 1}) v[i] = 1;
        checkExactSums<std::uint32_t>(v, volume, false, false);
    }
}

TEST_CASE("measure: areas, boxes and centroids of connected components equal the reference labeler's table", "[measure]") {
    for (int dims : {2, 3}) {
        const Shape shape = dims == 2 ? Shape::image(257, 300) : Shape::volume(33, 40, 61);
        Image image(shape, 1, 8);
        std::mt19937 rng{std::uint32_t(dims)};
        for (std::size_t i = 0; i < shape.count(); ++i) image.setSample(i, 0, rng() % 3 == 0);
        const auto connectivity = dims == 2 ? glccl::Connectivity::Eight : glccl::Connectivity::TwentySix;
        const glccl::Labeling ref = glccl::labelReference(image, connectivity, glccl::Criterion::binary());
        MeasureOptions options;
        options.properties.properties = {"label", "area", "bbox", "centroid"};
        options.threads = 2;
        const PropertyTable t = glccl::measureRegions(samplesOf(ref.labels, shape), nullptr, options);
        REQUIRE(t.rows == ref.count());
        for (std::size_t r = 0; r < t.rows; ++r) {
            const glccl::Component& c = ref.components[r];
            CHECK(column(t, "label").uints[r] == r + 1);
            CHECK(column(t, "area").reals[r] == double(c.area));
            const int z = dims == 3 ? 1 : 0;
            CHECK(column(t, "bbox-" + std::to_string(dims - 1)).ints[r] == c.left);
            CHECK(column(t, "bbox-" + std::to_string(dims - 2)).ints[r] == c.top);
            CHECK(column(t, "bbox-" + std::to_string(2 * dims - 1)).ints[r] == c.left + c.width);
            CHECK(column(t, "centroid-" + std::to_string(dims - 1)).reals[r] == Approx(c.centroidX).epsilon(1e-12));
            CHECK(column(t, "centroid-" + std::to_string(dims - 2)).reals[r] == Approx(c.centroidY).epsilon(1e-12));
            if (z) CHECK(column(t, "centroid-0").reals[r] == Approx(c.centroidZ).epsilon(1e-12));
        }
    }
}

namespace {

// Labels 0..regions whose rows are of two kinds, in bands and at random: a
// row of many runs has its perimeter classes and the runs above it that
// its runs touch found for the whole row at once, one of few run by run.
// Rows of noise (a run about every 2 elements), of runs of about 40,
// copies of the row above (its runs continue), background.
std::vector<std::uint32_t> rowsOfBothKinds(std::int64_t w, std::int64_t h, int regions, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::uint32_t> labels(std::size_t(w * h));
    for (std::int64_t y = 0; y < h; ++y) {
        const int kind = y < 20 ? int(y / 5 % 2) : int(rng() % 4);
        std::uint32_t current = 0;
        for (std::int64_t x = 0; x < w; ++x) {
            std::uint32_t& v = labels[std::size_t(y * w + x)];
            if (kind == 2 && y > 0) v = labels[std::size_t((y - 1) * w + x)];
            else if (kind == 3) v = 0;
            else {
                if (rng() % (kind == 0 ? 2u : 40u) == 0) current = rng() % std::uint32_t(regions + 1);
                v = current;
            }
        }
    }
    return labels;
}
// Widths about the 16 elements a step and the 64 a word of bits hold.
constexpr std::int64_t kRowKindWidths[] = {1, 2, 3, 15, 16, 17, 63, 64, 65, 127, 129, 200};

// Label l's Euler number: the region and its complement in a frame one
// element wider, whose holes are the complement's 4-connected components
// but the outer one.
std::int64_t eulerNumberOf(const std::vector<std::uint32_t>& labels, std::int64_t w, std::int64_t h, std::uint32_t l) {
    Image mask(Shape::image(w + 2, h + 2), 1, 8), rest(Shape::image(w + 2, h + 2), 1, 8);
    for (std::int64_t y = 0; y < h + 2; ++y)
        for (std::int64_t x = 0; x < w + 2; ++x) {
            const bool in = x > 0 && y > 0 && x <= w && y <= h && labels[std::size_t((y - 1) * w + x - 1)] == l;
            mask.setSample(int(x), int(y), 0, in);
            rest.setSample(int(x), int(y), 0, !in);
        }
    const auto pieces = glccl::labelReference(mask, glccl::Connectivity::Eight, glccl::Criterion::binary()).count();
    const auto holes = glccl::labelReference(rest, glccl::Connectivity::Four, glccl::Criterion::binary()).count() - 1;
    return std::int64_t(pieces) - std::int64_t(holes);
}

void checkEulerNumbers(const std::vector<std::uint32_t>& labels, std::int64_t w, std::int64_t h) {
    MeasureOptions options;
    options.properties.properties = {"label", "euler_number"};
    const PropertyTable t = glccl::measureRegions(samplesOf(labels, Shape::image(w, h)), nullptr, options);
    for (std::size_t r = 0; r < t.rows; ++r) {
        const std::uint32_t l = std::uint32_t(column(t, "label").uints[r]);
        INFO("width " << w << ", label " << l);
        CHECK(column(t, "euler_number").ints[r] == eulerNumberOf(labels, w, h, l));
    }
}

}  // namespace

TEST_CASE("measure: a region's Euler number is its 8-connected pieces less its 4-connected holes", "[measure]") {
    // Random regions, and rows of many runs and of few in turn at every width.
    checkEulerNumbers(randomLabels(90, 70, 1, 6, 3), 90, 70);
    for (std::int64_t w : kRowKindWidths) checkEulerNumbers(rowsOfBothKinds(w, 41, 7, 43), w, 41);
}

TEST_CASE("measure: every thread count gives the same table, floating-point intensities included", "[measure]") {
    // Thousands of regions, so that the rows are finalized by several
    // threads too, not only gathered by them.
    for (int dims : {2, 3}) {
        const Shape shape = dims == 2 ? Shape::image(311, 500) : Shape::volume(41, 47, 53);
        const auto labels = randomLabels(shape.width, shape.height, shape.depth, 9000, 7 + std::uint32_t(dims));
        std::vector<double> intensity(labels.size() * 2);
        std::mt19937_64 rng(9);
        std::uniform_real_distribution<double> u(-1e6, 1e6);
        for (auto& v : intensity) v = u(rng);
        IntensitySamples in;
        in.shape = shape;
        in.channels = 2;
        in.data = intensity.data();
        in.bytes = 8;
        in.kind = glccl::SampleKind::Float;
        MeasureOptions options;
        options.intensityChannelAxis = true;
        options.properties.properties = {"label", "moments_central", "inertia_tensor_eigvals", "euler_number", "intensity_mean",
                                         "intensity_std", "intensity_min_position", "moments_weighted_central", "centroid_weighted"};
        if (dims == 2) options.properties.properties.push_back("perimeter");
        if (dims == 2) options.properties.properties.push_back("perimeter_crofton");
        options.threads = 1;
        const PropertyTable one = glccl::measureRegions(samplesOf(labels, shape), &in, options);
        for (int threads : {2, 3, 7, 8, 0}) {  // 0: every core
            // Built with a sanitizer: an odd count, more than the chunks' rows
            // need, and every core.
            if (kSanitized && (threads == 2 || threads == 8)) continue;
            options.threads = threads;
            CHECK(sameTables(glccl::measureRegions(samplesOf(labels, shape), &in, options), one));
        }
    }
}

TEST_CASE("measure: an image measured in pieces with margins of 2, merged, equals it measured whole", "[measure]") {
    const std::int64_t w = 37, h = 29;
    const auto labels = randomLabels(w, h, 1, 9, 21);
    std::vector<std::uint16_t> intensity(labels.size());
    for (std::size_t i = 0; i < intensity.size(); ++i) intensity[i] = std::uint16_t((i * 7919) % 65536);
    const std::vector<std::string> properties = {"label", "bbox", "moments_central", "perimeter", "perimeter_crofton", "euler_number",
                                                 "intensity_mean", "intensity_max", "intensity_max_position", "moments_weighted_central"};
    const glccl::TermRequest q = glccl::termsFor(properties, 2, 1, glccl::SampleKind::Unsigned, 16);
    IntensitySamples whole;
    whole.shape = Shape::image(w, h);
    whole.data = intensity.data();
    whole.bytes = 2;
    glccl::PropertyOptions po;
    po.properties = properties;
    const PropertyTable expected =
        glccl::finalizeProperties(glccl::measureTerms(samplesOf(labels, whole.shape), &whole, q, 1), po);

    for (std::int64_t step : {1, 5, 13}) {
        glccl::RegionTotals merged;
        bool first = true;
        for (std::int64_t y0 = 0; y0 < h; y0 += step)
            for (std::int64_t x0 = 0; x0 < w; x0 += 2 * step) {
                const std::int64_t y1 = std::min(h, y0 + step), x1 = std::min(w, x0 + 2 * step);
                const std::int64_t ay = std::max<std::int64_t>(0, y0 - 2), by = std::min(h, y1 + 2);
                const std::int64_t ax = std::max<std::int64_t>(0, x0 - 2), bx = std::min(w, x1 + 2);
                std::vector<std::uint32_t> pl;
                std::vector<std::uint16_t> pi;
                for (std::int64_t y = ay; y < by; ++y)
                    for (std::int64_t x = ax; x < bx; ++x) {
                        pl.push_back(labels[std::size_t(y * w + x)]);
                        pi.push_back(intensity[std::size_t(y * w + x)]);
                    }
                glccl::PiecePlace place;
                place.origin = {ax, ay, 0};
                place.ownBegin = {x0 - ax, y0 - ay, 0};
                place.ownEnd = {x1 - ax, y1 - ay, 1};
                place.whole = whole.shape;
                IntensitySamples piece = whole;
                piece.shape = Shape::image(bx - ax, by - ay);
                piece.data = pi.data();
                auto totals = glccl::measureTerms(samplesOf(pl, piece.shape), &piece, q, 1, false, &place);
                if (first) merged = std::move(totals);
                else glccl::mergeTotals(merged, totals);
                first = false;
            }
        INFO("pieces of " << step << " rows");
        CHECK(sameTables(glccl::finalizeProperties(merged, po), expected));
    }
}

TEST_CASE("measure: mistakes are errors that say what is wrong", "[measure]") {
    const std::vector<std::int32_t> negative = {0, 1, -2, 3};
    LabelSamples s;
    s.shape = Shape::image(2, 2);
    s.data = negative.data();
    s.bytes = 4;
    s.isSigned = true;
    MeasureOptions options;
    options.properties.properties = {"area"};
    REQUIRE_THROWS_WITH(glccl::measureRegions(s, nullptr, options), Catch::Contains("negative"));
    const std::vector<std::uint32_t> labels = {0, 1, 1, 2};
    options.properties.properties = {"centroid", "solidity"};
    REQUIRE_THROWS_WITH(glccl::measureRegions(samplesOf(labels, s.shape), nullptr, options), Catch::Contains("unknown property 'solidity'"));
    options.properties.properties = {"intensity_mean"};
    REQUIRE_THROWS_WITH(glccl::measureRegions(samplesOf(labels, s.shape), nullptr, options), Catch::Contains("needs an intensity image"));
    options.properties.properties = {"perimeter"};
    REQUIRE_THROWS_WITH(glccl::measureRegions(samplesOf(labels, Shape::volume(2, 2, 1)), nullptr, options), Catch::Contains("2-D"));
    options.properties.properties = {"moments_hu"};
    options.properties.spacing = {1.0, 2.0};
    REQUIRE_THROWS_WITH(glccl::measureRegions(samplesOf(labels, s.shape), nullptr, options), Catch::Contains("spacing of 1"));
    options.properties.spacing = {1.0};
    REQUIRE_THROWS_WITH(glccl::measureRegions(samplesOf(labels, s.shape), nullptr, options), Catch::Contains("spacing has 1"));
}

TEST_CASE("measure: a caller's mistakes through the C++ API are errors, not reads past its arrays", "[measure]") {
    // Two channels without intensityChannelAxis: a column per channel, each
    // the mean of its channel's samples (not the samples of other regions).
    const std::vector<std::uint32_t> four = {1, 2, 3, 4};
    const std::vector<std::uint8_t> rgb = {10, 200, 20, 201, 30, 202, 40, 203};
    IntensitySamples two;
    two.shape = Shape::image(4, 1);
    two.channels = 2;
    two.data = rgb.data();
    two.bytes = 1;
    MeasureOptions options;
    options.properties.properties = {"label", "intensity_mean"};
    const PropertyTable table = glccl::measureRegions(samplesOf(four, two.shape), &two, options);
    REQUIRE(table.rows == 4);
    for (std::size_t r = 0; r < 4; ++r) {
        CHECK(table.find("intensity_mean-0")->reals[r] == double(rgb[2 * r]));
        CHECK(table.find("intensity_mean-1")->reals[r] == double(rgb[2 * r + 1]));
    }

    // Labels past the table handed with them: refused, never an index past it.
    std::vector<std::uint32_t> many(64 * 64);
    for (std::size_t i = 0; i < many.size(); ++i) many[i] = std::uint32_t(1 + i);
    std::vector<glccl::Component> one(1);
    one[0].area = 1;
    options.properties.properties = {"label", "area", "moments_central", "perimeter", "euler_number"};
    REQUIRE_THROWS_WITH(glccl::measureComponents(samplesOf(many, Shape::image(64, 64)), one, nullptr, options),
                        Catch::Contains("past the table's 1 components"));

    // Totals that lack a property's terms: an error naming the property.
    const std::vector<std::uint32_t> labels = {0, 1, 1, 2};
    const glccl::RegionTotals areas = glccl::measureTerms(samplesOf(labels, Shape::image(2, 2)), nullptr,
                                                   glccl::termsFor({"area"}, 2, 0), 1);
    for (const char* name : {"perimeter", "perimeter_crofton", "euler_number", "centroid", "moments", "orientation"}) {
        glccl::PropertyOptions asked;
        asked.properties = {name};
        REQUIRE_THROWS_WITH(glccl::finalizeProperties(areas, asked), Catch::Contains("no terms of '" + std::string(name) + "'"));
    }
    glccl::RegionTotals cut = glccl::measureTerms(samplesOf(labels, Shape::image(2, 2)), nullptr,
                                           glccl::termsFor({"centroid"}, 2, 0), 1);
    cut.moments.pop_back();
    glccl::PropertyOptions centroid;
    centroid.properties = {"centroid"};
    REQUIRE_THROWS_WITH(glccl::finalizeProperties(cut, centroid), Catch::Contains("sizes"));

    // A 2-D shape deeper than one slice, and threads past the most.
    Shape deep = Shape::image(2, 2);
    deep.depth = 2;
    const std::vector<std::uint32_t> eight = {1, 1, 1, 1, 2, 2, 2, 2};
    options.properties.properties = {"area"};
    REQUIRE_THROWS_WITH(glccl::measureRegions(samplesOf(eight, deep), nullptr, options), Catch::Contains("depth 1"));
    options.threads = glccl::kMostThreads + 1;
    REQUIRE_THROWS_WITH(glccl::measureRegions(samplesOf(labels, Shape::image(2, 2)), nullptr, options), Catch::Contains("threads"));
    options.threads = -1;
    REQUIRE_THROWS_WITH(glccl::measureRegions(samplesOf(labels, Shape::image(2, 2)), nullptr, options), Catch::Contains("threads"));
}

TEST_CASE("measure: a flat region of a volume has no minor axis, as in exact arithmetic", "[measure]") {
    // Regions in one plane, axis-aligned and not: the least variance is 0
    // exactly, so axis_minor_length is 0, where -e0 + e1 + e2 of the
    // inertia tensor's eigenvalues cancels to rounding noise.
    for (int plane = 0; plane < 3; ++plane) {
        const std::int64_t side = 9;
        std::vector<std::uint32_t> labels(std::size_t(side * side * side), 0);
        std::mt19937 random(std::uint32_t(7 + plane));
        for (std::int64_t z = 0; z < side; ++z)
            for (std::int64_t y = 0; y < side; ++y)
                for (std::int64_t x = 0; x < side; ++x) {
                    const std::int64_t c[3] = {x, y, z};
                    const bool inPlane = plane < 2 ? c[plane] == 4 : x + y == 8;  // x = 4, y = 4, or a diagonal plane
                    if (inPlane && random() % 3 != 0) labels[std::size_t((z * side + y) * side + x)] = 1;
                }
        MeasureOptions options;
        options.properties.properties = {"axis_minor_length", "axis_major_length"};
        const PropertyTable table = glccl::measureRegions(samplesOf(labels, Shape::volume(side, side, side)), nullptr, options);
        REQUIRE(table.rows == 1);
        CHECK(table.find("axis_minor_length")->reals[0] == 0.0);
        CHECK(table.find("axis_major_length")->reals[0] > 1.0);
    }
}

namespace {

// A list's totals made here, one element after another: counts, exact sums
// and squares, the first extremes in C order, coordinate-weighted sums.
struct SerialSums {
    std::vector<std::int64_t> counts, minAt, maxAt;
    std::vector<__int128> sums, squares;
    std::vector<std::array<__int128, 3>> moments;
};

template <class Label, class Value>
SerialSums serialSums(const std::vector<Label>& labels, const std::vector<Value>& values,
                      const std::vector<std::int64_t>& list, const std::array<std::uint64_t, 3>& extents) {
    SerialSums s;
    const std::size_t n = list.size();
    s.counts.assign(n, 0);
    s.minAt.assign(n, 0);
    s.maxAt.assign(n, 0);
    s.sums.assign(n, 0);
    s.squares.assign(n, 0);
    s.moments.assign(n, {0, 0, 0});
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const auto at = std::lower_bound(list.begin(), list.end(), std::int64_t(labels[i]));
        if (at == list.end() || *at != std::int64_t(labels[i])) continue;
        const std::size_t k = std::size_t(at - list.begin());
        const std::array<std::uint64_t, 3> c{i / (extents[1] * extents[2]), i / extents[2] % extents[1], i % extents[2]};
        if (s.counts[k] == 0 || values[i] < values[std::size_t(s.minAt[k])]) s.minAt[k] = std::int64_t(i);
        if (s.counts[k] == 0 || values[i] > values[std::size_t(s.maxAt[k])]) s.maxAt[k] = std::int64_t(i);
        ++s.counts[k];
        // Values here are whole multiples of 2^-10 for doubles: scaled, they sum exactly.
        const __int128 v = __int128(std::is_floating_point_v<Value> ? double(values[i]) * 1024.0 : double(values[i]));
        s.sums[k] += v;
        s.squares[k] += v * v;
        for (int a = 0; a < 3; ++a) s.moments[k][std::size_t(a)] += v * __int128(c[std::size_t(a)]);
    }
    return s;
}

struct SumsColumns {
    std::vector<std::int64_t> counts, minAt, maxAt;
    std::vector<double> sums, variances;
    std::array<std::vector<double>, 3> centres;
    bool operator==(const SumsColumns& o) const {
        auto bits = [](const std::vector<double>& a, const std::vector<double>& b) {
            return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
        };
        return counts == o.counts && minAt == o.minAt && maxAt == o.maxAt && bits(sums, o.sums) &&
               bits(variances, o.variances) && bits(centres[0], o.centres[0]) && bits(centres[1], o.centres[1]) &&
               bits(centres[2], o.centres[2]);
    }
};

SumsColumns sumsOf(const glccl::LabelSumsInput& in, int threads) {
    SumsColumns c;
    const std::size_t n = in.listCount;
    c.counts.assign(n, -1);
    c.minAt.assign(n, -1);
    c.maxAt.assign(n, -1);
    c.sums.assign(n, -1.0);
    c.variances.assign(n, -1.0);
    glccl::LabelSumsOutput out;
    out.counts = c.counts.data();
    out.minimumAt = c.minAt.data();
    out.maximumAt = c.maxAt.data();
    out.sums = c.sums.data();
    out.variances = c.variances.data();
    for (int a = 0; a < in.axes; ++a) {
        c.centres[std::size_t(a)].assign(n, -1.0);
        out.centres[std::size_t(a)] = c.centres[std::size_t(a)].data();
    }
    using namespace glccl::HostLabelSums;
    glccl::sumsByLabel(in, Count | Sum | Variance | Extrema | Centre, out, threads);
    return c;
}

}  // namespace

TEST_CASE("measure: sums by label of a list on every thread count equal sums made serially", "[measure]") {
    // 48 x 51 x 59 elements: several fixed stripes, regions crossing them
    // and their planes; a short list, and a long one (its slots merged in
    // several buckets).
    for (bool many : {false, true}) {
        INFO((many ? "every other label of 20000" : "14 labels"));
        const std::array<std::uint64_t, 3> extents{48, 51, 59};
        const auto raw = randomLabels(std::int64_t(extents[2]), std::int64_t(extents[1]), std::int64_t(extents[0]),
                                      many ? 20000 : 300, 21);
        std::vector<std::int32_t> labels(raw.size());
        for (std::size_t i = 0; i < raw.size(); ++i) labels[i] = std::int32_t(raw[i]) - 5;  // negative labels too
        // Labels absent (301, 1000), background (0) and negative ones, not consecutive.
        std::vector<std::int64_t> list{-5, -2, 0, 1, 2, 3, 7, 50, 51, 120, 294, 295, 301, 1000};
        if (many) {
            list.clear();
            for (std::int64_t label = -5; label <= 20000; label += 2) list.push_back(label);
        }
        std::mt19937 rng(5);
        std::vector<std::int16_t> small(labels.size());
        std::vector<double> fractions(labels.size());
        std::uniform_int_distribution<int> value(-32768, 32767), few(0, 3);
        for (std::size_t i = 0; i < labels.size(); ++i) {
            small[i] = std::int16_t(few(rng) == 0 ? few(rng) : value(rng));  // ties at 0..3
            fractions[i] = double(value(rng)) / 1024.0;
        }
        glccl::LabelSumsInput in;
        in.axes = 3;
        in.extents = extents;
        in.labels = labels.data();
        in.labelBytes = 4;
        in.labelsSigned = true;
        in.sortedList = list.data();
        in.listCount = list.size();
        for (bool floats : {false, true}) {
            INFO((floats ? "double values" : "int16 values"));
            in.values = floats ? static_cast<const void*>(fractions.data()) : static_cast<const void*>(small.data());
            in.valueBytes = floats ? 8 : 2;
            in.valueKind = floats ? glccl::SampleKind::Float : glccl::SampleKind::Signed;
            const SerialSums want = floats ? serialSums(labels, fractions, list, extents) : serialSums(labels, small, list, extents);
            const double scale = floats ? 1024.0 : 1.0;
            const SumsColumns one = sumsOf(in, 1);
            for (std::size_t k = 0; k < list.size(); ++k) {
                INFO("label " << list[k]);
                const std::int64_t n = want.counts[k];
                CHECK(one.counts[k] == n);
                CHECK(one.sums[k] == double(want.sums[k]) / scale);
                if (n == 0) {
                    CHECK(std::isnan(one.variances[k]));
                    CHECK(one.minAt[k] == 0);
                    CHECK(std::isnan(one.centres[0][k]));
                    continue;
                }
                CHECK(one.minAt[k] == want.minAt[k]);
                CHECK(one.maxAt[k] == want.maxAt[k]);
                // (n * squares - sum^2) / n^2 and moment / sum, both exact in
                // long double's 64 bits here, rounded once.
                const long double variance = (static_cast<long double>(n * want.squares[k] - want.sums[k] * want.sums[k]) /
                                              (static_cast<long double>(n) * static_cast<long double>(n))) /
                                             (static_cast<long double>(scale) * scale);
                CHECK(std::fabs(one.variances[k] - double(variance)) <= std::fabs(double(variance)) * 1e-15);
                for (int a = 0; a < 3 && want.sums[k] != 0; ++a) {
                    const double centre = double(static_cast<long double>(want.moments[k][std::size_t(a)]) /
                                                 static_cast<long double>(want.sums[k]));
                    CHECK(std::fabs(one.centres[std::size_t(a)][k] - centre) <= std::fabs(centre) * 1e-15);
                }
            }
            for (int threads : {2, 3, 7, 0}) {  // 0: every core
                INFO("threads " << threads);
                CHECK(sumsOf(in, threads) == one);
            }
        }
    }
}

namespace {

// skimage.measure.perimeter of every label written here (index: label): its
// border pixels (a 4-neighbour outside it or outside the image), each
// weighted by how its border neighbours lie (1 + 2 x edges + 10 x corners:
// 5, 7, 15, 17, 25, 27 weigh 1; 21, 33 sqrt 2; 13, 23 (1 + sqrt 2) / 2).
template <class L>
std::vector<double> perimetersOf(const std::vector<L>& labels, std::int64_t w, std::int64_t h, int regions) {
    auto at = [&](std::int64_t x, std::int64_t y) { return labels[std::size_t(y * w + x)]; };
    auto in = [&](std::int64_t x, std::int64_t y, L label) { return x >= 0 && y >= 0 && x < w && y < h && at(x, y) == label; };
    auto border = [&](std::int64_t x, std::int64_t y, L label) {
        return in(x, y, label) && !(in(x - 1, y, label) && in(x + 1, y, label) && in(x, y - 1, label) && in(x, y + 1, label));
    };
    std::vector<double> total(std::size_t(regions) + 1, 0.0);
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) {
            const L l = at(x, y);
            if (l == 0 || !border(x, y, l)) continue;
            const int edges = int(border(x - 1, y, l)) + int(border(x + 1, y, l)) + int(border(x, y - 1, l)) + int(border(x, y + 1, l));
            const int corners = int(border(x - 1, y - 1, l)) + int(border(x + 1, y - 1, l)) + int(border(x - 1, y + 1, l)) +
                                int(border(x + 1, y + 1, l));
            const int code = 1 + 2 * edges + 10 * corners;
            double& t = total[std::size_t(l)];
            if (code == 5 || code == 7 || code == 15 || code == 17 || code == 25 || code == 27) t += 1;
            else if (code == 21 || code == 33) t += std::sqrt(2.0);
            else if (code == 13 || code == 23) t += (1 + std::sqrt(2.0)) / 2;
        }
    return total;
}

// Labels of type L, 0..regions, changing at random once in `every` elements.
template <class L>
std::vector<L> runsOfLabels(std::size_t count, int regions, int every, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<L> labels(count);
    L current = 0;
    for (auto& v : labels) {
        if (int(rng() % std::uint32_t(every)) == 0) current = L(rng() % std::uint32_t(regions + 1));
        v = current;
    }
    return labels;
}

constexpr std::int64_t kExtremaWidth = 203, kExtremaHeight = 1000;  // 3 chunks and part of a fourth

// Built with a sanitizer, the extrema's check takes the runs of 12 with one
// channel and the noise with three, at 1 and 7 threads, and the labels each
// width once, unsigned and signed in turn (every sample type still, and the
// pool's threads at work).
constexpr int kExtremaRegions = 23;

template <class L, class T>
void checkExtremaAndPerimeters(const std::vector<L>& labels, const std::vector<double>& perimeters, int channels, int every) {
    const std::int64_t w = kExtremaWidth, h = kExtremaHeight;
    // Few values, the type's extremes among them: ties everywhere, so that
    // the first position of an extremum is what is checked.
    std::mt19937 rng(17 + std::uint32_t(sizeof(T)));
    const T values[] = {std::numeric_limits<T>::lowest(), T(std::numeric_limits<T>::lowest() + 1), T(0), T(1),
                        T(std::numeric_limits<T>::max() - 1), std::numeric_limits<T>::max()};
    std::vector<T> intensity(labels.size() * std::size_t(channels));
    for (auto& v : intensity) v = values[rng() % 6];
    // The first (raster order) smallest and largest sample of each label and channel.
    const std::size_t none = labels.size();
    std::vector<std::size_t> lo(std::size_t(kExtremaRegions + 1) * std::size_t(channels), none), hi = lo;
    auto sample = [&](std::size_t i, int c) { return intensity[i * std::size_t(channels) + std::size_t(c)]; };
    for (std::size_t i = 0; i < labels.size(); ++i)
        for (int c = 0; c < channels; ++c) {
            const std::size_t k = std::size_t(labels[i]) * std::size_t(channels) + std::size_t(c);
            if (lo[k] == none || sample(i, c) < sample(lo[k], c)) lo[k] = i;
            if (hi[k] == none || sample(i, c) > sample(hi[k], c)) hi[k] = i;
        }

    LabelSamples ls;
    ls.shape = Shape::image(w, h);
    ls.data = labels.data();
    ls.bytes = int(sizeof(L));
    ls.isSigned = std::is_signed_v<L>;
    IntensitySamples in;
    in.shape = ls.shape;
    in.channels = channels;
    in.data = intensity.data();
    in.bytes = int(sizeof(T));
    in.kind = std::is_signed_v<T> ? glccl::SampleKind::Signed : glccl::SampleKind::Unsigned;
    MeasureOptions options;
    options.intensityChannelAxis = channels > 1;
    // The extrema with their first positions, and alone (gathered without
    // the positions' work).
    struct Case {
        bool positions;
        int threads;
    };
    for (const Case run : {Case{true, 1}, Case{true, 2}, Case{true, 3}, Case{true, 7}, Case{false, 1}, Case{false, 3}}) {
        const bool positions = run.positions;
        const int threads = run.threads;
        if (kSanitized && threads != 1 && threads != 7) continue;
        options.properties.properties = {"label", "intensity_min", "intensity_max", "perimeter"};
        if (positions)
            for (const char* name : {"intensity_min_position", "intensity_max_position"}) options.properties.properties.push_back(name);
        options.threads = threads;
        const PropertyTable t = glccl::measureRegions(ls, &in, options);
        const auto& label = column(t, "label").uints;
        std::size_t r = 0;
        for (int l = 1; l <= kExtremaRegions; ++l) {
            if (lo[std::size_t(l) * std::size_t(channels)] == none) continue;  // absent
            INFO("label " << l << ", threads " << threads << ", label bytes " << sizeof(L) << ", sample bytes " << sizeof(T)
                          << ", channels " << channels << ", runs of " << every << ", positions " << positions);
            REQUIRE(r < t.rows);
            REQUIRE(label[r] == std::uint64_t(l));
            CHECK(column(t, "perimeter").reals[r] == Approx(perimeters[std::size_t(l)]).epsilon(1e-12));
            for (int c = 0; c < channels; ++c) {
                const std::size_t k = std::size_t(l) * std::size_t(channels) + std::size_t(c);
                const std::string ch = channels > 1 ? "-" + std::to_string(c) : "";
                CHECK(column(t, "intensity_min" + ch).reals[r] == double(sample(lo[k], c)));
                CHECK(column(t, "intensity_max" + ch).reals[r] == double(sample(hi[k], c)));
                if (!positions) continue;
                CHECK(column(t, "intensity_min_position-0" + ch).ints[r] == std::int64_t(lo[k]) / w);
                CHECK(column(t, "intensity_min_position-1" + ch).ints[r] == std::int64_t(lo[k]) % w);
                CHECK(column(t, "intensity_max_position-0" + ch).ints[r] == std::int64_t(hi[k]) / w);
                CHECK(column(t, "intensity_max_position-1" + ch).ints[r] == std::int64_t(hi[k]) % w);
            }
            ++r;
        }
        CHECK(r == t.rows);
    }
}

template <class L>
void checkEveryIntensityType(int every) {
    const auto labels = runsOfLabels<L>(std::size_t(kExtremaWidth * kExtremaHeight), kExtremaRegions, every, 3 + std::uint32_t(sizeof(L)));
    const auto perimeters = perimetersOf(labels, kExtremaWidth, kExtremaHeight, kExtremaRegions);
    for (int channels : {1, 3}) {
        if (kSanitized && channels != (every == 2 ? 3 : 1)) continue;
        checkExtremaAndPerimeters<L, std::uint8_t>(labels, perimeters, channels, every);
        checkExtremaAndPerimeters<L, std::int8_t>(labels, perimeters, channels, every);
        checkExtremaAndPerimeters<L, std::uint16_t>(labels, perimeters, channels, every);
        checkExtremaAndPerimeters<L, std::int16_t>(labels, perimeters, channels, every);
        checkExtremaAndPerimeters<L, std::int32_t>(labels, perimeters, channels, every);
        checkExtremaAndPerimeters<L, std::uint32_t>(labels, perimeters, channels, every);
    }
}

}  // namespace

TEST_CASE("measure: intensity extrema, their first positions and perimeters equal ones found serially, every label and sample type",
          "[measure]") {
    // Runs of 12 elements on average (labels read as runs) and of 2 (noise,
    // read element by element).
    for (int every : {12, 2}) {
        checkEveryIntensityType<std::uint8_t>(every);
        if (!kSanitized) checkEveryIntensityType<std::int8_t>(every);
        if (!kSanitized) checkEveryIntensityType<std::uint16_t>(every);
        checkEveryIntensityType<std::int16_t>(every);
        checkEveryIntensityType<std::uint32_t>(every);
        if (!kSanitized) checkEveryIntensityType<std::int32_t>(every);
        if (!kSanitized) checkEveryIntensityType<std::uint64_t>(every);
        checkEveryIntensityType<std::int64_t>(every);
    }
}

TEST_CASE("measure: intensity sums, variances and extrema of 8- and 16-bit runs of every length equal exact ones", "[measure]") {
    // Runs of 1 to 70 elements (within a vector step, whole steps of 8 and
    // of 16 and a part), and rows longer than 2^15 elements of one region (past a
    // segment of the runs' vector sums) at the samples' largest value and at
    // 0, where a pair of squares of the samples moved down by 2^15 reaches
    // 2^31.
    auto check = [](auto sample) {
        using T = decltype(sample);
        const T top = std::numeric_limits<T>::max();
        const std::int64_t w = 40000, h = 6;
        std::vector<std::uint32_t> labels(std::size_t(w * h), 0);
        std::vector<T> intensity(labels.size(), 0);
        std::mt19937 rng(17);
        for (std::int64_t x = 0; x < w; ++x) {
            labels[std::size_t(x)] = 1;
            intensity[std::size_t(x)] = top;
            labels[std::size_t(w + x)] = 2;  // intensity 0
        }
        for (std::int64_t y = 2; y < h; ++y) {
            std::int64_t x = 0;
            for (std::uint32_t k = 0; x < w; ++k) {
                const std::int64_t n = std::min<std::int64_t>(1 + k % 70, w - x);
                const std::uint32_t l = 3 + (k + std::uint32_t(y) * 7) % 11;  // neighbouring runs differ
                for (std::int64_t i = 0; i < n; ++i, ++x) {
                    labels[std::size_t(y * w + x)] = l;
                    const std::uint32_t pick = rng() % 4;
                    intensity[std::size_t(y * w + x)] = pick == 0 ? T(0) : pick == 1 ? top : T(rng());
                }
            }
        }
        IntensitySamples in;
        in.shape = Shape::image(w, h);
        in.data = intensity.data();
        in.bytes = sizeof(T);
        in.kind = glccl::SampleKind::Unsigned;
        MeasureOptions options;
        options.properties.properties = {"label", "area", "intensity_sum", "intensity_variance", "intensity_min", "intensity_max"};
        for (int threads : {1, 3}) {
            options.threads = threads;
            const PropertyTable t = glccl::measureRegions(samplesOf(labels, in.shape), &in, options);
            REQUIRE(t.rows == 13);
            for (std::size_t r = 0; r < t.rows; ++r) {
                const std::uint32_t l = std::uint32_t(column(t, "label").uints[r]);
                __int128 n = 0, sum = 0, squares = 0;
                std::int64_t lo = top, hi = 0;
                for (std::size_t i = 0; i < labels.size(); ++i)
                    if (labels[i] == l) {
                        const std::int64_t v = intensity[i];
                        ++n;
                        sum += v;
                        squares += v * v;
                        lo = std::min(lo, v);
                        hi = std::max(hi, v);
                    }
                INFO("label " << l << ", " << sizeof(T) * 8 << "-bit samples, " << threads << " threads");
                CHECK(column(t, "intensity_sum").reals[r] == double(sum));
                CHECK(column(t, "intensity_min").reals[r] == double(lo));
                CHECK(column(t, "intensity_max").reals[r] == double(hi));
                const __int128 numerator = n * squares - sum * sum;  // exact: below 2^100
                const long double variance = (long double)numerator / ((long double)n * (long double)n);
                CHECK(column(t, "intensity_variance").reals[r] == Approx(double(variance)).epsilon(1e-14).margin(1e-300));
            }
        }
    };
    check(std::uint16_t{});
    check(std::uint8_t{});
}

TEST_CASE("measure: perimeters of rows of many runs and of few, in turn, equal ones found serially, every width", "[measure]") {
    constexpr int regions = 9;
    for (std::int64_t w : kRowKindWidths) {
        const std::int64_t h = 61;
        const auto labels = rowsOfBothKinds(w, h, regions, 41);
        const auto perimeters = perimetersOf(labels, w, h, regions);
        for (int threads : {1, 3}) {
            MeasureOptions options;
            options.threads = threads;
            options.properties.properties = {"label", "perimeter"};
            const PropertyTable t = glccl::measureRegions(samplesOf(labels, Shape::image(w, h)), nullptr, options);
            const auto& label = column(t, "label").uints;
            for (std::size_t r = 0; r < t.rows; ++r) {
                INFO("width " << w << ", threads " << threads << ", label " << label[r]);
                CHECK(column(t, "perimeter").reals[r] == Approx(perimeters[std::size_t(label[r])]).epsilon(1e-12));
            }
        }
    }
}

// A binary labeling's labels in 8-connectivity, which a glccl::Session
// marks foregroundConnected: read as the foreground's bits, a run's label
// at its first element, except in rows of many runs; the bits made from the
// labels, or given as the cpu engine's labeler wrote them
// (LabelSamples::foreground), with its runs' labels too
// (LabelSamples::runLabels). Images of rows of both kinds (noise, long
// runs, runs continued, background) at every width about a word of 64
// elements, labeled by the reference labeler.
TEST_CASE("measure: a binary labeling's labels read as bits give the perimeters, Euler numbers and sums found serially",
          "[measure]") {
    const int given = GENERATE(0, 1, 2);  // nothing, the labeler's bits, its bits and run labels
    const bool bitsGiven = given >= 1, runsGiven = given == 2;
    int runsKept = 0;  // widths whose run labels the labeler kept
    for (std::int64_t w : kRowKindWidths) {
        const std::int64_t h = 61;
        const auto kinds = rowsOfBothKinds(w, h, 1, 47);
        Image image(Shape::image(w, h), 1, 8);
        for (std::size_t i = 0; i < kinds.size(); ++i) image.setSample(i, 0, kinds[i]);
        const glccl::Labeling ref = glccl::labelReference(image, glccl::Connectivity::Eight, glccl::Criterion::binary());
        const auto perimeters = perimetersOf(ref.labels, w, h, int(ref.count()));
        // The labeler's bits: the reference's foreground, row by row, each
        // row's word after its last zero.
        std::vector<std::uint64_t> bits, runStarts;
        std::vector<std::uint32_t> runLabels;
        if (bitsGiven) {
            glccl::cpu::Options call;
            call.foreground = &bits;
            if (runsGiven) {
                call.runLabels = &runLabels;
                call.runStarts = &runStarts;
            }
            std::vector<std::uint32_t> labels(ref.labels.size());
            std::vector<glccl::Component> table;
            glccl::cpu::Labeler(2).label(glccl::ImageView(image), glccl::Connectivity::Eight, glccl::Criterion::binary(),
                                         labels.data(), table, call);
            REQUIRE(labels == ref.labels);
            const std::size_t words = std::size_t((w + 63) / 64);
            REQUIRE(bits.size() == std::size_t(h) * (words + 1));
            for (std::int64_t y = 0; y < h; ++y)
                for (std::size_t k = 0; k <= words; ++k) {
                    std::uint64_t expected = 0;
                    for (std::int64_t x = std::int64_t(k) * 64; x < std::min<std::int64_t>(w, std::int64_t(k + 1) * 64); ++x)
                        expected |= std::uint64_t(ref.labels[std::size_t(y * w + x)] != 0) << (x % 64);
                    INFO("width " << w << ", row " << y << ", word " << k);
                    CHECK(bits[std::size_t(y) * (words + 1) + k] == expected);
                }
            // The run labels: the reference's label at each first element
            // of a run of the foreground, row by row, which the labeler
            // keeps where the runs are few. The measuring reads them either
            // way.
            if (runsGiven) {
                std::vector<std::uint32_t> expectedLabels;
                std::vector<std::uint64_t> expectedStarts;
                for (std::int64_t y = 0; y < h; ++y) {
                    expectedStarts.push_back(expectedLabels.size());
                    for (std::int64_t x = 0; x < w; ++x) {
                        const std::uint32_t l = ref.labels[std::size_t(y * w + x)];
                        if (l != 0 && (x == 0 || ref.labels[std::size_t(y * w + x - 1)] == 0)) expectedLabels.push_back(l);
                    }
                }
                expectedStarts.push_back(expectedLabels.size());
                INFO("width " << w);
                if (expectedLabels.size() * glccl::cpu::kElementsPerRunLabel <= std::size_t(w * h)) {
                    ++runsKept;
                    CHECK(runStarts == expectedStarts);
                    CHECK(runLabels == expectedLabels);
                } else {
                    CHECK(runStarts.empty());
                    CHECK(runLabels.empty());
                }
                runStarts = expectedStarts;
                runLabels = expectedLabels;
            }
        }
        std::vector<std::uint16_t> intensity(kinds.size());
        std::mt19937 rng{std::uint32_t(w)};
        for (auto& v : intensity) v = std::uint16_t(rng());
        IntensitySamples in;
        in.shape = image.shape();
        in.data = intensity.data();
        in.bytes = 2;
        LabelSamples labels = samplesOf(ref.labels, image.shape());
        labels.foregroundConnected = true;
        if (bitsGiven) labels.foreground = bits.data();
        if (runsGiven) {
            labels.runLabels = runLabels.data();
            labels.runStarts = runStarts.data();
        }
        for (int threads : {1, 3}) {
            MeasureOptions options;
            options.threads = threads;
            options.properties.properties = {"label", "perimeter", "perimeter_crofton", "euler_number", "moments", "intensity_sum",
                                             "intensity_max"};
            const PropertyTable t = glccl::measureComponents(labels, ref.components, &in, options);
            REQUIRE(t.rows == ref.count());
            for (std::size_t r = 0; r < t.rows; ++r) {
                const auto l = std::uint32_t(r + 1);
                const glccl::Component& c = ref.components[r];
                INFO("width " << w << ", threads " << threads << ", given " << given << ", label " << l);
                CHECK(column(t, "perimeter").reals[r] == Approx(perimeters[l]).epsilon(1e-12));
                CHECK(column(t, "euler_number").ints[r] == eulerNumberOf(ref.labels, w, h, l));
                // scikit-image's perimeter_crofton with 4 directions: pi / 4
                // times the region's exits to the right and downwards, plus
                // pi / (4 sqrt 2) times those along the two diagonals (an
                // exit: an element of it whose neighbour that way is not).
                auto in = [&](std::int64_t x, std::int64_t y) {
                    return x >= 0 && y >= 0 && x < w && y < h && ref.labels[std::size_t(y * w + x)] == l;
                };
                std::int64_t straight = 0, diagonal = 0;
                for (std::int64_t y = 0; y < h; ++y)
                    for (std::int64_t x = 0; x < w; ++x)
                        if (in(x, y)) {
                            straight += !in(x + 1, y) + !in(x, y + 1);
                            diagonal += !in(x + 1, y + 1) + !in(x - 1, y + 1);
                        }
                const double pi = 3.14159265358979323846;
                CHECK(column(t, "perimeter_crofton").reals[r] ==
                      Approx(pi / 4 * double(straight) + pi / (4 * std::sqrt(2.0)) * double(diagonal)).epsilon(1e-12));
                __int128 sum = 0, m11 = 0, m03 = 0;
                int highest = -1;
                for (std::int64_t y = 0; y < h; ++y)
                    for (std::int64_t x = 0; x < w; ++x)
                        if (ref.labels[std::size_t(y * w + x)] == l) {
                            const int v = intensity[std::size_t(y * w + x)];
                            const std::int64_t lx = x - c.left, ly = y - c.top;
                            sum += v;
                            highest = std::max(highest, v);
                            m11 += lx * ly;
                            m03 += lx * lx * lx;
                        }
                CHECK(column(t, "intensity_sum").reals[r] == double(sum));
                CHECK(column(t, "intensity_max").reals[r] == highest);
                CHECK(column(t, "moments-1-1").reals[r] == double(m11));
                CHECK(column(t, "moments-0-3").reals[r] == double(m03));
            }
        }
    }
    if (runsGiven) CHECK(runsKept > 0);
}

namespace {

// Labels of a few thousand regions (more rows than one thread finalizes),
// a 16-bit intensity, and properties that read every kind of term.
struct ConcurrentCase {
    Shape shape = Shape::image(200, 200);
    std::vector<std::uint32_t> labels = randomLabels(200, 200, 1, 20000, 31);
    std::vector<std::uint16_t> intensity;
    MeasureOptions options;
    ConcurrentCase() {
        std::mt19937 rng(17);
        for (std::size_t i = 0; i < labels.size(); ++i) intensity.push_back(std::uint16_t(rng()));
        options.properties.properties = {"label",        "area",          "bbox",           "centroid", "moments",
                                         "moments_hu",   "orientation",   "axis_major_length", "eccentricity",
                                         "perimeter",    "euler_number",  "intensity_mean", "intensity_max",
                                         "moments_weighted_central"};
    }
    IntensitySamples samples() const {
        IntensitySamples in;
        in.shape = shape;
        in.data = intensity.data();
        in.bytes = 2;
        return in;
    }
    PropertyTable measured(int threads) const {
        MeasureOptions o = options;
        o.threads = threads;
        const IntensitySamples in = samples();
        return glccl::measureRegions(samplesOf(labels, shape), &in, o);
    }
};

}  // namespace

// The cpu labeler keeps a binary image's run labels only where its runs
// are few (cpu::kElementsPerRunLabel), and run labels that do not match
// the foreground's runs are refused rather than read past.
TEST_CASE("measure: run labels kept only for few runs, and refused where they do not match the foreground", "[measure]") {
    const std::int64_t w = 130, h = 9;
    auto labelWith = [&](const Image& image, std::vector<std::uint64_t>& bits, std::vector<std::uint32_t>& runLabels,
                         std::vector<std::uint64_t>& runStarts, std::vector<std::uint32_t>& labels,
                         std::vector<glccl::Component>& table) {
        glccl::cpu::Options call;
        call.foreground = &bits;
        call.runLabels = &runLabels;
        call.runStarts = &runStarts;
        labels.assign(std::size_t(w * h), 0);
        glccl::cpu::Labeler(2).label(glccl::ImageView(image), glccl::Connectivity::Eight, glccl::Criterion::binary(),
                                     labels.data(), table, call);
    };
    std::vector<std::uint64_t> bits, runStarts;
    std::vector<std::uint32_t> runLabels, labels;
    std::vector<glccl::Component> table;
    // A checkerboard: a run every other element.
    Image busy(Shape::image(w, h), 1, 8);
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) busy.setSample(int(x), int(y), 0, (x + y) % 2 ? 255 : 0);
    runStarts.assign(3, 1);
    runLabels.assign(3, 1);
    labelWith(busy, bits, runLabels, runStarts, labels, table);
    CHECK(!bits.empty());
    CHECK(runLabels.empty());
    CHECK(runStarts.empty());
    // Bars a few elements long, a few a row.
    Image bars(Shape::image(w, h), 1, 8);
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) bars.setSample(int(x), int(y), 0, (x + 3 * y) % 40 < 6 ? 255 : 0);
    labelWith(bars, bits, runLabels, runStarts, labels, table);
    REQUIRE(runStarts.size() == std::size_t(h) + 1);
    REQUIRE(runLabels.size() == runStarts.back());
    LabelSamples samples = samplesOf(labels, Shape::image(w, h));
    samples.foregroundConnected = true;
    samples.foreground = bits.data();
    samples.runLabels = runLabels.data();
    samples.runStarts = runStarts.data();
    MeasureOptions options;
    options.properties.properties = {"label", "area", "perimeter"};
    CHECK_NOTHROW(glccl::measureComponents(samples, table, nullptr, options));
    // Row 4 given one run label too many, row 5 one too few.
    runStarts[5] += 1;
    CHECK_THROWS_AS(glccl::measureComponents(samples, table, nullptr, options), glccl::Error);
    CHECK_THROWS_WITH(glccl::measureComponents(samples, table, nullptr, options), Catch::Contains("run labels"));
}

TEST_CASE("measure: several threads measuring at once each get the table measured serially", "[measure]") {
    const ConcurrentCase c;
    const PropertyTable one = c.measured(1);
    REQUIRE(one.rows > 2000);
    const IntensitySamples in = c.samples();
    const glccl::TermRequest request =
        glccl::termsFor(c.options.properties.properties, 2, 1, glccl::SampleKind::Unsigned, 16);
    const glccl::RegionTotals totals = glccl::measureTerms(samplesOf(c.labels, c.shape), &in, request, 1);
    // Callers measuring (the cpu engine's team and the finalizing threads
    // shared), finalizing alone, and starting the measuring team, at once.
    const int counts[] = {1, 2, 3, 7, 0};
    std::vector<int> same(8, 0);
    std::vector<std::thread> callers;
    for (int k = 0; k < 8; ++k)
        callers.emplace_back([&, k] {
            bool all = true;
            for (int round = 0; round < 2; ++round) {
                const int threads = counts[std::size_t(k + round) % 5];
                if (k % 4 == 3) {
                    glccl::startMeasuringTeam(threads + 1);
                    continue;
                }
                const PropertyTable t = k % 2 ? glccl::finalizeProperties(totals, c.options.properties, threads)
                                              : c.measured(threads);
                all = all && sameTables(t, one);
            }
            same[std::size_t(k)] = all;
        });
    for (auto& t : callers) t.join();
    for (int k = 0; k < 8; ++k) CHECK(same[std::size_t(k)] == 1);
}

TEST_CASE("measure: a forked child measures, on threads of its own, the table measured serially", "[measure]") {
    if (glccl::test::kThreadSanitizer)
        glccl::test::skipTest("ThreadSanitizer stops a child that starts threads after a fork (die_after_fork)");
    const ConcurrentCase c;
    const PropertyTable one = c.measured(1);
    REQUIRE(sameTables(c.measured(3), one));  // the process's threads started, and waiting
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) _exit(sameTables(c.measured(3), one) && sameTables(c.measured(0), one) ? 0 : 1);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("measure: term arrays are zero however they are made, kept blocks of freed arrays included", "[measure]") {
    // Arrays large enough to be kept when freed (a few MiB), and small ones.
    for (std::size_t n : {std::size_t(1000), std::size_t(5) << 20 >> 5, std::size_t(9) << 20 >> 5}) {
        INFO(n << " elements of 32 bytes");
        for (int round = 0; round < 3; ++round) {
            glccl::TermArray<glccl::Int256> a(n);
            REQUIRE(a.size() == n);
            for (const glccl::Int256& v : a) REQUIRE(v == glccl::Int256{});
            // Dirty every byte, so that a block handed out again unzeroed shows.
            std::memset(static_cast<void*>(a.data()), 0xA5, n * sizeof(glccl::Int256));
            a.resize(n + 7);  // grown past its capacity: a new block, the old one's elements moved
            for (std::size_t i = n; i < n + 7; ++i) REQUIRE(a[i] == glccl::Int256{});
            REQUIRE(a[0].limb[0] == 0xA5A5A5A5A5A5A5A5u);
        }
        // A kept block serves a somewhat smaller array too, zeroed as far as
        // the array reaches.
        for (std::size_t m : {n - n / 8, n, n - n / 16}) {
            glccl::TermArray<glccl::Int256> b(m);
            for (const glccl::Int256& v : b) REQUIRE(v == glccl::Int256{});
            std::memset(static_cast<void*>(b.data()), 0x5A, m * sizeof(glccl::Int256));
        }
        glccl::TermArray<double> d;
        d.resize(n);
        for (double v : d) REQUIRE(v == 0.0);
        d.push_back(2.5);
        d.resize(n + 100);
        REQUIRE(d[n] == 2.5);
        for (std::size_t i = n + 1; i < n + 100; ++i) REQUIRE(d[i] == 0.0);
    }
}

TEST_CASE("measure: totals in memory kept from a freed array that was left dirty equal exact sums", "[measure]") {
    // 16,000 dominoes (two elements side by side, one label each): moment
    // sums of 8 MiB, which take a block kept from a freed array of 9 MiB
    // (TermArray keeps blocks of 4 MiB and up and zeroes them when it hands
    // them out again). A total the block's bytes reached would show.
    const std::int64_t w = 400, h = 80;
    std::vector<std::uint32_t> labels(std::size_t(w * h));
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) labels[std::size_t(y * w + x)] = std::uint32_t(y * (w / 2) + x / 2 + 1);
    std::vector<std::uint16_t> intensity(labels.size());
    std::mt19937 rng(9);
    for (auto& v : intensity) v = std::uint16_t(rng());
    IntensitySamples in;
    in.shape = Shape::image(w, h);
    in.data = intensity.data();
    in.bytes = 2;
    MeasureOptions options;
    options.properties.properties = {"label", "moments", "intensity_sum", "intensity_min", "intensity_max", "euler_number"};
    options.threads = 3;
    for (int round = 0; round < 2; ++round) {
        {
            glccl::TermArray<glccl::Int256> dirty((std::size_t(9) << 20) / sizeof(glccl::Int256));
            std::memset(static_cast<void*>(dirty.data()), 0xA5, dirty.size() * sizeof(glccl::Int256));
        }
        const PropertyTable t = glccl::measureRegions(samplesOf(labels, in.shape), &in, options);
        REQUIRE(t.rows == std::size_t(w * h / 2));
        const auto& label = column(t, "label").uints;
        for (std::size_t r = 0; r < t.rows; ++r) {
            INFO("round " << round << ", region " << r);
            REQUIRE(label[r] == r + 1);
            const std::size_t first = 2 * r;  // the domino's left element (rows of w / 2 dominoes)
            const int a = intensity[first], b = intensity[first + 1];
            REQUIRE(column(t, "intensity_sum").reals[r] == double(a + b));
            REQUIRE(column(t, "intensity_min").reals[r] == double(std::min(a, b)));
            REQUIRE(column(t, "intensity_max").reals[r] == double(std::max(a, b)));
            REQUIRE(column(t, "euler_number").ints[r] == 1);
            // Local coordinates: row 0, columns 0 and 1.
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) {
                    const double expected = i > 0 ? 0.0 : j == 0 ? 2.0 : 1.0;
                    REQUIRE(column(t, "moments-" + std::to_string(i) + "-" + std::to_string(j)).reals[r] == expected);
                }
        }
    }
}

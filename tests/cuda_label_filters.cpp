// The label filters on device arrays (glccl/cuda_label_filters.hpp) against
// a host computation written out plainly here: per-label counts from a map,
// the new numbering by a walk in raster order, the largest k by a sort on
// (count descending, label), boxes by unravelling every index. Every label
// type, 1-D, 2-D and 3-D shapes whose sizes cross the kernels' windows of
// 32 elements and chunks of 1024, labels with gaps and out of raster order,
// long runs, checkerboards, all-background and empty arrays, and the errors:
// negative labels, labels too large to tabulate, bad arguments.
//
// Needs a CUDA device; elsewhere each test prints why and is reported as
// skipped (cuda_support.hpp). The argument checks run everywhere.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda_support.hpp"
#include "glccl/cuda_label_filters.hpp"
#include "glccl/error.hpp"

namespace {

using glccl::cuda::DeviceLabelArray;
using glccl::cuda::LabelBoxes;
using glccl::cuda::LabelRange;
using glccl::cuda::LabelType;
using glccl::test::messageOf;
using Shape = std::vector<std::uint64_t>;

template <typename T>
constexpr LabelType labelTypeOf() {
    if constexpr (std::is_same_v<T, std::int32_t>) return LabelType::Int32;
    if constexpr (std::is_same_v<T, std::uint32_t>) return LabelType::UInt32;
    if constexpr (std::is_same_v<T, std::int64_t>) return LabelType::Int64;
    return LabelType::UInt64;
}

std::uint64_t countOf(const Shape& shape) {
    std::uint64_t count = 1;
    for (const auto side : shape) count *= side;
    return count;
}

std::string describe(const Shape& shape) {
    std::string text;
    for (const auto side : shape) text += (text.empty() ? "" : "x") + std::to_string(side);
    return text.empty() ? "scalar" : text;
}

// ---- the host computation ---------------------------------------------------------------

template <typename T>
std::map<std::uint64_t, std::uint64_t> countsOf(const std::vector<T>& labels) {
    std::map<std::uint64_t, std::uint64_t> counts;
    for (const T label : labels) {
        if (label != 0) ++counts[std::uint64_t(label)];
    }
    return counts;
}

// Labels outside `kept` set to 0; the kept ones renumbered 1..m in the order
// they are first met (renumber), or kept as they are. Returns (labels, m).
template <typename T>
std::pair<std::vector<T>, std::uint64_t> keepOnly(const std::vector<T>& labels, const std::set<std::uint64_t>& kept,
                                                  bool renumber) {
    std::map<std::uint64_t, std::uint64_t> number;
    std::vector<T> out(labels.size());
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const std::uint64_t label = std::uint64_t(labels[i]);
        if (label == 0 || kept.count(label) == 0) continue;
        if (number.count(label) == 0) number[label] = renumber ? number.size() + 1 : label;
        out[i] = T(number[label]);
    }
    return {out, number.size()};
}

template <typename T>
std::set<std::uint64_t> atLeast(const std::vector<T>& labels, std::uint64_t minSize) {
    std::set<std::uint64_t> kept;
    for (const auto& [label, count] : countsOf(labels)) {
        if (count >= minSize) kept.insert(label);
    }
    return kept;
}

template <typename T>
std::set<std::uint64_t> mostElements(const std::vector<T>& labels, std::uint64_t k) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranked;  // (count, label)
    for (const auto& [label, count] : countsOf(labels)) ranked.emplace_back(count, label);
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::set<std::uint64_t> kept;
    for (std::size_t i = 0; i < ranked.size() && i < k; ++i) kept.insert(ranked[i].second);
    return kept;
}

// Boxes of labels 1..top in LabelBoxes' layout.
template <typename T>
LabelBoxes boxesOf(const std::vector<T>& labels, const Shape& shape, std::uint64_t top) {
    LabelBoxes boxes;
    boxes.labels = top;
    boxes.axes = int(shape.size());
    boxes.low.assign(shape.size() * top, std::numeric_limits<std::uint64_t>::max());
    boxes.high.assign(shape.size() * top, 0);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const std::uint64_t label = std::uint64_t(labels[i]);
        if (label == 0 || label > top) continue;
        std::uint64_t rest = i;
        for (std::size_t axis = shape.size(); axis-- > 0;) {
            const std::uint64_t index = rest % shape[axis];
            rest /= shape[axis];
            const std::size_t at = axis * top + label - 1;
            boxes.low[at] = std::min(boxes.low[at], index);
            boxes.high[at] = std::max(boxes.high[at], index);
        }
    }
    return boxes;
}

// ---- the device side --------------------------------------------------------------------

using glccl::test::DeviceMemory;
using glccl::test::deviceAllocate;

// Labels copied to the device, with room for an output of their size.
template <typename T>
struct OnDevice {
    OnDevice(const std::vector<T>& host, const Shape& shape)
        : labels(deviceAllocate(host.size() * sizeof(T))), out(deviceAllocate(host.size() * sizeof(T))) {
        REQUIRE(cudaMemcpy(labels.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
        array.data = labels.get();
        array.type = labelTypeOf<T>();
        array.shape = shape;
    }
    std::vector<T> result() const {
        std::vector<T> host(countOf(array.shape));
        REQUIRE(cudaMemcpy(host.data(), out.get(), host.size() * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
        return host;
    }
    DeviceMemory labels, out;
    DeviceLabelArray array;
};

// ---- inputs -------------------------------------------------------------------------------

// Labels drawn from a few values spread over 1..spread (gaps between them,
// no relation to raster order), in runs of random length, about a third
// background.
template <typename T>
std::vector<T> randomLabels(std::uint64_t count, std::uint64_t values, std::uint64_t spread, int longestRun,
                            std::mt19937_64& rng) {
    std::vector<std::uint64_t> palette(values);
    for (auto& value : palette) value = 1 + rng() % spread;
    std::vector<T> labels(count);
    for (std::uint64_t i = 0; i < count;) {
        const std::uint64_t run = 1 + rng() % std::uint64_t(longestRun);
        const T label = rng() % 3 == 0 ? T(0) : T(palette[rng() % values]);
        for (std::uint64_t j = 0; j < run && i < count; ++j, ++i) labels[i] = label;
    }
    return labels;
}

const std::vector<Shape> kShapes = {
    {1},     {31},        {32},       {33},        {1023},      {1025},  {5000},    {70000},
    {1, 1},  {33, 65},    {100, 1},   {1, 3000},   {64, 2000},  {3, 1025},
    {5, 6, 7}, {20, 30, 40}, {3, 1, 1100}, {2, 64, 33},
};

// ---- checks -------------------------------------------------------------------------------

template <typename T>
void checkFilters(const std::vector<T>& labels, const Shape& shape, cudaStream_t stream, const std::string& what) {
    INFO(what << ", " << describe(shape) << ", " << glccl::cuda::labelTypeName(labelTypeOf<T>()));
    OnDevice<T> device(labels, shape);
    const LabelRange range = glccl::cuda::labelRange(device.array, stream);
    std::uint64_t largest = 0;
    for (const T label : labels) largest = std::max(largest, std::uint64_t(label));
    REQUIRE(range.largest == largest);
    REQUIRE(range.smallest == 0);
    const std::uint64_t present = countsOf(labels).size();

    {
        const auto [want, wantCount] = keepOnly(labels, atLeast(labels, 1), true);
        CHECK(glccl::cuda::relabel(device.array, range, device.out.get(), stream) == wantCount);
        CHECK(device.result() == want);
    }
    for (const std::uint64_t minSize : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(2), std::uint64_t(7),
                                        std::uint64_t(labels.size() + 1)}) {
        for (const bool renumber : {true, false}) {
            INFO("removeSmall " << minSize << (renumber ? ", renumbered" : ", values kept"));
            const auto [want, wantCount] = keepOnly(labels, atLeast(labels, minSize), renumber);
            CHECK(glccl::cuda::removeSmall(device.array, range, minSize, renumber, device.out.get(), stream) ==
                  wantCount);
            CHECK(device.result() == want);
        }
    }
    for (const std::uint64_t k : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(3), present, present + 5}) {
        for (const bool renumber : {true, false}) {
            INFO("keepLargest " << k << (renumber ? ", renumbered" : ", values kept"));
            const auto [want, wantCount] = keepOnly(labels, mostElements(labels, k), renumber);
            CHECK(glccl::cuda::keepLargest(device.array, range, k, renumber, device.out.get(), stream) == wantCount);
            CHECK(wantCount == std::min(k, present));
            CHECK(device.result() == want);
        }
    }
    for (const std::uint64_t maxLabel : {std::uint64_t(0), std::uint64_t(3), largest + 5}) {
        INFO("findObjects, maxLabel " << maxLabel);
        const LabelBoxes want = boxesOf(labels, shape, maxLabel != 0 ? maxLabel : largest);
        const LabelBoxes got = glccl::cuda::findObjects(device.array, range, maxLabel, stream);
        CHECK(got.labels == want.labels);
        CHECK(got.axes == want.axes);
        // Absent labels: any low > high, as the header says; compare present ones exactly.
        REQUIRE(got.low.size() == want.low.size());
        REQUIRE(got.high.size() == want.high.size());
        bool same = true;
        for (std::size_t i = 0; i < want.low.size(); ++i) {
            const bool absent = want.low[i] > want.high[i];
            same = same && (absent ? got.low[i] > got.high[i] : got.low[i] == want.low[i] && got.high[i] == want.high[i]);
        }
        CHECK(same);
    }
}

template <typename T>
void checkEveryShape(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    cudaStream_t stream = nullptr;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    for (const Shape& shape : kShapes) {
        const std::uint64_t count = countOf(shape);
        checkFilters(randomLabels<T>(count, 12, 40, 3, rng), shape, stream, "few labels, short runs");
        checkFilters(randomLabels<T>(count, 200, 5000, 80, rng), shape, nullptr, "labels with gaps, long runs");
        checkFilters(randomLabels<T>(count, count / 2 + 1, count + 7, 1, rng), shape, stream, "single elements");
    }
    REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

template <typename T>
void checkPatterns() {
    for (const Shape& shape : {Shape{64, 2000}, Shape{20, 30, 40}, Shape{70000}}) {
        const std::uint64_t count = countOf(shape);
        std::vector<T> pattern(count);
        for (std::uint64_t i = 0; i < count; ++i) pattern[i] = T(1 + (i + i / shape.back()) % 2);
        checkFilters(pattern, shape, nullptr, "checkerboard of two labels");
        checkFilters(std::vector<T>(count, T(0)), shape, nullptr, "all background");
        checkFilters(std::vector<T>(count, T(9)), shape, nullptr, "one label everywhere");
        for (std::uint64_t i = 0; i < count; ++i) pattern[i] = T(count - i);
        checkFilters(pattern, shape, nullptr, "every element its own label, descending");
    }
    checkFilters(std::vector<T>{}, Shape{0}, nullptr, "empty");
    checkFilters(std::vector<T>{}, Shape{0, 5}, nullptr, "empty 2-D");
    checkFilters(std::vector<T>{T(4), T(4), T(2), T(2)}, Shape{4}, nullptr, "a tie: the lower label first");
}

}  // namespace

TEST_CASE("cuda label filters: invalid arguments are errors that name the entry", "[cuda]") {
    // Checked before any CUDA call, so this runs without a GPU too.
    DeviceLabelArray labels;
    labels.shape = {4, 4};
    CHECK_THAT(messageOf([&] { glccl::cuda::labelRange(labels); }),
               Catch::StartsWith("glccl::cuda::labelRange(): labels.data is null"));
    labels.data = reinterpret_cast<const void*>(std::uintptr_t(0x1002));
    CHECK_THAT(messageOf([&] { glccl::cuda::labelRange(labels); }),
               Catch::StartsWith("glccl::cuda::labelRange(): labels.data is not aligned") && Catch::Contains("uint32"));
    labels.data = reinterpret_cast<const void*>(std::uintptr_t(0x1000));
    labels.type = LabelType(7);
    CHECK_THAT(messageOf([&] { glccl::cuda::labelRange(labels); }), Catch::Contains("unknown LabelType"));
    labels.type = LabelType::Int64;
    LabelRange negative;
    negative.largest = 3;
    negative.smallest = -2;
    void* out = reinterpret_cast<void*>(std::uintptr_t(0x2000));
    CHECK_THAT(messageOf([&] { glccl::cuda::relabel(labels, negative, out); }),
               Catch::Equals("glccl::cuda::relabel(): labels must be 0 (background) or positive; the smallest is -2"));
    CHECK_THAT(messageOf([&] { glccl::cuda::removeSmall(labels, negative, 3, true, out); }),
               Catch::StartsWith("glccl::cuda::removeSmall(): labels must be 0"));
    CHECK_THAT(messageOf([&] { glccl::cuda::keepLargest(labels, negative, 3, true, out); }),
               Catch::StartsWith("glccl::cuda::keepLargest(): labels must be 0"));
    CHECK_THAT(messageOf([&] { glccl::cuda::findObjects(labels, negative); }),
               Catch::StartsWith("glccl::cuda::findObjects(): labels must be 0"));
    const LabelRange valid{3, 0};
    CHECK_THAT(messageOf([&] { glccl::cuda::relabel(labels, valid, nullptr); }),
               Catch::Equals("glccl::cuda::relabel(): out is null"));
    CHECK_THAT(messageOf([&] { glccl::cuda::relabel(labels, valid, reinterpret_cast<void*>(0x1008)); }),
               Catch::Contains("out overlaps the labels"));
    labels.shape = {};
    CHECK_THAT(messageOf([&] { glccl::cuda::findObjects(labels, valid); }),
               Catch::Contains("1 to 32 axes, not 0"));
    labels.shape = Shape(33, 1);
    CHECK_THAT(messageOf([&] { glccl::cuda::findObjects(labels, valid); }), Catch::Contains("not 33"));
    CHECK(std::string(glccl::cuda::labelTypeName(LabelType::UInt64)) == "uint64");
}

TEST_CASE("cuda label filters: int32 labels equal the host computation", "[cuda]") {
    glccl::test::requireCudaOrSkip();
    checkEveryShape<std::int32_t>(1);
    checkPatterns<std::int32_t>();
}

TEST_CASE("cuda label filters: uint32 labels equal the host computation", "[cuda]") {
    glccl::test::requireCudaOrSkip();
    checkEveryShape<std::uint32_t>(2);
    checkPatterns<std::uint32_t>();
}

TEST_CASE("cuda label filters: int64 labels equal the host computation", "[cuda]") {
    glccl::test::requireCudaOrSkip();
    checkEveryShape<std::int64_t>(3);
    checkPatterns<std::int64_t>();
}

TEST_CASE("cuda label filters: uint64 labels equal the host computation", "[cuda]") {
    glccl::test::requireCudaOrSkip();
    checkEveryShape<std::uint64_t>(4);
    checkPatterns<std::uint64_t>();
}

TEST_CASE("cuda label filters: remapped in place; the caller's stream is used", "[cuda]") {
    glccl::test::requireCudaOrSkip();
    std::mt19937_64 rng(5);
    const Shape shape{300, 301};
    const std::vector<std::uint32_t> labels = randomLabels<std::uint32_t>(countOf(shape), 50, 400, 20, rng);
    OnDevice<std::uint32_t> device(labels, shape);
    cudaStream_t stream = nullptr;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    const LabelRange range = glccl::cuda::labelRange(device.array, stream);
    const auto [want, wantCount] = keepOnly(labels, atLeast(labels, 30), true);
    CHECK(glccl::cuda::removeSmall(device.array, range, 30, true, device.labels.get(), stream) == wantCount);
    std::vector<std::uint32_t> inPlace(labels.size());
    REQUIRE(cudaMemcpy(inPlace.data(), device.labels.get(), inPlace.size() * 4, cudaMemcpyDeviceToHost) ==
            cudaSuccess);
    CHECK(inPlace == want);
    REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda label filters: negative labels and labels too large to tabulate are named", "[cuda]") {
    glccl::test::requireCudaOrSkip();
    {
        const std::vector<std::int32_t> labels = {0, 3, -5, 7, -1, 0};
        OnDevice<std::int32_t> device(labels, Shape{2, 3});
        const LabelRange range = glccl::cuda::labelRange(device.array);
        CHECK(range.largest == 7);
        CHECK(range.smallest == -5);
        CHECK_THAT(messageOf([&] { glccl::cuda::relabel(device.array, range, device.out.get()); }),
                   Catch::Contains("the smallest is -5"));
    }
    {
        const std::vector<std::int64_t> labels = {std::numeric_limits<std::int64_t>::min(), 1};
        OnDevice<std::int64_t> device(labels, Shape{2});
        CHECK(glccl::cuda::labelRange(device.array).smallest == std::numeric_limits<std::int64_t>::min());
    }
    // One label of value 2^40 needs tables of 2^40 + 1 entries: terabytes.
    const std::uint64_t huge = std::uint64_t(1) << 40;
    const std::vector<std::uint64_t> labels = {0, huge, 1, huge};
    OnDevice<std::uint64_t> device(labels, Shape{4});
    const LabelRange range = glccl::cuda::labelRange(device.array);
    CHECK(range.largest == huge);
    for (const auto& call : std::vector<std::function<void()>>{
             [&] { glccl::cuda::relabel(device.array, range, device.out.get()); },
             [&] { glccl::cuda::removeSmall(device.array, range, 2, false, device.out.get()); },
             [&] { glccl::cuda::keepLargest(device.array, range, 1, true, device.out.get()); },
             [&] { glccl::cuda::findObjects(device.array, range); }}) {
        CHECK_THAT(messageOf(call), Catch::Contains("labels up to " + std::to_string(huge)) &&
                                        Catch::Contains("do not fit in the device's free memory") &&
                                        Catch::Contains("glccl.relabel"));
    }
    // The same labels with the box table cut at label 1.
    const LabelBoxes boxes = glccl::cuda::findObjects(device.array, range, 1);
    REQUIRE(boxes.labels == 1);
    CHECK(boxes.low == std::vector<std::uint64_t>{2});
    CHECK(boxes.high == std::vector<std::uint64_t>{2});
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

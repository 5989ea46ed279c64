// The block kernels (local_merge, merge_borders, count_roots, final_labels)
// against the CPU reference: single images, batches through
// labelDeviceAsync on a caller's stream, tables of batch images, and
// repeats that must give the same bytes every time; and Stava & Benes'
// kernels on the images the block kernels leave to them (node lines longer
// than count_roots takes). The argument checks run
// without a GPU; the rest skip with the driver's reason.

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda_support.hpp"
#include "glccl/generate.hpp"

using glccl::Component;
using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;
using glccl::cuda::DeviceVolume;
using glccl::cuda::DeviceVolumeLabels;
using glccl::cuda::ImageLabeler;

namespace {

using glccl::test::DeviceMemory;
using glccl::test::deviceAllocate;

struct StreamOwner {
    cudaStream_t stream = nullptr;
    StreamOwner() { REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess); }
    ~StreamOwner() { cudaStreamDestroy(stream); }
};

glccl::Labeling labelingOf(const Image& image, const std::uint32_t* labels, const std::vector<Component>& table) {
    glccl::Labeling labeling;
    labeling.width = image.width;
    labeling.height = image.height;
    labeling.labels.assign(labels, labels + std::size_t(image.width) * std::size_t(image.height));
    labeling.components = table;
    return labeling;
}

struct Rule {
    Connectivity connectivity;
    Criterion criterion;
    int channels;
};

const Rule kRules[] = {
    {Connectivity::Eight, Criterion::binary(), 1},        {Connectivity::Four, Criterion::binary(), 1},
    {Connectivity::Eight, Criterion::segments(), 1},      {Connectivity::Four, Criterion::segments(), 1},
    {Connectivity::Eight, Criterion::thresholded(40), 1}, {Connectivity::Four, Criterion::thresholded(60), 4},
};

Image imageFor(const Rule& rule, int width, int height, double density, std::uint64_t seed) {
    const bool binary = rule.criterion.kind == Criterion::Kind::Binary;
    const bool threshold = rule.criterion.kind == Criterion::Kind::Threshold;
    return glccl::randomImage(width, height, threshold ? 1.0 : density, binary ? 2 : threshold ? 6 : 4,
                              rule.channels, seed);
}

// Wider than the block kernels take under every rule: node lines past
// kLineThreads * 32 = 32768 nodes (2-pixel nodes for binary, single pixels
// otherwise), so Stava & Benes' kernels label it.
constexpr int kPastBlockWidth = 65601;

// Whether the labeling whose timings these are ran Stava & Benes' kernels.
bool ranStavaBenes(const glccl::StageTimings& timings) {
    for (const glccl::StageTime& t : timings)
        if (t.stage == "solve_patches") return true;
    return false;
}

// A batch's device arrays, kept while the labeler's tableOf() reads them.
struct BatchMemory {
    DeviceMemory pixels, labels, counts;
};

// Labels `images` (all of one size) as one batch in device memory on a
// caller's stream; returns the labels of all of them, packed, and fills
// counts. `memory` keeps the device arrays.
std::vector<std::uint32_t> labelBatch(ImageLabeler& labeler, const std::vector<Image>& images, const Rule& rule,
                                      cudaStream_t stream, std::vector<std::uint32_t>& counts,
                                      BatchMemory& memory) {
    const Image& first = images.front();
    const std::size_t pixels = std::size_t(first.width) * std::size_t(first.height);
    const std::size_t imageBytes = pixels * std::size_t(rule.channels);
    const std::size_t n = images.size();
    memory.pixels = deviceAllocate(imageBytes * n);
    memory.labels = deviceAllocate(pixels * 4 * n);
    memory.counts = deviceAllocate(4 * n);
    const DeviceMemory& d_pixels = memory.pixels;
    const DeviceMemory& d_labels = memory.labels;
    const DeviceMemory& d_counts = memory.counts;
    for (std::size_t i = 0; i < n; ++i) {
        REQUIRE(cudaMemcpyAsync(static_cast<char*>(d_pixels.get()) + i * imageBytes, images[i].pixels.data(),
                                imageBytes, cudaMemcpyHostToDevice, stream) == cudaSuccess);
    }
    const std::size_t row = std::size_t(first.width) * std::size_t(rule.channels);
    labeler.labelDeviceAsync(
        DeviceVolume{d_pixels.get(), row, row * std::size_t(first.height), first.width, first.height, int(n),
                     rule.channels},
        DeviceVolumeLabels{static_cast<std::uint32_t*>(d_labels.get()), std::size_t(first.width) * 4,
                           pixels * 4},
        rule.connectivity, rule.criterion, stream, static_cast<std::uint32_t*>(d_counts.get()));
    std::vector<std::uint32_t> labels(pixels * n);
    counts.assign(n, 0);
    // Ordered after the labeling on the caller's stream, by the labeler's event.
    REQUIRE(cudaMemcpyAsync(labels.data(), d_labels.get(), labels.size() * 4, cudaMemcpyDeviceToHost, stream) ==
            cudaSuccess);
    REQUIRE(cudaMemcpyAsync(counts.data(), d_counts.get(), n * 4, cudaMemcpyDeviceToHost, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    return labels;
}

}  // namespace

TEST_CASE("cuda: labelDeviceAsync and tableOf refuse bad arguments before any CUDA call", "[cuda][blocks]") {
    ImageLabeler labeler;
    const std::string entry = "glccl::cuda::ImageLabeler::labelDeviceAsync(): ";
    std::uint32_t word = 0;
    auto message = [&](DeviceVolume v, DeviceVolumeLabels l, Connectivity c) {
        try {
            labeler.labelDeviceAsync(v, l, c, Criterion::binary());
        } catch (const glccl::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK_THAT(message({&word, 4, 16, 4, 4, 0, 1}, {&word, 16, 64}, Connectivity::Eight),
               Catch::StartsWith(entry) && Catch::Contains("depth"));
    CHECK_THAT(message({nullptr, 4, 16, 4, 4, 3, 1}, {&word, 16, 64}, Connectivity::Eight),
               Catch::StartsWith(entry) && Catch::Contains("pixels.data"));
    CHECK_THAT(message({&word, 4, 8, 4, 4, 3, 1}, {&word, 16, 64}, Connectivity::Eight),
               Catch::StartsWith(entry) && Catch::Contains("slice"));
    CHECK_THAT(message({nullptr, 4, 16, 4, 4, 3, 1}, {&word, 16, 64}, Connectivity::Six),
               Catch::StartsWith(entry) && Catch::Contains("voxels"));
    CHECK_THAT(
        [&] {
            try {
                labeler.labelDevice(DeviceVolume{&word, 4, 16, 4, 4, 3, 1}, DeviceVolumeLabels{&word, 16, 64},
                                    Connectivity::Eight, Criterion::binary());
            } catch (const glccl::Error& e) {
                return std::string(e.what());
            }
            return std::string("no error");
        }(),
        Catch::StartsWith("glccl::cuda::ImageLabeler::labelDevice(): ") && Catch::Contains("labelDeviceAsync"));
    CHECK_THAT(
        [&] {
            try {
                labeler.tableOf(0);
            } catch (const glccl::Error& e) {
                return std::string(e.what());
            }
            return std::string("no error");
        }(),
        Catch::StartsWith("glccl::cuda::ImageLabeler::tableOf(): ") && Catch::Contains("nothing has been labeled"));
    CHECK(labeler.resourceCounts() == glccl::cuda::ResourceCounts{});
}

TEST_CASE("cuda: the block kernels match the reference on every rule", "[cuda][blocks]") {
    glccl::test::requireCudaOrSkip();
    struct Size {
        int width, height;
    };
    // Patch edges (64 pixels: 32 nodes of 2), odd sides, lines and columns.
    const Size sizes[] = {{1, 1}, {1, 77}, {77, 1}, {2, 2}, {3, 5}, {63, 65}, {64, 64}, {65, 63}, {129, 257},
                          {500, 31}, {1023, 1025}};
    std::uint64_t seed = 2600;
    ImageLabeler labeler;
    for (const Rule& rule : kRules) {
        for (const Size& size : sizes) {
            for (const double density : {0.0, 0.3, 0.55, 1.0}) {
                const Image image = imageFor(rule, size.width, size.height, density, seed++);
                glccl::Labeling result;
                glccl::StageTimings timings;
                labeler.label(image, rule.connectivity, rule.criterion, result, &timings);
                CHECK_FALSE(ranStavaBenes(timings));
                glccl::test::checkMatchesReference(image, rule.connectivity, rule.criterion, result, "blocks");
            }
        }
    }
}

TEST_CASE("cuda: images past the block kernels' lines take Stava & Benes' kernels and match the reference",
          "[cuda][blocks]") {
    glccl::test::requireCudaOrSkip();
    // One line to several patches high; the width makes merge_patches run
    // every level up to 32768 across.
    std::uint64_t seed = 2650;
    ImageLabeler labeler;
    for (const Rule& rule : kRules) {
        for (const int height : {1, 3, 37}) {
            for (const double density : {0.0, 0.3, 0.55, 1.0}) {
                const Image image = imageFor(rule, kPastBlockWidth, height, density, seed++);
                glccl::Labeling result;
                glccl::StageTimings timings;
                labeler.label(image, rule.connectivity, rule.criterion, result, &timings);
                CHECK(ranStavaBenes(timings));
                glccl::test::checkMatchesReference(image, rule.connectivity, rule.criterion, result,
                                                   "Stava & Benes");
            }
        }
    }
}

TEST_CASE("cuda: generated families match the reference through the block kernels", "[cuda][blocks]") {
    glccl::test::requireCudaOrSkip();
    ImageLabeler labeler;
    for (const std::string& family : glccl::generatedFamilies()) {
        for (const Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
            const Image image = glccl::generateFamily(family, 517, 389, 7);
            glccl::Labeling result;
            labeler.label(image, connectivity, Criterion::binary(), result);
            glccl::test::checkMatchesReference(image, connectivity, Criterion::binary(), result, family);
        }
    }
}

TEST_CASE("cuda: a batch labels every image as if alone, with its count and table", "[cuda][blocks][batch]") {
    glccl::test::requireCudaOrSkip();
    StreamOwner owner;
    ImageLabeler labeler;
    std::uint64_t seed = 2700;
    struct Batch {
        int width, height, images;
    };
    const Batch batches[] = {{1, 1, 1}, {64, 64, 1}, {37, 29, 5}, {130, 70, 9}, {512, 512, 4}};
    for (const Rule& rule : kRules) {
        for (const Batch& batch : batches) {
            std::vector<Image> images;
            for (int i = 0; i < batch.images; ++i) {
                // Uneven content: empty, full, sparse and dense images side by side.
                const double density = i % 4 == 0 ? 0.0 : i % 4 == 1 ? 1.0 : i % 4 == 2 ? 0.2 : 0.6;
                images.push_back(imageFor(rule, batch.width, batch.height, density, seed++));
            }
            std::vector<std::uint32_t> counts;
            BatchMemory memory;
            const std::vector<std::uint32_t> labels = labelBatch(labeler, images, rule, owner.stream, counts, memory);
            const std::size_t pixels = std::size_t(batch.width) * std::size_t(batch.height);
            for (int i = 0; i < batch.images; ++i) {
                INFO("image " << i << " of " << batch.images);
                const std::vector<Component>& table = labeler.tableOf(i);
                CHECK(counts[std::size_t(i)] == table.size());
                glccl::test::checkMatchesReference(images[std::size_t(i)], rule.connectivity, rule.criterion,
                                                   labelingOf(images[std::size_t(i)], labels.data() + i * pixels,
                                                              table),
                                                   "batch");
            }
        }
    }
}

TEST_CASE("cuda: a batch of images past the block kernels labels each as if alone", "[cuda][blocks][batch]") {
    glccl::test::requireCudaOrSkip();
    StreamOwner owner;
    ImageLabeler labeler;
    std::vector<Image> images;
    for (int i = 0; i < 4; ++i) images.push_back(glccl::randomImage(kPastBlockWidth, 3, 0.1 * (i + 2), 2, 1, 2800 + i));
    const Rule rule{Connectivity::Eight, Criterion::binary(), 1};
    std::vector<std::uint32_t> counts;
    BatchMemory memory;
    const std::vector<std::uint32_t> labels = labelBatch(labeler, images, rule, owner.stream, counts, memory);
    const std::size_t pixels = std::size_t(kPastBlockWidth) * 3;
    for (std::size_t i = 0; i < images.size(); ++i) {
        INFO("image " << i);
        const std::vector<Component>& table = labeler.tableOf(int(i));
        CHECK(counts[i] == table.size());
        glccl::test::checkMatchesReference(images[i], rule.connectivity, rule.criterion,
                                           labelingOf(images[i], labels.data() + i * pixels, table), "batch");
    }
}

// 300 random images, each labeled 10 times: every repeat must give the same
// bytes (a race in the kernels shows as a rare difference), and the first
// must match the reference. Hidden: bench/cuda-check.sh runs it.
TEST_CASE("cuda: repeated labelings of random images are identical", "[.][cuda][repeat]") {
    glccl::test::requireCudaOrSkip();
    ImageLabeler labeler;
    std::uint64_t seed = 3000;
    int differences = 0;
    for (int i = 0; i < 300; ++i) {
        const Rule& rule = kRules[std::size_t(i) % (sizeof(kRules) / sizeof(kRules[0]))];
        const int width = 1 + int((seed * 7919) % 1500);
        const int height = 1 + int((seed * 104729) % 1100);
        const Image image = imageFor(rule, width, height, 0.25 + 0.5 * double(i % 5) / 4.0, seed++);
        glccl::Labeling first;
        labeler.label(image, rule.connectivity, rule.criterion, first);
        glccl::test::checkMatchesReference(image, rule.connectivity, rule.criterion, first, "repeat 0");
        for (int repeat = 1; repeat < 10; ++repeat) {
            glccl::Labeling again;
            labeler.label(image, rule.connectivity, rule.criterion, again);
            if (again.labels != first.labels) ++differences;
        }
    }
    CHECK(differences == 0);
}

// Small images through both kernel sets and one batch: what
// bench/cuda-sanitizer.sh runs under racecheck, initcheck and synccheck.
TEST_CASE("cuda: a small mix of the block kernels, a batch and Stava & Benes' kernels, for the sanitizers",
          "[cuda][blocks][sanitize]") {
    glccl::test::requireCudaOrSkip();
    StreamOwner owner;
    std::uint64_t seed = 3500;
    for (const int width : {67, kPastBlockWidth}) {
        ImageLabeler labeler;
        for (const Rule& rule : kRules) {
            const Image image = imageFor(rule, width, width == 67 ? 45 : 2, 0.55, seed++);
            glccl::Labeling result;
            labeler.label(image, rule.connectivity, rule.criterion, result);
            glccl::test::checkMatchesReference(image, rule.connectivity, rule.criterion, result, "sanitize");
        }
    }
    ImageLabeler labeler;
    const Rule rule{Connectivity::Eight, Criterion::binary(), 1};
    std::vector<Image> images;
    for (int i = 0; i < 3; ++i) images.push_back(imageFor(rule, 70, 66, 0.3 + 0.2 * i, seed++));
    std::vector<std::uint32_t> counts;
    BatchMemory memory;
    const std::vector<std::uint32_t> labels = labelBatch(labeler, images, rule, owner.stream, counts, memory);
    for (int i = 0; i < 3; ++i) {
        glccl::test::checkMatchesReference(images[std::size_t(i)], rule.connectivity, rule.criterion,
                                           labelingOf(images[std::size_t(i)], labels.data() + i * 70 * 66,
                                                      labeler.tableOf(i)),
                                           "sanitize batch");
    }
}

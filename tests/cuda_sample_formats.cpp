// The CUDA path on every sample width and criterion it takes: 8-, 16-, 32-
// and 64-bit samples under binary, binary:L, segments, threshold and delta,
// color at 8, 16 and 32 bits, 2-D images and volumes, from host memory and
// from device memory (packed, pitched, misaligned, batched), each labeling
// against the CPU reference byte for byte (labels and table). The samples
// sit at the edges of their range (0, the top, both sides of the top bit),
// where comparing them as signed or narrower integers would go wrong. The
// refusals run without a GPU too.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda_support.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/reference.hpp"
#include "sample_support.hpp"
#include "volume_support.hpp"

using glccl::Component;
using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;
using glccl::ImageView;
using glccl::Labeling;
using glccl::Shape;
using glccl::test::kVolumeConnectivities;
using glccl::test::messageOf;

namespace {

constexpr int kSampleBits[] = {8, 16, 32, 64};

// Centres at the edges of a sample range: 0 and 1, both sides of the top
// bit, the top, and the level and its neighbours (binary:L's edge).
std::vector<std::uint64_t> edgeCentres(int sampleBits, std::uint64_t level) {
    const std::uint64_t top = Image::largestSample(sampleBits);
    const std::uint64_t half = std::uint64_t(1) << (sampleBits - 1);
    return {0, 1, half - 1, half, top - 2, top, level - 1, level, level + 1};
}

// A level inside the range that a criterion takes (at most 2^32 - 1).
std::uint64_t levelFor(int sampleBits) {
    return std::min<std::uint64_t>(Image::largestSample(sampleBits) / 3, 0xFFFFFFFFu);
}

// Samples near the edge centres, `spread` apart at most; a channel of
// color each drawn on its own.
Image edgeSamples(const Shape& shape, int sampleBits, int channels, std::uint64_t seed, std::uint64_t spread = 2) {
    const std::vector<std::uint64_t> centres = edgeCentres(sampleBits, levelFor(sampleBits));
    Image image(shape, channels, sampleBits);
    for (int c = 0; c < channels; ++c) {
        const Image plane = glccl::test::samplesNearCentres(shape, sampleBits, seed * 4 + std::uint64_t(c), 0xC0DA,
                                                            centres, spread);
        for (std::size_t i = 0; i < shape.count(); ++i) image.setSample(i, c, plane.sample(i));
    }
    return image;
}

// Every criterion the engine takes, with numbers that matter at these samples.
std::vector<Criterion> criteriaFor(int sampleBits) {
    return {Criterion::binary(), Criterion::binaryAbove(std::int64_t(levelFor(sampleBits))), Criterion::segments(),
            Criterion::thresholded(2), Criterion::withinDelta(1), Criterion::withinDelta(3)};
}

void checkHost(const Image& image, Connectivity connectivity, Criterion criterion, const std::string& what) {
    INFO(what << ": " << image.sampleBits << "-bit, " << image.channels << " channel(s)");
    glccl::test::checkMatchesReference(image, connectivity, criterion,
                                       glccl::cuda::labelImage(image, connectivity, criterion), what);
}

using glccl::test::DeviceMemory;
using glccl::test::deviceAllocate;

}  // namespace

TEST_CASE("cuda: refusals name the samples or the number the kernels do not take, before any CUDA call",
          "[cuda][depth]") {
    const std::string entry = "glccl::cuda::labelImage(): ";
    auto errorOf = [](const Image& image, Criterion criterion) {
        return messageOf([&] { glccl::cuda::labelImage(image, Connectivity::Eight, criterion); });
    };
    CHECK_THAT(errorOf(Image(7, 5, 4, 64), Criterion::thresholded(3)),
               Catch::StartsWith(entry) && Catch::Contains("4 channels of 64-bit samples") &&
                   Catch::Contains("color of 8-, 16- or 32-bit samples"));
    CHECK_THAT(errorOf(Image(7, 5, 4, 16), Criterion::segments()),
               Catch::StartsWith(entry) && Catch::Contains("needs 1-channel samples"));
    CHECK_THAT(errorOf(Image(7, 5, 1, 8), Criterion::withinDelta(256)),
               Catch::StartsWith(entry) && Catch::Contains("the delta 256 is outside 0..255"));
    CHECK_THAT(errorOf(Image(7, 5, 1, 16), Criterion::binaryAbove(65536)),
               Catch::StartsWith(entry) && Catch::Contains("the binary level 65536 is outside 0..65535"));
    Image torn(7, 5, 1, 32);
    torn.pixels.pop_back();
    CHECK_THAT(errorOf(torn, Criterion::segments()), Catch::StartsWith(entry) && Catch::Contains("7x5x1 but holds"));

    glccl::cuda::ImageLabeler labeler;
    const std::vector<std::uint8_t> bytes(7 * 5 * 2);
    CHECK_THAT(messageOf([&] {
                   labeler.label(ImageView(7, 5, 1, 12, bytes.data()), Connectivity::Four, Criterion::binary(),
                                 nullptr);
               }),
               Catch::StartsWith("glccl::cuda::ImageLabeler::label(): ") && Catch::Contains("12-bit samples") &&
                   Catch::Contains("8-, 16-, 32- or 64-bit"));
    CHECK(labeler.resourceCounts() == glccl::cuda::ResourceCounts{});
}

TEST_CASE("cuda: images of 8-, 16-, 32- and 64-bit samples match the reference under every criterion",
          "[cuda][depth]") {
    glccl::test::requireCudaOrSkip();
    const Shape shapes[] = {Shape::image(1, 1), Shape::image(1, 37), Shape::image(37, 1), Shape::image(97, 61),
                            Shape::image(300, 211)};
    std::uint64_t seed = 1;
    for (int bits : kSampleBits)
        for (const Shape& shape : shapes) {
            const Image image = edgeSamples(shape, bits, 1, seed++);
            for (const Criterion& criterion : criteriaFor(bits))
                for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
                    checkHost(image, connectivity, criterion, "edge samples");
        }
}

TEST_CASE("cuda: samples compare as unsigned integers across the top bit and the whole range", "[cuda][depth]") {
    glccl::test::requireCudaOrSkip();
    for (int bits : kSampleBits) {
        const std::uint64_t top = Image::largestSample(bits);
        const std::uint64_t half = std::uint64_t(1) << (bits - 1);
        // One row: neighbours one apart across the top bit, the top and one
        // below it, 0 between 1 and the top; at 64 bits also values whose
        // low halves are equal and whose high halves differ.
        std::vector<std::uint64_t> row = {half - 1, half, 0, top, top - 1, 1, 0, 1, top, half + 1, half};
        if (bits == 64) row.insert(row.end(), {0x100000007ull, 0x200000007ull, 0x7ull, 0x100000007ull});
        Image image(int(row.size()), 3, 1, bits);
        for (int y = 0; y < 3; ++y)
            for (std::size_t x = 0; x < row.size(); ++x)
                image.setSample(int(x), y, 0, row[(x + std::size_t(y)) % row.size()]);
        for (const Criterion& criterion : {Criterion::withinDelta(1), Criterion::thresholded(1), Criterion::segments(),
                                           Criterion::binaryAbove(bits == 8 ? 127 : 1), Criterion::withinDelta(0)})
            for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
                checkHost(image, connectivity, criterion, "across the top bit");
    }
}

TEST_CASE("cuda: color under threshold at 8, 16 and 32 bits matches the reference", "[cuda][depth]") {
    glccl::test::requireCudaOrSkip();
    std::uint64_t seed = 100;
    for (int bits : {8, 16, 32})
        for (const Shape& shape : {Shape::image(1, 9), Shape::image(131, 67), Shape::volume(19, 13, 7)}) {
            const Image image = edgeSamples(shape, bits, 4, seed++, 1);
            const std::vector<Connectivity> connectivities =
                shape.dimensions == 3 ? std::vector<Connectivity>{Connectivity::Six, Connectivity::TwentySix}
                                      : std::vector<Connectivity>{Connectivity::Four, Connectivity::Eight};
            for (int threshold : {0, 1, 2})
                for (Connectivity connectivity : connectivities)
                    checkHost(image, connectivity, Criterion::thresholded(threshold), "color");
        }
}

TEST_CASE("cuda: volumes of every sample width match the reference under every criterion at 6, 18 and 26",
          "[cuda][depth][volume]") {
    glccl::test::requireCudaOrSkip();
    // Wide enough for the volume kernels' bundle nodes; a few voxels wide,
    // which Stava & Benes' kernels take; one slice; a line.
    const Shape shapes[] = {Shape::volume(70, 21, 9), Shape::volume(3, 33, 17), Shape::volume(41, 29, 1),
                            Shape::volume(1, 1, 40)};
    std::uint64_t seed = 200;
    for (int bits : kSampleBits)
        for (const Shape& shape : shapes) {
            const Image volume = edgeSamples(shape, bits, 1, seed++);
            for (const Criterion& criterion : criteriaFor(bits))
                for (Connectivity connectivity : kVolumeConnectivities)
                    checkHost(volume, connectivity, criterion, "volume");
        }
}

TEST_CASE("cuda: binary volumes of deeper samples and binary:L take the volume kernels' nodes exactly",
          "[cuda][depth][volume]") {
    glccl::test::requireCudaOrSkip();
    // Sparse foreground of the largest values (glccl::test::randomTestVolume)
    // at sizes that cross the volume kernels' patches and words.
    std::uint64_t seed = 300;
    for (int bits : kSampleBits)
        for (double density : {0.2, 0.5, 0.9}) {
            const Image volume = glccl::test::randomTestVolume(67, 35, 18, density, seed++, bits, 5);
            // randomTestVolume's values are the 5 largest of at most 32 bits.
            const auto level = std::int64_t(std::min<std::uint64_t>(Image::largestSample(bits), 0xFFFFFFFFu) - 2);
            for (Connectivity connectivity : kVolumeConnectivities) {
                checkHost(volume, connectivity, Criterion::binary(), "binary volume");
                checkHost(volume, connectivity, Criterion::binaryAbove(level), "binary:L volume");
            }
        }
}

TEST_CASE("cuda: images past the block kernels' lines take Stava & Benes' kernels at every sample width",
          "[cuda][depth]") {
    glccl::test::requireCudaOrSkip();
    std::uint64_t seed = 400;
    for (int bits : {16, 64}) {
        // Single-pixel nodes past 32768 a line; binary blocks past 65536.
        const Image pixels = edgeSamples(Shape::image(33000, 3), bits, 1, seed++);
        checkHost(pixels, Connectivity::Eight, Criterion::segments(), "segments past the block kernels");
        checkHost(pixels, Connectivity::Four, Criterion::withinDelta(2), "delta past the block kernels");
        const Image blocks = edgeSamples(Shape::image(66000, 2), bits, 1, seed++);
        checkHost(blocks, Connectivity::Eight, Criterion::binaryAbove(std::int64_t(levelFor(bits))),
                  "binary:L past the block kernels");
    }
}

TEST_CASE("cuda: device arrays of every sample width, packed, pitched, misaligned and batched, match the reference",
          "[cuda][depth][device]") {
    glccl::test::requireCudaOrSkip();
    glccl::cuda::ImageLabeler labeler;
    cudaStream_t stream = nullptr;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    std::uint64_t seed = 500;
    for (int bits : kSampleBits) {
        const std::size_t sampleBytes = std::size_t(bits / 8);
        struct Layout {
            std::size_t pad;     // bytes past a packed row
            std::size_t offset;  // bytes from an allocation's start: half a sample misaligns
            const char* what;
        };
        const Layout layouts[] = {{0, 0, "packed"},
                                  {3 * sampleBytes, 0, "pitched"},
                                  {5, 0, "pitched by an odd byte count"},
                                  {0, sampleBytes > 1 ? sampleBytes / 2 : 0, "misaligned"}};
        for (const Layout& layout : layouts)
            for (const Criterion& criterion : criteriaFor(bits)) {
                INFO(layout.what << ", " << bits << "-bit, " << criterion.toString());
                const int width = 203, height = 77;
                const Image image = edgeSamples(Shape::image(width, height), bits, 1, seed++);
                const std::size_t row = std::size_t(width) * sampleBytes;
                const std::size_t pitch = row + layout.pad;
                DeviceMemory pixels = deviceAllocate(layout.offset + pitch * height);
                DeviceMemory labels = deviceAllocate(std::size_t(width) * height * 4);
                char* data = static_cast<char*>(pixels.get()) + layout.offset;
                REQUIRE(cudaMemcpy2DAsync(data, pitch, image.pixels.data(), row, row, std::size_t(height),
                                          cudaMemcpyHostToDevice, stream) == cudaSuccess);
                glccl::cuda::DeviceVolume in{data, pitch, 0, width, height, 1, 1, bits};
                const glccl::cuda::DeviceVolumeLabels out{static_cast<std::uint32_t*>(labels.get()),
                                                          std::size_t(width) * 4, 0};
                Labeling actual;
                actual.width = width, actual.height = height;
                actual.components = labeler.labelDevice(in, out, Connectivity::Eight, criterion, stream);
                actual.labels.resize(std::size_t(width) * height);
                REQUIRE(cudaMemcpy(actual.labels.data(), labels.get(), actual.labels.size() * 4,
                                   cudaMemcpyDeviceToHost) == cudaSuccess);
                glccl::test::checkMatchesReference(image, Connectivity::Eight, criterion, actual, "labelDevice");
            }
    }
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: a batch and a volume of deeper samples in device memory match the reference",
          "[cuda][depth][device]") {
    glccl::test::requireCudaOrSkip();
    glccl::cuda::ImageLabeler labeler;
    std::uint64_t seed = 600;
    for (int bits : {16, 32, 64}) {
        const std::size_t sampleBytes = std::size_t(bits / 8);
        // A batch of 5 images of 61 x 47, labeled without waiting, each as if alone.
        const int width = 61, height = 47, images = 5;
        const Image stack = edgeSamples(Shape::volume(width, height, images), bits, 1, seed++);
        const std::size_t slice = std::size_t(width) * height;
        DeviceMemory pixels = deviceAllocate(stack.pixels.size());
        DeviceMemory labels = deviceAllocate(slice * images * 4);
        DeviceMemory counts = deviceAllocate(images * 4);
        REQUIRE(cudaMemcpy(pixels.get(), stack.pixels.data(), stack.pixels.size(), cudaMemcpyHostToDevice) ==
                cudaSuccess);
        // The stack in device memory, and room for its labels: a batch of
        // images, then one volume.
        const glccl::cuda::DeviceVolume in{pixels.get(), std::size_t(width) * sampleBytes, slice * sampleBytes, width,
                                           height, images, 1, bits};
        const glccl::cuda::DeviceVolumeLabels out{static_cast<std::uint32_t*>(labels.get()), std::size_t(width) * 4,
                                                  slice * 4};
        for (const Criterion& criterion : criteriaFor(bits)) {
            INFO(bits << "-bit batch, " << criterion.toString());
            labeler.labelDeviceAsync(in, out, Connectivity::Four, criterion, nullptr,
                                     static_cast<std::uint32_t*>(counts.get()));
            std::vector<std::uint32_t> hostLabels(slice * images);
            std::vector<std::uint32_t> hostCounts(images);
            REQUIRE(cudaMemcpy(hostLabels.data(), labels.get(), hostLabels.size() * 4, cudaMemcpyDeviceToHost) ==
                    cudaSuccess);
            REQUIRE(cudaMemcpy(hostCounts.data(), counts.get(), images * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
            for (int i = 0; i < images; ++i) {
                Image one(width, height, 1, bits);
                std::memcpy(one.pixels.data(), stack.pixels.data() + std::size_t(i) * slice * sampleBytes,
                            slice * sampleBytes);
                Labeling actual;
                actual.width = width, actual.height = height;
                actual.labels.assign(hostLabels.begin() + std::ptrdiff_t(std::size_t(i) * slice),
                                     hostLabels.begin() + std::ptrdiff_t(std::size_t(i + 1) * slice));
                actual.components = labeler.tableOf(i);
                CHECK(hostCounts[std::size_t(i)] == actual.components.size());
                glccl::test::checkMatchesReference(one, Connectivity::Four, criterion, actual, "batch image");
            }
        }
        // The same samples as one volume, through the one-call entry.
        for (Connectivity connectivity : kVolumeConnectivities)
            for (const Criterion& criterion : criteriaFor(bits)) {
                INFO(bits << "-bit volume, " << criterion.toString());
                Labeling actual;
                actual.width = width, actual.height = height, actual.depth = images, actual.dimensions = 3;
                actual.components = glccl::cuda::labelDeviceVolume(in, out, connectivity, criterion);
                actual.labels.resize(slice * images);
                REQUIRE(cudaMemcpy(actual.labels.data(), labels.get(), actual.labels.size() * 4,
                                   cudaMemcpyDeviceToHost) == cudaSuccess);
                glccl::test::checkMatchesReference(stack, connectivity, criterion, actual, "device volume");
            }
    }
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: a labeler moves between sample widths and back, exact every time", "[cuda][depth]") {
    glccl::test::requireCudaOrSkip();
    glccl::cuda::ImageLabeler labeler;
    Labeling result;
    std::uint64_t seed = 700;
    for (int round = 0; round < 2; ++round)
        for (int bits : {8, 64, 16, 32, 8}) {
            const Image image = edgeSamples(Shape::image(129, 65), bits, 1, seed++);
            labeler.label(image, Connectivity::Eight, Criterion::segments(), result);
            glccl::test::checkMatchesReference(image, Connectivity::Eight, Criterion::segments(), result,
                                               "one labeler, " + std::to_string(bits) + "-bit");
        }
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: a small mix of sample widths and criteria, for the sanitizers", "[cuda][depth][sanitize]") {
    glccl::test::requireCudaOrSkip();
    // The kernels built per sample type that the other mixes do not reach:
    // single-pixel blocks of 64-bit samples, binary:L blocks of 16-bit ones,
    // a binary volume's line bits, delta on a volume, color at 32 bits.
    std::uint64_t seed = 800;
    const Image wide = edgeSamples(Shape::image(150, 70), 64, 1, seed++);
    checkHost(wide, Connectivity::Eight, Criterion::withinDelta(1), "64-bit delta");
    checkHost(wide, Connectivity::Four, Criterion::segments(), "64-bit segments");
    const Image half = edgeSamples(Shape::image(150, 70), 16, 1, seed++);
    checkHost(half, Connectivity::Eight, Criterion::binaryAbove(std::int64_t(levelFor(16))), "16-bit binary:L");
    const Image volume = glccl::test::randomTestVolume(70, 33, 12, 0.5, seed++, 32, 3);
    checkHost(volume, Connectivity::TwentySix, Criterion::binary(), "32-bit binary volume");
    checkHost(volume, Connectivity::Six, Criterion::withinDelta(1), "32-bit delta volume");
    checkHost(edgeSamples(Shape::image(90, 50), 32, 4, seed++, 1), Connectivity::Eight, Criterion::thresholded(1),
              "32-bit color");
}

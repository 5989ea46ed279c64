// The CUDA path on volumes (6-, 18- and 26-connectivity), every entry against
// the CPU reference byte for byte (labels and table): random volumes of odd
// sizes and densities, 1x1xN, Nx1x1 and one-slice volumes, shapes that cross
// many volume patches (a helix, a comb, a 3-D checkerboard whose table is
// larger than the labels' scratch), joins through a voxel's edge or corner
// only (they separate 6, 18 and 26), every criterion the engine takes, the
// host entries and the device entry on a caller's stream. The refusals run
// without a GPU too.
//
// Atomics: "[volume][repeat]" labels random volumes many times over and
// requires every repeat to equal the reference. GLCCL_TEST_REPEATS in the
// environment sets the repeats per volume (10 when unset), e.g. on the GPU
// machine:  GLCCL_TEST_REPEATS=100 build/tests/cuda_tests "[volume][repeat]"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda_support.hpp"
#include "glccl/compare.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/reference.hpp"
#include "volume_support.hpp"

using glccl::Component;
using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;
using glccl::Labeling;
using glccl::Shape;

using glccl::test::kVolumeConnectivities;

namespace {

// A volume of 8-bit samples: each voxel foreground with probability
// `density`, foreground values uniform in 1..levels (every channel).
Image randomVolume(int width, int height, int depth, double density, int levels, int channels, std::uint64_t seed) {
    Image volume(Shape::volume(width, height, depth), channels, 8);
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::uniform_int_distribution<int> level(1, levels);
    const std::size_t voxels = Shape::volume(width, height, depth).count();
    for (std::size_t i = 0; i < voxels; ++i) {
        const bool on = unit(random) < density;
        for (int c = 0; c < channels; ++c) volume.setSample(i, c, on ? std::uint32_t(level(random)) : 0u);
    }
    return volume;
}

void set(Image& volume, int x, int y, int z, std::uint8_t value = 255) {
    if (x < 0 || y < 0 || z < 0 || x >= volume.width || y >= volume.height || z >= volume.depth) return;
    volume.setSample((std::size_t(z) * volume.height + y) * volume.width + x, 0, value);
}

// A thick helix around the z axis: one component that winds through many
// patches in x and y and steps through every slice.
Image helix(int side, int depth) {
    Image volume(Shape::volume(side, side, depth), 1, 8);
    const double radius = side * 0.35;
    for (int z = 0; z < depth; ++z) {
        const double angle = z * 0.21;
        const int cx = int(std::lround(side / 2.0 + radius * std::cos(angle)));
        const int cy = int(std::lround(side / 2.0 + radius * std::sin(angle)));
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) set(volume, cx + dx, cy + dy, z);
    }
    return volume;
}

// A comb: a spine along x in the first slice, teeth along z at every other x,
// and short bars in every other slice that join pairs of teeth, so that the
// components change as the merges across patch faces go in.
Image comb(int width, int height, int depth) {
    Image volume(Shape::volume(width, height, depth), 1, 8);
    for (int x = 0; x < width; ++x) set(volume, x, height / 2, 0);
    for (int x = 0; x < width; x += 2)
        for (int z = 0; z < depth; ++z) set(volume, x, height / 2, z);
    for (int z = 2; z < depth; z += 2)
        for (int x = (z / 2) % 4; x + 2 < width; x += 4) set(volume, x + 1, height / 2 + 1, z);
    return volume;
}

// Voxels whose parity of x + y + z is even: at 6-connectivity every voxel is
// a component (a table far larger than the labels' scratch), at 18 and 26
// one component (in volumes of more than one voxel per axis).
Image checkerboard(int width, int height, int depth) {
    Image volume(Shape::volume(width, height, depth), 1, 8);
    for (int z = 0; z < depth; ++z)
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                if ((x + y + z) % 2 == 0) set(volume, x, y, z);
    return volume;
}

// Diagonal runs that join only through edges (in one slice: (i, i, z)) and
// only through corners ((i, i, i)), placed so that they cross patch faces.
Image edgesAndCorners(int width, int height, int depth) {
    Image volume(Shape::volume(width, height, depth), 1, 8);
    for (int i = 0; i < width && i < height; ++i) set(volume, i, i, depth / 2);
    for (int i = 0; i < width && i < height && i < depth; ++i) set(volume, width - 1 - i, i, i);
    for (int i = 0; i < height && i < depth; ++i) set(volume, 3, i, depth - 1 - i);
    return volume;
}

Labeling labelWithCuda(const Image& volume, Connectivity connectivity, Criterion criterion) {
    return glccl::cuda::labelImage(volume, connectivity, criterion);
}

void checkVolume(const Image& volume, Connectivity connectivity, Criterion criterion, const std::string& what) {
    const Labeling actual = labelWithCuda(volume, connectivity, criterion);
    INFO(what << ", " << volume.width << "x" << volume.height << "x" << volume.depth);
    CHECK(actual.depth == volume.depth);
    CHECK(actual.dimensions == 3);
    glccl::test::checkMatchesReference(volume, connectivity, criterion, actual, what);
}

std::string errorOf(const Image& image, Connectivity connectivity, Criterion criterion) {
    try {
        glccl::cuda::labelImage(image, connectivity, criterion);
    } catch (const glccl::Error& error) {
        return error.what();
    }
    return "no error";
}

int repeatsFromEnvironment() {
    const char* text = std::getenv("GLCCL_TEST_REPEATS");
    const int repeats = text != nullptr ? std::atoi(text) : 0;
    return repeats > 0 ? repeats : 10;
}

}  // namespace

TEST_CASE("cuda: a volume with a 2-D connectivity, 2-D images with a 3-D one, and 64-bit color are refused",
          "[cuda][volume]") {
    const std::string entry = "glccl::cuda::labelImage(): ";
    const Image volume = randomVolume(9, 7, 5, 0.5, 1, 1, 1);
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        CHECK_THAT(errorOf(volume, connectivity, Criterion::binary()),
                   Catch::StartsWith(entry) && Catch::Contains("connectivity"));
    }
    const Image image = glccl::randomImage(9, 7, 0.5, 2, 1, 2);
    for (Connectivity connectivity : kVolumeConnectivities) {
        CHECK_THAT(errorOf(image, connectivity, Criterion::binary()),
                   Catch::StartsWith(entry) && Catch::Contains("connectivity"));
    }
    Image color(Shape::volume(9, 7, 5), 4, 64);
    CHECK_THAT(errorOf(color, Connectivity::Six, Criterion::thresholded(3)),
               Catch::StartsWith(entry) && Catch::Contains("4 channels of 64-bit samples") &&
                   Catch::Contains("color of 8-, 16- or 32-bit samples"));
    CHECK_THAT(errorOf(volume, Connectivity::Six, Criterion::binaryAbove(256)),
               Catch::StartsWith(entry) && Catch::Contains("the binary level 256 is outside 0..255"));
    Image torn = volume;
    torn.pixels.pop_back();
    CHECK_THAT(errorOf(torn, Connectivity::Six, Criterion::binary()),
               Catch::StartsWith(entry) && Catch::Contains("9x7x5x1 but holds"));
    Image flat = volume;
    flat.dimensions = 2;
    CHECK_THAT(errorOf(flat, Connectivity::Eight, Criterion::binary()),
               Catch::StartsWith(entry) && Catch::Contains("depth 5"));
}

TEST_CASE("cuda: random volumes of odd sizes and densities match the reference at 6, 18 and 26",
          "[cuda][volume]") {
    glccl::test::requireCudaOrSkip();
    struct Size {
        int width, height, depth;
    };
    // Patches are 32 x 8 x 8 voxels: sizes below, at and past one patch per
    // axis, thin volumes along each axis, and one slice.
    const Size sizes[] = {{1, 1, 1},   {1, 1, 77},  {77, 1, 1},  {1, 45, 1},  {1, 9, 33},  {50, 40, 1},
                          {33, 9, 9},  {31, 7, 17}, {32, 8, 8},  {64, 16, 16}, {45, 23, 19}, {100, 3, 50},
                          {129, 17, 9}, {7, 70, 21}};
    std::uint64_t seed = 100;
    for (const Size& size : sizes) {
        for (double density : {0.1, 0.3, 0.5, 0.75, 0.97}) {
            const Image volume = randomVolume(size.width, size.height, size.depth, density, 1, 1, ++seed);
            for (Connectivity connectivity : kVolumeConnectivities)
                checkVolume(volume, connectivity, Criterion::binary(), "density " + std::to_string(density));
        }
    }
}

TEST_CASE("cuda: volumes match the reference with every criterion the engine takes", "[cuda][volume]") {
    glccl::test::requireCudaOrSkip();
    std::uint64_t seed = 500;
    for (Connectivity connectivity : kVolumeConnectivities) {
        // Binary on values 1..255: every nonzero value is foreground; above
        // a level, the values past it.
        checkVolume(randomVolume(47, 19, 13, 0.4, 255, 1, ++seed), connectivity, Criterion::binary(), "binary");
        checkVolume(randomVolume(47, 19, 13, 0.6, 255, 1, ++seed), connectivity, Criterion::binaryAbove(100),
                    "binary:100");
        checkVolume(randomVolume(5, 19, 13, 0.6, 255, 1, ++seed), connectivity, Criterion::binaryAbove(100),
                    "binary:100, narrow");
        // Delta: nonzero neighbours within D connect.
        for (int delta : {0, 1, 3})
            checkVolume(randomVolume(43, 17, 12, 0.8, 6, 1, ++seed), connectivity, Criterion::withinDelta(delta),
                        "delta");
        // Segments: equal values connect, 0 is background.
        checkVolume(randomVolume(47, 19, 13, 0.8, 3, 1, ++seed), connectivity, Criterion::segments(), "segments");
        checkVolume(randomVolume(35, 11, 21, 1.0, 2, 1, ++seed), connectivity, Criterion::segments(),
                    "segments without background");
        // Threshold on one and four channels: every voxel is foreground.
        for (int threshold : {0, 40, 200}) {
            checkVolume(randomVolume(41, 13, 11, 0.9, 255, 1, ++seed), connectivity,
                        Criterion::thresholded(threshold), "threshold, 1 channel");
            checkVolume(randomVolume(37, 9, 10, 0.9, 255, 4, ++seed), connectivity,
                        Criterion::thresholded(threshold), "threshold, RGBA");
        }
    }
}

TEST_CASE("cuda: a helix, a comb, a 3-D checkerboard and edge- and corner-only joins match the reference",
          "[cuda][volume]") {
    glccl::test::requireCudaOrSkip();
    for (Connectivity connectivity : kVolumeConnectivities) {
        checkVolume(helix(70, 150), connectivity, Criterion::binary(), "helix");
        checkVolume(comb(131, 5, 41), connectivity, Criterion::binary(), "comb");
        checkVolume(checkerboard(67, 19, 18), connectivity, Criterion::binary(), "checkerboard");
        checkVolume(edgesAndCorners(70, 40, 33), connectivity, Criterion::binary(), "edges and corners");
    }
    // The joins tell the connectivities apart (a check of the inputs: the
    // reference must see different components at 6, 18 and 26).
    const Image joins = edgesAndCorners(70, 40, 33);
    const std::size_t six = glccl::labelReference(joins, Connectivity::Six, Criterion::binary()).count();
    const std::size_t eighteen = glccl::labelReference(joins, Connectivity::Eighteen, Criterion::binary()).count();
    const std::size_t twentySix = glccl::labelReference(joins, Connectivity::TwentySix, Criterion::binary()).count();
    CHECK(six > eighteen);
    CHECK(eighteen > twentySix);
}

// Volumes past one patch along every axis (at 26 a patch is 64 x 32 x 32
// voxels), dense enough that the warps' link queues go round more than once,
// the joins only an edge or a corner makes, and segments on the voxel
// kernels, at every connectivity: what bench/cuda-sanitizer.sh runs under
// racecheck, initcheck and synccheck for the volume kernels.
TEST_CASE("cuda: a small mix of volumes, for the sanitizers", "[cuda][volume][sanitize]") {
    glccl::test::requireCudaOrSkip();
    std::uint64_t seed = 900;
    for (Connectivity connectivity : kVolumeConnectivities) {
        checkVolume(randomVolume(130, 70, 40, 0.55, 1, 1, ++seed), connectivity, Criterion::binary(),
                    "binary, past a patch");
        checkVolume(edgesAndCorners(70, 40, 33), connectivity, Criterion::binary(), "edges and corners");
        checkVolume(randomVolume(47, 19, 13, 0.8, 3, 1, ++seed), connectivity, Criterion::segments(), "segments");
    }
}

TEST_CASE("cuda: one ImageLabeler labels volumes and images in turn, through both host entries",
          "[cuda][volume]") {
    glccl::test::requireCudaOrSkip();
    glccl::cuda::ImageLabeler labeler;
    Labeling result;
    std::uint64_t seed = 900;
    for (int round = 0; round < 2; ++round) {
        const Image volume = randomVolume(53, 21, 17, 0.45, 1, 1, ++seed);
        labeler.label(volume, Connectivity::TwentySix, Criterion::binary(), result);
        glccl::test::checkMatchesReference(volume, Connectivity::TwentySix, Criterion::binary(), result,
                                           "ImageLabeler::label(Image), volume");

        const Image image = glccl::randomImage(301, 77, 0.5, 2, 1, ++seed);
        labeler.label(image, Connectivity::Eight, Criterion::binary(), result);
        CHECK(result.dimensions == 2);
        glccl::test::checkMatchesReference(image, Connectivity::Eight, Criterion::binary(), result,
                                           "ImageLabeler::label(Image), image");

        // The view entry: labels into the caller's memory.
        const Image other = randomVolume(40, 33, 9, 0.6, 1, 1, ++seed);
        Labeling viewed;
        viewed.width = other.width, viewed.height = other.height, viewed.depth = other.depth;
        viewed.dimensions = 3;
        viewed.labels.assign(Shape::volume(40, 33, 9).count(), 0xDEADBEEFu);
        viewed.components = labeler.label(glccl::ImageView(other), Connectivity::Six, Criterion::binary(),
                                          viewed.labels.data());
        glccl::test::checkMatchesReference(other, Connectivity::Six, Criterion::binary(), viewed,
                                           "ImageLabeler::label(ImageView), volume");
    }
}

TEST_CASE("cuda: a volume in device memory is labeled on the caller's stream, packed and pitched",
          "[cuda][volume]") {
    glccl::test::requireCudaOrSkip();
    const int width = 45, height = 23, depth = 19;
    const Image volume = randomVolume(width, height, depth, 0.4, 1, 1, 77);
    const std::size_t voxels = volume.pixels.size();
    cudaStream_t stream = nullptr;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);

    // Packed: labeled in place. Pitched: rows of 64 bytes (voxels) and
    // 256 bytes (labels), slices with a spare row.
    struct Layout {
        std::size_t voxelRow, voxelSlice, labelRow, labelSlice;
    };
    const Layout layouts[] = {
        {width, std::size_t(width) * height, std::size_t(width) * 4, std::size_t(width) * height * 4},
        {64, 64 * std::size_t(height + 1), 256, 256 * std::size_t(height + 1)},
        {std::size_t(width), std::size_t(width) * height + 3, std::size_t(width) * 4,
         std::size_t(width) * height * 4 + 12}};
    glccl::cuda::ImageLabeler labeler;
    for (const Layout& layout : layouts) {
        for (Connectivity connectivity : kVolumeConnectivities) {
            INFO("voxel rows " << layout.voxelRow << ", slices " << layout.voxelSlice << "; label rows "
                               << layout.labelRow << ", slices " << layout.labelSlice);
            void* d_voxels = nullptr;
            void* d_labels = nullptr;
            REQUIRE(cudaMalloc(&d_voxels, layout.voxelSlice * depth) == cudaSuccess);
            REQUIRE(cudaMalloc(&d_labels, layout.labelSlice * depth) == cudaSuccess);
            for (int z = 0; z < depth; ++z) {
                REQUIRE(cudaMemcpy2DAsync(static_cast<char*>(d_voxels) + z * layout.voxelSlice, layout.voxelRow,
                                          volume.pixels.data() + std::size_t(z) * width * height, width, width,
                                          height, cudaMemcpyHostToDevice, stream) == cudaSuccess);
            }

            glccl::cuda::DeviceVolume in;
            in.data = d_voxels;
            in.rowPitch = layout.voxelRow;
            in.slicePitch = layout.voxelSlice;
            in.width = width, in.height = height, in.depth = depth;
            glccl::cuda::DeviceVolumeLabels out;
            out.data = static_cast<std::uint32_t*>(d_labels);
            out.rowPitch = layout.labelRow;
            out.slicePitch = layout.labelSlice;

            Labeling actual;
            actual.width = width, actual.height = height, actual.depth = depth, actual.dimensions = 3;
            actual.components = labeler.labelDevice(in, out, connectivity, Criterion::binary(), stream);
            actual.labels.assign(voxels, 0);
            for (int z = 0; z < depth; ++z) {
                REQUIRE(cudaMemcpy2D(actual.labels.data() + std::size_t(z) * width * height, std::size_t(width) * 4,
                                     static_cast<char*>(d_labels) + z * layout.labelSlice, layout.labelRow,
                                     std::size_t(width) * 4, height, cudaMemcpyDeviceToHost) == cudaSuccess);
            }
            glccl::test::checkMatchesReference(volume, connectivity, Criterion::binary(), actual,
                                               "ImageLabeler::labelDevice(DeviceVolume)");

            // The one-call form gives the same table.
            const std::vector<Component> table =
                glccl::cuda::labelDeviceVolume(in, out, connectivity, Criterion::binary(), stream);
            CHECK(table == actual.components);
            CHECK(cudaFree(d_voxels) == cudaSuccess);
            CHECK(cudaFree(d_labels) == cudaSuccess);
        }
    }
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: random volumes labeled many times over equal the reference every time",
          "[cuda][volume][repeat]") {
    glccl::test::requireCudaOrSkip();
    const int repeats = repeatsFromEnvironment();
    glccl::cuda::ImageLabeler labeler;
    std::mt19937_64 sizes(2026);
    std::uniform_int_distribution<int> side(20, 150);
    Labeling actual;
    for (int i = 0; i < 30; ++i) {
        const Connectivity connectivity = kVolumeConnectivities[i % 3];
        const double density = 0.15 + 0.1 * (i % 8);
        const Image volume = randomVolume(side(sizes), side(sizes) / 2, side(sizes) / 2, density, 1, 1, 3000 + i);
        const Labeling expected = glccl::labelReference(volume, connectivity, Criterion::binary());
        int identical = 0;
        for (int r = 0; r < repeats; ++r) {
            labeler.label(volume, connectivity, Criterion::binary(), actual);
            if (glccl::compareLabelings(expected, actual).identical()) ++identical;
        }
        INFO("volume " << i << ": " << volume.width << "x" << volume.height << "x" << volume.depth << ", density "
                       << density << ", connectivity " << int(connectivity));
        CHECK(identical == repeats);
    }
}

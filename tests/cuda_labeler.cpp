// The CUDA path against the CPU reference, pixel for pixel and row for row of
// the component table: random images of sizes that cross tile and merge-level
// borders in every way, every connectivity, criterion and channel count, the
// generated families, and patterns aimed at the merging scheme (runs that
// cross every border, links only through tile corners). Then the reusable
// ImageLabeler: frames that reuse its buffers, page-locked and pageable host
// memory, the zero-copy entry on device arrays, and its destruction giving
// every byte back.
//
// Needs a CUDA device; elsewhere each test prints why and is reported as
// skipped (cuda_support.hpp). The argument checks and the available()
// contract run everywhere.

#include <catch2/catch.hpp>

#include <algorithm>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "glccl/compare.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/reference.hpp"
#include "glccl/tuning.hpp"
#include "cuda_support.hpp"

#include <cuda_runtime_api.h>

using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;

namespace {

const char* name(Connectivity connectivity) { return connectivity == Connectivity::Four ? "4" : "8"; }

// Labels `image` on the GPU and with the reference; both must be identical.
void checkAgainstReference(const Image& image, Connectivity connectivity, Criterion criterion,
                           const std::string& what) {
    INFO(what << ", " << image.width << "x" << image.height << "x" << image.channels << ", connectivity "
              << name(connectivity) << ", " << criterion.toString());
    const glccl::Labeling expected = glccl::labelReference(image, connectivity, criterion);
    const glccl::Labeling actual = glccl::cuda::labelImage(image, connectivity, criterion);
    const glccl::Comparison comparison = glccl::compareLabelings(expected, actual);
    INFO(comparison.describe());
    CHECK(comparison.identical());
}

struct Size {
    int width, height;
};

// 1x1 up to a few levels of merging: exact tile multiples, one more and one
// less (partial tiles), single rows and columns (no vertical or no
// horizontal borders), and sizes that end mid-group at each level.
const std::vector<Size> kOddSizes = {
    {1, 1},     {2, 2},      {1, 7},     {7, 1},    {1, 3000},  {3000, 1},  {31, 33},   {32, 32},
    {33, 31},   {64, 64},    {65, 63},   {127, 129}, {128, 128}, {129, 127}, {257, 129}, {513, 2},
    {2, 513},   {2049, 17},  {17, 2049}, {1000, 999}, {600, 2100},
};

Image pattern(int width, int height, bool (*on)(int x, int y)) {
    Image image(width, height, 1);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) image.at(x, y) = on(x, y) ? 255 : 0;
    }
    return image;
}

}  // namespace

TEST_CASE("cuda: available() gives a reason exactly when it says no", "[cuda]") {
    std::string why = "unchanged";
    const bool yes = glccl::cuda::available(&why);
    if (yes) {
        CHECK(why.empty());
        CHECK_FALSE(glccl::cuda::deviceName().empty());
    } else {
        WARN("CUDA not available: " << why);
        CHECK_FALSE(why.empty());
        CHECK(why != "unchanged");
    }
    CHECK(glccl::cuda::available() == yes);
}

TEST_CASE("cuda: the sync-each-kernel switch reads back as set, and images label either way", "[cuda]") {
    // Its default is the environment's GLCCL_CUDA_SYNC; runs without a GPU
    // up to the labeling.
    const bool before = glccl::cuda::syncEachKernel();
    for (const bool sync : {true, false}) {
        glccl::cuda::setSyncEachKernel(sync);
        CHECK(glccl::cuda::syncEachKernel() == sync);
        if (glccl::cuda::available()) {
            const Image image = glccl::randomImage(97, 61, 0.5, 2, 1, 12);
            checkAgainstReference(image, Connectivity::Eight, Criterion::binary(), sync ? "synced" : "not synced");
        }
    }
    glccl::cuda::setSyncEachKernel(before);
    CHECK(glccl::cuda::syncEachKernel() == before);
}

TEST_CASE("cuda: invalid arguments are errors that name the entry", "[cuda]") {
    // Checked before any CUDA call, so this runs without a GPU too.
    auto message = [](const Image& image, Criterion criterion) {
        try {
            glccl::cuda::labelImage(image, Connectivity::Eight, criterion);
        } catch (const glccl::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string entry = "glccl::cuda::labelImage(): ";
    CHECK_THAT(message(Image(), Criterion::binary()), Catch::StartsWith(entry));
    CHECK_THAT(message(Image(4, 4, 3), Criterion::thresholded(1)), Catch::StartsWith(entry) && Catch::Contains("3"));
    CHECK_THAT(message(Image(4, 4, 4), Criterion::segments()), Catch::StartsWith(entry) && Catch::Contains("segments"));
    CHECK_THAT(message(Image(4, 4, 4), Criterion::binary()), Catch::StartsWith(entry));
    CHECK_THAT(message(Image(4, 4, 1), Criterion::thresholded(256)), Catch::StartsWith(entry) && Catch::Contains("256"));
    Image truncated(4, 4, 1);
    truncated.pixels.resize(5);
    CHECK_THAT(message(truncated, Criterion::binary()), Catch::StartsWith(entry) && Catch::Contains("5 bytes"));
}

TEST_CASE("cuda: random binary images of odd sizes match the reference", "[cuda][random]") {
    glccl::test::requireCudaOrSkip();
    std::uint64_t seed = 1;
    for (const Size& size : kOddSizes) {
        for (double density : {0.1, 0.45, 0.6, 0.9}) {
            const Image image = glccl::randomImage(size.width, size.height, density, 2, 1, seed++);
            for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
                checkAgainstReference(image, c, Criterion::binary(), "noise " + std::to_string(density));
            }
        }
    }
}

TEST_CASE("cuda: random segment images match the reference", "[cuda][random]") {
    glccl::test::requireCudaOrSkip();
    std::uint64_t seed = 100;
    for (const Size& size : kOddSizes) {
        for (int levels : {3, 8}) {
            const Image image = glccl::randomImage(size.width, size.height, 0.8, levels, 1, seed++);
            for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
                checkAgainstReference(image, c, Criterion::segments(), "segments, " + std::to_string(levels) + " levels");
                // The same image as binary: values differ but all connect.
                checkAgainstReference(image, c, Criterion::binary(), "segments image as binary");
            }
        }
    }
}

TEST_CASE("cuda: thresholds on 1 and 4 channels match the reference", "[cuda][random]") {
    glccl::test::requireCudaOrSkip();
    std::uint64_t seed = 200;
    for (const Size& size : kOddSizes) {
        // Gray: 18 levels 15 apart; thresholds below, at and above the step.
        const Image gray = glccl::randomImage(size.width, size.height, 0.9, 18, 1, seed++);
        // Color: 4 levels per channel 85 apart, every channel on its own.
        const Image color = glccl::randomImage(size.width, size.height, 0.95, 4, 4, seed++);
        for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
            for (int t : {0, 14, 15, 40}) checkAgainstReference(gray, c, Criterion::thresholded(t), "gray");
            for (int t : {0, 85, 170, 255}) checkAgainstReference(color, c, Criterion::thresholded(t), "color");
        }
    }
}

TEST_CASE("cuda: generated families match the reference", "[cuda][families]") {
    glccl::test::requireCudaOrSkip();
    for (const std::string& family : glccl::generatedFamilies()) {
        for (Size size : {Size{256, 256}, Size{999, 1001}, Size{2048, 2048}, Size{4100, 77}}) {
            const Image image = glccl::generateFamily(family, size.width, size.height, 7);
            for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
                checkAgainstReference(image, c, Criterion::binary(), family);
            }
        }
    }
}

TEST_CASE("cuda: patterns aimed at tile borders and merge levels match the reference", "[cuda][patterns]") {
    glccl::test::requireCudaOrSkip();
    struct Pattern {
        const char* name;
        bool (*on)(int x, int y);
    };
    const Pattern patterns[] = {
        // Every component crosses every horizontal (resp. vertical) border.
        {"columns", [](int x, int) { return x % 2 == 0; }},
        {"rows", [](int, int y) { return y % 2 == 0; }},
        // Pixel checkerboard: 4-connected, all isolated; 8-connected, one
        // component linked only through corners, tile corners included.
        {"pixel checkerboard", [](int x, int y) { return (x + y) % 2 == 0; }},
        // Diagonal lines: only corner links join them, so every line needs
        // the diagonal unions at tile corners (31, 31) -> (32, 32).
        {"diagonals", [](int x, int y) { return (x + y) % 7 == 0 || (x - y + 7000) % 11 == 0; }},
        // A serpentine: one component that turns at every tile border, so
        // its tree is rebuilt across every level.
        {"serpentine",
         [](int x, int y) {
             if (y % 2 == 0) return true;
             return (y / 2) % 2 == 0 ? x == 0 : x % 32 == 31;
         }},
        // Rings of 1-pixel walls around tile corners.
        {"frames", [](int x, int y) { return x % 32 == 31 || y % 32 == 31 || x % 32 == 0 || y % 32 == 0; }},
        {"all zero", [](int, int) { return false; }},
        {"all one", [](int, int) { return true; }},
    };
    for (const Pattern& p : patterns) {
        for (Size size : {Size{1, 1}, Size{33, 1}, Size{1, 65}, Size{97, 95}, Size{1031, 517}, Size{4096, 4096}}) {
            const Image image = pattern(size.width, size.height, p.on);
            for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
                checkAgainstReference(image, c, Criterion::binary(), p.name);
            }
        }
    }
}

TEST_CASE("cuda: a large noise image matches the reference", "[cuda][large]") {
    glccl::test::requireCudaOrSkip();
    const Image image = glccl::randomImage(4096, 4096, 0.5, 2, 1, 4096);
    for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
        checkAgainstReference(image, c, Criterion::binary(), "noise 4096");
    }
    const Image color = glccl::randomImage(3000, 2000, 1.0, 5, 4, 3000);
    checkAgainstReference(color, Connectivity::Eight, Criterion::thresholded(64), "color 3000x2000");
}

TEST_CASE("cuda: timings name every stage once, in the order each first ran", "[cuda]") {
    glccl::test::requireCudaOrSkip();
    auto stageNames = [&](const Image& image) {
        glccl::cuda::ImageLabeler labeler;
        glccl::Labeling result;
        glccl::StageTimings timings;
        labeler.label(image, Connectivity::Eight, Criterion::binary(), result, &timings);
        std::vector<std::string> names;
        for (const glccl::StageTime& t : timings) {
            names.push_back(t.stage);
            CHECK(t.milliseconds >= 0.0);
        }
        return names;
    };
    // An image wider than the block kernels' lines (32768 nodes of 2
    // pixels) takes Stava & Benes' kernels; more than one merge level, so
    // flatten_borders runs too.
    const std::vector<std::string> expected = {"solve_patches",    "merge_patches", "flatten_borders",
                                               "flatten_labels", "relabel",     "component_stats"};
    CHECK(stageNames(glccl::randomImage(65601, 3, 0.5, 2, 1, 9)) == expected);
    // Any other image: the block kernels, under the compute engine's stage names.
    const std::vector<std::string> blocks = {"local_merge", "merge_borders", "count_roots", "final_labels",
                                             "component_stats"};
    CHECK(stageNames(glccl::randomImage(300, 200, 0.5, 2, 1, 9)) == blocks);
}

TEST_CASE("cuda: a small mix of every pass, for the sanitizers", "[cuda][sanitize]") {
    glccl::test::requireCudaOrSkip();
    std::uint64_t seed = 300;
    for (Size size : {Size{1, 1}, Size{31, 33}, Size{257, 129}, Size{600, 333}, Size{2, 700}}) {
        const Image binary = glccl::randomImage(size.width, size.height, 0.55, 2, 1, seed++);
        const Image segments = glccl::randomImage(size.width, size.height, 0.8, 4, 1, seed++);
        const Image color = glccl::randomImage(size.width, size.height, 1.0, 4, 4, seed++);
        for (Connectivity c : {Connectivity::Four, Connectivity::Eight}) {
            checkAgainstReference(binary, c, Criterion::binary(), "binary");
            checkAgainstReference(segments, c, Criterion::segments(), "segments");
            checkAgainstReference(segments, c, Criterion::thresholded(85), "gray threshold");
            checkAgainstReference(color, c, Criterion::thresholded(85), "color threshold");
        }
    }
}

// --- ImageLabeler: the reusable object ------------------------------------------

namespace {

using glccl::cuda::DeviceVolume;
using glccl::cuda::DeviceVolumeLabels;
using glccl::cuda::ImageLabeler;
using glccl::cuda::ResourceCounts;

template <class Call>
std::string messageOf(Call&& call) {
    try {
        call();
    } catch (const glccl::Error& e) {
        return e.what();
    }
    return "no error";
}

// Device and page-locked memory owned by a test.
struct CudaFree {
    void operator()(void* p) const { cudaFree(p); }
};
struct CudaFreeHost {
    void operator()(void* p) const { cudaFreeHost(p); }
};
using DeviceMemory = std::unique_ptr<void, CudaFree>;
using PinnedMemory = std::unique_ptr<void, CudaFreeHost>;

DeviceMemory deviceAllocate(std::size_t bytes) {
    void* p = nullptr;
    REQUIRE(cudaMalloc(&p, bytes) == cudaSuccess);
    return DeviceMemory(p);
}

PinnedMemory pinnedAllocate(std::size_t bytes) {
    void* p = nullptr;
    REQUIRE(cudaMallocHost(&p, bytes) == cudaSuccess);
    return PinnedMemory(p);
}

glccl::Labeling labelingOf(int width, int height, const std::uint32_t* labels,
                           const std::vector<glccl::Component>& table) {
    glccl::Labeling labeling;
    labeling.width = width;
    labeling.height = height;
    labeling.labels.assign(labels, labels + std::size_t(width) * height);
    labeling.components = table;
    return labeling;
}

}  // namespace

TEST_CASE("cuda: connectivities that do not fit the input's dimensions are refused before any CUDA call", "[cuda]") {
    // Runs without a GPU, as the checks above.
    Image image(6, 5, 1);
    image.at(2, 2) = 1;
    for (const Connectivity connectivity : {Connectivity::Six, Connectivity::Eighteen, Connectivity::TwentySix}) {
        const std::string why = "connectivity " + std::to_string(glccl::neighbourCount(connectivity)) +
                                " is for volumes; a 2-D image takes 4 or 8";
        CHECK_THAT(messageOf([&] { glccl::cuda::labelImage(image, connectivity, Criterion::binary()); }),
                   Catch::StartsWith("glccl::cuda::labelImage(): ") && Catch::Contains(why));
        ImageLabeler labeler;
        glccl::Labeling result;
        CHECK_THAT(messageOf([&] { labeler.label(image, connectivity, Criterion::binary(), result); }),
                   Catch::StartsWith("glccl::cuda::ImageLabeler::label(): ") && Catch::Contains(why));
    }
    // A volume takes 6, 18 or 26 (cuda_volume.cpp labels them).
    Image volume(glccl::Shape::volume(6, 5, 2));
    CHECK_THAT(messageOf([&] { glccl::cuda::labelImage(volume, Connectivity::Eight, Criterion::binary()); }),
               Catch::StartsWith("glccl::cuda::labelImage(): ") &&
                   Catch::Contains("connectivity 8 is for 2-D images; a volume takes 6, 18 or 26"));
}

TEST_CASE("cuda: ImageLabeler and labelDevice refuse bad arguments before any CUDA call", "[cuda]") {
    // Runs without a GPU: every check here comes before the first CUDA call.
    ImageLabeler labeler;
    const std::string label = "glccl::cuda::ImageLabeler::label(): ";
    const std::string device = "glccl::cuda::ImageLabeler::labelDevice(): ";
    glccl::Labeling result;
    CHECK_THAT(messageOf([&] { labeler.label(Image(), Connectivity::Eight, Criterion::binary(), result); }),
               Catch::StartsWith(label));
    CHECK_THAT(messageOf([&] { labeler.label(Image(4, 4, 4), Connectivity::Eight, Criterion::segments(), result); }),
               Catch::StartsWith(label) && Catch::Contains("segments"));
    CHECK_THAT(messageOf([&] {
                   labeler.label(nullptr, 4, 4, 1, Connectivity::Eight, Criterion::binary(), nullptr);
               }),
               Catch::StartsWith(label) && Catch::Contains("pixels is null"));
    CHECK_THAT(messageOf([&] { labeler.reserve(4, 4, 2); }),
               Catch::StartsWith("glccl::cuda::ImageLabeler::reserve(): ") && Catch::Contains("2 channels"));

    std::uint32_t word = 0;
    const DeviceVolume pixels{&word, 4, 0, 4, 1, 1, 1};
    auto deviceMessage = [&](DeviceVolume p, DeviceVolumeLabels l) {
        return messageOf([&] { labeler.labelDevice(p, l, Connectivity::Eight, Criterion::binary()); });
    };
    CHECK_THAT(deviceMessage({nullptr, 4, 0, 4, 1, 1, 1}, {&word, 16}),
               Catch::StartsWith(device) && Catch::Contains("pixels.data"));
    CHECK_THAT(deviceMessage(pixels, {nullptr, 16}), Catch::StartsWith(device) && Catch::Contains("labels.data"));
    CHECK_THAT(deviceMessage({&word, 3, 0, 4, 1, 1, 1}, {&word, 16}), Catch::StartsWith(device) && Catch::Contains("pitch"));
    CHECK_THAT(deviceMessage(pixels, {&word, 12}), Catch::StartsWith(device) && Catch::Contains("labels.rowPitch"));
    CHECK_THAT(deviceMessage(pixels, {&word, 18}), Catch::StartsWith(device) && Catch::Contains("multiple of 4"));
    CHECK_THAT(deviceMessage({&word, 4, 0, 4, 0, 1, 1}, {&word, 16}), Catch::StartsWith(device) && Catch::Contains("4x0"));
    CHECK(labeler.resourceCounts() == ResourceCounts{});
}

TEST_CASE("cuda: ImageLabeler reuses its buffers: frames of one size, another size, the first again", "[cuda]") {
    glccl::test::requireCudaOrSkip();
    struct Phase {
        int width, height, channels;
        Connectivity connectivity;
        Criterion criterion;
    };
    const Phase phases[] = {
        {640, 480, 1, Connectivity::Eight, Criterion::binary()},
        {999, 333, 1, Connectivity::Four, Criterion::binary()},
        {640, 480, 1, Connectivity::Eight, Criterion::segments()},
        {640, 480, 4, Connectivity::Four, Criterion::thresholded(85)},
        {4097, 2049, 1, Connectivity::Eight, Criterion::binary()},  // several staging chunks each way
    };
    constexpr int kFrames = 10;
    ImageLabeler labeler;
    labeler.reserve(640, 480, 1);
    const ResourceCounts reserved = labeler.resourceCounts();
    std::size_t mostSoFar = 0;  // components: a table longer than every earlier one may grow its buffers once
    glccl::Labeling result;  // reused: overwritten in place when the size matches
    std::uint64_t seed = 500;
    for (const Phase& phase : phases) {
        ResourceCounts afterFirstFrame;
        for (int frame = 0; frame < kFrames; ++frame) {
            const Image image = glccl::randomImage(phase.width, phase.height, phase.channels == 1 ? 0.45 : 1.0,
                                                   phase.channels == 1 ? 3 : 4, phase.channels, seed++);
            labeler.label(image, phase.connectivity, phase.criterion, result);
            glccl::test::checkMatchesReference(image, phase.connectivity, phase.criterion, result,
                                               "frame " + std::to_string(frame));
            const ResourceCounts now = labeler.resourceCounts();
            INFO("frame " << frame << " of " << phase.width << "x" << phase.height << "x" << phase.channels << ": "
                          << glccl::test::describe(now) << ", after reserve() "
                          << glccl::test::describe(reserved));
            // Within a size nothing is made but the table's growth past every
            // earlier count (by half again: a few times in a labeler's life).
            const bool longestYet = result.count() > mostSoFar;
            mostSoFar = std::max(mostSoFar, result.count());
            if (frame == 0 || longestYet) afterFirstFrame = now;
            CHECK(now == afterFirstFrame);
            CHECK(now.registrations == 0);
        }
    }
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: ImageLabeler on raw host memory, page-locked or pageable, labels optional", "[cuda]") {
    glccl::test::requireCudaOrSkip();
    const Image image = glccl::randomImage(1500, 1100, 0.5, 2, 1, 600);
    const std::size_t count = std::size_t(image.width) * image.height;
    ImageLabeler labeler;

    // Page-locked in and out: copied by the device directly.
    PinnedMemory pixels = pinnedAllocate(image.pixels.size());
    PinnedMemory labels = pinnedAllocate(count * sizeof(std::uint32_t));
    std::memcpy(pixels.get(), image.pixels.data(), image.pixels.size());
    std::memset(labels.get(), 0xAB, count * sizeof(std::uint32_t));
    const auto& pinnedTable = labeler.label(static_cast<const std::uint8_t*>(pixels.get()), image.width, image.height,
                                            1, Connectivity::Four, Criterion::binary(),
                                            static_cast<std::uint32_t*>(labels.get()));
    glccl::test::checkMatchesReference(
        image, Connectivity::Four, Criterion::binary(),
        labelingOf(image.width, image.height, static_cast<const std::uint32_t*>(labels.get()), pinnedTable),
        "page-locked");

    // Pageable: through the staging chunks.
    std::vector<std::uint32_t> pageable(count, 0xABABABABu);
    const auto& pageableTable = labeler.label(image.pixels.data(), image.width, image.height, 1, Connectivity::Eight,
                                              Criterion::binary(), pageable.data());
    glccl::test::checkMatchesReference(image, Connectivity::Eight, Criterion::binary(),
                                       labelingOf(image.width, image.height, pageable.data(), pageableTable),
                                       "pageable");

    // Chunks of 64 KiB (the Tuning's band size): both chunks refilled many
    // times in one call, each way.
    {
        struct Restore {
            glccl::Tuning before = glccl::tuning();
            ~Restore() { glccl::setTuning(before); }
        } restore;
        glccl::Tuning small = restore.before;
        small.set("transferBandBytes", "64K");
        glccl::setTuning(small);
        std::vector<std::uint32_t> chunked(count, 0xABABABABu);
        const auto& chunkedTable = labeler.label(image.pixels.data(), image.width, image.height, 1,
                                                 Connectivity::Eight, Criterion::binary(), chunked.data());
        glccl::test::checkMatchesReference(image, Connectivity::Eight, Criterion::binary(),
                                           labelingOf(image.width, image.height, chunked.data(), chunkedTable),
                                           "pageable, 64 KiB chunks");
    }

    // No labels wanted: the table alone.
    const auto& tableOnly = labeler.label(image.pixels.data(), image.width, image.height, 1, Connectivity::Eight,
                                          Criterion::binary(), nullptr);
    const glccl::Labeling expected = glccl::labelReference(image, Connectivity::Eight, Criterion::binary());
    CHECK(tableOnly == expected.components);
    CHECK(labeler.table() == expected.components);
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: labelDevice labels device arrays like the reference", "[cuda][device]") {
    glccl::test::requireCudaOrSkip();
    struct Case {
        int width, height, channels;
        std::size_t pixelPad, labelPad;  // bytes past a packed row
        bool callerStream;
        Connectivity connectivity;
        Criterion criterion;
    };
    const Case cases[] = {
        {517, 263, 1, 0, 0, false, Connectivity::Eight, Criterion::binary()},   // packed: in place
        {517, 263, 1, 3, 12, true, Connectivity::Four, Criterion::binary()},    // pitched both ways
        {300, 200, 4, 0, 0, true, Connectivity::Eight, Criterion::thresholded(85)},
        {300, 200, 4, 5, 4, false, Connectivity::Four, Criterion::thresholded(85)},
        {1, 1, 1, 0, 0, true, Connectivity::Eight, Criterion::binary()},
        {2049, 17, 1, 64, 0, true, Connectivity::Eight, Criterion::segments()},
        {17, 2049, 1, 0, 64, false, Connectivity::Four, Criterion::segments()},
    };
    cudaStream_t stream = nullptr;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    ImageLabeler labeler;
    std::uint64_t seed = 700;
    for (const Case& c : cases) {
        INFO("pixel pad " << c.pixelPad << ", label pad " << c.labelPad << ", caller stream " << c.callerStream);
        const Image image = glccl::randomImage(c.width, c.height, c.channels == 1 ? 0.5 : 1.0, 4, c.channels, seed++);
        const std::size_t row = std::size_t(c.width) * c.channels;
        const std::size_t pixelPitch = row + c.pixelPad;
        const std::size_t labelRow = std::size_t(c.width) * sizeof(std::uint32_t);
        const std::size_t labelPitch = labelRow + c.labelPad;
        DeviceMemory pixels = deviceAllocate(pixelPitch * c.height);
        DeviceMemory labels = deviceAllocate(labelPitch * c.height);
        REQUIRE(cudaMemset(labels.get(), 0xAB, labelPitch * c.height) == cudaSuccess);
        const cudaStream_t callerStream = c.callerStream ? stream : nullptr;
        // Queued on the caller's stream and not waited for: the labeler must
        // order itself after it.
        REQUIRE(cudaMemcpy2DAsync(pixels.get(), pixelPitch, image.pixels.data(), row, row, std::size_t(c.height),
                                  cudaMemcpyHostToDevice, callerStream) == cudaSuccess);

        const auto& table = labeler.labelDevice(
            DeviceVolume{pixels.get(), pixelPitch, 0, c.width, c.height, 1, c.channels},
            DeviceVolumeLabels{static_cast<std::uint32_t*>(labels.get()), labelPitch, 0}, c.connectivity, c.criterion,
            callerStream);

        // Done when it returns: read back on the legacy stream, no waiting.
        std::vector<std::uint32_t> host(std::size_t(c.width) * c.height);
        REQUIRE(cudaMemcpy2D(host.data(), labelRow, labels.get(), labelPitch, labelRow, std::size_t(c.height),
                             cudaMemcpyDeviceToHost) == cudaSuccess);
        glccl::test::checkMatchesReference(image, c.connectivity, c.criterion,
                                           labelingOf(c.width, c.height, host.data(), table), "labelDevice");
    }
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: labelDevice refuses host memory with a clear error", "[cuda][device]") {
    glccl::test::requireCudaOrSkip();
    const Image image = glccl::randomImage(64, 32, 0.5, 2, 1, 800);
    DeviceMemory labels = deviceAllocate(64 * 32 * sizeof(std::uint32_t));
    std::vector<std::uint32_t> hostLabels(64 * 32);
    ImageLabeler labeler;
    const std::string entry = "glccl::cuda::ImageLabeler::labelDevice(): ";
    CHECK_THAT(messageOf([&] {
                   labeler.labelDevice(DeviceVolume{image.pixels.data(), 64, 0, 64, 32, 1, 1},
                                       DeviceVolumeLabels{static_cast<std::uint32_t*>(labels.get()), 256, 0},
                                       Connectivity::Eight, Criterion::binary());
               }),
               Catch::StartsWith(entry) && Catch::Contains("pixels.data is not CUDA device memory"));
    DeviceMemory pixels = deviceAllocate(64 * 32);
    CHECK_THAT(messageOf([&] {
                   labeler.labelDevice(DeviceVolume{pixels.get(), 64, 0, 64, 32, 1, 1},
                                       DeviceVolumeLabels{hostLabels.data(), 256, 0}, Connectivity::Eight, Criterion::binary());
               }),
               Catch::StartsWith(entry) && Catch::Contains("labels.data is not CUDA device memory"));
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

TEST_CASE("cuda: a destroyed ImageLabeler gives back all device memory", "[cuda]") {
    glccl::test::requireCudaOrSkip();
    const Image gray = glccl::randomImage(4096, 2048, 0.5, 2, 1, 900);
    const Image color = glccl::randomImage(2048, 2048, 1.0, 4, 4, 901);
    auto session = [&] {
        ImageLabeler labeler;
        labeler.reserve(4096, 2048, 1);
        glccl::Labeling result;
        labeler.label(gray, Connectivity::Eight, Criterion::binary(), result);
        labeler.label(color, Connectivity::Four, Criterion::thresholded(60), result);
        DeviceMemory pixels = deviceAllocate(gray.pixels.size());
        DeviceMemory labels = deviceAllocate(gray.pixels.size() * sizeof(std::uint32_t));
        REQUIRE(cudaMemcpy(pixels.get(), gray.pixels.data(), gray.pixels.size(), cudaMemcpyHostToDevice) ==
                cudaSuccess);
        labeler.labelDevice(DeviceVolume{pixels.get(), 4096, 0, 4096, 2048, 1, 1},
                            DeviceVolumeLabels{static_cast<std::uint32_t*>(labels.get()), 4096 * 4, 0}, Connectivity::Four,
                            Criterion::binary());
    };
    session();  // warm-up: the context's lazy allocations (modules, streams)
    const std::size_t freeBefore = glccl::test::freeDeviceMemory();
    session();
    const std::size_t freeAfter = glccl::test::freeDeviceMemory();
    INFO("free device memory before " << freeBefore << ", after " << freeAfter);
    CHECK(freeAfter + glccl::test::kMemorySlack >= freeBefore);
    CHECK(glccl::test::cudaErrorNow() == "cudaSuccess");
}

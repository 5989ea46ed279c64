// 64-bit samples (GL_RG32UI, both halves compared) and the delta criterion
// on the GL engines (compute, and raster for 2-D images), against the CPU
// reference, 2-D and 3-D; and the router's declaration of who takes them.

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "gl_support.hpp"
#include "glccl/error.hpp"
#include "glccl/route.hpp"
#include "glccl/texture.hpp"
#include "sample_support.hpp"

using namespace glccl;
using Catch::Matchers::Contains;
using glccl::test::labelWith;
using glccl::test::offscreen;
using glccl::test::session;

namespace {

void requireMatchesReference(Backend backend, const Image& image, Connectivity connectivity,
                             const Criterion& criterion) {
    const Labeling expected = labelReference(image, connectivity, criterion);
    const Comparison comparison = compareLabelings(expected, labelWith(backend, image, connectivity, criterion));
    INFO(backendName(backend) << " " << image.sampleBits << "-bit " << image.width << "x" << image.height << "x"
                              << image.depth << " connectivity " << int(connectivity) << " " << criterion.toString()
                              << ": " << comparison.describe());
    REQUIRE(comparison.identical());
}

// Values near a few centres, spread by -1..1: 0, 1 and 2^32 + 1 (the same low
// half), 2^32 - 1 and 2^32 (a carry between the halves), 2^63 and the
// largest; reduced to `sampleBits`.
Image clusteredSamples(const Shape& shape, int sampleBits, std::uint64_t seed) {
    return glccl::test::samplesNearCentres(shape, sampleBits, seed, 11,
                                           {0, 1, (std::uint64_t(1) << 32) + 1, 0xFFFFFFFFull, std::uint64_t(1) << 32,
                                            std::uint64_t(1) << 63, Image::largestSample(64)},
                                           1);
}

// What takes 64-bit samples and delta here: compute where OpenGL 4.3 runs
// (always in the shared 4.5 context), raster for delta on 2-D images.
std::vector<Backend> takers(const Image& image, const Criterion& criterion) {
    std::vector<Backend> backends;
    for (Backend backend : glccl::test::backendsHere()) {
        InputDescription input =
            InputDescription::hostImage(image.width, image.height, image.channels, image.sampleBits);
        input.shape = image.shape();
        LabelOptions options;
        options.backend = backend;
        options.criterion = criterion;
        if (whyRefused(capabilitiesOf(backend, &offscreen().context().info()), input, options).empty())
            backends.push_back(backend);
    }
    return backends;
}

}  // namespace

TEST_CASE("criteria: a 64-bit ImageTexture is GL_RG32UI and keeps every bit", "[gl]") {
    offscreen().makeCurrent();
    const Image image = clusteredSamples(Shape::image(19, 7), 64, 3);
    const ImageTexture texture(image);
    CHECK(texture.sampleBits() == 64);
    CHECK(texture.internalFormat() == 0x823C /* GL_RG32UI */);
    const Image back = texture.download();
    CHECK(back.sampleBits == 64);
    CHECK(back.pixels == image.pixels);
    CHECK_THROWS_WITH(ImageTexture(Image(2, 2, 4, 64)), Contains("64-bit color"));
}

TEST_CASE("criteria: a host's GL_RG32UI texture, 2-D and 3-D, labels like the reference on every engine", "[gl]") {
    offscreen().makeCurrent();
    Labeler labeler;
    const Image image = clusteredSamples(Shape::image(53, 31), 64, 41);
    const Image volume = clusteredSamples(Shape::volume(17, 13, 9), 64, 43);
    const ImageTexture imageTexture(image);
    const ImageTexture volumeTexture = ImageTexture::volume(volume);
    for (Backend backend : {Backend::Cpu, Backend::Raster, Backend::Compute})
        for (const Criterion& criterion : {Criterion::segments(), Criterion::withinDelta(1), Criterion::binaryAbove(1)}) {
            LabelOptions options;
            options.backend = backend;
            options.criterion = criterion;
            options.connectivity = Connectivity::Eight;
            labeler.label(imageTexture.id(), options);
            Comparison comparison = compareLabelings(labelReference(image, Connectivity::Eight, criterion),
                                                     labeler.result());
            INFO(backendName(backend) << " " << criterion.toString() << ": " << comparison.describe());
            CHECK(comparison.identical());
            if (backend == Backend::Raster) continue;  // 2-D only
            options.connectivity = Connectivity::TwentySix;
            labeler.label(volumeTexture.id(), options);
            comparison = compareLabelings(labelReference(volume, Connectivity::TwentySix, criterion), labeler.result());
            INFO("volume: " << comparison.describe());
            CHECK(comparison.identical());
        }
}

TEST_CASE("criteria: ids past 2^32 whose low halves collide stay apart on compute and raster", "[gl]") {
    // Columns of 1 and 2^32 + 1 (low halves equal), 2^32 - 1 beside 2^32
    // (one apart across the halves' carry).
    Image image(Shape::image(4, 3), 1, 64);
    const std::uint64_t columns[4] = {1, (std::uint64_t(1) << 32) + 1, 0xFFFFFFFFull, std::uint64_t(1) << 32};
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 4; ++x) image.setSample(x, y, 0, columns[x]);
    for (Backend backend : {Backend::Compute, Backend::Raster})
        for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
            INFO(backendName(backend));
            CHECK(labelWith(backend, image, connectivity, Criterion::segments()).count() == 4);
            CHECK(labelWith(backend, image, connectivity, Criterion::withinDelta(0)).count() == 4);
            CHECK(labelWith(backend, image, connectivity, Criterion::withinDelta(1)).count() == 3);
            CHECK(labelWith(backend, image, connectivity, Criterion::thresholded(1)).count() == 3);
            CHECK(labelWith(backend, image, connectivity, Criterion::binaryAbove(1)).count() == 1);
            for (const Criterion& criterion : {Criterion::segments(), Criterion::withinDelta(1), Criterion::binary(),
                                               Criterion::thresholded(0xFFFFFFFFll)})
                requireMatchesReference(backend, image, connectivity, criterion);
        }
    // The same as a volume of one slice and of three.
    Image volume(Shape::volume(4, 3, 3), 1, 64);
    for (std::size_t i = 0; i < volume.shape().count(); ++i) volume.setSample(i, 0, columns[i % 4]);
    for (Connectivity connectivity : {Connectivity::Six, Connectivity::TwentySix}) {
        CHECK(labelWith(Backend::Compute, volume, connectivity, Criterion::segments()).count() == 4);
        CHECK(labelWith(Backend::Compute, volume, connectivity, Criterion::withinDelta(1)).count() == 3);
    }
}

TEST_CASE("criteria: random 64-bit images and volumes, every criterion, match the reference on every GL engine",
          "[gl]") {
    std::uint64_t seed = 17;
    const Criterion criteria[] = {Criterion::binary(),         Criterion::binaryAbove(1),
                                  Criterion::binaryAbove(0xFFFFFFFFll), Criterion::segments(),
                                  Criterion::thresholded(0),  Criterion::thresholded(1),
                                  Criterion::thresholded(0xFFFFFFFFll), Criterion::withinDelta(0),
                                  Criterion::withinDelta(1),  Criterion::withinDelta(2)};
    for (const Criterion& criterion : criteria) {
        for (const Shape& shape : {Shape::image(1, 1), Shape::image(1, 33), Shape::image(47, 1), Shape::image(61, 37),
                                   Shape::image(130, 67)})
            for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
                const Image image = clusteredSamples(shape, 64, seed++);
                for (Backend backend : {Backend::Compute, Backend::Raster})
                    requireMatchesReference(backend, image, connectivity, criterion);
            }
        for (const Shape& shape : {Shape::volume(1, 1, 9), Shape::volume(13, 11, 1), Shape::volume(23, 17, 13)})
            for (Connectivity connectivity : {Connectivity::Six, Connectivity::Eighteen, Connectivity::TwentySix})
                requireMatchesReference(Backend::Compute, clusteredSamples(shape, 64, seed++), connectivity, criterion);
    }
}

TEST_CASE("criteria: delta on 8-, 16- and 32-bit images and volumes matches the reference on every GL engine",
          "[gl]") {
    std::uint64_t seed = 29;
    for (int sampleBits : {8, 16, 32}) {
        for (std::int64_t delta : {0, 1, 2, 255}) {
            const Criterion criterion = Criterion::withinDelta(delta);
            for (const Shape& shape : {Shape::image(1, 17), Shape::image(29, 1), Shape::image(75, 41)}) {
                const Image image = clusteredSamples(shape, sampleBits, seed++);
                const std::vector<Backend> backends = takers(image, criterion);
                CHECK(backends.size() >= 2);  // compute and raster at least
                for (Backend backend : backends)
                    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
                        requireMatchesReference(backend, image, connectivity, criterion);
            }
            const Image volume = clusteredSamples(Shape::volume(19, 15, 11), sampleBits, seed++);
            for (Connectivity connectivity : {Connectivity::Six, Connectivity::Eighteen, Connectivity::TwentySix})
                requireMatchesReference(Backend::Compute, volume, connectivity, criterion);
        }
    }
}

namespace {

// What of the input an engine refuses, whether or not it runs here (the
// refusal comes first in whyRefused).
std::string whyInputRefused(const EngineCapabilities& engine, const InputDescription& input,
                            const LabelOptions& options) {
    EngineCapabilities runs = engine;
    runs.whyNotHere.clear();
    return whyRefused(runs, input, options);
}

}  // namespace

TEST_CASE("criteria: the router takes 64-bit samples and delta to every engine, float textures past cuda",
          "[gl][route]") {
    LabelOptions options;
    const InputDescription wide = InputDescription::hostImage(40, 30, 1, 64);
    const ContextInfo& info = offscreen().context().info();
    CHECK(whyRefused(capabilitiesOf(Backend::Compute, &info), wide, options).empty());
    CHECK(whyRefused(capabilitiesOf(Backend::Cpu, &info), wide, options).empty());
    CHECK(whyRefused(capabilitiesOf(Backend::Raster, &info), wide, options).empty());
    CHECK(whyRefused(capabilitiesOf(Backend::Raster, &info), InputDescription::texture(40, 30, 0x823C /* GL_RG32UI */),
                     options)
              .empty());
    // cuda's declaration: every sample width and criterion, textures of
    // integer formats (whyNotHere apart: it may not run here).
    const EngineCapabilities cuda = capabilitiesOf(Backend::Cuda, nullptr);
    CHECK(whyInputRefused(cuda, InputDescription::texture(40, 30, 0x823C), options).empty());
    CHECK(whyInputRefused(cuda, wide, options).empty());
    CHECK(whyInputRefused(cuda, InputDescription::texture(40, 30, 0x822E /* GL_R32F */), options) ==
          "the cuda backend reads GL_R8, GL_R8UI, GL_R16, GL_R32UI, GL_RG32UI, GL_RGBA8 and GL_RGBA16 textures; this "
          "texture is GL_R32F (32-bit float samples): use the compute or raster backend");
    options.criterion = Criterion::withinDelta(3);
    CHECK(whyInputRefused(cuda, InputDescription::hostImage(40, 30, 1, 8), options).empty());
    CHECK(whyRefused(capabilitiesOf(Backend::Raster, &info), InputDescription::hostImage(40, 30, 1, 8), options)
              .empty());
    // A delta beyond the samples is the engines' error, in the criterion's words.
    CHECK_THROWS_WITH(labelWith(Backend::Compute, Image(3, 3), Connectivity::Eight, Criterion::withinDelta(256)),
                      Contains("the delta 256 is outside 0..255"));
}

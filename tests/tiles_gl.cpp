// Tiled labeling with the GL backends (llvmpipe in CI) and cuda (skipped
// without a GPU): each tile through the public Labeler, the whole against
// the reference; an image wider than llvmpipe's texture limit; several
// workers, each with its own context.

#include <random>

#include "glccl/generate.hpp"
#include "skip.hpp"
#include "tiles_support.hpp"

using namespace glccl;
using glccl::test::limitsOrSkip;
using glccl::test::requireTiledMatchesReference;

namespace {

TiledOptions tilesWith(Backend backend, Connectivity connectivity, const Criterion& criterion, std::uint32_t tw,
                       std::uint32_t th) {
    TiledOptions options = glccl::test::cpuTiles(connectivity, criterion, tw, th);
    options.label.backend = backend;
    return options;
}

void requireBackendTilesMatchReference(Backend backend) {
    const BackendLimits limits = limitsOrSkip(backend);
    REQUIRE(limits.backend == backend);
    const std::vector<std::pair<Criterion, Image>> cases = {
        {Criterion::binary(), randomImage(41, 27, 0.55, 2, 1, 31)},
        {Criterion::binary(), generateFamily("spiral", 64, 48, 1)},
        {Criterion::segments(), randomImage(33, 35, 0.7, 4, 1, 32)},
        {Criterion::thresholded(30), randomImage(29, 31, 0.8, 100, 4, 33)},
    };
    for (const auto& [criterion, image] : cases)
        for (const Connectivity connectivity : {Connectivity::Four, Connectivity::Eight})
            for (const auto& [tw, th] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{{7, 5}, {13, 16}})
                requireTiledMatchesReference(image, tilesWith(backend, connectivity, criterion, tw, th),
                                             backendName(backend));
}

}  // namespace

TEST_CASE("compute tiles label like the reference", "[tiles][gl]") {
    requireBackendTilesMatchReference(Backend::Compute);
}

TEST_CASE("raster tiles label like the reference", "[tiles][gl]") {
    requireBackendTilesMatchReference(Backend::Raster);
}

TEST_CASE("cuda tiles label like the reference", "[tiles][cuda]") {
    requireBackendTilesMatchReference(Backend::Cuda);
}

TEST_CASE("an image wider than the GL texture limit is labeled in tiles", "[tiles][gl]") {
    const BackendLimits limits = limitsOrSkip(Backend::Compute);
    const int width = int(limits.maxSide) + 117;
    // Filled here: randomImage() stops at 32768 on a side, which is the
    // texture limit of some GPUs (the H200's), so the image must pass it.
    Image image(width, 3);
    std::mt19937 random(2);
    for (std::uint8_t& pixel : image.pixels) pixel = random() % 10 < 6 ? 255 : 0;
    TiledOptions options = tilesWith(Backend::Compute, Connectivity::Eight, Criterion::binary(), 0, 0);
    TiledResult run;
    labelTiled(image, options, &run);
    REQUIRE(run.plan.tilesX() >= 2);
    REQUIRE(run.backend == Backend::Compute);
    requireTiledMatchesReference(image, options, "wider than GL_MAX_TEXTURE_SIZE");
}

TEST_CASE("two GL workers with a context each label like the reference", "[tiles][gl]") {
    limitsOrSkip(Backend::Compute);
    for (const Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        TiledOptions options = tilesWith(Backend::Compute, connectivity, Criterion::binary(), 11, 7);
        options.devices = {0, 0};
        requireTiledMatchesReference(randomImage(50, 40, 0.5, 2, 1, 77), options, "2 compute workers");
    }
}

TEST_CASE("auto runs where the engine's auto would", "[tiles][gl]") {
    const BackendLimits limits = limitsOrSkip(Backend::Auto);
    REQUIRE(limits.backend != Backend::Auto);
    requireTiledMatchesReference(randomImage(40, 30, 0.5, 2, 1, 78),
                                 tilesWith(Backend::Auto, Connectivity::Eight, Criterion::binary(), 9, 8), "auto");
}

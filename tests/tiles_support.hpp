#pragma once
// Shared by the tiles_* tests: tiled labeling compared with the CPU
// reference on the whole image, and a scratch folder.

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "glccl/compare.hpp"
#include "glccl/reference.hpp"
#include "glccl/session.hpp"
#include "glccl/tiled.hpp"
#include "skip.hpp"

namespace glccl::test {

inline std::string describeTiles(const Image& image, Connectivity connectivity, const Criterion& criterion,
                                 std::uint32_t tileWidth, std::uint32_t tileHeight) {
    return std::to_string(image.width) + "x" + std::to_string(image.height) + "x" + std::to_string(image.channels) +
           " connectivity " + std::to_string(int(connectivity)) + " " + criterion.toString() + " tiles " +
           std::to_string(tileWidth) + "x" + std::to_string(tileHeight);
}

// Options for the CPU backend with two host threads (CI has two cores).
inline TiledOptions cpuTiles(Connectivity connectivity, const Criterion& criterion, std::uint32_t tileWidth,
                             std::uint32_t tileHeight) {
    TiledOptions options;
    options.label.backend = Backend::Cpu;
    options.label.connectivity = connectivity;
    options.label.criterion = criterion;
    options.tileWidth = tileWidth;
    options.tileHeight = tileHeight;
    options.hostThreads = 2;
    return options;
}

// Labels `image` in tiles and requires the reference's labels and table,
// byte for byte.
inline void requireTiledMatchesReference(const Image& image, const TiledOptions& options, const std::string& name = "") {
    const Labeling expected = labelReference(image, options.label.connectivity, options.label.criterion);
    TiledResult run;
    const Labeling actual = labelTiled(image, options, &run);
    const Comparison comparison = compareLabelings(expected, actual);
    INFO(name << " " << describeTiles(image, options.label.connectivity, options.label.criterion, options.tileWidth,
                                      options.tileHeight)
              << " (" << run.plan.tilesX() << "x" << run.plan.tilesY() << " tiles, " << run.borderParts
              << " parts): " << comparison.describe());
    REQUIRE(comparison.identical());
    REQUIRE(run.count == expected.count());
}

// The Session the tiles tests route and ask about backends with.
inline Session& testSession() {
    static Session* shared = new Session;  // never destroyed: see gl_support.hpp
    return *shared;
}

// What one call of `backend` takes here for tiles (a volume's bricks where
// `dimensions` is 3), as a Session routes a streamed input of any size:
// throws glccl::Error where the backend cannot run here, with the reason.
inline BackendLimits limitsFor(Backend backend, int dimensions = 2,
                               Connectivity connectivity = Connectivity::TwentySix) {
    LabelOptions options;
    options.backend = backend;
    if (dimensions == 3) options.connectivity = connectivity;
    InputDescription input = InputDescription::host(dimensions == 3 ? Shape::volume(0, 0, 0) : Shape(), 1, 8);
    input.streamed = true;
    const Route route = testSession().route(input, options);
    return limitsOf(route, testSession().device(route.backend));
}

// limitsFor(), or a skip where `backend` does not run here, with its
// engine's own reason (Session::whyUnavailable, what `glccl backends`
// prints). Where it runs, every error of the router fails the test.
inline BackendLimits limitsOrSkip(Backend backend, int dimensions = 2,
                                  Connectivity connectivity = Connectivity::TwentySix) {
    const std::string whyNot = testSession().whyUnavailable(backend);
    if (!whyNot.empty()) skipTest(std::string("the ") + backendName(backend) + " backend cannot run here: " + whyNot);
    return limitsFor(backend, dimensions, connectivity);
}

// A fresh folder under the build's temporary directory.
inline std::string scratchFolder(const std::string& name) {
    const std::filesystem::path folder = std::filesystem::temp_directory_path() / ("glccl_tiles_test_" + name);
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder);
    return folder.string();
}

inline std::vector<char> fileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace glccl::test

// EGL device selection for the GL tile workers: the devices EGL lists (Mesa
// lists its software rasterizer as one, so CI has device 0), a context on a
// chosen device and where it says it runs, a clear error for an index EGL
// does not list, and tiled labeling with GL workers on listed devices against
// the reference. On a machine with several GPUs every device is labeled on.

#include <set>

#include "glccl/context.hpp"
#include "glccl/generate.hpp"
#include "skip.hpp"
#include "tiles_support.hpp"

using namespace glccl;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::vector<HeadlessDevice> devicesOrSkip() {
    std::string why;
    std::vector<HeadlessDevice> devices = headlessDevices(&why);
    if (devices.empty()) glccl::test::skipTest("EGL lists no devices here: " + why);
    return devices;
}

}  // namespace

TEST_CASE("EGL devices are listed in order, and a context opens on each", "[tiles][gl]") {
    const std::vector<HeadlessDevice> devices = devicesOrSkip();
    REQUIRE(headlessDeviceCount() == int(devices.size()));
    std::set<int> cudaDevices;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const HeadlessDevice& device = devices[i];
        INFO("EGL device " << i << ": " << device.name << ", CUDA device " << device.cudaDevice);
        REQUIRE(device.index == int(i));
        if (device.cudaDevice >= 0) REQUIRE(cudaDevices.insert(device.cudaDevice).second);
        HeadlessContext::Options options;
        options.device = int(i);
        HeadlessContext context(options);
        REQUIRE(context.info().eglDevice == int(i));
        REQUIRE(context.info().cudaDevice == device.cudaDevice);
        REQUIRE_THAT(context.platform(), StartsWith("EGL device " + std::to_string(i)));
        if (device.cudaDevice >= 0) REQUIRE_THAT(context.platform(), Contains("CUDA device " + std::to_string(device.cudaDevice)));
        REQUIRE(context.info().maxTextureSize > 0);
    }
    // The default context, as before: the first device that works.
    HeadlessContext automatic;
    REQUIRE(automatic.info().eglDevice == 0);
}

TEST_CASE("an EGL device index past the list is an error naming the devices", "[tiles][gl]") {
    const std::vector<HeadlessDevice> devices = devicesOrSkip();
    HeadlessContext::Options options;
    options.device = int(devices.size());
    const std::string count = std::to_string(devices.size());
    REQUIRE_THROWS_WITH(HeadlessContext(options),
                        StartsWith("glccl::HeadlessContext: EGL device " + count + " was asked for, but EGL lists " +
                                   count + (devices.size() == 1 ? " device: 0" : " devices: 0")));
    // Through the tile workers: the worker's device named first.
    TiledOptions tiles = glccl::test::cpuTiles(Connectivity::Eight, Criterion::binary(), 8, 8);
    tiles.label.backend = Backend::Compute;
    tiles.devices = {0, 1000};
    REQUIRE_THROWS_WITH(labelTiled(randomImage(20, 20, 0.5, 2, 1, 3), tiles),
                        StartsWith("glccl::labelTiled(): the GL worker of device 1000: glccl::HeadlessContext: EGL "
                                   "device 1000 was asked for"));
}

TEST_CASE("GL tile workers on listed EGL devices label like the reference", "[tiles][gl]") {
    const std::vector<HeadlessDevice> devices = devicesOrSkip();
    glccl::test::limitsOrSkip(Backend::Compute);
    // Two workers on device 0 (what CI has), then one worker on every device.
    // Entries are CUDA numbers where the EGL devices report them.
    const int first = devices[0].cudaDevice >= 0 ? devices[0].cudaDevice : 0;
    std::vector<int> every;
    for (const HeadlessDevice& device : devices) every.push_back(device.cudaDevice >= 0 ? device.cudaDevice : device.index);
    for (const std::vector<int>& list : {std::vector<int>{first, first}, every}) {
        for (const Backend backend : {Backend::Compute, Backend::Raster}) {
            TiledOptions options = glccl::test::cpuTiles(Connectivity::Eight, Criterion::binary(), 13, 11);
            options.label.backend = backend;
            options.devices = list;
            TiledResult run;
            const Image image = generateFamily("spiral", 67, 53, 1);
            const Labeling labels = labelTiled(image, options, &run);
            INFO(backendName(backend) << " on " << run.device);
            REQUIRE(run.workers == list.size());
            REQUIRE_THAT(run.device, Contains("EGL device"));
            REQUIRE(compareLabelings(labelReference(image, Connectivity::Eight, Criterion::binary()), labels).identical());
        }
    }
    REQUIRE(tileDeviceCount(Backend::Compute) >= 1);
    REQUIRE(tileDeviceCount(Backend::Cpu) == 0);
}

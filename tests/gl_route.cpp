// The router: auto's choice on described contexts, the engines' refusals in
// their words, and pieces past the largest extent (these need no context:
// they live here because the router is in the engine library, above the
// host tests); then images past GL_MAX_TEXTURE_SIZE labeled through
// Session::label by every GL backend, equal to the reference, and Sessions
// that make no GL context.

#include <catch2/catch.hpp>

#include <memory>
#include <random>

#include "gl.hpp"  // the engine's GL entry points, before any other GL header

#include "gl_support.hpp"
#include "glccl/compare.hpp"
#include "glccl/generate.hpp"
#include "glccl/reference.hpp"
#include "glccl/route.hpp"
#include "known_route.hpp"

using namespace glccl;
using glccl::test::offscreen;
using glccl::test::session;

namespace {

ContextInfo describedContext(const std::string& renderer, int major, int minor, int maxTextureSize) {
    ContextInfo context;
    context.renderer = renderer;
    context.major = major;
    context.minor = minor;
    context.version = std::to_string(major) + "." + std::to_string(minor) + " (test)";
    context.maxTextureSize = maxTextureSize;
    return context;
}

LabelOptions withBackend(Backend backend, Criterion criterion = Criterion::binary()) {
    LabelOptions options;
    options.backend = backend;
    options.criterion = criterion;
    return options;
}

const InputDescription kSmallGray = InputDescription::hostImage(640, 480, 1, 8);

InputDescription withRuns(InputDescription input, double runsPerElement) {
    input.runsPerElement = runsPerElement;
    return input;
}

}  // namespace

TEST_CASE("route: auto takes cpu on a software renderer, compute on OpenGL 4.3, raster on 3.3", "[route]") {
    const ContextInfo software = describedContext("llvmpipe (LLVM 15.0.6, 256 bits)", 4, 5, 16384);
    const ContextInfo gpu43 = describedContext("NVIDIA H200/PCIe/SSE2", 4, 6, 32768);
    const ContextInfo gpu33 = describedContext("NVIDIA H200/PCIe/SSE2", 3, 3, 32768);
    const LabelOptions autoBackend = withBackend(Backend::Auto);
    const bool cudaRuns = capabilitiesOf(Backend::Cuda, nullptr).whyNotHere.empty();
    // A texture of the context: the GL engines, or cpu on a software renderer.
    const InputDescription texture = InputDescription::texture(640, 480, GL_R8);
    CHECK(chooseRoute(texture, autoBackend, &software).backend == Backend::Cpu);
    CHECK(chooseRoute(texture, autoBackend, &gpu43).backend == Backend::Compute);
    CHECK(chooseRoute(texture, autoBackend, &gpu33).backend == Backend::Raster);
    CHECK(chooseRoute(InputDescription::texture(64, 64, GL_R16), autoBackend, &gpu43).backend == Backend::Compute);
    // A host image the GPU route is predicted to label faster (large, and
    // noise: many runs): cuda where it runs, else compute on a GPU's GL 4.3
    // context; the cpu engine on a software renderer and where neither runs.
    InputDescription large = InputDescription::hostImage(8192, 8192, 1, 8);
    large.runsPerElement = 0.25;
    REQUIRE_FALSE(cpuPredictedFaster(large, 0));
    CHECK(chooseRoute(large, autoBackend, &software).backend == (cudaRuns ? Backend::Cuda : Backend::Cpu));
    CHECK(chooseRoute(large, autoBackend, &gpu43).backend == (cudaRuns ? Backend::Cuda : Backend::Compute));
    CHECK(chooseRoute(large, autoBackend, &gpu33).backend == (cudaRuns ? Backend::Cuda : Backend::Cpu));
    // One the cpu engine is predicted to label faster (small, or sparse: few
    // runs), the cpu engine wherever it runs, at every thread count.
    for (const InputDescription& cpuFaster :
         {InputDescription::hostImage(64, 48, 1, 8), withRuns(InputDescription::hostImage(2048, 2048, 1, 8), 0.0005)}) {
        for (int threads : {0, 1, 2, 16}) {
            LabelOptions options = autoBackend;
            options.threads = threads;
            if (!cpuPredictedFaster(cpuFaster, threads)) continue;
            for (const ContextInfo* context : {&software, &gpu43, &gpu33})
                CHECK(chooseRoute(cpuFaster, options, context).backend == Backend::Cpu);
        }
    }
    // More threads never turn the prediction from the cpu engine to the GPU;
    // a noise image of 4096^2 goes to the GPU even with 16 threads.
    const InputDescription sparse = withRuns(InputDescription::hostImage(4096, 4096, 1, 8), 0.001);
    const InputDescription noisy = withRuns(InputDescription::hostImage(4096, 4096, 1, 8), 0.25);
    CHECK(cpuPredictedFaster(InputDescription::hostImage(64, 48, 1, 8), 1));
    CHECK_FALSE(cpuPredictedFaster(noisy, 16));
    CHECK((!cpuPredictedFaster(sparse, 1) || cpuPredictedFaster(sparse, 16)));
    for (const ContextInfo* context : {&software, &gpu43, &gpu33}) {
        for (const InputDescription& input : {texture, kSmallGray, large}) {
            const Route route = chooseRoute(input, autoBackend, context);
            CHECK_FALSE(route.pieces);
            CHECK(route.note.empty());
        }
    }
    // No context at all: the cpu engine on the host, with a note saying why
    // (where cuda does not run either).
    const Route contextless = chooseRoute(large, autoBackend, nullptr, "no headless GL context: no EGL");
    CHECK(contextless.backend == (cudaRuns ? Backend::Cuda : Backend::Cpu));
    if (!cudaRuns) CHECK(contextless.note == "no headless GL context: no EGL; auto runs the cpu backend");
    CHECK_THROWS_WITH(chooseRoute(kSmallGray, withBackend(Backend::Compute), nullptr, "no headless GL context: no EGL"),
                      "the compute backend cannot run here: no headless GL context: no EGL");
    // A named backend is taken as named where it runs.
    CHECK(chooseRoute(kSmallGray, withBackend(Backend::Raster), &gpu43).backend == Backend::Raster);
    CHECK(chooseRoute(kSmallGray, withBackend(Backend::Reference), &gpu43).backend == Backend::Reference);
    CHECK_THROWS_WITH(chooseRoute(kSmallGray, withBackend(Backend::Compute), &gpu33),
                      "the compute backend cannot run here: it needs OpenGL 4.3 (compute shaders), the context is "
                      "3.3 (test); the raster backend runs there");
}

TEST_CASE("route: cuda's capabilities take every sample width and criterion, and refuse the rest in their words",
          "[route]") {
    const EngineCapabilities cuda = capabilitiesOf(Backend::Cuda, nullptr);
    CHECK(cuda.sampleBits == std::vector<int>{8, 16, 32, 64});
    CHECK(cuda.colorSampleBits == std::vector<int>{8, 16, 32});
    CHECK(cuda.binaryLevel);
    CHECK(cuda.delta);
    CHECK(cuda.takes(Residence::CudaDevice));
    CHECK(cuda.takes(Residence::HostMemory));
    // The input's refusals come before availability: the same words where
    // CUDA runs and where it does not; taken input is refused only there.
    const LabelOptions options = withBackend(Backend::Cuda);
    const std::string notHere =
        cuda.whyNotHere.empty() ? "" : "the cuda backend cannot run here: " + cuda.whyNotHere;
    for (unsigned format : {GL_R8, GL_R16, GL_R32UI, GL_RG32UI, GL_R8UI})
        CHECK(whyRefused(cuda, InputDescription::texture(40, 30, format), options) == notHere);
    for (int bits : {8, 16, 32, 64})
        CHECK(whyRefused(cuda, InputDescription::hostImage(40, 30, 1, bits), options) == notHere);
    for (const Criterion& criterion : {Criterion::binaryAbove(3), Criterion::segments(), Criterion::thresholded(2),
                                       Criterion::withinDelta(4)})
        CHECK(whyRefused(cuda, kSmallGray, withBackend(Backend::Cuda, criterion)) == notHere);
    CHECK(whyRefused(cuda, InputDescription::texture(40, 30, GL_R32F), options) ==
          "the cuda backend reads GL_R8, GL_R8UI, GL_R16, GL_R32UI, GL_RG32UI, GL_RGBA8 and GL_RGBA16 textures; this "
          "texture is GL_R32F (32-bit float samples): use the compute or raster backend");
    CHECK(whyRefused(cuda, InputDescription::texture(40, 30, GL_RGBA16), options) ==
          "the cuda backend reads color textures for the threshold criterion only; 'binary' takes one-channel "
          "textures");
    const LabelOptions threshold = withBackend(Backend::Cuda, Criterion::thresholded(9));
    CHECK(whyRefused(cuda, InputDescription::texture(40, 30, GL_RGBA16), threshold) == notHere);
    CHECK(whyRefused(cuda, InputDescription::hostImage(40, 30, 4, 64), threshold) ==
          "the cuda backend labels color of 8-, 16- or 32-bit samples, not 64-bit");
    CHECK_THROWS_WITH(chooseRoute(InputDescription::hostImage(40, 30, 1, 12), options, nullptr),
                      "the cuda backend labels 8-, 16-, 32- or 64-bit samples, not 12-bit");
    // Samples an engine does not compare: skipped by auto, refused when named.
    CHECK(whyRefused(capabilitiesOf(Backend::Cpu, nullptr), InputDescription::hostImage(4, 4, 1, 12),
                     withBackend(Backend::Cpu)) == "the cpu backend labels 8-, 16-, 32- or 64-bit samples, not 12-bit");
    // Dimensions: the reference, cuda and compute take volumes (6, 18 and 26
    // beside 4 and 8; gl_volume_compute.cpp, cuda_volume.cpp); raster
    // declares 2-D, and connectivities 4 and 8 (a 3-D connectivity on a 2-D
    // image is the entries' refusal, in their words).
    InputDescription volume = kSmallGray;
    volume.shape = Shape::volume(8, 8, 8);
    const EngineCapabilities reference = capabilitiesOf(Backend::Cpu, nullptr);
    CHECK(reference.dimensions == std::vector<int>{2, 3});
    CHECK(whyRefused(reference, volume, withBackend(Backend::Cpu)).empty());
    for (Connectivity c : {Connectivity::Four, Connectivity::Eight, Connectivity::Six, Connectivity::Eighteen,
                           Connectivity::TwentySix})
        CHECK(reference.takes(c));
    CHECK(chooseRoute(volume, withBackend(Backend::Auto), nullptr).backend ==
          (cuda.whyNotHere.empty() ? Backend::Cuda : Backend::Cpu));
    CHECK(cuda.dimensions == std::vector<int>{2, 3});
    CHECK(whyRefused(cuda, volume, withBackend(Backend::Cuda)).find("does not label 3-D") == std::string::npos);
    for (Connectivity connectivity : {Connectivity::Eight, Connectivity::Six, Connectivity::Eighteen,
                                      Connectivity::TwentySix})
        CHECK(cuda.takes(connectivity));
    const EngineCapabilities compute = capabilitiesOf(Backend::Compute, nullptr);
    CHECK(compute.dimensions == std::vector<int>{2, 3});
    CHECK(compute.takes(Connectivity::Eight));
    CHECK(compute.takes(Connectivity::Six));
    for (Backend backend : concreteBackends()) {
        if (backend == Backend::Cpu || backend == Backend::Reference || backend == Backend::Cuda ||
            backend == Backend::Compute)
            continue;
        const EngineCapabilities engine = capabilitiesOf(backend, nullptr);
        CHECK(engine.dimensions == std::vector<int>{2});
        CHECK(whyRefused(engine, volume, withBackend(backend)) ==
              std::string("the ") + backendName(backend) + " backend does not label 3-D input");
        CHECK(engine.takes(Connectivity::Eight));
        CHECK_FALSE(engine.takes(Connectivity::Six));
    }
    // Device memory is cuda's alone.
    InputDescription onDevice;
    onDevice.residence = Residence::CudaDevice;
    CHECK(whyRefused(capabilitiesOf(Backend::Cpu, nullptr), onDevice, withBackend(Backend::Cpu)) ==
          "the cpu backend does not read CUDA device memory");
    if (cuda.whyNotHere.empty()) CHECK(chooseRoute(onDevice, withBackend(Backend::Auto), nullptr).backend == Backend::Cuda);
}

TEST_CASE("route: an extent past the backend's largest goes in pieces", "[route]") {
    const ContextInfo software = describedContext("llvmpipe (LLVM 15.0.6, 256 bits)", 4, 5, 16384);
    const ContextInfo gpu = describedContext("NVIDIA H200/PCIe/SSE2", 4, 6, 65536);
    CHECK(capabilitiesOf(Backend::Compute, &software).largestExtent == 16384);
    CHECK(capabilitiesOf(Backend::Raster, &gpu).largestExtent == 32768);  // 15 bits per coordinate in the IDs
    for (Backend backend : {Backend::Compute, Backend::Raster}) {
        INFO(backendName(backend));
        const LabelOptions options = withBackend(backend);
        CHECK_FALSE(chooseRoute(InputDescription::hostImage(16384, 16384, 1, 8), options, &software).pieces);
        CHECK(chooseRoute(InputDescription::hostImage(16385, 3, 1, 8), options, &software).pieces);
        CHECK(chooseRoute(InputDescription::hostImage(3, 16385, 1, 8), options, &software).pieces);
        CHECK(chooseRoute(InputDescription::hostImage(20000, 5, 1, 8), options, &software).pieces);
        CHECK_FALSE(chooseRoute(InputDescription::hostImage(20000, 5, 1, 8), options, &gpu).pieces);
        CHECK(chooseRoute(InputDescription::hostImage(40000, 5, 1, 8), options, &gpu).pieces);
    }
    // The reference takes any side in one call; auto on llvmpipe is the reference.
    CHECK_FALSE(chooseRoute(InputDescription::hostImage(40000, 5, 1, 8), withBackend(Backend::Cpu), &gpu).pieces);
    CHECK_FALSE(chooseRoute(InputDescription::hostImage(20000, 5, 1, 8), withBackend(Backend::Auto), &software).pieces);
    // Any size: nothing to decide.
    CHECK_FALSE(chooseRoute(InputDescription(), withBackend(Backend::Compute), &software).pieces);
}

TEST_CASE("route: images past GL_MAX_TEXTURE_SIZE through Session::label equal the reference",
          "[route][offscreen]") {
    Session& labeler = session();
    const ContextInfo& here = labeler.offscreen().context().info();
    const int largest = int(capabilitiesOf(Backend::Raster, &here).largestExtent);
    const int side = largest + 116;
    for (const auto& size : {std::pair<int, int>{side, 3}, std::pair<int, int>{3, side}}) {
        // Filled here: randomImage stops at 32768 on a side, and a GPU's
        // texture limit may be that.
        Image image(size.first, size.second);
        std::mt19937 rng(17);
        for (std::uint8_t& pixel : image.pixels) pixel = rng() % 5 < 3 ? 255 : 0;
        for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
            const Labeling expected = labelReference(image, connectivity, Criterion::binary());
            for (Backend backend : {Backend::Compute, Backend::Raster, Backend::Auto}) {
                if (!whyUnavailable(backend, here).empty()) continue;
                INFO(backendName(backend) << " " << size.first << "x" << size.second << " connectivity "
                                          << int(connectivity));
                LabelOptions options = withBackend(backend);
                options.connectivity = connectivity;
                const Route route = labeler.route(ImageView(image), options);
                // A GL engine's texture is too small: pieces; auto's engine
                // (the cpu engine here, or cuda) takes it in one call.
                CHECK(route.pieces == (backend != Backend::Auto));
                const Labeling actual = labeler.label(image, options);
                CHECK(compareLabelings(expected, actual).identical());
                CHECK(labeler.backend() == route.backend);
            }
        }
    }
}

TEST_CASE("route: a Session that makes no context labels with cpu and auto, and refuses the GL backends with its "
          "reason",
          "[route][offscreen]") {
    Session::Options options;
    options.noContext = "no GL in this test";
    Session labeler(options);
    const Image image = generateFamily("dense_disks", 301, 203, 5);
    // Auto: the cpu engine, or cuda (which needs no GL) where it runs and is
    // predicted faster.
    InputDescription described = InputDescription::host(image.shape(), image.channels, image.sampleBits);
    described.runsPerElement = sampleRunsPerElement(image, Criterion::binary());
    const bool cudaTakesIt =
        capabilitiesOf(Backend::Cuda, nullptr).whyNotHere.empty() && !cpuPredictedFaster(described, 0);
    for (Connectivity connectivity : {Connectivity::Four, Connectivity::Eight}) {
        const Labeling expected = labelReference(image, connectivity, Criterion::binary());
        for (Backend backend : {Backend::Auto, Backend::Cpu, Backend::Reference}) {
            LabelOptions labelOptions = withBackend(backend);
            labelOptions.connectivity = connectivity;
            INFO(backendName(backend) << " connectivity " << int(connectivity));
            CHECK(compareLabelings(expected, labeler.label(image, labelOptions)).identical());
            const Backend ran = backend == Backend::Reference ? Backend::Reference
                                : backend == Backend::Auto && cudaTakesIt ? Backend::Cuda
                                                                          : Backend::Cpu;
            CHECK(labeler.backend() == ran);
        }
    }
    for (Backend backend : {Backend::Compute, Backend::Raster})
        CHECK_THROWS_WITH(labeler.label(image, withBackend(backend)), Catch::Contains("no GL in this test"));
    CHECK_FALSE(labeler.hasContext());
}

TEST_CASE("route: a Session refuses what no route takes, measuring and threads past the most, on every backend",
          "[route][offscreen]") {
    Session::Options sessionOptions;
    sessionOptions.noContext = "no GL in this test";
    Session labeler(sessionOptions);
    const Image image = generateFamily("noise50", 64, 48, 3);
    for (Backend backend : {Backend::Auto, Backend::Cpu, Backend::Reference}) {
        INFO(backendName(backend));
        LabelOptions measuring = withBackend(backend);
        measuring.measure.properties = {"area"};
        CHECK_THROWS_WITH(labeler.label(image, measuring), Catch::Contains("LabelOptions::measure is measured by"));
        for (int threads : {-1, kMostThreads + 1}) {
            LabelOptions many = withBackend(backend);
            many.threads = threads;
            CHECK_THROWS_WITH(labeler.label(image, many), Catch::Contains("LabelOptions::threads is 0"));
        }
    }
}

TEST_CASE("route: a Session's measureTerms refuses an intensity or labels of another shape than its labeling's",
          "[route][offscreen]") {
    Session labeler;
    const Image image = generateFamily("noise50", 64, 48, 3);
    const std::vector<std::uint8_t> small(16, 1);
    IntensitySamples intensity;
    intensity.shape = Shape::image(4, 4);
    intensity.data = small.data();
    intensity.bytes = 1;
    const TermRequest request = termsFor({"intensity_mean"}, 2, 1);
    for (Backend backend : {Backend::Cpu, Backend::Compute, Backend::Raster}) {
        if (!labeler.whyUnavailable(backend).empty()) continue;
        INFO(backendName(backend));
        const Labeling labeling = labeler.label(image, withBackend(backend));
        const LabelSamples labels{labeling.shape(), labeling.labels.data(), 4, false};
        CHECK_THROWS_WITH(labeler.measureTerms(request, &intensity, labels, labeling.components),
                          Catch::Contains("the intensity image's shape differs"));
        const LabelSamples fewer{Shape::image(4, 4), labeling.labels.data(), 4, false};
        CHECK_THROWS_WITH(labeler.measureTerms(request, &intensity, fewer, labeling.components),
                          Catch::Contains("the labels' shape differs"));
    }
}

TEST_CASE("route: the cpu engine and the reference make no GL context, and auto makes none for a small image",
          "[route][offscreen]") {
    Session labeler;
    const Image image = generateFamily("noise50", 64, 48, 3);
    const Labeling expected = labelReference(image, Connectivity::Eight, Criterion::binary());
    for (Backend backend : {Backend::Cpu, Backend::Reference}) {
        CHECK(compareLabelings(expected, labeler.label(image, withBackend(backend))).identical());
        CHECK_FALSE(labeler.hasContext());
    }
    InputDescription described = InputDescription::host(image.shape(), image.channels, image.sampleBits);
    described.runsPerElement = sampleRunsPerElement(image, Criterion::binary());
    if (cpuPredictedFaster(described, 0)) {
        CHECK(compareLabelings(expected, labeler.label(image, withBackend(Backend::Auto))).identical());
        CHECK(labeler.backend() == Backend::Cpu);
        CHECK_FALSE(labeler.hasContext());
    }
}

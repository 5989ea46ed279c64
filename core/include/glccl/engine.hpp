#pragma once
// One engine, as the router's callers hand it an input where the input
// lives: host memory (every engine: the cpu engine, the reference and cuda
// read it in place, the GL engines upload it into a texture of a headless
// context of their own), or CUDA device memory (cuda). A GL texture of the
// caller's own context goes to glccl::Labeler instead, whose engines read
// textures. The router (glccl/route.hpp) has chosen the engine; an engine
// never routes again.
//
//   route = chooseRoute(...)                    // once per call (glccl::Session)
//   engine = makeEngine(route.backend, place)   // or the Session's, kept
//   engine->label(image, options, labels, table);
//
// Tiles and bricks (glccl/tiled.hpp) make one engine per worker and hand
// each piece to it the same way.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glccl/backend.hpp"
#include "glccl/context_info.hpp"
#include "glccl/device_volume.hpp"
#include "glccl/label_options.hpp"
#include "glccl/measure.hpp"
#include "glccl/types.hpp"

namespace glccl {

// Where an engine runs.
struct EnginePlace {
    // cuda: the CUDA device (-1: CUDA device 0). compute and raster: the EGL
    // device that reports that CUDA device (EGL_NV_device_cuda), else the
    // EGL device of that index (headlessDevices()); -1: the first EGL device
    // that gives a context, else Mesa's surfaceless platform.
    int device = -1;
    // The cpu engine's threads: 0 for the cores this process may run on.
    int threads = 0;
    // compute and raster: the headless context asked for (its device is
    // `device`'s).
    HeadlessContextOptions context;
};

class Engine {
public:
    virtual ~Engine() = default;

    virtual Backend backend() const = 0;
    // Where it labels, for summaries: "CPU (16 threads)", "<GL renderer>
    // (EGL device 0, CUDA device 0)", "NVIDIA H200 (CUDA device 1)".
    virtual std::string device() const = 0;

    // Labels an image or a volume in host memory that the router gave this
    // engine (its samples, criterion and size are taken: chooseRoute): one
    // label per element into `labels` (every element written; labels 1..n
    // in raster order of first element), the table into `table` (its
    // storage reused). `timings`, if given, receives the per-stage device
    // times where the engine has them (cleared where not). Throws
    // glccl::Error naming the step that failed.
    virtual void label(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                       std::vector<Component>& table, StageTimings* timings = nullptr) = 0;

    // CUDA device memory (the engines that declare Residence::CudaDevice:
    // cuda), on the engine's device: an image (depth 1 with connectivity 4
    // or 8), a batch of images (depth N with 4 or 8, each numbered on its
    // own) or a volume (6, 18, 26) into `labels` there, ordered after what
    // `stream` holds. With `withTable` (one image or a volume) the table is
    // computed with the labels and returned, waited for; without, nothing
    // is waited for (glccl::cuda::ImageLabeler::labelDeviceAsync), `counts`,
    // if not null, is device memory for one count per image, and it returns
    // nullptr. The others throw glccl::Error.
    virtual const std::vector<Component>* labelDevice(const DeviceVolume& input, const DeviceVolumeLabels& labels,
                                                      const LabelOptions& options, CUstream_st* stream,
                                                      std::uint32_t* counts, bool withTable, StageTimings* timings);
    // The table of image `image` of the last labelDevice() (0 for one image
    // or a volume), computed on the device and downloaded; waits for it.
    virtual const std::vector<Component>& deviceTable(int image);
    // The component counts of the last labelDevice(), one per image; waits.
    virtual const std::vector<std::uint32_t>& deviceCounts();

    // The region terms of `request` (glccl/region_properties.hpp) for the
    // labeling the last label() made, whose labels (1..n, host memory) and
    // table are `labels` and `table`: gathered on the device from the
    // engine's own labels where it can (compute and raster: Labeler::
    // measureTerms; cuda: ImageLabeler::measureTerms; an intensity of one
    // channel of unsigned integers), else by the cpu engine's threads on
    // `labels` (the default; floating-point, signed and several-channel
    // intensities too). The same totals either way.
    virtual RegionTotals measureTerms(const TermRequest& request, const IntensitySamples* intensity,
                                      const LabelSamples& labels, const std::vector<Component>& table, int threads);
};

// An engine of `backend` (not auto) at `place`: its resources are made on
// its first label() and kept for the next. compute and raster make their
// headless context now, current on the calling thread, and must be used
// and destroyed on that thread. Throws glccl::Error where the backend
// cannot run there, with the reason.
std::unique_ptr<Engine> makeEngine(Backend backend, const EnginePlace& place = {});

}  // namespace glccl

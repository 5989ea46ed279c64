// The cuda backend (cuda/) on host and CUDA device memory: what
// makeEngine() hands out. It computes the table with the labels. Its
// texture engine, on the Labeler's textures through CUDA-OpenGL interop, is
// the GL engine's (engine/src/backends/cuda/).

#include "engines/host_engines.hpp"
#include "glccl/error.hpp"
#ifdef GLCCL_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "glccl/cuda_labeler.hpp"
#include "parallel_copy.hpp"
#endif

namespace glccl::engines {

#ifdef GLCCL_HAVE_CUDA

namespace {

// Host and device memory on one CUDA device: the host route's page-locked
// upload, labeling and download (no texture, no interop, no GL pixel
// buffers), and the device route on the caller's stream.
class CudaEngine final : public Engine {
public:
    explicit CudaEngine(int device) : device_(device < 0 ? 0 : device) { selectDevice(); }

    Backend backend() const override { return Backend::Cuda; }
    std::string device() const override {
        selectDevice();
        return cuda::deviceName() + " (CUDA device " + std::to_string(device_) + ")" +
               (cuda::kernelsOptimized() ? "" : ", kernels unoptimized (GLCCL_CUDA_OPTIMIZE_KERNELS=OFF)");
    }

    void label(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
               std::vector<Component>& table, StageTimings* timings) override {
        selectDevice();
        StageTimings kernels;
        const std::vector<Component>& labeled = labeler_.label(image, options.connectivity, options.criterion, labels,
                                                               timings || options.timings ? &kernels : nullptr);
        copier_.copyTable(table, labeled);
        if (timings) *timings = kernels;
    }

    const std::vector<Component>* labelDevice(const DeviceVolume& input, const DeviceVolumeLabels& labels,
                                              const LabelOptions& options, CUstream_st* stream, std::uint32_t* counts,
                                              bool withTable, StageTimings* timings) override {
        selectDevice();
        if (withTable)
            return &labeler_.labelDevice(input, labels, options.connectivity, options.criterion, stream, timings);
        labeler_.labelDeviceAsync(input, labels, options.connectivity, options.criterion, stream, counts, timings);
        return nullptr;
    }
    const std::vector<Component>& deviceTable(int image) override {
        selectDevice();
        return labeler_.tableOf(image);
    }
    const std::vector<std::uint32_t>& deviceCounts() override {
        selectDevice();
        return labeler_.componentCounts();
    }

    // From the labels the last label() left on the device; an intensity of
    // one channel of integers uploaded.
    RegionTotals measureTerms(const TermRequest& request, const IntensitySamples* intensity, const LabelSamples& labels,
                              const std::vector<Component>& table, int threads) override {
        const bool intensityTerms = intensity && request.channels > 0;
        if (intensityTerms && (intensity->kind == SampleKind::Float || intensity->channels != 1))
            return Engine::measureTerms(request, intensity, labels, table, threads);
        selectDevice();
        return labeler_.measureTerms(request, intensityTerms ? intensity : nullptr);
    }

private:
    // The labeler works on the device that is current when it first
    // allocates; a caller may have made another current since.
    void selectDevice() const {
        const cudaError_t status = cudaSetDevice(device_);
        if (status != cudaSuccess)
            throw Error("cudaSetDevice(" + std::to_string(device_) + ") failed: " + cudaGetErrorString(status));
    }

    int device_ = 0;
    cuda::ImageLabeler labeler_;
    CopyThreads copier_;  // the table, by several threads where it is large
};

void requireCuda() {
    std::string why;
    if (!cuda::available(&why)) throw Error("the cuda backend cannot run here: " + why);
}

}  // namespace

std::unique_ptr<Engine> makeCudaEngine(const EnginePlace& place) {
    requireCuda();
    return std::make_unique<CudaEngine>(place.device);
}

#else

namespace {
const char* const kNotBuilt = "the cuda backend is not built into this glccl (no CUDA compiler was found at build time)";
}

std::unique_ptr<Engine> makeCudaEngine(const EnginePlace&) { throw Error(kNotBuilt); }

#endif

}  // namespace glccl::engines

// The cuda backend (cuda/), in both of glccl's doors: on the Labeler's
// textures through CUDA-OpenGL interop (CudaTextureEngine), and on host and
// CUDA device memory (CudaEngine, what makeEngine() hands out). Both
// compute the table with the labels.
//
// The texture engine keeps one glccl::cuda::TextureLabeler for its whole life: device
// buffers made by reserve(), and the CUDA registrations of the host's input
// texture and of the Labeler's label texture made on their first label() and
// kept (cuda_labeler.hpp, "Texture lifetime"). So after Labeler::reserve() and
// one frame per texture, a frame allocates nothing and registers nothing; the
// engine's destruction unregisters both textures and frees everything.

#include "backends/host_engines.hpp"
#include "backends/texture_engine.hpp"
#include "glccl/error.hpp"
#ifdef GLCCL_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "glccl/cuda_labeler.hpp"
#include "parallel_copy.hpp"
#endif

namespace glccl::backends {

#ifdef GLCCL_HAVE_CUDA

namespace {

class CudaTextureEngine final : public TextureEngine {
public:
    // The Labeler calls this before every label() too: it costs a comparison
    // when nothing changed. The threshold criterion may read GL_RGBA8, so it
    // reserves four channels; a GL_R8 input then fits as well.
    void reserve(int width, int height, const LabelOptions& options) override {
        const bool threshold = options.criterion.kind == Criterion::Kind::Threshold;
        labeler_.reserve(width, height, threshold ? 4 : 1);
    }

    std::uint32_t label(const gl::Texture& input, const gl::Texture& labels, const LabelOptions& options,
                        StageTimer& timer) override {
        // The Labeler routed the texture here: the router took its format
        // and criterion (capabilitiesOf(Backend::Cuda)).
        const GLenum format = input.internalFormat();
        StageTimings kernels;
        const std::vector<Component>& table =
            labeler_.label(input.id(), format, labels.id(), input.width(), input.height(), options.connectivity,
                           options.criterion, timer.enabled() ? &kernels : nullptr);
        for (const StageTime& kernel : kernels) timer.add(kernel.stage, kernel.milliseconds);
        return std::uint32_t(table.size());
    }

    // The labeler keeps the last table; a copy into the caller's storage,
    // by the copy threads where it is large (880 000 components at 16384^2
    // noise are 35 MB).
    void components(std::vector<Component>& out, StageTimer&) override { copier_.copyTable(out, labeler_.table()); }

    // From the labeler's device buffer through page-locked chunks.
    bool downloadLabels(std::uint32_t* out, std::size_t count) override {
        labeler_.downloadLabels(out, count);
        return true;
    }

    // Drops the registration of a texture the host is about to delete or
    // re-specify (Labeler::forget; see cuda_labeler.hpp).
    void forget(unsigned texture) override { labeler_.forget(texture); }

private:
    cuda::TextureLabeler labeler_;
    CopyThreads copier_;  // components()
};

// Host and device memory on one CUDA device: the host route's page-locked
// upload, labeling and download (no texture, no interop, no GL pixel
// buffers), and the device route on the caller's stream.
class CudaEngine final : public Engine {
public:
    explicit CudaEngine(int device) : device_(device < 0 ? 0 : device) { selectDevice(); }

    Backend backend() const override { return Backend::Cuda; }
    std::string device() const override {
        selectDevice();
        return cuda::deviceName() + " (CUDA device " + std::to_string(device_) + ")";
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

std::unique_ptr<TextureEngine> makeCudaTextureEngine(const ContextInfo&) {
    requireCuda();
    return std::make_unique<CudaTextureEngine>();
}

std::unique_ptr<Engine> makeCudaEngine(const EnginePlace& place) {
    requireCuda();
    return std::make_unique<CudaEngine>(place.device);
}

#else

namespace {
const char* const kNotBuilt = "the cuda backend is not built into this glccl (no CUDA compiler was found at build time)";
}

std::unique_ptr<TextureEngine> makeCudaTextureEngine(const ContextInfo&) { throw Error(kNotBuilt); }
std::unique_ptr<Engine> makeCudaEngine(const EnginePlace&) { throw Error(kNotBuilt); }

#endif

}  // namespace glccl::backends

// The cuda backend (cuda/) on the Labeler's textures, through CUDA-OpenGL
// interop; it computes the table with the labels. Its engine of host and
// CUDA device memory, what makeEngine() hands out, is the core's
// (core/src/engines/cuda_engine.cpp).
//
// The texture engine keeps one glccl::cuda::TextureLabeler for its whole life: device
// buffers made by reserve(), and the CUDA registrations of the host's input
// texture and of the Labeler's label texture made on their first label() and
// kept (cuda_labeler.hpp, "Texture lifetime"). So after Labeler::reserve() and
// one frame per texture, a frame allocates nothing and registers nothing; the
// engine's destruction unregisters both textures and frees everything.

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

void requireCuda() {
    std::string why;
    if (!cuda::available(&why)) throw Error("the cuda backend cannot run here: " + why);
}

}  // namespace

std::unique_ptr<TextureEngine> makeCudaTextureEngine(const ContextInfo&) {
    requireCuda();
    return std::make_unique<CudaTextureEngine>();
}

#else

namespace {
const char* const kNotBuilt = "the cuda backend is not built into this glccl (no CUDA compiler was found at build time)";
}

std::unique_ptr<TextureEngine> makeCudaTextureEngine(const ContextInfo&) { throw Error(kNotBuilt); }

#endif

}  // namespace glccl::backends

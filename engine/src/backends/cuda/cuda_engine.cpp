// The cuda backend: Stava & Benes' tiled union-find (cuda/) on the Labeler's
// textures through CUDA-OpenGL interop. It computes the table with the labels.

#include "backends/engine.hpp"
#include "glccl/error.hpp"
#ifdef GLCCL_HAVE_CUDA
#include "glccl/cuda_labeler.hpp"
#endif

namespace glccl::backends {

#ifdef GLCCL_HAVE_CUDA

namespace {

class CudaEngine final : public Engine {
public:
    void reserve(int, int, const LabelOptions&) override {}
    std::uint32_t label(const gl::Texture& input, const gl::Texture& labels, const LabelOptions& options,
                        StageTimer& timer) override {
        const bool threshold = options.criterion.kind == Criterion::Kind::Threshold;
        const GLenum format = input.internalFormat();
        if (format != GL_R8 && !(threshold && format == GL_RGBA8))
            throw Error("the cuda backend reads GL_R8 textures (and GL_RGBA8 for the threshold criterion)");
        StageTimings kernels;
        table_ = cuda::labelGlTexture(input.id(), labels.id(), input.width(), input.height(), format == GL_R8 ? 1 : 4,
                                      options.connectivity, options.criterion, timer.enabled() ? &kernels : nullptr);
        for (const StageTime& kernel : kernels) timer.add(kernel.stage, kernel.milliseconds);
        return std::uint32_t(table_.size());
    }
    std::vector<Component> components(StageTimer&) override { return table_; }

private:
    std::vector<Component> table_;
};

}  // namespace

std::unique_ptr<Engine> makeCudaEngine(const ContextInfo&) {
    std::string why;
    if (!cuda::available(&why)) throw Error("the cuda backend cannot run here: " + why);
    return std::make_unique<CudaEngine>();
}

#else

std::unique_ptr<Engine> makeCudaEngine(const ContextInfo&) {
    throw Error("the cuda backend is not built into this glccl (no CUDA compiler was found at build time)");
}

#endif

}  // namespace glccl::backends

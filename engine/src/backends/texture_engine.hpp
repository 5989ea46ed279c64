#pragma once
// What every engine inside glccl::Labeler provides: labeling a GL texture of
// the current context into the Labeler's label texture. The Labeler owns
// the output (the R32UI label texture, the table, the timings) and hands
// each call to the texture engine of the routed backend; the engines sit
// side by side in backends/<name>/ and share nothing but this interface.
// compute, raster and cuda (CUDA-GL interop) read the texture itself; the
// cpu engine and the reference read host memory, and reach a texture
// through a download (hostEngineOnTextures).

#include <cstdint>
#include <memory>
#include <vector>

#include "gl_objects.hpp"
#include "glccl/backend.hpp"
#include "glccl/engine.hpp"
#include "glccl/labeler.hpp"
#include "glccl/types.hpp"
#include "stage_timer.hpp"

namespace glccl::backends {

class TextureEngine {
public:
    virtual ~TextureEngine() = default;

    // Allocates what labeling width x height images with these options needs,
    // so that later calls of that size allocate nothing.
    virtual void reserve(int width, int height, const LabelOptions& options) = 0;

    // Labels `input` (a format the Labeler accepted) into `labels` (GL_R32UI,
    // the input's size, owned by the Labeler) and returns the component count.
    // Errors name the step that failed; the Labeler adds its prefix.
    virtual std::uint32_t label(const gl::Texture& input, const gl::Texture& labels, const LabelOptions& options,
                                StageTimer& timer) = 0;

    // The table of the last label() call (label i + 1 at index i), into
    // `out`, whose storage is reused: a frame of an unchanged component count
    // allocates nothing.
    virtual void components(std::vector<Component>& out, StageTimer& timer) = 0;

    // `texture` is about to be deleted or given new storage: drop whatever
    // refers to it (the cuda backend's CUDA registration).
    virtual void forget(unsigned /*texture*/) {}
    // Copies the last label() call's labels (width x height, row-major) to
    // host memory by the engine's own route and returns true, or returns
    // false when the Labeler should read the label texture through GL. The
    // cuda backend still holds them in its device buffer, and the host
    // engines in host memory, where a copy reaches the bus's (or memory's)
    // speed; glGetTexImage is several times slower.
    virtual bool downloadLabels(std::uint32_t* /*out*/, std::size_t /*count*/) { return false; }
    // The last label() call's component table where it stays on the GPU,
    // for passes that read it there (Labeler::regionBuffer()): the compute
    // engine's R32UI 2-D array (backends/compute/compute_constants.hpp,
    // TableField). A texture of 0: the table is the engine's on the host.
    struct GpuTable {
        unsigned texture = 0;
        bool volume = false;  // with the z fields
    };
    virtual GpuTable gpuTable() const { return {}; }
};

// One constructor per backend folder. Each needs the context that will label
// current, and throws glccl::Error when it cannot run there.
std::unique_ptr<TextureEngine> makeComputeEngine(const ContextInfo& context);
std::unique_ptr<TextureEngine> makeRasterEngine(const ContextInfo& context);
std::unique_ptr<TextureEngine> makeCudaTextureEngine(const ContextInfo& context);
// An engine of host memory (the cpu engine, the reference) on textures: the
// texture downloaded at its own samples, labeled on the host, the labels
// uploaded into the label texture.
std::unique_ptr<TextureEngine> hostEngineOnTextures(std::unique_ptr<Engine> engine);

}  // namespace glccl::backends

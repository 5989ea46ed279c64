#pragma once
// Labeling host images without a window: a headless EGL context, an upload,
// a Labeler (any backend), and the download of labels and table.

#include <memory>

#include "glccl/context.hpp"
#include "glccl/labeler.hpp"
#include "glccl/types.hpp"

namespace glccl {

class OffscreenLabeler {
public:
    // Creates a headless context (EGL device, else Mesa surfaceless).
    explicit OffscreenLabeler(const HeadlessContext::Options& options = {});
    ~OffscreenLabeler();

    // Labels a 1-channel image (any criterion) or a 4-channel image
    // (threshold only) with options.backend; backend() says which backend
    // auto resolved to. Timings, if given, receive the per-stage GPU
    // times (options.timings is implied). Throws glccl::Error starting with
    // "glccl::OffscreenLabeler::label(): " for a bad image, or the Labeler's
    // own error ("glccl::Labeler...") when labeling fails.
    Labeling label(const Image& image, const LabelOptions& options, StageTimings* timings = nullptr);
    // The same into `out`, reusing its label and table storage, and reusing
    // the input texture of the previous call when the image has its size,
    // channels and sampleBits: a batch of same-sized images (or a video) then
    // allocates nothing per image on the GPU or the host (the transfers'
    // pixel buffers are kept too). Costs one upload (ImageTexture::update),
    // the labeling, one download of the labels (4 bytes a pixel,
    // Labeler::downloadLabels) and of the table. With the cuda backend an
    // image of 8-bit samples takes CUDA's own route instead: upload and
    // download through two page-locked chunks, no texture (backend()).
    void label(const Image& image, const LabelOptions& options, Labeling& out, StageTimings* timings = nullptr);
    Labeling label(const Image& image, Connectivity connectivity, Criterion criterion, StageTimings* timings = nullptr);
    // The same from pixels the caller owns into labels the caller owns
    // (width x height uint32, row-major, fully overwritten) and the table
    // into `components` (its storage reused): the host copies nothing beyond
    // the transfers themselves. The Python module hands numpy arrays through
    // it.
    void label(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
               std::vector<Component>& components, StageTimings* timings = nullptr);

    // The backend the last label() ran (Backend::Auto before the first).
    // The cuda backend labels a host image of 8-bit samples through CUDA
    // alone, without the Labeler: after such a call the Labeler holds no
    // labels of it. Every other backend labels through labeler().
    Backend backend() const;

    // The Labeler in the headless context (make the context current first):
    // label textures of that context with it, e.g. an ImageTexture
    // (glccl/texture.hpp) uploaded once and labeled by several backends.
    Labeler& labeler();

    // Makes the headless context current on this thread, as label() does.
    void makeCurrent();
    const HeadlessContext& context() const;

private:
    // The cuda backend's route for host images; false where it does not
    // apply (then the texture route labels).
    bool labelWithCuda(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                       std::vector<Component>& components, StageTimings* timings);

    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace glccl

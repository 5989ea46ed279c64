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
    // (threshold only) with options.backend. Timings, if given, receive the
    // per-stage GPU times (options.timings is implied).
    Labeling label(const Image& image, const LabelOptions& options, StageTimings* timings = nullptr);
    Labeling label(const Image& image, Connectivity connectivity, Criterion criterion, StageTimings* timings = nullptr);

    // The Labeler in the headless context (make the context current first).
    Labeler& labeler();

    // The yardstick of the raster pipeline's cost: the GPU time (timer
    // query) of one full-screen fragment pass over a width x height R32F
    // target that reads one texel per fragment, the median of `reps` passes
    // after one untimed pass. Labeling times divided by it read as
    // "full-screen-pass equivalents" on any GPU.
    double fullscreenPassMilliseconds(int width, int height, int reps = 5);

    const HeadlessContext& context() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace glccl

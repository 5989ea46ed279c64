#pragma once
// Labeling host images without a window: a headless EGL context, an upload,
// the raster pipeline, and the download of labels and table.

#include <memory>

#include "glccl/context.hpp"
#include "glccl/types.hpp"

namespace glccl {

class OffscreenLabeler {
public:
    // Creates a headless context (EGL device, else Mesa surfaceless).
    explicit OffscreenLabeler(const HeadlessContext::Options& options = {});
    ~OffscreenLabeler();

    // Labels a 1-channel image (any criterion) or a 4-channel image
    // (threshold only). Timings, if given, receive per-stage GPU times.
    Labeling label(const Image& image, Connectivity connectivity, Criterion criterion, StageTimings* timings = nullptr);

    const HeadlessContext& context() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace glccl

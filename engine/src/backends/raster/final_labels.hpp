#pragma once
#include "raster_pass.hpp"

namespace glccl::raster {

// final_labels (final_labels.frag): every pixel takes its node's root's
// label (uint32, 1..N in raster order of first pixel; 0 for background).
class FinalLabelsPass {
public:
    static constexpr const char* kStage = "final_labels";
    // `labels` renders into the caller's label texture (the image's size).
    void run(const PassContext& context, const LabeledGrid& grid, const gl::Framebuffer& labels);
};

}  // namespace glccl::raster

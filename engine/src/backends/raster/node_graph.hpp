#pragma once
#include "raster_pass.hpp"

namespace glccl::raster {

// node_graph (node_graph.frag): the criterion, once per pixel. Per node, the
// neighbour nodes it connects to and its foreground pixels; the only stage
// that reads the input.
class NodeGraphPass {
public:
    static constexpr const char* kStage = "node_graph";
    NodeGraphPass();
    void run(const PassContext& context, const gl::Texture& input, const gl::RenderTarget& nodeGraph);

private:
    // Bound with the host's input texture: texture completeness follows the
    // bound sampler, so a host texture with one level and the default
    // mipmapped filter still reads (texelFetch itself ignores filtering).
    gl::Sampler nearestSampler_;
};

}  // namespace glccl::raster

#include "node_graph.hpp"

namespace glccl::raster {

namespace {
const ProgramSpec kNodeGraph{"node_graph", "fullscreen.vert", "node_graph.frag", {"fragBits"}, {}, {}, true};
}  // namespace

NodeGraphPass::NodeGraphPass() : nearestSampler_(gl::Sampler::create()) {
    glSamplerParameteri(nearestSampler_.id(), GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glSamplerParameteri(nearestSampler_.id(), GL_TEXTURE_MAG_FILTER, GL_NEAREST);
}

void NodeGraphPass::run(const PassContext& context, const gl::Texture& input, const gl::RenderTarget& nodeGraph) {
    auto scope = context.timer.scope(kStage);
    setRenderState({});
    context.programs.use(kNodeGraph);
    bindTexture(kInputSlot, input);
    glBindSampler(GLuint(kInputSlot.unit), nearestSampler_.id());
    beginPass(nodeGraph);
    drawFullscreen();
    glBindSampler(GLuint(kInputSlot.unit), 0);
    context.checkPass(kStage);
}

}  // namespace glccl::raster

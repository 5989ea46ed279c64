#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::compute {

namespace {
// final_labels reads the finished parents and count_roots' line offsets;
// an image's and a volume's on the node grid (DIMENSIONS) alike.
const ProgramSpec kFinalLabels{FinalLabelsPass::kStage, [](gl::ProgramBuilder& builder, int) {
                                   builder.define("PARENTS_READONLY").define("USES_LINE_OFFSETS");
                               }};
// Bundle nodes: each word's runs numbered through their roots, the table
// summed by bit operations on the word's lines (no samples read).
const ProgramSpec kFinalLabelsBundles{FinalLabelsPass::kStage,
                                      [](gl::ProgramBuilder& builder, int) { builder.define("PARENTS_READONLY"); },
                                      "final_labels_volume.comp", "volume_nodes.glsl"};
}  // namespace

// glsl/final_labels.comp (final_labels_volume.comp over bundle nodes):
// every pixel takes its component's number, and
// the component table is summed on the way (reduced per label patch first).
void FinalLabelsPass::run(const PassContext& context, const gl::Texture& labels, std::uint32_t count) {
    auto scope = context.timer.scope(kStage);
    ComputeResources& r = context.resources;
    const ProgramSpec& program = r.bundles ? kFinalLabelsBundles : kFinalLabels;
    r.tableDirty = count;
    if (r.volume) r.tableDirtyZ = count;
    context.programs.use(program, r);
    bindNodeData(r);
    bindImage(kLabelsImage, labels, GL_WRITE_ONLY, GL_R32UI);
    glBindImageTexture(kTableImage, r.table.id(), 0, GL_TRUE, 0, GL_READ_WRITE, GL_R32UI);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLineOffsetsBuffer, r.lineOffsets.id());
    dispatch(r.bundles ? bundleLabelPatches(r) : labelPatches(r));
    context.checkPass(kStage);
}

}  // namespace glccl::compute

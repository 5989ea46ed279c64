#include <algorithm>
#include <cstdint>

#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::compute {

namespace {
const ProgramSpec kCountRootsVolume{CountRootsPass::kStage, [](gl::ProgramBuilder&, int) {},
                                    "count_roots_volume.comp", "volume_nodes.glsl"};
const ProgramSpec kFlattenVolume{CountRootsPass::kStage, [](gl::ProgramBuilder&, int) {},
                                 "count_roots_flatten_volume.comp", "volume_nodes.glsl"};
// Work groups of the flatten, each thread a word at a time: enough to fill
// any GPU, within the 65535 every OpenGL 4.3 context allows along x.
constexpr int kFlattenGroups = 4096;
}  // namespace

// glsl/count_roots_volume.comp: the roots of a binary volume's bundle rows,
// ranked per line; scan_lines numbers the lines. The count is read back:
// label() returns it, and the table is sized by it.
std::uint32_t CountRootsPass::runBundles(const PassContext& context) {
    const ComputeResources& r = context.resources;
    {
        auto scope = context.timer.scope(kStage);
        // Every node's entry its root first (count_roots_flatten_volume.comp).
        context.programs.use(kFlattenVolume, r);
        bindNodeData(r);
        const std::uint64_t words = std::uint64_t(r.nodes.wordsX) * r.nodes.bundlesY * r.nodes.bundlesZ;
        dispatch(int(std::min<std::uint64_t>(kFlattenGroups, (words + kCountRootsThreads - 1) / kCountRootsThreads)),
                 1);
        // Threads per bundle row follow the volume's width.
        const int rowThreads = countRootsRowThreads(int(r.nodes.wordsX));
        context.programs.use(kCountRootsVolume, r).set("rowThreads", rowThreads);
        bindNodeData(r);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLineCountsBuffer, r.lineCounts.id());
        // kCountRootsThreads / rowThreads bundle rows of one slice per work group.
        const int rows = kCountRootsThreads / rowThreads;
        dispatch((int(r.nodes.bundlesY) + rows - 1) / rows, int(r.nodes.bundlesZ));
        scanLines(context);
        context.checkPass(kStage);
    }
    return readCount(r);
}

}  // namespace glccl::compute

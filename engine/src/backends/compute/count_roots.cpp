#include <algorithm>
#include <cstring>

#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::compute {

namespace {
// Its work group size follows the grid's width (countRootsThreads).
const ProgramSpec kCountRoots{CountRootsPass::kStage, [](gl::ProgramBuilder& builder, int lineThreads) {
                                  builder.define("LINE_THREADS", lineThreads).define("GROUP_SCAN_THREADS", lineThreads);
                              }};
// A volume's lines are numbered by scan_lines, not by a scan of its own.
const ProgramSpec kCountRootsVolumeGrid{CountRootsPass::kStage, [](gl::ProgramBuilder& builder, int lineThreads) {
                                            builder.define("LINE_THREADS", lineThreads);
                                        }};
void scanLinesDefines(gl::ProgramBuilder& builder, int) {
    builder.define("GROUP_SCAN_THREADS", kScanLinesThreads).define("SCAN_LINES_PER_THREAD", kScanLinesPerThread);
}
// Reads no samples, over whichever common file the volume's nodes take.
const ProgramSpec kScanLines{CountRootsPass::kStage, scanLinesDefines, "scan_lines.comp"};
const ProgramSpec kScanLinesBundles{CountRootsPass::kStage, scanLinesDefines, "scan_lines.comp", "volume_nodes.glsl"};
}  // namespace

// glsl/count_roots.comp, of an image or a volume (DIMENSIONS): one work
// group per node line ranks its roots; an image's last group to finish
// numbers the lines, a volume's are numbered by scan_lines. The count is read back:
// label() returns it, and the table is sized by it.
std::uint32_t CountRootsPass::run(const PassContext& context) {
    const ComputeResources& r = context.resources;
    // Bundle nodes are a word's runs, not one node per grid cell: their roots
    // are flattened first and ranked a bundle row at a time.
    if (r.bundles) return runBundles(context);
    {
        auto scope = context.timer.scope(kStage);
        context.programs.use(r.volume ? kCountRootsVolumeGrid : kCountRoots, r, countRootsThreads(r.gridWidth));
        bindNodeData(r);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLineCountsBuffer, r.lineCounts.id());
        if (r.volume) {
            // One work group per node line (y, z); then the lines numbered.
            dispatch(r.gridHeight, r.gridDepth);
            scanLines(context);
        } else {
            // The last work group numbers the lines.
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLineOffsetsBuffer, r.lineOffsets.id());
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kGroupsDoneBuffer, r.groupsDone.id());
            dispatch(r.gridHeight, 1);
        }
        context.checkPass(kStage);
    }
    return readCount(r);
}

// glsl/scan_lines.comp: the blocks' own scans, the blocks' offsets, then
// each block's offset added to its lines.
void CountRootsPass::scanLines(const PassContext& context) {
    const ComputeResources& r = context.resources;
    gl::Program& program = context.programs.use(r.bundles ? kScanLinesBundles : kScanLines, r);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLineCountsBuffer, r.lineCounts.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kLineOffsetsBuffer, r.lineOffsets.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kBlockSumsBuffer, r.blockSums.id());
    const int lines = r.lines();
    program.set("lineCount", unsigned(lines));
    const int blocks = (lines + kScanLinesBlock - 1) / kScanLinesBlock;
    const int groupsX = std::min(blocks, kScanGroupsX);
    const int groupsY = (blocks + groupsX - 1) / groupsX;
    for (int phase = 0; phase < 3; ++phase) {
        program.set("phase", phase);
        if (phase == 1) dispatch(1, 1);
        else dispatch(groupsX, groupsY);
    }
}

std::uint32_t CountRootsPass::readCount(const ComputeResources& r) {
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    std::uint32_t count = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, r.lineOffsets.id());
    if (gl::isEs()) {
        // OpenGL ES has no glGetBufferSubData.
        const void* total = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, GLintptr(r.lines()) * 4, 4, GL_MAP_READ_BIT);
        if (total != nullptr) std::memcpy(&count, total, 4);
        glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
    } else {
        glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, GLintptr(r.lines()) * 4, 4, &count);
    }
    return count;
}

}  // namespace glccl::compute

#include "scan_roots.hpp"

namespace glccl::raster {

namespace {
constexpr TextureSlot kCountsSlot{"counts", 1};
constexpr TextureSlot kScanIdsSlot{"ids", 2};
constexpr TextureSlot kParentOffsetsSlot{"parentOffsets", 3};
constexpr const char* kCountsAreMasks = "countsAreMasks";
constexpr const char* kAxis = "axis";
constexpr const char* kBlock = "block";
const ProgramSpec kScanMasks = [] {
    ProgramSpec spec{"scan_roots_masks", "fullscreen.vert", "scan_roots_masks.frag", {"fragCount"}, {kScanIdsSlot}};
    spec.gathersIds = true;
    return spec;
}();
const ProgramSpec kReduce{"scan_roots_reduce", "fullscreen.vert", "scan_roots_reduce.frag", {"fragCount"},
                          {kCountsSlot}};
const ProgramSpec kOffsets{"scan_roots_offsets", "fullscreen.vert", "scan_roots_offsets.frag", {"fragOffset"},
                           {kCountsSlot, kParentOffsetsSlot}};
}  // namespace

void ScanRootsPass::upSweep(const PassContext& context, const gl::RenderTarget& ids,
                            const std::vector<ScanLevel>& levels) {
    setRenderState({});
    // Level 0 reads the scan grid (NODE_H node grids wide) from the IDs.
    context.programs.use(kScanMasks).set("quadDepth", 0.0f);
    bindTexture(kScanIdsSlot, ids.texture);
    beginPass(levels[0].counts);
    drawFullscreen();
    // The levels above count the ones below.
    auto& reduce = context.programs.use(kReduce);
    for (std::size_t level = 1; level < levels.size(); ++level) {
        beginPass(levels[level].counts);
        reduce.set(kCountsAreMasks, level == 1 ? 1 : 0);
        reduce.set(kAxis, levels[level].axis);
        reduce.set(kBlock, levels[level].block);
        const gl::Texture& below = levels[level - 1].counts.texture;
        bindTexture(kCountsSlot, below);
        reduce.set("inputSize", below.width(), below.height());
        drawFullscreen();
    }
}

std::uint32_t ScanRootsPass::count(const PassContext& context, const gl::RenderTarget& ids,
                                   const std::vector<ScanLevel>& levels) {
    countUp(context, ids, levels);
    return readCount(context, levels);
}

void ScanRootsPass::countUp(const PassContext& context, const gl::RenderTarget& ids,
                            const std::vector<ScanLevel>& levels) {
    auto scope = context.timer.scope("count_roots");
    upSweep(context, ids, levels);
}

std::uint32_t ScanRootsPass::readCount(const PassContext& context, const std::vector<ScanLevel>& levels) {
    // No timer scope: the read draws nothing, and a stage's query that
    // times no GPU work reads as not measured.
    // The top is 1x1: a count, or level 0's mask where the scan grid fits
    // one block. Integer targets are read as RGBA_INTEGER, the format ES
    // guarantees for them.
    GLuint top[4] = {0, 0, 0, 0};
    gl::readTextureRect(levels.back().counts.texture, 0, 0, 1, 1, GL_RGBA_INTEGER, GL_UNSIGNED_INT, top);
    countWait();
    context.checkPass("count_roots");
    std::uint32_t roots = top[0];
    if (levels.size() == 1) {
        std::uint32_t ones = 0;
        for (; roots != 0; roots &= roots - 1) ++ones;
        roots = ones;
    }
    return roots;
}

void ScanRootsPass::run(const PassContext& context, const gl::RenderTarget& ids, const std::vector<ScanLevel>& levels,
                        const gl::RenderTarget& scanZero, bool upSwept) {
    auto scope = context.timer.scope(kStage);
    if (!upSwept) upSweep(context, ids, levels);
    setRenderState({});
    // Down-sweep: a level's parent is the level above; its offsets are
    // exclusive counts of everything before it in raster order.
    auto& offsets = context.programs.use(kOffsets);
    for (std::size_t level = levels.size() - 1; level >= 1; --level) {
        beginPass(levels[level - 1].offsets);
        bindTexture(kCountsSlot, levels[level - 1].counts.texture);
        bindTexture(kParentOffsetsSlot, level == levels.size() - 1 ? scanZero.texture : levels[level].offsets.texture);
        offsets.set(kCountsAreMasks, level == 1 ? 1 : 0);
        offsets.set(kAxis, levels[level].axis);
        offsets.set(kBlock, levels[level].block);
        drawFullscreen();
    }
    context.checkPass(kStage);
}

}  // namespace glccl::raster

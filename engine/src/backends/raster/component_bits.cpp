#include "component_bits.hpp"

#include <algorithm>

namespace glccl::raster {

namespace {
constexpr TextureSlot kLargeListSlot{"largeList", 1};
constexpr TextureSlot kLargeIndexSlot{"largeIndex", 3};
constexpr const char* kTableSize = "tableSize";
const ProgramSpec kMark{"component_bits_mark", "component_bits_mark.vert", "write_label.frag", {"fragLabel"},
                        {kLargeListSlot}};
const ProgramSpec kComponentBits{"component_bits", "component_bits.vert", "component_bits.frag", {"counters"},
                         {kIdsSlot, kRootLabelsSlot, kLargeIndexSlot}};
// The fold reads band t at unit t and totals t at unit kBitCounterTargets + t.
static_assert(kBitCounterTargets == 8, "the fold's slots below name 8 targets");
const ProgramSpec kFold{"component_bits_fold", "fullscreen.vert", "component_bits_fold.frag", {"newTotals"},
                        {{"bandCounts[0]", 0}, {"bandCounts[1]", 1}, {"bandCounts[2]", 2}, {"bandCounts[3]", 3},
                         {"bandCounts[4]", 4}, {"bandCounts[5]", 5}, {"bandCounts[6]", 6}, {"bandCounts[7]", 7},
                         {"totals[0]", 8}, {"totals[1]", 9}, {"totals[2]", 10}, {"totals[3]", 11},
                         {"totals[4]", 12}, {"totals[5]", 13}, {"totals[6]", 14}, {"totals[7]", 15}}};
}  // namespace

void ComponentBitsPass::run(const PassContext& context, const LabeledGrid& grid, const TableTargets& table,
                            LargeSumTargets& sums, const std::vector<std::uint32_t>& largeLabels, int bandPixels,
                            std::vector<std::uint64_t>& counters) {
    auto scope = context.timer.scope(kStage);
    const int count = int(largeLabels.size());
    const GLuint zeroU[4] = {0, 0, 0, 0};
    const float zeroF[4] = {0, 0, 0, 0};
    setRenderState({});

    // Which table entries are large, and where they go in the large table.
    list_.assign(std::size_t(sums.list.width()) * sums.list.height(), largeLabels.front());
    for (int i = 0; i < count; ++i)
        list_[std::size_t(i / sums.listWidth) * sums.list.width() + i % sums.listWidth] = largeLabels[i];
    sums.list.upload(list_.data(), GL_RED_INTEGER, GL_UNSIGNED_INT);
    beginPass(sums.index);
    glClearBufferuiv(GL_COLOR, 0, zeroU);
    auto& mark = context.programs.use(kMark);
    mark.set("listWidth", sums.listWidth);
    mark.set(kTableSize, table.width, table.height);
    bindTexture(kLargeListSlot, sums.list);
    drawPoints(count);

    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, sums.totalFramebuffers[0].id());
    for (int t = 0; t < kBitCounterTargets; ++t) glClearBufferuiv(GL_COLOR, t, zeroU);
    auto& bits = context.programs.use(kComponentBits, {bindRootLabels(grid)});
    bits.set(kTableSize, table.width, table.height);
    bits.set("largeSize", sums.listWidth, sums.listHeight);
    bits.set("spread", sums.spread);
    auto& fold = context.programs.use(kFold);
    fold.set("spread", sums.spread);
    fold.set("listHeight", sums.listHeight);

    // Bands of at most 2^24 pixels keep every float count exact.
    const RasterGrid& g = grid.grid;
    const int rowsPerBand = std::max(1, bandPixels / (g.width * g.shape.height));
    const int segmentsPerRow = ceilDiv(g.gridWidth, kSegment);
    int side = 0;
    for (int firstRow = 0; firstRow < g.gridHeight; firstRow += rowsPerBand) {
        const int rows = std::min(rowsPerBand, g.gridHeight - firstRow);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, sums.bandFramebuffer.id());
        setViewport(sums.listWidth, sums.listHeight * sums.spread);
        for (int t = 0; t < kBitCounterTargets; ++t) glClearBufferfv(GL_COLOR, t, zeroF);
        // The fold below rebinds every unit.
        bindTexture(kIdsSlot, grid.ids);
        bindRootLabels(grid);
        bindTexture(kLargeIndexSlot, sums.index.texture);
        bindTexture(kNodeGraphSlot, grid.nodeGraph);
        bits.use();
        bits.set("firstRow", firstRow);
        setRenderState({GL_FUNC_ADD});
        // The k-th large component of every segment, until no segment has
        // one: at most a rank per listed label. The first and the last rank
        // possible are drawn unchecked (a band without large components
        // leaves rank 1 empty too, whose check ends the loop), so a single
        // large component costs one draw and no wait.
        const int ranks = std::min(count, kSegment);
        const auto draw = [&] { drawPoints(std::int64_t(segmentsPerRow) * rows); };
        for (int rank = 0; rank < ranks; ++rank) {
            bits.set("largeRank", rank);
            if (rank == 0 || rank == ranks - 1) draw();
            else if (!anySamplesPassed(context, query_, draw)) break;
        }
        glDisable(GL_BLEND);

        // totals[1 - side] = totals[side] + band.
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, sums.totalFramebuffers[1 - side].id());
        setViewport(sums.listWidth, sums.listHeight);
        for (int t = 0; t < kBitCounterTargets; ++t) {
            bindTexture(kFold.textures[std::size_t(t)], sums.bandCounts[t]);
            bindTexture(kFold.textures[std::size_t(kBitCounterTargets + t)], sums.totals[side][t]);
        }
        fold.use();
        drawFullscreen();
        side = 1 - side;
    }

    // The totals of the listed labels.
    constexpr int kCounters = 4 * kBitCounterTargets;
    counters.assign(std::size_t(count) * kCounters, 0);
    texels_.resize(std::size_t(sums.listWidth) * sums.listHeight * 4);
    countWait();  // the first read waits; the others find the totals done
    for (int t = 0; t < kBitCounterTargets; ++t) {
        gl::readTextureRect(sums.totals[side][t], 0, 0, sums.listWidth, sums.listHeight, GL_RGBA_INTEGER,
                            GL_UNSIGNED_INT, texels_.data());
        for (int i = 0; i < count; ++i)
            for (int c = 0; c < 4; ++c) counters[std::size_t(i) * kCounters + 4 * t + c] = texels_[std::size_t(i) * 4 + c];
    }
    context.checkPass(kStage);
}

}  // namespace glccl::raster

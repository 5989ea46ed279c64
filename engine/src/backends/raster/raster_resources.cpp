#include "raster_resources.hpp"

#include <algorithm>

#include "gl_error.hpp"
#include "small_helpers.hpp"

namespace glccl::raster {

namespace {

// Texels per sum of the levels that reduce `count` texels to one: as few
// levels as kMaxScanSum allows, each summing about as many.
int scanSumBlock(int count) {
    int levels = 0;
    for (std::int64_t reach = 1; reach < count; reach *= kMaxScanSum) ++levels;
    if (levels == 0) return 2;
    int block = 2;
    const auto reaches = [&](int b) {
        std::int64_t reach = 1;
        for (int i = 0; i < levels; ++i) reach *= b;
        return reach >= count;
    };
    while (!reaches(block)) ++block;
    return block;
}

}  // namespace

int contextRunRows(int tileRows) {
    GLint maxDrawBuffers = 4;
    glGetIntegerv(GL_MAX_DRAW_BUFFERS, &maxDrawBuffers);
    return runRowsFor(tileRows, int(maxDrawBuffers));
}

RasterGrid RasterGrid::of(int width, int height, NodeSize shape, int runRows, int tileRows) {
    const int rows = tileRows > 0 ? tileRows : tileRowsFor(shape.height);
    const int contextRows = contextRunRows(rows);
    return {width,
            height,
            shape,
            ceilDiv(width, shape.width),
            ceilDiv(height, shape.height),
            rows,
            runRows > 0 ? std::min(runRows, contextRows) : contextRows};
}

int RasterGrid::slotSegmentWidth() const { return raster::slotSegmentWidth(shape.height); }
int RasterGrid::slotSegmentHeight() const { return kSegment / slotSegmentWidth(); }
int RasterGrid::slotSegmentsAcross() const { return ceilDiv(gridWidth, slotSegmentWidth()); }
int RasterGrid::slotSegmentsDown() const { return ceilDiv(gridHeight, slotSegmentHeight()); }

void RasterResources::reserve(const RasterGrid& next, const std::string& what) {
    if (next == grid) return;
    if (next.sameNodes(grid)) {
        // Only the tiles' shape changed (Tuning::rasterTileRows auto): their
        // targets alone.
        grid = {};
        reserveTiles(next, what);
        checkGlError(what);
        grid = next;
        return;
    }
    grid = {};
    table = {};
    const int gridWidth = next.gridWidth, gridHeight = next.gridHeight;
    nodeGraph = gl::RenderTarget::allocate(GL_R16UI, gridWidth, gridHeight, what);
    rootMarks = gl::allocateRenderbuffer(GL_DEPTH_COMPONENT24, gridWidth, gridHeight, what);
    ids = gl::RenderTarget::allocate(GL_R32F, gridWidth, gridHeight, what, rootMarks.id());
    idScratch = gl::RenderTarget::allocate(GL_R32F, gridWidth, gridHeight, what, rootMarks.id());
    nodeValues = gl::RenderTarget::allocate(GL_RG32F, gridWidth, gridHeight, what);
    const gl::Texture* withScratch[] = {&ids.texture, &idScratch.texture};
    idsAndScratch = gl::multipleTargetFramebuffer(withScratch, 2, what, rootMarks.id());
    const gl::Texture* withValues[] = {&ids.texture, &nodeValues.texture};
    idsAndValues = gl::multipleTargetFramebuffer(withValues, 2, what, rootMarks.id());
    const gl::Texture* scratchWithValues[] = {&idScratch.texture, &nodeValues.texture};
    scratchAndValues = gl::multipleTargetFramebuffer(scratchWithValues, 2, what);
    reserveTiles(next, what);
    rootLabels = gl::RenderTarget::allocate(GL_R32UI, next.scanWidth(), next.scanHeight(), what);
    segmentFirsts = gl::RenderTarget::allocate(GL_R32UI, next.slotSegmentsAcross(), next.slotSegmentsDown(), what);
    mostFirsts = gl::RenderTarget::allocate(GL_R32F, kMostSide, kMostSide, what);

    // The scan pyramid: rows reduced (level 0 to masks of kScanBlock texels)
    // until one column is left, then that column until one texel is left.
    scanLevels.clear();
    int w = next.scanWidth(), h = next.scanHeight();
    const auto addLevel = [&](int axis, int block) {
        (axis == 0 ? w : h) = ceilDiv(axis == 0 ? w : h, block);
        scanLevels.push_back({gl::RenderTarget::allocate(GL_R32UI, w, h, what),
                              gl::RenderTarget::allocate(GL_R32UI, w, h, what), axis, block});
    };
    addLevel(0, kScanBlock);
    for (int block = scanSumBlock(w); w > 1;) addLevel(0, block);
    for (int block = scanSumBlock(h); h > 1;) addLevel(1, block);
    scanZero = gl::RenderTarget::allocate(GL_R32UI, 1, 1, what);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, scanZero.framebuffer.id());
    const GLuint zero[4] = {0, 0, 0, 0};
    glClearBufferuiv(GL_COLOR, 0, zero);

    routing.stencil = gl::allocateRenderbuffer(GL_DEPTH24_STENCIL8, kRoutingSide, kRoutingSide, what);
    routing.routed = gl::RenderTarget::allocate(GL_R32F, kRoutingSide, kRoutingSide, what, routing.stencil.id(),
                                                GL_DEPTH_STENCIL_ATTACHMENT);
    routing.labels = gl::RenderTarget::allocate(GL_R32UI, kRoutingSide, kRoutingSide, what);
    checkGlError(what);
    grid = next;
}

void RasterResources::reserveTiles(const RasterGrid& next, const std::string& what) {
    tiles = {};  // no run targets of an earlier grid kept
    const int gridHeight = next.gridHeight, tilesAcross = ceilDiv(next.gridWidth, kTileWidth);
    tiles.links = gl::Texture::allocate(GL_RGBA32UI, tilesAcross, gridHeight, what);
    tiles.nodes = gl::Texture::allocate(GL_RG32UI, tilesAcross, gridHeight, what);
    const gl::Texture* masks[] = {&tiles.links, &tiles.nodes};
    tiles.masks = gl::multipleTargetFramebuffer(masks, 2, what);
    tiles.rows = next.tileRows;
    tiles.runRows = next.tileRunRows;
    if (const int leadTexels = tiles.leadTexels(); leadTexels > 0)
        tiles.lead =
            gl::RenderTarget::allocate(GL_RGBA32UI, tilesAcross, ceilDiv(gridHeight, tiles.rows) * leadTexels, what);
    const gl::Texture* runs[kMaxRunTargets];
    for (int i = 0; i < tiles.runOutputs(); ++i) {
        tiles.runs[i] = gl::Texture::allocate(GL_RGBA32UI, tilesAcross, ceilDiv(gridHeight, tiles.runRows), what);
        runs[i] = &tiles.runs[i];
    }
    tiles.runFramebuffer = gl::multipleTargetFramebuffer(runs, tiles.runOutputs(), what);
}

namespace {

// The table's targets (boxes, sums, roots, digits) at width x height: boxes,
// sums and roots in one framebuffer, boxes, sums and each count of digit
// targets in another.
void allocateTable(TableTargets& table, int width, int height, const std::string& what) {
    table = {};
    table.boxes = gl::RenderTarget::allocate(GL_RGBA32F, width, height, what);
    table.sums = gl::RenderTarget::allocate(GL_RGBA32F, width, height, what);
    table.roots = gl::RenderTarget::allocate(GL_R32F, width, height, what);
    const gl::Texture* targets[] = {&table.boxes.texture, &table.sums.texture, &table.roots.texture};
    table.framebuffer = gl::multipleTargetFramebuffer(targets, 3, what);
    const gl::Texture* digitTargets[2 + kMaxDigitTargets] = {&table.boxes.texture, &table.sums.texture};
    for (int t = 0; t < kMaxDigitTargets; ++t) {
        table.digits[t] = gl::RenderTarget::allocate(GL_RGBA32F, width, height, what);
        digitTargets[2 + t] = &table.digits[t].texture;
    }
    for (int n = 0; n <= kMaxDigitTargets; ++n)
        table.digitFramebuffers[n] = gl::multipleTargetFramebuffer(digitTargets, 2 + n, what);
    table.width = width;
    table.height = height;
}

}  // namespace

void RasterResources::reserveTable(std::uint32_t count) {
    // Entry k - 1 of label k sits at (k - 1) % width, (k - 1) / width: with the
    // image's width as the table's, any count up to width * height fits.
    const int width = grid.width;
    const int rows = std::max(1, ceilDiv(int(std::min<std::uint64_t>(count, std::uint64_t(width) * grid.height)), width));
    if (table.width == width && table.height >= rows) return;
    const std::string what = "glccl::RasterPipeline: component table for " + std::to_string(count) + " components";
    allocateTable(table, width, rows, what);
    table.words = gl::RenderTarget::allocate(GL_RGBA32UI, width, ceilDiv(3 * rows, 2), what);
}

void RasterResources::reserveTableCopies(int rows, int copies) {
    const int width = table.width, height = rows * copies;
    if (tableCopies.width == width && tableCopies.height >= height) return;
    // Grown, never shrunk: labeling frames after frames allocates nothing.
    const std::string what = "glccl::RasterPipeline: " + std::to_string(copies) + " copies of the component table";
    allocateTable(tableCopies, width, height, what);
}

void RasterResources::reserveLargeSums(int count, int spread) {
    LargeSumTargets& large = largeSums;
    const int listWidth = std::min(count, grid.width), listHeight = ceilDiv(count, listWidth);
    large.count = count;
    large.listWidth = listWidth;
    large.listHeight = listHeight;
    large.spread = std::clamp(std::min(spread, kBitsSpreadTexels / count), 1, kMaxBitsSpread);
    if (large.index.width() != table.width || large.index.height() != table.height)
        large.index = gl::RenderTarget::allocate(GL_R32UI, table.width, table.height, "glccl::RasterPipeline: large index");
    const int bandHeight = listHeight * large.spread;
    const bool listFits = listWidth <= large.list.width() && listHeight <= large.list.height();
    const bool bandFits = listWidth <= large.bandCounts[0].width() && bandHeight <= large.bandCounts[0].height();
    if (listFits && bandFits) return;
    // Grown, never shrunk: labeling frames after frames allocates nothing.
    const std::string what = "glccl::RasterPipeline: exact sums of large components";
    if (!listFits) {
        const int width = std::max(listWidth, large.list.width()), height = std::max(listHeight, large.list.height());
        large.list = gl::Texture::allocate(GL_R32UI, width, height, what);
        const gl::Texture* totalPointers[2][kBitCounterTargets];
        for (int t = 0; t < kBitCounterTargets; ++t)
            for (int side = 0; side < 2; ++side) {
                large.totals[side][t] = gl::Texture::allocate(GL_RGBA32UI, width, height, what);
                totalPointers[side][t] = &large.totals[side][t];
            }
        for (int side = 0; side < 2; ++side)
            large.totalFramebuffers[side] = gl::multipleTargetFramebuffer(totalPointers[side], kBitCounterTargets, what);
    }
    if (!bandFits) {
        const int width = std::max(listWidth, large.bandCounts[0].width());
        const int height = std::max(bandHeight, large.bandCounts[0].height());
        const gl::Texture* bandPointers[kBitCounterTargets];
        for (int t = 0; t < kBitCounterTargets; ++t) {
            large.bandCounts[t] = gl::Texture::allocate(GL_RGBA32F, width, height, what);
            bandPointers[t] = &large.bandCounts[t];
        }
        large.bandFramebuffer = gl::multipleTargetFramebuffer(bandPointers, kBitCounterTargets, what);
    }
}

const gl::Framebuffer& RasterResources::labelFramebuffer(const gl::Texture& labels) {
    // Attached again at every call, not only when the name changes: a
    // caller may delete its texture and make another that takes the same
    // name, and a deleted texture stays attached to a framebuffer that is
    // not bound (OpenGL deletes it only when that framebuffer lets it go),
    // so a framebuffer kept by name would draw into the deleted one.
    if (labelFramebuffer_.id() == 0) {
        const gl::Texture* targets[] = {&labels};
        labelFramebuffer_ = gl::multipleTargetFramebuffer(targets, 1, "glccl: raster label target");
        return labelFramebuffer_;
    }
    gl::attachColor(labelFramebuffer_, labels, "glccl: raster label target");
    return labelFramebuffer_;
}

}  // namespace glccl::raster

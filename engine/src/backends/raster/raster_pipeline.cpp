#include "raster_pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "gl_error.hpp"
#include "glccl/tuning.hpp"

namespace glccl {

using namespace raster;

namespace {
// ES's query of the point sizes it draws; desktop core headers omit it.
constexpr GLenum kAliasedPointSizeRange = 0x846D;
}  // namespace

RasterPipeline::RasterPipeline() : RasterPipeline(Options()) {}

RasterPipeline::RasterPipeline(const Options& options) : emptyVertexArray_(gl::VertexArray::create()) {
    setOptions(options);
    es_ = gl::isEs();
    if (es_) {
        GLfloat range[2] = {1, 1};
        glGetFloatv(kAliasedPointSizeRange, range);
        routing_ = range[1] >= float(kRoutingSide);
    }
}

void RasterPipeline::setOptions(const Options& options) {
    options_ = options;
    options_.blockWidth = std::max(0, options.blockWidth);
    options_.bandPixels = std::clamp(options.bandPixels, 1, kExactFloatSum);
    options_.borderRounds = std::clamp(options.borderRounds, 0, 64);
    options_.columnGroup = std::clamp(options.columnGroup, 1, kMaxColumnGroup);
    options_.scatterGroup = std::clamp(options.scatterGroup, 0, kMaxColumnGroup);
    options_.columnDraws = std::clamp(options.columnDraws, 1, 3);
    options_.resolveGroup = std::clamp(options.resolveGroup, 1, kMaxResolveGroup);
    options_.resolveAhead = std::clamp(options.resolveAhead, 1, kMaxResolveAhead);
    options_.tileRows =
        options.tileRows == tileRowsFor(1) || options.tileRows == kTallTileRows || options.tileRows == kHugeTileRows
            ? options.tileRows
            : 0;
    options_.runHops = options.runHops > 0 ? std::clamp(options.runHops, 2, kMaxHops) : 0;
    options_.bitsSpread = std::clamp(options.bitsSpread, 1, kMaxBitsSpread);
    options_.tableSpread = std::clamp(options.tableSpread, 0, kMaxTableSpread);
}

// Tiles of nodes one pixel row tall: 8 rows, kTallTileRows where the last
// labeling's components were fewer than its row segments, kHugeTileRows
// where they were fewer than its areas of kHugeTileNodes nodes. Taller
// tiles leave fewer border nodes to resolve_links' link draws (47 of 512
// nodes a tile at 16 rows rather than 39 of 256, 63 of 1024 at 32) and
// fewer rounds where components are large, and cost more fills where
// components are many: on noise at 4-connectivity, many small ones crossing
// a tile's rows; 32 rows pay for themselves only where a few components
// cover the image, whose tiles are mostly their lead's. A frame like the
// last one, or the same image again, takes the tiles that suit it; the
// first labeling of a pipeline takes 8.
int RasterPipeline::tileRows(NodeSize shape) const {
    if (shape.height != 1 || !options_.localTiles) return tileRowsFor(shape.height);
    if (options_.tileRows > 0) return options_.tileRows;
    if (lastNodes_ == 0) return tileRowsFor(1);
    if (std::int64_t(count_) * kHugeTileNodes < lastNodes_) return kHugeTileRows;
    return std::int64_t(count_) * kSegment < lastNodes_ ? kTallTileRows : tileRowsFor(1);
}

void RasterPipeline::reserve(int width, int height, NodeSize shape) {
    resources_.reserve(RasterGrid::of(width, height, shape, options_.tileRunRows, tileRows(shape)),
                       "glccl::RasterPipeline::reserve(" + std::to_string(width) +
                                                                   "x" + std::to_string(height) + ")");
}

// Blocks for column processing (O'Connell §9): about sqrt(grid width)
// columns each, so the sequential column steps and the number of blocks grow
// alike, and no more than kMaxBlocks blocks: merge_block_borders links a
// component's roots across the borders a block at a time, so the chains its
// compressions follow, and resolve_links' leftovers, grow with the blocks
// (a noisy grid 4096 wide: 64 blocks of 64 took longer than 32 of 128).
int RasterPipeline::blockWidth() const {
    if (options_.blockWidth > 0) return options_.blockWidth;
    const int width = resources_.grid.gridWidth;
    const int squareRoot = int(std::lround(std::sqrt(double(width))));
    return std::clamp(std::max(squareRoot, ceilDiv(width, kMaxBlocks)), 4, kMaxBlockWidth);
}

// Hops a pass of vertical_runs: kHops, or where two passes of kHops do
// not reach the grid's height and two of at most 2 kHops do, the fewest
// that do. A grid 4096 nodes high took three passes of 32 hops, which cost
// more than two of 64; one 8192 high, three of 32 or two of 91, which
// cost more on long runs (every hop a fetch) and less on short ones.
int RasterPipeline::runHops() const {
    if (options_.runHops > 0) return options_.runHops;
    const int height = resources_.grid.gridHeight;
    for (int hops = kHops; hops <= 2 * kHops; ++hops)
        if (VerticalRunsPass::passesFor(height, hops) <= 2) return hops;
    return kHops;
}

std::uint32_t RasterPipeline::label(const gl::Texture& input, const gl::Texture& labels, Connectivity connectivity,
                                    Criterion criterion, StageTimer& timer) {
    reserve(input.width(), input.height(), NodeSize::of(connectivity, criterion));
    RasterResources& r = resources_;
    lastNodes_ = std::int64_t(r.grid.gridWidth) * r.grid.gridHeight;  // reserve() has taken its tiles' rows
    programs_.select(connectivity, criterion, input.internalFormat(), r.grid);
    const PassContext context{programs_, timer, options_.checkEachPass, es_};
    const int columns = blockWidth();
    const int scatterGroup = options_.scatterGroup > 0 ? options_.scatterGroup : options_.columnGroup;
    const gl::Texture& nodeGraph = r.nodeGraph.texture;
    glBindVertexArray(emptyVertexArray_.id());

    nodeGraph_.run(context, input, r.nodeGraph);                             // nodes, their links and foreground pixels
    if (options_.localTiles) {
        // Every node -> its component's root within its tile.
        tileLabels_.run(context, nodeGraph, r.tiles, r.idsAndScratch);
    } else if (options_.columnDraws == 1) {
        // Every node -> the top of its vertical run; runs merged left to
        // right, all blocks at once.
        // The runs into idScratch and nodeValues (free until resolve_links),
        // column processing's odd and even columns.
        verticalRuns_.runInto(context, nodeGraph, r.scratchAndValues, r.ids, r.idScratch, runHops());
        columnProcessing_.runAccumulated(context, nodeGraph, columns, r.ids, r.idScratch, r.nodeValues,
                                         options_.columnGroup, scatterGroup);
        // Marked roots, then every node, to their roots.
        postColumnProcessing_.run(context, r.ids, r.idScratch, r.ids, &r.nodeValues);
    } else {
        verticalRuns_.run(context, nodeGraph, r.ids, r.idScratch, runHops());
        columnProcessing_.run(context, nodeGraph, columns, r.ids, r.idScratch, options_.columnDraws == 2,
                              options_.columnGroup, scatterGroup);
        postColumnProcessing_.run(context, r.ids, r.idScratch, r.ids);  // marked roots, then every node
    }
    // Roots linked across block borders, then until no connected neighbours differ: exact.
    if (!options_.localTiles)
        mergeBlockBorders_.run(context, nodeGraph, columns, r.ids, r.idScratch, options_.borderRounds);
    // With the scan's numbering, resolve_links' rounds issued ahead are
    // checked after the labels are queued: the host waits once, at the end.
    bool deferCheck = options_.scanAlways && options_.resolveAhead > 1;
    const ResolveLinksPass::Targets resolveTargets{r.idScratch, r.nodeValues, r.idsAndScratch, r.idsAndValues};
    const ResolveLinksPass::Settings resolveSettings{options_.resolveInFragments, options_.resolveGroup,
                                                     options_.localTiles ? r.tiles.rows : 0,
                                                     options_.resolveCheckInDraw,
                                                     options_.resolveAhead};
    resolveRounds_ = resolveLinks_.run(context, nodeGraph, r.ids, resolveTargets, resolveSettings, deferCheck);
    r.labelsInScratch = ResolveLinksPass::leavesLabelsInScratch(resolveSettings);
    if (options_.scanAlways) {
        // Nothing before the labels needs the count: it is read once they
        // are queued, so the GPU does not idle while the host waits for it.
        r.rootsByScan = true;
        for (;;) {
            scanRoots_.countUp(context, r.labels(), r.scanLevels);
            scanRoots_.run(context, r.labels(), r.scanLevels, r.scanZero, true);
            finalLabels_.run(context, r.labeled(), r.labelFramebuffer(labels));
            if (!deferCheck || resolveLinks_.settled(resolveRounds_)) break;
            // Links left past the batch: the rounds go on, then the
            // numbering and the labels again.
            resolveRounds_ += resolveLinks_.run(context, nodeGraph, r.ids, resolveTargets, resolveSettings);
            deferCheck = false;
        }
        count_ = scanRoots_.readCount(context, r.scanLevels);
        checkGlError("glccl::RasterPipeline::label()");
        return count_;
    } else if (!es_) {
        const std::uint32_t roots = countRoots_.run(context, r.labels(), r.notLabels());
        r.rootsByScan = roots > kMaxRoutedRoots;
        if (!r.rootsByScan) routeRoots_.run(context, r.labels(), roots, r.routing, r.rootLabels);
        else scanRoots_.run(context, r.labels(), r.scanLevels, r.scanZero);  // roots numbered 1..N in raster order
        count_ = roots;
    } else {
        const std::uint32_t roots = scanRoots_.count(context, r.labels(), r.scanLevels);
        r.rootsByScan = !(routing_ && roots <= kMaxRoutedRoots);
        if (!r.rootsByScan) routeRoots_.run(context, r.labels(), roots, r.routing, r.rootLabels);
        else scanRoots_.run(context, r.labels(), r.scanLevels, r.scanZero, true);
        count_ = roots;
    }
    finalLabels_.run(context, r.labeled(), r.labelFramebuffer(labels));     // every pixel takes its node's root's number

    checkGlError("glccl::RasterPipeline::label()");
    return count_;
}

void RasterPipeline::components(std::vector<Component>& out, StageTimer& timer) {
    if (count_ == 0) {
        out.clear();
        return;
    }
    RasterResources& r = resources_;
    r.reserveTable(count_);
    const PassContext context{programs_, timer, options_.checkEachPass, es_};
    glBindVertexArray(emptyVertexArray_.id());

    // Boxes, sums and roots scattered into the compact table.
    const ComponentTablePass::Points points = options_.tableBySlots  ? ComponentTablePass::Points::Slots
                                              : options_.tableByRuns ? ComponentTablePass::Points::Runs
                                                                     : ComponentTablePass::Points::Segments;
    // Copies of the table, where asked for, within kTableSpreadTexels and
    // a texture's height.
    const int tableRows = ceilDiv(int(count_), r.table.width);
    GLint maxRows = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &maxRows);
    // auto: spread where the last table had an entry that took a point from
    // many segments (a frame like the last one, the same image again), by
    // the nodes' shape: single pixels (the segments, threshold and delta
    // criteria) take one copy.
    const int shapeSpread = r.grid.shape.width != 2 ? 1 : r.grid.shape.height == 2 ? kAutoTableSpread
                                                                                   : kAutoTableSpreadRowNodes;
    const bool autoSpread = busiestSegments_ >= kAutoSpreadSegments && count_ <= kAutoSpreadEntries;
    const int spreadAsked = options_.tableSpread > 0 ? options_.tableSpread : autoSpread ? shapeSpread : 1;
    const int copies = std::clamp(std::min(kTableSpreadTexels / (tableRows * r.table.width), int(maxRows) / tableRows),
                                  1, spreadAsked);
    if (copies > 1) r.reserveTableCopies(tableRows, copies);
    tableCopies_ = copies;
    // Sums split into digits, exact in the one draw, where the image's
    // channels allow (else component_bits below): an entry takes a point per
    // segment (with Slots a block of nodes, else a row), with Runs one per
    // run, at most a run every other node.
    const RasterGrid& g = r.grid;
    const std::int64_t rowSegments = std::int64_t(ceilDiv(g.gridWidth, kSegment)) * g.gridHeight;
    const std::int64_t pointsPerEntry =
        points == ComponentTablePass::Points::Runs    ? rowSegments * ceilDiv(kSegment, 2)
        : points == ComponentTablePass::Points::Slots ? std::int64_t(g.slotSegmentsAcross()) * g.slotSegmentsDown()
                                                      : rowSegments;
    const SumDigits digits = options_.tableDigits ? sumDigitsFor(g.width, g.height, pointsPerEntry,
                                                                 kSegment * g.shape.width * g.shape.height,
                                                                 options_.digitBits)
                                                  : SumDigits{};
    const SumDigits* exact = digits.fits() ? &digits : nullptr;
    // A fragment per entry, where the components inside one segment are
    // likely many: each saves its point, every entry pays its search.
    const std::int64_t slotSegments = std::int64_t(g.slotSegmentsAcross()) * g.slotSegmentsDown();
    const bool localByFragments = options_.tableLocal == Options::Local::Fragments ||
                                  (options_.tableLocal == Options::Local::Auto && count_ >= slotSegments);
    // download_table's words pass, where it packs the table, folds the copies
    // itself (a pass fewer).
    const bool foldInDownload = options_.tableWords && exact != nullptr;
    const ComponentTablePass::Copies spread{r.tableCopies, tableRows, copies, foldInDownload};
    const DownloadTablePass::Copies unfolded{foldInDownload ? &r.tableCopies : nullptr, tableRows, copies};
    const auto drawAndDownload = [&] {
        componentTable_.run(context, r.labeled(), r.table, points, localByFragments, r.segmentFirsts, r.mostFirsts,
                            spread, exact);
        downloadTable_.run(context, r.table, count_, downloaded_, options_.tableInOneRead, exact, options_.tableWords,
                           unfolded);
    };
    drawAndDownload();
    // A segment held more roots than the last call's: drawn again with this
    // call's slots.
    if (!componentTable_.slotsSufficed()) drawAndDownload();
    decodeTable(downloaded_, r.grid.width, r.grid.height, out, sums_, exact);
    if (!sums_.largeLabels.empty()) {                     // exact sums where floats were not
        r.reserveLargeSums(int(sums_.largeLabels.size()), options_.bitsSpread);
        componentBits_.run(context, r.labeled(), r.table, r.largeSums, sums_.largeLabels, options_.bandPixels,
                           bitCounters_);
        applyBitCounters(bitCounters_, out, sums_);
    }
    addCentroids(out, sums_);
    // The segments of the largest component's box: at least the points its
    // entry took (a point per segment it has a node in).
    const int segmentWidth = (points == ComponentTablePass::Points::Slots ? g.slotSegmentWidth() : kSegment) *
                             g.shape.width,
              segmentHeight = (points == ComponentTablePass::Points::Slots ? g.slotSegmentHeight() : 1) * g.shape.height;
    busiestSegments_ = 0;
    for (const Component& c : out)
        busiestSegments_ = std::max(busiestSegments_, std::int64_t(ceilDiv(int(c.left + c.width), segmentWidth) -
                                                                   int(c.left) / segmentWidth) *
                                                          (ceilDiv(int(c.top + c.height), segmentHeight) -
                                                           int(c.top) / segmentHeight));
    checkGlError("glccl::RasterPipeline::components()");
}

RasterPipeline::Options RasterPipeline::tuned(Options base, const Tuning& tuning) {
    base.localTiles = tuning.rasterLocal == Tuning::RasterLocal::Tiles;
    base.blockWidth = tuning.rasterBlockWidth;
    base.resolveInFragments = tuning.rasterResolve == Tuning::RasterWork::Fragment;
    base.tableByRuns = tuning.rasterTable == Tuning::RasterTable::Runs;
    base.tableBySlots = tuning.rasterTable == Tuning::RasterTable::Slots;
    base.tableLocal = tuning.rasterTableLocal == Tuning::RasterTableLocal::Fragments ? Options::Local::Fragments
                      : tuning.rasterTableLocal == Tuning::RasterTableLocal::Points  ? Options::Local::Points
                                                                                     : Options::Local::Auto;
    base.scanAlways = tuning.rasterNumbering == Tuning::RasterNumbering::Scan;
    base.borderRounds = tuning.rasterBorderRounds;
    base.columnDraws = tuning.rasterColumnDraws;
    base.columnGroup = tuning.rasterColumnGroup;
    base.scatterGroup = tuning.rasterScatterGroup;
    base.resolveGroup = tuning.rasterResolveGroup;
    base.resolveCheckInDraw = tuning.rasterResolveCheck == Tuning::RasterCheck::Draw;
    base.resolveAhead = tuning.rasterResolveAhead;
    base.tableInOneRead = tuning.rasterTableReads == 1;
    base.runHops = tuning.rasterRunHops;
    base.tileRows = tuning.rasterTileRows;
    base.bitsSpread = tuning.rasterBitsSpread;
    base.tableSpread = tuning.rasterTableSpread;
    base.tableDigits = tuning.rasterTableSums == Tuning::RasterSums::Digits;
    base.tableWords = tuning.rasterTablePack == Tuning::RasterPack::Words;
    return base;
}

}  // namespace glccl

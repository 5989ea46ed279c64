#include "raster_pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "gl_error.hpp"
#include "glccl/error.hpp"
#include "program.hpp"

namespace glccl {

namespace {

// The paper's stencil routing numbers at most 255 roots (8-bit stencil).
constexpr std::uint32_t kMaxRoutedRoots = 255;
constexpr int kRoutingSide = 16;  // ceil(sqrt(255))
constexpr int kScanBlock = 32;    // scan_reduce.frag / scan_offsets.frag
constexpr int kSegment = 32;      // nodes per row segment of the table stages (common.glsl)
// R32F adds integers exactly below 2^24 (component_table.vert).
constexpr double kExactFloatSum = 16777216.0;
constexpr int kBitCounterTargets = 8;  // component_bits.frag
// Texture units: 0 the input (node_graph only), 1-3 each stage's own, 4 the
// node graph (every stage after node_graph), 0-15 fold_bits.
constexpr int kNodeGraphUnit = 4;

int ceilDiv(int a, int b) { return (a + b - 1) / b; }

// How shaders read each input format (common.glsl).
const char* inputFormatDefine(GLenum internalFormat) {
    switch (internalFormat) {
        case GL_R16: return "INPUT_UNORM16";
        case GL_R32F: return "INPUT_FLOAT";
        case GL_R8UI: return "INPUT_UINT";
        default: return "INPUT_UNORM8";
    }
}

}  // namespace

// Blocks whose foreground pixels always touch (common.glsl, "Nodes"): 2x2
// for binary 8-connectivity, 2x1 for binary 4-connectivity, else one pixel.
NodeShape NodeShape::of(Connectivity connectivity, const Criterion& criterion) {
    if (criterion.kind != Criterion::Kind::Binary) return {1, 1};
    return connectivity == Connectivity::Eight ? NodeShape{2, 2} : NodeShape{2, 1};
}

namespace {

std::string variantDefines(Connectivity connectivity, const Criterion& criterion, GLenum inputFormat) {
    std::string key = std::string(inputFormatDefine(inputFormat)) + (connectivity == Connectivity::Eight ? "8" : "4");
    switch (criterion.kind) {
        case Criterion::Kind::Binary: return key + "b";
        case Criterion::Kind::Segments: return key + "s";
        case Criterion::Kind::Threshold: return key + "t" + std::to_string(criterion.threshold);
    }
    return key;
}

}  // namespace

RasterPipeline::RasterPipeline() {
    const char* debug = std::getenv("GLCCL_DEBUG_GL");
    debug_ = debug && *debug && std::string(debug) != "0";
    // A tuning knob for benchmarks: columns per block of column processing.
    if (const char* columns = std::getenv("GLCCL_RASTER_BLOCK_WIDTH")) requestedBlockWidth_ = std::max(0, std::atoi(columns));
    emptyVertexArray_ = gl::VertexArray::create();
    nearestSampler_ = gl::Sampler::create();
    glSamplerParameteri(nearestSampler_.id(), GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glSamplerParameteri(nearestSampler_.id(), GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    GLint major = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    perDrawBufferBlend_ = major >= 4;
    anySamplesQuery_ = gl::Query::create();
    samplesQuery_ = gl::Query::create();
}

// ---------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------

void RasterPipeline::reserve(int width, int height, NodeShape shape) {
    if (width == width_ && height == height_ && shape == shape_) return;
    const std::string what = "glccl::RasterPipeline::reserve(" + std::to_string(width) + "x" + std::to_string(height) + ")";
    width_ = height_ = 0;
    tableWidth_ = tableHeight_ = 0;
    labelsFramebuffer_ = {};  // the caller's label texture changes with the size
    labelsTexture_ = 0;
    boxes_ = {};
    sums_ = {};
    roots_ = {};
    tableFramebuffer_ = {};
    const int gridWidth = ceilDiv(width, shape.width), gridHeight = ceilDiv(height, shape.height);
    // The scan grid numbers roots: one node grid per pixel row of a node
    // row (common.glsl, scanTexelOfId).
    const int scanWidth = gridWidth * shape.height, scanHeight = gridHeight;
    nodeGraph_ = gl::RenderTarget::allocate(GL_R16UI, gridWidth, gridHeight, what);
    depth_ = gl::allocateRenderbuffer(GL_DEPTH_COMPONENT24, gridWidth, gridHeight, what);
    for (auto& ids : ids_) ids = gl::RenderTarget::allocate(GL_R32F, gridWidth, gridHeight, what, depth_.id());
    rootLabels_ = gl::RenderTarget::allocate(GL_R32UI, scanWidth, scanHeight, what);

    // The scan pyramid: rows reduced by kScanBlock until one column is left,
    // then that column until one texel is left.
    scanLevels_.clear();
    int w = scanWidth, h = scanHeight;
    do {
        w = ceilDiv(w, kScanBlock);
        scanLevels_.push_back({gl::RenderTarget::allocate(GL_R32UI, w, h, what),
                               gl::RenderTarget::allocate(GL_R32UI, w, h, what), 0});
    } while (w > 1);
    while (h > 1) {
        h = ceilDiv(h, kScanBlock);
        scanLevels_.push_back({gl::RenderTarget::allocate(GL_R32UI, w, h, what),
                               gl::RenderTarget::allocate(GL_R32UI, w, h, what), 1});
    }
    scanZero_ = gl::RenderTarget::allocate(GL_R32UI, 1, 1, what);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, scanZero_.framebuffer.id());
    const GLuint zero[4] = {0, 0, 0, 0};
    glClearBufferuiv(GL_COLOR, 0, zero);

    routingStencil_ = gl::allocateRenderbuffer(GL_DEPTH24_STENCIL8, kRoutingSide, kRoutingSide, what);
    routed_ = gl::RenderTarget::allocate(GL_R32F, kRoutingSide, kRoutingSide, what, routingStencil_.id(),
                                         GL_DEPTH_STENCIL_ATTACHMENT);
    routedLabels_ = gl::RenderTarget::allocate(GL_R32UI, kRoutingSide, kRoutingSide, what);

    // Blocks for column processing (O'Connell §9): about sqrt(grid width)
    // columns each, so the sequential column steps and the number of blocks
    // grow alike.
    blockWidth_ = requestedBlockWidth_ > 0 ? requestedBlockWidth_
                                           : std::clamp(int(std::lround(std::sqrt(double(gridWidth)))), 4, 64);
    width_ = width;
    height_ = height;
    shape_ = shape;
    gridWidth_ = gridWidth;
    gridHeight_ = gridHeight;
    checkGlError(what);
}

void RasterPipeline::setBandPixels(int pixels) { bandPixels_ = std::clamp(pixels, 1, int(kExactFloatSum)); }

void RasterPipeline::allocateTable(std::uint32_t count) {
    // Entry k - 1 of label k sits at (k - 1) % width, (k - 1) / width: with the
    // image's width as the table's, any count up to width * height fits.
    const int rows = std::max(1, ceilDiv(int(std::min<std::uint64_t>(count, std::uint64_t(width_) * height_)), width_));
    if (tableWidth_ == width_ && tableHeight_ >= rows) return;
    const std::string what = "glccl::RasterPipeline: component table for " + std::to_string(count) + " components";
    boxes_ = gl::RenderTarget::allocate(GL_RGBA32F, width_, rows, what);
    sums_ = gl::RenderTarget::allocate(GL_RGBA32F, width_, rows, what);
    roots_ = gl::RenderTarget::allocate(GL_R32F, width_, rows, what);
    const gl::Texture* targets[] = {&boxes_.texture, &sums_.texture, &roots_.texture};
    tableFramebuffer_ = gl::multipleTargetFramebuffer(targets, 3, what);
    tableWidth_ = width_;
    tableHeight_ = rows;
}

gl::Program& RasterPipeline::program(const std::string& stage, const std::string& vertexFile,
                                     const std::string& fragmentFile, const std::vector<std::string>& outputs) {
    const std::string key = stage + "/" + variantDefines(connectivity_, criterion_, inputFormat_);
    auto found = programs_.find(key);
    if (found != programs_.end()) return found->second;
    gl::ProgramBuilder builder(stage);
    builder.define("CONNECTIVITY", connectivity_ == Connectivity::Eight ? 8 : 4);
    builder.define(inputFormatDefine(inputFormat_));
    builder.define("BLOCK_W", shape_.width);
    builder.define("BLOCK_H", shape_.height);
    switch (criterion_.kind) {
        case Criterion::Kind::Binary: builder.define("CRITERION_BINARY"); break;
        case Criterion::Kind::Segments: builder.define("CRITERION_SEGMENTS"); break;
        case Criterion::Kind::Threshold:
            builder.define("CRITERION_THRESHOLD");
            builder.define("THRESHOLD", criterion_.threshold);
            break;
    }
    builder.vertex(vertexFile).fragment(fragmentFile);
    for (const auto& output : outputs) builder.output(output);
    return programs_.emplace(key, builder.build()).first->second;
}

void RasterPipeline::bindTexture(int unit, const gl::Texture& texture) {
    glActiveTexture(GLenum(GL_TEXTURE0 + unit));
    glBindTexture(GL_TEXTURE_2D, texture.id());
}

void RasterPipeline::beginPass(const gl::RenderTarget& target) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target.framebuffer.id());
    glViewport(0, 0, target.width(), target.height());
}

void RasterPipeline::setCommonUniforms(gl::Program& program) {
    program.use();
    program.set("imageSize", width_, height_);
    program.set("gridSize", gridWidth_, gridHeight_);
    program.set("scanSize", rootLabels_.width(), rootLabels_.height());
    program.set("inputImage", 0);
    program.set("nodeGraph", kNodeGraphUnit);
}

void RasterPipeline::drawFullscreen() { glDrawArrays(GL_TRIANGLES, 0, 3); }

void RasterPipeline::drawPoints(std::int64_t count) {
    if (count > 0) glDrawArrays(GL_POINTS, 0, GLsizei(count));
}

void RasterPipeline::checkPass(const char* stage) {
    if (debug_) {
        glFinish();
        checkGlError(std::string("glccl: raster stage ") + stage);
    }
}

bool RasterPipeline::anySamplesPassed(const std::function<void()>& draw) {
    glBeginQuery(GL_ANY_SAMPLES_PASSED, anySamplesQuery_.id());
    draw();
    glEndQuery(GL_ANY_SAMPLES_PASSED);
    GLuint any = 0;
    glGetQueryObjectuiv(anySamplesQuery_.id(), GL_QUERY_RESULT, &any);
    return any != 0;
}

// ---------------------------------------------------------------------------
// The pipeline
// ---------------------------------------------------------------------------

std::uint32_t RasterPipeline::label(const gl::Texture& input, const gl::Texture& labels, Connectivity connectivity,
                                    Criterion criterion, StageTimer& timer) {
    reserve(input.width(), input.height(), NodeShape::of(connectivity, criterion));
    if (labels.id() != labelsTexture_) {
        const gl::Texture* targets[] = {&labels};
        labelsFramebuffer_ = gl::multipleTargetFramebuffer(targets, 1, "glccl: raster label target");
        labelsTexture_ = labels.id();
    }
    input_ = &input;
    timer_ = &timer;
    connectivity_ = connectivity;
    criterion_ = criterion;
    inputFormat_ = input.internalFormat();
    glBindVertexArray(emptyVertexArray_.id());
    bindTexture(0, input);
    glBindSampler(0, nearestSampler_.id());

    nodeGraph();               // nodes, their links and foreground pixels
    bindTexture(kNodeGraphUnit, nodeGraph_.texture);
    verticalRuns();            // every node -> the top of its vertical run
    columnProcessing();        // runs merged left to right, all blocks at once
    postColumnProcessing();    // marked roots, then every node, to their roots
    mergeBlockBorders();       // roots linked across block borders
    resolveLinks();            // until no connected neighbours differ: exact
    const std::uint32_t roots = countRoots();
    if (roots <= kMaxRoutedRoots) routeRootLabels(roots);
    else scanRootLabels();     // roots numbered 1..N in raster order
    finalLabels();             // every pixel takes its node's root's number

    glBindSampler(0, 0);
    count_ = roots;
    input_ = nullptr;  // the table stages read labels only; the host may change its texture now
    checkGlError("glccl::RasterPipeline::label()");
    return roots;
}

// The only stage that reads the input: the criterion, once per pixel.
void RasterPipeline::nodeGraph() {
    auto scope = timer_->scope("node_graph");
    auto& graph = program("node_graph", "fullscreen.vert", "node_graph.frag", {"fragBits"});
    setCommonUniforms(graph);
    graph.set("quadDepth", 0.0f);
    beginPass(nodeGraph_);
    drawFullscreen();
    checkPass("node_graph");
}

void RasterPipeline::verticalRuns() {
    auto scope = timer_->scope("vertical_runs");
    auto& runs = program("vertical_runs", "fullscreen.vert", "vertical_runs.frag");
    setCommonUniforms(runs);
    runs.set("quadDepth", 0.0f);
    runs.set("ids", 1);
    // Each pass multiplies the distance covered by kHops (vertical_runs.frag).
    constexpr int kHops = 16;
    int passes = 1;
    for (std::int64_t reach = kHops; reach < gridHeight_ - 1; reach *= kHops) ++passes;
    int target = 0;
    for (int pass = 0; pass < passes; ++pass) {
        beginPass(ids_[target]);
        bindTexture(1, ids_[1 - target].texture);
        runs.set("passIndex", pass);
        drawFullscreen();
        target = 1 - target;
    }
    current_ = 1 - target;
    copyIds(current_, 1 - current_);
    checkPass("vertical_runs");
}

void RasterPipeline::copyIds(int from, int to) {
    glBindFramebuffer(GL_READ_FRAMEBUFFER, ids_[from].framebuffer.id());
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, ids_[to].framebuffer.id());
    glBlitFramebuffer(0, 0, gridWidth_, gridHeight_, 0, 0, gridWidth_, gridHeight_, GL_COLOR_BUFFER_BIT, GL_NEAREST);
}

// O'Connell §5 and §9. Per column of every block: gather neighbour (reads the
// columns texture B, blends into the roots texture A), update column (reads A,
// writes the column into B), scatter back (reads B, blends into A and marks
// the changed roots in the depth buffer). Fig. 5.7's two-texture ping-pong.
void RasterPipeline::columnProcessing() {
    auto scope = timer_->scope("column_processing");
    const int roots = current_, columns = 1 - current_;
    const int blocks = ceilDiv(gridWidth_, blockWidth_);
    auto& gather = program("gather_neighbor", "gather_neighbor.vert", "write_scatter.frag");
    auto& update = program("update_column", "column_quad.vert", "update_column.frag");
    auto& scatter = program("scatter_back", "scatter_back.vert", "write_scatter.frag");
    for (auto* p : {&gather, &update, &scatter}) {
        setCommonUniforms(*p);
        p->set("blockWidth", blockWidth_);
    }
    gather.set("columns", 1);
    update.set("roots", 1);
    scatter.set("columns", 1);

    beginPass(ids_[roots]);
    glClearDepth(0.0);
    glDepthMask(GL_TRUE);  // glClear obeys the depth mask
    glClear(GL_DEPTH_BUFFER_BIT);
    glDepthMask(GL_FALSE);
    glBlendEquation(GL_MAX);
    glDepthFunc(GL_ALWAYS);
    for (int column = 1; column < blockWidth_; ++column) {
        beginPass(ids_[roots]);
        bindTexture(1, ids_[columns].texture);
        glEnable(GL_BLEND);
        gather.use();
        gather.set("columnInBlock", column);
        drawPoints(std::int64_t(blocks) * gridHeight_);

        beginPass(ids_[columns]);
        bindTexture(1, ids_[roots].texture);
        glDisable(GL_BLEND);
        update.use();
        update.set("columnInBlock", column);
        glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, blocks);

        beginPass(ids_[roots]);
        bindTexture(1, ids_[columns].texture);
        glEnable(GL_BLEND);
        glEnable(GL_DEPTH_TEST);
        glDepthMask(GL_TRUE);
        scatter.use();
        scatter.set("columnInBlock", column);
        drawPoints(std::int64_t(blocks) * gridHeight_);
        glDepthMask(GL_FALSE);
        glDisable(GL_DEPTH_TEST);
    }
    glDisable(GL_BLEND);
    checkPass("column_processing");
}

void RasterPipeline::followRoots(int from, int to, bool markedOnly) {
    auto& follow = program("update_roots", "fullscreen.vert", "update_roots.frag");
    setCommonUniforms(follow);
    follow.set("ids", 1);
    beginPass(ids_[to]);
    bindTexture(1, ids_[from].texture);
    if (markedOnly) {
        // Only the roots scatter-back marked (depth 1.0) pass GL_EQUAL.
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_EQUAL);
        follow.set("quadDepth", 1.0f);
        drawFullscreen();
        glDisable(GL_DEPTH_TEST);
    } else {
        follow.set("quadDepth", 0.0f);
        drawFullscreen();
    }
}

// O'Connell §6: the marked roots (in A) are updated into B, which holds every
// other pixel's column-processed value; then every pixel of B is followed to
// its root, back into A.
void RasterPipeline::postColumnProcessing() {
    const int roots = current_, columns = 1 - current_;
    {
        auto scope = timer_->scope("update_roots");
        followRoots(roots, columns, true);
    }
    {
        auto scope = timer_->scope("update_children");
        followRoots(columns, roots, false);
    }
    checkPass("post_column_processing");
}

// Copies the labels into `linked` and blends link_roots' points into it
// (GL_MAX): roots move to larger connected labels. Returns whether any point
// was drawn, i.e. whether anything was linked.
bool RasterPipeline::linkRoots(gl::Program& link, int labels, int linked, std::int64_t vertices) {
    copyIds(labels, linked);
    beginPass(ids_[linked]);
    bindTexture(1, ids_[labels].texture);
    link.use();
    glEnable(GL_BLEND);
    glBlendEquation(GL_MAX);
    const bool linkedAny = anySamplesPassed([&] { drawPoints(vertices); });
    glDisable(GL_BLEND);
    return linkedAny;
}

// O'Connell §9 merges the borders of the vertical blocks by scattering across
// them; here each border pixel links its root to a larger connected label.
void RasterPipeline::mergeBlockBorders() {
    const int blocks = ceilDiv(gridWidth_, blockWidth_);
    if (blocks < 2) return;
    auto scope = timer_->scope("merge_block_borders");
    const int labels = current_, linked = 1 - current_;
    auto& link = program("link_roots", "link_roots.vert", "write_scatter.frag");
    setCommonUniforms(link);
    link.set("ids", 1);
    link.set("borderStride", blockWidth_);
    // A root takes only the largest label offered, so a component spanning
    // several blocks may need a few rounds; each is cheap (border pixels
    // only) next to a round of resolve_links over the whole image. An
    // occlusion query over the links tells when a round linked nothing.
    for (int round = 0; round < 64; ++round) {
        if (!linkRoots(link, labels, linked, std::int64_t(blocks - 1) * 2 * gridHeight_)) break;
        followRoots(linked, labels, false);
    }
    checkPass("merge_block_borders");
}

// The paper's column processing can lose a link when a scatter-back
// overwrites a root (its Fig. 5.8: N + M components for N). Until an
// occlusion query finds no connected neighbours with different labels, link
// roots across every connection and compress again. Each round removes at
// least one root, so it ends; usually after a round or two.
void RasterPipeline::resolveLinks() {
    auto scope = timer_->scope("resolve_links");
    auto& count = program("count_links", "fullscreen.vert", "count_links.frag", {});
    auto& link = program("link_roots", "link_roots.vert", "write_scatter.frag");
    setCommonUniforms(link);
    link.set("ids", 1);
    link.set("borderStride", 0);
    setCommonUniforms(count);
    count.set("ids", 1);
    count.set("quadDepth", 0.0f);
    resolveRounds_ = 0;
    const int labels = current_, linked = 1 - current_;
    for (;;) {
        beginPass(ids_[linked]);
        bindTexture(1, ids_[labels].texture);
        count.use();
        glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        const bool unresolved = anySamplesPassed([&] { drawFullscreen(); });
        glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        if (!unresolved) break;
        ++resolveRounds_;
        linkRoots(link, labels, linked, std::int64_t(gridWidth_) * gridHeight_);
        followRoots(linked, labels, false);
    }
    checkPass("resolve_links");
}

// O'Connell §8, Fig. 8.1.
std::uint32_t RasterPipeline::countRoots() {
    auto scope = timer_->scope("count_roots");
    auto& count = program("count_roots", "fullscreen.vert", "count_roots.frag", {});
    setCommonUniforms(count);
    count.set("ids", 1);
    count.set("quadDepth", 0.0f);
    beginPass(ids_[1 - current_]);
    bindTexture(1, ids_[current_].texture);
    glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    glBeginQuery(GL_SAMPLES_PASSED, samplesQuery_.id());
    drawFullscreen();
    glEndQuery(GL_SAMPLES_PASSED);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    GLuint64 roots = 0;
    glGetQueryObjectui64v(samplesQuery_.id(), GL_QUERY_RESULT, &roots);
    checkPass("count_roots");
    return std::uint32_t(roots);
}

// Up to 255 roots: O'Connell's stencil routing (§8) gathers them into a small
// block, rank_roots numbers them in raster order, and each label goes back
// to its root's pixel.
void RasterPipeline::routeRootLabels(std::uint32_t roots) {
    if (roots == 0) return;
    auto scope = timer_->scope("route_roots");
    const int side = int(std::ceil(std::sqrt(double(roots))));

    // Stencil 1..M over the block, one texel at a time.
    beginPass(routed_);
    const float zero[4] = {0, 0, 0, 0};
    glClearBufferfv(GL_COLOR, 0, zero);
    glEnable(GL_SCISSOR_TEST);
    for (std::uint32_t i = 0; i < roots; ++i) {
        glScissor(int(i) % side, int(i) / side, 1, 1);
        glClearStencil(GLint(i + 1));
        glClear(GL_STENCIL_BUFFER_BIT);
    }
    glDisable(GL_SCISSOR_TEST);

    auto& route = program("route_roots", "route_roots.vert", "write_scatter.frag");
    setCommonUniforms(route);
    route.set("ids", 1);
    bindTexture(1, ids_[current_].texture);
    glViewport(0, 0, side, side);
    glEnable(GL_STENCIL_TEST);
    glStencilFunc(GL_EQUAL, 1, 0xFF);
    glStencilOp(GL_DECR, GL_DECR, GL_DECR);
    glPointSize(float(side));
    drawPoints(std::int64_t(gridWidth_) * gridHeight_);
    glPointSize(1.0f);
    glDisable(GL_STENCIL_TEST);

    auto& rank = program("rank_roots", "fullscreen.vert", "rank_roots.frag", {"fragLabel"});
    setCommonUniforms(rank);
    rank.set("quadDepth", 0.0f);
    rank.set("routed", 1);
    rank.set("side", side);
    rank.set("routedCount", int(roots));
    beginPass(routedLabels_);
    glViewport(0, 0, side, side);
    bindTexture(1, routed_.texture);
    drawFullscreen();

    auto& scatter = program("scatter_root_labels", "scatter_root_labels.vert", "write_label.frag", {"fragLabel"});
    setCommonUniforms(scatter);
    scatter.set("routed", 1);
    scatter.set("routedLabels", 2);
    scatter.set("side", side);
    beginPass(rootLabels_);
    bindTexture(1, routed_.texture);
    bindTexture(2, routedLabels_.texture);
    drawPoints(roots);
    checkPass("route_roots");
}

// Any number of roots: a prefix count of root flags in raster order, as a
// pyramid of render passes (rows of 32 texels, then the column of row
// totals); level 0 keeps masks of roots rather than counts.
void RasterPipeline::scanRootLabels() {
    auto scope = timer_->scope("scan_root_labels");
    auto& reduce = program("scan_reduce", "fullscreen.vert", "scan_reduce.frag", {"fragCount"});
    auto& offsets = program("scan_offsets", "fullscreen.vert", "scan_offsets.frag", {"fragOffset"});
    for (auto* p : {&reduce, &offsets}) {
        setCommonUniforms(*p);
        p->set("quadDepth", 0.0f);
        p->set("counts", 1);
    }
    reduce.set("ids", 2);
    offsets.set("parentOffsets", 3);
    bindTexture(2, ids_[current_].texture);

    // Up-sweep.
    reduce.use();
    for (std::size_t level = 0; level < scanLevels_.size(); ++level) {
        const bool fromRoots = level == 0;
        const gl::Texture& below = fromRoots ? ids_[current_].texture : scanLevels_[level - 1].counts.texture;
        beginPass(scanLevels_[level].counts);
        if (!fromRoots) bindTexture(1, below);
        reduce.set("fromRoots", fromRoots ? 1 : 0);
        reduce.set("countsAreMasks", level == 1 ? 1 : 0);
        reduce.set("axis", scanLevels_[level].axis);
        // Level 0 reads the scan grid (BLOCK_H node grids wide) from the IDs.
        if (fromRoots) reduce.set("inputSize", rootLabels_.width(), rootLabels_.height());
        else reduce.set("inputSize", below.width(), below.height());
        drawFullscreen();
    }
    // Down-sweep: a level's parent is the level above; its offsets are
    // exclusive counts of everything before it in raster order.
    offsets.use();
    const gl::Texture* parent = &scanZero_.texture;
    for (std::size_t level = scanLevels_.size() - 1; level >= 1; --level) {
        beginPass(scanLevels_[level - 1].offsets);
        bindTexture(1, scanLevels_[level - 1].counts.texture);
        bindTexture(3, level == scanLevels_.size() - 1 ? scanZero_.texture : scanLevels_[level].offsets.texture);
        offsets.set("fromRoots", 0);
        offsets.set("countsAreMasks", level == 1 ? 1 : 0);
        offsets.set("axis", scanLevels_[level].axis);
        drawFullscreen();
        parent = &scanLevels_[level - 1].offsets.texture;
    }
    // The last level, over the scan grid: each root's label from level 0's
    // masks and offsets.
    beginPass(rootLabels_);
    bindTexture(1, scanLevels_[0].counts.texture);
    bindTexture(3, scanLevels_.size() == 1 ? scanZero_.texture : *parent);
    offsets.set("fromRoots", 1);
    drawFullscreen();
    checkPass("scan_root_labels");
}

void RasterPipeline::finalLabels() {
    auto scope = timer_->scope("final_labels");
    auto& finalize = program("final_labels", "fullscreen.vert", "final_labels.frag", {"fragLabel"});
    setCommonUniforms(finalize);
    finalize.set("quadDepth", 0.0f);
    finalize.set("ids", 1);
    finalize.set("rootLabels", 2);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, labelsFramebuffer_.id());
    glViewport(0, 0, width_, height_);
    bindTexture(1, ids_[current_].texture);
    bindTexture(2, rootLabels_.texture);
    drawFullscreen();
    checkPass("final_labels");
}

// ---------------------------------------------------------------------------
// The component table
// ---------------------------------------------------------------------------

// O'Connell §7 with the compact table as target: label k's entry is k - 1.
// Boxes keep maxima (GL_MAX), sums add (GL_FUNC_ADD): one draw where
// blending can differ per draw buffer (OpenGL 4.0), two masked draws of the
// same program in a 3.3 context.
void RasterPipeline::componentTable() {
    auto scope = timer_->scope("component_table");
    auto& table = program("component_table", "component_table.vert", "component_table.frag", {"box", "sums", "root"});
    setCommonUniforms(table);
    table.set("ids", 1);
    table.set("rootLabels", 2);
    table.set("tableSize", tableWidth_, tableHeight_);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, tableFramebuffer_.id());
    glViewport(0, 0, tableWidth_, tableHeight_);
    const float zero[4] = {0, 0, 0, 0};
    for (int target = 0; target < 3; ++target) glClearBufferfv(GL_COLOR, target, zero);
    bindTexture(1, ids_[current_].texture);
    bindTexture(2, rootLabels_.texture);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE);
    if (perDrawBufferBlend_) {
        glBlendEquationi(0, GL_MAX);
        glBlendEquationi(1, GL_FUNC_ADD);
        glBlendEquationi(2, GL_MAX);
        drawPoints(std::int64_t(gridWidth_) * gridHeight_);
    } else {
        glBlendEquation(GL_MAX);
        glColorMaski(1, GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        drawPoints(std::int64_t(gridWidth_) * gridHeight_);
        glBlendEquation(GL_FUNC_ADD);
        glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        glColorMaski(1, GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        drawPoints(std::int64_t(gridWidth_) * gridHeight_);
    }
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glBlendEquation(GL_FUNC_ADD);
    glDisable(GL_BLEND);
    checkPass("component_table");
}

void RasterPipeline::allocateLargeSums(int listWidth, int listHeight) {
    if (largeIndex_.width() != tableWidth_ || largeIndex_.height() != tableHeight_)
        largeIndex_ = gl::RenderTarget::allocate(GL_R32UI, tableWidth_, tableHeight_, "glccl::RasterPipeline: large index");
    if (listWidth <= largeList_.width() && listHeight <= largeList_.height()) return;
    // Grown, never shrunk: labeling frames after frames allocates nothing.
    const int width = std::max(listWidth, largeList_.width()), height = std::max(listHeight, largeList_.height());
    const std::string what = "glccl::RasterPipeline: exact sums of large components";
    largeList_ = gl::Texture::allocate(GL_R32UI, width, height, what);
    const gl::Texture* bandPointers[kBitCounterTargets];
    const gl::Texture* totalPointers[2][kBitCounterTargets];
    for (int t = 0; t < kBitCounterTargets; ++t) {
        bandCounts_[t] = gl::Texture::allocate(GL_RGBA32F, width, height, what);
        bandPointers[t] = &bandCounts_[t];
        for (int side = 0; side < 2; ++side) {
            totals_[side][t] = gl::Texture::allocate(GL_RGBA32UI, width, height, what);
            totalPointers[side][t] = &totals_[side][t];
        }
    }
    bandFramebuffer_ = gl::multipleTargetFramebuffer(bandPointers, kBitCounterTargets, what);
    for (int side = 0; side < 2; ++side)
        totalFramebuffers_[side] = gl::multipleTargetFramebuffer(totalPointers[side], kBitCounterTargets, what);
}

// Exact counters for the listed labels, band by band (component_bits.vert):
// 32 counters per label, in `counters` (label i of the list at 32 * i).
void RasterPipeline::componentBits(const std::vector<std::uint32_t>& largeLabels, std::vector<std::uint64_t>& counters) {
    // The large table: entry i of the list at (i % listWidth, i / listWidth).
    const int count = int(largeLabels.size());
    const int listWidth = std::min(count, width_);
    const int listHeight = ceilDiv(count, listWidth);
    const int side = countLargeBits(largeLabels, listWidth, listHeight);
    auto scope = timer_->scope("download_bits");
    counters.assign(std::size_t(count) * 4 * kBitCounterTargets, 0);
    std::vector<std::uint32_t> texels(std::size_t(listWidth) * listHeight * 4);
    for (int t = 0; t < kBitCounterTargets; ++t) {
        gl::readTextureRect(totals_[side][t], 0, 0, listWidth, listHeight, GL_RGBA_INTEGER, GL_UNSIGNED_INT, texels.data());
        for (int i = 0; i < count; ++i)
            for (int c = 0; c < 4; ++c) counters[std::size_t(i) * 32 + 4 * t + c] = texels[std::size_t(i) * 4 + c];
    }
}

// The band-by-band counting of componentBits; returns which of totals_
// holds the result.
int RasterPipeline::countLargeBits(const std::vector<std::uint32_t>& largeLabels, int listWidth, int listHeight) {
    auto scope = timer_->scope("component_bits");
    const int count = int(largeLabels.size());
    allocateLargeSums(listWidth, listHeight);

    // Which table entries are large, and where they go in the large table.
    std::vector<std::uint32_t> padded(std::size_t(largeList_.width()) * largeList_.height(), largeLabels.front());
    for (int i = 0; i < count; ++i) padded[std::size_t(i / listWidth) * largeList_.width() + i % listWidth] = largeLabels[i];
    largeList_.upload(padded.data(), GL_RED_INTEGER, GL_UNSIGNED_INT);
    beginPass(largeIndex_);
    const GLuint zeroU[4] = {0, 0, 0, 0};
    glClearBufferuiv(GL_COLOR, 0, zeroU);
    auto& mark = program("mark_large", "mark_large.vert", "write_label.frag", {"fragLabel"});
    setCommonUniforms(mark);
    mark.set("largeList", 1);
    mark.set("listWidth", listWidth);
    mark.set("tableSize", tableWidth_, tableHeight_);
    bindTexture(1, largeList_);
    drawPoints(count);

    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, totalFramebuffers_[0].id());
    for (int t = 0; t < kBitCounterTargets; ++t) glClearBufferuiv(GL_COLOR, t, zeroU);

    auto& bits = program("component_bits", "component_bits.vert", "component_bits.frag", {"counters"});
    setCommonUniforms(bits);
    bits.set("ids", 1);
    bits.set("rootLabels", 2);
    bits.set("largeIndex", 3);
    bits.set("tableSize", tableWidth_, tableHeight_);
    bits.set("largeSize", listWidth, listHeight);
    auto& fold = program("fold_bits", "fullscreen.vert", "fold_bits.frag", {"newTotals"});
    setCommonUniforms(fold);
    fold.set("quadDepth", 0.0f);
    for (int t = 0; t < kBitCounterTargets; ++t) {
        const std::string index = "[" + std::to_string(t) + "]";
        fold.set(("bandCounts" + index).c_str(), t);
        fold.set(("totals" + index).c_str(), kBitCounterTargets + t);
    }

    // Bands of at most 2^24 pixels keep every float count exact.
    const int rowsPerBand = std::max(1, bandPixels_ / (width_ * shape_.height));
    const int segmentsPerRow = ceilDiv(gridWidth_, kSegment);
    int side = 0;
    const float zeroF[4] = {0, 0, 0, 0};
    for (int firstRow = 0; firstRow < gridHeight_; firstRow += rowsPerBand) {
        const int rows = std::min(rowsPerBand, gridHeight_ - firstRow);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, bandFramebuffer_.id());
        glViewport(0, 0, listWidth, listHeight);
        for (int t = 0; t < kBitCounterTargets; ++t) glClearBufferfv(GL_COLOR, t, zeroF);
        bindTexture(1, ids_[current_].texture);
        bindTexture(2, rootLabels_.texture);
        bindTexture(3, largeIndex_.texture);
        bindTexture(kNodeGraphUnit, nodeGraph_.texture);  // fold_bits rebinds every unit
        bits.use();
        bits.set("firstRow", firstRow);
        glEnable(GL_BLEND);
        glBlendEquation(GL_FUNC_ADD);
        glBlendFunc(GL_ONE, GL_ONE);
        // The k-th large component of every segment, until no segment has one.
        for (int rank = 0; rank < kSegment; ++rank) {
            bits.set("largeRank", rank);
            if (!anySamplesPassed([&] { drawPoints(std::int64_t(segmentsPerRow) * rows); })) break;
        }
        glDisable(GL_BLEND);

        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, totalFramebuffers_[1 - side].id());
        for (int t = 0; t < kBitCounterTargets; ++t) {
            bindTexture(t, bandCounts_[t]);
            bindTexture(kBitCounterTargets + t, totals_[side][t]);
        }
        fold.use();
        drawFullscreen();
        side = 1 - side;
    }
    checkPass("component_bits");
    return side;
}

std::vector<Component> RasterPipeline::components(StageTimer& timer) {
    timer_ = &timer;
    std::vector<Component> table(count_);
    if (count_ == 0) return table;
    allocateTable(count_);
    glBindVertexArray(emptyVertexArray_.id());
    bindTexture(kNodeGraphUnit, nodeGraph_.texture);
    componentTable();

    // The compact block: rows of the table that hold entries.
    const int rows = ceilDiv(int(count_), tableWidth_);
    std::vector<float> boxes(std::size_t(tableWidth_) * rows * 4), sums(boxes.size());
    std::vector<std::uint32_t> roots(std::size_t(tableWidth_) * rows);
    {
        auto scope = timer_->scope("download_table");
        gl::readTextureRect(boxes_.texture, 0, 0, tableWidth_, rows, GL_RGBA, GL_FLOAT, boxes.data());
        gl::readTextureRect(sums_.texture, 0, 0, tableWidth_, rows, GL_RGBA, GL_FLOAT, sums.data());
        gl::readTextureRect(roots_.texture, 0, 0, tableWidth_, rows, GL_RED, GL_FLOAT, roots.data());
    }
    // Sums come relative to the root (component_table.vert) and, for large
    // components, as counts per bit of x and y (component_bits.frag).
    std::vector<std::int64_t> sumX(count_), sumY(count_);
    std::vector<std::uint32_t> largeLabels;
    for (std::uint32_t i = 0; i < count_; ++i) {
        const float* box = &boxes[std::size_t(i) * 4];
        const float* sum = &sums[std::size_t(i) * 4];
        Component& c = table[i];
        c.left = std::uint32_t(width_ - 1 - int(box[0]));
        c.top = std::uint32_t(height_ - 1 - int(box[1]));
        c.width = std::uint32_t(int(box[2])) - c.left + 1;
        c.height = std::uint32_t(int(box[3])) - c.top + 1;
        c.area = std::uint64_t(sum[0]);
        // The root's ID bits: kIdBase + ((h-1-y) << 15) + (w-1-x), common.glsl.
        const std::uint32_t id = roots[i] - 0x00800000u;
        const std::int64_t rootX = width_ - 1 - std::int64_t(id & 0x7FFFu), rootY = height_ - 1 - std::int64_t(id >> 15);
        sumX[i] = std::int64_t(sum[1]) + std::int64_t(c.area) * rootX;
        sumY[i] = std::int64_t(sum[2]) + std::int64_t(c.area) * rootY;
        const double area = sum[0];
        if (area >= kExactFloatSum || area * (c.width - 1) >= kExactFloatSum || area * (c.height - 1) >= kExactFloatSum)
            largeLabels.push_back(i + 1);
    }
    if (!largeLabels.empty()) {
        std::vector<std::uint64_t> counters;
        componentBits(largeLabels, counters);
        for (std::size_t j = 0; j < largeLabels.size(); ++j) {
            const std::uint64_t* counter = &counters[j * 32];
            const std::uint32_t i = largeLabels[j] - 1;
            table[i].area = counter[0];
            sumX[i] = sumY[i] = 0;
            for (int bit = 0; bit < 15; ++bit) {
                sumX[i] += std::int64_t(counter[1 + bit] << bit);
                sumY[i] += std::int64_t(counter[16 + bit] << bit);
            }
        }
    }
    for (std::uint32_t i = 0; i < count_; ++i) {
        Component& c = table[i];
        c.centroidX = double(std::uint64_t(sumX[i])) / double(c.area);
        c.centroidY = double(std::uint64_t(sumY[i])) / double(c.area);
    }
    checkGlError("glccl::RasterPipeline::components()");
    return table;
}

}  // namespace glccl

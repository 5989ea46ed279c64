#include "component_table.hpp"

#include <algorithm>
#include <vector>

namespace glccl::raster {

namespace {
const ProgramSpec kComponentTable{"component_table", "component_table.vert", "component_table.frag",
                                  {"box", "sums", "root"}, {kIdsSlot, kRootLabelsSlot}};
const ProgramSpec kComponentTableRuns{"component_table_runs", "component_table_runs.vert", "component_table.frag",
                                      {"box", "sums", "root"}, {kIdsSlot, kRootLabelsSlot}, {"TABLE_RUNS"}};
constexpr TextureSlot kFirstsSlot{"firsts", 3};
const ProgramSpec kComponentTableFirsts{"component_table_firsts", "fullscreen.vert", "component_table_firsts.frag",
                                        {"fragFirsts"}, {kIdsSlot}};
const ProgramSpec kComponentTableMost{"component_table_most", "fullscreen.vert", "component_table_most.frag",
                                      {"fragColor"}, {kFirstsSlot}};
const ProgramSpec kComponentTableSlots{"component_table_slots", "component_table_slots.vert", "component_table.frag",
                                       {"box", "sums", "root"}, {kIdsSlot, kRootLabelsSlot, kFirstsSlot},
                                       {"TABLE_SLOTS"}};
// The entries of components inside one segment, a fragment each.
const ProgramSpec kComponentTableLocal{"component_table_local", "fullscreen.vert", "component_table.frag",
                                       {"box", "sums", "root"}, {kIdsSlot, kFirstsSlot},
                                       {"TABLE_SLOTS", "TABLE_LOCAL"}};
constexpr TextureSlot kBoxCopiesSlot{"boxCopies", 0};
constexpr TextureSlot kSumCopiesSlot{"sumCopies", 1};
constexpr TextureSlot kRootCopiesSlot{"rootCopies", 2};
const ProgramSpec kComponentTableFold{"component_table_fold", "fullscreen.vert", "component_table_fold.frag",
                                      {"box", "sums", "root"}, {kBoxCopiesSlot, kSumCopiesSlot, kRootCopiesSlot}};
// The same with the sums split into digits (Tuning::rasterTableSums digits).
const std::vector<const char*> kDigitOutputs = {"box", "sums", "digits", "moreDigits"};
const ProgramSpec kComponentTableDigits{"component_table", "component_table.vert", "component_table.frag",
                                        kDigitOutputs, {kIdsSlot, kRootLabelsSlot}, {"TABLE_DIGITS"}};
const ProgramSpec kComponentTableRunsDigits{"component_table_runs", "component_table_runs.vert", "component_table.frag",
                                            kDigitOutputs, {kIdsSlot, kRootLabelsSlot}, {"TABLE_RUNS", "TABLE_DIGITS"}};
const ProgramSpec kComponentTableSlotsDigits{"component_table_slots", "component_table_slots.vert",
                                             "component_table.frag", kDigitOutputs,
                                             {kIdsSlot, kRootLabelsSlot, kFirstsSlot}, {"TABLE_SLOTS", "TABLE_DIGITS"}};
const ProgramSpec kComponentTableLocalDigits{"component_table_local", "fullscreen.vert", "component_table.frag",
                                             kDigitOutputs, {kIdsSlot, kFirstsSlot},
                                             {"TABLE_SLOTS", "TABLE_LOCAL", "TABLE_DIGITS"}};
constexpr TextureSlot kDigitCopiesSlot{"digitCopies", 2};
constexpr TextureSlot kMoreDigitCopiesSlot{"moreDigitCopies", 3};
const ProgramSpec kComponentTableFoldDigits{"component_table_fold", "fullscreen.vert", "component_table_fold.frag",
                                            kDigitOutputs,
                                            {kBoxCopiesSlot, kSumCopiesSlot, kDigitCopiesSlot, kMoreDigitCopiesSlot},
                                            {"TABLE_DIGITS"}};
static_assert(kMaxDigitTargets == 2, "the digit programs write two digit targets");
// Draw buffers of the table's framebuffers; from 2 on, the roots or the
// digit targets.
constexpr GLuint kBoxes = 0, kSums = 1;
}  // namespace

ComponentTablePass::ComponentTablePass() {
    GLint major = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    es_ = gl::isEs();
    perDrawBufferBlend_ = !es_ && major >= 4;
}

void ComponentTablePass::countFirsts(const PassContext& context, const gl::RenderTarget& firsts,
                                     const gl::RenderTarget& most, bool crossingOnly) {
    auto& mark = context.programs.use(kComponentTableFirsts, {{"CROSSING_ONLY", crossingOnly ? 1 : 0}});
    mark.set("quadDepth", 0.0f);
    beginPass(firsts);
    setRenderState({});
    drawFullscreen();

    beginPass(most);
    bindTexture(kFirstsSlot, firsts.texture);
    context.programs.use(kComponentTableMost).set("quadDepth", 0.0f);
    drawFullscreen();
}

int ComponentTablePass::readMost(const gl::RenderTarget& most) {
    std::vector<float> counts(std::size_t(kMostSide) * kMostSide);
    gl::readTextureRect(most.texture, 0, 0, kMostSide, kMostSide, GL_RED, GL_FLOAT, counts.data());
    return std::max(1, int(*std::max_element(counts.begin(), counts.end())));
}

bool ComponentTablePass::slotsSufficed() {
    if (!slotsGuessed_) return true;
    slotsGuessed_ = false;
    const int needed = readMost(*mostToCheck_);
    const bool sufficed = needed <= slotsDrawn_;
    slotsDrawn_ = needed;  // the next call's guess, or this call's again
    slotsRead_ = !sufficed;
    return sufficed;
}

void ComponentTablePass::run(const PassContext& context, const LabeledGrid& grid, const TableTargets& table,
                             Points points, bool localByFragments, const gl::RenderTarget& firsts,
                             const gl::RenderTarget& most, const Copies& copies, const SumDigits* digits) {
    auto scope = context.timer.scope(kStage);
    bindTexture(kNodeGraphSlot, grid.nodeGraph);
    bindTexture(kIdsSlot, grid.ids);
    std::int64_t vertices = std::int64_t(grid.grid.gridWidth) * grid.grid.gridHeight;
    int slots = 0;
    slotsGuessed_ = false;
    // Fragments of the entries sum the components inside one segment where
    // the roots' numbering can be read backwards (scan_roots').
    const bool local = points == Points::Slots && localByFragments && grid.rootsByScan;
    if (points == Points::Slots && slotsRead_) {
        // Again, after slotsSufficed(): `firsts` and this labeling's most
        // are read already.
        slotsRead_ = false;
        bindTexture(kFirstsSlot, firsts.texture);
    } else if (points == Points::Slots) {
        countFirsts(context, firsts, most, local);
        if (slotsDrawn_ > 0) {
            // The last call's most: checked by slotsSufficed() once the
            // table is read.
            slotsGuessed_ = true;
            mostToCheck_ = &most;
        } else {
            slotsDrawn_ = readMost(most);
            countWait();
        }
    }
    if (points == Points::Slots) {
        slots = slotsDrawn_;
        vertices = std::int64_t(firsts.width()) * firsts.height() * slots;
    }
    const bool digitSums = digits != nullptr;
    std::vector<ProgramConstant> constants = digitSums ? digits->programConstants() : std::vector<ProgramConstant>{};
    constants.push_back(bindRootLabels(grid));
    const ProgramSpec& tableSpec =
        points == Points::Slots ? (digitSums ? kComponentTableSlotsDigits : kComponentTableSlots)
        : points == Points::Runs ? (digitSums ? kComponentTableRunsDigits : kComponentTableRuns)
                                 : (digitSums ? kComponentTableDigits : kComponentTable);
    auto& program = context.programs.use(tableSpec, constants);
    if (points == Points::Slots) program.set("slots", slots);
    // Draw buffers: boxes (GL_MAX), sums (GL_FUNC_ADD), then the roots
    // (GL_MAX) or the digit targets (GL_FUNC_ADD).
    const int buffers = digitSums ? 2 + digits->targets() : 3;
    const bool spread = copies.count > 1;
    const TableTargets& target = spread ? copies.targets : table;
    const int rows = copies.rows;  // the entries' rows: the table may have room for more
    program.set("tableSize", table.width, rows);
    program.set("tableSpread", copies.count);
    const auto framebufferOf = [&](const TableTargets& t) -> const gl::Framebuffer& {
        return digitSums ? t.digitFramebuffers[digits->targets()] : t.framebuffer;
    };
    const ProgramSpec& localSpec = digitSums ? kComponentTableLocalDigits : kComponentTableLocal;
    // The points, then with `local` a fragment per entry of the first copy
    // (the table where there is one), written without blending: no point
    // goes to an entry the pass writes, and it discards the others.
    const auto draw = [&] {
        context.programs.use(tableSpec, constants);
        drawPoints(vertices);
        if (!local) return;
        context.programs.use(localSpec, constants).set("tableSize", table.width, rows);
        setViewport(table.width, rows);  // the first copy
        glDisable(GL_BLEND);
        drawFullscreen();
        glEnable(GL_BLEND);
        setViewport(table.width, rows * copies.count);
    };
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, framebufferOf(target).id());
    setViewport(table.width, rows * copies.count);
    setRenderState({GL_MAX});
    // Only the rows drawn are cleared: a table kept from a labeling of more
    // components has more, and a clear costs as many texels as it covers.
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, 0, table.width, rows * copies.count);
    const float zero[4] = {0, 0, 0, 0};
    for (GLint buffer = 0; buffer < buffers; ++buffer) glClearBufferfv(GL_COLOR, buffer, zero);
    glDisable(GL_SCISSOR_TEST);
    // The equation of a draw buffer.
    const auto equationOf = [&](GLint buffer) {
        if (buffer == GLint(kBoxes)) return GLenum(GL_MAX);
        if (buffer == GLint(kSums)) return GLenum(GL_FUNC_ADD);
        return digitSums ? GLenum(GL_FUNC_ADD) : GLenum(GL_MAX);
    };
    if (perDrawBufferBlend_) {
        for (GLint buffer = 0; buffer < buffers; ++buffer) glBlendEquationi(GLuint(buffer), equationOf(buffer));
        draw();
    } else if (es_) {
        // ES 3.0 has neither per-draw-buffer blending nor per-draw-buffer
        // masks: the draw buffers themselves say which targets each draw
        // writes, those of GL_MAX first, then those of GL_FUNC_ADD.
        GLenum selected[2 + kMaxDigitTargets], all[2 + kMaxDigitTargets];
        for (GLenum equation : {GLenum(GL_MAX), GLenum(GL_FUNC_ADD)}) {
            for (GLint buffer = 0; buffer < buffers; ++buffer) {
                all[buffer] = GLenum(GL_COLOR_ATTACHMENT0 + buffer);
                selected[buffer] = equationOf(buffer) == equation ? all[buffer] : GLenum(GL_NONE);
            }
            glBlendEquation(equation);
            glDrawBuffers(buffers, selected);
            draw();
        }
        glDrawBuffers(buffers, all);
    } else {
        // The targets of GL_MAX with the others masked, then the others alone.
        for (GLint buffer = 0; buffer < buffers; ++buffer)
            if (equationOf(buffer) != GL_MAX) glColorMaski(GLuint(buffer), GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        draw();
        glBlendEquation(GL_FUNC_ADD);
        for (GLint buffer = 0; buffer < buffers; ++buffer) {
            const GLboolean add = equationOf(buffer) == GL_FUNC_ADD ? GL_TRUE : GL_FALSE;
            glColorMaski(GLuint(buffer), add, add, add, add);
        }
        draw();
    }
    if (spread && !copies.foldInDownload) {
        // The copies folded into the table's first rows, every texel written.
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, framebufferOf(table).id());
        setViewport(table.width, copies.rows);
        setRenderState({});
        auto& fold = context.programs.use(digitSums ? kComponentTableFoldDigits : kComponentTableFold);
        fold.set("quadDepth", 0.0f);
        fold.set("spread", copies.count);
        fold.set("tableRows", copies.rows);
        bindTexture(kBoxCopiesSlot, copies.targets.boxes.texture);
        bindTexture(kSumCopiesSlot, copies.targets.sums.texture);
        if (digitSums) {
            bindTexture(kDigitCopiesSlot, copies.targets.digits[0].texture);
            bindTexture(kMoreDigitCopiesSlot, copies.targets.digits[1].texture);
        } else {
            bindTexture(kRootCopiesSlot, copies.targets.roots.texture);
        }
        drawFullscreen();
    }
    context.checkPass(kStage);
}

}  // namespace glccl::raster

#pragma once
// What the passes of the raster pipeline share: their programs (built once
// per variant, with their texture units named once), the render state each
// pass sets for itself, and the few draws they all make.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gl_objects.hpp"
#include "glccl/types.hpp"
#include "raster_resources.hpp"
#include "stage_timer.hpp"

namespace glccl::raster {

// A sampler uniform and the texture unit it reads. Units: 0 the input
// (node_graph only), 1-3 and 5-11 each pass's own, 4 the node graph, 12
// and 13 the roots' labels numbered by scan; component_bits_fold uses 0-15.
struct TextureSlot {
    const char* uniform;
    int unit;
};
constexpr TextureSlot kInputSlot{"inputImage", 0};
constexpr TextureSlot kNodeGraphSlot{"nodeGraph", 4};
// Most passes read node IDs through a sampler named `ids` at unit 1.
constexpr TextureSlot kIdsSlot{"ids", 1};
// The passes that number components read each root's label at unit 2, or
// where scan_roots numbered the roots, its level 0 at units 12 and 13.
constexpr TextureSlot kRootLabelsSlot{"rootLabels", 2};
constexpr TextureSlot kRootMasksSlot{"rootMasks", 12};
constexpr TextureSlot kRootOffsetsSlot{"rootOffsets", 13};

void bindTexture(TextureSlot slot, const gl::Texture& texture);

// One program of a pass: its files in glsl/, its fragment outputs in
// draw-buffer order and its own sampler uniforms (set once, when built).
struct ProgramSpec {
    const char* name;  // the stage, or stage_step: shown in build errors
    const char* vertexFile;
    const char* fragmentFile;
    std::vector<const char*> outputs;
    std::vector<TextureSlot> textures;
    // Names #defined for this program alone: a variant of a shared file.
    std::vector<const char*> defines = {};
    // Whether the program reads the input (node_graph). The others read the
    // node graph it draws: each is built once per connectivity and node
    // shape, whatever the input's format and criterion, without the input's
    // functions (criterion.glsl's NO_INPUT: a stage that would read it does
    // not build).
    bool readsInput = false;
    // Whether the program reads the IDs by textureGather where the context
    // has it (GATHER_IDS #defined; node_graph's GATHER_INPUT says the same
    // of the input): desktop GL with ARB_texture_gather, ES 3.1 and up.
    bool gathersIds = false;
};

// A number #defined into a program at the call that asks for it: a layout
// fixed for a labeling's size, so that the shader's arithmetic on it folds
// away. Each value builds a program of its own.
struct ProgramConstant {
    const char* name;
    int value;
};

// For a pass that numbers components (common.glsl's rootLabelOf): the
// textures its roots' labels are read from bound, and the constant its
// program is built with for them.
ProgramConstant bindRootLabels(const LabeledGrid& grid);

// The programs of the pipeline, built on first use for each variant: the
// criterion, the connectivity and the input's format become #defines, with
// the node shape and the constants of raster_constants.hpp.
class RasterPrograms {
public:
    // The variant and sizes of the labeling about to run.
    void select(Connectivity connectivity, const Criterion& criterion, GLenum inputFormat, const RasterGrid& grid);
    // The program, current, with the grid's sizes set; `constants`
    // #defined into it.
    gl::Program& use(const ProgramSpec& spec, const std::vector<ProgramConstant>& constants = {});

private:
    Connectivity connectivity_ = Connectivity::Eight;
    Criterion criterion_;
    GLenum inputFormat_ = GL_R8;
    RasterGrid grid_;
    std::string variant_;
    // Whether the context has textureGather (desktop GL with
    // ARB_texture_gather, GLSL ES 3.10 in an ES 3.1+ context), asked once:
    // node_graph reads the input's 2x2 quads by it, scan_roots' masks the
    // IDs (ProgramSpec's readsInput, gathersIds).
    std::optional<bool> gathers_;
    std::map<std::pair<const ProgramSpec*, std::string>, gl::Program> programs_;
};

// What every pass is handed besides its inputs and outputs.
struct PassContext {
    RasterPrograms& programs;
    StageTimer& timer;
    bool checkEachPass;
    // An OpenGL ES context: passes take their replacements for what ES lacks.
    bool es = false;
    // With checkEachPass: waits for the pass and throws glccl::Error naming
    // the stage and the GL error, if any.
    void checkPass(const char* stage) const;
};

// The fixed-function state of a pass's draws. Each pass sets its own at its
// start (and between its draws where they differ), so no pass depends on
// what the one before left behind. Stencil and scissor tests end up off.
struct RenderState {
    GLenum blendEquation = GL_NONE;  // GL_MAX or GL_FUNC_ADD, with factors (1, 1); GL_NONE: no blending
    GLenum depthFunc = GL_NONE;      // GL_NONE: no depth test
    bool depthWrite = false;
    bool colorWrite = true;
};
void setRenderState(const RenderState& state);

// What the passes issue, counted as they issue it, for the whole process:
// tests read it to count a labeling's work (draws, fragments of full-screen
// draws, point vertices, copies, and the query results and read-backs the
// host waits for, and the bytes of the table read back), which no GPU timer
// shows.
struct IssuedWork {
    std::int64_t draws = 0;
    std::int64_t fragments = 0;  // of full-screen draws and column quads
    std::int64_t points = 0;     // vertices of point draws
    std::int64_t copies = 0;     // framebuffer blits
    std::int64_t waits = 0;      // query results and read-backs waited for
    std::int64_t readBytes = 0;  // bytes of the component table read back (download_table)
};
IssuedWork& issuedWork();
// A read-back or query result the host waits for (issuedWork().waits).
void countWait();

// Binds the target's framebuffer for drawing, with a viewport over all of it.
void beginPass(const gl::RenderTarget& target);
// A viewport from the origin (drawFullscreen counts its texels).
void setViewport(int width, int height);
// One triangle over the viewport (fullscreen.vert).
void drawFullscreen();
// `count` points (vertex i: gl_VertexID i), none when count is 0.
void drawPoints(std::int64_t count);
// Copies all of `from` into `to` (same size).
void copyTarget(const gl::RenderTarget& from, const gl::RenderTarget& to);
// Runs `draw` under an occlusion query: did any sample pass? In WebGL
// (Emscripten), which gives a query's result only after the page's task has
// ended, the draw is made a second time into a stencil of the viewport's
// size and the marks are read back (the program `draw` uses stays current).
bool anySamplesPassed(const PassContext& context, const gl::Query& query, const std::function<void()>& draw);

}  // namespace glccl::raster

#pragma once
// Sean O'Connell's GPU connected-component labeling as OpenGL 3.3 render
// passes, exact on every input and past the paper's limits. label() lists
// the stages; each stage is a member function named after its GLSL file.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gl_objects.hpp"
#include "glccl/types.hpp"
#include "stage_timer.hpp"

namespace glccl {

// The pixels of a node: the pipeline labels a grid of nodes, blocks whose
// foreground pixels always touch one another (common.glsl, "Nodes").
struct NodeShape {
    int width = 1, height = 1;
    static NodeShape of(Connectivity connectivity, const Criterion& criterion);
    bool operator==(const NodeShape& other) const { return width == other.width && height == other.height; }
};

class RasterPipeline {
public:
    RasterPipeline();

    // Allocates every per-size resource up front (no allocation while
    // labeling frames of this size and node shape later). Throws
    // glccl::Error with the GL error (GL_OUT_OF_MEMORY) if the context
    // cannot hold them.
    void reserve(int width, int height, NodeShape shape);

    // Labels `input`: GL_R8, GL_R8UI, GL_R16 or GL_R32F, or GL_RGBA8 for the
    // threshold criterion (values in the units of the format).
    // Writes the canonical labels into `labels` (GL_R32UI, the input's size,
    // owned by the caller) and returns the count.
    std::uint32_t label(const gl::Texture& input, const gl::Texture& labels, Connectivity connectivity,
                        Criterion criterion, StageTimer& timer);

    // The component table of the last label() call (label i + 1 at index i),
    // computed on the GPU and downloaded as a compact block.
    std::vector<Component> components(StageTimer& timer);

    // Merge rounds the exactness loop needed in the last call (diagnostics).
    int resolveRounds() const { return resolveRounds_; }
    // Columns per block of column processing; 0 (the default) chooses from
    // the grid width. Takes effect at the next reserve() of a new size.
    void setBlockWidth(int columns) { requestedBlockWidth_ = columns; width_ = height_ = 0; }
    int blockWidth() const { return blockWidth_; }
    // Pixels per band of the exact large-component sums (component_bits);
    // at most, and by default, 2^24. Smaller bands only cost passes (tests).
    void setBandPixels(int pixels);

private:
    // Stages, in order.
    void nodeGraph();
    void verticalRuns();
    void columnProcessing();
    void postColumnProcessing();
    void mergeBlockBorders();
    void resolveLinks();
    std::uint32_t countRoots();
    void routeRootLabels(std::uint32_t roots);
    void scanRootLabels();
    void finalLabels();
    void componentTable();
    void componentBits(const std::vector<std::uint32_t>& largeLabels, std::vector<std::uint64_t>& counters);
    int countLargeBits(const std::vector<std::uint32_t>& largeLabels, int listWidth, int listHeight);

    // Helpers.
    gl::Program& program(const std::string& stage, const std::string& vertexFile, const std::string& fragmentFile,
                         const std::vector<std::string>& outputs = {"fragColor"});
    void bindTexture(int unit, const gl::Texture& texture);
    void beginPass(const gl::RenderTarget& target);
    void setCommonUniforms(gl::Program& program);
    void drawFullscreen();
    void drawPoints(std::int64_t count);
    void followRoots(int from, int to, bool markedOnly);
    bool linkRoots(gl::Program& link, int labels, int linked, std::int64_t vertices);
    void copyIds(int from, int to);
    bool anySamplesPassed(const std::function<void()>& draw);
    void allocateTable(std::uint32_t count);
    void allocateLargeSums(int listWidth, int listHeight);
    void checkPass(const char* stage);

    int width_ = 0, height_ = 0;        // pixels
    NodeShape shape_;
    int gridWidth_ = 0, gridHeight_ = 0;  // nodes
    int blockWidth_ = 0;
    int requestedBlockWidth_ = 0;
    int bandPixels_ = 1 << 24;
    int current_ = 0;                    // which of ids_ holds the current labels
    Connectivity connectivity_ = Connectivity::Eight;
    Criterion criterion_;
    GLenum inputFormat_ = GL_R8;
    const gl::Texture* input_ = nullptr;
    StageTimer* timer_ = nullptr;
    std::uint32_t count_ = 0;
    int resolveRounds_ = 0;
    bool debug_ = false;
    bool perDrawBufferBlend_ = false;  // glBlendEquationi: OpenGL 4.0

    gl::VertexArray emptyVertexArray_;
    // Bound with the host's input texture: texture completeness follows the
    // bound sampler, so a host texture with one level and the default
    // mipmapped filter still reads (texelFetch itself ignores filtering).
    gl::Sampler nearestSampler_;
    gl::Query anySamplesQuery_, samplesQuery_;  // a query object keeps the target of its first use
    gl::RenderTarget nodeGraph_;        // R16UI: links and foreground pixels per node
    gl::Renderbuffer depth_;            // marks roots changed by scatter-back
    gl::RenderTarget ids_[3];           // R32F IDs as float bit patterns, per node
    gl::RenderTarget rootLabels_;       // R32UI: each root's final label, over the scan grid
    gl::Framebuffer labelsFramebuffer_;  // renders into the caller's label texture
    GLuint labelsTexture_ = 0;           // the texture labelsFramebuffer_ draws into
    struct ScanLevel {
        gl::RenderTarget counts, offsets;
        int axis;
    };
    std::vector<ScanLevel> scanLevels_;
    gl::RenderTarget scanZero_;         // 1x1 zero: the offset above the top level
    gl::Renderbuffer routingStencil_;
    gl::RenderTarget routed_, routedLabels_;
    gl::RenderTarget boxes_, sums_, roots_;  // the component table
    gl::Framebuffer tableFramebuffer_;      // all three, for component_table
    int tableWidth_ = 0, tableHeight_ = 0;
    // Exact sums of large components (component_bits).
    gl::Texture largeList_;
    gl::RenderTarget largeIndex_;
    gl::Texture bandCounts_[8], totals_[2][8];
    gl::Framebuffer bandFramebuffer_, totalFramebuffers_[2];
    std::map<std::string, gl::Program> programs_;
};

}  // namespace glccl

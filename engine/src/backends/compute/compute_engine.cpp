// The compute backend: block-based union-find in GLSL compute shaders
// (OpenGL 4.3, or OpenGL ES 3.1 with image atomics), the fastest GL path. label() and components() list its
// passes; each is a file of the same name here and in glsl/.
//
//   local_merge      foreground masks, union-find inside each patch (shared memory)
//   merge_borders    the links between patches, as global lock-free unions
//   count_roots      each node line ranks its roots, trees are shortened; the last
//                    work group numbers the lines: numbering in raster order
//   final_labels     every pixel takes its component's number; boxes, areas and
//                    exact 64-bit sums go into the table, reduced per label patch first
//   download_table   components(): the table's entries to the host
//
// A GL_TEXTURE_3D input is a volume: into a 3-D label texture, and the
// table has the z fields. A binary volume is labeled over bundle nodes, runs
// of the OR of a few lines (volume_nodes.glsl, the CUDA engine's design), by
// the passes' <stage>_volume siblings:
//
//   local_merge      the voxels to bits; each bundle word's runs are its nodes;
//                    union-find inside each patch (shared memory, a link queue)
//   merge_borders    the links between patches, as global lock-free unions
//   count_roots      every node's entry pointed at its root; each bundle row
//                    ranks its roots per line; the last work group numbers the
//                    lines
//   final_labels     every voxel takes its component's number; the table summed
//
// Other volumes (segments, threshold, delta: a run of a line could hold two
// components; binary ones a few voxels wide, which would have more node
// slots than voxels) run the passes of the node grid over a grid of 3-D
// nodes (DIMENSIONS 3: the 2-D shaders, or their <stage>_volume_grid
// siblings where the algorithm differs).
//
// The table's sums start from zero: local_merge zeroes what the last
// labeling used.

#include "backends/texture_engine.hpp"
#include "backends/pass_check.hpp"
#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::backends {

namespace {

using namespace compute;

// Whether a volume may take bundle nodes: a binary one (ComputeResources
// decides whether its shape does).
bool bundleNodes(const LabelOptions& options) { return options.criterion.kind == Criterion::Kind::Binary; }

// glGetTextureSubImage: OpenGL 4.5.
bool subImageReads(const ContextInfo& context) {
    return !context.es && context.major * 10 + context.minor >= 45 && glGetTextureSubImage != nullptr;
}

// GL_CLAMP_TO_BORDER: desktop OpenGL, OpenGL ES 3.2, or ES 3.1 with
// EXT_texture_border_clamp or OES_texture_border_clamp (the same enum).
bool borderClamp(const ContextInfo& context) {
    return !context.es || context.major * 10 + context.minor >= 32 ||
           gl::hasExtension("GL_EXT_texture_border_clamp") || gl::hasExtension("GL_OES_texture_border_clamp");
}

class ComputeEngine final : public TextureEngine {
public:
    explicit ComputeEngine(const ContextInfo& context) : downloadTable_(subImageReads(context), context.es) {
        const int version = context.major * 10 + context.minor;
        // ES has glClearTexImage only as EXT_clear_texture's
        // glClearTexImageEXT: there the table is zeroed by uploads.
        clearTextures_ = !context.es && (version >= 44 || gl::hasExtension("GL_ARB_clear_texture")) &&
                         glClearTexImage != nullptr;
        const bool border = borderClamp(context);
        programs_.setBorderClamp(border);
        parentsStorage_ = parentsStorageFromTuning();
        inputSampler_ = gl::Sampler::create();
        glSamplerParameteri(inputSampler_.id(), GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glSamplerParameteri(inputSampler_.id(), GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        // local_merge gathers 2x2 footprints: past the image they read the
        // border, 0, i.e. background (without a border, the edge, which the
        // node masks drop).
        const GLint wrap = border ? GL_CLAMP_TO_BORDER : GL_CLAMP_TO_EDGE;
        glSamplerParameteri(inputSampler_.id(), GL_TEXTURE_WRAP_S, wrap);
        glSamplerParameteri(inputSampler_.id(), GL_TEXTURE_WRAP_T, wrap);
    }

    void reserve(int width, int height, const LabelOptions& options) override {
        resources_.reserve(width, height, 1, false, NodeSize::of(options.connectivity, options.criterion),
                           options.connectivity, bundleNodes(options), parentsStorage_);
    }

    std::uint32_t label(const gl::Texture& input, const gl::Texture& labels, const LabelOptions& options,
                        StageTimer& timer) override {
        const bool volume = input.target() == GL_TEXTURE_3D;
        resources_.reserve(input.width(), input.height(), input.depth(), volume,
                           NodeSize::of(options.connectivity, options.criterion), options.connectivity,
                           bundleNodes(options), parentsStorage_);
        programs_.select(options.connectivity, options.criterion, input.internalFormat(), resources_.node, volume);
        // A host texture with one level and a mipmapped filter is incomplete
        // unless a nearest sampler is bound with it; the sampler also gives
        // the gathers of local_merge a zero border.
        glBindSampler(kInputUnit, inputSampler_.id());
        // The passes take the programs of the nodes the resources were
        // reserved for: an image's, a volume's grid or a binary volume's
        // bundles (the top of this file).
        const PassContext passes = context(timer);
        localMerge_.run(passes, input);            // nodes; union-find inside each patch
        mergeBorders_.run(passes, input);          // and across patch borders
        count_ = countRoots_.run(passes);          // roots numbered 1..N in raster order
        resources_.reserveTable(count_, clearTextures_);
        finalLabels_.run(passes, labels, count_);  // every pixel's number; the table summed
        glBindSampler(kInputUnit, 0);
        // The host reads the labels as a texture, by download or by
        // framebuffer, and components() reads the table.
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
        labeled_ = true;
        return count_;
    }

    void components(std::vector<Component>& out, StageTimer& timer) override {
        out.resize(labeled_ ? count_ : 0);
        if (out.empty()) return;
        downloadTable_.run(context(timer), count_, out);
    }

    GpuTable gpuTable() const override { return {labeled_ ? resources_.table.id() : 0u, resources_.volume}; }

private:
    PassContext context(StageTimer& timer) { return {resources_, programs_, timer, kCheckEachPass}; }

    gl::Sampler inputSampler_;
    bool clearTextures_ = false;  // glClearTexImage: OpenGL 4.4 or ARB_clear_texture
    ParentsStorage parentsStorage_ = ParentsStorage::Auto;  // Tuning::computeParents
    ComputeResources resources_;
    ComputePrograms programs_;
    LocalMergePass localMerge_;
    MergeBordersPass mergeBorders_;
    CountRootsPass countRoots_;
    FinalLabelsPass finalLabels_;
    DownloadTablePass downloadTable_;
    std::uint32_t count_ = 0;
    bool labeled_ = false;
};

}  // namespace

std::unique_ptr<TextureEngine> makeComputeEngine(const ContextInfo& context) {
    return std::make_unique<ComputeEngine>(context);
}

}  // namespace glccl::backends

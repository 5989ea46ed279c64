#pragma once
// The passes of the compute backend, one class per compute program of the
// same name in glsl/ and one timer key each (local_merge.cpp <->
// local_merge.comp <-> "local_merge"). ComputeEngine::label() and
// components() list them in order.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compute_resources.hpp"
#include "gl_objects.hpp"
#include "glccl/types.hpp"
#include "parallel_copy.hpp"
#include "stage_timer.hpp"

namespace glccl::compute {

// One compute program: its stage (glsl/<stage>.comp, the build errors' name)
// and the #defines only that stage takes (which parts of compute_common.glsl
// it declares; its work group size where that varies, `groupThreads`). A
// volume's sibling of a stage names its own file (`file`,
// "<stage>_volume_grid.comp" on the node grid where its algorithm is not the
// 2-D one's, "<stage>_volume.comp" over bundle nodes, whose common file is
// volume_nodes.glsl) under the same stage.
struct ProgramSpec {
    const char* stage;
    void (*defines)(gl::ProgramBuilder& builder, int groupThreads);
    const char* file = nullptr;    // nullptr: "<stage>.comp"
    const char* common = nullptr;  // nullptr: "compute_common.glsl"
    // Whether the program reads the input or compares samples: local_merge
    // and merge_borders. One that does not is built once per connectivity
    // and node size, whatever the input's format and criterion, without the
    // input's functions (criterion.glsl's NO_INPUT: a stage that would read
    // it does not build).
    bool readsInput = false;
};

// The programs of one variant (criterion, connectivity, input format, node
// size, image or volume), built on first use and kept.
class ComputePrograms {
public:
    void select(Connectivity connectivity, const Criterion& criterion, GLenum inputFormat, NodeSize node,
                bool volume);
    // The program, current, with imageSize and gridSize set.
    gl::Program& use(const ProgramSpec& spec, const ComputeResources& resources, int groupThreads = 0);
    // Whether the input's sampler has a zero border (GL_CLAMP_TO_BORDER),
    // else it clamps to the edge and the node masks drop what lies past
    // the image (NO_BORDER_CLAMP).
    void setBorderClamp(bool border) { borderClamp_ = border; }

private:
    bool borderClamp_ = true;
    Connectivity connectivity_ = Connectivity::Eight;
    Criterion criterion_;
    GLenum inputFormat_ = GL_R8;
    NodeSize node_;
    bool volume_ = false;
    std::string variant_;
    std::map<std::string, gl::Program> programs_;
};

// What every pass of one call is handed besides its inputs and outputs.
struct PassContext {
    ComputeResources& resources;
    ComputePrograms& programs;
    StageTimer& timer;
    bool checkEachPass;
    // With checkEachPass: waits for the pass and throws glccl::Error naming
    // the stage and the GL error, if any.
    void checkPass(const char* stage) const;
};

// glDispatchCompute, then a barrier for whatever the next pass reads
// (images, storage buffers, the label texture as a texture).
void dispatch(int groupsX, int groupsY, int groupsZ = 1);
// Work groups along x, y and z (z 1 for a 2-D image).
struct GroupCount {
    int x, y, z;
};
void dispatch(const GroupCount& groups);
// Patches and label patches (compute_constants.hpp) over the node grid, of
// an image or a volume: one work group each.
GroupCount patches(const ComputeResources& resources);
GroupCount labelPatches(const ComputeResources& resources);
// Patches and label patches over a binary volume's bundle words.
GroupCount bundlePatches(const ComputeResources& resources);
GroupCount bundleLabelPatches(const ComputeResources& resources);
// `texture` (2-D or 3-D) on an image unit: all its slices for a volume.
void bindImage(int unit, const gl::Texture& texture, GLenum access, GLenum format);
// The input on its texture unit, for `program`.
void bindInput(gl::Program& program, const gl::Texture& input);
// Parents (buffer or image) and the node_info image, or a binary volume's
// bits and foreground, on their bindings.
void bindNodeData(const ComputeResources& resources);

// local_merge (local_merge.comp): foreground masks, union-find inside each
// patch.
// An image, a volume on the node grid (local_merge_volume_grid.comp) or a
// binary volume's bundle nodes (local_merge_volume.comp), as the resources
// were reserved: every pass takes the program of their kind.
class LocalMergePass {
public:
    static constexpr const char* kStage = "local_merge";
    void run(const PassContext& context, const gl::Texture& input);
};

// merge_borders (merge_borders.comp): the links between patches.
class MergeBordersPass {
public:
    static constexpr const char* kStage = "merge_borders";
    void run(const PassContext& context, const gl::Texture& input);
};

// count_roots (count_roots.comp): roots ranked per line and numbered in
// raster order. Returns the component count.
class CountRootsPass {
public:
    static constexpr const char* kStage = "count_roots";
    std::uint32_t run(const PassContext& context);

private:
    // A binary volume's bundle nodes (count_roots_volume.cpp, .comp).
    std::uint32_t runBundles(const PassContext& context);
    // A volume's line counts into line offsets and the count
    // (scan_lines.comp), inside count_roots' stage.
    static void scanLines(const PassContext& context);
    // The count written after the line offsets.
    static std::uint32_t readCount(const ComputeResources& resources);
};

// final_labels (final_labels.comp): every pixel's label into `labels`, and
// the table of `count` components summed.
class FinalLabelsPass {
public:
    static constexpr const char* kStage = "final_labels";
    // The table's entries below count (and their z fields, for a volume)
    // are left for local_merge to zero.
    void run(const PassContext& context, const gl::Texture& labels, std::uint32_t count);
};

// download_table: the table's first `count` entries into `table`.
class DownloadTablePass {
public:
    static constexpr const char* kStage = "download_table";
    // Tables of kPiecedEntries and more are read back in kPieces pieces of
    // rows, each into a pack buffer of its own: the host decodes one piece
    // while the GPU copies the next ones (mapping a buffer waits for its own
    // copy only). A smaller table's copy is too short for the overlap to pay
    // for the extra maps.
    static constexpr int kPieces = 4;
    static constexpr std::uint32_t kPiecedEntries = std::uint32_t(1) << 21;

    // `subImageReads`: glGetTextureSubImage is there (OpenGL 4.5).
    // `layerReads`: OpenGL ES, which has no glGetTexImage; each field's
    // layer is read from a framebuffer instead.
    DownloadTablePass(bool subImageReads, bool layerReads)
        : subImageReads_(subImageReads), layerReads_(layerReads) {}
    void run(const PassContext& context, std::uint32_t count, std::vector<Component>& table);

private:
    bool subImageReads_;
    bool layerReads_;
    std::vector<std::uint32_t> layerFields_;       // layerReads: the fields' rows read back
    CopyThreads decoder_;                          // decodes large tables
    std::array<gl::Buffer, kPieces> packBuffers_;  // the table's read-back, a piece each
    std::array<std::size_t, kPieces> packCapacities_{};
};

}  // namespace glccl::compute

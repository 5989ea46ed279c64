#include "backends/pass_check.hpp"
#include "compute_constants.hpp"
#include "compute_passes.hpp"
#include "small_helpers.hpp"

namespace glccl::compute {

namespace {

// The 13 backward neighbours of a volume's node, in compute_common.glsl's
// order (kBackward).
constexpr int kBackwardOffsets[13][3] = {{-1, 0, 0},  {-1, -1, 0}, {0, -1, 0},  {1, -1, 0},  {-1, -1, -1},
                                         {0, -1, -1}, {1, -1, -1}, {-1, 0, -1}, {0, 0, -1},  {1, 0, -1},
                                         {-1, 1, -1}, {0, 1, -1},  {1, 1, -1}};

// LINK_VOXELS and LINK_DIRECTIONS of compute_common.glsl: for each backward
// neighbour d and voxel i of a node, the voxels of the neighbour that voxel
// i touches under `connectivity` (6: a face, 18: a face or an edge, 26:
// any); and the directions in which any voxel touches any.
void defineVolumeLinks(gl::ProgramBuilder& builder, Connectivity connectivity, NodeSize node) {
    const int steps = connectivity == Connectivity::Six ? 1 : connectivity == Connectivity::Eighteen ? 2 : 3;
    const int voxels = node.width * node.height * node.depth;
    auto voxel = [&](int i, int axis) {
        return axis == 0 ? i % node.width : axis == 1 ? (i / node.width) % node.height : i / (node.width * node.height);
    };
    const int extent[3] = {node.width, node.height, node.depth};
    std::string table;
    unsigned directions = 0;
    for (int d = 0; d < 13; ++d) {
        for (int i = 0; i < voxels; ++i) {
            unsigned touched = 0;
            for (int j = 0; j < voxels; ++j) {
                int apart = 0;
                bool near = true;
                for (int axis = 0; axis < 3; ++axis) {
                    const int difference = voxel(j, axis) + kBackwardOffsets[d][axis] * extent[axis] - voxel(i, axis);
                    near = near && difference >= -1 && difference <= 1;
                    apart += difference != 0;
                }
                if (near && apart <= steps) touched |= 1u << j;
            }
            if (touched != 0) directions |= 1u << d;
            table += (table.empty() ? "" : ", ") + std::to_string(touched) + "u";
        }
    }
    builder.define("NODE_D", node.depth).define("LINK_VOXELS", table).define("LINK_DIRECTIONS", int(directions));
}
}  // namespace

void ComputePrograms::select(Connectivity connectivity, const Criterion& criterion, GLenum inputFormat, NodeSize node,
                             bool volume) {
    backends::checkCriterion(criterion, inputFormat);
    connectivity_ = connectivity;
    criterion_ = criterion;
    inputFormat_ = inputFormat;
    node_ = node;
    volume_ = volume;
    variant_ = backends::criterionVariant(connectivity, criterion, inputFormat) + (volume ? "/volume" : "");
}

gl::Program& ComputePrograms::use(const ProgramSpec& spec, const ComputeResources& resources, int groupThreads) {
    // A program that reads no samples has the same text whatever the input
    // and criterion are: its key names the connectivity and node size only.
    const std::string variant =
        spec.readsInput ? variant_ : backends::noInputVariant(connectivity_, node_) + (volume_ ? "/volume" : "");
    const std::string key = std::string(spec.stage) + "/" + variant + (spec.file ? "/" + std::string(spec.file) : "") +
                            (groupThreads ? "/" + std::to_string(groupThreads) : "") +
                            (resources.parentsInImage ? "/image" : "");
    auto found = programs_.find(key);
    if (found == programs_.end()) {
        gl::ProgramBuilder builder(spec.stage);
        if (spec.readsInput) backends::defineCriterion(builder, connectivity_, criterion_, inputFormat_);
        else backends::defineNoInput(builder, connectivity_);
        if (resources.bundles) {
            volumeNodeDefines(builder, connectivity_);
        } else {
            builder.define("NODE_W", node_.width).define("NODE_H", node_.height);
            if (volume_) defineVolumeLinks(builder, connectivity_, node_);
        }
        computeDefines(builder, volume_);
        if (resources.parentsInImage) builder.define("PARENTS_IN_IMAGE");
        if (!borderClamp_) builder.define("NO_BORDER_CLAMP");
        spec.defines(builder, groupThreads);
        const std::string file = spec.file ? std::string(spec.file) : std::string(spec.stage) + ".comp";
        if (spec.common) builder.compute(file, spec.common);
        else builder.compute(file);
        found = programs_.emplace(key, builder.build()).first;
    }
    gl::Program& program = found->second;
    program.use();
    if (spec.readsInput) backends::setCriterionNumber(program, criterion_, inputFormat_);
    if (volume_) {
        program.set("imageSize", resources.width, resources.height, resources.depth);
    } else {
        program.set("imageSize", resources.width, resources.height);
    }
    if (resources.bundles) {
        // volume_nodes.glsl's node grid: its words, and keys divided by the
        // width and lines by the height.
        const VolumeNodeGrid& g = resources.nodes;
        program.set("wordsX", unsigned(g.wordsX));
        program.set("bundlesY", unsigned(g.bundlesY));
        program.set("bundlesZ", unsigned(g.bundlesZ));
        const Divisor byWidth = Divisor::of(std::uint32_t(resources.width));
        const Divisor byHeight = Divisor::of(std::uint32_t(resources.height));
        program.set("byWidth", byWidth.multiplier, byWidth.shift1, byWidth.shift2);
        program.set("byHeight", byHeight.multiplier, byHeight.shift1, byHeight.shift2);
        return program;
    }
    if (volume_) {
        program.set("gridSize", resources.gridWidth, resources.gridHeight, resources.gridDepth);
    } else {
        program.set("gridSize", resources.gridWidth, resources.gridHeight);
    }
    program.set("keyLineBits", unsigned(keyLineBits(resources.width)));
    if (volume_) {
        // A volume's lines (z * height + y) are divided by the height.
        const KeyDivision slices = KeyDivision::of(resources.height);
        program.set("sliceMultiplier", unsigned(slices.multiplier));
        program.set("sliceShift", unsigned(slices.shift));
    }
    return program;
}

void PassContext::checkPass(const char* stage) const { backends::checkPass(checkEachPass, "compute", stage); }

void dispatch(int groupsX, int groupsY, int groupsZ) {
    if (groupsX > 0 && groupsY > 0 && groupsZ > 0) glDispatchCompute(GLuint(groupsX), GLuint(groupsY), GLuint(groupsZ));
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
}

void dispatch(const GroupCount& groups) { dispatch(groups.x, groups.y, groups.z); }

// One work group per box of the node grid (a 2-D grid has depth 1).
static GroupCount groupsOver(const ComputeResources& r, NodeBox box) {
    return {ceilDiv(r.gridWidth, box.width), ceilDiv(r.gridHeight, box.height),
            ceilDiv(r.volume ? r.gridDepth : 1, box.depth)};
}
GroupCount patches(const ComputeResources& r) { return groupsOver(r, patchOf(r.volume)); }
GroupCount labelPatches(const ComputeResources& r) { return groupsOver(r, labelPatchOf(r.volume)); }

// One work group per box of bundle words, as a three-dimensional grid: no
// count exceeds a side of the volume over 8 (sides are at most 32768), far
// within the 65535 work groups a dispatch may have along each axis however
// many there are in all.
static GroupCount groupsOver(const VolumeNodeGrid& g, WordBox box) {
    return {ceilDiv(int(g.wordsX), box.words), ceilDiv(int(g.bundlesY), box.bundlesY),
            ceilDiv(int(g.bundlesZ), box.bundlesZ)};
}
GroupCount bundlePatches(const ComputeResources& r) { return groupsOver(r.nodes, kBundlePatch); }
GroupCount bundleLabelPatches(const ComputeResources& r) { return groupsOver(r.nodes, kBundleLabelPatch); }

void bindInput(gl::Program& program, const gl::Texture& input) {
    program.set("inputImage", kInputUnit);
    glActiveTexture(GL_TEXTURE0 + kInputUnit);
    glBindTexture(input.target(), input.id());
}

void bindImage(int unit, const gl::Texture& texture, GLenum access, GLenum format) {
    // A 3-D texture bound without `layered` would show one slice.
    const GLboolean layered = texture.target() == GL_TEXTURE_3D ? GL_TRUE : GL_FALSE;
    glBindImageTexture(GLuint(unit), texture.id(), 0, layered, 0, access, format);
}

void bindNodeData(const ComputeResources& r) {
    if (r.parentsInImage) {
        bindImage(kParentsImage, r.parentsImage, GL_READ_WRITE, GL_R32UI);
    } else {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kParentsBuffer, r.parents.id());
    }
    if (r.bundles) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kBitsBuffer, r.bits.id());
        // At 6-connectivity a bundle is a line: its foreground is its bits.
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kForegroundBuffer, (r.foreground ? r.foreground : r.bits).id());
    } else {
        bindImage(kNodeInfoImage, r.nodeInfo, GL_READ_WRITE, r.nodeInfoFormat);
    }
}

}  // namespace glccl::compute

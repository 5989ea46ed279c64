#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::backends::compute {

namespace {

int ceilDiv(int a, int b) { return (a + b - 1) / b; }

// Which shared parts of compute_common.glsl a stage declares (every stage
// uses parents).
bool usesRowOffsets(const std::string& stage) { return stage == "final_labels"; }
// The stage after count_roots only reads parents.
bool readsParentsOnly(const std::string& stage) { return stage == "final_labels"; }

}  // namespace

void ComputePrograms::select(Connectivity connectivity, const Criterion& criterion, GLenum inputFormat, NodeSize node) {
    connectivity_ = connectivity;
    criterion_ = criterion;
    inputFormat_ = inputFormat;
    node_ = node;
    variant_ = criterionVariant(connectivity, criterion, inputFormat);
}

gl::Program& ComputePrograms::use(const std::string& stage, const ComputeResources& resources) {
    // count_roots' work group size follows the grid's width.
    const int rowThreads = stage == "count_roots" ? countRootsThreads(resources.gridWidth) : 0;
    const std::string key = stage + "/" + variant_ + (rowThreads ? "/" + std::to_string(rowThreads) : "") +
                            (resources.parentsInImage ? "/image" : "");
    auto found = programs_.find(key);
    if (found == programs_.end()) {
        gl::ProgramBuilder builder(stage);
        defineCriterion(builder, connectivity_, criterion_, inputFormat_);
        builder.define("NODE_W", node_.width).define("NODE_H", node_.height);
        computeDefines(builder);
        if (rowThreads) builder.define("ROW_THREADS", rowThreads);
        if (resources.parentsInImage) builder.define("PARENTS_IN_IMAGE");
        if (usesRowOffsets(stage)) builder.define("USES_ROW_OFFSETS");
        if (readsParentsOnly(stage)) builder.define("PARENTS_READONLY");
        if (stage == "local_merge") builder.define("PARENTS_WRITEONLY");
        builder.compute(stage + ".comp");
        found = programs_.emplace(key, builder.build()).first;
    }
    gl::Program& program = found->second;
    program.use();
    program.set("imageSize", resources.width, resources.height);
    program.set("gridSize", resources.gridWidth, resources.gridHeight);
    return program;
}

void dispatch(int groupsX, int groupsY) {
    if (groupsX > 0 && groupsY > 0) glDispatchCompute(GLuint(groupsX), GLuint(groupsY), 1);
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
}

// Helpers the pass files share.
int tilesAcross(const ComputeResources& r) { return ceilDiv(r.gridWidth, kTileWidth); }
int tilesDown(const ComputeResources& r) { return ceilDiv(r.gridHeight, kTileHeight); }
int labelTilesAcross(const ComputeResources& r) { return ceilDiv(r.gridWidth, kLabelTileWidth); }
int labelTilesDown(const ComputeResources& r) { return ceilDiv(r.gridHeight, kLabelTileHeight); }

void bindInput(gl::Program& program, const gl::Texture& input) {
    program.set("inputImage", kInputUnit);
    glActiveTexture(GL_TEXTURE0 + kInputUnit);
    glBindTexture(GL_TEXTURE_2D, input.id());
}

void bindNodeData(const ComputeResources& r) {
    if (r.parentsInImage) {
        glBindImageTexture(kParentsImage, r.parentsImage.id(), 0, GL_FALSE, 0, GL_READ_WRITE, GL_R32UI);
    } else {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kParentsBuffer, r.parents.id());
    }
    glBindImageTexture(kNodeInfoImage, r.nodeInfo.id(), 0, GL_FALSE, 0, GL_READ_WRITE, GL_R8UI);
}

}  // namespace glccl::backends::compute

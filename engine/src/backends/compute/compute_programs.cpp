#include "backends/pass_check.hpp"
#include "compute_constants.hpp"
#include "compute_passes.hpp"

namespace glccl::compute {

namespace {
int ceilDiv(int a, int b) { return (a + b - 1) / b; }
}  // namespace

void ComputePrograms::select(Connectivity connectivity, const Criterion& criterion, GLenum inputFormat, NodeSize node) {
    connectivity_ = connectivity;
    criterion_ = criterion;
    inputFormat_ = inputFormat;
    node_ = node;
    variant_ = backends::criterionVariant(connectivity, criterion, inputFormat);
}

gl::Program& ComputePrograms::use(const ProgramSpec& spec, const ComputeResources& resources, int groupThreads) {
    const std::string key = std::string(spec.stage) + "/" + variant_ +
                            (groupThreads ? "/" + std::to_string(groupThreads) : "") +
                            (resources.parentsInImage ? "/image" : "");
    auto found = programs_.find(key);
    if (found == programs_.end()) {
        gl::ProgramBuilder builder(spec.stage);
        backends::defineCriterion(builder, connectivity_, criterion_, inputFormat_);
        builder.define("NODE_W", node_.width).define("NODE_H", node_.height);
        computeDefines(builder);
        if (resources.parentsInImage) builder.define("PARENTS_IN_IMAGE");
        spec.defines(builder, groupThreads);
        builder.compute(std::string(spec.stage) + ".comp");
        found = programs_.emplace(key, builder.build()).first;
    }
    gl::Program& program = found->second;
    program.use();
    program.set("imageSize", resources.width, resources.height);
    program.set("gridSize", resources.gridWidth, resources.gridHeight);
    const KeyDivision division = KeyDivision::of(resources.width);
    program.set("keyMultiplier", unsigned(division.multiplier));
    program.set("keyShift", unsigned(division.shift));
    return program;
}

void PassContext::checkPass(const char* stage) const { backends::checkPass(checkEachPass, "compute", stage); }

void dispatch(int groupsX, int groupsY) {
    if (groupsX > 0 && groupsY > 0) glDispatchCompute(GLuint(groupsX), GLuint(groupsY), 1);
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
}

int patchesAcross(const ComputeResources& r) { return ceilDiv(r.gridWidth, kPatchWidth); }
int patchesDown(const ComputeResources& r) { return ceilDiv(r.gridHeight, kPatchHeight); }
int labelPatchesAcross(const ComputeResources& r) { return ceilDiv(r.gridWidth, kLabelPatchWidth); }
int labelPatchesDown(const ComputeResources& r) { return ceilDiv(r.gridHeight, kLabelPatchHeight); }

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

}  // namespace glccl::compute

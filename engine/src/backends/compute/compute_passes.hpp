#pragma once
// The passes of the compute backend, one per compute program of the same
// name in glsl/ (and one timer key each). ComputeEngine::label() and
// components() list them in order.

#include <cstdint>
#include <map>
#include <string>

#include "compute_resources.hpp"
#include "gl_objects.hpp"
#include "glccl/types.hpp"
#include "stage_timer.hpp"

namespace glccl::backends::compute {

// The programs of one variant (criterion, connectivity, input format, node
// size), built on first use and kept.
class ComputePrograms {
public:
    void select(Connectivity connectivity, const Criterion& criterion, GLenum inputFormat, NodeSize node);
    // The stage's program, current, with imageSize and gridSize set.
    gl::Program& use(const std::string& stage, const ComputeResources& resources);

private:
    Connectivity connectivity_ = Connectivity::Eight;
    Criterion criterion_;
    GLenum inputFormat_ = GL_R8;
    NodeSize node_;
    std::string variant_;
    std::map<std::string, gl::Program> programs_;
};

// What every pass of one call works with.
struct Frame {
    ComputeResources& resources;
    ComputePrograms& programs;
    StageTimer& timer;
};

// glDispatchCompute, then a barrier for whatever the next pass reads
// (images, storage buffers, the label texture as a texture).
void dispatch(int groupsX, int groupsY);
// Tiles (compute_constants.hpp) over the node grid.
int tilesAcross(const ComputeResources& resources);
int tilesDown(const ComputeResources& resources);
// final_labels' label tiles over the node grid.
int labelTilesAcross(const ComputeResources& resources);
int labelTilesDown(const ComputeResources& resources);
// The input on its texture unit, for `program`.
void bindInput(gl::Program& program, const gl::Texture& input);
// Parents (buffer or image) and the node_info image on their bindings.
void bindNodeData(const ComputeResources& resources);

void localMerge(Frame& frame, const gl::Texture& input);
void mergeBorders(Frame& frame, const gl::Texture& input);
std::uint32_t countRoots(Frame& frame);  // returns the component count
void finalLabels(Frame& frame, const gl::Texture& labels, std::uint32_t count);

}  // namespace glccl::backends::compute

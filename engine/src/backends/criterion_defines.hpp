#pragma once
// The defines of glsl/criterion.glsl, shared by the GL backends: how a stage
// reads the input texture and which pixels connect.

#include <string>

#include "gl.hpp"
#include "glccl/types.hpp"
#include "program.hpp"

namespace glccl::backends {

// Throws glccl::Error when the criterion's threshold, level or delta is
// beyond the values of the format's samples. Called for every labeling
// (the programs' select()), not where a program is built: a program is
// shared by every number of its kind, so one built for a number in range
// serves a later call whose number is not.
void checkCriterion(const Criterion& criterion, GLenum inputFormat);

// CONNECTIVITY, CRITERION_* (and THRESHOLD, DELTA or BINARY_LEVEL, which
// read the uniform criterionNumber), INPUT_* for this input format.
void defineCriterion(gl::ProgramBuilder& builder, Connectivity connectivity, const Criterion& criterion,
                     GLenum inputFormat);

// CONNECTIVITY and NO_INPUT: a program that reads neither the input nor
// the criterion (criterion.glsl leaves out the input's sampler and
// functions), one text for every input format and criterion.
void defineNoInput(gl::ProgramBuilder& builder, Connectivity connectivity);

// Sets criterionNumber, the threshold, delta or binary level, in `program`
// (built with defineCriterion for this criterion's kind and this format),
// before each use: programs are shared by every number of a kind.
void setCriterionNumber(gl::Program& program, const Criterion& criterion, GLenum inputFormat);

// A short key naming that variant, for caches of built programs: the
// criterion's kind, not its number.
std::string criterionVariant(Connectivity connectivity, const Criterion& criterion, GLenum inputFormat);

// Blocks whose foreground pixels always touch (the "Nodes" of both GL
// backends): 2x2 for binary 8-connectivity, 2x1 for binary 4-connectivity,
// single pixels for segments and threshold (a block could hold two). In a
// volume (compute): 2x2x2 voxels at 26, 2x2x1 at 18 (its opposite corners
// are not 18-neighbours), 2x1x1 at 6.
struct NodeSize {
    int width = 1, height = 1, depth = 1;
    static NodeSize of(Connectivity connectivity, const Criterion& criterion);
    bool operator==(const NodeSize& other) const {
        return width == other.width && height == other.height && depth == other.depth;
    }
};

// The key of defineNoInput's variant for nodes of `node`'s size.
std::string noInputVariant(Connectivity connectivity, const NodeSize& node);

}  // namespace glccl::backends

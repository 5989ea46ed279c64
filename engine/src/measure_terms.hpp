#pragma once
// Region terms (glccl/region_properties.hpp) gathered on the GPU from a
// label texture, for Labeler::measureTerms(). Two passes over the labels,
// each run only where the request asks for its terms:
//   measure_terms    (glsl/measure_terms.comp)    moments, perimeter classes
//   measure_windows  (glsl/measure_windows.comp)  Crofton classes, Euler sums
// Both add into one storage buffer of per-region records with 32-bit
// atomics, exactly (a carry goes into the next limb); the records are read
// back once. Counts and boxes come from the component table.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "gl_objects.hpp"
#include "glccl/region_properties.hpp"
#include "glccl/types.hpp"

namespace glccl::measure {

// Bindings and sizes that glsl/measure_common.glsl receives as defines.
constexpr int kLabelsImage = 0;
constexpr int kBoxesBuffer = 0;
constexpr int kTotalsBuffer = 1;
constexpr int kGroupThreads = 64;
constexpr int kSegment = 16;  // elements (windows) of a row per invocation

// Where each term sits in a region's record of 32-bit words.
struct RecordLayout {
    int limbs = 2;  // of a moment sum
    int momentTerms = 0;
    int momentsAt = 0, perimeterAt = 0, croftonAt = 0, eulerAt = 0;
    int words = 0;
};

// Throws glccl::Error for what the GPU does not gather: intensity terms,
// a request of other dimensions than the labels', perimeter or Crofton
// terms of a volume.
void checkRequest(const TermRequest& request, int dimensions);

// The totals with only what the table gives: labels 1..n, counts and boxes
// (a request that asks for no terms needs nothing else).
RegionTotals totalsOfTable(const Shape& shape, const std::vector<Component>& table, const TermRequest& request);

class TermGatherer {
public:
    // The totals of `request` for labels 1..table.size() of `labels`
    // (GL_R32UI, GL_TEXTURE_2D or GL_TEXTURE_3D; table[i] is label i + 1).
    // OpenGL 4.3. Throws glccl::Error as checkRequest() does, and for
    // records past GL_MAX_SHADER_STORAGE_BLOCK_SIZE. Changes program, image
    // unit 0 and the storage buffer bindings (the caller guards the state).
    RegionTotals gather(const gl::Texture& labels, const std::vector<Component>& table, const TermRequest& request);

private:
    gl::Program& program(const std::string& stage, const RecordLayout& layout, const TermRequest& request);

    std::map<std::string, gl::Program> programs_;
    gl::Buffer boxes_, totals_;
    std::size_t boxesBytes_ = 0, totalsBytes_ = 0;
};

}  // namespace glccl::measure

#pragma once
// The region buffer of Labeler::regionBuffer(): one row of 64 bytes per
// region, the layout a renderer binds (glccl/labeler.hpp, RegionRow).
//   on the GPU   region_rows (glsl/region_rows.comp) from the compute
//                engine's component table and the moment sums of level 2
//                that measure_terms gathers into a buffer nothing reads back
//   a copy       rows finalized on the host (rowsOf()), uploaded: the
//                engines whose table is on the host, and contexts without
//                compute shaders

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gl_objects.hpp"
#include "glccl/labeler.hpp"
#include "glccl/region_properties.hpp"
#include "measure_terms.hpp"

namespace glccl::measure {

class RegionRowWriter {
public:
    // The properties rowsOf() reads, of a labeling of `dimensions`.
    static std::vector<std::string> rowProperties(int dimensions);
    // The rows of `table`, which holds rowProperties(dimensions).
    static std::vector<RegionRow> rowsOf(const PropertyTable& table, int dimensions);

    // `rows` uploaded into `buffer` (made, and grown to `capacity` bytes,
    // as needed; at least one row, so that it binds where there are none).
    // Changes the pixel-unpack buffer binding (the caller guards the state).
    static void upload(const std::vector<RegionRow>& rows, gl::Buffer& buffer, std::size_t& capacity);

    // The rows of labels 1..count of `labels` written into `buffer` on the
    // GPU, from the compute engine's table (`table`, a volume's where
    // `volume`) and moment sums `gatherer` leaves on the GPU. OpenGL 4.3.
    // Changes program, image units 0 and 2, the storage and pixel-unpack
    // buffer bindings (the caller guards the state). With `timer`, the
    // corners' and rows' passes are the stage region_rows, the moment sums'
    // the gatherer's (measure_terms).
    void writeOnGpu(const gl::Texture& labels, unsigned table, bool volume, std::uint32_t count,
                    TermGatherer& gatherer, gl::Buffer& buffer, std::size_t& capacity, StageTimer* timer = nullptr);

    // Batches of at most `bytes` of moment sums or rows (0:
    // GL_MAX_SHADER_STORAGE_BLOCK_SIZE), for tests of a labeling of many
    // batches.
    void setLargestBatch(std::size_t bytes) { largestBatchBytes_ = bytes; }

private:
    gl::Program& program(const std::string& stage, int dimensions, const RecordLayout& layout);

    std::map<std::string, gl::Program> programs_;
    std::size_t largestBatchBytes_ = 0;
};

}  // namespace glccl::measure

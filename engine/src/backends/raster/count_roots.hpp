#pragma once
#include "raster_pass.hpp"

namespace glccl::raster {

// count_roots (count_roots.frag, O'Connell §8, Fig. 8.1): roots counted by
// an occlusion query.
class CountRootsPass {
public:
    static constexpr const char* kStage = "count_roots";
    CountRootsPass() : query_(gl::Query::create()) {}
    // `scratch`: any target of the grid's size; nothing is written to it.
    std::uint32_t run(const PassContext& context, const gl::RenderTarget& ids, const gl::RenderTarget& scratch);

private:
    gl::Query query_;  // GL_SAMPLES_PASSED: a query object keeps the target of its first use
};

}  // namespace glccl::raster

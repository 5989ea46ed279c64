#pragma once
#include <vector>

#include "raster_pass.hpp"

namespace glccl::raster {

// scan_roots (scan_roots_masks.frag, scan_roots_reduce.frag,
// scan_roots_offsets.frag): any number of roots numbered by a prefix count
// of root flags in raster order over the scan grid, as a pyramid of render
// passes:
//
//     scan grid  --masks--->  level 0 (masks of kScanBlock texels, along x)
//                --reduce-->  level 1 .. (counts along x, then along y,
//                             up to kMaxScanSum texels a sum)
//                --reduce-->  top (1x1)
//     offsets back down the pyramid to level 0. A root's label is then its
//     level-0 block's offset plus the roots before it in the block's mask,
//     plus one: two fetches where it is read (common.glsl's rootLabelOf).
class ScanRootsPass {
public:
    static constexpr const char* kStage = "scan_roots";
    // Leaves the offsets of every level (LabeledGrid's rootOffsets: level
    // 0's, or scanZero where level 0 is the top). `upSwept`: count() ran on
    // these IDs, its up-sweep is reused.
    void run(const PassContext& context, const gl::RenderTarget& ids, const std::vector<ScanLevel>& levels,
             const gl::RenderTarget& scanZero, bool upSwept = false);
    // The number of roots from the up-sweep's top texel: count_roots where
    // occlusion queries only say any or none (OpenGL ES). countUp() and
    // readCount() are its two halves, so that the read (a wait for the
    // GPU) can come after the passes that do not need the count.
    std::uint32_t count(const PassContext& context, const gl::RenderTarget& ids, const std::vector<ScanLevel>& levels);
    void countUp(const PassContext& context, const gl::RenderTarget& ids, const std::vector<ScanLevel>& levels);
    std::uint32_t readCount(const PassContext& context, const std::vector<ScanLevel>& levels);

private:
    void upSweep(const PassContext& context, const gl::RenderTarget& ids, const std::vector<ScanLevel>& levels);
};

}  // namespace glccl::raster

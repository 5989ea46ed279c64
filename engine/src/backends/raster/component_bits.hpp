#pragma once
#include <vector>

#include "raster_pass.hpp"

namespace glccl::raster {

// component_bits (component_bits_mark.vert, component_bits.vert/.frag,
// component_bits_fold.frag): exact sums for the components whose float sums
// in the table are not exact. For the listed labels only, it counts the
// pixels and, per bit of x and of y, the pixels with that bit set, in bands
// of at most 2^24 pixels (exact in R32F), folding each band into 32-bit
// integer totals, which it downloads. All of a component's points in a band
// would blend into its one texel, one after another; they go to
// `sums.spread` texels instead, by their segment, and the fold adds the
// partial counts (each at most the band's pixels, so exact too).
class ComponentBitsPass {
public:
    static constexpr const char* kStage = "component_bits";
    ComponentBitsPass() : query_(gl::Query::create()) {}
    // `sums` reserved for `largeLabels` (RasterResources::reserveLargeSums).
    // Writes 32 counters per listed label into `counters` (label i of the
    // list at 32 * i): the area, then 15 bit counts of x, then 15 of y.
    void run(const PassContext& context, const LabeledGrid& grid, const TableTargets& table, LargeSumTargets& sums,
             const std::vector<std::uint32_t>& largeLabels, int bandPixels, std::vector<std::uint64_t>& counters);

private:
    gl::Query query_;
    // The list's upload and the totals' read-back, kept from call to call.
    std::vector<std::uint32_t> list_, texels_;
};

}  // namespace glccl::raster

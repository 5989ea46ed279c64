// merge_borders: joins the trees of the links that leave a patch (Stava &
// Benes' border merge, all borders at once: the union of node_grid.cuh is
// complete when its thread finishes, so no levels are needed). One thread
// block per patch walks the patch's border nodes (its top row, its left and
// right columns); each link of theirs to a node of another patch is one
// global union, unless the border node before it shows the union implied
// (redundantLink). Binary blocks link by their masks alone, so one kernel
// (NonzeroBytes') serves every binary criterion and sample width; pixels
// (segments, threshold, delta) by the criterion on the input. The same
// steps as glsl/merge_borders.comp.
//
//        top row: x = 0 .. 31, y = 0 (links L, UL, U, UR out of the patch)
//       +--------------------------------+
//   left|                                |right    left column: x = 0,
//       |                                |         y = 1 .. 31 (L, UL);
//       |                                |         right column: x = 31,
//       +--------------------------------+         y = 1 .. 31 (UR)
// Links into the patch below or to the right are those patches' own.

#include "node_grid.cuh"
#include "stage_timer.hpp"

namespace glccl::cuda {
namespace {

constexpr int kBorderNodes = kNodePatchSide + 2 * (kNodePatchSide - 1);

// Border node i of the patch, in the patch's coordinates.
__device__ __forceinline__ int2 borderNode(int i) {
    if (i < kNodePatchSide) return make_int2(i, 0);                                            // top row
    if (i < 2 * kNodePatchSide - 1) return make_int2(0, i - kNodePatchSide + 1);               // left column
    return make_int2(kNodePatchSide - 1, i - (2 * kNodePatchSide - 1) + 1);                    // right column
}

// The border node before node i along the same side (x or y one less), or
// (-1, -1) for the first.
__device__ __forceinline__ int2 previousOnBorder(int2 local, int i) {
    if (i == 0) return make_int2(-1, -1);
    return i < kNodePatchSide ? make_int2(local.x - 1, local.y) : make_int2(local.x, local.y - 1);
}

__device__ __forceinline__ bool outsidePatch(int2 local, int d) {
    const int2 o = backwardNode(d);
    const int mx = local.x + o.x;
    const int my = local.y + o.y;
    return mx < 0 || my < 0 || mx >= kNodePatchSide;
}

template <class Criterion, int NodeW, int NodeH>
struct Border {
    Forest<NodeW, NodeH> forest;
    const typename Criterion::Sample* image;
    const std::uint8_t* masks;
    PixelRule rule;
    Criterion criterion;

    // Does node (nx, ny) (patch coordinates `local`, mask `mask`) link to
    // its backward neighbour d, a node of another patch?
    __device__ __forceinline__ bool linksOut(int nx, int ny, int2 local, std::uint32_t mask, int d) const {
        const NodeImage<NodeW, NodeH>& im = forest.im;
        const int2 o = backwardNode(d);
        if (!outsidePatch(local, d) || !im.insideGrid(nx + o.x, ny + o.y)) return false;
        if constexpr (NodeW * NodeH > 1) {
            return masksLink<NodeW, NodeH>(mask, masks[im.nodeIndex(nx + o.x, ny + o.y)], d);
        } else {
            const typename Criterion::Sample v = image[std::size_t(ny) * std::size_t(im.grid.width) + std::size_t(nx)];
            return pixelLinks(im, image, nx, ny, v, d, rule, criterion);
        }
    }

    // Is node n's link to a node whose parent reads `target` implied by the
    // border node before it? That node must read the same parent as n (one
    // tree) and link out to a node that reads `target` too. Parents only
    // point into their tree, so equal reads are one tree however they
    // interleave with other unions; along the border, by induction, every
    // link skipped is implied by links that are united.
    __device__ __forceinline__ bool redundantLink(int originX, int originY, int2 local, int i, std::uint32_t parent,
                                                  std::uint32_t target) const {
        const NodeImage<NodeW, NodeH>& im = forest.im;
        const int2 before = previousOnBorder(local, i);
        if (before.x < 0) return false;
        const int px = originX + before.x;
        const int py = originY + before.y;
        if (!im.insideGrid(px, py)) return false;
        const std::uint32_t mask = masks[im.nodeIndex(px, py)];
        if (mask == 0u || forest.parents[im.nodeIndex(px, py)] != parent) return false;
        for (int d = 0; d < 4; ++d) {
            const int2 o = backwardNode(d);
            if (linksOut(px, py, before, mask, d) && forest.parents[im.nodeIndex(px + o.x, py + o.y)] == target) {
                return true;
            }
        }
        return false;
    }
};

template <class Criterion, int NodeW, int NodeH>
__global__ void __launch_bounds__(kBorderThreads)
    mergeBordersKernel(const typename Criterion::Sample* __restrict__ image, std::uint32_t* parents,
                       const std::uint8_t* __restrict__ masks, BlockGrid grid, PixelRule rule) {
    const std::size_t imageIndex = blockIdx.z;
    const Border<Criterion, NodeW, NodeH> border{
        Forest<NodeW, NodeH>{NodeImage<NodeW, NodeH>{grid}, parents + imageIndex * grid.nodesPerImage()},
        image + imageIndex * grid.pixelsPerImage(), masks + imageIndex * grid.nodesPerImage(), rule,
        Criterion::of(rule)};
    const NodeImage<NodeW, NodeH>& im = border.forest.im;
    const int originX = int(blockIdx.x) * kNodePatchSide;
    const int originY = int(blockIdx.y) * kNodePatchSide;

    for (int i = int(threadIdx.x); i < kBorderNodes; i += kBorderThreads) {
        const int2 local = borderNode(i);
        const int nx = originX + local.x;
        const int ny = originY + local.y;
        if (!im.insideGrid(nx, ny)) continue;
        const std::uint32_t mask = border.masks[im.nodeIndex(nx, ny)];
        if (mask == 0u) continue;
        for (int d = 0; d < 4; ++d) {
            if (!border.linksOut(nx, ny, local, mask, d)) continue;
            const int2 o = backwardNode(d);
            const std::uint32_t parent = border.forest.parents[im.nodeIndex(nx, ny)];
            const std::uint32_t target = border.forest.parents[im.nodeIndex(nx + o.x, ny + o.y)];
            if (border.redundantLink(originX, originY, local, i, parent, target)) continue;
            border.forest.unite(parent, target);
        }
    }
}

template <class Criterion, int NodeW, int NodeH>
void launchMergeBorders(const PassContext& context, const void* d_samples, std::uint32_t* d_parents,
                        const std::uint8_t* d_masks, const BlockGrid& grid, const PixelRule& rule) {
    const dim3 blocks(unsigned((grid.gridWidth + kNodePatchSide - 1) / kNodePatchSide),
                      unsigned((grid.gridHeight + kNodePatchSide - 1) / kNodePatchSide), unsigned(grid.images));
    mergeBordersKernel<Criterion, NodeW, NodeH><<<blocks, kBorderThreads, 0, context.stream>>>(
        static_cast<const typename Criterion::Sample*>(d_samples), d_parents, d_masks, grid, rule);
    context.check.launched("mergeBorders", context.stream);
}

}  // namespace

void MergeBordersPass::run(const PassContext& context, const void* d_samples, std::uint32_t* d_parents,
                           const std::uint8_t* d_masks, const BlockGrid& grid, const PixelRule& rule) {
    auto scope = context.timer.scope(kStage);
    withSampleCriterion(rule, [&](auto criterion) {
        using Criterion = decltype(criterion);
        if constexpr (Criterion::kBinary) {
            // Blocks link by their masks: the samples are not read.
            withCriterionNodeShape<Criterion>(grid, [&](auto shape) {
                using Shape = decltype(shape);
                launchMergeBorders<NonzeroBytes, Shape::width, Shape::height>(context, d_samples, d_parents, d_masks,
                                                                              grid, rule);
            });
        } else {
            launchMergeBorders<Criterion, 1, 1>(context, d_samples, d_parents, d_masks, grid, rule);
        }
    });
}

}  // namespace glccl::cuda

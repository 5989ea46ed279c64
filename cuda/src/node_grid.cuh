#pragma once
// Shared by the block kernels (local_merge, merge_borders, count_roots,
// final_labels): nodes, keys, and the forest over keys (union_find.cuh's).
// The same design as the compute engine's (glsl/compute_common.glsl), in
// CUDA.
//
// Nodes. The kernels label a grid of nodes, blocks of NodeW x NodeH pixels
// whose foreground pixels always touch one another: 2 x 2 for binary images
// at 8-connectivity, 2 x 1 at 4-connectivity, single pixels for segments and
// threshold (a block could hold two segments). Pixel i of a node is bit i of
// its foreground mask, row by row:
//
//      +---+---+         node n links to its backward neighbours
//      | 0 | 1 |         (the nodes before it in raster order):
//      +---+---+
//      | 2 | 3 |              UL  U  UR        d = 1 2 3
//      +---+---+              L   n            d = 0
//
// Every adjacent pair of nodes is one node's backward link, so the backward
// links alone describe the graph (at 4-connectivity the diagonal ones, d = 1
// and 3, never link).
//
// Keys. A node is known by the key of its first foreground pixel in raster
// order: (y << keyLineBits) | x, the image's width rounded up to a power of
// two. Keys order like raster positions, so the smallest key of a component
// is its first pixel, the one the output contract numbers it by, and a key's
// line is a shift away. A node's parent is the key of a node of the same
// component with a smaller or equal key; a root holds its own key. Unions
// keep the smaller key (atomicMin), so every root ends as its component's
// first pixel. Keys stay below kRankFlag (blockGridFits, passes.hpp), which
// count_roots sets on a root's entry beside its rank.
//
// A batch of images is one grid per image, side by side in memory; blockIdx.z
// (count_roots: blockIdx.y) is the image, and every key is local to its
// image. A volume would add a third axis to NodeCoord and nine backward
// neighbours in the slice before; the functions below take the node shape as
// template arguments so that such a sibling shares them.

#include <cstdint>
#include <type_traits>

#include <vector_types.h>

#include "connectivity.cuh"
#include "criterion.cuh"
#include "passes.hpp"
#include "union_find.cuh"

namespace glccl::cuda {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;
constexpr std::uint32_t kRankFlag = 0x80000000u;

__device__ __forceinline__ int2 backwardNode(int d) {
    constexpr int kDx[4] = {-1, -1, 0, 1};
    constexpr int kDy[4] = {0, -1, -1, -1};
    return make_int2(kDx[d], kDy[d]);
}

// One image of a batch, as every block kernel sees it.
template <int NodeW, int NodeH>
struct NodeImage {
    static constexpr int kNodePixels = NodeW * NodeH;
    static constexpr std::uint32_t kMaskBits = (1u << kNodePixels) - 1u;

    BlockGrid grid;

    __device__ __forceinline__ bool insideGrid(int nx, int ny) const {
        return nx >= 0 && ny >= 0 && nx < grid.gridWidth && ny < grid.gridHeight;
    }
    __device__ __forceinline__ bool insideImage(int x, int y) const {
        return x >= 0 && y >= 0 && x < grid.width && y < grid.height;
    }
    __device__ __forceinline__ std::uint32_t nodeIndex(int nx, int ny) const {
        return std::uint32_t(ny) * std::uint32_t(grid.gridWidth) + std::uint32_t(nx);
    }
    __device__ __forceinline__ std::uint32_t keyOf(int x, int y) const {
        return (std::uint32_t(y) << grid.keyLineBits) | std::uint32_t(x);
    }
    __device__ __forceinline__ int lineOfKey(std::uint32_t key) const { return int(key >> grid.keyLineBits); }
    __device__ __forceinline__ int xOfKey(std::uint32_t key) const {
        return int(key & ((1u << grid.keyLineBits) - 1u));
    }
    // The node of the pixel of `key`, as its index in the grid.
    __device__ __forceinline__ std::uint32_t nodeOfKey(std::uint32_t key) const {
        return nodeIndex(xOfKey(key) / NodeW, lineOfKey(key) / NodeH);
    }
    // Node (nx, ny)'s first foreground pixel (mask != 0).
    __device__ __forceinline__ int2 firstPixel(int nx, int ny, std::uint32_t mask) const {
        const int bit = __ffs(int(mask)) - 1;
        return make_int2(nx * NodeW + bit % NodeW, ny * NodeH + bit / NodeW);
    }
    __device__ __forceinline__ std::uint32_t ownKey(int nx, int ny, std::uint32_t mask) const {
        const int2 p = firstPixel(nx, ny, mask);
        return keyOf(p.x, p.y);
    }
};

// Two neighbouring samples of a row, loaded as one.
template <typename Sample>
struct alignas(2 * sizeof(Sample)) SamplePair {
    Sample first, second;
};

// The foreground mask of binary node (nx, ny) under `criterion` (Nonzero
// or Above): pixels past the image are background. A node's row is one
// load of both samples where the image's rows and the pointer keep pairs
// aligned (pairs: width even and data aligned to two samples), else a
// sample per pixel.
template <class Criterion, int NodeW, int NodeH>
__device__ __forceinline__ std::uint32_t binaryNodeMask(const NodeImage<NodeW, NodeH>& im,
                                                        const typename Criterion::Sample* __restrict__ pixels, int nx,
                                                        int ny, bool pairs, const Criterion& criterion) {
    using Sample = typename Criterion::Sample;
    std::uint32_t mask = 0;
#pragma unroll
    for (int r = 0; r < NodeH; ++r) {
        const int y = ny * NodeH + r;
        if (y >= im.grid.height) break;
        const int x = nx * NodeW;
        const Sample* row = pixels + std::size_t(y) * std::size_t(im.grid.width);
        if (NodeW == 2 && pairs) {
            if constexpr (std::is_same_v<Criterion, NonzeroBytes>) {
                const unsigned pair = *reinterpret_cast<const unsigned short*>(row + x);
                mask |= (((pair & 0xFFu) != 0u ? 1u : 0u) | ((pair >> 8) != 0u ? 2u : 0u)) << (r * NodeW);
            } else {
                const SamplePair<Sample> pair = *reinterpret_cast<const SamplePair<Sample>*>(row + x);
                mask |= ((criterion.isForeground(pair.first) ? 1u : 0u) |
                         (criterion.isForeground(pair.second) ? 2u : 0u))
                        << (r * NodeW);
            }
        } else {
#pragma unroll
            for (int i = 0; i < NodeW; ++i) {
                if (x + i < im.grid.width && criterion.isForeground(row[x + i])) mask |= 1u << (r * NodeW + i);
            }
        }
    }
    return mask;
}

// Do binary blocks of masks m and b touch, b being m's backward neighbour d?
// Any foreground pixels of the two that are adjacent connect.
template <int NodeW, int NodeH>
__device__ __forceinline__ bool masksLink(std::uint32_t m, std::uint32_t b, int d) {
    if (NodeH == 2) {  // 2x2 blocks, 8-connectivity: pixel bits 0 1 / 2 3
        if (d == 0) return (m & 5u) != 0u && (b & 10u) != 0u;  // left column, its right column
        if (d == 1) return (m & 1u) != 0u && (b & 8u) != 0u;   // corner to corner
        if (d == 2) return (m & 3u) != 0u && (b & 12u) != 0u;  // top row, its bottom row
        return (m & 2u) != 0u && (b & 4u) != 0u;
    }
    // 2x1 blocks, 4-connectivity: pixel bits 0 1
    if (d == 0) return (m & 1u) != 0u && (b & 2u) != 0u;
    if (d == 2) return (m & b) != 0u;
    return false;
}

// Does foreground pixel (x, y) (value v) connect to its backward neighbour d?
template <class Criterion>
__device__ __forceinline__ bool pixelLinks(const NodeImage<1, 1>& im,
                                           const typename Criterion::Sample* __restrict__ pixels, int x, int y,
                                           typename Criterion::Sample v, int d, const PixelRule& rule,
                                           const Criterion& criterion) {
    if (rule.connectivity == 4 && (d & 1) == 1) return false;
    const int2 o = backwardNode(d);
    const int qx = x + o.x;
    const int qy = y + o.y;
    if (!im.insideImage(qx, qy)) return false;
    return criterion.connects(v, pixels[std::size_t(qy) * std::size_t(im.grid.width) + std::size_t(qx)]);
}

// A key's entry in the forest of one image: its node's index in the grid.
template <int NodeW, int NodeH>
struct GridSlots {
    NodeImage<NodeW, NodeH> im;
    __device__ __forceinline__ std::uint32_t slotOf(std::uint32_t key) const { return im.nodeOfKey(key); }
};

// The global forest of one image: parents[nodeIndex] holds keys.
template <int NodeW, int NodeH>
struct Forest {
    NodeImage<NodeW, NodeH> im;
    std::uint32_t* parents;

    __device__ __forceinline__ KeyForest<GridSlots<NodeW, NodeH>, PlainEntries> keys() const {
        return {{im}, {parents}};
    }

    // The root of the node of `key` while count_roots numbers the forest: a
    // walk stops at a root's own key or at the rank (kRankFlag) that
    // replaced it. Parents only decrease and stay in the component, so a
    // stale read is still an ancestor: the walk ends.
    __device__ __forceinline__ std::uint32_t rootOf(std::uint32_t key) const {
        for (;;) {
            const std::uint32_t parent = parents[im.nodeOfKey(key)];
            if (parent == key || (parent & kRankFlag) != 0u) return key;
            key = parent;
        }
    }

    // union_find.cuh's union, halving paths. Only before count_roots: its
    // rank flags must never be copied into another node.
    // The 2-D block kernels' form (union_find.cuh, LinkSite).
    __device__ __forceinline__ void unite(std::uint32_t a, std::uint32_t b) const {
        keys().template unite<true, LinkSite::Either>(a, b);
    }
};

// The grid's node size as compile-time constants, for the launches of the
// passes: calls launch(NodeShape<W, H>{}) with 2 x 2, 2 x 1 or 1 x 1.
// `Blocks` false instantiates 1 x 1 alone (pixels of several channels,
// which no block holds).
template <int W, int H>
struct NodeShape {
    static constexpr int width = W, height = H;
};

template <bool Blocks = true, class Launch>
void withNodeShape(const BlockGrid& grid, Launch&& launch) {
    if constexpr (Blocks) {
        if (grid.nodeWidth == 2 && grid.nodeHeight == 2) return launch(NodeShape<2, 2>{});
        if (grid.nodeWidth == 2) return launch(NodeShape<2, 1>{});
    }
    launch(NodeShape<1, 1>{});
}

// The passes that read samples know the criterion at compile time: a
// binary one's blocks (2 x 2 or 2 x 1), else single pixels.
template <class Criterion, class Launch>
void withCriterionNodeShape(const BlockGrid& grid, Launch&& launch) {
    if constexpr (Criterion::kBinary) {
        if (grid.nodeHeight == 2) return launch(NodeShape<2, 2>{});
        launch(NodeShape<2, 1>{});
    } else {
        launch(NodeShape<1, 1>{});
    }
}

}  // namespace glccl::cuda

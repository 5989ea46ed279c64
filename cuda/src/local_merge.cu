// local_merge: the only stage that reads the whole input (Stava & Benes'
// kernel 1 on nodes: each patch solved in shared memory). One thread block
// per patch of kNodePatchSide x kNodePatchSide nodes, 32 x 8 threads:
//   1. every node's foreground mask (single pixels also keep their value),
//      each thread a column of kPasses nodes;
//   2. each thread takes a segment of kPasses consecutive nodes of one line
//      and joins the nodes its left links chain together into runs; every
//      node of a run points at the run's smallest key, with no atomics;
//   3. union-find in shared memory over the links that are left: a run's
//      upper links, and its first node's left link into the segment before.
//      A link implied by two others is skipped (neighboursLinked), and so is
//      one whose neighbour reads the same parent as the run's last union;
//   4. each run's root is found once, by the thread of its segment, and
//      every node leaves with it (its patch-local root, as a key of the
//      image) in parents and its mask in masks.
// Links that leave the patch are merge_borders' work. The same steps as
// glsl/local_merge.comp, but for the keys in shared memory (Patch::localKey)
// and step 4's walk per run rather than per node.

#include "node_grid.cuh"
#include "stage_timer.hpp"
#include "warp_links.cuh"

namespace glccl::cuda {
namespace {

constexpr int kThreads = kNodePatchSide * kNodePatchLinesPerPass;
constexpr int kPatchNodes = kNodePatchSide * kNodePatchSide;
// Nodes per thread, in a column (steps 1, 4) or a line segment (steps 2, 3).
constexpr int kPasses = kNodePatchSide / kNodePatchLinesPerPass;
constexpr int kSegmentsPerLine = kNodePatchSide / kPasses;
static_assert(kSegmentsPerLine * kNodePatchSide == kThreads, "segments cover the patch, one per thread");
// Links per warp in step 3's queue (WarpLinks): two keys each. The queue
// flushes once it could not take another round of 32: at 64 entries a noisy
// patch flushed after nearly every round, uniting its links about as one at
// a time as without the queue; at 128 each flush unites three or four rounds'
// links at once.
constexpr int kLinkQueue = 128;
static_assert(kThreads % 32 == 0, "whole warps");

// Parents in shared memory change under the patch's concurrent unions
// (steps 3 and 4), so every access there is an atomic (union_find.cuh,
// SharedEntries).

// A local key's slot in the patch (Patch::localKey): its node.
template <int NodeH>
struct PatchSlots {
    static constexpr int kSideBits = 5;
    static_assert(kNodePatchSide == 1 << kSideBits, "a local key's x is its low kSideBits bits");
    __device__ __forceinline__ int slotOf(std::uint32_t key) const {
        if constexpr (NodeH == 2) return int(((key >> (kSideBits + 1)) << kSideBits) | (key & (kNodePatchSide - 1)));
        return int(key);
    }
};

// The patch in shared memory: parents (local keys, see localKey), masks and,
// for single-pixel nodes, the pixels' values.
template <class Criterion, int NodeW, int NodeH>
struct Patch {
    using Sample = typename Criterion::Sample;
    static constexpr int kSideBits = PatchSlots<NodeH>::kSideBits;

    NodeImage<NodeW, NodeH> im;
    int originX, originY;  // node coordinates of the patch's first node
    std::uint32_t* parents;
    const std::uint8_t* masks;
    const Sample* values;  // single-pixel nodes only
    PixelRule rule;
    Criterion criterion;

    // A node's key inside the patch: its first pixel's line in the patch,
    // then its node column, (line << kSideBits) | lx. Local keys order like
    // the image's keys (a node's pixel line, then its x), so the smallest
    // local key of a tree is its smallest key; and the slot of a key is a
    // shift and a mask away where the image's key took a division of each
    // coordinate and a multiply, in every step of every walk.
    __device__ __forceinline__ std::uint32_t localKey(int lx, int ly, std::uint32_t mask) const {
        const int line = ly * NodeH + (NodeH == 2 && (mask & 3u) == 0u ? 1 : 0);
        return std::uint32_t(line << kSideBits) | std::uint32_t(lx);
    }
    __device__ __forceinline__ int localIndexOfKey(std::uint32_t key) const { return PatchSlots<NodeH>{}.slotOf(key); }
    // The patch's forest over local keys (union_find.cuh).
    __device__ __forceinline__ KeyForest<PatchSlots<NodeH>, SharedEntries> forest() const { return {{}, {parents}}; }
    // The image's key of the node of local key `key`.
    __device__ __forceinline__ std::uint32_t imageKey(std::uint32_t key) const {
        const int i = localIndexOfKey(key);
        return im.ownKey(originX + (i & (kNodePatchSide - 1)), originY + (i >> kSideBits), masks[i]);
    }


    // Does node (lx, ly) (mask m) link to its in-patch backward neighbour d?
    __device__ __forceinline__ bool linksInPatch(int lx, int ly, std::uint32_t m, int d) const {
        const int2 o = backwardNode(d);
        const int bx = lx + o.x;
        const int by = ly + o.y;
        if (bx < 0 || by < 0 || bx >= kNodePatchSide) return false;
        const std::uint32_t neighbourMask = masks[by * kNodePatchSide + bx];
        if (neighbourMask == 0u) return false;
        if constexpr (NodeW * NodeH > 1) {
            return masksLink<NodeW, NodeH>(m, neighbourMask, d);
        } else {
            if (rule.connectivity == 4 && (d & 1) == 1) return false;
            return criterion.connects(values[ly * kNodePatchSide + lx], values[by * kNodePatchSide + bx]);
        }
    }

    // Are backward neighbours a and b of node (lx, ly) (both linked to it, so
    // both in the patch and foreground) linked to each other? Only the pairs
    // that touch are asked: U with UL (UL is U's left neighbour), UR with U
    // (U is UR's left neighbour), L with U (U is L's upper-right neighbour),
    // L with UL (UL is L's upper neighbour). Such a link has both ends before
    // this node in raster order and inside the patch, so local_merge unites
    // it (or a path that implies it) itself: this node need not. Equal
    // segment values are transitive, so for segments two neighbours linked
    // to this node always are.
    __device__ __forceinline__ bool neighboursLinked(int lx, int ly, int a, int b) const {
        if constexpr (NodeH == 2) {
            const int2 oa = backwardNode(a);
            const int2 ob = backwardNode(b);
            // From a's point of view b is its neighbour e.
            const int e = (a == 2 && b == 1) ? 0 : (a == 3 && b == 2) ? 0 : (a == 0 && b == 2) ? 3 : 2;
            return masksLink<NodeW, NodeH>(masks[(ly + oa.y) * kNodePatchSide + lx + oa.x],
                                           masks[(ly + ob.y) * kNodePatchSide + lx + ob.x], e);
        } else {
            return true;
        }
    }

    // Whether neighboursLinked may prune: 8-connected 2 x 2 blocks, or
    // segments (transitive); never threshold, delta or 4-connectivity.
    __device__ __forceinline__ bool prunes() const {
        return rule.connectivity == 8 && (NodeH == 2 || rule.kind == PixelRuleKind::Segments);
    }

    // Step 2: the runs of this thread's segment. A node joins the run of the
    // node before it when its left link connects them; each node of a run
    // gets the run's smallest key as its parent (a plain store: nothing else
    // writes these entries before the barrier), also kept in runKeys.
    // Returns bit j set where node j joined the run of node j - 1.
    __device__ __forceinline__ std::uint32_t joinRuns(int fx, int fy, std::uint32_t (&runKeys)[kPasses]) const {
        std::uint32_t keys[kPasses];
        bool joined[kPasses];
        std::uint32_t smallest[kPasses];  // the smallest key of node j's run up to j
#pragma unroll
        for (int j = 0; j < kPasses; ++j) {
            const std::uint32_t mask = masks[fy * kNodePatchSide + fx + j];
            keys[j] = mask != 0u ? localKey(fx + j, fy, mask) : kNone;
            joined[j] = j > 0 && mask != 0u && keys[j - 1] != kNone && linksInPatch(fx + j, fy, mask, 0);
            smallest[j] = joined[j] ? min(smallest[j - 1], keys[j]) : keys[j];
        }
        std::uint32_t parent = kNone;
        std::uint32_t joinedBits = 0;
#pragma unroll
        for (int j = kPasses - 1; j >= 0; --j) {
            if (j == kPasses - 1 || !joined[j + 1]) parent = smallest[j];
            runKeys[j] = keys[j] != kNone ? parent : kNone;
            parents[fy * kNodePatchSide + fx + j] = runKeys[j];
            if (joined[j]) joinedBits |= 1u << j;
        }
        return joinedBits;
    }

    // Step 3: the unions of this thread's segment (joinedBits, runKeys:
    // joinRuns'). A run starts from the key joinRuns gave it, a node of its
    // tree, without reading it back. Every lane offers its links in step
    // with the others, the same number of times (Links: WarpLinks), and the
    // warp unites them together.
    template <class Links, class Unite>
    __device__ __forceinline__ void uniteSegment(int fx, int fy, std::uint32_t joinedBits,
                                                 const std::uint32_t (&runKeys)[kPasses], Links& links,
                                                 Unite&& unite) const {
        std::uint32_t runParent = kNone;   // the run's smallest key (joinRuns)
        std::uint32_t lastTarget = kNone;  // what the run's last offered link read at its neighbour
#pragma unroll
        for (int j = 0; j < kPasses; ++j) {
            const int lx = fx + j;
            const std::uint32_t mask = masks[fy * kNodePatchSide + lx];
            bool link[4] = {false, false, false, false};
            if (mask != 0u) {
                // Past the segment's first node a left link is exactly what
                // joined the node to the run before it: nothing to unite.
                link[0] = j == 0 && linksInPatch(lx, fy, mask, 0);
                if ((joinedBits & (1u << j)) == 0u) {
                    runParent = runKeys[j];
                    lastTarget = kNone;
                }
#pragma unroll
                for (int d = 1; d < 4; ++d) link[d] = linksInPatch(lx, fy, mask, d);
                prune(lx, fy, link);
            }
            // Left first, then the upper neighbours from left to right: two
            // neighbours that read the same parent are one tree (parents
            // only point into their tree), so the run offers it once.
#pragma unroll
            for (int d = 0; d < 4; ++d) {
                // Links that cannot be are not offered (each offer is a
                // ballot of the whole warp): a left one past the segment's
                // first node, a diagonal one between 2 x 1 blocks.
                if (d == 0 && j > 0) continue;
                if (NodeW == 2 && NodeH == 1 && (d & 1) == 1) continue;
                bool has = link[d];
                std::uint32_t target = kNone;
                if (has) {
                    const int2 o = backwardNode(d);
                    target = forest().load((fy + o.y) * kNodePatchSide + lx + o.x);
                    has = target != lastTarget;
                    if (has) lastTarget = target;
                }
                links.push(has, make_uint2(runParent, target), unite);
            }
        }
    }

    // Step 4, first half: the root of each run of this thread's segment
    // (joinedBits, runKeys: joinRuns'), walked to once and stored in every
    // node of the run. The unions are over: the root is the smallest key of
    // its tree, so the atomicMin leaves it in the node.
    __device__ __forceinline__ void storeRunRoots(int fx, int fy, std::uint32_t joinedBits,
                                                  const std::uint32_t (&runKeys)[kPasses]) const {
        std::uint32_t root = kNone;
#pragma unroll
        for (int j = 0; j < kPasses; ++j) {
            if (runKeys[j] == kNone) continue;
            if ((joinedBits & (1u << j)) == 0u) root = forest().rootHalving(runKeys[j]);
            atomicMin(&parents[fy * kNodePatchSide + fx + j], root);
        }
    }

    // A link to a neighbour that is itself linked to one this node unites
    // with adds nothing (see neighboursLinked).
    __device__ __forceinline__ void prune(int lx, int fy, bool (&link)[4]) const {
        if (!prunes()) return;
        if (link[2]) {
            if (link[1] && neighboursLinked(lx, fy, 2, 1)) link[1] = false;
            if (link[3] && neighboursLinked(lx, fy, 3, 2)) link[3] = false;
            if (link[0] && neighboursLinked(lx, fy, 0, 2)) link[0] = false;
        } else if (link[0] && link[1] && neighboursLinked(lx, fy, 0, 1)) {
            link[1] = false;
        }
    }
};

template <class Criterion, int NodeW, int NodeH>
__global__ void __launch_bounds__(kThreads)
    localMergeKernel(const typename Criterion::Sample* __restrict__ image, std::uint32_t* __restrict__ parents,
                     std::uint8_t* __restrict__ masks, BlockGrid grid, PixelRule rule) {
    using Sample = typename Criterion::Sample;
    constexpr bool kPixelNodes = NodeW * NodeH == 1;
    __shared__ std::uint32_t sParents[kPatchNodes];
    __shared__ std::uint8_t sMasks[kPatchNodes];
    __shared__ Sample sValues[kPixelNodes ? kPatchNodes : 1];
    __shared__ uint2 sQueue[kThreads / 32][kLinkQueue];  // each warp's links (WarpLinks)

    const std::size_t imageIndex = blockIdx.z;
    image += imageIndex * grid.pixelsPerImage();
    parents += imageIndex * grid.nodesPerImage();
    masks += imageIndex * grid.nodesPerImage();

    const Patch<Criterion, NodeW, NodeH> patch{NodeImage<NodeW, NodeH>{grid},
                                               int(blockIdx.x) * kNodePatchSide,
                                               int(blockIdx.y) * kNodePatchSide,
                                               sParents,
                                               sMasks,
                                               sValues,
                                               rule,
                                               Criterion::of(rule)};
    const NodeImage<NodeW, NodeH>& im = patch.im;
    // Whole pairs of samples per node row (binaryNodeMask): every image of
    // a batch then starts aligned too.
    const bool pairs =
        grid.width % 2 == 0 && (reinterpret_cast<std::uintptr_t>(image) & (2 * sizeof(Sample) - 1)) == 0;
    const int tx = int(threadIdx.x);
    const int ty = int(threadIdx.y);

    // Step 1: masks (and values), a column of kPasses nodes per thread.
#pragma unroll
    for (int k = 0; k < kPasses; ++k) {
        const int ly = ty + k * kNodePatchLinesPerPass;
        const int nx = patch.originX + tx;
        const int ny = patch.originY + ly;
        const bool inside = im.insideGrid(nx, ny);
        std::uint32_t mask = 0;
        if constexpr (kPixelNodes) {
            const Sample value = inside ? image[std::size_t(ny) * std::size_t(grid.width) + std::size_t(nx)] : Sample{};
            sValues[ly * kNodePatchSide + tx] = value;
            mask = inside && patch.criterion.isForeground(value) ? 1u : 0u;
        } else {
            if (inside) mask = binaryNodeMask(im, image, nx, ny, pairs, patch.criterion);
        }
        sMasks[ly * kNodePatchSide + tx] = std::uint8_t(mask);
    }
    __syncthreads();

    // Steps 2 and 3: a segment of kPasses nodes of one line per thread.
    const int t = ty * kNodePatchSide + tx;
    const int segmentX = (t % kSegmentsPerLine) * kPasses;
    const int segmentY = t / kSegmentsPerLine;
    std::uint32_t runKeys[kPasses];
    const std::uint32_t joinedBits = patch.joinRuns(segmentX, segmentY, runKeys);
    __syncthreads();
    WarpLinks<uint2, kLinkQueue> links{sQueue[t / 32], t % 32};
    auto unite = [&](const uint2& link) { patch.forest().template unite<true, LinkSite::Either>(link.x, link.y); };
    patch.uniteSegment(segmentX, segmentY, joinedBits, runKeys, links, unite);
    links.flush(unite);
    __syncthreads();

    // Step 4: each run's root (by segment), then roots as the image's keys
    // and masks out, a column per thread again.
    patch.storeRunRoots(segmentX, segmentY, joinedBits, runKeys);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kPasses; ++k) {
        const int ly = ty + k * kNodePatchLinesPerPass;
        const int nx = patch.originX + tx;
        const int ny = patch.originY + ly;
        if (!im.insideGrid(nx, ny)) continue;
        const int i = ly * kNodePatchSide + tx;
        const std::uint32_t mask = sMasks[i];
        const std::uint32_t node = im.nodeIndex(nx, ny);
        parents[node] = mask != 0u ? patch.imageKey(sParents[i]) : kNone;
        masks[node] = std::uint8_t(mask);
    }
}

template <class Criterion, int NodeW, int NodeH>
void launchLocalMerge(const PassContext& context, const void* d_samples, std::uint32_t* d_parents,
                      std::uint8_t* d_masks, const BlockGrid& grid, const PixelRule& rule) {
    const dim3 blocks(unsigned((grid.gridWidth + kNodePatchSide - 1) / kNodePatchSide),
                      unsigned((grid.gridHeight + kNodePatchSide - 1) / kNodePatchSide), unsigned(grid.images));
    const dim3 threads(kNodePatchSide, kNodePatchLinesPerPass);
    localMergeKernel<Criterion, NodeW, NodeH><<<blocks, threads, 0, context.stream>>>(
        static_cast<const typename Criterion::Sample*>(d_samples), d_parents, d_masks, grid, rule);
    context.check.launched("localMerge", context.stream);
}

}  // namespace

void LocalMergePass::run(const PassContext& context, const void* d_samples, std::uint32_t* d_parents,
                         std::uint8_t* d_masks, const BlockGrid& grid, const PixelRule& rule) {
    auto scope = context.timer.scope(kStage);
    withSampleCriterion(rule, [&](auto criterion) {
        using Criterion = decltype(criterion);
        withCriterionNodeShape<Criterion>(grid, [&](auto shape) {
            using Shape = decltype(shape);
            launchLocalMerge<Criterion, Shape::width, Shape::height>(context, d_samples, d_parents, d_masks, grid,
                                                                     rule);
        });
    });
}

}  // namespace glccl::cuda

// component_stats, for a binary volume labeled by the volume kernels: the
// table from the nodes, not from the labels (a bit per voxel read instead of
// four bytes). One thread per bundle word, as final_labels: each node's
// number (one step to its root after count_roots) and its box, area and
// coordinate sums, from its bits alone:
//
//   area   the popcount of its bits in each line     sum of x   the lines'
//   box    its run's first and last x, the first     popcounts times the
//          and last of its lines that hold a voxel   word's x plus the sums
//                                                    of the bits' positions
//
// A component then gathers its nodes three times before any global atomic:
// a thread sums its consecutive nodes of one component in registers; the
// lanes of a warp holding the same number (__match_any_sync) are summed by
// the lowest of them; and each block keeps a small table in shared memory
// (open addressing on the number), flushed with global atomics at the end.
// A component as large as the volume costs a few global atomics per block,
// not one per row (component_stats.cu); a group that finds no free entry
// adds to the global table directly.

#include "stage_timer.hpp"
#include "volume_forest.cuh"

namespace glccl::cuda {
namespace {

using namespace volume;
using Sum = unsigned long long;

constexpr int kWarp = 32;
constexpr int kStatsWarps = 8;
constexpr int kThreads = kWarp * kStatsWarps;
constexpr int kSlotBits = 9;  // the block's table: 512 entries
constexpr int kSlots = 1 << kSlotBits;
constexpr int kProbes = 8;

// One component's share of some nodes.
struct Share {
    std::uint32_t number;  // 0: none
    std::uint32_t minX, minY, minZ, maxX, maxY, maxZ;
    Sum area, sumX, sumY, sumZ;

    __device__ __forceinline__ void add(const Share& o) {
        minX = min(minX, o.minX), minY = min(minY, o.minY), minZ = min(minZ, o.minZ);
        maxX = max(maxX, o.maxX), maxY = max(maxY, o.maxY), maxZ = max(maxZ, o.maxZ);
        area += o.area, sumX += o.sumX, sumY += o.sumY, sumZ += o.sumZ;
    }
};

// The block's table in shared memory: numbers (0: free) and their shares.
struct BlockTable {
    std::uint32_t number[kSlots];
    std::uint32_t minX[kSlots], minY[kSlots], minZ[kSlots], maxX[kSlots], maxY[kSlots], maxZ[kSlots];
    Sum area[kSlots], sumX[kSlots], sumY[kSlots], sumZ[kSlots];
};

__device__ __forceinline__ void addToTable(const DeviceComponentTable& table, const Share& s) {
    const std::uint32_t c = s.number - 1;
    atomicMin(&table.left[c], s.minX), atomicMin(&table.top[c], s.minY), atomicMin(&table.front[c], s.minZ);
    atomicMax(&table.right[c], s.maxX), atomicMax(&table.bottom[c], s.maxY), atomicMax(&table.back[c], s.maxZ);
    atomicAdd(&table.area[c], s.area), atomicAdd(&table.sumX[c], s.sumX);
    atomicAdd(&table.sumY[c], s.sumY), atomicAdd(&table.sumZ[c], s.sumZ);
}

__device__ __forceinline__ bool addToBlock(BlockTable& t, const Share& s) {
    std::uint32_t slot = (s.number * 2654435761u) >> (32 - kSlotBits);
    for (int probe = 0; probe < kProbes; ++probe, slot = (slot + 1) & (kSlots - 1)) {
        const std::uint32_t held = atomicCAS(&t.number[slot], 0u, s.number);
        if (held != 0u && held != s.number) continue;
        atomicMin(&t.minX[slot], s.minX), atomicMin(&t.minY[slot], s.minY), atomicMin(&t.minZ[slot], s.minZ);
        atomicMax(&t.maxX[slot], s.maxX), atomicMax(&t.maxY[slot], s.maxY), atomicMax(&t.maxZ[slot], s.maxZ);
        atomicAdd(&t.area[slot], s.area), atomicAdd(&t.sumX[slot], s.sumX);
        atomicAdd(&t.sumY[slot], s.sumY), atomicAdd(&t.sumZ[slot], s.sumZ);
        return true;
    }
    return false;
}

template <int Connectivity>
__global__ void __launch_bounds__(kThreads)
    componentStatsVolumeKernel(VolumeNodes nodes, DeviceComponentTable table) {
    constexpr Bundle kBundle = bundleOf(Connectivity);
    constexpr int kLines = kBundle.lines();
    __shared__ BlockTable sTable;
    __shared__ Share sShares[kStatsWarps][kWarp];

    for (int i = int(threadIdx.x); i < kSlots; i += kThreads) {
        sTable.number[i] = 0u;
        sTable.minX[i] = sTable.minY[i] = sTable.minZ[i] = 0xFFFFFFFFu;
        sTable.maxX[i] = sTable.maxY[i] = sTable.maxZ[i] = 0u;
        sTable.area[i] = sTable.sumX[i] = sTable.sumY[i] = sTable.sumZ[i] = 0u;
    }
    __syncthreads();

    const NodeGrid& g = nodes.grid;
    const VolumeForest<Connectivity> forest{{g, nodes.foreground}, nodes.parents};
    const int lane = int(threadIdx.x) % kWarp, warp = int(threadIdx.x) / kWarp;
    const std::size_t word = std::size_t(blockIdx.x) * kThreads + threadIdx.x;
    const bool inside = word < g.bundleWords();
    const std::uint32_t wx = std::uint32_t(word % g.wordsX);
    const std::uint32_t row = std::uint32_t(word / g.wordsX);
    const std::uint32_t by = row % g.bundlesY, bz = row / g.bundlesY;
    std::uint32_t lines[kLines];
    std::uint32_t p = 0u;
#pragma unroll
    for (int l = 0; l < kLines; ++l) lines[l] = 0u;
    if (inside) {
        loadBundleLines<Connectivity>(g, nodes.bits, wx, by, bz, lines);
#pragma unroll
        for (int l = 0; l < kLines; ++l) p |= lines[l];
    }
    const std::uint32_t roots = p != 0u ? __ldg(&nodes.roots[word]) : 0u;

    // The warp's shares, one per lane and round: the lowest lane of each
    // number gathers its group's and adds them to the block's table.
    auto gather = [&](const Share& mine) {  // in every lane
        sShares[warp][lane] = mine;
        const unsigned group = __match_any_sync(kFullWarp, mine.number);
        __syncwarp();
        if (mine.number != 0u && (group & ((1u << lane) - 1u)) == 0u) {
            Share sum = mine;
            for (unsigned others = group & (group - 1u); others != 0u; others &= others - 1u)
                sum.add(sShares[warp][__ffs(int(others)) - 1]);
            if (!addToBlock(sTable, sum)) addToTable(table, sum);
        }
        __syncwarp();
    };

    Share share{};
    share.number = 0u;
    int r = 0;
    forEachPositionInStep(runStarts(p), [&](bool has, int start) {
        Share node{};
        node.number = 0u;
        if (has) {
            const std::uint32_t run = runFrom(p, start);
            std::uint32_t rootKey, rank;
            if ((roots >> r) & 1u) {
                const FirstVoxel v = firstVoxelOf(lines, run);
                rootKey = g.keyOf(wx * kWordBits + std::uint32_t(v.bit), by * kBundle.height + std::uint32_t(v.line % kBundle.height),
                                  bz * kBundle.depth + std::uint32_t(v.line / kBundle.height));
                rank = __ldg(&nodes.parents[NodeGrid::slotOf(word, r)]);
            } else {
                rootKey = __ldg(&nodes.parents[NodeGrid::slotOf(word, r)]);
                rank = __ldg(&nodes.parents[forest.slotOf(rootKey)]);
            }
            node.number = __ldg(&nodes.lineOffsets[g.lineOfKey(rootKey)]) + rank + 1u;
            node.minX = wx * kWordBits + std::uint32_t(start);
            node.maxX = wx * kWordBits + std::uint32_t(highestBit(run));
            node.minY = node.minZ = 0xFFFFFFFFu;
            node.maxY = node.maxZ = 0u;
            node.area = node.sumX = node.sumY = node.sumZ = 0u;
#pragma unroll
            for (int l = 0; l < kLines; ++l) {
                const std::uint32_t bits = lines[l] & run;
                if (bits == 0u) continue;
                const std::uint32_t y = by * kBundle.height + std::uint32_t(l % kBundle.height);
                const std::uint32_t z = bz * kBundle.depth + std::uint32_t(l / kBundle.height);
                const Sum count = Sum(__popc(bits));
                node.minY = min(node.minY, y), node.maxY = max(node.maxY, y);
                node.minZ = min(node.minZ, z), node.maxZ = max(node.maxZ, z);
                node.area += count;
                node.sumX += count * Sum(wx * kWordBits) + Sum(positionSum(bits));
                node.sumY += count * Sum(y);
                node.sumZ += count * Sum(z);
            }
            ++r;
        }
        // A node of the component the thread sums joins it; another number
        // sends the sum to the warp's gathering and starts a new one.
        const bool joins = has && share.number == node.number;
        if (joins) share.add(node);
        const bool sends = __any_sync(kFullWarp, !joins && share.number != 0u);
        if (sends) {
            gather(!joins ? share : Share{});
            if (!joins) share = node;
        } else if (!joins) {
            share = node;
        }
    });
    if (__any_sync(kFullWarp, share.number != 0u)) gather(share);
    __syncthreads();

    for (int i = int(threadIdx.x); i < kSlots; i += kThreads) {
        if (sTable.number[i] == 0u) continue;
        Share s;
        s.number = sTable.number[i];
        s.minX = sTable.minX[i], s.minY = sTable.minY[i], s.minZ = sTable.minZ[i];
        s.maxX = sTable.maxX[i], s.maxY = sTable.maxY[i], s.maxZ = sTable.maxZ[i];
        s.area = sTable.area[i], s.sumX = sTable.sumX[i], s.sumY = sTable.sumY[i], s.sumZ = sTable.sumZ[i];
        addToTable(table, s);
    }
}

}  // namespace

void ComponentStatsPass::run(const PassContext& context, const VolumeNodes& nodes, unsigned char* storage,
                             std::size_t count) {
    auto scope = context.timer.scope(kStage);
    startTable(context, storage, count, 3);
    const NodeGrid& g = nodes.grid;
    const unsigned blocks = unsigned((g.bundleWords() + kThreads - 1) / kThreads);
    const DeviceComponentTable table = tableAt(storage, count, 3);
    withVolumeConnectivity(g.connectivity, [&](auto connectivity) {
        constexpr int C = decltype(connectivity)::value;
        componentStatsVolumeKernel<C><<<blocks, kThreads, 0, context.stream>>>(nodes, table);
    });
    context.check.launched("componentStats (volume)", context.stream);
}

}  // namespace glccl::cuda

// The component table (docs/formats.md, the output contract: left, top,
// width, height, area, centroid) from a canonical labeling, with atomics
// into the table.
//
// One atomic per pixel, or per horizontal run, serialises on components with
// many pixels or runs (an 8-connected checkerboard is one component of
// single-pixel runs: every pixel would hit the same seven words). So each
// warp walks kChunk pixels of one row, 32 at a time, and merges before it
// writes:
//
//   window:  . . 3 3 . 5 3 3 . . 5 5 ...   __match_any_sync groups the lanes
//   label 3: lanes {2, 3, 6, 7}            by label; the group's lowest lane
//   label 5: lanes {5, 10, 11}             writes for all of it. Area, left,
//                                          right and the sum of x follow from
//                                          the lane mask alone (popc, ffs, clz).
//
// The label of the window's last foreground pixel is likely to go on in the
// next window, so its totals stay in registers (the same in every lane) and
// are written once its label stops appearing at the end of a window, or at
// the end of the chunk; the other groups write at once. A component then
// costs one write per chunk it spans, plus one per window in which it is not
// the last label: at most pixelCount / 32 writes to any one entry. Sums are
// 64-bit integers, exact; the host divides them.
//
// A volume is height * depth rows of the same kind (row r is y = r % height
// of slice z = r / height); its rows add the slice to the bounds and sumZ.

#include "passes.hpp"
#include "stage_timer.hpp"

namespace glccl::cuda {
namespace {

constexpr unsigned kFullWarp = 0xFFFFFFFFu;
constexpr int kWarp = 32;
constexpr int kRowsPerBlock = 8;
constexpr int kChunk = 32 * kWarp;

using Sum = unsigned long long;  // the type atomicAdd takes for 64 bits

// What one warp has seen of one label in one row.
struct RowPart {
    std::uint32_t label;  // 0: nothing
    int left, right;
    Sum area, sumX;
};

template <bool kVolume>
__device__ __forceinline__ void addToTable(const DeviceComponentTable& table, const RowPart& part, int y, int z) {
    const std::uint32_t c = part.label - 1;
    if (kVolume) {
        atomicMin(&table.front[c], std::uint32_t(z));
        atomicMax(&table.back[c], std::uint32_t(z));
        atomicAdd(&table.sumZ[c], Sum(z) * part.area);
    }
    atomicMin(&table.left[c], std::uint32_t(part.left));
    atomicMax(&table.right[c], std::uint32_t(part.right));
    atomicMin(&table.top[c], std::uint32_t(y));
    atomicMax(&table.bottom[c], std::uint32_t(y));
    atomicAdd(&table.area[c], part.area);
    atomicAdd(&table.sumX[c], part.sumX);
    atomicAdd(&table.sumY[c], Sum(y) * part.area);
}

__device__ __forceinline__ RowPart shuffle(const RowPart& part, int lane) {
    return {__shfl_sync(kFullWarp, part.label, lane), __shfl_sync(kFullWarp, part.left, lane),
            __shfl_sync(kFullWarp, part.right, lane), __shfl_sync(kFullWarp, part.area, lane),
            __shfl_sync(kFullWarp, part.sumX, lane)};
}

template <bool kVolume>
__global__ void __launch_bounds__(kWarp * kRowsPerBlock)
    componentStatsKernel(const std::uint32_t* __restrict__ labels, int width, int height, std::uint64_t rows,
                         unsigned chunksX, DeviceComponentTable table) {
    const std::uint64_t r = std::uint64_t(blockIdx.x / chunksX) * kRowsPerBlock + threadIdx.y;
    if (r >= rows) return;  // the whole warp: one warp is one row
    // A 2-D image's row is its y: no 64-bit division where there is no z.
    const int y = kVolume ? int(r % std::uint64_t(height)) : int(r);
    const int z = kVolume ? int(r / std::uint64_t(height)) : 0;
    const int lane = int(threadIdx.x);
    const unsigned lanesBelow = (1u << lane) - 1u;
    const int chunkBegin = int(blockIdx.x % chunksX) * kChunk;
    const int chunkEnd = min(chunkBegin + kChunk, width);
    const std::uint32_t* row = labels + std::size_t(r) * width;

    RowPart carried{0, 0, 0, 0, 0};  // the same in every lane
    for (int base = chunkBegin; base < chunkEnd; base += kWarp) {
        const int x = base + lane;
        const std::uint32_t label = x < chunkEnd ? row[x] : 0u;
        const unsigned foregroundLanes = __ballot_sync(kFullWarp, label != 0);
        if (foregroundLanes == 0) continue;

        // This lane's group; its lowest lane leads it.
        const unsigned group = __match_any_sync(kFullWarp, label);
        const bool leads = label != 0 && (group & lanesBelow) == 0;
        const unsigned count = unsigned(__popc(group));
        const RowPart mine{label, base + __ffs(int(group)) - 1, base + kWarp - 1 - __clz(int(group)), Sum(count),
                           Sum(count) * Sum(base) + Sum(volume::positionSum(group))};

        const int lastLane = kWarp - 1 - __clz(int(foregroundLanes));
        const std::uint32_t lastLabel = __shfl_sync(kFullWarp, label, lastLane);

        // Groups of other labels than the carried one and the last one: now.
        if (leads && label != carried.label && label != lastLabel) addToTable<kVolume>(table, mine, y, z);

        // The carried label's group joins the registers.
        const unsigned carriedLeader = __ballot_sync(kFullWarp, leads && label == carried.label);
        if (carriedLeader != 0) {
            const RowPart more = shuffle(mine, __ffs(int(carriedLeader)) - 1);
            carried.right = more.right;
            carried.area += more.area;
            carried.sumX += more.sumX;
        }
        // A new last label: write the carried totals, carry the new group.
        if (lastLabel != carried.label) {
            if (lane == 0 && carried.label != 0) addToTable<kVolume>(table, carried, y, z);
            const unsigned lastGroup = __shfl_sync(kFullWarp, group, lastLane);
            carried = shuffle(mine, __ffs(int(lastGroup)) - 1);
        }
    }
    if (lane == 0 && carried.label != 0) addToTable<kVolume>(table, carried, y, z);
}

}  // namespace

DeviceComponentTable tableAt(unsigned char* storage, std::size_t n, int dimensions) {
    const std::size_t d = std::size_t(dimensions);
    auto* sums = reinterpret_cast<unsigned long long*>(storage);
    auto* bounds = reinterpret_cast<std::uint32_t*>(storage + (1 + d) * n * sizeof(unsigned long long));
    const bool volume = dimensions == 3;
    DeviceComponentTable table{};
    table.area = sums;
    table.sumX = sums + n;
    table.sumY = sums + 2 * n;
    table.sumZ = volume ? sums + 3 * n : nullptr;
    table.right = bounds;
    table.bottom = bounds + n;
    table.back = volume ? bounds + 2 * n : nullptr;
    table.left = bounds + d * n;
    table.top = bounds + (d + 1) * n;
    table.front = volume ? bounds + 5 * n : nullptr;
    return table;
}

void ComponentStatsPass::startTable(const PassContext& context, unsigned char* storage, std::size_t count,
                                    int dimensions) {
    const CudaCheck& check = context.check;
    const std::size_t bytes = count * tableBytesPerComponent(dimensions);
    const std::size_t zeroBytes = bytes - std::size_t(dimensions) * count * sizeof(std::uint32_t);
    check(cudaMemsetAsync(storage, 0, zeroBytes, context.stream), "cudaMemsetAsync (component table)");
    check(cudaMemsetAsync(storage + zeroBytes, 0xFF, bytes - zeroBytes, context.stream),
          "cudaMemsetAsync (component table)");
}

void ComponentStatsPass::run(const PassContext& context, const std::uint32_t* d_labels, int width, int height,
                             int depth, int dimensions, unsigned char* storage, std::size_t count) {
    auto scope = context.timer.scope(kStage);
    const CudaCheck& check = context.check;
    startTable(context, storage, count, dimensions);
    const unsigned chunksX = unsigned((width + kChunk - 1) / kChunk);
    const std::uint64_t rows = std::uint64_t(height) * std::uint64_t(depth);
    const std::uint64_t rowGroups = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
    const DeviceComponentTable table = tableAt(storage, count, dimensions);
    // One-dimensional grid: at most 2^32 voxels make far fewer blocks than 2^31.
    const unsigned blocks = unsigned(std::uint64_t(chunksX) * rowGroups);
    if (dimensions == 3) {
        componentStatsKernel<true><<<blocks, dim3(kWarp, kRowsPerBlock), 0, context.stream>>>(
            d_labels, width, height, rows, chunksX, table);
    } else {
        componentStatsKernel<false><<<blocks, dim3(kWarp, kRowsPerBlock), 0, context.stream>>>(
            d_labels, width, height, rows, chunksX, table);
    }
    check.launched("componentStats", context.stream);
}

}  // namespace glccl::cuda

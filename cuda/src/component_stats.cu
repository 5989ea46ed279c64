// The component table (ARCHITECTURE.md: left, top, width, height, area,
// centroid) from a canonical labeling, with atomics into the table.
//
// One atomic per pixel would serialise on large components (every pixel of a
// full-image component hits the same seven words). Instead each warp walks
// kChunk pixels of one row, 32 at a time, and only the last pixel of each
// horizontal run of equal labels writes, for the whole run [start, end]:
//
//   row y:  . . 3 3 3 3 . 5 5 . 3 3       run of label 3 from x = 2 to 5:
//                     ^ end                area += 4, sumX += 2+3+4+5,
//                                          sumY += 4 * y, bounds from 2, 5, y
//
// A run's start is the nearest lane at or before the end that starts a run
// (ballot); a run still open at the end of 32 pixels carries its start into
// the next 32. Sums are 64-bit integers, exact; the host divides them.

#include "passes.hpp"

namespace glccl::cuda {
namespace {

constexpr int kWarp = 32;
constexpr int kRowsPerBlock = 8;
constexpr int kChunk = 8 * kWarp;

using Sum = unsigned long long;  // the type atomicAdd takes for 64 bits

__device__ __forceinline__ void addRun(const DeviceComponentTable& table, std::uint32_t label, int start, int end,
                                       int y) {
    const std::uint32_t c = label - 1;
    const Sum length = Sum(end - start + 1);
    atomicMin(&table.left[c], std::uint32_t(start));
    atomicMax(&table.right[c], std::uint32_t(end));
    atomicMin(&table.top[c], std::uint32_t(y));
    atomicMax(&table.bottom[c], std::uint32_t(y));
    atomicAdd(&table.area[c], length);
    // start + ... + end = (start + end) * length / 2; the product is even.
    atomicAdd(&table.sumX[c], (Sum(start) + Sum(end)) * length / 2);
    atomicAdd(&table.sumY[c], Sum(y) * length);
}

__global__ void __launch_bounds__(kWarp * kRowsPerBlock)
    componentStatsKernel(const std::uint32_t* __restrict__ labels, int width, int height, unsigned chunksX,
                         DeviceComponentTable table) {
    const int y = int(blockIdx.x / chunksX) * kRowsPerBlock + int(threadIdx.y);
    if (y >= height) return;  // the whole warp: one warp is one row
    const int lane = int(threadIdx.x);
    const int chunkBegin = int(blockIdx.x % chunksX) * kChunk;
    const int chunkEnd = min(chunkBegin + kChunk, width);
    const std::uint32_t* row = labels + std::size_t(y) * width;
    const unsigned lanesUpToMe = 0xFFFFFFFFu >> (kWarp - 1 - lane);

    int openStart = chunkBegin;
    for (int base = chunkBegin; base < chunkEnd; base += kWarp) {
        const int x = base + lane;
        const std::uint32_t label = x < chunkEnd ? row[x] : 0u;
        const bool foreground = label != 0;
        const bool starts = foreground && (x == chunkBegin || row[x - 1] != label);
        const bool ends = foreground && (x + 1 == chunkEnd || row[x + 1] != label);
        const unsigned startLanes = __ballot_sync(0xFFFFFFFFu, starts) & lanesUpToMe;
        const int start = startLanes != 0 ? base + (kWarp - 1 - __clz(startLanes)) : openStart;
        if (ends) addRun(table, label, start, x, y);
        openStart = __shfl_sync(0xFFFFFFFFu, start, kWarp - 1);
    }
}

}  // namespace

void componentStats(const std::uint32_t* d_labels, int width, int height, DeviceComponentTable table,
                    cudaStream_t stream, const CudaCheck& check) {
    const unsigned chunksX = unsigned((width + kChunk - 1) / kChunk);
    const unsigned rowGroups = unsigned((height + kRowsPerBlock - 1) / kRowsPerBlock);
    componentStatsKernel<<<chunksX * rowGroups, dim3(kWarp, kRowsPerBlock), 0, stream>>>(d_labels, width, height,
                                                                                          chunksX, table);
    check.launched("componentStats", stream);
}

}  // namespace glccl::cuda

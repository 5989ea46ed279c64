// detail::zeroedBlock and detail::releaseBlock (glccl/region_properties.hpp).

#include <glccl/region_properties.hpp>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "row_ranges.hpp"

namespace glccl::detail {
namespace {

// Blocks of at least kKeptBytes are kept when freed, at most kMostKept of
// them and kMostKeptBytes in all (the oldest freed first beyond that): a
// measurement's few largest arrays (its moment sums), for the next
// measurement of about the same size. A request that no kept block fits
// frees them all before it is served, so that the kept blocks never add to
// the memory a measurement of another size takes: what stays mapped between
// calls is at most what the last measurement's largest arrays took.
constexpr std::size_t kKeptBytes = std::size_t(4) << 20;
constexpr std::size_t kMostKept = 8;
constexpr std::size_t kMostKeptBytes = std::size_t(1) << 30;
// A kept block serves a request of at least this share of its size.
constexpr std::size_t kFitNumerator = 4, kFitDenominator = 5;
// A kept block is zeroed by a thread for each of these many bytes.
constexpr std::size_t kZeroedBytesPerThread = std::size_t(512) << 10;

struct Block {
    void* at;
    std::size_t size;
};

struct KeptBlocks {
    std::mutex mutex;
    std::vector<Block> kept;  // oldest first
    std::vector<Block> lent;  // kept blocks handed out again, with their whole size
    std::size_t bytes = 0;

    // The smallest kept block that fits `size`, lent, or null with every
    // kept block moved into `dropped` (to be freed outside the lock).
    void* take(std::size_t size, std::vector<Block>& dropped) {
        std::lock_guard<std::mutex> lock(mutex);
        std::size_t best = kept.size();
        for (std::size_t i = 0; i < kept.size(); ++i)
            if (kept[i].size >= size && kept[i].size / kFitDenominator * kFitNumerator <= size &&
                (best == kept.size() || kept[i].size < kept[best].size))
                best = i;
        if (best == kept.size()) {
            dropped.insert(dropped.end(), kept.begin(), kept.end());
            kept.clear();
            bytes = 0;
            return nullptr;
        }
        const Block block = kept[best];
        lent.push_back(block);  // room reserved when it was kept
        kept.erase(kept.begin() + std::ptrdiff_t(best));
        bytes -= block.size;
        return block.at;
    }
    // Keeps `block` (of `size` bytes asked: its own size where it was lent);
    // the blocks to free (outside the lock) into `dropped`.
    void keep(void* block, std::size_t size, std::vector<Block>& dropped) {
        std::lock_guard<std::mutex> lock(mutex);
        for (std::size_t i = 0; i < lent.size(); ++i)
            if (lent[i].at == block) {
                size = lent[i].size;
                lent.erase(lent.begin() + std::ptrdiff_t(i));
                break;
            }
        // Room for every block kept to be lent at once, so that take() never
        // allocates.
        lent.reserve(lent.size() + kept.size() + 1);
        kept.push_back({block, size});
        bytes += size;
        while (kept.size() > kMostKept || bytes > kMostKeptBytes) {
            dropped.push_back(kept.front());
            bytes -= kept.front().size;
            kept.erase(kept.begin());
        }
    }
};

// Never destroyed: arrays may be freed while the process ends.
KeptBlocks& keptBlocks() {
    static KeptBlocks* blocks = new KeptBlocks;
    return *blocks;
}

void freeAll(const std::vector<Block>& blocks) {
    for (const Block& block : blocks) std::free(block.at);
}

}  // namespace

void* zeroedBlock(std::size_t bytes) {
    if (bytes >= kKeptBytes) {
        std::vector<Block> dropped;
        dropped.reserve(kMostKept);
        void* block = keptBlocks().take(bytes, dropped);
        freeAll(dropped);
        if (block) {
            char* at = static_cast<char*>(block);
            forRanges(bytes, kZeroedBytesPerThread, 0, [&](std::size_t first, std::size_t last) {
                std::memset(at + first, 0, last - first);
            });
            return block;
        }
    }
    if (void* block = std::calloc(bytes == 0 ? 1 : bytes, 1)) return block;
    throw std::bad_alloc();
}

void releaseBlock(void* block, std::size_t bytes) noexcept {
    if (!block) return;
    std::vector<Block> dropped;
    try {
        dropped.reserve(kMostKept + 1);
        if (bytes < kKeptBytes) {  // never a kept block: those serve larger requests only
            std::free(block);
            return;
        }
        keptBlocks().keep(block, bytes, dropped);
    } catch (...) {  // no room to note it: freed instead
        std::free(block);
    }
    freeAll(dropped);
}

}  // namespace glccl::detail

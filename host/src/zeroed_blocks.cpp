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
// them and kMostKeptBytes in all, the oldest freed first beyond that: a
// measurement's few largest arrays (its moment sums), for the next
// measurement of the same image size.
constexpr std::size_t kKeptBytes = std::size_t(4) << 20;
constexpr std::size_t kMostKept = 8;
constexpr std::size_t kMostKeptBytes = std::size_t(1) << 30;
// A kept block is zeroed by a thread for each of these many bytes.
constexpr std::size_t kZeroedBytesPerThread = std::size_t(4) << 20;

struct KeptBlocks {
    std::mutex mutex;
    std::vector<std::pair<void*, std::size_t>> blocks;  // oldest first
    std::size_t bytes = 0;

    void* take(std::size_t size) {
        std::lock_guard<std::mutex> lock(mutex);
        for (std::size_t i = blocks.size(); i-- > 0;)
            if (blocks[i].second == size) {
                void* block = blocks[i].first;
                blocks.erase(blocks.begin() + std::ptrdiff_t(i));
                bytes -= size;
                return block;
            }
        return nullptr;
    }
    // Keeps `block`; the blocks to free (outside the lock) into `dropped`.
    void keep(void* block, std::size_t size, std::vector<void*>& dropped) {
        std::lock_guard<std::mutex> lock(mutex);
        blocks.emplace_back(block, size);
        bytes += size;
        while (blocks.size() > kMostKept || bytes > kMostKeptBytes) {
            dropped.push_back(blocks.front().first);
            bytes -= blocks.front().second;
            blocks.erase(blocks.begin());
        }
    }
};

// Never destroyed: arrays may be freed while the process ends.
KeptBlocks& keptBlocks() {
    static KeptBlocks* kept = new KeptBlocks;
    return *kept;
}

}  // namespace

void* zeroedBlock(std::size_t bytes) {
    if (bytes >= kKeptBytes) {
        if (void* block = keptBlocks().take(bytes)) {
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
    if (bytes < kKeptBytes) {
        std::free(block);
        return;
    }
    std::vector<void*> dropped;
    try {
        dropped.reserve(kMostKept + 1);
        keptBlocks().keep(block, bytes, dropped);
    } catch (...) {  // no room to note it: freed instead
        std::free(block);
    }
    for (void* old : dropped) std::free(old);
}

}  // namespace glccl::detail

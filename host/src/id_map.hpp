#pragma once
// A map from nonzero 32-bit ids to nonzero 32-bit values, for renumbering and
// comparing labelings whose ids are arbitrary (pixel addresses, encoded
// coordinates, float bit patterns). Open addressing with linear probing:
// std::unordered_map allocates a node per id, which is several times slower on
// the millions of components of a noisy 16384^2 image.

#include <cstdint>
#include <utility>
#include <vector>

namespace glccl::detail {

class IdMap {
public:
    explicit IdMap(std::size_t expectedIds = 1024) {
        std::size_t capacity = 1024;
        while (capacity < expectedIds * 2) capacity *= 2;
        resize(capacity);
    }

    // The value stored for `id`, inserting `value` first when `id` is new.
    // Returns the value and whether it was inserted. `id` and `value` must be
    // nonzero: 0 marks an empty slot.
    std::pair<std::uint32_t, bool> findOrInsert(std::uint32_t id, std::uint32_t value) {
        std::size_t slot = slotOf(id);
        while (keys_[slot] != 0) {
            if (keys_[slot] == id) return {values_[slot], false};
            slot = (slot + 1) & mask_;
        }
        keys_[slot] = id;
        values_[slot] = value;
        if (++size_ * 2 > keys_.size()) grow();
        return {value, true};
    }

private:
    std::size_t slotOf(std::uint32_t id) const {
        // Fibonacci hashing spreads the consecutive or strided ids that GPU
        // labelings produce over the whole table.
        return std::size_t((std::uint64_t(id) * 0x9E3779B97F4A7C15ull) >> shift_);
    }

    void resize(std::size_t capacity) {
        keys_.assign(capacity, 0);
        values_.assign(capacity, 0);
        mask_ = capacity - 1;
        shift_ = 64;
        for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    }

    void grow() {
        std::vector<std::uint32_t> oldKeys = std::move(keys_);
        std::vector<std::uint32_t> oldValues = std::move(values_);
        resize(oldKeys.size() * 2);
        for (std::size_t i = 0; i < oldKeys.size(); ++i) {
            if (oldKeys[i] == 0) continue;
            std::size_t slot = slotOf(oldKeys[i]);
            while (keys_[slot] != 0) slot = (slot + 1) & mask_;
            keys_[slot] = oldKeys[i];
            values_[slot] = oldValues[i];
        }
    }

    std::vector<std::uint32_t> keys_;
    std::vector<std::uint32_t> values_;
    std::size_t size_ = 0;
    std::size_t mask_ = 0;
    int shift_ = 64;
};

}  // namespace glccl::detail

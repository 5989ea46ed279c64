#include "table_decoding.hpp"

#include "raster_constants.hpp"

namespace glccl::raster {

namespace {

// Bits of v > 0 (128: 8).
int bitLength(std::uint64_t v) {
    int n = 0;
    for (; v != 0; v >>= 1) ++n;
    return n;
}

}  // namespace

SumDigits sumDigitsFor(int width, int height, std::int64_t pointsPerEntry, int pointPixels, int digitBits) {
    SumDigits digits;
    const std::uint64_t points = std::uint64_t(std::max<std::int64_t>(pointsPerEntry, 1));
    int bits = 0;
    while (bits < 24 && points * ((std::uint64_t(1) << (bits + 1)) - 1) <= std::uint64_t(kExactFloatSum)) ++bits;
    if (digitBits > 0) bits = std::min(bits, digitBits);
    if (bits == 0) return digits;
    const std::uint64_t pixels = std::uint64_t(width) * std::uint64_t(height);
    // A quantity of at most `largest` a point and `total` an entry.
    const auto digitsOf = [&](std::uint64_t largest, std::uint64_t total) {
        if (digitBits == 0 && std::min(total, points * largest) <= std::uint64_t(kExactFloatSum)) return 1;
        return (bitLength(largest) + bits - 1) / bits;
    };
    const std::uint64_t point = std::uint64_t(pointPixels);
    digits.count = digitsOf(point, pixels);
    digits.x = digitsOf(point * std::uint64_t(width - 1), pixels * std::uint64_t(width - 1));
    digits.y = digitsOf(point * std::uint64_t(height - 1), pixels * std::uint64_t(height - 1));
    digits.bits = digits.channels() <= 4 * (1 + kMaxDigitTargets) ? bits : 0;
    return digits;
}

void decodeTable(const DownloadedTable& block, int width, int height, std::vector<Component>& components,
                 DecodedSums& sums, const SumDigits* digits) {
    components.resize(block.count);
    sums.sumX.resize(block.count);
    sums.sumY.resize(block.count);
    sums.largeLabels.clear();
    const std::uint32_t coordinateMask = (1u << kIdCoordinateBits) - 1u;
    if (block.inWords) {
        // download_table_words.frag's six words an entry.
        for (std::uint32_t i = 0; i < block.count; ++i) {
            const std::uint32_t* w = &block.words[std::size_t(i) * 6];
            Component& c = components[i];
            c = Component{};
            c.left = std::uint32_t(width - 1) - (w[0] & 0xFFFFu);
            c.top = std::uint32_t(height - 1) - (w[0] >> 16);
            c.width = (w[1] & 0xFFFFu) - c.left + 1;
            c.height = (w[1] >> 16) - c.top + 1;
            c.area = w[2];
            sums.sumX[i] = std::int64_t(w[3]) | std::int64_t(w[5] & 0xFFFFu) << 32;
            sums.sumY[i] = std::int64_t(w[4]) | std::int64_t(w[5] >> 16) << 32;
        }
        return;
    }
    for (std::uint32_t i = 0; i < block.count; ++i) {
        const float* box = &block.boxes[std::size_t(i) * 4];
        const float* sum = &block.sums[std::size_t(i) * 4];
        Component& c = components[i];
        c = Component{};  // the caller's storage may hold another frame's entry
        c.left = std::uint32_t(width - 1 - int(box[0]));
        c.top = std::uint32_t(height - 1 - int(box[1]));
        c.width = std::uint32_t(int(box[2])) - c.left + 1;
        c.height = std::uint32_t(int(box[3])) - c.top + 1;
        if (digits != nullptr) {
            // Channel k: the sums target's four, then each digit target's.
            const auto channel = [&](int k) {
                return k < 4 ? sum[k]
                             : block.digits[(std::size_t(k / 4 - 1) * block.texels() + i) * 4 + std::size_t(k % 4)];
            };
            int k = 0;
            const auto quantity = [&](int count) {
                std::uint64_t total = 0;
                for (int d = 0; d < count; ++d) total += std::uint64_t(channel(k++)) << (digits->bits * d);
                return total;
            };
            c.area = quantity(digits->count);
            sums.sumX[i] = std::int64_t(quantity(digits->x));
            sums.sumY[i] = std::int64_t(quantity(digits->y));
            continue;
        }
        c.area = std::uint64_t(sum[0]);
        // Sums come relative to the root (component_table.frag); its ID gives
        // the root's pixel back (common.glsl, "IDs").
        const std::uint32_t id = block.roots[i] - kIdBase;
        const std::int64_t rootX = width - 1 - std::int64_t(id & coordinateMask);
        const std::int64_t rootY = height - 1 - std::int64_t(id >> kIdCoordinateBits);
        sums.sumX[i] = std::int64_t(sum[1]) + std::int64_t(c.area) * rootX;
        sums.sumY[i] = std::int64_t(sum[2]) + std::int64_t(c.area) * rootY;
        const double area = sum[0];
        if (area >= kExactFloatSum || area * (c.width - 1) >= kExactFloatSum || area * (c.height - 1) >= kExactFloatSum)
            sums.largeLabels.push_back(i + 1);
    }
}

void applyBitCounters(const std::vector<std::uint64_t>& counters, std::vector<Component>& components,
                      DecodedSums& sums) {
    // Counter 0 is the area, 1 + b the pixels with bit b of x set,
    // 1 + kIdCoordinateBits + b those with bit b of y (component_bits.frag).
    constexpr int kCounters = 4 * kBitCounterTargets;
    for (std::size_t j = 0; j < sums.largeLabels.size(); ++j) {
        const std::uint64_t* counter = &counters[j * kCounters];
        const std::uint32_t i = sums.largeLabels[j] - 1;
        components[i].area = counter[0];
        sums.sumX[i] = sums.sumY[i] = 0;
        for (int bit = 0; bit < kIdCoordinateBits; ++bit) {
            sums.sumX[i] += std::int64_t(counter[1 + bit] << bit);
            sums.sumY[i] += std::int64_t(counter[1 + kIdCoordinateBits + bit] << bit);
        }
    }
}

void addCentroids(std::vector<Component>& components, const DecodedSums& sums) {
    for (std::size_t i = 0; i < components.size(); ++i) {
        Component& c = components[i];
        c.centroidX = double(std::uint64_t(sums.sumX[i])) / double(c.area);
        c.centroidY = double(std::uint64_t(sums.sumY[i])) / double(c.area);
    }
}

}  // namespace glccl::raster

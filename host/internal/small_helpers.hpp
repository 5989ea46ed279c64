// Small helpers that sources of several libraries share (host, core,
// engine, tiles), one definition each.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace glccl {

// a / b rounded up, for counts of groups, blocks and rows (a >= 0, b > 0).
template <class T>
constexpr T ceilDiv(T a, T b) {
    return (a + b - 1) / b;
}

// A path or name as messages quote it.
inline std::string inQuotes(const std::string& text) { return "'" + text + "'"; }

template <class T>
bool contains(const std::vector<T>& list, const T& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

// Calls f(Sample()) with the unsigned type of `sampleBits` bits (8, 16, 32;
// any other count as 64).
template <class F>
auto withSampleType(int sampleBits, F&& f) {
    switch (sampleBits) {
        case 8: return f(std::uint8_t());
        case 16: return f(std::uint16_t());
        case 32: return f(std::uint32_t());
        default: return f(std::uint64_t());
    }
}

}  // namespace glccl

#pragma once
// Byte counts in messages, as the user wrote them: the memory limits and
// sizes that glccl's programs and tiles report.

#include <cstdint>
#include <string>

namespace glccl::detail {

// `bytes` in the largest binary unit that divides it ("1 KiB", "64 MiB",
// "2 TiB"), or "" when no unit from KiB up does.
inline std::string wholeUnitSize(std::uint64_t bytes) {
    const char* const units[] = {"TiB", "GiB", "MiB", "KiB"};
    for (int i = 0; i < 4; ++i) {
        const std::uint64_t unit = std::uint64_t(1) << (40 - 10 * i);
        if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + " " + units[i];
    }
    return {};
}

}  // namespace glccl::detail

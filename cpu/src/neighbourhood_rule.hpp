#pragma once
// A criterion's rule under a neighbourhood other than the named
// connectivities (a vertical line, one diagonal, the cross without its
// horizontal arm): the same stages on the same runs, with two changes.
//   - Along x, elements join only where the neighbourhood joins x
//     neighbours; where it does not, every foreground element is a run of
//     its own (the rule's join bits cleared).
//   - Runs of a neighbour row connect where some element x of one and
//     x + dx of the other connect under the criterion, for a step dx the
//     neighbourhood joins to that row (NeighbourRow::steps), rather than for
//     every step within a reach.
// Its runs are not the foreground's stretches, so the binary shortcut of
// linking touching words (linkTouchingPairs) is not taken: kBinary is false
// whatever the criterion, and the run count a row may reach is its width.

#include <algorithm>
#include <cstdint>

#include "criteria.hpp"

namespace glccl::cpu::detail {

template <class Rule>
struct NeighbourhoodRule {
    static constexpr std::size_t kElementBytes = Rule::kElementBytes;
    static constexpr bool kBinary = false;
    static constexpr bool kStepped = true;
    Rule rule;
    bool joinsAlongX = true;

    bool foreground(const std::uint8_t* e) const { return rule.foreground(e); }
    bool connect(const std::uint8_t* a, const std::uint8_t* b) const { return rule.connect(a, b); }
    void masks(const std::uint8_t* row, std::int64_t x, int n, std::uint64_t& fg, std::uint64_t& join) const {
        rule.masks(row, x, n, fg, join);
        if (!joinsAlongX) join = 0;
    }

    // Whether element x of run a (row a) and element x + dx of run b (row b)
    // connect for some x and some dx of `steps` (bit dx + 1).
    bool runsConnectAt(const std::uint8_t* rowA, Span a, const std::uint8_t* rowB, Span b, std::uint32_t steps) const {
        for (int dx = -1; dx <= 1; ++dx) {
            if (!((steps >> (dx + 1)) & 1u)) continue;
            // The elements of b that lie dx from an element of a.
            const std::int64_t from = std::max<std::int64_t>(std::int64_t(a.first) + dx, b.first);
            const std::int64_t to = std::min<std::int64_t>(std::int64_t(a.last) + dx, b.last);
            if (from > to) continue;
            if constexpr (Rule::kBinary) {
                return true;  // foreground elements connect
            } else {
                for (std::int64_t xb = from; xb <= to; ++xb) {
                    if (rule.connect(rowA + std::size_t(xb - dx) * kElementBytes,
                                     rowB + std::size_t(xb) * kElementBytes))
                        return true;
                }
            }
        }
        return false;
    }
};

}  // namespace glccl::cpu::detail

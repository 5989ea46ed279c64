#pragma once
// The runs of a row: maximal stretches whose consecutive elements connect,
// found 64 elements at a time from the rule's foreground and join masks: a
// run starts at a foreground element that does not join the one before, and
// ends at one the next does not join. Their first and last elements come
// out of the masks by counting trailing zeros, one step per run, not per
// element (the bit-run scan of Lee et al.'s BRTS).

#include <cstdint>
#include <vector>

#include "criteria.hpp"

namespace glccl::cpu::detail {

// The most runs a row of `width` elements holds: binary runs are parted by
// background, other criteria's may be single elements side by side.
inline std::int64_t maxRunsPerRow(std::int64_t width, bool binary) { return binary ? (width + 1) / 2 : width; }

struct RowRuns {
    std::int64_t row = -1;  // the row they are of; -1: none yet
    std::uint32_t count = 0;
    std::vector<std::uint32_t> first, last;

    void reserve(std::int64_t maxRuns) {
        if (first.size() < std::size_t(maxRuns)) {
            first.resize(std::size_t(maxRuns));
            last.resize(std::size_t(maxRuns));
        }
    }
    Span span(std::uint32_t i) const { return {first[i], last[i]}; }
};

// Appends base + the index of every set bit of `bits`, lowest first.
inline std::uint32_t* writeBitPositions(std::uint64_t bits, std::uint32_t base, std::uint32_t* out) {
    while (bits != 0) {
        *out++ = base + std::uint32_t(__builtin_ctzll(bits));
        bits &= bits - 1;
    }
    return out;
}

// Walks a row's 64-element words, handing each word's start and end bits
// (bit i: element 64 * word + i starts / ends a run) to visit(word, starts, ends).
template <class Rule, class Visit>
void forEachRunWord(const Rule& rule, const std::uint8_t* row, std::int64_t width, Visit&& visit) {
    const std::int64_t words = (width + 63) / 64;
    auto chunk = [&](std::int64_t w) { return int(std::min<std::int64_t>(64, width - 64 * w)); };
    std::uint64_t fg = 0, join = 0;
    rule.masks(row, 0, chunk(0), fg, join);
    for (std::int64_t w = 0; w < words; ++w) {
        std::uint64_t nextFg = 0, nextJoin = 0;
        if (w + 1 < words) rule.masks(row, 64 * (w + 1), chunk(w + 1), nextFg, nextJoin);
        const std::uint64_t starts = fg & ~join;
        const std::uint64_t ends = fg & ~((join >> 1) | (nextJoin << 63));
        visit(w, starts, ends);
        fg = nextFg;
        join = nextJoin;
    }
}

// The runs of `row` (width elements) into out; returns their count.
template <class Rule>
std::uint32_t extractRuns(const Rule& rule, const std::uint8_t* row, std::int64_t width, RowRuns& out) {
    std::uint32_t* first = out.first.data();
    std::uint32_t* last = out.last.data();
    forEachRunWord(rule, row, width, [&](std::int64_t w, std::uint64_t starts, std::uint64_t ends) {
        first = writeBitPositions(starts, std::uint32_t(64 * w), first);
        last = writeBitPositions(ends, std::uint32_t(64 * w), last);
    });
    out.count = std::uint32_t(first - out.first.data());
    return out.count;
}

// How many runs `row` has.
template <class Rule>
std::uint32_t countRuns(const Rule& rule, const std::uint8_t* row, std::int64_t width) {
    std::uint32_t count = 0;
    forEachRunWord(rule, row, width, [&](std::int64_t, std::uint64_t starts, std::uint64_t) {
        count += std::uint32_t(__builtin_popcountll(starts));
    });
    return count;
}

}  // namespace glccl::cpu::detail

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

// The set bits of a word: the instruction where the build targets it, else
// the SWAR sum of Hacker's Delight (5-2), which beats a call into libgcc.
inline std::uint32_t bitCount(std::uint64_t bits) {
#if defined(__POPCNT__)
    return std::uint32_t(__builtin_popcountll(bits));
#else
    bits -= (bits >> 1) & 0x5555555555555555ull;
    bits = (bits & 0x3333333333333333ull) + ((bits >> 2) & 0x3333333333333333ull);
    bits = (bits + (bits >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return std::uint32_t((bits * 0x0101010101010101ull) >> 56);
#endif
}

// Writes base + the index of every set bit of `bits`, lowest first, and
// returns the end of what it wrote. Eight at a time, whether there are eight
// or not (the arrays have kSlack elements of room): a loop of one store per
// bit would end where no branch predictor guesses.
constexpr std::size_t kSlack = 8;
inline std::uint32_t* writeBitPositions(std::uint64_t bits, std::uint32_t base, std::uint32_t* out) {
    std::uint32_t* const end = out + bitCount(bits);
    constexpr std::uint64_t kStop = std::uint64_t(1) << 63;  // keeps the count defined once bits run out
    for (; out < end; out += 8) {
        for (int i = 0; i < 8; ++i) {
            out[i] = base + std::uint32_t(__builtin_ctzll(bits | kStop));
            bits &= bits - 1;
        }
    }
    return end;
}

struct RowRuns {
    std::int64_t row = -1;  // the row they are of; -1: none yet
    std::uint32_t count = 0;
    std::vector<std::uint32_t> first, last;
    // And the row's words: foreground and start bits, and before each word
    // the runs that start in the words before it, so that the runs touching
    // a stretch are counted, not searched (touching()).
    std::vector<std::uint64_t> foreground, starts;
    std::vector<std::uint32_t> startsBefore;

    void reserve(std::int64_t maxRuns, std::int64_t width) {
        if (first.size() < std::size_t(maxRuns) + kSlack) {
            first.resize(std::size_t(maxRuns) + kSlack);
            last.resize(std::size_t(maxRuns) + kSlack);
        }
        const std::size_t wordCount = std::size_t((width + 63) / 64);
        if (foreground.size() < wordCount) {
            foreground.resize(wordCount);
            starts.resize(wordCount);
            startsBefore.resize(wordCount);
        }
    }
    Span span(std::uint32_t i) const { return {first[i], last[i]}; }

    // The runs starting at or before element x.
    std::uint32_t startsUpTo(std::uint32_t x) const {
        const std::uint32_t w = x / 64;
        return startsBefore[w] + bitCount(starts[w] & (~std::uint64_t(0) >> (63 - x % 64)));
    }
    // The runs with an element in [from, to] (of a row with word bits):
    // those from the one covering `from` (or the first after it) to the last
    // one starting by `to`; an empty range when begin > end.
    void touching(std::uint32_t from, std::uint32_t to, std::uint32_t& begin, std::uint32_t& end) const {
        begin = startsUpTo(from) - std::uint32_t((foreground[from / 64] >> (from % 64)) & 1u);
        end = startsUpTo(to);
    }
};

// Walks a row's 64-element words, handing each word's foreground, start and
// end bits (bit i: element 64 * word + i is foreground / starts a run / ends
// one) to visit(word, foreground, starts, ends).
template <class Rule, class Visit>
void forEachRunWord(const Rule& rule, const std::uint8_t* row, std::int64_t width, Visit&& visit) {
    const std::int64_t words = (width + 63) / 64;
    auto chunk = [&](std::int64_t w) { return int(std::min<std::int64_t>(64, width - 64 * w)); };
    // A join needs both elements foreground, whatever a rule says: then
    // every start has its end, and the run arrays hold what was counted.
    std::uint64_t fg = 0, join = 0;
    rule.masks(row, 0, chunk(0), fg, join);
    join &= fg & (fg << 1);
    for (std::int64_t w = 0; w < words; ++w) {
        std::uint64_t nextFg = 0, nextJoin = 0;
        if (w + 1 < words) {
            rule.masks(row, 64 * (w + 1), chunk(w + 1), nextFg, nextJoin);
            nextJoin &= nextFg & ((nextFg << 1) | (fg >> 63));
        }
        const std::uint64_t starts = fg & ~join;
        const std::uint64_t ends = fg & ~((join >> 1) | (nextJoin << 63));
        visit(w, fg, starts, ends);
        fg = nextFg;
        join = nextJoin;
    }
}

// The runs of `row` (width elements) into out, and its words where `words`
// (for rows that others look up); returns their count. Where `foreground`
// is given, the row's foreground words are copied there too.
template <bool words = true, class Rule>
std::uint32_t extractRuns(const Rule& rule, const std::uint8_t* row, std::int64_t width, RowRuns& out,
                          std::uint64_t* foreground = nullptr) {
    std::uint32_t* first = out.first.data();
    std::uint32_t* last = out.last.data();
    forEachRunWord(rule, row, width, [&](std::int64_t w, std::uint64_t fg, std::uint64_t starts, std::uint64_t ends) {
        if constexpr (words) {
            out.startsBefore[std::size_t(w)] = std::uint32_t(first - out.first.data());
            out.starts[std::size_t(w)] = starts;
            out.foreground[std::size_t(w)] = fg;
        }
        if (foreground) foreground[w] = fg;
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
    forEachRunWord(rule, row, width, [&](std::int64_t, std::uint64_t, std::uint64_t starts, std::uint64_t) {
        count += bitCount(starts);
    });
    return count;
}

}  // namespace glccl::cpu::detail

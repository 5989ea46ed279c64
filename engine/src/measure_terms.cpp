#include "measure_terms.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gl_error.hpp"
#include "glccl/capabilities.hpp"
#include "glccl/error.hpp"
#include "glccl/measure.hpp"
#include "program.hpp"
#include "row_ranges.hpp"
#include "small_helpers.hpp"

namespace glccl::measure {

namespace {

// The 32-bit limbs of a sum below 2^bits (at least one).
int limbsOf(int bits) { return std::max(1, (bits + 31) / 32); }

// The bounds a layout's programs are built with (EXTENT_BITS, COUNT_BITS,
// SAMPLE_BITS: measure_common.glsl's termLimbs works out each moment term's
// limbs from them): the least that give every term of `q` the limbs the
// layout gives it. Those limbs, not the bounds, are what the programs do;
// so the images whose largest regions differ but whose records come out
// alike share one program text, compiled once.
std::array<int, 3> programBounds(const RecordLayout& layout, const TermRequest& q) {
    auto gives = [&](int extentBits, int base, int level, const std::vector<int>& limbs) {
        const auto exponents = TermRequest::exponents(level, q.dimensions);
        for (std::size_t i = 0; i < limbs.size(); ++i)
            if (limbsOf(extentBits * (exponents[i][0] + exponents[i][1] + exponents[i][2]) + base) != limbs[i])
                return false;
        return true;
    };
    const int widest = layout.countBits + layout.sampleBits;
    for (int e = 0; e <= layout.extentBits; ++e)
        for (int count = 0; count <= layout.countBits; ++count) {
            if (!gives(e, count, q.momentLevel, layout.momentLimbs)) continue;
            for (int weighted = count; weighted <= widest; ++weighted)
                if (gives(e, weighted, q.weightedMomentLevel, layout.weightedLimbs))
                    return {e, count, weighted - count};
        }
    // Not reached: the layout's own bounds give its limbs.
    return {layout.extentBits, layout.countBits, layout.sampleBits};
}

// What of a layout its programs depend on beyond the request.
std::string limbsSignature(const RecordLayout& layout, const std::array<int, 3>& bounds) {
    std::string signature = std::to_string(layout.limbs);
    for (int n : {bounds[0], bounds[1], bounds[2], layout.sumLimbs, layout.squaresLimbs})
        signature += "." + std::to_string(n);
    return signature;
}

// The invocations of a stage's work group.
int groupOf(const std::string& stage) {
    if (stage == "clear_records") return kClearGroupThreads;
    if (stage == "measure_small") return kSmallGroupThreads;
    if (stage == "measure_medium") return kMediumGroupThreads;
    return kGroupThreads;
}

// The elements (windows) of a stage's segment. measure_terms' segments are
// short where a run's flush adds few words (measure_terms.hpp).
int segmentOf(const std::string& stage, const RecordLayout& layout) {
    if (stage == "measure_windows") return kWindowSegment;
    if (stage == "measure_terms" && layout.words <= kShortSegmentWords) return kShortSegment;
    return kElementSegment;
}

// Whether an image's measure_terms counts the 2x2 windows itself (its walk
// reads every element's 5x5 labels for the perimeter), in place of
// measure_windows.
bool windowsInTerms(const TermRequest& q) { return q.dimensions == 2 && q.perimeter && (q.crofton || q.euler); }

int bitLength(unsigned __int128 v) {
    int bits = 0;
    for (; v; v >>= 1) ++bits;
    return bits;
}

// The record of `request`, for the regions of `table`.
RecordLayout layoutOf(const std::vector<Component>& table, const TermRequest& q, int intensityBits) {
    std::uint64_t extent = 1, count = 1;
    for (const Component& c : table) {
        extent = std::max<std::uint64_t>({extent, c.width, c.height, c.depth});
        count = std::max<std::uint64_t>(count, c.area);
    }
    return recordLayout(extent, count, q, intensityBits);
}

// Word k of a tier's record (`tier`, a layout of the same request for
// smaller bounds) is word map[k] of the region's record in `wide`: its
// sums' low limbs, the counts and extrema as they are.
std::vector<std::uint32_t> packMap(const RecordLayout& tier, const RecordLayout& wide) {
    std::vector<std::uint32_t> map(std::size_t(tier.words));
    auto part = [&](int tierAt, int wideAt, int words) {
        for (int k = 0; k < words; ++k) map[std::size_t(tierAt + k)] = std::uint32_t(wideAt + k);
    };
    for (std::size_t t = 0; t < tier.momentLimbs.size(); ++t)
        part(tier.momentsAt + tier.momentOffsets[t], wide.momentsAt + wide.momentOffsets[t], tier.momentLimbs[t]);
    part(tier.perimeterAt, wide.perimeterAt, tier.sumAt - tier.perimeterAt);  // perimeter, Crofton, Euler
    part(tier.sumAt, wide.sumAt, tier.sumLimbs);
    part(tier.squaresAt, wide.squaresAt, tier.squaresLimbs);
    part(tier.extremaAt, wide.extremaAt, tier.weightedAt - tier.extremaAt);  // extrema, their positions
    for (std::size_t t = 0; t < tier.weightedLimbs.size(); ++t)
        part(tier.weightedAt + tier.weightedOffsets[t], wide.weightedAt + wide.weightedOffsets[t], tier.weightedLimbs[t]);
    return map;
}

// The boxes of a tier's regions: at most `elements` elements and
// `largestSide` a side; one element across on the axes of `flat` (bit k:
// axis k), at least `leastSide` on the others.
struct TierBoxes {
    std::uint64_t elements;
    unsigned flat;
    int leastSide, largestSide;
};

// The largest sum of lx^a ly^b lz^c (e = a, b, c) a region of `boxes` can
// have: its whole box's, the product of the sums of each axis' powers,
// largest over the boxes (each term grows with every side).
unsigned __int128 largestBoxSum(const std::array<int, 3>& e, int dimensions, const TierBoxes& boxes) {
    // powerSums[a][n]: the sum of x^a over x = 0 .. n - 1, for sides to 256.
    static const auto powerSums = [] {
        std::array<std::array<std::uint64_t, 257>, 4> sums{};
        for (int a = 0; a < 4; ++a)
            for (int n = 1; n <= 256; ++n) {
                std::uint64_t power = 1;
                for (int k = 0; k < a; ++k) power *= std::uint64_t(n - 1);
                sums[std::size_t(a)][std::size_t(n)] = sums[std::size_t(a)][std::size_t(n - 1)] + power;
            }
        return sums;
    }();
    auto sides = [&](int axis) {
        return boxes.flat >> axis & 1u ? std::pair{1, 1} : std::pair{boxes.leastSide, boxes.largestSide};
    };
    const auto [w0, w1] = sides(0);
    const auto [h0, h1] = sides(1);
    const auto [d0, d1] = dimensions == 3 ? sides(2) : std::pair{1, 1};
    const auto& sumX = powerSums[std::size_t(e[0])];
    const auto& sumY = powerSums[std::size_t(e[1])];
    const auto& sumZ = powerSums[std::size_t(e[2])];
    unsigned __int128 largest = 0;
    for (int w = w0; w <= w1 && std::uint64_t(w) * std::uint64_t(h0) * std::uint64_t(d0) <= boxes.elements; ++w)
        for (int h = h0; h <= h1 && std::uint64_t(w) * std::uint64_t(h) * std::uint64_t(d0) <= boxes.elements; ++h) {
            // The deepest box of w x h: the sums grow with the depth.
            const std::uint64_t d = std::min<std::uint64_t>(std::uint64_t(d1), boxes.elements / (std::uint64_t(w) * std::uint64_t(h)));
            largest = std::max(largest, static_cast<unsigned __int128>(sumX[std::size_t(w)] * sumY[std::size_t(h)]) *
                                            sumZ[std::size_t(d)]);
        }
    return largest;
}

// The bits each word of a tier's record `tier` can hold, for its regions'
// `boxes`: measure_pack keeps those alone, one word's after another's
// (packedWords of them a region). A sum of limbs below 2^b: b - 32 k of
// its limb k (none past the sum's bits); a count of elements or windows,
// the bits of their most; the Euler sum, two's complement below 2^64, as
// a signed sum of its bound's bits in its low limb (its high limb none),
// which the host widens back; extrema and their positions whole. The
// moments' bounds, maxima over every w x h of a tier's boxes, are worked
// out once a process.
std::vector<std::uint8_t> fieldWidths(const RecordLayout& tier, const TermRequest& q, const TierBoxes& boxes) {
    std::vector<std::uint8_t> widths(std::size_t(tier.words), 32);
    auto sum = [&](int at, int limbs, int bits) {
        for (int k = 0; k < limbs; ++k) widths[std::size_t(at + k)] = std::uint8_t(std::clamp(bits - 32 * k, 0, 32));
    };
    static std::mutex mutex;
    static std::map<std::tuple<int, int, unsigned, int, int, std::uint64_t>, std::vector<int>> known;
    std::vector<int> termBits;
    {
        const auto key = std::tuple{q.dimensions, q.momentLevel, boxes.flat, boxes.leastSide, boxes.largestSide,
                                    boxes.elements};
        std::lock_guard<std::mutex> lock(mutex);
        auto found = known.find(key);
        if (found == known.end()) {
            std::vector<int> bits;
            for (const auto& e : TermRequest::exponents(q.momentLevel, q.dimensions))
                bits.push_back(bitLength(largestBoxSum(e, q.dimensions, boxes)));
            found = known.emplace(key, std::move(bits)).first;
        }
        termBits = found->second;
    }
    for (std::size_t t = 0; t < tier.momentLimbs.size(); ++t)
        sum(tier.momentsAt + tier.momentOffsets[t], tier.momentLimbs[t], termBits[t]);
    const int elementBits = bitLength(boxes.elements);
    for (int c = 0; c < 3 && q.perimeter; ++c) sum(tier.perimeterAt + c, 1, elementBits);
    for (int c = 0; c < 5 && q.crofton; ++c)
        sum(tier.croftonAt + c, 1, bitLength(4 * boxes.elements));  // windows: (w + 1)(h + 1) <= 4 w h
    // A window's share of the Euler sum is at most 64 either way, and a box
    // has at most 8 windows an element.
    if (q.euler) sum(tier.eulerAt, 2, bitLength(512 * boxes.elements) + 1);
    sum(tier.sumAt, tier.sumLimbs, tier.sampleBits + elementBits);
    sum(tier.squaresAt, tier.squaresLimbs, 2 * tier.sampleBits + elementBits);
    return widths;
}

std::size_t packedWords(const std::vector<std::uint8_t>& widths) {
    std::size_t bits = 0;
    for (std::uint8_t w : widths) bits += w;
    return (bits + 31) / 32;
}

// A record packed by its fields' `widths` (fieldWidths) back into its
// words, in `words`; the Euler sum's at `eulerAt` (-1: none) widened back
// to 64 bits of two's complement.
const std::uint32_t* unpack(const std::uint32_t* packed, const std::vector<std::uint8_t>& widths, int eulerAt,
                            std::vector<std::uint32_t>& words) {
    std::size_t at = 0;
    for (std::size_t k = 0; k < widths.size(); ++k) {
        const unsigned width = widths[k], shift = unsigned(at % 32);
        if (width == 0) {
            words[k] = 0;
            continue;
        }
        std::uint64_t bits = packed[at / 32] >> shift;
        if (shift + width > 32) bits |= std::uint64_t(packed[at / 32 + 1]) << (32 - shift);
        words[k] = std::uint32_t(bits & ((std::uint64_t(1) << width) - 1));
        at += width;
    }
    if (eulerAt >= 0) {
        const std::size_t e = std::size_t(eulerAt);
        const unsigned width = unsigned(widths[e]) + widths[e + 1];
        const std::uint64_t bits = words[e] | std::uint64_t(words[e + 1]) << 32;
        // The sign from bit width - 1.
        const std::int64_t euler = width == 0 ? 0 : std::int64_t(bits << (64 - width)) >> (64 - width);
        words[e] = std::uint32_t(std::uint64_t(euler));
        words[e + 1] = std::uint32_t(std::uint64_t(euler) >> 32);
    }
    return words.data();
}

// The shape's terms of every point of `q` (moments, perimeter's and
// Crofton's classes, Euler times): those the cpu accumulator gives the one
// element of a one-element image, the same for any point, as the region's
// terms depend on its own elements alone.
RegionTotals pointShape(const TermRequest& q) {
    TermRequest shape = q;
    shape.channels = 0;
    shape.intensitySums = shape.intensityExtrema = shape.intensityPositions = false;
    shape.weightedMomentLevel = 0;
    const std::uint32_t label = 1;
    LabelSamples labels;
    labels.shape = q.dimensions == 3 ? Shape::volume(1, 1, 1) : Shape::image(1, 1);
    labels.data = &label;
    return measureTerms(labels, nullptr, shape, 1);
}

// The terms of the points `regions` (batch indices from `first`, rows of
// `totals` and `table` from first) into `totals`: the shape's of any point
// (pointShape), and with intensity terms those of each one's sample,
// samples[j] of regions[j], in an image of `width` x `height` (x depth).
void readPoints(RegionTotals& totals, const std::vector<Component>& table, const std::vector<std::uint32_t>& regions,
                std::size_t first, const std::uint32_t* samples, bool intensityTerms, std::uint64_t width,
                std::uint64_t height) {
    const TermRequest& q = totals.request;
    const RegionTotals shape = pointShape(q);
    const std::size_t terms = shape.moments.size(), perimeter = shape.perimeterClasses.size(),
                      crofton = shape.croftonClasses.size(), euler = shape.eulerTimes.size();
    const std::size_t weightedTerms = TermRequest::exponents(q.weightedMomentLevel, q.dimensions).size();
    forRowRanges(regions.size(), 0, [&](std::size_t begin, std::size_t end) {
        for (std::size_t j = begin; j < end; ++j) {
            const std::size_t r = first + regions[j];
            for (std::size_t t = 0; t < terms; ++t) streamStore(totals.moments[r * terms + t], shape.moments[t]);
            for (std::size_t c = 0; c < perimeter; ++c)
                totals.perimeterClasses[r * perimeter + c] = shape.perimeterClasses[c];
            for (std::size_t c = 0; c < crofton; ++c) totals.croftonClasses[r * crofton + c] = shape.croftonClasses[c];
            if (euler) totals.eulerTimes[r] = shape.eulerTimes[0];
            if (!intensityTerms) continue;
            // The region's one sample v: its sum, its extrema, its weighted
            // moment of exponents 0 (the others' powers of 0 are 0).
            const std::uint64_t v = samples[j];
            for (std::size_t t = 0; t < weightedTerms; ++t)
                streamStore(totals.weightedMoments[r * weightedTerms + t], Int256::of(t == 0 ? __int128(v) : 0));
            if (q.intensitySums) {
                totals.intensitySum[r] = Int256::of(__int128(v));
                totals.intensitySquares[r] = Int256::of(__int128(v) * __int128(v));
            }
            if (q.intensityExtrema) {
                totals.intensityMinBits[r] = totals.intensityMaxBits[r] = v;
                totals.intensityMin[r] = totals.intensityMax[r] = double(v);
            }
            if (q.intensityPositions) {
                const Component& c = table[r];
                totals.intensityMinAt[r] = totals.intensityMaxAt[r] =
                    (std::uint64_t(c.front) * height + std::uint64_t(c.top)) * width + std::uint64_t(c.left);
            }
        }
        streamFence();
    });
}

}  // namespace

namespace {

// The parts of a record of `q` one after another, `layout`'s bounds and
// sum limbs set: moment term t of the plain (weighted) moments takes
// termLimbs(t, false (true)) limbs.
RecordLayout laidOut(RecordLayout layout, const TermRequest& q,
                     const std::function<int(std::size_t term, bool weighted)>& termLimbs) {
    layout.limbs = std::max({1, layout.sumLimbs, layout.squaresLimbs});
    layout.momentOffsets.clear(), layout.momentLimbs.clear();
    layout.weightedOffsets.clear(), layout.weightedLimbs.clear();
    int at = 0;
    // A moment part: its terms' offsets and limbs, one term after another.
    auto moments = [&](int level, bool weighted, std::vector<int>& offsets, std::vector<int>& limbs) {
        const int start = at;
        const std::size_t terms = TermRequest::exponents(level, q.dimensions).size();
        for (std::size_t t = 0; t < terms; ++t) {
            const int n = termLimbs(t, weighted);
            offsets.push_back(at - start);
            limbs.push_back(n);
            at += n;
            layout.limbs = std::max(layout.limbs, n);
        }
        return int(offsets.size());
    };
    layout.momentsAt = at;
    layout.momentTerms = moments(q.momentLevel, false, layout.momentOffsets, layout.momentLimbs);
    layout.perimeterAt = at;
    at += q.perimeter ? 3 : 0;
    layout.croftonAt = at;
    at += q.crofton ? 5 : 0;
    layout.eulerAt = at;
    at += q.euler ? 2 : 0;
    layout.sumAt = at;
    at += layout.sumLimbs;
    layout.squaresAt = at;
    at += layout.squaresLimbs;
    layout.extremaAt = at;
    at += q.intensityExtrema ? 2 : 0;
    layout.positionsAt = at;
    at += q.intensityExtrema && q.intensityPositions ? 2 : 0;
    layout.weightedAt = at;
    layout.weightedTerms = moments(q.weightedMomentLevel, true, layout.weightedOffsets, layout.weightedLimbs);
    layout.words = at;
    return layout;
}

// The largest lx^a ly^b lz^c (e = a, b, c) in a box of at most `elements`
// elements (w h d of them, each coordinate local to the box: below its
// side) one element across on the axes of `flat` (bit k: axis k): the
// largest (w - 1)^a (h - 1)^b (d - 1)^c. 0 where the term has a power of a
// flat axis, whose coordinate is 0 throughout.
std::uint64_t largestTermInBox(const std::array<int, 3>& e, std::uint64_t elements, int dimensions, unsigned flat) {
    const std::uint64_t widest[3] = {flat & 1u ? 1 : elements, flat & 2u ? 1 : elements, flat & 4u ? 1 : elements};
    std::uint64_t largest = 0;
    for (std::uint64_t w = 1; w <= std::min(elements, widest[0]); ++w)
        for (std::uint64_t h = 1; w * h <= elements && h <= widest[1]; ++h)
            for (std::uint64_t d = 1; w * h * d <= elements && d <= widest[2] && (d == 1 || dimensions == 3); ++d) {
                std::uint64_t term = 1;
                for (int k = 0; k < e[0]; ++k) term *= w - 1;
                for (int k = 0; k < e[1]; ++k) term *= h - 1;
                for (int k = 0; k < e[2]; ++k) term *= d - 1;
                largest = std::max(largest, term);
            }
    return largest;
}

// The record of the regions of boxes of at most kSmallBox elements that the
// host reads, of those one element across on the axes of `flat` (bit k:
// axis k): a moment term's sum is at most kSmallBox times
// largestTermInBox (a cube 4 a side holds 64 elements, a row 64 of them:
// every term of an image or a volume below 2^18, where 63^(a + b + c)
// reaches 2^54), and a term with a power of a flat axis is 0 and takes no
// word (a volume's one-voxel regions, most of a porous one's, keep 1 of 64
// moment terms).
RecordLayout smallRecordLayout(const TermRequest& q, int intensityBits, unsigned flat) {
    const RecordLayout layout = recordLayout(kSmallBox, kSmallBox, q, intensityBits);
    const auto plain = TermRequest::exponents(q.momentLevel, q.dimensions);
    const auto weighted = TermRequest::exponents(q.weightedMomentLevel, q.dimensions);
    return laidOut(layout, q, [&](std::size_t t, bool isWeighted) {
        const std::array<int, 3>& e = isWeighted ? weighted[t] : plain[t];
        const std::uint64_t largest = largestTermInBox(e, kSmallBox, q.dimensions, flat);
        return largest == 0 ? 0 : limbsOf(bitLength(largest) + layout.countBits + (isWeighted ? intensityBits : 0));
    });
}

// The axes on which a box is one element across (bit k: axis k).
unsigned flatAxes(const Component& c, int dimensions) {
    return unsigned(c.width == 1) | unsigned(c.height == 1) << 1 |
           unsigned(dimensions == 3 && std::max<std::uint64_t>(c.depth, 1) == 1) << 2;
}

// `tier` with no sum wider than in `wide`, whose words measure_pack copies
// it from: a region of the tier's bounds within the batch's is within
// both.
RecordLayout within(const RecordLayout& tier, const RecordLayout& wide, const TermRequest& q) {
    RecordLayout layout = tier;
    layout.sumLimbs = std::min(tier.sumLimbs, wide.sumLimbs);
    layout.squaresLimbs = std::min(tier.squaresLimbs, wide.squaresLimbs);
    return laidOut(layout, q, [&](std::size_t t, bool weighted) {
        return weighted ? std::min(tier.weightedLimbs[t], wide.weightedLimbs[t])
                        : std::min(tier.momentLimbs[t], wide.momentLimbs[t]);
    });
}

}  // namespace

// The record of `request`, its wide sums wide enough for every region of
// at most `extent` elements across and `count` elements: a moment sum of
// degree d is at most count x (extent - 1)^d, times the intensity's largest
// sample for a weighted one, the sum of squares count x sample^2. The
// count's bits are rounded up to a multiple of 8, so that the images and
// chunks of one size mostly share one layout, and with it their programs.
RecordLayout recordLayout(std::uint64_t extent, std::uint64_t count, const TermRequest& q, int intensityBits) {
    RecordLayout layout;
    extent = std::max<std::uint64_t>(extent, 1);
    count = std::max<std::uint64_t>(count, 1);
    layout.extentBits = bitLength(extent - 1);
    layout.countBits = (bitLength(count) + 7) / 8 * 8;
    layout.sampleBits = intensityBits;
    if (q.intensitySums) {
        layout.sumLimbs = limbsOf(intensityBits + layout.countBits);
        layout.squaresLimbs = limbsOf(2 * intensityBits + layout.countBits);
    }
    const auto plain = TermRequest::exponents(q.momentLevel, q.dimensions);
    const auto weighted = TermRequest::exponents(q.weightedMomentLevel, q.dimensions);
    layout = laidOut(layout, q, [&](std::size_t t, bool isWeighted) {
        const std::array<int, 3>& e = isWeighted ? weighted[t] : plain[t];
        return limbsOf(layout.extentBits * (e[0] + e[1] + e[2]) + (isWeighted ? intensityBits : 0) + layout.countBits);
    });
    if (layout.limbs > 8) throw Error("moments of a region " + std::to_string(extent) + " elements across exceed 256 bits");
    return layout;
}

namespace {

// `buffer` bound to the storage target, its storage grown to `bytes` where
// smaller; what it holds is left undefined.
void reserve(gl::Buffer& buffer, std::size_t& capacity, std::size_t bytes) {
    if (!buffer) buffer = gl::Buffer::create();
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer.id());
    if (bytes > capacity) {
        glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(bytes), nullptr, GL_DYNAMIC_COPY);
        capacity = bytes;
    }
}

// Replaces the first `bytes` of `buffer` (grown when too small) with `data`.
void fill(gl::Buffer& buffer, std::size_t& capacity, std::size_t bytes, const void* data) {
    reserve(buffer, capacity, bytes);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(bytes), data);
}

// The tiles of an image's pass along y over `width` x `height` elements
// (windows), groups of `group` columns by segments of `segment` rows, as
// measure_common.glsl's thisPillar reads them (x-tile | segment << 16):
// those that hold an element of one of `boxes` (x, y, width, height), each
// grown by `grow` at its far sides; every tile where boxes is null.
std::vector<std::uint32_t> walkTiles(int width, int height, int group, int segment,
                                     const std::vector<std::array<std::int64_t, 4>>* boxes, int grow) {
    const std::int64_t across = ceilDiv<std::int64_t>(width, group), down = ceilDiv<std::int64_t>(height, segment);
    if (across > 0x10000 || down > 0x10000)
        throw Error("glccl: an image of " + std::to_string(width) + "x" + std::to_string(height) +
                    " has more tiles along a side than the measuring passes number (65,536)");
    std::vector<bool> marked(std::size_t(across * down), boxes == nullptr);
    if (boxes)
        for (const auto& b : *boxes) {
            const std::int64_t x1 = std::min<std::int64_t>(b[0] + b[2] + grow, width);
            const std::int64_t y1 = std::min<std::int64_t>(b[1] + b[3] + grow, height);
            for (std::int64_t ty = b[1] / segment; ty * segment < y1; ++ty)
                for (std::int64_t tx = b[0] / group; tx * group < x1; ++tx)
                    marked[std::size_t(ty * across + tx)] = true;
        }
    std::vector<std::uint32_t> tiles;
    for (std::int64_t ty = 0; ty < down; ++ty)
        for (std::int64_t tx = 0; tx < across; ++tx)
            if (marked[std::size_t(ty * across + tx)]) tiles.push_back(std::uint32_t(tx | ty << 16));
    return tiles;
}

}  // namespace

void checkRequest(const TermRequest& q, int dimensions, bool intensityGiven) {
    if (q.dimensions != dimensions)
        throw Error("the request is for " + std::to_string(q.dimensions) + "-D regions, the labels are " +
                    std::to_string(dimensions) + "-D");
    if (dimensions == 3 && (q.perimeter || q.crofton)) throw Error("perimeter and Crofton terms are 2-D terms");
    const bool intensityTerms = q.intensitySums || q.intensityExtrema || q.weightedMomentLevel > 0;
    if (q.channels > 1 || q.intensityKind != SampleKind::Unsigned)
        throw Error("intensity terms are gathered here of one channel of unsigned samples; others on the host "
                    "(glccl::measureTerms of glccl/measure.hpp)");
    if ((q.channels > 0 || intensityTerms) && !intensityGiven)
        throw Error("the request has intensity terms and no intensity texture is given");
    if (intensityGiven && (q.channels != 1 || !intensityTerms))
        throw Error("an intensity texture is given to a request without intensity terms (channels 1 and sums, "
                    "extrema or weighted moments)");
}

Intensity intensityOf(unsigned texture, const gl::Texture& labels) {
    if (texture == 0 || !glIsTexture(texture))
        throw Error("intensity texture " + std::to_string(texture) + " is not a texture of the current context");
    const GLenum target = labels.target();
    glActiveTexture(GL_TEXTURE0);
    clearGlErrors();
    glBindTexture(target, texture);
    if (glGetError() != GL_NO_ERROR)
        throw Error(std::string("the intensity texture is not a ") + (target == GL_TEXTURE_3D ? "3-D" : "2-D") +
                    " texture as the labels are");
    GLint width = 0, height = 0, depth = 1, format = 0;
    glGetTexLevelParameteriv(target, 0, GL_TEXTURE_WIDTH, &width);
    glGetTexLevelParameteriv(target, 0, GL_TEXTURE_HEIGHT, &height);
    if (target == GL_TEXTURE_3D) glGetTexLevelParameteriv(target, 0, GL_TEXTURE_DEPTH, &depth);
    glGetTexLevelParameteriv(target, 0, GL_TEXTURE_INTERNAL_FORMAT, &format);
    auto size = [](int w, int h, int d, bool volume) {
        return std::to_string(w) + "x" + std::to_string(h) + (volume ? "x" + std::to_string(d) : "");
    };
    const bool volume = target == GL_TEXTURE_3D;
    if (width != labels.width() || height != labels.height() || depth != labels.depth())
        throw Error("the intensity texture is " + size(width, height, depth, volume) + ", the labels are " +
                    size(labels.width(), labels.height(), labels.depth(), volume));
    Intensity intensity;
    intensity.texture = texture;
    intensity.format = GLenum(format);
    switch (format) {
        case GL_R8: case GL_R8UI: intensity.bits = 8; break;
        case GL_R16: case GL_R16UI: intensity.bits = 16; break;
        case GL_R32UI: intensity.bits = 32; break;
        default:
            throw Error(std::string("the intensity texture is ") + textureFormatName(unsigned(format)) +
                        "; intensity terms are gathered of GL_R8, GL_R8UI, GL_R16, GL_R16UI and GL_R32UI textures");
    }
    return intensity;
}


gl::Program& TermGatherer::program(const std::string& stage, const RecordLayout& layout, const TermRequest& q,
                                   const Intensity& intensity, bool strips) {
    const std::array<int, 3> bounds = programBounds(layout, q);
    // measure_terms' walk of an image reads the foreground's bits, and
    // measure_windows takes a window's foreground as one region's.
    const bool foreground =
        foregroundConnected_ &&
        ((stage == "measure_terms" && q.dimensions == 2 && q.perimeter) || stage == "measure_windows");
    const std::string key = stage + "/" + std::to_string(q.dimensions) + "/" + std::to_string(q.momentLevel) + "/" +
                            std::to_string(q.weightedMomentLevel) + "/" + limbsSignature(layout, bounds) + "/" +
                            std::to_string(q.perimeter) + std::to_string(q.crofton) + std::to_string(q.euler) +
                            std::to_string(q.intensitySums) + std::to_string(q.intensityExtrema) +
                            std::to_string(q.intensityPositions) + "/" + std::to_string(intensity.format) +
                            (strips ? "/strips" : "") + (foreground ? "/foreground" : "");
    auto found = programs_.find(key);
    if (found == programs_.end()) {
        gl::ProgramBuilder builder(stage);
        builder.define("DIMENSIONS", q.dimensions)
            .define("MEASURE_LABELS_IMAGE", kLabelsImage)
            .define("MEASURE_BOXES_BUFFER", kBoxesBuffer)
            .define("MEASURE_TOTALS_BUFFER", kTotalsBuffer)
            .define("MEASURE_SMALL_BUFFER", kSmallBuffer)
            .define("MEASURE_HOT_BUFFER", kHotBuffer)
            .define("MEASURE_MEDIUM_BUFFER", kMediumBuffer)
            .define("MEDIUM_BAND_WORDS", kMediumBandWords)
            .define("MEASURE_TILES_BUFFER", kTilesBuffer)
            .define("MEASURE_PACK_TARGETS_BUFFER", kPackTargetsBuffer)
            .define("MEASURE_PACK_WORDS_BUFFER", kPackWordsBuffer)
            .define("MEASURE_PACKED_BUFFER", kPackedBuffer)
            .define("CLEAR_BUFFER", kClearBuffer)
            .define("PACK_LANES", kPackLanes)
            .define("NO_PACK_TARGET", std::to_string(kNoPackTarget) + "u")
            .define("REPLICAS", kReplicas)
            .define("MEASURE_GROUP", groupOf(stage))
            .define("MEASURE_SEGMENT", segmentOf(stage, layout))
            .define("LIMBS", layout.limbs)
            .define("EXTENT_BITS", bounds[0])
            .define("COUNT_BITS", bounds[1])
            .define("SAMPLE_BITS", bounds[2])
            .define("SUM_LIMBS", layout.sumLimbs)
            .define("SQUARES_LIMBS", layout.squaresLimbs)
            .define("MOMENT_LEVEL", q.momentLevel)
            .define("MOMENT_TERMS", std::max(layout.momentTerms, 1))
            .define("WEIGHTED_TERMS", std::max(layout.weightedTerms, 1))
            .define("RECORD_WORDS", layout.words)
            .define("MOMENTS_AT", layout.momentsAt)
            .define("PERIMETER_AT", layout.perimeterAt)
            .define("CROFTON_AT", layout.croftonAt)
            .define("EULER_AT", layout.eulerAt)
            .define("WEIGHTED_LEVEL", q.weightedMomentLevel)
            .define("SUM_AT", layout.sumAt)
            .define("SQUARES_AT", layout.squaresAt)
            .define("EXTREMA_AT", layout.extremaAt)
            .define("POSITIONS_AT", layout.positionsAt)
            .define("WEIGHTED_AT", layout.weightedAt)
            .define("MEASURE_INTENSITY_IMAGE", kIntensityImage);
        if (layout.momentTerms > 0) builder.define("GATHER_MOMENTS");
        if (q.perimeter) builder.define("GATHER_PERIMETER");
        if (stage == "measure_terms" && windowsInTerms(q)) builder.define("TERMS_WINDOWS");
        if (q.crofton) builder.define("GATHER_CROFTON");
        if (q.euler) builder.define("GATHER_EULER");
        if (intensity.texture) {
            if (q.intensitySums) builder.define("GATHER_SUMS");
            if (q.intensityExtrema) builder.define("GATHER_EXTREMA");
            if (q.intensityExtrema && q.intensityPositions) builder.define("GATHER_POSITIONS");
            if (layout.weightedTerms > 0) builder.define("GATHER_WEIGHTED");
            switch (intensity.format) {
                case GL_R8: builder.define("INTENSITY_FORMAT", "r8").define("INTENSITY_SCALE", "255.0"); break;
                case GL_R16: builder.define("INTENSITY_FORMAT", "r16").define("INTENSITY_SCALE", "65535.0"); break;
                case GL_R8UI: builder.define("INTENSITY_FORMAT", "r8ui"); break;
                case GL_R16UI: builder.define("INTENSITY_FORMAT", "r16ui"); break;
                default: builder.define("INTENSITY_FORMAT", "r32ui"); break;
            }
        }
        if (stage == "measure_extrema") builder.define("WALK_ROWS");
        if (strips) builder.define("MEDIUM_STRIPS");
        if (foreground) builder.define("FOREGROUND_CONNECTED");
        builder.compute(stage + ".comp", "measure_common.glsl");
        found = programs_.emplace(key, builder.build()).first;
    }
    return found->second;
}

RegionTotals TermGatherer::gather(const gl::Texture& labels, const std::vector<Component>& table,
                                  const TermRequest& q, const Intensity& intensity, StageTimer* timer) {
    StageTimer untimed(false);
    StageTimer& stages = timer ? *timer : untimed;
    const bool volume = labels.target() == GL_TEXTURE_3D;
    const Shape shape = volume ? Shape::volume(labels.width(), labels.height(), labels.depth())
                               : Shape::image(labels.width(), labels.height());
    checkRequest(q, shape.dimensions, intensity.texture != 0);
    const std::size_t n = table.size();
    const RecordLayout layout = layoutOf(table, q, intensity.bits);
    if (!q.any() || n == 0) {
        RegionTotals totals = tableTotals(shape, table, q);
        if (q.any()) zeroTerms(totals);
        return totals;
    }

    // Regions in batches whose records and boxes fit one storage block; each
    // batch reads the labels again (one batch but for millions of regions).
    GLint64 largestBlock = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &largestBlock);
    std::uint64_t blockBytes = std::uint64_t(std::max<GLint64>(largestBlock, 0));
    if (largestBatchBytes_ > 0) blockBytes = std::min<std::uint64_t>(blockBytes, largestBatchBytes_);
    const std::uint64_t recordBytes = std::uint64_t(layout.words) * 4;
    const std::uint64_t records = std::min<std::uint64_t>(blockBytes / recordBytes, 0xffffffffu / std::uint64_t(layout.words));
    // Room kept for the hot regions' replicas, up to half the block.
    const std::uint64_t replicaRecords = std::min<std::uint64_t>(std::uint64_t(kMaxHot) * kReplicas, records / 2);
    const std::size_t batch =
        std::size_t(std::min<std::uint64_t>({std::uint64_t(n), records - replicaRecords, blockBytes / 16}));
    if (batch == 0)
        throw Error("one region's totals take " + std::to_string(recordBytes) +
                    " bytes, GL_MAX_SHADER_STORAGE_BLOCK_SIZE is " + std::to_string(largestBlock));

    // The totals' arrays (the table's labels, counts and boxes, every term
    // array sized) are made on a thread of their own while the GPU gathers:
    // fresh memory mapped and written at the host's memory speed, which would
    // otherwise come before or after the GPU's passes rather than during them.
    std::future<RegionTotals> made = std::async(std::launch::async, [&] {
        RegionTotals totals = tableTotals(shape, table, q);
        zeroTerms(totals);
        return totals;
    });
    RegionTotals totals;
    bool have = false;
    const std::function<RegionTotals&()> ready = [&]() -> RegionTotals& {
        if (!have) totals = made.get(), have = true;
        return totals;
    };
    glBindImageTexture(kLabelsImage, labels.id(), 0, volume ? GL_TRUE : GL_FALSE, 0, GL_READ_ONLY, GL_R32UI);
    if (intensity.texture)
        glBindImageTexture(kIntensityImage, intensity.texture, 0, volume ? GL_TRUE : GL_FALSE, 0, GL_READ_ONLY,
                           intensity.format);
    for (std::size_t first = 0; first < n; first += batch)
        gatherBatch(labels, table, q, intensity, layout, first, std::min(batch, n - first), std::size_t(replicaRecords),
                    ready, stages);
    return std::move(ready());
}

void TermGatherer::dispatch(const gl::Texture& labels, const TermRequest& q, const Intensity& intensity,
                            const RecordLayout& layout, std::size_t first, std::size_t count, std::size_t small,
                            std::size_t medium, std::size_t narrow, std::size_t large, std::size_t hot,
                            const std::vector<std::array<std::int64_t, 4>>* largeBoxes, StageTimer& timer) {
    const bool volume = labels.target() == GL_TEXTURE_3D;
    const bool intensityTerms = intensity.texture != 0;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kBoxesBuffer, boxes_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kTotalsBuffer, totals_.id());

    auto start = [&](const std::string& stage, bool strips = false) -> gl::Program& {
        gl::Program& p = program(stage, layout, q, intensity, strips);
        p.use();
        if (volume) p.set("imageSize", labels.width(), labels.height(), labels.depth());
        else p.set("imageSize", labels.width(), labels.height());
        p.set("firstLabel", unsigned(first + 1));
        p.set("batchLabels", unsigned(count));
        return p;
    };
    // measure_small: an invocation a listed region, the work groups over x
    // and then y (the regions may pass the 65535 groups of one axis).
    if (small > 0) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kSmallBuffer, small_.id());
        auto scope = timer.scope("measure_small");
        gl::Program& p = start("measure_small");
        p.set("smallRegions", unsigned(small));
        const std::size_t groups = ceilDiv(small, std::size_t(groupOf("measure_small")));
        const std::size_t across = std::min<std::size_t>(groups, 65535);
        glDispatchCompute(GLuint(across), GLuint(ceilDiv(groups, across)), 1);
        checkGlError("stage measure_small");
    }
    // measure_medium: a work group a listed region, then (MEDIUM_STRIPS) a
    // subgroup a narrow region listed after them, in one dispatch, the work
    // groups over x and then y.
    if (medium + narrow > 0) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kMediumBuffer, medium_.id());
        auto scope = timer.scope("measure_medium");
        const bool strips = stripsRun();
        gl::Program& p = start("measure_medium", strips);
        p.set("mediumRegions", unsigned(medium));
        if (strips) p.set("narrowRegions", unsigned(narrow));
        const std::size_t groups = medium + ceilDiv(narrow, std::size_t(kMediumGroupThreads / kNarrowSubgroup));
        const std::size_t across = std::min<std::size_t>(groups, 65535);
        glDispatchCompute(GLuint(across), GLuint(ceilDiv(groups, across)), 1);
        checkGlError("stage measure_medium");
    }
    if (large == 0) {
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
        return;
    }

    // A stage over the labels: an invocation a segment (measure_common.glsl's
    // thisPillar, and for measure_extrema thisSegment), the work groups over
    // x, then y.
    auto run = [&](const std::string& stage, int width, int height, int depth) {
        auto scope = timer.scope(stage.c_str());
        gl::Program& p = start(stage);
        std::uint64_t all = 0;
        if (stage == "measure_extrema") {
            // Segments along the rows (measure_common.glsl's thisSegment).
            const std::uint64_t perRow = ceilDiv(std::uint64_t(width), std::uint64_t(segmentOf(stage, layout)));
            all = perRow * std::uint64_t(height) * std::uint64_t(depth);
            p.set("segmentsPerRow", unsigned(perRow));
            p.set("rowsPerSlice", unsigned(height));
        } else if (!volume) {
            // The tiles that hold an element (window) of a region left to the pass.
            const std::vector<std::uint32_t> tiles = walkTiles(width, height, groupOf(stage), segmentOf(stage, layout),
                                                               largeBoxes, stage == "measure_windows" ? 1 : 0);
            if (tiles.empty()) return;
            fill(tiles_, tilesBytes_, tiles.size() * 4, tiles.data());
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kTilesBuffer, tiles_.id());
            p.set("walkColumns", unsigned(width));
            p.set("segments", unsigned(tiles.size()));
            const std::size_t across = std::min<std::size_t>(tiles.size(), 65535);
            glDispatchCompute(GLuint(across), GLuint(ceilDiv(tiles.size(), across)), 1);
            checkGlError("stage " + stage);
            return;
        } else {
            // Segments along the last axis (measure_common.glsl's thisPillar).
            const std::uint64_t along = volume ? std::uint64_t(depth) : std::uint64_t(height);
            all = std::uint64_t(width) * (volume ? std::uint64_t(height) : 1) *
                  ceilDiv(along, std::uint64_t(segmentOf(stage, layout)));
            p.set("walkColumns", unsigned(width));
            p.set("walkRows", unsigned(height));
        }
        if (all > 0xffffffffu) throw Error("glccl: " + std::to_string(all) + " segments to measure pass 2^32");
        p.set("segments", unsigned(all));
        const std::uint64_t groups = ceilDiv(all, std::uint64_t(groupOf(stage)));
        const std::uint64_t across = std::min<std::uint64_t>(groups, 65535);
        glDispatchCompute(GLuint(across), GLuint(ceilDiv(groups, across)), 1);
        checkGlError("stage " + stage);
    };
    // Over the elements, and over the windows: one more row, column and
    // slice, the windows past the image's far sides.
    if (layout.momentTerms > 0 || q.perimeter || intensityTerms)
        run("measure_terms", labels.width(), labels.height(), labels.depth());
    if ((q.crofton || q.euler) && !windowsInTerms(q))
        run("measure_windows", labels.width() + 1, labels.height() + 1, volume ? labels.depth() + 1 : 1);
    // The hot regions' replicas, which both passes above fill, into their
    // records before measure_extrema reads the extrema.
    if (hot > 0) {
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);  // the replicas, complete
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kHotBuffer, hot_.id());
        auto scope = timer.scope("measure_fold");
        start("measure_fold").set("hotCount", unsigned(hot));
        glDispatchCompute(GLuint(ceilDiv(hot * std::size_t(kReplicas), std::size_t(groupOf("measure_fold")))), 1, 1);
        checkGlError("stage measure_fold");
    }
    if (intensityTerms && q.intensityPositions) {
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);  // the extrema, complete
        run("measure_extrema", labels.width(), labels.height(), labels.depth());
    }
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
}

bool TermGatherer::stripsRun() {
    if (strips_ < 0) {
        GLint size = 0, stages = 0, features = 0;
        const bool listed = gl::hasExtension("GL_KHR_shader_subgroup");
        if (listed) {
            glGetIntegerv(GL_SUBGROUP_SIZE_KHR, &size);
            glGetIntegerv(GL_SUBGROUP_SUPPORTED_STAGES_KHR, &stages);
            glGetIntegerv(GL_SUBGROUP_SUPPORTED_FEATURES_KHR, &features);
        }
        const GLint needed = GL_SUBGROUP_FEATURE_BASIC_BIT_KHR | GL_SUBGROUP_FEATURE_BALLOT_BIT_KHR;
        strips_ = listed && size == kNarrowSubgroup && (stages & GL_COMPUTE_SHADER_BIT) != 0 &&
                  (features & needed) == needed;
    }
    return strips_ != 0;
}

void TermGatherer::gatherOnGpu(const gl::Texture& labels, const TermRequest& q, const RecordLayout& layout,
                               std::size_t first, std::size_t count,
                               const std::function<void(const gl::Buffer& corners)>& writeCorners, StageTimer* timer) {
    StageTimer untimed(false);
    const bool volume = labels.target() == GL_TEXTURE_3D;
    checkRequest(q, volume ? 3 : 2, false);
    zero(boxes_, boxesBytes_, count * 16, layout, q, Intensity{});
    zero(totals_, totalsBytes_, count * std::size_t(layout.words) * 4, layout, q, Intensity{});
    writeCorners(boxes_);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);  // the corners, written
    glBindImageTexture(kLabelsImage, labels.id(), 0, volume ? GL_TRUE : GL_FALSE, 0, GL_READ_ONLY, GL_R32UI);
    dispatch(labels, q, Intensity{}, layout, first, count, 0, 0, 0, count, 0, nullptr, timer ? *timer : untimed);
}

void TermGatherer::zero(gl::Buffer& buffer, std::size_t& capacity, std::size_t bytes, const RecordLayout& layout,
                        const TermRequest& q, const Intensity& intensity) {
    const std::size_t quads = ceilDiv(bytes, std::size_t(16));
    reserve(buffer, capacity, quads * 16);
    if (quads == 0) return;
    if (quads > 0xffffffffu) throw Error("glccl: " + std::to_string(bytes) + " bytes of records to zero pass 2^36");
    gl::Program& p = program("clear_records", layout, q, intensity);
    p.use();
    p.set("clearQuads", unsigned(quads));
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kClearBuffer, buffer.id());
    glDispatchCompute(GLuint(std::min<std::size_t>(ceilDiv(quads, std::size_t(kClearGroupThreads)), 65535)), 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    checkGlError("stage clear_records");
}

void TermGatherer::pack(const std::vector<Tier>& tiers, std::size_t count, std::size_t words,
                        const RecordLayout& layout, const TermRequest& q, const Intensity& intensity,
                        StageTimer& timer) {
    auto scope = timer.scope("measure_pack");
    // Each region's first word among those read, and the tiers' table
    // (measure_pack.comp): where each one's records start, its record's
    // words, where its map starts; then the maps.
    std::vector<std::uint32_t> targets(count, kNoPackTarget), table;
    std::vector<std::uint32_t> maps;
    // The points' tier has no map: measure_pack writes a point's sample.
    unsigned pointTier = unsigned(tiers.size());
    for (const Tier& tier : tiers) {
        if (tier.words > 0)
            for (std::size_t r = 0; r < tier.regions->size(); ++r)
                targets[(*tier.regions)[r]] = std::uint32_t(tier.firstWord + r * tier.words);
        if (tier.points) pointTier = unsigned(&tier - tiers.data());
        table.insert(table.end(), {std::uint32_t(tier.firstWord), std::uint32_t(tier.words),
                                   std::uint32_t(3 * tiers.size() + maps.size())});
        // The tier's fields: their count; each one's word of the batch's
        // record and its first bit in the packed one (its bits above);
        // then each packed word's first field that reaches it.
        const std::vector<std::uint32_t> tierMap =
            tier.points ? std::vector<std::uint32_t>() : packMap(tier.layout, layout);
        const std::size_t fieldsAt = maps.size();
        maps.push_back(0);
        std::vector<std::uint32_t> reach;  // per field with bits: its last bit + 1
        std::uint32_t at = 0;
        for (std::size_t k = 0; k < tierMap.size(); ++k) {
            const std::uint32_t width = tier.widths.empty() ? 32u : tier.widths[k];
            if (width == 0) continue;
            maps.insert(maps.end(), {tierMap[k], at | width << 24});
            at += width;
            reach.push_back(at);
        }
        maps[fieldsAt] = std::uint32_t(reach.size());
        for (std::size_t j = 0, f = 0; j < (tier.points ? 0 : tier.words); ++j) {
            while (f < reach.size() && reach[f] <= 32 * j) ++f;
            maps.push_back(std::uint32_t(f));
        }
    }
    table.insert(table.end(), maps.begin(), maps.end());
    fill(packTargets_, packTargetsBytes_, targets.size() * 4, targets.data());
    fill(packWords_, packWordsBytes_, table.size() * 4, table.data());
    reserve(packed_, packedBytes_, words * 4);  // every word written
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kTotalsBuffer, totals_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kPackTargetsBuffer, packTargets_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kPackWordsBuffer, packWords_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kPackedBuffer, packed_.id());
    gl::Program& p = program("measure_pack", layout, q, intensity);
    p.use();
    const std::uint64_t invocations = std::uint64_t(count) * std::uint64_t(kPackLanes);
    if (invocations > 0xffffffffu) throw Error("glccl: a batch of records to pack passes 2^32 invocations");
    p.set("packRegions", unsigned(count));
    p.set("packTiers", unsigned(tiers.size()));
    p.set("pointTier", pointTier);
    const std::uint64_t groups = ceilDiv(invocations, std::uint64_t(groupOf("measure_pack")));
    const std::uint64_t across = std::min<std::uint64_t>(groups, 65535);
    glDispatchCompute(GLuint(across), GLuint(ceilDiv(groups, across)), 1);
    checkGlError("stage measure_pack");
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);  // the packed records, before the copy
}

void TermGatherer::gatherBatch(const gl::Texture& labels, const std::vector<Component>& table, const TermRequest& q,
                               const Intensity& intensity, const RecordLayout& layout, std::size_t first,
                               std::size_t count, std::size_t replicaRecords,
                               const std::function<RegionTotals&()>& ready, StageTimer& timer) {
    const std::size_t words = count * std::size_t(layout.words);
    const bool intensityTerms = intensity.texture != 0;
    // The boxes' least corners, the regions measure_small and measure_medium
    // measure flagged by their extents and listed, and the records zeroed.
    // measure_medium takes an image's regions where its group's record
    // (shared memory) is small and no sum passes 64 bits (no weighted
    // moments): glsl/measure_medium.comp.
    std::vector<std::int32_t> corners(count * 4, 0);
    std::vector<std::uint32_t> small, medium, narrow, points;
    std::vector<std::array<std::int64_t, 4>> largeBoxes;  // x, y, width, height
    // The regions by their boxes' bounds, for the records the host reads
    // (below): at most kPackSmallSplit and at most kSmallBox elements, each
    // by the axes they are one element across (flatAxes); at most
    // kPackBoxSplit and at most kPackTierBox elements, under 256 a side;
    // the rest.
    const std::size_t smallTiers = std::size_t(1) << q.dimensions, boxTiers = 2 * smallTiers;
    std::vector<std::vector<std::uint32_t>> tierRegions(boxTiers + 3);
    small.reserve(count);
    const bool mediumAllowed =
        q.dimensions == 2 && layout.words > 0 && layout.words <= kMediumWords && layout.weightedTerms == 0;
    for (std::size_t i = 0; i < count; ++i) {
        const Component& c = table[first + i];
        corners[i * 4] = std::int32_t(c.left);
        corners[i * 4 + 1] = std::int32_t(c.top);
        corners[i * 4 + 2] = std::int32_t(c.front);
        const std::uint64_t depth = std::max<std::uint64_t>(c.depth, 1);
        const std::uint64_t elements = std::uint64_t(c.width) * std::uint64_t(c.height) * depth;
        const bool underSide = c.width < 256 && c.height < 256 && depth < 256;
        // (An empty entry of a one-element box is no point: the full record.)
        const unsigned flat = flatAxes(c, q.dimensions);
        const std::size_t tier =
            elements <= std::uint64_t(kSmallBox)
                ? (elements <= kPackSmallSplit ? 0 : smallTiers) + (flat + 1 == smallTiers && c.area != 1 ? 0u : flat)
            : underSide && elements <= kPackTierBox ? boxTiers + (elements <= kPackBoxSplit ? 0 : 1)
                                                    : boxTiers + 2;
        tierRegions[tier].push_back(std::uint32_t(i));
        // An empty entry (no element) keeps the zeroed record the passes leave it.
        if (c.area == 0) continue;
        std::vector<std::uint32_t>* alone = nullptr;
        if (elements == 1) alone = &points;
        else if (elements <= std::uint64_t(kSmallBox)) alone = &small;
        else if (mediumAllowed && elements <= largestMedium_ && underSide)
            alone = c.width <= std::uint64_t(kNarrowWidth) && stripsRun() ? &narrow : &medium;
        if (alone) {
            corners[i * 4 + 3] = packedExtent(std::uint32_t(c.width), std::uint32_t(c.height), std::uint32_t(depth));
            alone->push_back(std::uint32_t(i));
        } else {
            // Left to the passes over the labels, which walk its tiles.
            largeBoxes.push_back(
                {std::int64_t(c.left), std::int64_t(c.top), std::int64_t(c.width), std::int64_t(c.height)});
        }
    }
    // The hot regions: the largest of at least kHotArea elements left to
    // the passes.
    std::vector<std::uint32_t> hot;
    const std::size_t hotRoom = std::min<std::size_t>(kMaxHot, replicaRecords / kReplicas);
    if (hotRoom > 0) {
        for (std::size_t i = 0; i < count; ++i)
            if (table[first + i].area >= kHotArea && corners[i * 4 + 3] == 0) hot.push_back(std::uint32_t(i));
        auto larger = [&](std::uint32_t a, std::uint32_t b) {
            return table[first + a].area != table[first + b].area ? table[first + a].area > table[first + b].area : a < b;
        };
        // Largest first: measure_terms' work groups add hot region 0's
        // moments in shared memory.
        const std::size_t kept = std::min(hot.size(), hotRoom);
        std::partial_sort(hot.begin(), hot.begin() + std::ptrdiff_t(kept), hot.end(), larger);
        hot.resize(kept);
        for (std::size_t h = 0; h < hot.size(); ++h) corners[std::size_t(hot[h]) * 4 + 3] = hotMark(h);
    }
    // The records packed a tier after another (measure_pack), each
    // region's in the record of its tier's bounds. Only where that leaves a
    // quarter of the words behind or more: where it leaves fewer, the pass
    // costs about what the download saves.
    // The tier of boxes one element across on every axis is of points: its
    // record is the element's sample (a word: the samples are of at most 32
    // bits), or nothing without intensity terms. Packed, a point is measured
    // by no pass: measure_pack reads its sample from the intensity at its
    // box's corner, and the passes over the image skip it (its extent is
    // marked in `corners`).
    // A small tier's and the box tier's records come down as the bits their
    // words can hold (fieldWidths), most of their words' high bits being 0.
    std::vector<Tier> tiers;
    auto narrowed = [&](const std::vector<std::uint32_t>& regions, const RecordLayout& tierLayout,
                        const TierBoxes& boxes) {
        return Tier{&regions, tierLayout, 0, false, fieldWidths(tierLayout, q, boxes), 0};
    };
    for (unsigned flat = 0; flat + 1 < smallTiers; ++flat) {
        const RecordLayout smallTier = within(smallRecordLayout(q, layout.sampleBits, flat), layout, q);
        tiers.push_back(narrowed(tierRegions[flat], smallTier, TierBoxes{kPackSmallSplit, flat, 2, kSmallBox}));
        tiers.push_back(narrowed(tierRegions[smallTiers + flat], smallTier,
                                 TierBoxes{std::uint64_t(kSmallBox), flat, 2, kSmallBox}));
    }
    {
        RecordLayout sample;
        sample.words = intensityTerms ? 1 : 0;
        tiers.push_back(Tier{&tierRegions[smallTiers - 1], sample, 0, true, {}, 0});
    }
    const RecordLayout boxTier = within(recordLayout(255, kPackTierBox, q, layout.sampleBits), layout, q);
    tiers.push_back(narrowed(tierRegions[boxTiers], boxTier, TierBoxes{kPackBoxSplit, 0, 1, 255}));
    tiers.push_back(narrowed(tierRegions[boxTiers + 1], boxTier, TierBoxes{kPackTierBox, 0, 1, 255}));
    tiers.push_back(Tier{&tierRegions[boxTiers + 2], layout, 0, false, {}, 0});
    std::size_t readWords = 0;
    for (Tier& tier : tiers) {
        tier.words = tier.widths.empty() ? std::size_t(tier.layout.words) : packedWords(tier.widths);
        tier.firstWord = readWords;
        readWords += tier.regions->size() * tier.words;
    }
    const bool packs = readWords * 4 <= words * 3;
    std::vector<std::uint32_t> everyRegion;
    if (!packs) {
        // The records as the passes left them, in the order of the batch,
        // the points' measured by measure_small with the other small ones.
        everyRegion.resize(count);
        for (std::size_t i = 0; i < count; ++i) everyRegion[i] = std::uint32_t(i);
        tiers = {Tier{&everyRegion, layout, 0, false, {}, std::size_t(layout.words)}};
        readWords = words;
        small.insert(small.end(), points.begin(), points.end());
    }
    // Fewer than kSmallLeast small regions, where measure_medium runs:
    // its groups take them too (measure_terms.hpp).
    if (small.size() < std::size_t(kSmallLeast) && (!medium.empty() || !narrow.empty())) {
        medium.insert(medium.end(), small.begin(), small.end());
        small.clear();
    }
    const std::size_t wideMedium = medium.size();
    medium.insert(medium.end(), narrow.begin(), narrow.end());
    // The records zeroed (the passes add into them), and the boxes and lists
    // the passes read: the GPU's work as much as the passes, each a stage.
    {
        auto scope = timer.scope("clear_records");
        zero(totals_, totalsBytes_, (words + hot.size() * kReplicas * std::size_t(layout.words)) * 4, layout, q,
             intensity);
    }
    {
        auto scope = timer.scope("upload_boxes");
        fill(boxes_, boxesBytes_, corners.size() * 4, corners.data());
        if (!small.empty()) fill(small_, smallBytes_, small.size() * 4, small.data());
        if (!medium.empty()) fill(medium_, mediumBytes_, medium.size() * 4, medium.data());
        if (!hot.empty()) fill(hot_, hotBytes_, hot.size() * 4, hot.data());
    }
    dispatch(labels, q, intensity, layout, first, count, small.size(), wideMedium, narrow.size(),
             count - small.size() - medium.size() - (packs ? points.size() : 0), hot.size(), &largeBoxes, timer);
    if (packs) pack(tiers, count, readWords, layout, q, intensity, timer);

    // The records copied into a buffer the host reads (on the pixel-pack
    // target, which the caller's guard restores) and read where it is
    // mapped.
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, packs ? packed_.id() : totals_.id());
    if (!readback_) readback_ = gl::Buffer::create();
    glBindBuffer(GL_PIXEL_PACK_BUFFER, readback_.id());
    if (readWords * 4 > readbackBytes_) {
        glBufferData(GL_PIXEL_PACK_BUFFER, GLsizeiptr(readWords * 4), nullptr, GL_STREAM_READ);
        readbackBytes_ = readWords * 4;
    }
    // (No word at all where every region is a point and no intensity is
    // read: nothing to copy or map.)
    if (readWords > 0) {
        auto scope = timer.scope("download_terms");
        glCopyBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_PIXEL_PACK_BUFFER, 0, 0, GLsizeiptr(readWords * 4));
    }
    glFlush();  // the passes and the copy sent to the GPU before the host waits for its own arrays
    RegionTotals& totals = ready();
    const std::uint32_t* records = nullptr;
    if (readWords > 0) {
        records = static_cast<const std::uint32_t*>(
            glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, GLsizeiptr(readWords * 4), GL_MAP_READ_BIT));
        if (!records) {
            checkGlError("mapping the region totals");
            throw Error("mapping the region totals failed");
        }
    }

    // Records into the totals' arrays (wide sums are not negative: local
    // coordinates and samples are not).
    auto wide = [&](const std::uint32_t* limbs, int n) {
        Int256 sum;
        for (int k = 0; k < n; ++k) sum.limb[std::size_t(k / 2)] |= std::uint64_t(limbs[k]) << (32 * (k % 2));
        return sum;
    };
    const std::size_t terms = std::size_t(layout.momentTerms), weightedTerms = std::size_t(layout.weightedTerms);
    // Each tier's rows split among threads (the mapped buffer is plain
    // memory to them): each region's record is its own.
    for (const Tier& tier : tiers) {
        const RecordLayout& l = tier.layout;
        const std::vector<std::uint32_t>& regions = *tier.regions;
        if (tier.points && !regions.empty()) {
            readPoints(totals, table, regions, first, records + tier.firstWord, intensityTerms,
                       std::uint64_t(labels.width()), std::uint64_t(labels.height()));
            continue;
        }
        forRowRanges(regions.size(), 0, [&](std::size_t begin, std::size_t end) {
            std::vector<std::uint32_t> unpacked(tier.widths.empty() ? 0 : std::size_t(l.words));
            for (std::size_t j = begin; j < end; ++j) {
                const std::size_t r = first + regions[j];
                const std::uint32_t* record = records + tier.firstWord + j * tier.words;
                if (!tier.widths.empty()) record = unpack(record, tier.widths, q.euler ? l.eulerAt : -1, unpacked);
                for (std::size_t t = 0; t < terms; ++t)
                    streamStore(totals.moments[r * terms + t],
                                wide(record + l.momentsAt + l.momentOffsets[t], l.momentLimbs[t]));
                if (intensityTerms) {
                    for (std::size_t t = 0; t < weightedTerms; ++t)
                        streamStore(totals.weightedMoments[r * weightedTerms + t],
                                    wide(record + l.weightedAt + l.weightedOffsets[t], l.weightedLimbs[t]));
                    if (q.intensitySums) {
                        totals.intensitySum[r] = wide(record + l.sumAt, l.sumLimbs);
                        totals.intensitySquares[r] = wide(record + l.squaresAt, l.squaresLimbs);
                    }
                    if (q.intensityExtrema) {
                        totals.intensityMinBits[r] = ~record[l.extremaAt];
                        totals.intensityMaxBits[r] = record[l.extremaAt + 1];
                        totals.intensityMin[r] = double(totals.intensityMinBits[r]);
                        totals.intensityMax[r] = double(totals.intensityMaxBits[r]);
                    }
                    if (q.intensityPositions) {
                        totals.intensityMinAt[r] = ~record[l.positionsAt];
                        totals.intensityMaxAt[r] = ~record[l.positionsAt + 1];
                    }
                }
                for (int c = 0; c < 3 && q.perimeter; ++c)
                    totals.perimeterClasses[r * 3 + std::size_t(c)] = record[l.perimeterAt + c];
                for (int c = 0; c < 5 && q.crofton; ++c)
                    totals.croftonClasses[r * 5 + std::size_t(c)] = record[l.croftonAt + c];
                if (q.euler)
                    totals.eulerTimes[r] =
                        std::int64_t(std::uint64_t(record[l.eulerAt]) | std::uint64_t(record[l.eulerAt + 1]) << 32);
            }
            streamFence();
        });
    }
    if (records) glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
    checkGlError("reading the region totals");
}

}  // namespace glccl::measure

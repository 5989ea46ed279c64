// The host label filters (glccl/label_filters.hpp) against oracles written
// here with plain loops over std::vector and std::map: each label's count,
// first element in raster order and first and last index along every axis,
// from the C-ordered values, never through the library's walk or records.
// On every element type, signed and unsigned, 0-d to 4-d and empty arrays,
// labelings in raster order, with gaps, out of raster order and with sparse
// huge values (the hash map beyond the per-label table), each stored C-
// ordered, Fortran-ordered, reversed, strided, unaligned and broadcast; also
// in place, rows longer than a piece, negative labels, the views' checks
// and cancellation.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/label_filters.hpp"
#include "sanitizer_support.hpp"

using glccl::KeptLabels;
using glccl::LabelArrayView;
using glccl::LabelElement;

namespace {

using Shape = std::vector<std::uint64_t>;
// Label values in C order, as signed 64-bit (every element type's values fit
// there except uint64's upper half, kept as its two's complement bits).
using Values = std::vector<std::int64_t>;

std::uint64_t countOf(const Shape& shape) {
    std::uint64_t count = 1;
    for (const std::uint64_t side : shape) count *= side;
    return count;
}

// The byte offset of C-order position i in an array of `shape` and
// `strides`: its multi-index times the strides.
std::ptrdiff_t offsetOf(std::uint64_t i, const Shape& shape, const std::vector<std::ptrdiff_t>& strides) {
    std::ptrdiff_t at = 0;
    for (std::size_t axis = shape.size(); axis-- > 0;) {
        at += std::ptrdiff_t(i % shape[axis]) * strides[axis];
        i /= shape[axis];
    }
    return at;
}

// ---- the oracles -------------------------------------------------------------------------------

struct LabelFacts {
    std::uint64_t count = 0;
    std::uint64_t first = 0;  // C-order position of the first element
    std::vector<std::uint64_t> low, high;
};

// Every label's facts (label 0 too), from a loop over the C-ordered values.
std::map<std::uint64_t, LabelFacts> factsOf(const Values& values, const Shape& shape) {
    std::map<std::uint64_t, LabelFacts> facts;
    std::vector<std::uint64_t> index(shape.size(), 0);  // of position i, counted up
    for (std::uint64_t i = 0; i < values.size(); ++i) {
        if (i > 0)
            for (std::size_t axis = shape.size(); axis-- > 0;) {
                if (++index[axis] < shape[axis]) break;
                index[axis] = 0;
            }
        const auto [at, added] = facts.try_emplace(std::uint64_t(values[i]));
        LabelFacts& label = at->second;
        if (added) {
            label.first = i;
            label.low = label.high = index;
        }
        ++label.count;
        for (std::size_t axis = 0; axis < shape.size(); ++axis) {
            label.low[axis] = std::min(label.low[axis], index[axis]);
            label.high[axis] = std::max(label.high[axis], index[axis]);
        }
    }
    return facts;
}

// What the filter makes of the values (whose factsOf are `facts`): the
// labels of at least minSize elements, of them the `largest` first by count
// (then the lower label), numbered 1..m by first element or kept as they are.
Values filtered(const Values& values, const std::map<std::uint64_t, LabelFacts>& facts, const KeptLabels& rule,
                std::uint64_t& kept) {
    std::vector<std::uint64_t> candidates;
    for (const auto& [label, fact] : facts)
        if (label != 0 && fact.count >= rule.minSize) candidates.push_back(label);
    std::sort(candidates.begin(), candidates.end(), [&](std::uint64_t a, std::uint64_t b) {
        return facts.at(a).count != facts.at(b).count ? facts.at(a).count > facts.at(b).count : a < b;
    });
    if (candidates.size() > rule.largest) candidates.resize(std::size_t(rule.largest));
    std::sort(candidates.begin(), candidates.end(),
              [&](std::uint64_t a, std::uint64_t b) { return facts.at(a).first < facts.at(b).first; });
    std::map<std::uint64_t, std::int64_t> newValue;
    for (std::size_t i = 0; i < candidates.size(); ++i)
        newValue[candidates[i]] = rule.renumber ? std::int64_t(i + 1) : std::int64_t(candidates[i]);
    kept = candidates.size();
    Values out(values.size(), 0);
    for (std::size_t i = 0; i < values.size(); ++i) {
        const auto found = newValue.find(std::uint64_t(values[i]));
        if (found != newValue.end()) out[i] = found->second;
    }
    return out;
}

Values filtered(const Values& values, const Shape& shape, const KeptLabels& rule, std::uint64_t& kept) {
    return filtered(values, factsOf(values, shape), rule, kept);
}

// ---- arrays in every layout --------------------------------------------------------------------

// How an array's elements lie in memory: axes permuted (the first of
// `order` outermost), every axis's step `spread` elements apart, some axes
// reversed, the whole `offset` bytes into its buffer.
struct Layout {
    const char* name;
    bool fortran = false;
    std::uint64_t spread = 1;
    bool reversed = false;   // every other axis from its end, negative strides
    std::size_t offset = 0;  // 1: unaligned
};

const Layout kLayouts[] = {{"C"},
                           {"Fortran", true},
                           {"strided", false, 3},
                           {"reversed", false, 1, true},
                           {"unaligned", false, 1, false, 1},
                           {"Fortran, strided, reversed, unaligned", true, 2, true, 1}};

// An array of some element type in its own buffer.
struct Stored {
    std::vector<unsigned char> buffer;
    LabelArrayView view;
};

Stored store(const Values& values, const Shape& shape, LabelElement element, const Layout& layout) {
    const std::size_t bytes = glccl::bytesOf(element);
    Stored stored;
    stored.view.element = element;
    stored.view.shape = shape;
    stored.view.strides.assign(shape.size(), 0);
    std::ptrdiff_t stride = std::ptrdiff_t(bytes * layout.spread);
    std::ptrdiff_t origin = std::ptrdiff_t(layout.offset);
    for (std::size_t k = 0; k < shape.size(); ++k) {
        const std::size_t axis = layout.fortran ? k : shape.size() - 1 - k;
        const bool reversed = layout.reversed && axis % 2 == 0;
        stored.view.strides[axis] = reversed ? -stride : stride;
        if (reversed && shape[axis] > 0) origin += stride * std::ptrdiff_t(shape[axis] - 1);
        stride *= std::ptrdiff_t(std::max<std::uint64_t>(shape[axis], 1));
    }
    stored.buffer.assign(std::size_t(stride) + layout.offset + bytes, 0xA5);
    stored.view.data = stored.buffer.data() + origin;
    for (std::uint64_t i = 0; i < values.size(); ++i) {
        const std::ptrdiff_t at = offsetOf(i, shape, stored.view.strides);
        std::memcpy(static_cast<char*>(stored.view.data) + at, &values[i], bytes);  // little-endian: the low bytes
    }
    return stored;
}

// The values of a view, in C order, sign-extended as its element type.
Values read(const LabelArrayView& view) {
    const std::size_t bytes = glccl::bytesOf(view.element);
    const bool isSigned = view.element == LabelElement::Int8 || view.element == LabelElement::Int16 ||
                          view.element == LabelElement::Int32 || view.element == LabelElement::Int64;
    Values values(countOf(view.shape));
    for (std::uint64_t i = 0; i < values.size(); ++i) {
        const std::ptrdiff_t at = offsetOf(i, view.shape, view.strides);
        std::uint64_t bits = 0;
        std::memcpy(&bits, static_cast<const char*>(view.data) + at, bytes);
        if (isSigned && bytes < 8 && (bits >> (8 * bytes - 1)) != 0) bits |= ~std::uint64_t(0) << (8 * bytes);
        values[i] = std::int64_t(bits);
    }
    return values;
}

// ---- labelings ---------------------------------------------------------------------------------

// Runs of labels drawn from `pool` (0 as often as any label), as a labeling
// of blobs has them.
Values runsOf(std::uint64_t count, const std::vector<std::int64_t>& pool, std::mt19937_64& random) {
    Values values(count);
    std::int64_t label = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
        if (random() % 4 == 0) label = random() % 2 == 0 ? 0 : pool[random() % pool.size()];
        values[i] = label;
    }
    return values;
}

struct Labeling {
    std::string what;
    Values values;
};

// Labelings of `count` elements whose values T holds: labels in raster
// order, with gaps, out of raster order, either side of 2^16, and near T's
// largest value (in the hash map where T is 32- or 64-bit).
template <typename T>
std::vector<Labeling> labelingsOf(std::uint64_t count, std::mt19937_64& random) {
    const std::int64_t largest = std::int64_t(std::min<std::uint64_t>(std::numeric_limits<T>::max(), INT64_MAX));
    std::vector<Labeling> labelings;
    // Raster order: each new run a new label.
    Values raster(count);
    std::int64_t next = 0, label = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
        if (random() % 4 == 0) label = random() % 2 == 0 ? 0 : std::min(++next, largest);
        raster[i] = label;
    }
    labelings.push_back({"raster order", raster});
    Values gaps = raster;
    for (std::int64_t& value : gaps) value = value % 3 == 1 ? value : 0;
    labelings.push_back({"gaps", gaps});
    std::vector<std::int64_t> small;
    for (std::int64_t value = 1; value <= std::min<std::int64_t>(largest, 12); ++value) small.push_back(value);
    labelings.push_back({"not in raster order", runsOf(count, small, random)});
    if (largest > 70000) labelings.push_back({"wide", runsOf(count, {65534, 65535, 65536, 65537, 3, 70000}, random)});
    // The upper half of T's values (uint64's as their bits), and 1.
    const std::uint64_t top = std::numeric_limits<T>::max();
    std::vector<std::int64_t> huge;
    for (int i = 0; i < 10; ++i) huge.push_back(std::int64_t(top - random() % (top / 2)));
    huge.push_back(1);
    labelings.push_back({"huge", runsOf(count, huge, random)});
    return labelings;
}

const Shape kShapes[] = {{}, {0}, {1}, {57}, {0, 5}, {3, 0, 2}, {1, 1}, {23, 31}, {1, 40}, {40, 1}, {6, 9, 11},
                         {3, 4, 2, 5}};

// ---- checks ------------------------------------------------------------------------------------

// `facts`: factsOf the values.
void checkFilter(const Stored& labels, const Values& values, const Shape& shape,
                 const std::map<std::uint64_t, LabelFacts>& facts, const KeptLabels& rule) {
    std::uint64_t wantKept = 0;
    const Values want = filtered(values, facts, rule, wantKept);
    for (const Layout& layout : {kLayouts[0], kLayouts[5]}) {
        Stored out = store(Values(values.size(), 0), shape, labels.view.element, layout);
        INFO("out " << layout.name << ", minSize " << rule.minSize << ", largest " << rule.largest << ", renumber "
                    << rule.renumber);
        CHECK(glccl::filterLabels(labels.view, rule, out.view) == wantKept);
        CHECK(read(out.view) == want);
    }
}

void checkEveryEntry(const Stored& labels, const Values& values, const Shape& shape) {
    const std::map<std::uint64_t, LabelFacts> facts = factsOf(values, shape);
    const std::uint64_t present = facts.size() - facts.count(0);
    const std::uint64_t largest = facts.empty() ? 0 : facts.rbegin()->first;

    Stored out = store(Values(values.size(), 0), shape, labels.view.element, kLayouts[0]);
    std::uint64_t kept = 0;
    CHECK(glccl::relabel(labels.view, out.view) == present);
    CHECK(read(out.view) == filtered(values, facts, KeptLabels{}, kept));
    for (const std::uint64_t minSize : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(2), std::uint64_t(5),
                                        std::uint64_t(values.size()) + 1}) {
        for (const bool renumber : {true, false}) {
            KeptLabels rule;
            rule.minSize = minSize;
            rule.renumber = renumber;
            const Values want = filtered(values, facts, rule, kept);
            CHECK(glccl::removeSmall(labels.view, minSize, renumber, out.view) == kept);
            CHECK(read(out.view) == want);
            checkFilter(labels, values, shape, facts, rule);
        }
    }
    for (const std::uint64_t k : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(3), present, present + 4,
                                  std::numeric_limits<std::uint64_t>::max()}) {
        for (const bool renumber : {true, false}) {
            KeptLabels rule;
            rule.largest = k;
            rule.renumber = renumber;
            const Values want = filtered(values, facts, rule, kept);
            CHECK(glccl::keepLargest(labels.view, k, renumber, out.view) == std::min(k, present));
            CHECK(read(out.view) == want);
            rule.minSize = 3;
            checkFilter(labels, values, shape, facts, rule);
        }
    }

    for (const std::uint64_t maxLabel : {std::numeric_limits<std::uint64_t>::max(), std::uint64_t(1), std::uint64_t(3)}) {
        for (const bool background : {false, true}) {
            INFO("maxLabel " << maxLabel << ", background " << background);
            const glccl::LabelExtents extents = glccl::labelExtents(labels.view, maxLabel, background);
            CHECK(extents.axes() == shape.size());
            std::vector<std::uint64_t> want;
            for (const auto& [label, fact] : facts)
                if (label <= maxLabel && (label != 0 || background)) want.push_back(label);
            std::vector<std::uint64_t> measured = extents.labels();
            std::sort(measured.begin(), measured.end());
            CHECK(measured == want);
            CHECK(extents.largest() == (want.empty() ? 0 : want.back()));
            for (const std::uint64_t label : want) {
                const glccl::LabelExtents::Extent extent = extents.of(label);
                const LabelFacts& fact = facts.at(label);
                CHECK(extent.count == fact.count);
                CHECK(std::vector<std::uint64_t>(extent.low, extent.low + shape.size()) == fact.low);
                CHECK(std::vector<std::uint64_t>(extent.high, extent.high + shape.size()) == fact.high);
            }
            CHECK(extents.of(largest + 1).count == 0);
            CHECK(extents.of(largest + 1).low == nullptr);
        }
    }

    const glccl::LabelRange range = glccl::labelRange(labels.view);
    CHECK(range.largest == largest);
    CHECK(range.smallest == 0);
}

// Built with AddressSanitizer (tools/run-tests.sh's sanitizer build), where
// every entry's call costs about a millisecond in fresh pages: there the
// sweep below is pairwise, and each element type takes every other shape,
// the signed and the unsigned type of a width the two halves.
constexpr bool kPairwise = glccl::test::kAddressSanitizer;

template <typename T>
void checkElementType() {
    std::mt19937_64 random(std::uint64_t(glccl::labelElementOf<T>()) + 1);
    for (std::size_t s = 0; s < std::size(kShapes); ++s) {
        if (kPairwise && (s + std::size_t(glccl::labelElementOf<T>())) % 2 != 0) continue;
        const Shape& shape = kShapes[s];
        const std::vector<Labeling> labelings = labelingsOf<T>(countOf(shape), random);
        for (std::size_t l = 0; l < labelings.size(); ++l) {
            const Labeling& labeling = labelings[l];
            for (std::size_t k = 0; k < std::size(kLayouts); ++k) {
                // Every labeling in every layout; pairwise, each shape in
                // every layout with one labeling each, in turn (more layouts
                // than labelings: every labeling too), every labeling and
                // layout together over the shapes.
                if (kPairwise && (k + s) % labelings.size() != l) continue;
                const Layout& layout = kLayouts[k];
                INFO(labeling.what << ", " << layout.name << ", shape of " << shape.size() << " axes, "
                                   << countOf(shape) << " elements");
                const Stored labels = store(labeling.values, shape, glccl::labelElementOf<T>(), layout);
                REQUIRE(read(labels.view) == labeling.values);
                checkEveryEntry(labels, labeling.values, shape);
            }
        }
    }
}

}  // namespace

TEMPLATE_TEST_CASE("label filters: every entry against the oracles, every layout", "[label_filters]",
                   std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t, std::int64_t,
                   std::uint64_t) {
    checkElementType<TestType>();
}

TEST_CASE("label filters: sparse huge labels, thousands of them, grow the hash map", "[label_filters]") {
    // 2^63 and up as uint64, 2^40 and up as int64, 2^20 and up as uint32:
    // no table indexed by label could hold them; labels 1 and 2 beside them
    // are in the table.
    std::mt19937_64 random(5);
    const Shape shape = {120, 130};
    const std::uint64_t lows[] = {std::uint64_t(1) << 63, std::uint64_t(1) << 40, std::uint64_t(1) << 20};
    const LabelElement elements[] = {LabelElement::UInt64, LabelElement::Int64, LabelElement::UInt32};
    for (int kind = 0; kind < 3; ++kind) {
        std::vector<std::int64_t> pool = {1, 2};
        for (int i = 0; i < 3000; ++i) pool.push_back(std::int64_t(lows[kind] + random() % (lows[kind] - 1)));
        const Values values = runsOf(countOf(shape), pool, random);
        std::map<std::uint64_t, LabelFacts> facts = factsOf(values, shape);
        REQUIRE(facts.size() > 1000);
        INFO("element type " << int(elements[kind]));
        checkEveryEntry(store(values, shape, elements[kind], kLayouts[0]), values, shape);
        checkEveryEntry(store(values, shape, elements[kind], kLayouts[5]), values, shape);
    }
}

TEST_CASE("label filters: rows longer than a piece, and broadcast axes", "[label_filters]") {
    std::mt19937_64 random(9);
    // A row of more than two pieces, in two layouts: runs across the ends of
    // the pieces count once per label, and boxes span pieces.
    const Shape shape = {2, 2 * glccl::kPieceElements + 77};
    const Values values = runsOf(countOf(shape), {1, 2, 3, 70000, 5}, random);
    checkEveryEntry(store(values, shape, LabelElement::UInt32, kLayouts[0]), values, shape);
    checkEveryEntry(store(values, shape, LabelElement::Int32, kLayouts[5]), values, shape);

    // An axis of stride 0 reads one row again and again (numpy's
    // broadcast_to): 9 rows of one 30-element row.
    const Values row = runsOf(30, {4, 7, 9}, random);
    Stored stored = store(row, {30}, LabelElement::UInt16, kLayouts[0]);
    LabelArrayView broadcast = stored.view;
    broadcast.shape = {9, 30};
    broadcast.strides = {0, stored.view.strides[0]};
    Values values9;
    for (int i = 0; i < 9; ++i) values9.insert(values9.end(), row.begin(), row.end());
    checkEveryEntry(Stored{{}, broadcast}, values9, {9, 30});
}

TEST_CASE("label filters: in place, out the labels themselves", "[label_filters]") {
    std::mt19937_64 random(3);
    const Shape shape = {17, 29};
    const Values values = runsOf(countOf(shape), {9, 4, 4000, 12, 3}, random);
    for (const Layout& layout : kLayouts) {
        for (const bool renumber : {true, false}) {
            KeptLabels rule;
            rule.minSize = 4;
            rule.largest = 3;
            rule.renumber = renumber;
            std::uint64_t wantKept = 0;
            const Values want = filtered(values, shape, rule, wantKept);
            Stored labels = store(values, shape, LabelElement::Int16, layout);
            INFO(layout.name << ", renumber " << renumber);
            CHECK(glccl::filterLabels(labels.view, rule, labels.view) == wantKept);
            CHECK(read(labels.view) == want);
        }
    }
    std::vector<std::uint32_t> cOrdered = {0, 5, 5, 0, 2, 9, 9, 9, 2, 0, 5, 5};
    const LabelArrayView view = LabelArrayView::cOrdered(cOrdered.data(), {3, 4});
    CHECK(view.element == LabelElement::UInt32);
    CHECK(view.strides == std::vector<std::ptrdiff_t>{16, 4});
    CHECK(glccl::removeSmall(view, 3, true, view) == 2);
    CHECK(cOrdered == std::vector<std::uint32_t>{0, 1, 1, 0, 0, 2, 2, 2, 0, 0, 1, 1});
}

TEST_CASE("label filters: negative labels are refused, the smallest named", "[label_filters]") {
    const Values values = {0, 3, -2, -7, 1, 1, -7, 5};
    const Shape shape = {2, 4};
    for (const LabelElement element : {LabelElement::Int8, LabelElement::Int16, LabelElement::Int32,
                                       LabelElement::Int64}) {
        for (const Layout& layout : kLayouts) {
            const Stored labels = store(values, shape, element, layout);
            Stored out = store(Values(values.size(), 0), shape, element, kLayouts[0]);
            CHECK(glccl::labelRange(labels.view).smallest == -7);
            CHECK(glccl::labelRange(labels.view).largest == 5);
            const auto refused = [](const char* entry) {
                return Catch::Matchers::Equals(std::string(entry) +
                                               ": labels must be 0 (background) or positive; the smallest is -7");
            };
            CHECK_THROWS_WITH(glccl::relabel(labels.view, out.view), refused("glccl::relabel()"));
            CHECK_THROWS_WITH(glccl::removeSmall(labels.view, 2, false, out.view), refused("glccl::removeSmall()"));
            CHECK_THROWS_WITH(glccl::keepLargest(labels.view, 2, true, out.view), refused("glccl::keepLargest()"));
            CHECK_THROWS_WITH(glccl::filterLabels(labels.view, KeptLabels{}, out.view),
                              refused("glccl::filterLabels()"));
            CHECK_THROWS_WITH(glccl::labelExtents(labels.view), refused("glccl::labelExtents()"));
            try {
                glccl::relabel(labels.view, out.view);
                FAIL("no exception");
            } catch (const glccl::NegativeLabels& error) {
                CHECK(error.smallest() == -7);
            }
        }
    }
    // Only the label itself counts: a negative label above maxLabel too.
    const Stored scalar = store({-128}, {}, LabelElement::Int8, kLayouts[0]);
    CHECK_THROWS_AS(glccl::labelExtents(scalar.view, 1), glccl::NegativeLabels);
    CHECK(glccl::labelRange(scalar.view).smallest == -128);
    CHECK(glccl::labelRange(scalar.view).largest == 0);
}

TEST_CASE("label filters: views that do not fit are refused in the entry's name", "[label_filters]") {
    std::vector<std::int32_t> values(12, 1);
    const LabelArrayView labels = LabelArrayView::cOrdered(values.data(), {3, 4});
    std::vector<std::int32_t> other(12);
    LabelArrayView out = LabelArrayView::cOrdered(other.data(), {4, 3});
    CHECK_THROWS_WITH(glccl::relabel(labels, out),
                      Catch::Matchers::Equals("glccl::relabel(): out is 4x3 int32, not as the labels (3x4 int32)"));
    out = LabelArrayView::cOrdered(reinterpret_cast<std::uint32_t*>(other.data()), {3, 4});
    CHECK_THROWS_WITH(glccl::keepLargest(labels, 1, true, out),
                      Catch::Matchers::StartsWith("glccl::keepLargest(): out is 3x4 uint32"));
    LabelArrayView wrong = labels;
    wrong.strides.pop_back();
    CHECK_THROWS_WITH(glccl::labelExtents(wrong),
                      Catch::Matchers::Equals("glccl::labelExtents(): labels have 2 axes but 1 strides"));
    wrong = labels;
    wrong.data = nullptr;
    CHECK_THROWS_WITH(glccl::labelRange(wrong),
                      Catch::Matchers::Equals("glccl::labelRange(): labels of 12 elements have no data"));
    // No elements, no data needed.
    const LabelArrayView empty = LabelArrayView::cOrdered(static_cast<std::int32_t*>(nullptr), {0, 4});
    CHECK(glccl::relabel(empty, empty) == 0);
    CHECK(glccl::labelExtents(empty).labels().empty());
}

TEST_CASE("label filters: stop is asked every piece and cancels the entry", "[label_filters]") {
    std::mt19937_64 random(4);
    const Shape shape = {3 * glccl::kPieceElements + 5};
    const Values values = runsOf(countOf(shape), {1, 2, 3}, random);
    const Stored labels = store(values, shape, LabelElement::UInt8, kLayouts[0]);
    Stored out = store(Values(values.size(), 0), shape, LabelElement::UInt8, kLayouts[0]);

    // Never stopping: asked before each of the 4 pieces of each pass, and the
    // results are those of a call without `stop`.
    int asked = 0;
    const glccl::StopRequested never = [&] {
        ++asked;
        return false;
    };
    std::uint64_t wantKept = 0;
    KeptLabels rule;
    rule.minSize = 2;
    const Values want = filtered(values, shape, rule, wantKept);
    CHECK(glccl::removeSmall(labels.view, 2, true, out.view, never) == wantKept);
    CHECK(read(out.view) == want);
    CHECK(asked >= 2 * 4);
    asked = 0;
    CHECK(glccl::labelExtents(labels.view, 10, false, never).labels().size() == 3);
    CHECK(asked >= 4);
    asked = 0;
    CHECK(glccl::labelRange(labels.view, never).largest == 3);
    CHECK(asked >= 4);

    // Stopping at the second question: Cancelled in the entry's name, before
    // the third piece of the first pass.
    for (const char* entry : {"glccl::relabel()", "glccl::keepLargest()", "glccl::labelExtents()", "glccl::labelRange()"}) {
        asked = 0;
        const glccl::StopRequested second = [&] { return ++asked == 2; };
        const auto call = [&] {
            const std::string name = entry;
            if (name == "glccl::relabel()") glccl::relabel(labels.view, out.view, second);
            if (name == "glccl::keepLargest()") glccl::keepLargest(labels.view, 1, false, out.view, second);
            if (name == "glccl::labelExtents()") glccl::labelExtents(labels.view, 5, true, second);
            if (name == "glccl::labelRange()") glccl::labelRange(labels.view, second);
        };
        CHECK_THROWS_AS(call(), glccl::Cancelled);
        CHECK(asked == 2);
        asked = 0;
        CHECK_THROWS_WITH(call(), Catch::Matchers::StartsWith(std::string(entry) + ": stopped"));
    }
}

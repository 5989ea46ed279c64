#pragma once
// Region properties: scikit-image's regionprops measurements, each declared
// once (docs/measuring.md).
//
// A property is computed in two steps. An accumulator (the cpu engine's, in
// glccl/measure.hpp) walks the labels once and gathers per-region totals, the
// terms: counts, boxes, sums of coordinate powers, intensity sums and
// extrema, counts of local 2x2 (2x2x2) configurations. A finalizer then turns
// one region's totals into the property's values on the host. A property
// declares which terms it needs (TermRequest) and its finalizer; the column
// names, the command line's --properties, Python and C++ all read the same
// declaration (propertyDeclarations()).
//
// Terms are exact: spatial sums are integers of 256 bits, integer intensities
// too; only floating-point intensities are summed in floating point (a
// double-double, in a fixed order, so that every thread count gives the same
// totals).

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "glccl/backend.hpp"
#include "glccl/types.hpp"

namespace glccl {

// A signed 256-bit integer in two's complement, little-endian 64-bit limbs:
// room for any sum of coordinate powers (up to x^3 y^3 z^3) or of integer
// intensities times them over any image glccl takes.
struct Int256 {
    std::array<std::uint64_t, 4> limb{};

    static Int256 of(__int128 value);
    Int256& operator+=(const Int256& o);
    Int256& operator+=(__int128 value) { return *this += of(value); }
    bool negative() const { return (limb[3] >> 63) != 0; }
    // The value rounded to the nearest double pair (hi + lo), as exact as
    // 106 bits of mantissa hold it.
    void toDoubleDouble(double& hi, double& lo) const;
    double toDouble() const;
    bool operator==(const Int256& o) const { return limb == o.limb; }
};
// The low 256 bits of a product, a difference (exact where the result fits).
Int256 operator*(const Int256& a, const Int256& b);
Int256 operator-(const Int256& a, const Int256& b);

// A double-double: hi + lo, |lo| <= ulp(hi) / 2. Sums of floating-point
// intensities, and the finalizers' central moments, are carried in it.
struct DoubleDouble {
    double hi = 0.0, lo = 0.0;
    DoubleDouble() = default;
    DoubleDouble(double h, double l = 0.0) : hi(h), lo(l) {}  // NOLINT(google-explicit-constructor)
    inline DoubleDouble& operator+=(const DoubleDouble& o);
    // *this += DoubleDouble(v), and *this += DoubleDouble(a) * DoubleDouble(b):
    // the same pairs (but for the sign of a zero low part) without the
    // steps on the operands' low parts of 0, for the sums of many samples.
    inline DoubleDouble& addDouble(double v);
    inline DoubleDouble& addProduct(double a, double b);
    double value() const { return hi + lo; }
};

namespace dd_detail {
// Error-free transformations: Knuth's two-sum, the fused multiply's product.
// Past the finite doubles (an infinity or a NaN among the operands, or a
// result that overflows) their error is a NaN: the pair's operations below
// then keep the plain operation's result with an error of 0, an infinity or
// a NaN as IEEE arithmetic (and numpy) has it, which later sums keep.
inline void twoSum(double a, double b, double& s, double& e) {
    s = a + b;
    const double bb = s - a;
    e = (a - (s - bb)) + (b - bb);
}
inline void twoProduct(double a, double b, double& p, double& e) {
    p = a * b;
    e = __builtin_fma(a, b, -p);
}
// A float32 sample (24 bits of mantissa) times an integer below this
// (29 bits) is a double exactly: its sum needs no error term.
constexpr std::uint64_t kFloat32ExactFactor = std::uint64_t(1) << 29;
}  // namespace dd_detail

inline DoubleDouble& DoubleDouble::operator+=(const DoubleDouble& o) {
    double s, e, t, f, h;
    dd_detail::twoSum(hi, o.hi, s, e);
    if (!std::isfinite(s)) return *this = DoubleDouble(s);
    dd_detail::twoSum(lo, o.lo, t, f);
    e += t;
    dd_detail::twoSum(s, e, h, e);
    e += f;
    dd_detail::twoSum(h, e, hi, lo);
    return *this;
}
inline DoubleDouble& DoubleDouble::addDouble(double v) {
    double s, e;
    dd_detail::twoSum(hi, v, s, e);
    if (!std::isfinite(s)) return *this = DoubleDouble(s);
    e += lo;
    dd_detail::twoSum(s, e, hi, lo);
    return *this;
}
inline DoubleDouble& DoubleDouble::addProduct(double a, double b) {
    // A product's pair from twoProduct is normalized already: the sum of
    // it is operator+='s (an infinite product's NaN error left there).
    double p, e;
    dd_detail::twoProduct(a, b, p, e);
    return *this += DoubleDouble(p, e);
}
inline DoubleDouble operator+(DoubleDouble a, const DoubleDouble& b) { return a += b; }
inline DoubleDouble operator-(const DoubleDouble& a, const DoubleDouble& b) { return a + DoubleDouble(-b.hi, -b.lo); }
inline DoubleDouble operator*(const DoubleDouble& a, const DoubleDouble& b) {
    double p, e, h, l;
    dd_detail::twoProduct(a.hi, b.hi, p, e);
    if (!std::isfinite(p)) return {p, 0.0};  // the low parts' products would add a NaN (an infinity times 0)
    e += a.hi * b.lo + a.lo * b.hi;
    dd_detail::twoSum(p, e, h, l);
    return {h, l};
}
DoubleDouble operator/(const DoubleDouble& a, const DoubleDouble& b);

// How an intensity's samples are read.
enum class SampleKind { Unsigned, Signed, Float };

// Which terms an accumulation gathers. Built from a property list by
// termsFor(); an accumulator gathers exactly these, nothing when a request
// asks only for label, bbox, area, centroid (the engines' table has them).
struct TermRequest {
    int dimensions = 2;
    // Sums of local coordinate powers (coordinates relative to the region's
    // box): 0 none, 1 to 3 every exponent tuple of total order <= that, 4
    // every exponent 0..3 on each axis (scikit-image's 4x4 (4x4x4) moment
    // arrays). exponents() lists them.
    int momentLevel = 0;
    bool perimeter = false;  // 2-D: border pixels by how their border neighbours lie
    bool crofton = false;    // 2-D: 2x2 configurations by Crofton class
    bool euler = false;      // 2x2 (2x2x2) configurations' Euler contributions
    // Intensity channels (0: no intensity image) and what is gathered of each.
    int channels = 0;
    SampleKind intensityKind = SampleKind::Unsigned;
    int intensityBits = 8;
    bool intensityChannelAxis = false;  // the intensity has a channel axis (columns get a channel index)
    bool intensitySums = false;      // sum, sum of squares
    bool intensityExtrema = false;   // minimum, maximum
    // The extrema's first positions too (with intensityExtrema): the GPU
    // engines find them in a pass of their own, run only for them.
    bool intensityPositions = false;
    int weightedMomentLevel = 0;     // as momentLevel, of intensity-weighted sums

    bool any() const {
        return momentLevel > 0 || perimeter || crofton || euler || intensitySums || intensityExtrema ||
               weightedMomentLevel > 0;
    }
    // The exponent tuples (axis 0 = x, 1 = y, 2 = z) of a level, in the
    // order the totals hold them.
    static std::vector<std::array<int, 3>> exponents(int level, int dimensions);
    // Where exponent tuple (ex, ey, ez) sits in exponents(level, dims) (-1 if absent).
    static int exponentIndex(int level, int dimensions, int ex, int ey, int ez);
};

namespace detail {
// ZeroedAllocator's memory: `bytes` of zeros, a large block kept from an
// array freed before (zeroed by every core) or else fresh (calloc, which
// takes a large block's pages from the kernel, zero, without writing
// them). A measurement's largest arrays are thus made again from memory
// already mapped: a table of millions of regions holds hundreds of
// megabytes of sums, and the kernel's mapping of that many fresh pages
// costs more than a GPU's gathering of them.
void* zeroedBlock(std::size_t bytes);
// Gives back a block of zeroedBlock(bytes): freed, or kept for a later
// array of about its size (a few large blocks, up to a bound; one that
// none fits frees them all).
void releaseBlock(void* block, std::size_t bytes) noexcept;
}  // namespace detail

// The allocator of RegionTotals' arrays, for element types whose zero value
// is all zero bits: its memory comes zeroed (detail::zeroedBlock), and a
// value-initialized element is left as that memory holds it, so that
// sizing a table of millions of regions writes nothing on the thread that
// sizes it. Elements a vector grows by are zero where it never held
// elements before; a vector that shrank and grows again gets its old
// elements back, so one that is sized anew is made anew (zeroTerms()).
template <class T>
struct ZeroedAllocator {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                  "zero bits are the value of a value-initialized element");
    using value_type = T;
    ZeroedAllocator() = default;
    template <class U>
    ZeroedAllocator(const ZeroedAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) { return static_cast<T*>(detail::zeroedBlock(n * sizeof(T))); }
    void deallocate(T* p, std::size_t n) noexcept { detail::releaseBlock(p, n * sizeof(T)); }
    template <class U>
    void construct(U*) noexcept {}  // zero already
    template <class U, class... Arguments>
    void construct(U* place, Arguments&&... arguments) {
        ::new (static_cast<void*>(place)) U(std::forward<Arguments>(arguments)...);
    }
    template <class U>
    bool operator==(const ZeroedAllocator<U>&) const noexcept { return true; }
    template <class U>
    bool operator!=(const ZeroedAllocator<U>&) const noexcept { return false; }
};
template <class T>
using TermArray = std::vector<T, ZeroedAllocator<T>>;

// Per-region totals of a measurement, structure of arrays, row r for the
// region of labels[r] (ascending labels).
struct RegionTotals {
    TermRequest request;
    std::size_t regions = 0;
    // The engine whose gatherer added these terms: compute or raster (the
    // GL gatherer, on the labels that engine made), cuda, or cpu (the host's
    // accumulator, also where a GPU engine hands its labels to it).
    Backend gatheredBy = Backend::Cpu;
    std::vector<std::uint64_t> labels;
    std::vector<std::int64_t> imageExtents;  // the image's extents in numpy order (planes, rows, columns)
    std::vector<std::uint64_t> counts;
    // Box per region: min and max (inclusive) along x, y, z.
    std::vector<std::array<std::int64_t, 3>> boxMin, boxMax;
    // The terms (TermArray: zero as they are sized).
    // Moment sums: regions x exponents(momentLevel).
    TermArray<Int256> moments;
    // Perimeter: regions x 3 (border pixels of weight 1, sqrt 2, (1 + sqrt 2) / 2).
    TermArray<std::uint64_t> perimeterClasses;
    // Crofton: regions x 5 (2x2 configurations of the five nonzero coefficients).
    TermArray<std::uint64_t> croftonClasses;
    // Euler: 4 (2-D) or 8 (3-D) times the Euler number, per region.
    TermArray<std::int64_t> eulerTimes;
    // Intensity, regions x channels: sums of samples and of their squares
    // (integers exactly, floats as double-doubles), extrema and their first
    // raster positions (flat element index), and intensity-weighted moment
    // sums (regions x channels x exponents(weightedMomentLevel)).
    TermArray<Int256> intensitySum, intensitySquares;
    TermArray<DoubleDouble> intensitySumFloat, intensitySquaresFloat;
    TermArray<double> intensityMin, intensityMax;
    TermArray<std::uint64_t> intensityMinBits, intensityMaxBits;  // the raw 64-bit samples (exact past 2^53)
    TermArray<std::uint64_t> intensityMinAt, intensityMaxAt;
    TermArray<Int256> weightedMoments;
    TermArray<DoubleDouble> weightedMomentsFloat;
};

// What one 2x2 (2x2x2) window of the labels gives the region it holds, by
// configuration: the bits of a window whose far corner is element (x, y)
// are 1 (x, y), 2 (x, y - 1), 4 (x - 1, y), 8 (x - 1, y - 1); in 3-D the
// window's slice z - 1 adds the same four, four bits up (bit()).
//
// The Euler number counts a region as a union of closed unit squares
// (cubes), which touch where 8-connected (26-connected) elements do: its
// Euler characteristic V - E + F (- C) is a sum over the grid's vertices,
// each window holding one vertex at its centre and a share of the edges,
// faces and cubes around it (an edge has 2 vertices, a face 4, a cube 8).
// euler2 and euler3 hold 4 (2-D) or 8 (3-D) times each configuration's
// share. crofton holds the class of a 2-D configuration's coefficient in
// Crofton's formula with 4 directions (the classes' coefficients are the
// perimeter_crofton finalizer's), -1 for a coefficient of 0. Every engine's
// gatherer reads these tables.
struct WindowShares {
    std::array<int, 16> euler2{};
    std::array<int, 256> euler3{};
    std::array<int, 16> crofton{};
    // The bit of the element at (x - 1 + dx, y - 1 + dy, z - 1 + dz) in a
    // window whose far corner is (x, y, z).
    static constexpr int bit(int dx, int dy, int dz) { return (dz ? 0 : 4) + (dx ? 0 : 2) + (dy ? 0 : 1); }
};
const WindowShares& windowShares();

// The totals the component table of labels 1..n gives (labels, counts,
// boxes), of a request whose terms a gatherer adds: the start of every
// engine's gathering from its own labeling. Large tables are copied, and
// their fresh memory mapped, by `threads` threads (0: every core).
RegionTotals tableTotals(const Shape& shape, const std::vector<Component>& table, const TermRequest& request,
                         int threads = 0);

// Sizes every array of the terms totals.request asks for, for
// totals.regions regions, each total zero: where a gatherer adds. Their
// fresh memory is mapped by `threads` threads (0: every core).
void zeroTerms(RegionTotals& totals, int threads = 0);

// One column of a property table, named as scikit-image's regionprops_table
// names it ("bbox-0", "moments_central-1-2", "intensity_mean-0").
struct PropertyColumn {
    enum class Type { Int64, UInt64, Float64 };
    std::string name;
    Type type = Type::Float64;
    std::vector<std::int64_t> ints;
    std::vector<std::uint64_t> uints;
    std::vector<double> reals;
};

struct PropertyTable {
    std::size_t rows = 0;
    std::vector<PropertyColumn> columns;
    const PropertyColumn* find(const std::string& name) const;
};

// A measurement's choices beyond the labels and the intensity.
struct PropertyOptions {
    std::vector<std::string> properties;
    // Element spacing per array axis, slowest first as in numpy ((rows,
    // columns) in 2-D, (planes, rows, columns) in 3-D); empty: all 1.
    std::vector<double> spacing;
    std::string separator = "-";
};

class RegionMeasure;  // one region's totals and what finalizers derive from them

// One declared property: scikit-image's name, where it is defined, whether
// it needs an intensity image, what it needs gathered, the shape of its
// values (their column names: name, then each index joined by the
// separator, C order), and its finalizer, which computes one region's
// values in that order (integers into `ints` for an integer property).
struct PropertyDeclaration {
    const char* name;
    bool in2d, in3d;
    bool needsIntensity;
    bool integer;
    void (*addTerms)(TermRequest& request);
    std::vector<int> (*shape)(const TermRequest& request);
    void (*finalize)(RegionMeasure& region, std::vector<double>& reals, std::vector<std::int64_t>& ints);
};

// Every property computed from terms, in one list.
const std::vector<PropertyDeclaration>& propertyDeclarations();
const PropertyDeclaration* findProperty(const std::string& name);

// The terms a property list needs, or glccl::Error naming a property that is
// unknown, not defined in `dimensions` or needs an intensity image absent
// (channels 0). Names computed from crops (image, coords, solidity, ...) are
// not term properties: callers that take them (Python) ask isTermProperty().
TermRequest termsFor(const std::vector<std::string>& properties, int dimensions, int channels,
                     SampleKind intensityKind = SampleKind::Unsigned, int intensityBits = 8);
bool isTermProperty(const std::string& name);

// The properties' columns, from the totals (row r for totals.labels[r]).
// Throws glccl::Error for a spacing of the wrong length or not positive and
// finite, and where scikit-image refuses a spacing (moments_hu off 1,
// perimeter with anisotropic spacing). threads: how many finalize the rows
// (0: as many as the machine has); the table is the same at every count.
PropertyTable finalizeProperties(const RegionTotals& totals, const PropertyOptions& options, int threads = 0);

}  // namespace glccl

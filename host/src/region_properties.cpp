// Region properties: the exact integer and double-double arithmetic of the
// terms, every property's declaration and its finalizer.

#include <glccl/error.hpp>
#include <glccl/region_properties.hpp>

#include "row_ranges.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
#include <thread>

namespace glccl {

// --- Int256 -------------------------------------------------------------------

Int256 Int256::of(__int128 value) {
    Int256 r;
    const auto u = static_cast<unsigned __int128>(value);
    r.limb[0] = std::uint64_t(u);
    r.limb[1] = std::uint64_t(u >> 64);
    const std::uint64_t fill = value < 0 ? ~std::uint64_t(0) : 0;
    r.limb[2] = fill;
    r.limb[3] = fill;
    return r;
}

Int256& Int256::operator+=(const Int256& o) {
    unsigned carry = 0;
    for (int i = 0; i < 4; ++i) {
        const unsigned __int128 s = (unsigned __int128)limb[i] + o.limb[i] + carry;
        limb[i] = std::uint64_t(s);
        carry = unsigned(s >> 64);
    }
    return *this;
}

namespace {

Int256 negated(const Int256& a) {
    Int256 r;
    for (int i = 0; i < 4; ++i) r.limb[i] = ~a.limb[i];
    r += Int256::of(1);
    return r;
}

// The low 256 bits of a * b (the product of two magnitudes that fits).
Int256 multiplied(const Int256& a, const Int256& b) {
    const bool negative = a.negative() != b.negative();
    const Int256 x = a.negative() ? negated(a) : a;
    const Int256 y = b.negative() ? negated(b) : b;
    Int256 r;
    for (int i = 0; i < 4; ++i) {
        std::uint64_t carry = 0;
        for (int j = 0; i + j < 4; ++j) {
            const unsigned __int128 p = (unsigned __int128)x.limb[i] * y.limb[j] + r.limb[i + j] + carry;
            r.limb[i + j] = std::uint64_t(p);
            carry = std::uint64_t(p >> 64);
        }
    }
    return negative ? negated(r) : r;
}


}  // namespace

Int256 operator*(const Int256& a, const Int256& b) { return multiplied(a, b); }
Int256 operator-(const Int256& a, const Int256& b) {
    Int256 r = a;
    return r += negated(b);
}

namespace {

}  // namespace

void Int256::toDoubleDouble(double& hi, double& lo) const {
    // Most totals fit in 128 bits (the upper limbs only repeat the sign).
    const std::uint64_t sign = (limb[1] >> 63) ? ~std::uint64_t(0) : 0;
    // Totals below 2^62 (most regions'): converted by the processor's own
    // 64-bit conversions, not the library's 128-bit ones; the same roundings.
    const std::int64_t low = std::int64_t(limb[0]);
    constexpr std::int64_t kFast = std::int64_t(1) << 62;
    if (limb[1] == sign && limb[2] == sign && limb[3] == sign && std::uint64_t(low >> 63) == sign && low < kFast && low > -kFast) {
        hi = double(low);
        lo = double(low - std::int64_t(hi));
        return;
    }
    if (limb[2] == sign && limb[3] == sign) {
        const __int128 v = __int128((unsigned __int128)limb[1] << 64 | limb[0]);
        hi = double(v);
        lo = double(v - __int128(hi));
        return;
    }
    const bool neg = negative();
    const Int256 m = neg ? negated(*this) : *this;
    DoubleDouble value;
    const double two32 = 4294967296.0;
    for (int i = 3; i >= 0; --i) {
        value = value * DoubleDouble(two32 * two32);
        value += DoubleDouble(double(m.limb[i] >> 32) * two32);
        value += DoubleDouble(double(m.limb[i] & 0xffffffffu));
    }
    hi = neg ? -value.hi : value.hi;
    lo = neg ? -value.lo : value.lo;
}

double Int256::toDouble() const {
    double hi = 0.0, lo = 0.0;
    toDoubleDouble(hi, lo);
    return hi + lo;
}

// --- DoubleDouble -------------------------------------------------------------

namespace {

// a / b, operator/'s arithmetic, inlined where the finalizers divide once
// or twice a region.
inline DoubleDouble quotientOf(const DoubleDouble& a, const DoubleDouble& b) {
    const double q1 = a.hi / b.hi;
    // An infinite or NaN quotient (of an infinite sum, by a zero total) is
    // the plain division's: the corrections below would make it a NaN.
    if (!std::isfinite(q1)) return DoubleDouble(q1);
    if (b.lo == 0.0) {
        // By a double (a count, an integer total below 2^53): one correction step.
        double p, e;
        dd_detail::twoProduct(q1, b.hi, p, e);
        const double q2 = (((a.hi - p) - e) + a.lo) / b.hi;
        DoubleDouble q;
        dd_detail::twoSum(q1, q2, q.hi, q.lo);
        return q;
    }
    const DoubleDouble r = a - b * DoubleDouble(q1);
    const double q2 = r.hi / b.hi;
    const DoubleDouble r2 = r - b * DoubleDouble(q2);
    const double q3 = r2.hi / b.hi;
    DoubleDouble q(q1);
    q += DoubleDouble(q2);
    q += DoubleDouble(q3);
    return q;
}

// A total as a double pair, Int256::toDoubleDouble's roundings: its path
// for totals below 2^62 (most regions' moments) inlined, the others by it.
inline DoubleDouble pairOf(const Int256& v) {
    const std::uint64_t sign = (v.limb[1] >> 63) ? ~std::uint64_t(0) : 0;
    const std::int64_t low = std::int64_t(v.limb[0]);
    constexpr std::int64_t kFast = std::int64_t(1) << 62;
    if (v.limb[1] == sign && v.limb[2] == sign && v.limb[3] == sign && std::uint64_t(low >> 63) == sign && low < kFast &&
        low > -kFast) {
        const double hi = double(low);
        return DoubleDouble(hi, double(low - std::int64_t(hi)));
    }
    double hi, lo;
    v.toDoubleDouble(hi, lo);
    return DoubleDouble(hi, lo);
}

}  // namespace

DoubleDouble operator/(const DoubleDouble& a, const DoubleDouble& b) { return quotientOf(a, b); }

// --- Windows and tables -------------------------------------------------------

const WindowShares& windowShares() {
    static const WindowShares shares = [] {
        WindowShares w;
        for (int c = 0; c < 16; ++c) {
            const int br = c & 1, tr = (c >> 1) & 1, bl = (c >> 2) & 1, tl = (c >> 3) & 1;
            const int pixels = br + tr + bl + tl;
            const int edges = (tl | tr) + (bl | br) + (tl | bl) + (tr | br);  // the four edges from the centre
            w.euler2[std::size_t(c)] = 4 * (pixels > 0) - 2 * edges + pixels;
        }
        for (int c = 0; c < 256; ++c) {
            auto set = [&](const int v[3]) { return (c >> WindowShares::bit(v[0], v[1], v[2])) & 1; };
            int voxels = 0;
            for (int i = 0; i < 8; ++i) voxels += (c >> i) & 1;
            int edges = 0;  // six edges from the centre, each amid the four voxels on its side
            for (int axis = 0; axis < 3; ++axis)
                for (int side = 0; side < 2; ++side) {
                    int any = 0;
                    for (int a = 0; a < 2; ++a)
                        for (int b = 0; b < 2; ++b) {
                            int v[3];
                            v[axis] = side;
                            v[(axis + 1) % 3] = a;
                            v[(axis + 2) % 3] = b;
                            any |= set(v);
                        }
                    edges += any;
                }
            int faces = 0;  // twelve faces at the centre, each between two voxels
            for (int axis = 0; axis < 3; ++axis)
                for (int a = 0; a < 2; ++a)
                    for (int b = 0; b < 2; ++b) {
                        int v[3], u[3];
                        v[axis] = 0;
                        u[axis] = 1;
                        v[(axis + 1) % 3] = u[(axis + 1) % 3] = a;
                        v[(axis + 2) % 3] = u[(axis + 2) % 3] = b;
                        faces += set(v) | set(u);
                    }
            w.euler3[std::size_t(c)] = 8 * (voxels > 0) - 4 * edges + 2 * faces - voxels;
        }
        w.crofton.fill(-1);
        for (int c : {1, 5}) w.crofton[std::size_t(c)] = 0;
        for (int c : {2, 7, 10, 11}) w.crofton[std::size_t(c)] = 1;
        w.crofton[3] = 2;
        for (int c : {8, 12}) w.crofton[std::size_t(c)] = 3;
        for (int c : {9, 13}) w.crofton[std::size_t(c)] = 4;
        return w;
    }();
    return shares;
}

RegionTotals tableTotals(const Shape& shape, const std::vector<Component>& table, const TermRequest& request,
                         int threads) {
    RegionTotals totals;
    totals.request = request;
    totals.regions = table.size();
    for (int a = shape.dimensions - 1; a >= 0; --a) totals.imageExtents.push_back(shape.extent(a));
    const std::size_t n = table.size();
    FreshPages fresh;
    fresh.reserve(totals.labels, n);
    fresh.reserve(totals.counts, n);
    fresh.reserve(totals.boxMin, n);
    fresh.reserve(totals.boxMax, n);
    fresh.map(threads);
    totals.labels.resize(n);
    totals.counts.resize(n);
    totals.boxMin.resize(n);
    totals.boxMax.resize(n);
    forRowRanges(n, threads, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) {
            const Component& c = table[i];
            totals.labels[i] = i + 1;
            totals.counts[i] = c.area;
            totals.boxMin[i] = {std::int64_t(c.left), std::int64_t(c.top), std::int64_t(c.front)};
            totals.boxMax[i] = {std::int64_t(c.left) + c.width - 1, std::int64_t(c.top) + c.height - 1,
                                std::int64_t(c.front) + std::int64_t(c.depth) - 1};
        }
    });
    return totals;
}

void zeroTerms(RegionTotals& totals, int threads) {
    const TermRequest& q = totals.request;
    const std::size_t n = totals.regions, channels = std::size_t(q.channels);
    const std::size_t moments = TermRequest::exponents(q.momentLevel, q.dimensions).size();
    const std::size_t weighted = TermRequest::exponents(q.weightedMomentLevel, q.dimensions).size();
    // Every array the request has, f(array, elements): first reserved (the
    // fresh pages of all of them mapped at once), then zeroed.
    auto eachArray = [&](auto&& f) {
        if (moments) f(totals.moments, n * moments);
        if (q.perimeter) f(totals.perimeterClasses, n * 3);
        if (q.crofton) f(totals.croftonClasses, n * 5);
        if (q.euler) f(totals.eulerTimes, n);
        if (!channels) return;
        if (q.intensityKind == SampleKind::Float) {
            if (q.intensitySums) {
                f(totals.intensitySumFloat, n * channels);
                f(totals.intensitySquaresFloat, n * channels);
            }
            f(totals.weightedMomentsFloat, n * channels * weighted);
        } else {
            if (q.intensitySums) {
                f(totals.intensitySum, n * channels);
                f(totals.intensitySquares, n * channels);
            }
            f(totals.weightedMoments, n * channels * weighted);
        }
        if (q.intensityExtrema) {
            f(totals.intensityMin, n * channels);
            f(totals.intensityMax, n * channels);
            f(totals.intensityMinBits, n * channels);
            f(totals.intensityMaxBits, n * channels);
        }
        if (q.intensityPositions) {
            f(totals.intensityMinAt, n * channels);
            f(totals.intensityMaxAt, n * channels);
        }
    };
    // Each array made anew, zero as it is made (TermArray): sized with no
    // write.
    FreshPages fresh;
    eachArray([&](auto& v, std::size_t count) {
        v = std::decay_t<decltype(v)>();
        fresh.reserve(v, count);
    });
    fresh.map(threads);
    eachArray([](auto& v, std::size_t count) { v.resize(count); });
}

// --- Exponents ----------------------------------------------------------------

std::vector<std::array<int, 3>> TermRequest::exponents(int level, int dimensions) {
    std::vector<std::array<int, 3>> list;
    if (level <= 0) return list;
    const int zMax = dimensions == 3 ? 3 : 0;
    for (int ez = 0; ez <= zMax; ++ez)
        for (int ey = 0; ey <= 3; ++ey)
            for (int ex = 0; ex <= 3; ++ex)
                if (level == 4 || ex + ey + ez <= level) list.push_back({ex, ey, ez});
    return list;
}

int TermRequest::exponentIndex(int level, int dimensions, int ex, int ey, int ez) {
    const auto list = exponents(level, dimensions);
    for (std::size_t i = 0; i < list.size(); ++i)
        if (list[i][0] == ex && list[i][1] == ey && list[i][2] == ez) return int(i);
    return -1;
}

// --- One region ---------------------------------------------------------------

// Orders of moments the finalizers read (TermRequest's momentLevel scale:
// 1 to 3 every exponent tuple of total order <= that, 4 the whole cube of
// powers 0..3 on each axis). A region's moments are derived at the order
// its properties need and no further: the second-order properties read 6
// (10) of the cube's 16 (64) central moments.
struct MomentOrders {
    int raw = 0, central = 0, weightedRaw = 0, weightedCentral = 0;
};

// One region's totals, with what several finalizers share (raw and central
// moments in numpy's axis order, the inertia tensor and its eigenvalues)
// computed once on first use, at the orders the table's properties need: a
// finalizer asks for the order it reads, and the orders asked for in the
// regions before (the same properties each) are derived at once, so that
// each is derived once a region from the second region on.
// Axis a of numpy's order is glccl's axis dims - 1 - a (numpy's last axis
// is x).
class RegionMeasure {
public:
    RegionMeasure(const RegionTotals& totals, const std::vector<double>& spacing)
        : t_(totals), spacing_(spacing), dims_(totals.request.dimensions) {
        const auto& req = totals.request;
        momentExponents_ = TermRequest::exponents(req.momentLevel, dims_);
        weightedExponents_ = TermRequest::exponents(req.weightedMomentLevel, dims_);
        unitSpacing_ = std::all_of(spacing_.begin(), spacing_.end(), [](double s) { return s == 1.0; });
        momentPlaces_ = placesOf(momentExponents_);
        weightedPlaces_ = placesOf(weightedExponents_);
        for (int idx = 0; idx < cubeSize(); ++idx) {
            int order = 0;
            for (int a = 0, rest = idx; a < dims_; ++a, rest /= 4) order += rest % 4;
            order_[std::size_t(idx)] = order;
        }
        const std::size_t channels = std::size_t(std::max(req.channels, 1));
        weighted_.resize(channels);
        weightedCentral_.resize(channels);
        weightedLevel_.assign(channels, 0);
        weightedCentralLevel_.assign(channels, 0);
    }
    void select(std::size_t row) {
        row_ = row;
        momentsLevel_ = centralLevel_ = 0;
        haveCentre_ = haveTensor_ = haveEigen_ = false;
        std::fill(weightedLevel_.begin(), weightedLevel_.end(), 0);
        std::fill(weightedCentralLevel_.begin(), weightedCentralLevel_.end(), 0);
    }

    const RegionTotals& totals() const { return t_; }
    std::size_t row() const { return row_; }
    int dims() const { return dims_; }
    int channels() const { return t_.request.channels; }
    double spacing(int numpyAxis) const { return spacing_[std::size_t(numpyAxis)]; }
    int axisOf(int numpyAxis) const { return dims_ - 1 - numpyAxis; }
    std::uint64_t count() const { return t_.counts[row_]; }
    double pixelArea() const {
        double a = 1.0;
        for (double s : spacing_) a *= s;
        return a;
    }
    std::int64_t boxMin(int numpyAxis) const { return t_.boxMin[row_][std::size_t(axisOf(numpyAxis))]; }
    std::int64_t boxMax(int numpyAxis) const { return t_.boxMax[row_][std::size_t(axisOf(numpyAxis))]; }
    std::int64_t boxElements() const {
        std::int64_t n = 1;
        for (int a = 0; a < dims_; ++a) n *= boxMax(a) - boxMin(a) + 1;
        return n;
    }

    // Index of numpy powers p[0..dims) in the cube arrays (4^dims entries, C order).
    static int cubeIndex(const int* p, int dims) {
        int i = 0;
        for (int a = 0; a < dims; ++a) i = i * 4 + p[a];
        return i;
    }
    int cubeSize() const { return dims_ == 3 ? 64 : 16; }
    // Whether cube entry idx (or exponent tuple p) is of an order `level` holds.
    bool inLevel(int idx, int level) const { return level >= 4 || order_[std::size_t(idx)] <= level; }

    // Raw moments in numpy order, scaled by the spacing (scikit-image's
    // `moments`): entry cubeIndex(p) = sum of prod_a (coordinate_a s_a)^p_a,
    // for the exponent tuples gathered of the orders `level` holds (the
    // others NaN).
    const std::vector<DoubleDouble>& moments(int level = 4) {
        needed_.raw = std::max(needed_.raw, level);
        if (momentsLevel_ < level) {
            momentsLevel_ = needed_.raw;
            const std::size_t n = momentExponents_.size();
            scaledRaw(momentExponents_, momentPlaces_, momentsLevel_, [&](std::size_t e) { return pairOf(t_.moments[row_ * n + e]); },
                      moments_);
        }
        return moments_;
    }
    // Central moments in numpy order, scaled (scikit-image's
    // moments_central), of the orders `level` holds (the others NaN).
    const std::vector<DoubleDouble>& central(int level = 4) {
        needed_.central = std::max(needed_.central, level);
        if (centralLevel_ < level) {
            centralLevel_ = needed_.central;
            const std::vector<DoubleDouble>& raw = moments(centralLevel_);
            centralOf(raw, centre(), centralLevel_, central_);
        }
        return central_;
    }
    // The centre of the raw moments, m[e_a] / m[0] along each numpy axis a,
    // in the box's coordinates (scaled): the centroid's and the central
    // moments' shift's, divided once.
    const DoubleDouble* centre() {
        if (!haveCentre_) centreOf(moments(1), centre_), haveCentre_ = true;
        return centre_;
    }
    // The centre of a raw cube m (numpy order) into c[0..dims).
    void centreOf(const std::vector<DoubleDouble>& m, DoubleDouble* c) const {
        for (int a = 0; a < dims_; ++a) {
            int p[3] = {0, 0, 0};
            p[a] = 1;
            c[a] = quotientOf(m[std::size_t(cubeIndex(p, dims_))], m[0]);
        }
    }
    const std::vector<DoubleDouble>& weighted(int channel, int level = 4) {
        int& have = weightedLevel_[std::size_t(channel)];
        auto& w = weighted_[std::size_t(channel)];
        needed_.weightedRaw = std::max(needed_.weightedRaw, level);
        if (have < level) {
            have = needed_.weightedRaw;
            const std::size_t n = weightedExponents_.size();
            const std::size_t base = (row_ * std::size_t(channels()) + std::size_t(channel)) * n;
            scaledRaw(weightedExponents_, weightedPlaces_, have, [&](std::size_t e) {
                if (t_.request.intensityKind == SampleKind::Float) return t_.weightedMomentsFloat[base + e];
                return pairOf(t_.weightedMoments[base + e]);
            }, w);
        }
        return w;
    }
    const std::vector<DoubleDouble>& weightedCentral(int channel, int level = 4) {
        int& have = weightedCentralLevel_[std::size_t(channel)];
        auto& w = weightedCentral_[std::size_t(channel)];
        needed_.weightedCentral = std::max(needed_.weightedCentral, level);
        if (have < level) {
            have = needed_.weightedCentral;
            const std::vector<DoubleDouble>& raw = weighted(channel, have);
            DoubleDouble c[3];
            centreOf(raw, c);
            centralOf(raw, c, have, w);
        }
        return w;
    }

    // scikit-image's inertia tensor of the central moments mu (dims x dims,
    // row major), into t.
    static void inertiaTensorOf(const std::vector<DoubleDouble>& mu, int dims, std::vector<double>& t) {
        t.assign(std::size_t(dims * dims), 0.0);
        const double mu0 = mu[0].value();
        int p[3] = {0, 0, 0};
        double second[3] = {0.0, 0.0, 0.0};
        double sum = 0.0;
        for (int a = 0; a < dims; ++a) {
            std::fill(p, p + 3, 0);
            p[a] = 2;
            second[a] = mu[std::size_t(cubeIndex(p, dims))].value();
            sum += second[a];
        }
        for (int a = 0; a < dims; ++a) t[std::size_t(a * dims + a)] = (sum - second[a]) / mu0;
        for (int a = 0; a < dims; ++a)
            for (int b = a + 1; b < dims; ++b) {
                std::fill(p, p + 3, 0);
                p[a] = 1;
                p[b] = 1;
                const double v = -mu[std::size_t(cubeIndex(p, dims))].value() / mu0;
                t[std::size_t(a * dims + b)] = v;
                t[std::size_t(b * dims + a)] = v;
            }
    }
    const std::vector<double>& inertiaTensor() {
        if (!haveTensor_) inertiaTensorOf(central(2), dims_, tensor_), haveTensor_ = true;
        return tensor_;
    }
    // Eigenvalues of the inertia tensor, clipped at 0, largest first.
    const std::vector<double>& eigenvalues() {
        if (!haveEigen_) {
            symmetricEigenvalues(inertiaTensor(), dims_, eigen_);
            if (dims_ == 2 && eigen_[1] < 0.25 * eigen_[0]) {
                // The smaller as the determinant over the larger where it is
                // much the smaller: there mean - radius cancels to rounding
                // noise of the larger's size (a region on a line, whose
                // determinant, of the central moments in double-double, is 0
                // as in exact arithmetic). Near equal ones keep mean - radius,
                // exact where the radius is 0 (a disc's).
                const std::vector<DoubleDouble>& mu = central(2);
                const int p20[3] = {2, 0, 0}, p02[3] = {0, 2, 0}, p11[3] = {1, 1, 0};
                const DoubleDouble& m20 = mu[std::size_t(cubeIndex(p20, 2))];
                const DoubleDouble& m02 = mu[std::size_t(cubeIndex(p02, 2))];
                const DoubleDouble& m11 = mu[std::size_t(cubeIndex(p11, 2))];
                const DoubleDouble det = quotientOf(m20 * m02 - m11 * m11, mu[0] * mu[0]);
                eigen_[1] = std::max(det.value() / eigen_[0], 0.0);
            }
            haveEigen_ = true;
        }
        return eigen_;
    }

    // 3-D: the smallest eigenvalue of the central second moments over mu0,
    // the region's variance along its least axis (-e0 + e1 + e2 of the
    // inertia tensor's eigenvalues is twice it, a sum that cancels to
    // rounding noise of the largest's size where the region is flat). From
    // the moments' invariants in double-double instead: the largest
    // eigenvalue c (well conditioned: the trace less the tensor's smallest),
    // the determinant (c times the product of the other two) and the sum of
    // the principal minors (c times their sum, plus their product), so that
    // a flat region's, whose determinant is 0, is 0.
    double leastVariance() {
        const std::vector<DoubleDouble>& mu = central(2);
        auto at = [&](int a, int b) {
            int p[3] = {0, 0, 0};
            ++p[a];
            ++p[b];
            return mu[std::size_t(cubeIndex(p, 3))];
        };
        const DoubleDouble xx = at(0, 0), yy = at(1, 1), zz = at(2, 2), xy = at(0, 1), xz = at(0, 2), yz = at(1, 2);
        const DoubleDouble det = xx * (yy * zz - yz * yz) - xy * (xy * zz - yz * xz) + xz * (xy * yz - yy * xz);
        const DoubleDouble minors = xx * yy - xy * xy + xx * zz - xz * xz + yy * zz - yz * yz;
        const double mu0 = mu[0].value();
        const double largest = (xx + yy + zz).value() - eigenvalues()[2] * mu0;
        if (!(largest > 0)) return 0.0;
        const double product = det.value() / largest;                 // of the two smaller
        const double sum = (minors.value() - product) / largest;      // of the two smaller
        const double middle = 0.5 * (sum + std::sqrt(std::max(sum * sum - 4 * product, 0.0)));
        return middle > 0 ? std::max(product / middle, 0.0) / mu0 : 0.0;
    }

private:
    // Where each exponent tuple of exps lies in the cube (cubeIndex of its
    // numpy powers).
    std::vector<int> placesOf(const std::vector<std::array<int, 3>>& exps) const {
        std::vector<int> places;
        for (const auto& ex : exps) {
            int p[3] = {0, 0, 0};
            for (int a = 0; a < dims_; ++a) p[a] = ex[std::size_t(axisOf(a))];
            places.push_back(cubeIndex(p, dims_));
        }
        return places;
    }
    // The cube in numpy order (NaN where a tuple was not gathered or is of
    // an order past `level`), scaled by spacing^power along each axis;
    // places: placesOf(exps).
    template <class TotalAt>
    void scaledRaw(const std::vector<std::array<int, 3>>& exps, const std::vector<int>& places, int level, const TotalAt& at,
                   std::vector<DoubleDouble>& cube) const {
        // The entries written grow with the level, which only grows: those
        // never written are NaN from the cube's first sizing on.
        if (cube.size() != std::size_t(cubeSize())) cube.assign(std::size_t(cubeSize()), DoubleDouble(std::nan("")));
        for (std::size_t e = 0; e < exps.size(); ++e) {
            if (level < 4 && exps[e][0] + exps[e][1] + exps[e][2] > level) continue;
            DoubleDouble v = at(e);
            if (!unitSpacing_)
                for (int a = 0; a < dims_; ++a) {
                    const int power = exps[e][std::size_t(axisOf(a))];
                    if (spacing(a) != 1.0)
                        for (int k = 0; k < power; ++k) v = v * DoubleDouble(spacing(a));
                }
            cube[std::size_t(places[e])] = v;
        }
    }

    // Central moments of a raw cube (numpy order) about its centroid
    // (centre: centreOf(raw)), in double-doubles: the binomial shift along one
    // axis at a time, sum_k C(p, k) (-c)^(p - k) m_k, into mu for the
    // entries of the orders `level` holds (the others NaN). An entry's
    // shift reads entries of lower powers only, and the orders a level
    // holds include every lower power of theirs: each entry is the same
    // sum whatever the level.
    void centralOf(const std::vector<DoubleDouble>& raw, const DoubleDouble* centre, int level, std::vector<DoubleDouble>& mu) {
        if (centralOfFinite(raw, centre, level, mu)) return;
        DoubleDouble minusCentre[3];
        for (int a = 0; a < dims_; ++a) minusCentre[a] = DoubleDouble(-centre[a].hi, -centre[a].lo);
        static const double binomial[4][4] = {{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 2, 1, 0}, {1, 3, 3, 1}};
        const int n = cubeSize();
        int entries[64];
        int count = 0;
        // Every sum of the level and the centre finite, as a region's moments
        // always are (a floating-point intensity's weighted sums may not be):
        // no NaN to carry, 0 + t is t and t times the power 1 is t (every
        // pair here is normalized), so those steps are skipped.
        bool finite = true;
        for (int idx = 0; idx < n; ++idx) {
            if (!inLevel(idx, level)) continue;
            const double hi = raw[std::size_t(idx)].hi;
            finite = finite && std::isfinite(hi);
            if (!std::isnan(hi)) entries[count++] = idx;
        }
        for (int a = 0; a < dims_; ++a) finite = finite && std::isfinite(minusCentre[a].hi);
        DoubleDouble* from = shiftBuffers_[0].data();
        DoubleDouble* to = shiftBuffers_[1].data();
        if (!finite)
            for (int idx = 0; idx < n; ++idx) from[idx] = to[idx] = DoubleDouble(std::nan(""));
        for (int i = 0; i < count; ++i) from[entries[i]] = raw[std::size_t(entries[i])];
        for (int a = 0; a < dims_; ++a) {
            DoubleDouble power[4] = {DoubleDouble(1.0), minusCentre[a], minusCentre[a] * minusCentre[a], DoubleDouble()};
            if (level >= 3) power[3] = power[2] * minusCentre[a];  // a power past 2 is of order 3 and up
            const int shift = 2 * (dims_ - 1 - a);  // entries of axis a 4^(dims - 1 - a) apart
            const int stride = 1 << shift;
            for (int i = 0; i < count; ++i) {
                const int idx = entries[i];
                DoubleDouble& out = to[idx];
                if (!finite && std::isnan(from[idx].hi)) {
                    out = DoubleDouble(std::nan(""));
                    continue;
                }
                const int pa = (idx >> shift) & 3;
                const int base = idx - pa * stride;
                DoubleDouble sum;
                bool known = true;
                for (int k = 0; k <= pa; ++k) {
                    const DoubleDouble& m = from[base + k * stride];
                    if (!finite && std::isnan(m.hi)) { known = false; break; }
                    const DoubleDouble term = finite && k == pa ? m : m * power[pa - k];
                    // The product by a binomial of 1 or 2 is exact on a
                    // product's normalized pair: the same pair, or both
                    // halves doubled, without the multiplication.
                    const double times = binomial[pa][k];
                    if (finite && k == 0) sum = term;
                    else if (times == 1.0) sum += term;
                    else if (times == 2.0) sum += DoubleDouble(2.0 * term.hi, 2.0 * term.lo);
                    else sum += term * DoubleDouble(times);
                }
                out = known ? sum : DoubleDouble(std::nan(""));
            }
            std::swap(from, to);
        }
        mu.assign(std::size_t(n), DoubleDouble(std::nan("")));
        for (int i = 0; i < count; ++i) mu[std::size_t(entries[i])] = from[entries[i]];
    }

    // The entries of a level's orders (ascending), and for each axis those
    // of a power past 0 along it, the highest powers first.
    struct LevelEntries {
        bool made = false;
        std::vector<int> entries;
        std::array<std::vector<int>, 3> shifted;
    };
    const LevelEntries& levelEntries(int level) {
        LevelEntries& list = levelEntries_[std::size_t(level)];
        if (list.made) return list;
        for (int idx = 0; idx < cubeSize(); ++idx)
            if (inLevel(idx, level)) list.entries.push_back(idx);
        for (int a = 0; a < dims_; ++a) {
            const int shift = 2 * (dims_ - 1 - a);
            for (int pa = 3; pa >= 1; --pa)
                for (int idx : list.entries)
                    if (((idx >> shift) & 3) == pa) list.shifted[std::size_t(a)].push_back(idx);
        }
        list.made = true;
        return list;
    }

    // centralOf where every entry of the level and the centre are finite,
    // as a region's moments always are: the same operations on each entry in
    // the same order, with no NaN to look for, each axis's shift made in
    // place in mu from the highest powers down (an entry's shift reads its
    // lower powers along the axis only). Entries past the level stay NaN
    // from mu's first sizing on (the level only grows). False, mu
    // untouched, where an entry or the centre is not finite.
    bool centralOfFinite(const std::vector<DoubleDouble>& raw, const DoubleDouble* centre, int level,
                         std::vector<DoubleDouble>& mu) {
        const LevelEntries& list = levelEntries(level);
        for (int idx : list.entries)
            if (!std::isfinite(raw[std::size_t(idx)].hi)) return false;
        for (int a = 0; a < dims_; ++a)
            if (!std::isfinite(centre[a].hi)) return false;
        if (mu.size() != std::size_t(cubeSize())) mu.assign(std::size_t(cubeSize()), DoubleDouble(std::nan("")));
        DoubleDouble* m = mu.data();
        for (int idx : list.entries) m[idx] = raw[std::size_t(idx)];
        for (int a = 0; a < dims_; ++a) {
            const DoubleDouble minusCentre(-centre[a].hi, -centre[a].lo);
            DoubleDouble power[4] = {DoubleDouble(1.0), minusCentre, minusCentre * minusCentre, DoubleDouble()};
            if (level >= 3) power[3] = power[2] * minusCentre;
            const int shift = 2 * (dims_ - 1 - a);
            const int stride = 1 << shift;
            for (int idx : list.shifted[std::size_t(a)]) {
                const int pa = (idx >> shift) & 3;
                const DoubleDouble* e = m + (idx - pa * stride);  // powers 0..pa along the axis
                DoubleDouble sum = e[0] * power[pa];
                if (pa == 1) {
                    sum += e[stride];
                } else if (pa == 2) {
                    const DoubleDouble twice = e[stride] * power[1];
                    sum += DoubleDouble(2.0 * twice.hi, 2.0 * twice.lo);
                    sum += e[2 * stride];
                } else {
                    sum += (e[stride] * power[2]) * DoubleDouble(3.0);
                    sum += (e[2 * stride] * power[1]) * DoubleDouble(3.0);
                    sum += e[3 * stride];
                }
                m[idx] = sum;
            }
        }
        return true;
    }

    static void symmetricEigenvalues(const std::vector<double>& tensor, int n, std::vector<double>& values) {
        values.resize(static_cast<std::size_t>(n));
        if (n == 2) {
            const double a = tensor[0], b = tensor[1], c = tensor[3];
            const double mean = 0.5 * (a + c);
            const double radius = std::hypot(0.5 * (a - c), b);
            values[0] = mean + radius;
            values[1] = mean - radius;
        } else {
            double m[9];
            std::copy(tensor.begin(), tensor.end(), m);
            // Cyclic Jacobi rotations until the off-diagonal vanishes.
            for (int sweep = 0; sweep < 100; ++sweep) {
                double off = 0.0;
                for (int i = 0; i < n; ++i)
                    for (int j = i + 1; j < n; ++j) off += m[std::size_t(i * n + j)] * m[std::size_t(i * n + j)];
                if (off == 0.0) break;
                for (int p = 0; p < n; ++p)
                    for (int q = p + 1; q < n; ++q) {
                        const double apq = m[std::size_t(p * n + q)];
                        if (apq == 0.0) continue;
                        const double app = m[std::size_t(p * n + p)], aqq = m[std::size_t(q * n + q)];
                        const double theta = (aqq - app) / (2.0 * apq);
                        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
                        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
                        for (int k = 0; k < n; ++k) {
                            const double akp = m[std::size_t(k * n + p)], akq = m[std::size_t(k * n + q)];
                            m[std::size_t(k * n + p)] = c * akp - s * akq;
                            m[std::size_t(k * n + q)] = s * akp + c * akq;
                        }
                        for (int k = 0; k < n; ++k) {
                            const double apk = m[std::size_t(p * n + k)], aqk = m[std::size_t(q * n + k)];
                            m[std::size_t(p * n + k)] = c * apk - s * aqk;
                            m[std::size_t(q * n + k)] = s * apk + c * aqk;
                        }
                    }
            }
            for (int i = 0; i < n; ++i) values[std::size_t(i)] = m[std::size_t(i * n + i)];
        }
        for (double& v : values) v = std::max(v, 0.0);
        std::sort(values.begin(), values.end(), std::greater<double>());
    }

    const RegionTotals& t_;
    const std::vector<double>& spacing_;
    int dims_;
    MomentOrders needed_;  // the highest orders asked for so far
    // centralOf's two cubes, kept from region to region: an array of
    // DoubleDouble on its stack would be zeroed at every call.
    std::array<std::array<DoubleDouble, 64>, 2> shiftBuffers_;
    std::size_t row_ = 0;
    std::vector<std::array<int, 3>> momentExponents_, weightedExponents_;
    std::vector<int> momentPlaces_, weightedPlaces_;  // placesOf each
    bool unitSpacing_ = true;
    std::array<int, 64> order_{};  // the order of each cube entry (its powers' sum)
    std::array<LevelEntries, 5> levelEntries_;  // by level, made on first use
    // What finalizers share, computed on first use for the selected region
    // (the orders held, 0 for none yet).
    std::vector<DoubleDouble> moments_, central_;
    int momentsLevel_ = 0, centralLevel_ = 0;
    DoubleDouble centre_[3];
    bool haveCentre_ = false;
    std::vector<double> tensor_, eigen_;
    bool haveTensor_ = false, haveEigen_ = false;
    std::vector<std::vector<DoubleDouble>> weighted_, weightedCentral_;
    std::vector<int> weightedLevel_, weightedCentralLevel_;
};

namespace {

constexpr double kPi = 3.141592653589793238462643383279502884;

// Normalized central moments (scikit-image's moments_normalized): NaN below
// order 2, mu / min(spacing)^order / mu0^(order / dims + 1) above.
std::vector<double> normalizedOf(const std::vector<DoubleDouble>& mu, int dims, double scale) {
    std::vector<double> nu(mu.size(), std::nan(""));
    const double mu0 = mu[0].value();
    for (std::size_t idx = 0; idx < mu.size(); ++idx) {
        int order = 0;
        for (std::size_t rest = idx, a = 0; a < std::size_t(dims); ++a, rest /= 4) order += int(rest % 4);
        if (order < 2) continue;
        nu[idx] = (mu[idx].value() / std::pow(scale, order)) / std::pow(mu0, double(order) / dims + 1.0);
    }
    return nu;
}

// Hu's seven invariants of 2-D normalized moments nu[i * 4 + j] (i the row power).
std::array<double, 7> huOf(const std::vector<double>& nu) {
    const double n20 = nu[8], n02 = nu[2], n11 = nu[5], n30 = nu[12], n03 = nu[3], n21 = nu[9], n12 = nu[6];
    const double a = n30 + n12, b = n21 + n03;
    const double c = n30 - 3 * n12, d = 3 * n21 - n03;
    std::array<double, 7> h{};
    h[0] = n20 + n02;
    h[1] = (n20 - n02) * (n20 - n02) + 4 * n11 * n11;
    h[2] = c * c + d * d;
    h[3] = a * a + b * b;
    h[4] = c * a * (a * a - 3 * b * b) + d * b * (3 * a * a - b * b);
    h[5] = (n20 - n02) * (a * a - b * b) + 4 * n11 * a * b;
    h[6] = d * a * (a * a - 3 * b * b) - c * b * (3 * a * a - b * b);
    return h;
}

// The length of the major (minor) axis of the ellipse (ellipsoid) with the
// region's second moments.
double axisLength(RegionMeasure& r, bool major) {
    const auto& e = r.eigenvalues();
    if (r.dims() == 2) return 4 * std::sqrt(major ? e[0] : e[1]);
    if (!major) return std::sqrt(20 * r.leastVariance());
    return std::sqrt(std::max(0.0, 10 * (e[0] + e[1] - e[2])));
}

// The centroid of centre c (RegionMeasure::centreOf) along each axis, in the
// box's coordinates or (global) the image's.
void centroidOf(const RegionMeasure& r, const DoubleDouble* c, bool global, std::vector<double>& out) {
    for (int a = 0; a < r.dims(); ++a) out.push_back(c[a].value() + (global ? double(r.boxMin(a)) * r.spacing(a) : 0.0));
}
// The same of the weighted moments of channel ch.
void weightedCentroidOf(RegionMeasure& r, int ch, bool global, std::vector<double>& out) {
    DoubleDouble c[3];
    r.centreOf(r.weighted(ch, 1), c);
    centroidOf(r, c, global, out);
}

double minSpacing(const RegionMeasure& r) {
    double s = r.spacing(0);
    for (int a = 1; a < r.dims(); ++a) s = std::min(s, r.spacing(a));
    return s;
}

// Intensity helpers, channel c.
std::size_t at(const RegionMeasure& r, int c) { return r.row() * std::size_t(r.channels()) + std::size_t(c); }
bool floatIntensity(const RegionMeasure& r) { return r.totals().request.intensityKind == SampleKind::Float; }
DoubleDouble intensitySum(const RegionMeasure& r, int c) {
    if (floatIntensity(r)) return r.totals().intensitySumFloat[at(r, c)];
    return pairOf(r.totals().intensitySum[at(r, c)]);
}
double intensityVariance(const RegionMeasure& r, int c) {
    const double n = double(r.count());
    if (floatIntensity(r)) {
        const DoubleDouble mean = r.totals().intensitySumFloat[at(r, c)] / DoubleDouble(n);
        const DoubleDouble v = r.totals().intensitySquaresFloat[at(r, c)] / DoubleDouble(n) - mean * mean;
        return std::max(v.value(), 0.0);
    }
    // (n * sum of squares - sum^2) / n^2, the numerator exactly.
    const Int256& s = r.totals().intensitySum[at(r, c)];
    const Int256 numerator = Int256::of(__int128(r.count())) * r.totals().intensitySquares[at(r, c)] - s * s;
    double hi, lo;
    numerator.toDoubleDouble(hi, lo);
    return (DoubleDouble(hi, lo) / (DoubleDouble(n) * DoubleDouble(n))).value();
}

// Shapes of values.
std::vector<int> scalarShape(const TermRequest&) { return {}; }
std::vector<int> axesShape(const TermRequest& q) { return {q.dimensions}; }
std::vector<int> boxShape(const TermRequest& q) { return {2 * q.dimensions}; }
std::vector<int> cubeShape(const TermRequest& q) { return std::vector<int>(std::size_t(q.dimensions), 4); }
std::vector<int> tensorShape(const TermRequest& q) { return {q.dimensions, q.dimensions}; }
std::vector<int> huShape(const TermRequest&) { return {7}; }
// Intensity properties gain a last index, the channel, where the intensity has a channel axis.
// Several channels always have one (their values would not fit a column).
std::vector<int> withChannel(std::vector<int> shape, const TermRequest& q) {
    if (q.intensityChannelAxis || q.channels > 1) shape.push_back(q.channels);
    return shape;
}
std::vector<int> channelShape(const TermRequest& q) { return withChannel({}, q); }
std::vector<int> channelAxesShape(const TermRequest& q) { return withChannel({q.dimensions}, q); }
std::vector<int> channelCubeShape(const TermRequest& q) { return withChannel(cubeShape(q), q); }
std::vector<int> channelHuShape(const TermRequest& q) { return withChannel({7}, q); }

// Values of a per-channel property: values(c) for each channel, laid out
// with the channel index last.
// A per-channel property of one value per channel.
template <class PerChannel>
void perChannelValue(RegionMeasure& r, std::vector<double>& out, PerChannel value) {
    for (int c = 0; c < r.channels(); ++c) out.push_back(value(c));
}

template <class PerChannel>
void perChannel(RegionMeasure& r, std::vector<double>& out, PerChannel values) {
    const int channels = r.channels();
    std::vector<std::vector<double>> all;
    for (int c = 0; c < channels; ++c) all.push_back(values(c));
    for (std::size_t i = 0; i < all[0].size(); ++i)
        for (int c = 0; c < channels; ++c) out.push_back(all[std::size_t(c)][i]);
}

// Term requests.
void needCounts(TermRequest&) {}
void needMoments(TermRequest& q, int level) { q.momentLevel = std::max(q.momentLevel, level); }
void needWeighted(TermRequest& q, int level) { q.weightedMomentLevel = std::max(q.weightedMomentLevel, level); }
void needPositions(TermRequest& q) { q.intensityExtrema = q.intensityPositions = true; }

using D = PropertyDeclaration;
const std::vector<PropertyDeclaration> kDeclarations = {
    // label: written by finalizeProperties from the totals' labels (uint64).
    D{"label", true, true, false, true, needCounts, scalarShape, [](RegionMeasure&, std::vector<double>&, std::vector<std::int64_t>&) {}},
    D{"num_pixels", true, true, false, true, needCounts, scalarShape,
      [](RegionMeasure& r, std::vector<double>&, std::vector<std::int64_t>& i) { i.push_back(std::int64_t(r.count())); }},
    D{"area", true, true, false, false, needCounts, scalarShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) { v.push_back(double(r.count()) * r.pixelArea()); }},
    D{"bbox", true, true, false, true, needCounts, boxShape,
      [](RegionMeasure& r, std::vector<double>&, std::vector<std::int64_t>& i) {
          for (int a = 0; a < r.dims(); ++a) i.push_back(r.boxMin(a));
          for (int a = 0; a < r.dims(); ++a) i.push_back(r.boxMax(a) + 1);
      }},
    D{"area_bbox", true, true, false, false, needCounts, scalarShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) { v.push_back(double(r.boxElements()) * r.pixelArea()); }},
    D{"extent", true, true, false, false, needCounts, scalarShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          v.push_back((double(r.count()) * r.pixelArea()) / (double(r.boxElements()) * r.pixelArea()));
      }},
    D{"equivalent_diameter_area", true, true, false, false, needCounts, scalarShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          v.push_back(std::pow(2.0 * r.dims() * double(r.count()) * r.pixelArea() / kPi, 1.0 / r.dims()));
      }},
    D{"centroid", true, true, false, false, [](TermRequest& q) { needMoments(q, 1); }, axesShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) { centroidOf(r, r.centre(), true, v); }},
    D{"centroid_local", true, true, false, false, [](TermRequest& q) { needMoments(q, 1); }, axesShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) { centroidOf(r, r.centre(), false, v); }},
    D{"moments", true, true, false, false, [](TermRequest& q) { needMoments(q, 4); }, cubeShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          for (const auto& m : r.moments()) v.push_back(m.value());
      }},
    D{"moments_central", true, true, false, false, [](TermRequest& q) { needMoments(q, 4); }, cubeShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          for (const auto& m : r.central()) v.push_back(m.value());
      }},
    D{"moments_normalized", true, true, false, false, [](TermRequest& q) { needMoments(q, 4); }, cubeShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          for (double x : normalizedOf(r.central(), r.dims(), minSpacing(r))) v.push_back(x);
      }},
    D{"moments_hu", true, false, false, false, [](TermRequest& q) { needMoments(q, 3); }, huShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          for (double x : huOf(normalizedOf(r.central(3), 2, 1.0))) v.push_back(x);
      }},
    D{"inertia_tensor", true, true, false, false, [](TermRequest& q) { needMoments(q, 2); }, tensorShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          for (double x : r.inertiaTensor()) v.push_back(x);
      }},
    D{"inertia_tensor_eigvals", true, true, false, false, [](TermRequest& q) { needMoments(q, 2); }, axesShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          for (double x : r.eigenvalues()) v.push_back(x);
      }},
    D{"orientation", true, false, false, false, [](TermRequest& q) { needMoments(q, 2); }, scalarShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          const auto& t = r.inertiaTensor();
          const double a = t[0], b = t[1], c = t[3];
          // The limit of 0.5 * atan2(-2b, c - a) as c - a reaches 0.
          if (a - c == 0) v.push_back(b < 0 ? kPi / 4.0 : -kPi / 4.0);
          else v.push_back(0.5 * std::atan2(-2 * b, c - a));
      }},
    D{"axis_major_length", true, true, false, false, [](TermRequest& q) { needMoments(q, 2); }, scalarShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) { v.push_back(axisLength(r, true)); }},
    D{"axis_minor_length", true, true, false, false, [](TermRequest& q) { needMoments(q, 2); }, scalarShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) { v.push_back(axisLength(r, false)); }},
    D{"axis_ratio", true, true, false, false, [](TermRequest& q) { needMoments(q, 2); }, scalarShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          const double major = axisLength(r, true);
          v.push_back(major == 0 ? 0.0 : axisLength(r, false) / major);
      }},
    D{"eccentricity", true, false, false, false, [](TermRequest& q) { needMoments(q, 2); }, scalarShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          const auto& e = r.eigenvalues();
          v.push_back(e[0] == 0 ? 0.0 : std::sqrt(1 - e[1] / e[0]));
      }},
    D{"perimeter", true, false, false, false, [](TermRequest& q) { q.perimeter = true; }, scalarShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          const auto* k = &r.totals().perimeterClasses[r.row() * 3];
          const double sqrt2 = std::sqrt(2.0);
          v.push_back((double(k[0]) + sqrt2 * double(k[1]) + (1 + sqrt2) / 2 * double(k[2])) * r.spacing(0));
      }},
    D{"perimeter_crofton", true, false, false, false, [](TermRequest& q) { q.crofton = true; }, scalarShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          const auto* k = &r.totals().croftonClasses[r.row() * 5];
          const double sqrt2 = std::sqrt(2.0);
          const double coefficient[5] = {kPi / 4 * (1 + 1 / sqrt2), kPi / (4 * sqrt2), kPi / (2 * sqrt2), kPi / 4, kPi / 2};
          double p = 0.0;
          for (int i = 0; i < 5; ++i) p += coefficient[i] * double(k[i]);
          v.push_back(p * r.spacing(0));
      }},
    D{"euler_number", true, true, false, true, [](TermRequest& q) { q.euler = true; }, scalarShape,
      [](RegionMeasure& r, std::vector<double>&, std::vector<std::int64_t>& i) {
          i.push_back(r.totals().eulerTimes[r.row()] / (r.dims() == 3 ? 8 : 4));
      }},
    // Intensity.
    D{"intensity_mean", true, true, true, false, [](TermRequest& q) { q.intensitySums = true; }, channelShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          perChannelValue(r, v, [&](int c) { return quotientOf(intensitySum(r, c), DoubleDouble(double(r.count()))).value(); });
      }},
    D{"intensity_sum", true, true, true, false, [](TermRequest& q) { q.intensitySums = true; }, channelShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          perChannelValue(r, v, [&](int c) { return intensitySum(r, c).value(); });
      }},
    D{"intensity_variance", true, true, true, false, [](TermRequest& q) { q.intensitySums = true; }, channelShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          perChannelValue(r, v, [&](int c) { return intensityVariance(r, c); });
      }},
    D{"intensity_std", true, true, true, false, [](TermRequest& q) { q.intensitySums = true; }, channelShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          perChannelValue(r, v, [&](int c) { return std::sqrt(intensityVariance(r, c)); });
      }},
    D{"intensity_min", true, true, true, false, [](TermRequest& q) { q.intensityExtrema = true; }, channelShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          perChannelValue(r, v, [&](int c) { return r.totals().intensityMin[at(r, c)]; });
      }},
    D{"intensity_max", true, true, true, false, [](TermRequest& q) { q.intensityExtrema = true; }, channelShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          perChannelValue(r, v, [&](int c) { return r.totals().intensityMax[at(r, c)]; });
      }},
    D{"intensity_min_position", true, true, true, true, needPositions, channelAxesShape, nullptr},
    D{"intensity_max_position", true, true, true, true, needPositions, channelAxesShape, nullptr},
    D{"centroid_weighted_local", true, true, true, false, [](TermRequest& q) { needWeighted(q, 1); }, channelAxesShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          perChannel(r, v, [&](int c) {
              std::vector<double> out;
              weightedCentroidOf(r, c, false, out);
              return out;
          });
      }},
    D{"centroid_weighted", true, true, true, false, [](TermRequest& q) { needWeighted(q, 1); }, channelAxesShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          perChannel(r, v, [&](int c) {
              std::vector<double> out;
              weightedCentroidOf(r, c, true, out);
              return out;
          });
      }},
    D{"moments_weighted", true, true, true, false, [](TermRequest& q) { needWeighted(q, 4); }, channelCubeShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          perChannel(r, v, [&](int c) {
              std::vector<double> out;
              for (const auto& m : r.weighted(c)) out.push_back(m.value());
              return out;
          });
      }},
    D{"moments_weighted_central", true, true, true, false, [](TermRequest& q) { needWeighted(q, 4); }, channelCubeShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          perChannel(r, v, [&](int c) {
              std::vector<double> out;
              for (const auto& m : r.weightedCentral(c)) out.push_back(m.value());
              return out;
          });
      }},
    D{"moments_weighted_normalized", true, true, true, false, [](TermRequest& q) { needWeighted(q, 4); }, channelCubeShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          perChannel(r, v, [&](int c) { return normalizedOf(r.weightedCentral(c), r.dims(), minSpacing(r)); });
      }},
    D{"moments_weighted_hu", true, false, true, false, [](TermRequest& q) { needWeighted(q, 3); }, channelHuShape,
      [](RegionMeasure& r, std::vector<double>& v, std::vector<std::int64_t>&) {
          perChannel(r, v, [&](int c) {
              const auto h = huOf(normalizedOf(r.weightedCentral(c, 3), 2, 1.0));
              return std::vector<double>(h.begin(), h.end());
          });
      }},
};

// Positions of the extrema: numpy indices of the first element (raster
// order) holding the value, channel last.
void extremumPosition(RegionMeasure& r, std::vector<std::int64_t>& out, bool maximum, const std::vector<std::int64_t>& extents) {
    const int channels = r.channels();
    std::vector<std::vector<std::int64_t>> all;
    for (int c = 0; c < channels; ++c) {
        std::uint64_t flat = (maximum ? r.totals().intensityMaxAt : r.totals().intensityMinAt)[at(r, c)];
        std::vector<std::int64_t> index(std::size_t(r.dims()));
        for (int a = r.dims() - 1; a >= 0; --a) {
            const auto e = std::uint64_t(extents[std::size_t(a)]);
            index[std::size_t(a)] = std::int64_t(flat % e);
            flat /= e;
        }
        all.push_back(index);
    }
    for (int a = 0; a < r.dims(); ++a)
        for (int c = 0; c < channels; ++c) out.push_back(all[std::size_t(c)][std::size_t(a)]);
}

std::string columnName(const std::string& name, const std::vector<int>& index, const std::string& separator) {
    std::string s = name;
    for (int i : index) s += separator + std::to_string(i);
    return s;
}

}  // namespace

const std::vector<PropertyDeclaration>& propertyDeclarations() { return kDeclarations; }

const PropertyDeclaration* findProperty(const std::string& name) {
    for (const auto& d : kDeclarations)
        if (name == d.name) return &d;
    return nullptr;
}

bool isTermProperty(const std::string& name) { return findProperty(name) != nullptr; }

TermRequest termsFor(const std::vector<std::string>& properties, int dimensions, int channels, SampleKind intensityKind,
                     int intensityBits) {
    if (dimensions != 2 && dimensions != 3)
        throw Error("glccl::termsFor(): regions are measured in 2-D and 3-D, not in " + std::to_string(dimensions) + "-D");
    TermRequest q;
    q.dimensions = dimensions;
    q.channels = channels;
    q.intensityKind = intensityKind;
    q.intensityBits = intensityBits;
    for (const auto& name : properties) {
        const PropertyDeclaration* d = findProperty(name);
        if (!d) {
            std::string known;
            for (const auto& k : kDeclarations) known += (known.empty() ? "" : ", ") + std::string(k.name);
            throw Error("glccl::termsFor(): unknown property '" + name + "' (properties: " + known + ")");
        }
        if ((dimensions == 2 && !d->in2d) || (dimensions == 3 && !d->in3d))
            throw Error("glccl::termsFor(): property '" + name + "' is defined for 2-D images only");
        if (d->needsIntensity && channels == 0)
            throw Error("glccl::termsFor(): property '" + name + "' needs an intensity image");
        d->addTerms(q);
    }
    return q;
}

const PropertyColumn* PropertyTable::find(const std::string& name) const {
    for (const auto& c : columns)
        if (c.name == name) return &c;
    return nullptr;
}

namespace {

// Throws unless `totals` holds what property `name`'s finalizer reads: the
// terms it needs in its request, and arrays of the sizes the request gives.
void checkTermsFor(const std::string& name, const PropertyDeclaration& d, const RegionTotals& totals) {
    const TermRequest& q = totals.request;
    TermRequest need;
    need.dimensions = q.dimensions;
    need.channels = q.channels;
    d.addTerms(need);
    // Levels 1 to 3 are the tuples of total order up to the level, 4 every
    // tuple of exponents up to 3: each holds the ones below it.
    const bool held = need.momentLevel <= q.momentLevel && need.weightedMomentLevel <= q.weightedMomentLevel &&
                      (!need.perimeter || q.perimeter) && (!need.crofton || q.crofton) && (!need.euler || q.euler) &&
                      (!need.intensitySums || q.intensitySums) && (!need.intensityExtrema || q.intensityExtrema) &&
                      (!need.intensityPositions || q.intensityPositions) && (!d.needsIntensity || q.channels > 0);
    if (!held)
        throw Error("glccl::finalizeProperties(): the totals hold no terms of '" + name +
                    "': gather them with a request that names it (termsFor)");
}

void checkTotalSizes(const RegionTotals& t) {
    const TermRequest& q = t.request;
    const std::size_t n = t.regions, channels = std::size_t(std::max(q.channels, 0));
    const bool floats = q.intensityKind == SampleKind::Float;
    const std::size_t moments = q.momentLevel > 0 ? TermRequest::exponents(q.momentLevel, q.dimensions).size() : 0;
    const std::size_t weighted = q.weightedMomentLevel > 0 ? TermRequest::exponents(q.weightedMomentLevel, q.dimensions).size() : 0;
    auto sized = [&](std::size_t size, bool asked, std::size_t width) { return !asked || size == n * width; };
    const bool ok = t.labels.size() == n && t.counts.size() == n && t.boxMin.size() == n && t.boxMax.size() == n &&
                    sized(t.moments.size(), moments > 0, moments) && sized(t.perimeterClasses.size(), q.perimeter, 3) &&
                    sized(t.croftonClasses.size(), q.crofton, 5) && sized(t.eulerTimes.size(), q.euler, 1) &&
                    sized(floats ? t.intensitySumFloat.size() : t.intensitySum.size(), q.intensitySums, channels) &&
                    sized(floats ? t.intensitySquaresFloat.size() : t.intensitySquares.size(), q.intensitySums, channels) &&
                    sized(t.intensityMin.size(), q.intensityExtrema, channels) &&
                    sized(t.intensityMax.size(), q.intensityExtrema, channels) &&
                    sized(t.intensityMinBits.size(), q.intensityExtrema, channels) &&
                    sized(t.intensityMaxBits.size(), q.intensityExtrema, channels) &&
                    sized(t.intensityMinAt.size(), q.intensityExtrema && q.intensityPositions, channels) &&
                    sized(t.intensityMaxAt.size(), q.intensityExtrema && q.intensityPositions, channels) &&
                    sized(floats ? t.weightedMomentsFloat.size() : t.weightedMoments.size(), weighted > 0, channels * weighted);
    if (!ok)
        throw Error("glccl::finalizeProperties(): the totals' arrays do not have the sizes their request and " +
                    std::to_string(n) + " regions give");
}

}  // namespace

PropertyTable finalizeProperties(const RegionTotals& totals, const PropertyOptions& options, int threads) {
    const TermRequest& q = totals.request;
    const int dims = q.dimensions;
    if (dims != 2 && dims != 3) throw Error("glccl::finalizeProperties(): totals of a " + std::to_string(dims) + "-D image");
    checkTotalSizes(totals);
    std::vector<double> spacing = options.spacing;
    if (spacing.empty()) spacing.assign(std::size_t(dims), 1.0);
    if (int(spacing.size()) != dims)
        throw Error("glccl::finalizeProperties(): spacing has " + std::to_string(spacing.size()) + " entries for a " +
                    std::to_string(dims) + "-D image");
    for (double s : spacing)
        if (!(s > 0) || !std::isfinite(s))
            throw Error("glccl::finalizeProperties(): every spacing must be positive and finite");
    const bool unit = std::all_of(spacing.begin(), spacing.end(), [](double s) { return s == 1.0; });
    const bool isotropic = std::all_of(spacing.begin(), spacing.end(), [&](double s) { return s == spacing[0]; });

    // Every property's columns first, then one pass over the regions, so
    // that what finalizers share (central moments, the inertia tensor) is
    // computed once per region.
    PropertyTable table;
    table.rows = totals.regions;
    struct Placed {
        const PropertyDeclaration* declaration;
        std::size_t first, width;
        bool label, position, maximum;
    };
    std::vector<Placed> placed;
    for (const auto& name : options.properties) {
        const PropertyDeclaration* d = findProperty(name);
        if (!d) throw Error("glccl::finalizeProperties(): unknown property '" + name + "'");
        if ((dims == 2 && !d->in2d) || (dims == 3 && !d->in3d))
            throw Error("glccl::finalizeProperties(): property '" + name + "' is defined for 2-D images only");
        checkTermsFor(name, *d, totals);
        if ((name == "moments_hu" || name == "moments_weighted_hu") && !unit)
            throw Error("glccl::finalizeProperties(): '" + name + "' is defined for a spacing of 1 only");
        if ((name == "perimeter" || name == "perimeter_crofton") && !isotropic)
            throw Error("glccl::finalizeProperties(): '" + name + "' is defined for an isotropic spacing only");
        const std::vector<int> shape = d->shape(q);
        std::size_t width = 1;
        for (int e : shape) width *= std::size_t(e);
        const bool label = name == "label";
        placed.push_back({d, table.columns.size(), width, label, d->finalize == nullptr, name == "intensity_max_position"});
        std::vector<int> index(shape.size(), 0);
        for (std::size_t k = 0; k < width; ++k) {
            PropertyColumn column;
            column.name = columnName(name, index, options.separator);
            column.type = label ? PropertyColumn::Type::UInt64 : d->integer ? PropertyColumn::Type::Int64 : PropertyColumn::Type::Float64;
            if (label) column.uints = totals.labels;
            table.columns.push_back(std::move(column));
            for (int a = int(shape.size()) - 1; a >= 0; --a) {
                if (++index[std::size_t(a)] < shape[std::size_t(a)]) break;
                index[std::size_t(a)] = 0;
            }
        }
    }
    // The columns sized (zero-filled) by the threads at once, whole columns
    // each: the fill is the first write of every fresh page, which one
    // thread would otherwise do alone for all of them. Columns of a few
    // MiB in all are sized on the calling thread (waking threads costs
    // more than their pages); larger ones a quarter of a MiB a thread, so
    // that as many threads as there are take the pages' faults at once.
    std::vector<PropertyColumn*> sized;
    for (const Placed& p : placed)
        for (std::size_t k = 0; k < p.width && !p.label; ++k) sized.push_back(&table.columns[p.first + k]);
    constexpr std::size_t kSizedBytesAlone = std::size_t(2) << 20, kSizedBytesPerThread = std::size_t(256) << 10;
    const std::size_t columnBytes = std::max<std::size_t>(totals.regions * sizeof(double), 1);
    const std::size_t columnsPerThread = sized.size() * columnBytes < kSizedBytesAlone
                                             ? std::max<std::size_t>(sized.size(), 1)
                                             : std::max<std::size_t>(1, kSizedBytesPerThread / columnBytes);
    forRanges(sized.size(), columnsPerThread, threads, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) {
            PropertyColumn& c = *sized[i];
            if (c.type == PropertyColumn::Type::Int64) c.ints.resize(totals.regions);
            else c.reals.resize(totals.regions);
        }
    });
    // Rows first..last: each region's values depend on its own totals only,
    // so rows split among threads give the same table at every thread count.
    // The columns in the order a row's values come (every finalizer adds
    // its property's width of values), reals and integers apart.
    std::vector<double*> realColumns;
    std::vector<std::int64_t*> intColumns;
    for (const Placed& p : placed)
        for (std::size_t k = 0; k < p.width && !p.label; ++k) {
            PropertyColumn& c = table.columns[p.first + k];
            if (p.declaration->integer) intColumns.push_back(c.ints.data());
            else realColumns.push_back(c.reals.data());
        }
    // A block of rows' values at a time, row after row, then copied into
    // the columns a column at a time: a row's values go to as many columns,
    // each of them a run of the block's rows long.
    constexpr std::size_t kBlockRows = 32;
    auto finalizeRows = [&](std::size_t first, std::size_t last) {
        RegionMeasure region(totals, spacing);
        std::vector<double> reals;
        std::vector<std::int64_t> ints;
        for (std::size_t block = first; block < last; block += kBlockRows) {
            const std::size_t rows = std::min(kBlockRows, last - block);
            reals.clear();
            ints.clear();
            for (std::size_t row = block; row < block + rows; ++row) {
                region.select(row);
                for (const Placed& p : placed) {
                    if (p.label) continue;
                    if (p.position) extremumPosition(region, ints, p.maximum, totals.imageExtents);
                    else p.declaration->finalize(region, reals, ints);
                }
            }
            const std::size_t realWidth = realColumns.size(), intWidth = intColumns.size();
            for (std::size_t k = 0; k < realWidth; ++k)
                for (std::size_t i = 0; i < rows; ++i) realColumns[k][block + i] = reals[i * realWidth + k];
            for (std::size_t k = 0; k < intWidth; ++k)
                for (std::size_t i = 0; i < rows; ++i) intColumns[k][block + i] = ints[i * intWidth + k];
        }
    };
    // A region's finalizers (central moments, eigenvalues) take far more
    // than a row's copy: a thread is handed fewer rows than a copy's, yet
    // enough work that handing them over costs a small part of it, and
    // few enough that a table of a few hundred regions is shared out too
    // (on one thread, finalizing them takes about as long as the threads
    // take to measure them).
    constexpr std::size_t kFinalizedRowsPerThread = 128;
    forRanges(totals.regions, kFinalizedRowsPerThread, threads, finalizeRows);
    return table;
}

}  // namespace glccl

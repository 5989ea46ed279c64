// Adding the totals of pieces of one image (glccl::mergeTotals): regions
// matched by label, sums of local coordinate powers re-centred exactly on
// the merged box.

#include <glccl/error.hpp>
#include <glccl/measure.hpp>

#include "measure_chunks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace glccl {
namespace {

// Sums of powers of coordinates relative to an old origin, re-centred on a
// new one d below it along each axis: sum (c + d)^e expanded binomially.
template <class T, class Scale>
void recentre(const std::vector<std::array<int, 3>>& exps, const T* sums, T* out, const std::array<std::int64_t, 3>& d,
              Scale scale) {
    static const int binomial[4][4] = {{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 2, 1, 0}, {1, 3, 3, 1}};
    int where[4][4][4];
    for (auto& a : where)
        for (auto& b : a)
            for (int& c : b) c = -1;
    for (std::size_t e = 0; e < exps.size(); ++e) where[exps[e][0]][exps[e][1]][exps[e][2]] = int(e);
    for (std::size_t e = 0; e < exps.size(); ++e) {
        const auto& ex = exps[e];
        T total{};
        for (int p = 0; p <= ex[0]; ++p)
            for (int q = 0; q <= ex[1]; ++q)
                for (int r = 0; r <= ex[2]; ++r) {
                    __int128 factor = __int128(binomial[ex[0]][p]) * binomial[ex[1]][q] * binomial[ex[2]][r];
                    for (int k = 0; k < ex[0] - p; ++k) factor *= d[0];
                    for (int k = 0; k < ex[1] - q; ++k) factor *= d[1];
                    for (int k = 0; k < ex[2] - r; ++k) factor *= d[2];
                    total += scale(sums[where[p][q][r]], factor);
                }
        out[e] = total;
    }
}

Int256 scaledInt(const Int256& v, __int128 f) { return v * Int256::of(f); }
DoubleDouble scaledDD(const DoubleDouble& v, __int128 f) { return v * cpu::measure::exactDD(f); }

// a < b in the minimum's order (a NaN below every number, as numpy's
// minimum finds it) and a > b in the maximum's (a NaN above every number).
bool sampleLess(SampleKind kind, double a, std::uint64_t aBits, double b, std::uint64_t bBits) {
    switch (kind) {
    case SampleKind::Float: return a < b || (std::isnan(a) && !std::isnan(b));
    case SampleKind::Signed: return std::int64_t(aBits) < std::int64_t(bBits);
    default: return aBits < bBits;
    }
}
bool sampleGreater(SampleKind kind, double a, std::uint64_t aBits, double b, std::uint64_t bBits) {
    if (kind == SampleKind::Float) return a > b || (std::isnan(a) && !std::isnan(b));
    return sampleLess(kind, b, bBits, a, aBits);
}

}  // namespace

void mergeTotals(RegionTotals& into, const RegionTotals& from) {
    const TermRequest& q = into.request;
    const TermRequest& f = from.request;
    if (q.dimensions != f.dimensions || q.momentLevel != f.momentLevel || q.weightedMomentLevel != f.weightedMomentLevel ||
        q.perimeter != f.perimeter || q.crofton != f.crofton || q.euler != f.euler || q.channels != f.channels ||
        q.intensityKind != f.intensityKind || q.intensitySums != f.intensitySums || q.intensityExtrema != f.intensityExtrema ||
        q.intensityPositions != f.intensityPositions ||
        into.imageExtents != from.imageExtents)
        throw Error("glccl::mergeTotals(): the totals were gathered for different requests or images");
    const auto momentExps = TermRequest::exponents(q.momentLevel, q.dimensions);
    const auto weightedExps = TermRequest::exponents(q.weightedMomentLevel, q.dimensions);
    const std::size_t nm = momentExps.size(), nw = weightedExps.size(), channels = std::size_t(q.channels);
    const bool floats = q.intensityKind == SampleKind::Float;

    RegionTotals out;
    out.request = q;
    out.imageExtents = into.imageExtents;
    std::size_t i = 0, j = 0;
    auto appendRegion = [&](const RegionTotals* a, std::size_t ia, const RegionTotals* b, std::size_t ib) {
        const std::uint64_t label = a ? a->labels[ia] : b->labels[ib];
        const std::uint64_t ca = a ? a->counts[ia] : 0, cb = b ? b->counts[ib] : 0;
        std::array<std::int64_t, 3> lo{std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::max(),
                                       std::numeric_limits<std::int64_t>::max()};
        std::array<std::int64_t, 3> hi{-1, -1, -1};
        for (int side = 0; side < 2; ++side) {
            const RegionTotals* t = side ? b : a;
            const std::size_t r = side ? ib : ia;
            if (!t || t->counts[r] == 0) continue;
            for (std::size_t k = 0; k < 3; ++k) {
                lo[k] = std::min(lo[k], t->boxMin[r][k]);
                hi[k] = std::max(hi[k], t->boxMax[r][k]);
            }
        }
        out.labels.push_back(label);
        out.counts.push_back(ca + cb);
        out.boxMin.push_back(lo);
        out.boxMax.push_back(hi);
        // Each side's sums re-centred on the merged box, then added (a first).
        auto shiftOf = [&](const RegionTotals* t, std::size_t r) {
            std::array<std::int64_t, 3> d{0, 0, 0};
            if (t->counts[r] > 0)
                for (std::size_t k = 0; k < 3; ++k) d[k] = t->boxMin[r][k] - lo[k];
            return d;
        };
        const std::size_t base = out.moments.size();
        out.moments.resize(base + nm);
        std::vector<Int256> shifted(std::max(nm, nw));
        std::vector<DoubleDouble> shiftedFloat(nw);
        for (int side = 0; side < 2; ++side) {
            const RegionTotals* t = side ? b : a;
            const std::size_t r = side ? ib : ia;
            if (!t) continue;
            const auto d = shiftOf(t, r);
            if (nm) {
                recentre(momentExps, &t->moments[r * nm], shifted.data(), d, scaledInt);
                for (std::size_t e = 0; e < nm; ++e) out.moments[base + e] += shifted[e];
            }
        }
        if (q.perimeter) {
            for (std::size_t k = 0; k < 3; ++k)
                out.perimeterClasses.push_back((a ? a->perimeterClasses[ia * 3 + k] : 0) + (b ? b->perimeterClasses[ib * 3 + k] : 0));
        }
        if (q.crofton) {
            for (std::size_t k = 0; k < 5; ++k)
                out.croftonClasses.push_back((a ? a->croftonClasses[ia * 5 + k] : 0) + (b ? b->croftonClasses[ib * 5 + k] : 0));
        }
        if (q.euler) out.eulerTimes.push_back((a ? a->eulerTimes[ia] : 0) + (b ? b->eulerTimes[ib] : 0));
        for (std::size_t c = 0; c < channels; ++c) {
            if (q.intensitySums) {
                if (floats) {
                    DoubleDouble sum, squares;
                    if (a) { sum += a->intensitySumFloat[ia * channels + c]; squares += a->intensitySquaresFloat[ia * channels + c]; }
                    if (b) { sum += b->intensitySumFloat[ib * channels + c]; squares += b->intensitySquaresFloat[ib * channels + c]; }
                    out.intensitySumFloat.push_back(sum);
                    out.intensitySquaresFloat.push_back(squares);
                } else {
                    Int256 sum, squares;
                    if (a) { sum += a->intensitySum[ia * channels + c]; squares += a->intensitySquares[ia * channels + c]; }
                    if (b) { sum += b->intensitySum[ib * channels + c]; squares += b->intensitySquares[ib * channels + c]; }
                    out.intensitySum.push_back(sum);
                    out.intensitySquares.push_back(squares);
                }
            }
            if (q.intensityExtrema) {
                // The smaller (larger) value; of equal ones, the first position
                // where positions are gathered (the first piece's otherwise).
                const bool positions = q.intensityPositions;
                const RegionTotals* minFrom = nullptr;
                const RegionTotals* maxFrom = nullptr;
                std::size_t minRow = 0, maxRow = 0;
                for (int side = 0; side < 2; ++side) {
                    const RegionTotals* t = side ? b : a;
                    const std::size_t r = side ? ib : ia;
                    if (!t || t->counts[r] == 0) continue;
                    const std::size_t k = r * channels + c;
                    if (!minFrom) { minFrom = maxFrom = t; minRow = maxRow = k; continue; }
                    const std::size_t m = minRow, x = maxRow;
                    const bool below = sampleLess(q.intensityKind, t->intensityMin[k], t->intensityMinBits[k], minFrom->intensityMin[m], minFrom->intensityMinBits[m]);
                    const bool above = sampleLess(q.intensityKind, minFrom->intensityMin[m], minFrom->intensityMinBits[m], t->intensityMin[k], t->intensityMinBits[k]);
                    if (below || (positions && !above && t->intensityMinAt[k] < minFrom->intensityMinAt[m])) { minFrom = t; minRow = k; }
                    const bool over = sampleGreater(q.intensityKind, t->intensityMax[k], t->intensityMaxBits[k], maxFrom->intensityMax[x], maxFrom->intensityMaxBits[x]);
                    const bool under = sampleGreater(q.intensityKind, maxFrom->intensityMax[x], maxFrom->intensityMaxBits[x], t->intensityMax[k], t->intensityMaxBits[k]);
                    if (over || (positions && !under && t->intensityMaxAt[k] < maxFrom->intensityMaxAt[x])) { maxFrom = t; maxRow = k; }
                }
                out.intensityMin.push_back(minFrom ? minFrom->intensityMin[minRow] : 0.0);
                out.intensityMinBits.push_back(minFrom ? minFrom->intensityMinBits[minRow] : 0);
                if (positions) out.intensityMinAt.push_back(minFrom ? minFrom->intensityMinAt[minRow] : 0);
                out.intensityMax.push_back(maxFrom ? maxFrom->intensityMax[maxRow] : 0.0);
                out.intensityMaxBits.push_back(maxFrom ? maxFrom->intensityMaxBits[maxRow] : 0);
                if (positions) out.intensityMaxAt.push_back(maxFrom ? maxFrom->intensityMaxAt[maxRow] : 0);
            }
            if (nw) {
                const std::size_t base = floats ? out.weightedMomentsFloat.size() : out.weightedMoments.size();
                if (floats) out.weightedMomentsFloat.resize(base + nw);
                else out.weightedMoments.resize(base + nw);
                for (int side = 0; side < 2; ++side) {
                    const RegionTotals* t = side ? b : a;
                    const std::size_t r = side ? ib : ia;
                    if (!t) continue;
                    const auto d = shiftOf(t, r);
                    const std::size_t k = (r * channels + c) * nw;
                    if (floats) {
                        recentre(weightedExps, &t->weightedMomentsFloat[k], shiftedFloat.data(), d, scaledDD);
                        for (std::size_t e = 0; e < nw; ++e) out.weightedMomentsFloat[base + e] += shiftedFloat[e];
                    } else {
                        recentre(weightedExps, &t->weightedMoments[k], shifted.data(), d, scaledInt);
                        for (std::size_t e = 0; e < nw; ++e) out.weightedMoments[base + e] += shifted[e];
                    }
                }
            }
        }
    };
    while (i < into.regions || j < from.regions) {
        if (j >= from.regions || (i < into.regions && into.labels[i] < from.labels[j])) appendRegion(&into, i++, nullptr, 0);
        else if (i >= into.regions || from.labels[j] < into.labels[i]) appendRegion(nullptr, 0, &from, j++);
        else {
            appendRegion(&into, i, &from, j);
            ++i;
            ++j;
        }
    }
    out.regions = out.labels.size();
    into = std::move(out);
}

}  // namespace glccl

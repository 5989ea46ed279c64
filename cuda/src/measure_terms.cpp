// glccl::cuda::gatherTerms: checks the request, lays out the records,
// uploads the boxes (and an intensity), runs the passes of measure_terms.cu
// the request needs and reads the records back into RegionTotals, sized as
// the cpu engine's accumulator sizes them.

#include "measure_terms.hpp"

#include <algorithm>
#include <cstring>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>

#include "device_memory.hpp"
#include "host_staging.hpp"
#include "row_ranges.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/measure.hpp"
#include "glccl/region_properties.hpp"

namespace glccl::cuda {
namespace measure {

namespace {

int bitLength(std::uint64_t v) {
    int bits = 0;
    for (; v; v >>= 1) ++bits;
    return bits;
}

RecordLayout layoutOf(const TermRequest& q, bool intensityTerms) {
    RecordLayout l;
    l.momentTerms = int(TermRequest::exponents(q.momentLevel, q.dimensions).size());
    l.weightedTerms = intensityTerms ? int(TermRequest::exponents(q.weightedMomentLevel, q.dimensions).size()) : 0;
    l.extrema = intensityTerms && q.intensityExtrema;
    int at = 0;
    l.momentsAt = at;
    at += l.momentTerms * kLimbs;
    l.perimeterAt = at;
    at += q.perimeter ? 3 : 0;
    l.croftonAt = at;
    at += q.crofton ? 5 : 0;
    l.eulerAt = at;
    at += q.euler ? 1 : 0;
    l.sumAt = at;
    at += intensityTerms && q.intensitySums ? kLimbs : 0;
    l.squaresAt = at;
    at += intensityTerms && q.intensitySums ? kLimbs : 0;
    l.extremaAt = at;
    at += l.extrema ? 2 : 0;
    l.positionsAt = at;
    at += l.extrema ? 2 : 0;
    l.weightedAt = at;
    at += l.weightedTerms * kLimbs;
    l.words = at;
    return l;
}

Exponents exponentsOf(int level, int dimensions) {
    Exponents out;
    for (const auto& e : TermRequest::exponents(level, dimensions)) {
        for (int a = 0; a < 3; ++a) out.e[out.count][a] = static_cast<unsigned char>(e[std::size_t(a)]);
        ++out.count;
    }
    return out;
}

void checkRequest(const CudaCheck& check, const Shape& shape, const TermRequest& q, const IntensitySamples* intensity) {
    if (shape.dimensions != 2 && shape.dimensions != 3) check.fail("regions are measured in 2-D and 3-D images");
    if (shape.dimensions == 2 && shape.depth != 1) check.fail("a 2-D shape has depth 1");
    for (int a = 0; a < shape.dimensions; ++a)
        if (shape.extent(a) <= 0 || shape.extent(a) > (std::int64_t(1) << 24))
            check.fail("every side must be 1 to 2^24 elements, not " + std::to_string(shape.extent(a)));
    if (q.dimensions != shape.dimensions)
        check.fail("the request is for " + std::to_string(q.dimensions) + "-D regions, the labels are " +
                   std::to_string(shape.dimensions) + "-D");
    if (shape.dimensions == 3 && (q.perimeter || q.crofton)) check.fail("perimeter and Crofton terms are 2-D terms");
    if (q.momentLevel < 0 || q.momentLevel > 4 || q.weightedMomentLevel < 0 || q.weightedMomentLevel > 4)
        check.fail("moment levels are 0 to 4");
    if (q.channels == 0) return;
    if (!intensity) check.fail("the properties asked need an intensity image");
    if (q.channels != 1 || intensity->channels != 1)
        check.fail("intensity terms are gathered on the GPU of one channel; more on the host (glccl::measureTerms "
                   "of glccl/measure.hpp)");
    if (q.intensityKind == SampleKind::Float || intensity->kind == SampleKind::Float)
        check.fail("floating-point intensities are measured on the host (glccl::measureTerms of glccl/measure.hpp)");
    if (q.intensityKind != intensity->kind)
        check.fail(std::string("the request's samples are ") +
                   (q.intensityKind == SampleKind::Signed ? "signed" : "unsigned") + ", the intensity's are not");
    if (intensity->shape != shape) check.fail("the intensity image's shape differs from the labels'");
    if (!intensity->data) check.fail("the intensity samples are null");
    if (intensity->bytes != 1 && intensity->bytes != 2 && intensity->bytes != 4 && intensity->bytes != 8)
        check.fail("intensity samples of " + std::to_string(intensity->bytes) + " bytes are not read");
}

// The totals of what the table gives: labels 1..n, counts and boxes.

Int256 wideAt(const unsigned long long* limbs) {
    Int256 v;
    for (int k = 0; k < kLimbs; ++k) v.limb[std::size_t(k)] = limbs[k];
    return v;
}

}  // namespace

const Configurations& configurations() {
    // The host's tables (glccl::windowShares), as plain arrays for a kernel's argument.
    static const Configurations tables = [] {
        Configurations c;
        const WindowShares& w = windowShares();
        std::copy(w.euler3.begin(), w.euler3.end(), c.euler3);
        for (unsigned k = 0; k < 16; ++k) {
            const int share = w.euler2[k], croftonClass = w.crofton[k];
            if (share < -2 || share > 1 || croftonClass < -1 || croftonClass > 4)
                throw std::logic_error("glccl: a 2x2 window's share or class outside its packed field");
            c.euler2 |= unsigned(share + 2) << (2 * k);
            c.crofton |= (unsigned long long)(croftonClass + 1) << (3 * k);
        }
        return c;
    }();
    return tables;
}

RegionTotals gatherTerms(const CudaCheck& check, const std::uint32_t* d_labels, const Shape& shape,
                         const std::vector<Component>& table, const TermRequest& q, const IntensitySamples* intensity,
                         cudaStream_t stream, bool intensityOnDevice, HostStaging* staging, ResourceCounts* counts) {
    checkRequest(check, shape, q, intensity);
    const std::size_t n = table.size();
    if (n > 0xFFFFFFFFu) check.fail("labels are 32-bit: at most 2^32 - 1 regions");
    // As the cpu accumulator: sums of powers up to degree 9 exact where
    // the coordinates' bits times the degree stay within 120.
    std::int64_t extent = 1;
    for (const Component& c : table)
        extent = std::max<std::int64_t>({extent, std::int64_t(c.width), std::int64_t(c.height), std::int64_t(c.depth)});
    auto degreeOf = [&](int level) { return level == 4 ? 3 * q.dimensions : level; };
    if (bitLength(std::uint64_t(extent)) * std::max(degreeOf(q.momentLevel), degreeOf(q.weightedMomentLevel)) > 120)
        check.fail("the moments of a region " + std::to_string(extent) +
                   " elements across exceed what is summed exactly");

    const bool intensityTerms = q.channels > 0;
    const RecordLayout layout = layoutOf(q, intensityTerms);
    const std::size_t nm = std::size_t(layout.momentTerms), nw = std::size_t(layout.weightedTerms);
    auto makeTotals = [&] {
        RegionTotals totals = tableTotals(shape, table, q);
        totals.gatheredBy = Backend::Cuda;
        if (q.any()) zeroTerms(totals);
        return totals;
    };
    if (!q.any() || n == 0 || layout.words == 0) return makeTotals();
    if (d_labels == nullptr) check.fail("the labels are null");

    // The boxes' least corners, the records, the flag, the intensity.
    std::vector<int> corners(n * 3);
    for (std::size_t i = 0; i < n; ++i) {
        corners[i * 3] = int(table[i].left);
        corners[i * 3 + 1] = int(table[i].top);
        corners[i * 3 + 2] = int(table[i].front);
    }
    const std::size_t words = n * std::size_t(layout.words);
    DeviceBuffer<int> boxes(corners.size(), check);
    DeviceBuffer<unsigned long long> records(words, check);
    DeviceBuffer<unsigned int> pastTable(1, check);
    DeviceBuffer<unsigned char> samples;
    check(cudaMemcpyAsync(boxes.get(), corners.data(), corners.size() * sizeof(int), cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync (boxes)");
    check(cudaMemsetAsync(pastTable.get(), 0, sizeof(unsigned int), stream), "cudaMemsetAsync (flag)");
    Passes p;
    p.labels = d_labels;
    p.width = int(shape.width);
    p.height = int(shape.height);
    p.depth = int(shape.depth);
    p.dimensions = shape.dimensions;
    p.regions = std::uint32_t(n);
    p.boxMin = boxes.get();
    p.records = records.get();
    p.pastTable = pastTable.get();
    p.layout = layout;
    std::int64_t widest = 0;
    for (const Component& c : table) widest = std::max<std::int64_t>(widest, std::int64_t(c.width));
    p.narrowSums = widest < (std::int64_t(1) << 16);
    p.narrowMoments = bitLength(std::uint64_t(extent)) * degreeOf(q.momentLevel) + 10 <= 128;
    // measure_terms walks a volume along z (columnTermsKernel,
    // measure_terms.cu) where its regions take fewer flushes so: a region w
    // x h x d takes about h d of them walked along x (one a row, the sums of
    // a row's segments added in the warp first) and h ceil(d / kSegment)
    // ceil(w / 32) walked along z. A flush along z costs more (its group's
    // sums are worked out from its lanes'), so z is taken where it spares a
    // quarter of them and more: a volume of many regions a few dozen
    // elements across, not one that a region fills alone (as many either
    // way).
    if (shape.dimensions == 3 && p.narrowMoments && extent < (std::int64_t(1) << 16)) {
        double alongX = 0, alongZ = 0;
        for (const Component& c : table) {
            if (std::int64_t(c.width) * std::int64_t(c.height) * std::int64_t(c.depth) <= kSmallBox) continue;
            alongX += double(c.height) * double(c.depth);
            alongZ += double(c.height) * double((c.depth + kSegment - 1) / kSegment) * double((c.width + 31) / 32);
        }
        p.walkAlongZ = 4 * alongZ < 3 * alongX;
    }
    if (intensityTerms && intensityOnDevice) {
        p.samples.data = intensity->data;
        p.samples.bytes = intensity->bytes;
        p.samples.isSigned = intensity->kind == SampleKind::Signed;
    } else if (intensityTerms) {
        const std::size_t bytes = shape.count() * std::size_t(intensity->bytes);
        samples = DeviceBuffer<unsigned char>(bytes, check);
        if (staging)
            staging->upload(check, intensity->data, samples.get(), bytes, stream, *counts);
        else
            check(cudaMemcpyAsync(samples.get(), intensity->data, bytes, cudaMemcpyHostToDevice, stream),
                  "cudaMemcpyAsync (intensity)");
        p.samples.data = samples.get();
        p.samples.bytes = intensity->bytes;
        p.samples.isSigned = intensity->kind == SampleKind::Signed;
    }

    p.packedExtrema = intensityTerms && p.samples.bytes <= 4 && shape.count() <= (std::size_t(1) << 32);

    // The regions measure_small takes whole (boxes of at most kSmallBox
    // elements) and, of an image without weighted moments, measure_medium
    // (at most kMediumBox, at most kMediumThreads wide), with samples of at
    // most 4 bytes.
    DeviceBuffer<int> extents;
    DeviceBuffer<unsigned char> alone;
    DeviceBuffer<std::uint32_t> mediumRegions;
    std::vector<std::uint32_t> medium;
    const bool small = !intensityTerms || p.samples.bytes <= 4;
    const bool mediumRuns = small && shape.dimensions == 2 && nw == 0;
    // The copies below are of pageable memory, which the driver stages
    // before each call returns: the vectors may go before the passes run.
    if (small) {
        std::vector<int> sizes(n * 3);
        std::vector<unsigned char> flags(n);
        for (std::size_t i = 0; i < n; ++i) {
            const Component& c = table[i];
            sizes[i * 3] = int(c.width);
            sizes[i * 3 + 1] = int(c.height);
            sizes[i * 3 + 2] = int(c.depth);
            const std::int64_t box = std::int64_t(c.width) * std::int64_t(c.height) * std::int64_t(c.depth);
            flags[i] = box <= kSmallBox ? kAloneSmall : 0;
            if (mediumRuns && box > kSmallBox && box <= kMediumBox && c.width <= std::uint32_t(kMediumThreads)) {
                flags[i] = kAloneMedium;
                medium.push_back(std::uint32_t(i));
            }
        }
        extents = DeviceBuffer<int>(sizes.size(), check);
        alone = DeviceBuffer<unsigned char>(n, check);
        check(cudaMemcpyAsync(extents.get(), sizes.data(), sizes.size() * sizeof(int), cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (box extents)");
        check(cudaMemcpyAsync(alone.get(), flags.data(), n, cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (small regions)");
        if (!medium.empty()) {
            mediumRegions = DeviceBuffer<std::uint32_t>(medium.size(), check);
            check(cudaMemcpyAsync(mediumRegions.get(), medium.data(), medium.size() * sizeof(std::uint32_t),
                                  cudaMemcpyHostToDevice, stream),
                  "cudaMemcpyAsync (medium regions)");
        }
        p.boxExtent = extents.get();
        p.alone = alone.get();
    }

    // The hot regions (more than kHotArea elements, the largest kHotRegions
    // of them; never measure_small's or measure_medium's) and their replicas.
    static_assert(kHotArea >= std::uint64_t(kMediumBox), "a hot region's box is larger than measure_medium takes");
    std::vector<std::uint32_t> hotList;
    for (std::size_t i = 0; i < n; ++i)
        if (table[i].area > kHotArea) hotList.push_back(std::uint32_t(i));
    if (hotList.size() > std::size_t(kHotRegions)) {
        std::nth_element(hotList.begin(), hotList.begin() + kHotRegions, hotList.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return table[a].area > table[b].area; });
        hotList.resize(std::size_t(kHotRegions));
    }
    const int hotCount = int(hotList.size());
    DeviceBuffer<unsigned char> hot;
    DeviceBuffer<std::uint32_t> hotRegions;
    DeviceBuffer<unsigned long long> replicas;
    std::vector<unsigned char> hotOf;
    if (hotCount > 0) {
        hotOf.assign(n, 0);
        for (int h = 0; h < hotCount; ++h) hotOf[hotList[std::size_t(h)]] = static_cast<unsigned char>(h + 1);
        hot = DeviceBuffer<unsigned char>(n, check);
        hotRegions = DeviceBuffer<std::uint32_t>(hotList.size(), check);
        replicas = DeviceBuffer<unsigned long long>(std::size_t(hotCount) * kReplicas * std::size_t(layout.words),
                                                    check);
        check(cudaMemcpyAsync(hot.get(), hotOf.data(), n, cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (hot regions)");
        check(cudaMemcpyAsync(hotRegions.get(), hotList.data(), hotList.size() * sizeof(std::uint32_t),
                              cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (hot region list)");
        p.hot = hot.get();
        p.replicas = replicas.get();
    }

    // An image's perimeter and window terms, one word an element, which
    // measure_small and measure_medium read for their regions and
    // measure_terms adds up for the others.
    DeviceBuffer<unsigned> elementWords;
    const bool localTerms = shape.dimensions == 2 && (q.perimeter || q.crofton || q.euler);
    if (localTerms) elementWords = DeviceBuffer<unsigned>(shape.count(), check);

    startRecords(check, stream, p, hotCount);
    if (localTerms)
        gatherLocalWords(check, stream, p, configurations(), q.perimeter, q.crofton || q.euler, elementWords.get());
    if (small)
        gatherSmall(check, stream, p, exponentsOf(q.momentLevel, q.dimensions),
                    exponentsOf(nw ? q.weightedMomentLevel : 0, q.dimensions), configurations(), elementWords.get(),
                    q.perimeter, q.crofton, q.euler, intensityTerms && q.intensitySums,
                    intensityTerms && q.intensityExtrema);
    gatherMedium(check, stream, p, exponentsOf(q.momentLevel, q.dimensions), mediumRegions.get(), medium.size(),
                 elementWords.get(), q.perimeter, q.crofton, q.euler, intensityTerms && q.intensitySums,
                 intensityTerms && q.intensityExtrema);
    // measure_terms takes the intensity's sums and extrema but where
    // measure_intensity runs for the weighted moments: then it takes them all.
    const bool intensityPass = intensityTerms && nw != 0;
    gatherElementTerms(check, stream, p, exponentsOf(q.momentLevel, q.dimensions), elementWords.get(), nm != 0,
                       q.perimeter, q.crofton, q.euler, intensityTerms && !intensityPass && q.intensitySums,
                       intensityTerms && !intensityPass && q.intensityExtrema);
    foldReplicas(check, stream, p, hotRegions.get(), hotCount);
    if (shape.dimensions == 3 && q.euler) gatherVolumeWindows(check, stream, p, configurations());
    if (intensityPass)
        gatherIntensity(check, stream, p, exponentsOf(q.weightedMomentLevel, q.dimensions), q.intensitySums,
                        q.intensityExtrema);
    if (intensityTerms && (q.intensitySums || q.intensityExtrema || nw) && q.intensityPositions && !p.packedExtrema)
        gatherExtremaPositions(check, stream, p);  // after the extrema are complete
    // The totals' arrays (the table's labels, counts and boxes, every term
    // array sized) are made on a thread of their own while the GPU gathers
    // and the records come down: fresh memory mapped and written at the
    // host's memory speed, which would otherwise come before the passes
    // rather than during them.
    std::future<RegionTotals> made = std::async(std::launch::async, makeTotals);

    // The records' host copy, every word written by the copy: a TermArray,
    // so that a block kept from a measurement of this size before is taken
    // again (its pages mapped already) rather than fresh pages mapped, which
    // for millions of regions costs more than the GPU's gathering; fresh
    // ones are mapped first, by several threads (FreshPages).
    TermArray<unsigned long long> host;
    {
        FreshPages fresh;
        fresh.reserve(host, words);
        fresh.map();
    }
    host.resize(words);
    unsigned int past = 0;
    check(cudaMemcpyAsync(&past, pastTable.get(), sizeof(unsigned int), cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (flag)");
    if (staging)
        staging->downloadTo(check, records.get(), words * sizeof(unsigned long long), stream, host.data(), *counts);
    else
        check(cudaMemcpyAsync(host.data(), records.get(), words * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                              stream),
              "cudaMemcpyAsync (region totals)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (region totals)");
    if (past != 0)
        check.fail("the labels hold labels past the table's " + std::to_string(n) + " regions");

    // Records into the totals' arrays.
    RegionTotals totals = made.get();
    const bool isSigned = intensityTerms && intensity->kind == SampleKind::Signed;
    auto sampleOf = [&](unsigned long long key, std::uint64_t& bits, double& value) {
        bits = isSigned ? key ^ (std::uint64_t(1) << 63) : key;
        value = isSigned ? double(std::int64_t(bits)) : double(bits);
    };
    // A packed word's 32-bit key as sampleOf's key.
    auto packedKey = [&](unsigned long long word) -> unsigned long long {
        const std::uint32_t key = std::uint32_t(word >> 32);
        if (!isSigned) return key;
        const std::int64_t value = std::int32_t(key ^ 0x80000000u);
        return std::uint64_t(value) ^ (std::uint64_t(1) << 63);
    };
    // Rows split among threads: each region's record is its own.
    forRowRanges(n, 0, [&](std::size_t first, std::size_t last) {
        for (std::size_t r = first; r < last; ++r) {
            const unsigned long long* record = host.data() + r * std::size_t(layout.words);
            for (std::size_t t = 0; t < nm; ++t)
                streamStore(totals.moments[r * nm + t], wideAt(record + layout.momentsAt + t * kLimbs));
            for (std::size_t c = 0; c < 3 && q.perimeter; ++c)
                totals.perimeterClasses[r * 3 + c] = record[layout.perimeterAt + int(c)];
            for (std::size_t c = 0; c < 5 && q.crofton; ++c)
                totals.croftonClasses[r * 5 + c] = record[layout.croftonAt + int(c)];
            if (q.euler) totals.eulerTimes[r] = std::int64_t(record[layout.eulerAt]);
            if (!intensityTerms) continue;
            if (q.intensitySums) {
                totals.intensitySum[r] = wideAt(record + layout.sumAt);
                totals.intensitySquares[r] = wideAt(record + layout.squaresAt);
            }
            if (q.intensityExtrema && p.packedExtrema) {
                const unsigned long long least = record[layout.extremaAt], most = record[layout.extremaAt + 1];
                sampleOf(packedKey(least), totals.intensityMinBits[r], totals.intensityMin[r]);
                sampleOf(packedKey(most), totals.intensityMaxBits[r], totals.intensityMax[r]);
                if (q.intensityPositions) {
                    totals.intensityMinAt[r] = least & 0xFFFFFFFFu;
                    totals.intensityMaxAt[r] = 0xFFFFFFFFu - (most & 0xFFFFFFFFu);
                }
            } else if (q.intensityExtrema) {
                sampleOf(record[layout.extremaAt], totals.intensityMinBits[r], totals.intensityMin[r]);
                sampleOf(record[layout.extremaAt + 1], totals.intensityMaxBits[r], totals.intensityMax[r]);
                if (q.intensityPositions) {
                    totals.intensityMinAt[r] = record[layout.positionsAt];
                    totals.intensityMaxAt[r] = record[layout.positionsAt + 1];
                }
            }
            for (std::size_t t = 0; t < nw; ++t)
                streamStore(totals.weightedMoments[r * nw + t], wideAt(record + layout.weightedAt + t * kLimbs));
        }
        streamFence();
    });
    return totals;
}

}  // namespace measure

RegionTotals gatherTerms(const std::uint32_t* deviceLabels, const Shape& shape, const std::vector<Component>& table,
                         const TermRequest& request, const IntensitySamples* hostIntensity, CUstream_st* stream) {
    const CudaCheck check("glccl::cuda::gatherTerms");
    return measure::gatherTerms(check, deviceLabels, shape, table, request, hostIntensity, stream);
}

RegionTotals gatherTermsOfDeviceIntensity(const std::uint32_t* deviceLabels, const Shape& shape,
                                          const std::vector<Component>& table, const TermRequest& request,
                                          const IntensitySamples* deviceIntensity, CUstream_st* stream) {
    const CudaCheck check("glccl::cuda::gatherTermsOfDeviceIntensity");
    return measure::gatherTerms(check, deviceLabels, shape, table, request, deviceIntensity, stream, true);
}

}  // namespace glccl::cuda

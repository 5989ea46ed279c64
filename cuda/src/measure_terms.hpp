#pragma once
// Region terms (glccl/region_properties.hpp) gathered on the GPU from labels
// in device memory: glccl::cuda::gatherTerms and ImageLabeler::measureTerms.
// The compute engine's gatherer (engine/src/measure_terms.hpp) in CUDA; the
// specification is the cpu engine's accumulator (cpu/src/measure_chunks.hpp):
// moments of coordinates local to each region's box, perimeter border
// elements and Crofton configurations by class, Euler sums of the 2x2
// (2x2x2) windows, sums and extrema of an integer intensity.
//
// Passes (measure_terms.cu) in their order, each launched only where the
// request asks for its terms:
//   measure_start      the records: zero, the least key and the positions at ~0
//   measure_local      each element's perimeter class, Euler shares and
//                      Crofton classes in one word (2-D)
//   measure_small      every term of each region whose box holds at most
//                      kSmallBox elements, one thread a region, plain stores
//   measure_medium     every term of each region of an image whose box holds
//                      more than kSmallBox and at most kMediumBox elements
//                      (at most kMediumThreads wide), one block a region,
//                      plain stores
//   measure_terms      moments, measure_local's words summed per region
//                      (2-D), intensity sums, sums of squares and extrema
//   measure_fold       the hot regions' replicas into their records
//   measure_windows    Euler sums of a volume
//   measure_intensity  weighted moments, and with them the intensity's
//                      sums and extrema in place of measure_terms
//   measure_extrema    the extrema's first raster positions (after measure_intensity),
//                      where they are not packed with their keys (Passes::packedExtrema)
// Each adds into one record of 64-bit words per region (RecordLayout) with
// atomics, exactly: a wide sum is kLimbs 64-bit limbs, and each limb's
// atomicAdd returns the limb before it, so a carry out of it is known and
// goes into the next limb; the totals are the same whatever order the
// threads add in. Counts and boxes come from the component table.
//
// measure_terms, measure_intensity and measure_extrema give each thread
// kSegment elements of one row (the first two read a warp's labels through
// shared memory, a line a load), and measure_windows kSegment windows
// along z, a warp's lanes at consecutive x, as measure_terms walks a volume
// of many small regions (Passes::walkAlongZ); no thread goes past its segment,
// so a large region's long runs are shared among the threads they cross.
// In all but measure_extrema a thread keeps the first region it meets for
// its whole segment, whatever lies between its runs, and gathers another
// region's sums until a third comes, adding them then:
//
//   row y:  . 3 3 . 5 5 3 3 . 7 |      one thread's segment: 3 kept,
//                                      5 added when 7 comes, 7 at the end
//
// (measure_terms walks its segment an element at a time, the kept region's
// elements first and the others' after, so that a warp's lanes go in step.)
//
// The lanes of a warp whose kept region and row are the same add their
// sums together before one of them makes the atomics: a region that fills
// much of a noisy image is met by nearly every thread and surrounds its
// small regions everywhere, and atomics at one address queue.
// measure_extrema adds once per run in a segment, and only where it has
// something to add.
//
// A noisy image's many small regions would each take a run of atomics for
// every row segment they touch. measure_small takes every region whose box
// holds at most kSmallBox elements whole, one thread reading its box, and
// the segment passes skip those labels (Passes::alone): they add only for
// the larger regions. It runs where the samples are at most 4 bytes (its
// sums' bounds, measure_terms.cu). measure_medium does the same with a
// block for each region of an image whose box holds up to kMediumBox
// elements and kMediumThreads columns, where no weighted moments are asked
// (their sums pass 64 bits): a disk a few dozen elements across would take
// a flush in every row segment it crosses.
//
// An image's perimeter classes and window terms need each element's
// neighbours, and a thread walking its segment reads them 128 bytes apart
// from the next lane's: measure_local gives a lane a column of a strip that
// its warp walks down a row at a time, so that a warp reads whole rows and
// keeps the rows around an element in registers, and leaves one word an
// element for measure_small, measure_medium and measure_terms to add up.

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"
#include "glccl/types.hpp"

namespace glccl {
struct RegionTotals;
struct TermRequest;
struct IntensitySamples;
}  // namespace glccl

namespace glccl::cuda {
class HostStaging;
struct ResourceCounts;
}  // namespace glccl::cuda

namespace glccl::cuda::measure {

constexpr int kLimbs = 4;        // 64-bit limbs of a wide sum: 256 bits, as Int256
constexpr int kMaxTerms = 64;    // exponent tuples at moment level 4 of a volume (4 x 4 x 4)
constexpr int kSegment = 32;     // elements of a row per thread
constexpr int kThreads = 256;    // threads per block
constexpr int kSmallBox = 64;    // elements of the largest box measure_small takes
// An image's region whose box holds more than kSmallBox and at most
// kMediumBox elements, and is at most kMediumThreads wide, is measured by a
// block of kMediumThreads, a column a thread (measure_medium): a moment's
// sum over such a box fits 64 bits.
constexpr int kMediumBox = 1 << 14;
constexpr int kMediumThreads = 128;
static_assert(kMediumBox > kSmallBox && kMediumBox <= (1 << 14) && kMediumThreads % 32 == 0);
constexpr unsigned char kAloneSmall = 1, kAloneMedium = 2;  // Passes::alone
// A region that nearly every warp of measure_terms meets (the one large
// region of a noisy image, a background-sized one) would take all their
// atomics at the same few words, and those queue in the one place of the
// GPU's cache that holds them. So the largest regions of more than kHotArea
// elements, up to kHotRegions of them, are hot: each warp adds into one of
// kReplicas replicas of the region's record, by the warp's index, and
// measure_fold adds the replicas into the record.
constexpr std::uint64_t kHotArea = 1 << 14;
constexpr int kHotRegions = 64, kReplicas = 128;

// Where each term sits in a region's record of 64-bit words:
//
//   | moments: terms x kLimbs | perimeter: 3 | crofton: 5 | euler: 1 (int64) |
//   | sum: kLimbs | squares: kLimbs | least, greatest key: 2 | their first positions: 2 |
//   | weighted moments: terms x kLimbs |
//
// a part only where the request asks for it. Samples are kept as keys that
// order as unsigned integers (a signed sample's sign bit flipped).
struct RecordLayout {
    int momentTerms = 0, weightedTerms = 0;
    int momentsAt = 0, perimeterAt = 0, croftonAt = 0, eulerAt = 0;
    int sumAt = 0, squaresAt = 0, extremaAt = 0, positionsAt = 0, weightedAt = 0;
    int words = 0;
    bool extrema = false;  // extremaAt and positionsAt hold something
};

// Exponent tuples (x, y, z) in TermRequest::exponents() order.
struct Exponents {
    int count = 0;
    unsigned char e[kMaxTerms][3] = {};
};

// glccl::windowShares() (glccl/region_properties.hpp) as a kernel takes
// them by value: a volume's Euler shares as an array, an image's two tables
// packed in a word each, read at a configuration by a shift (an array
// indexed by each thread's own configuration is read one address at a time).
struct Configurations {
    int euler3[256] = {};
    unsigned euler2 = 0;           // configuration c's share + 2 (-2..1) in bits 2c, 2c + 1
    unsigned long long crofton = 0;  // configuration c's class + 1 (-1..4) in bits 3c .. 3c + 2
};
const Configurations& configurations();

// An intensity in device memory: one sample per element, `bytes` wide.
struct Samples {
    const void* data = nullptr;
    int bytes = 0;
    bool isSigned = false;
};

// What every pass reads and where it adds.
struct Passes {
    const std::uint32_t* labels = nullptr;     // width x height x depth, x fastest
    int width = 0, height = 0, depth = 1;      // each at most 2^24
    int dimensions = 2;
    std::uint32_t regions = 0;                 // labels 1..regions; larger ones are flagged
    const int* boxMin = nullptr;               // regions x 3: the least x, y, z of each box
    const int* boxExtent = nullptr;            // regions x 3: each box's width, height, depth (measure_small)
    // Per region, kAloneSmall where measure_small measures it whole,
    // kAloneMedium where measure_medium does; the segment passes skip their
    // labels. Null where neither runs.
    const unsigned char* alone = nullptr;
    unsigned long long* records = nullptr;     // regions x layout.words
    // Per region, h + 1 for hot region h (0..kHotRegions - 1), 0 for the
    // others; null where none is hot. The replicas: hot regions x kReplicas
    // records.
    const unsigned char* hot = nullptr;
    unsigned long long* replicas = nullptr;
    unsigned int* pastTable = nullptr;         // set to 1 where a label past `regions` is met
    RecordLayout layout;
    Samples samples;
    // Every box narrower than 2^16 (lx^3 < 2^48): a thread's and a warp's
    // sums of powers of lx fit 64 bits, and with samples of at most 4 bytes
    // the intensity's sums fit 64 and 128 bits, so measure_terms and
    // measure_intensity add in those rather than in kLimbs limbs, with
    // fewer registers and more threads on each multiprocessor.
    bool narrowSums = false;
    // The moments of kSegment x 32 elements below 2^128 (the largest box
    // side's bits times the moments' degree, and 10): measure_terms' flushes
    // work their terms out in 128 bits.
    bool narrowMoments = false;
    // measure_terms walks the volume along z (columnTermsKernel,
    // measure_terms.cu): every box side below 2^16, narrowMoments, and the
    // regions take fewer flushes so (gatherTerms says when).
    bool walkAlongZ = false;
    // Samples of at most 4 bytes and at most 2^32 elements: each extreme's
    // word holds its 32-bit key above its first position (ExtremaWords,
    // measure_terms.cu), so measure_intensity finds both and
    // measure_extrema does not run.
    bool packedExtrema = false;
};

// The regions' records and, of `hotCount` hot regions, the replicas.
void startRecords(const CudaCheck& check, cudaStream_t stream, const Passes& p, int hotCount);
// `words`: measure_local's of an image (null for a volume), already written.
void gatherSmall(const CudaCheck& check, cudaStream_t stream, const Passes& p, const Exponents& exponents,
                 const Exponents& weighted, const Configurations& tables, const unsigned* words, bool perimeter,
                 bool crofton, bool euler, bool sums, bool extrema);
// `regions`: the `count` regions (0-based) measure_medium takes, in device
// memory; `words` as gatherSmall's (an image's, or null without its terms).
void gatherMedium(const CudaCheck& check, cudaStream_t stream, const Passes& p, const Exponents& exponents,
                  const std::uint32_t* regions, unsigned long long count, const unsigned* words, bool perimeter,
                  bool crofton, bool euler, bool sums, bool extrema);
// measure_local of an image: `words` one an element.
void gatherLocalWords(const CudaCheck& check, cudaStream_t stream, const Passes& p, const Configurations& tables,
                      bool perimeter, bool windows, unsigned* words);
// measure_terms: the moments, `words`' terms (an image's, or null) and the
// intensity's sums and extrema of the regions neither measure_small nor
// measure_medium takes.
void gatherElementTerms(const CudaCheck& check, cudaStream_t stream, const Passes& p, const Exponents& exponents,
                        const unsigned* words, bool moments, bool perimeter, bool crofton, bool euler, bool sums,
                        bool extrema);
// measure_fold: the replicas of the `hotCount` hot regions (their region
// indices, 0-based, at `hotRegions` in device memory, in the order of
// Passes::hot) into their records, after measure_terms.
void foldReplicas(const CudaCheck& check, cudaStream_t stream, const Passes& p, const std::uint32_t* hotRegions,
                  int hotCount);
void gatherIntensity(const CudaCheck& check, cudaStream_t stream, const Passes& p, const Exponents& weighted,
                     bool sums, bool extrema);
void gatherExtremaPositions(const CudaCheck& check, cudaStream_t stream, const Passes& p);
void gatherVolumeWindows(const CudaCheck& check, cudaStream_t stream, const Passes& p, const Configurations& tables);

// The terms of `request` for labels 1..table.size() of `d_labels` (device
// memory of the current device, `shape`'s elements), queued on `stream` after
// what it holds; returns when they are on the host. The intensity's samples
// are in host memory (uploaded) or, with intensityOnDevice, in device memory
// (read where they are). With `staging` (and the `counts` it reports its
// memory in), a host intensity goes up and the records come down through
// its page-locked chunks, at the bus's speed, rather than through the
// driver's staging of pageable memory. Throws glccl::Error (check.entry())
// as cuda_labeler.hpp's gatherTerms says.
RegionTotals gatherTerms(const CudaCheck& check, const std::uint32_t* d_labels, const Shape& shape,
                         const std::vector<Component>& table, const TermRequest& request,
                         const IntensitySamples* intensity, cudaStream_t stream, bool intensityOnDevice = false,
                         HostStaging* staging = nullptr, ResourceCounts* counts = nullptr);

}  // namespace glccl::cuda::measure

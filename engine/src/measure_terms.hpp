#pragma once
// Region terms (glccl/region_properties.hpp) gathered on the GPU from a
// label texture, for Labeler::measureTerms() (and, left on the GPU, for
// Labeler::regionBuffer(): region_rows.hpp). Passes over the labels,
// each run only where the request asks for its terms:
//   measure_terms    (glsl/measure_terms.comp)    moments, perimeter classes,
//                                                 intensity sums, extrema, weighted moments
//   measure_fold     (glsl/measure_fold.comp)     hot regions' replicas into their records
//   measure_extrema  (glsl/measure_extrema.comp)  the extrema's first positions
//   measure_pack     (glsl/measure_pack.comp)     the records the host reads, narrowed
//   measure_windows  (glsl/measure_windows.comp)  Crofton classes, Euler sums (an
//                                                 image's with the perimeter: measure_terms)
// They add into one storage buffer of per-region records with 32-bit
// atomics, exactly (a carry goes into the next limb); the records are
// copied into a buffer the host maps and read once. Counts and boxes come from the component table.
//
// A noisy image's many small regions would each take a run of atomics for
// every row segment they touch, nearly one per element. measure_small
// (glsl/measure_small.comp) measures every region whose box holds at most
// kSmallBox elements whole, one invocation walking its box and storing its
// record, every term of the request; measure_medium (glsl/measure_medium.comp)
// an image's regions of boxes up to kMediumBox elements, a work group each.
// The passes over the labels skip those regions (the boxes buffer flags
// them); in an image measure_terms and measure_windows walk only the tiles
// that hold a larger region of the batch.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gl_objects.hpp"
#include "glccl/region_properties.hpp"
#include "glccl/types.hpp"
#include "stage_timer.hpp"

namespace glccl::measure {

// Bindings and sizes that glsl/measure_common.glsl receives as defines.
constexpr int kLabelsImage = 0;
constexpr int kBoxesBuffer = 0;
constexpr int kTotalsBuffer = 1;
constexpr int kIntensityImage = 1;
constexpr int kGroupThreads = 64;
// measure_small's: an invocation walks its region's box, of 1 to kSmallBox
// elements, and smaller groups free their invocations' room sooner.
constexpr int kSmallGroupThreads = 32;
// Elements (windows) of a row per invocation. A longer segment flushes a
// region's sums more rarely (fewer atomic adds, fewer on the same words);
// a shorter one gives the GPU more invocations to hide each step's reads
// behind, where a walk waits on its loads from step to step: an image's
// segments of 256 elements are about as many warps as a large GPU holds
// at once, each walking its segment alone. measure_terms takes the short
// segment where a run's flush adds at most kShortSegmentWords words (an
// image's moments, perimeter and intensity statistics), the long one
// where it adds more (weighted moments, a volume's 64 moment terms) and
// the extra flushes cost more than the walk gains. A hot region's
// replicas (below) take the extra flushes of its many runs. A run's sums
// of 64 and 96 bits hold up to 2^19 elements; its sums of the cubes of its
// elements' offsets from its first, 32 bits, up to 256.
constexpr int kElementSegment = 256;  // measure_terms with records of many words, measure_extrema
constexpr int kShortSegment = 64;     // measure_terms with records of few words
constexpr int kShortSegmentWords = 64;
static_assert(kElementSegment <= 256 && kShortSegment <= 256);
constexpr int kWindowSegment = 64;  // measure_windows
// Elements of the largest box measure_small takes. A larger limit takes
// more regions away from the passes' atomics, and gives an invocation more
// elements to walk while the others of its group wait. Below 256:
// the small pass's sums' bounds (glsl/measure_small.comp) and the box's
// sides a byte each in packedExtent().
constexpr int kSmallBox = 64;
// At most 64: measure_small keeps an image's box as 64 bits.
static_assert(kSmallBox > 0 && kSmallBox <= 64);
constexpr int kSmallBuffer = 2;  // binding of measure_small's list of regions
// measure_medium's: an image's region whose box holds more than kSmallBox
// and at most kMediumBox elements, each side below 256 (packedExtent()),
// is measured by a work group of kMediumGroupThreads, which stores the
// region's record once; the passes over the labels skip the region as they
// skip a small one. A disk a few dozen elements across would otherwise take
// a flush of atomics in every column it crosses. Where the context's
// subgroups are kNarrowSubgroup invocations with ballots, the group's
// subgroups walk the box in strips of kNarrowWidth columns
// (glsl/measure_strips.glsl); elsewhere the group loads the box in bands of
// rows (below) and walks each kMediumGroupThreads / 32 rows a step (a box
// 33 to kMediumGroupThreads wide a row a step). 2^14 at most: the medium
// pass's 64-bit sums' bounds (glsl/measure_medium.comp). Groups of 64 (two
// rows a step) keep twice the invocations of 32 at work where the regions
// are too few to fill the GPU, and cost the same where they fill it. Only
// for requests whose record is at most kMediumWords words (the group's
// record in shared memory, whose size sets how many groups run at once)
// and has no weighted moments (whose sums pass 64 bits).
constexpr int kMediumBox = 1 << 14;
constexpr int kMediumGroupThreads = 64;
constexpr int kMediumWords = 64;
static_assert(kMediumBox > kSmallBox && kMediumBox <= (1 << 14));
static_assert(kMediumGroupThreads % 32 == 0);
constexpr int kMediumBuffer = 4;  // binding of measure_medium's list of regions
// measure_medium's band: the rows of a box its group holds in shared memory
// at once, a bit an element, two past each side of the box, in
// kMediumBandWords words (glsl/measure_medium.comp). The group loads a
// band's labels at once and walks its rows with no barrier between them.
// Bands of 512 words measured faster than of 128, 256, 768 or 1024 (and
// of 384 on sparse disks): smaller ones take more loads and barriers,
// larger ones leave fewer groups running at once.
constexpr int kMediumBandWords = 512;
// The words of a band's row of a box `width` wide: width + 4 bits, and a
// word past the last bit's (bitsAt reads two words).
constexpr int mediumRowWords(int width) { return (width + 4 + 31) / 32 + 1; }
// The box's rows a band holds, the two on each side besides.
constexpr int mediumBandRows(int width) { return kMediumBandWords / mediumRowWords(width) - 4; }
static_assert(mediumBandRows(255) >= 1);
// measure_medium's strips (where the context has subgroups of
// kNarrowSubgroup invocations with ballots, GL_KHR_shader_subgroup): a
// subgroup walks kNarrowWidth columns of a box a row a step, a lane a
// column of the strip or of the two on each side of it, a row's bits from
// one ballot, no barrier and no shared rows. A narrow region (at most
// kNarrowWidth wide) is one strip, walked by a subgroup of its own in work
// groups after the other medium regions' in the same dispatch; a wider one
// by its group's subgroups, alternate strips each.
constexpr int kNarrowWidth = 28;
constexpr int kNarrowSubgroup = 32;
static_assert(kNarrowWidth + 4 == kNarrowSubgroup && kMediumGroupThreads % kNarrowSubgroup == 0);
// A batch of an image with fewer than kSmallLeast regions for measure_small,
// where measure_medium runs anyway: its groups take them, a group each, and
// measure_small does not run. However few its regions, its dispatch costs
// the walk of one invocation through a box, an element after another,
// where a group walks a box a row a step.
constexpr int kSmallLeast = 256;
// An image's passes along y (measure_terms, measure_windows) walk only the
// tiles (kGroupThreads columns by one segment) that hold an element of a
// region they gather: where the regions measured alone are most of the
// image, the rest is not read.
constexpr int kTilesBuffer = 5;  // binding of the list of tiles
// A region whose runs many invocations flush at once (a large region:
// every segment of every row it crosses) makes their atomics queue on the
// same words. The largest regions of at least kHotArea elements, at most
// kMaxHot of a batch, each get kReplicas records past the batch's:
// measure_terms spreads their runs and measure_windows their windows'
// shares over them by segment, and measure_fold adds them into the
// regions' records (exact sums, so the order changes nothing). The
// atomics on one word queue behind each other, and a noisy image's
// largest region is flushed by nearly every segment, the more often the
// shorter the segments.
constexpr int kReplicas = 128;
constexpr std::uint64_t kHotArea = 1u << 14;
constexpr int kMaxHot = 64;
constexpr int kHotBuffer = 3;  // binding of measure_fold's list of regions

// The records the host reads are packed on the GPU (glsl/measure_pack.comp)
// a tier of regions after another (boxes of at most kSmallBox elements, by
// the axes they are one element across; of at most kPackTierBox elements
// under 256 a side; the rest), each region's in the record of its tier's
// bounds, whose high limbs the wide record's sums would leave zero, and
// of the small and box tiers' words only the bits the bounds can set: a
// noisy image's hundreds of thousands of small regions come down in about
// a quarter of the bytes. measure_pack runs after the batch's other passes
// and takes the bindings of their lists.
constexpr std::uint64_t kPackTierBox = 65535;
// The small tiers and the box tier each split at these elements: a smaller
// box's moments take fewer bits (fieldWidths in measure_terms.cpp).
constexpr std::uint64_t kPackSmallSplit = 16;
constexpr std::uint64_t kPackBoxSplit = 1024;
constexpr int kPackTargetsBuffer = 2;
constexpr int kPackWordsBuffer = 3;
constexpr int kPackedBuffer = 4;
// Invocations that copy one region's record in measure_pack.
constexpr int kPackLanes = 4;
// measure_pack's target of a region whose tier's record has no word.
constexpr std::uint32_t kNoPackTarget = 0xffffffffu;

// The records are zeroed before the passes add into them by
// glsl/clear_records.comp (a driver's buffer clear can run at host-upload
// rates), a quad of words an invocation, in work groups of
// kClearGroupThreads, the buffer bound at kClearBuffer.
constexpr int kClearBuffer = 2;
constexpr int kClearGroupThreads = 256;

// The boxes buffer's w (glsl/measure_common.glsl) of a region measure_small
// or measure_medium measures: its box's sides, a byte each (positive); of
// a region with replicas, -(1 + its index among them) (hotMark()).
constexpr std::int32_t packedExtent(std::uint32_t width, std::uint32_t height, std::uint32_t depth) {
    return std::int32_t(width | height << 8 | depth << 16);
}

constexpr std::int32_t hotMark(std::size_t hotIndex) { return -1 - std::int32_t(hotIndex); }

// Where each term sits in a region's record of 32-bit words. Each wide sum
// has as many limbs as its bound needs (a moment's by its degree), so that
// the record the passes zero, add into and the host reads is no wider than
// its largest region asks.
struct RecordLayout {
    int limbs = 1;  // of the widest sum: the width of the shaders' scratch sums
    int momentTerms = 0, weightedTerms = 0;
    int momentsAt = 0, perimeterAt = 0, croftonAt = 0, eulerAt = 0;
    int sumAt = 0, squaresAt = 0, extremaAt = 0, positionsAt = 0, weightedAt = 0;
    // The bounds the limbs follow (measure_common.glsl's termLimbs): a moment
    // sum of degree d below 2^(extentBits d + countBits), times 2^sampleBits
    // for a weighted one.
    int extentBits = 0, countBits = 0, sampleBits = 0;
    std::vector<int> momentOffsets, momentLimbs;      // per term, from momentsAt
    std::vector<int> weightedOffsets, weightedLimbs;  // per term, from weightedAt
    int sumLimbs = 0, squaresLimbs = 0;
    int words = 0;
};

// An intensity for the terms: a texture of the current context of the
// labels' target and size, GL_R8, GL_R8UI, GL_R16, GL_R16UI or GL_R32UI
// (unsigned samples of 8, 16 or 32 bits, the normalized formats read in
// their units, 0..255 and 0..65535).
struct Intensity {
    unsigned texture = 0;
    GLenum format = 0;
    int bits = 0;
};

// The record of `request` for regions of at most `extent` elements along
// any axis and of at most `count` elements, its wide sums wide enough for
// any such region (of intensity samples of `intensityBits`). Throws
// glccl::Error past 256 bits.
RecordLayout recordLayout(std::uint64_t extent, std::uint64_t count, const TermRequest& request, int intensityBits);

// Throws glccl::Error for what the GPU does not gather: a request of other
// dimensions than the labels', perimeter or Crofton terms of a volume,
// intensity terms of other than one channel of unsigned samples, or
// without an intensity texture (or one given to a request without them).
void checkRequest(const TermRequest& request, int dimensions, bool intensityGiven);

// `texture` as an intensity for `labels`; binds it on unit 0 (the caller
// guards the state). Throws glccl::Error for a texture of another size or
// target, or of another format.
Intensity intensityOf(unsigned texture, const gl::Texture& labels);


class TermGatherer {
public:
    // The totals of `request` for labels 1..table.size() of `labels`
    // (GL_R32UI, GL_TEXTURE_2D or GL_TEXTURE_3D; table[i] is label i + 1),
    // intensity terms of `intensity` (intensityOf()).
    // OpenGL 4.3. Regions whose records pass GL_MAX_SHADER_STORAGE_BLOCK_SIZE
    // are gathered in batches, each reading the labels again. Throws
    // glccl::Error as checkRequest() does. Changes program, image
    // units 0 and 1, the storage and pixel-pack buffer bindings (the caller
    // guards the state). With `timer`, each pass is a stage named as its
    // shader (measure_small, measure_medium, measure_terms, measure_fold,
    // measure_extrema, measure_windows, measure_pack), the records' zeroing
    // clear_records, the boxes' and lists' upload upload_boxes, the copy of
    // the records for the host download_terms.
    RegionTotals gather(const gl::Texture& labels, const std::vector<Component>& table, const TermRequest& request,
                        const Intensity& intensity = {}, StageTimer* timer = nullptr);

    // The records of `request` (no intensity terms) of labels first + 1 ..
    // first + count, gathered and left on the GPU in records() (`layout`,
    // from recordLayout() for the labels' extents), for passes that read
    // them there. `writeCorners` writes the boxes' least corners into the
    // buffer it is given (one ivec4 a region, x, y, z and w 0, from label
    // first + 1, count of them; sized for it), on the GPU: no region is
    // measured alone here, as no box's extent is known. The caller keeps the
    // records within GL_MAX_SHADER_STORAGE_BLOCK_SIZE. Changes what gather()
    // does; `timer` as gather()'s.
    void gatherOnGpu(const gl::Texture& labels, const TermRequest& request, const RecordLayout& layout,
                     std::size_t first, std::size_t count,
                     const std::function<void(const gl::Buffer& corners)>& writeCorners, StageTimer* timer = nullptr);
    const gl::Buffer& records() const { return totals_; }

    // Batches of at most `bytes` of records (0: GL_MAX_SHADER_STORAGE_BLOCK_SIZE),
    // for tests of a labeling of many batches.
    void setLargestBatch(std::size_t bytes) { largestBatchBytes_ = bytes; }
    // Regions whose boxes hold more than kSmallBox and at most `elements`
    // elements measured by measure_medium (kMediumBox; 0: none), for tests
    // of the passes over the labels.
    void setLargestMedium(std::uint64_t elements) { largestMedium_ = std::min<std::uint64_t>(elements, kMediumBox); }
    // Whether the labels gathered are a labeling that joined every pair of
    // adjacent foreground elements (binary, 8-connectivity in 2-D, 26 in
    // 3-D; false, the default, for any other labels): then two elements
    // adjacent that way are of one region, so an image's measure_terms
    // reads the perimeter's and windows' neighbourhoods as foreground bits
    // rather than comparing each label with the region's, and
    // measure_windows takes a window's foreground as one region's
    // (FOREGROUND_CONNECTED).
    void setForegroundConnected(bool connected) { foregroundConnected_ = connected; }
    // Whether the current context walks measure_medium's regions in strips
    // by subgroups (kNarrowSubgroup invocations with ballots in compute
    // shaders), asked once.
    bool stripsRun();

private:
    // The regions first .. first + count - 1 (rows of the totals ready()
    // gives once the records are read back).
    // `replicaRecords`: records past the batch's the block has room for.
    void gatherBatch(const gl::Texture& labels, const std::vector<Component>& table, const TermRequest& request,
                     const Intensity& intensity, const RecordLayout& layout, std::size_t first, std::size_t count,
                     std::size_t replicaRecords, const std::function<RegionTotals&()>& ready, StageTimer& timer);
    // The passes `request` needs, into totals_ from the corners in boxes_
    // (both sized, totals_ zeroed): measure_small over the `small` regions
    // listed in small_, measure_medium over the first `medium` listed in
    // medium_ and the `narrow` after them, the passes
    // over the labels where `large` regions are left to them, measure_fold
    // over the replicas of the `hot` regions listed in hot_.
    // `largeBoxes`: the boxes of the regions left to the passes over the
    // labels (x, y, width, height; null: every tile).
    void dispatch(const gl::Texture& labels, const TermRequest& request, const Intensity& intensity,
                  const RecordLayout& layout, std::size_t first, std::size_t count, std::size_t small,
                  std::size_t medium, std::size_t narrow, std::size_t large, std::size_t hot,
                  const std::vector<std::array<std::int64_t, 4>>* largeBoxes, StageTimer& timer);
    // A tier of the records the host reads (measure_pack): its
    // regions (batch indices), their record, its first word among those read.
    // A tier of points (regions of one element) reads the element's sample
    // alone, where the request has intensity terms: measure_pack loads it
    // from the intensity, no pass having measured the point.
    // With `widths` (a count of bits per word of `layout`), a region's
    // record comes down as those bits of its words one after another,
    // `words` words; without, as `layout`'s words.
    struct Tier {
        const std::vector<std::uint32_t>* regions;
        RecordLayout layout;
        std::size_t firstWord = 0;
        bool points = false;
        std::vector<std::uint8_t> widths;
        std::size_t words = 0;
    };
    // measure_pack: the batch's records (totals_, `layout`) into packed_,
    // the tiers one after another, `words` in all.
    void pack(const std::vector<Tier>& tiers, std::size_t count, std::size_t words, const RecordLayout& layout,
              const TermRequest& request, const Intensity& intensity, StageTimer& timer);
    // clear_records: the first `bytes` of `buffer` (grown when its
    // `capacity` is too small, to whole quads of words) zeroed, complete
    // for the shaders that run next.
    void zero(gl::Buffer& buffer, std::size_t& capacity, std::size_t bytes, const RecordLayout& layout,
              const TermRequest& request, const Intensity& intensity);
    // `strips`: measure_medium with MEDIUM_STRIPS (measure_strips.glsl).
    gl::Program& program(const std::string& stage, const RecordLayout& layout, const TermRequest& request,
                         const Intensity& intensity, bool strips = false);

    std::map<std::string, gl::Program> programs_;
    gl::Buffer boxes_, totals_, small_, medium_, hot_, tiles_, packTargets_, packWords_, packed_, readback_;
    std::size_t boxesBytes_ = 0, totalsBytes_ = 0, smallBytes_ = 0, mediumBytes_ = 0, hotBytes_ = 0, tilesBytes_ = 0,
                packTargetsBytes_ = 0, packWordsBytes_ = 0, packedBytes_ = 0, readbackBytes_ = 0;
    std::size_t largestBatchBytes_ = 0;
    std::uint64_t largestMedium_ = kMediumBox;
    int strips_ = -1;  // whether measure_medium walks strips here (-1: not yet asked)
    bool foregroundConnected_ = false;
};

}  // namespace glccl::measure

#pragma once
// The cpu engine: a multi-threaded connected-component labeler on host
// memory, no GL context needed. Every shape, connectivity, criterion and
// sample width glccl takes; labels and table byte-identical to
// glccl::labelReference, whatever the thread count.
//
//   glccl::cpu::Labeler labeler;  // the threads this process may run on
//   std::vector<std::uint32_t> labels(image.shape().count());
//   std::vector<glccl::Component> table;
//   const std::uint32_t count =
//       labeler.label(image, glccl::Connectivity::Eight, glccl::Criterion::binary(), labels.data(), table);
//
// How it works (docs/design.md, "The CPU engine"): each thread labels a
// stripe of rows (of a volume: rows of its slices in order) as runs with
// provisional labels of its own, the stripes are merged along their borders,
// then each thread writes its stripe's final labels and its part of the table.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "glccl/capabilities.hpp"
#include "glccl/progress.hpp"
#include "glccl/types.hpp"

namespace glccl::cpu {

struct Options {
    // Threads for this call: 0 takes the labeler's own count (Labeler(threads)).
    int threads = 0;
    // Polled on the calling thread between stages and between the stripes it
    // takes; true stops the call with glccl::Cancelled (labels and table are
    // then unspecified). Empty: never cancelled.
    std::function<bool()> cancelled;
    // When set, the wall milliseconds of the stages are added to it: "scan"
    // (stripes labeled as runs), "merge" (stripe borders), "number" (final
    // numbering), "final" (labels written and the table accumulated).
    StageTimings* timings = nullptr;
    // When set, told each stage as it starts and the rows its threads have
    // done (glccl/progress.hpp).
    LabelProgress* progress = nullptr;
    // When set, a binary labeling of an image (2-D, a named connectivity)
    // also writes its foreground here as bits, for measuring its labels
    // without reading them all (glccl::LabelSamples::foreground): row y's
    // element x is bit x % 64 of word y * (words + 1) + x / 64, words =
    // (width + 63) / 64, the word after each row's zero. Any other labeling
    // empties it.
    std::vector<std::uint64_t>* foreground = nullptr;
    // When set with foreground, such a labeling also writes the label of
    // each run of the foreground, row by row and left to right, into
    // runLabels, row y's from runStarts[y] to runStarts[y + 1] (height + 1
    // entries): what measuring reads in place of the labels
    // (glccl::LabelSamples::runLabels). Both are emptied where the image
    // has more than one run for every kElementsPerRunLabel elements, or
    // where foreground is emptied.
    std::vector<std::uint32_t>* runLabels = nullptr;
    std::vector<std::uint64_t>* runStarts = nullptr;
};
// The labeler keeps the runs' labels (Options::runLabels) only where the
// image has at least this many elements for each run of its foreground:
// at most a quarter byte an element. Noise has a run in every few
// elements; its rows are measured from the labels, not as bits.
constexpr std::uint64_t kElementsPerRunLabel = 16;

// What the cpu engine takes (the cpu backend's declaration, which the
// router reads): host memory (a GL texture by a download), every sample
// width, criterion, connectivity, neighbourhood and dimension, any extent. whyNotHere is
// set only where the processor lacks what the build needs (POPCNT).
EngineCapabilities capabilities();

// The cores this process may run on: the CPUs of its affinity mask (what a
// container grants), else std::thread::hardware_concurrency(); at least 1.
int defaultThreads();

// The threads a labeling of `elements` elements runs on when given
// `threads`: at most one per kMinElementsPerThread elements (below that,
// waking a worker and merging its stripe cost more than the rows it would
// label), at least 1.
constexpr std::uint64_t kMinElementsPerThread = std::uint64_t(1) << 16;
int threadsFor(std::uint64_t elements, int threads);

// Bytes a call allocates beyond the caller's input, labels and table, at the
// most, for an input of this kind labeled with `threads` threads (0:
// defaultThreads()): what a memory limit checks before labeling. It grows
// with the width and, for volumes, with a slice's elements times the thread
// count; never with the element count. The table itself is 56 bytes a
// component (sizeof(Component)), at most one component a foreground element.
std::uint64_t scratchBytes(const Shape& shape, int channels, int sampleBits, Connectivity connectivity,
                           const Criterion& criterion, int threads);

// A labeler that keeps its threads and scratch between calls: frames of one
// size and kind allocate nothing after the first. Not thread-safe: one call
// at a time per Labeler (use one Labeler per calling thread).
class Labeler {
public:
    // `threads` workers (0: defaultThreads()), the calling thread one of them.
    explicit Labeler(int threads = 0);
    ~Labeler();
    Labeler(Labeler&&) noexcept;
    Labeler& operator=(Labeler&&) noexcept;
    Labeler(const Labeler&) = delete;
    Labeler& operator=(const Labeler&) = delete;

    // Labels `image` (host memory in ImageView's layout: x fastest, then y,
    // then z; 1 or 4 channels of 8-, 16-, 32- or 64-bit little-endian
    // unsigned samples) into `labels` (image.shape().count() uint32, every one
    // written: 0 background, components 1..N in raster order of their first
    // element) and the table into `table` (resized to N, its storage reused;
    // table[i] describes label i + 1). Returns N. Labels and table are
    // byte-identical to glccl::labelReference's.
    //
    // Throws glccl::Error ("glccl::cpu::Labeler::label(): ...") where the
    // reference refuses: a connectivity that does not fit the dimensions, an
    // empty image, channels other than 1 or 4, sample bits other than 8, 16,
    // 32 or 64, a 2-D image of depth other than 1, binary/segments/delta on 4
    // channels, a level, threshold or delta beyond the samples' largest
    // value, more components than 32-bit labels number; and for null pixels
    // or labels. Throws glccl::Cancelled when options.cancelled says so,
    // std::bad_alloc when scratch cannot be allocated.
    // Cost: linear in the elements: the input is read twice, the labels
    // written once (they hold the provisional labels before that); work is
    // per run of connected elements along x rather than per element.
    std::uint32_t label(const ImageView& image, Connectivity connectivity, const Criterion& criterion,
                        std::uint32_t* labels, std::vector<Component>& table, const Options& options = {});
    // The same with the neighbours of `neighbourhood`: a named
    // connectivity's as above, any other symmetric 3x3 or 3x3x3 block
    // (scipy.ndimage's structure: a vertical line, one diagonal) by the same
    // stages on runs that join along x only where it joins x neighbours.
    // Byte-identical to glccl::labelReference(image, neighbourhood,
    // criterion), whatever the thread count. Throws as above, and where the
    // neighbourhood does not fit the dimensions (whyNeighbourhoodDoesNotFit).
    std::uint32_t label(const ImageView& image, const Neighbourhood& neighbourhood, const Criterion& criterion,
                        std::uint32_t* labels, std::vector<Component>& table, const Options& options = {});

    // The threads a call with options.threads 0 uses.
    int threads() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

// One call with a labeler of its own (Labeler(options.threads).label(...)):
// threads are started and ended, scratch allocated and freed, in the call.
std::uint32_t label(const ImageView& image, Connectivity connectivity, const Criterion& criterion,
                    std::uint32_t* labels, std::vector<Component>& table, const Options& options = {});
std::uint32_t label(const ImageView& image, const Neighbourhood& neighbourhood, const Criterion& criterion,
                    std::uint32_t* labels, std::vector<Component>& table, const Options& options = {});

}  // namespace glccl::cpu

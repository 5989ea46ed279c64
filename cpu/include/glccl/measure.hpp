#pragma once
// Measuring regions on the CPU: the terms of glccl/region_properties.hpp
// gathered by a team of threads, for a label image made anywhere (a
// segmentation's output, a hand annotation) or for a Labeling an engine made.
//
// The image is cut into fixed blocks of rows whatever the thread count; each
// block's totals are added in block order, so that every thread count gives
// the same totals, bit for bit, floating-point intensities included.

#include <glccl/region_properties.hpp>
#include <glccl/types.hpp>

#include <array>

namespace glccl {

// Labels of a label image: integers of 1, 2, 4 or 8 bytes, signed or not,
// laid out x fastest then y then z (a C-ordered numpy array (rows, columns)
// or (planes, rows, columns)). 0 is background; regions need not be
// connected, and their labels need not be consecutive. Negative labels are
// refused.
struct LabelSamples {
    Shape shape;
    const void* data = nullptr;
    int bytes = 4;
    bool isSigned = false;
    // Labels 1..n of a binary labeling in 8-connectivity (an image, not a
    // volume), as a glccl::Session gives them: any two 8-adjacent nonzero
    // labels are equal. measureComponentTerms then reads the rows as bits
    // of the foreground and a run's label at its first element. A label
    // image without that property is measured wrongly with it set.
    bool foregroundConnected = false;
    // With foregroundConnected: the foreground (nonzero labels) as the
    // labeler read it, in bits (cpu::Options::foreground's layout: row y's
    // element x is bit x % 64 of word y * (words + 1) + x / 64, words =
    // (width + 63) / 64, each row's word after its last zero), so that
    // measureComponentTerms reads the labels at their runs' first elements
    // alone. Null: the foreground is read from the labels.
    const std::uint64_t* foreground = nullptr;
    // With foreground: the label of each of its runs, row by row and left
    // to right, row y's from runStarts[y] to runStarts[y + 1]
    // (cpu::Options::runLabels' layout), so that measureComponentTerms
    // reads no label where a row is read as bits. Null (both): each run's
    // label read at its first element. A row read as bits whose runs and
    // run labels differ in number is refused with glccl::Error.
    const std::uint32_t* runLabels = nullptr;
    const std::uint64_t* runStarts = nullptr;
};

// An intensity image of the labels' shape with `channels` samples per
// element (interleaved, as a numpy array (..., channels)).
struct IntensitySamples {
    Shape shape;
    int channels = 1;
    const void* data = nullptr;
    int bytes = 1;
    SampleKind kind = SampleKind::Unsigned;
};

struct MeasureOptions {
    PropertyOptions properties;
    // Threads (0: as many as the machine has).
    int threads = 0;
    // Measure label 0 too, as one more region (scipy.ndimage's index 0,
    // cc3d's statistics).
    bool backgroundIsRegion = false;
    // The intensity has a channel axis (numpy's (..., channels)): intensity
    // columns end with a channel index, as scikit-image names them.
    bool intensityChannelAxis = false;
};

// Where a piece of a larger image lies, for measuring the image piece by
// piece (Dask chunks): the piece's array holds the part it owns and a margin
// of up to 2 elements from its neighbours on every side (the perimeter's
// border pixels look 2 elements away); only owned elements, and the 2x2
// (2x2x2) windows whose far corner is owned, are counted, so that the
// pieces' totals merged (mergeTotals) are the whole image's.
struct PiecePlace {
    std::array<std::int64_t, 3> origin{0, 0, 0};  // the whole image's x, y, z of the array's first element
    std::array<std::int64_t, 3> ownBegin{0, 0, 0}, ownEnd{0, 0, 0};  // the owned part, in the array's x, y, z
    Shape whole;
};

// The totals of every region (ascending labels) for `request`; counts and
// boxes always. Throws glccl::Error for negative labels, an intensity of
// another shape, or an image too large for its sums (sides past 2^24). For
// a piece, a region only its margin holds is listed with a count of 0.
RegionTotals measureTerms(const LabelSamples& labels, const IntensitySamples* intensity,
                          const TermRequest& request, int threads, bool backgroundIsRegion = false,
                          const PiecePlace* piece = nullptr);

// `from`'s totals added to `into`'s: regions matched by label, sums re-centred
// exactly on the merged boxes. Both of one request. Floating-point sums are
// added in the order of the calls.
void mergeTotals(RegionTotals& into, const RegionTotals& from);

// The property table of a label image: termsFor + measureTerms + finalizeProperties.
PropertyTable measureRegions(const LabelSamples& labels, const IntensitySamples* intensity,
                             const MeasureOptions& options);

// The terms of `request` for labels 1..n (unsigned, 4 or 8 bytes) whose
// component table an engine made: counts and boxes from the table.
RegionTotals measureComponentTerms(const LabelSamples& labels, const std::vector<Component>& components,
                                   const IntensitySamples* intensity, const TermRequest& request, int threads = 0);

// The property table of labels 1..n (unsigned, 4 or 8 bytes) whose
// component table an engine made (components[i] for label i + 1): its boxes
// and areas are used, not gathered again.
PropertyTable measureComponents(const LabelSamples& labels, const std::vector<Component>& components,
                                const IntensitySamples* intensity, const MeasureOptions& options);

// The property table of an engine's labeling (measureComponents of its
// labels and table).
PropertyTable measureLabeling(const Labeling& labeling, const IntensitySamples* intensity,
                              const MeasureOptions& options);

}  // namespace glccl

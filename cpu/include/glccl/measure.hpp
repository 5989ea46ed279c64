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

// The totals of every region (ascending labels) for `request`; counts and
// boxes always. Throws glccl::Error for negative labels, an intensity of
// another shape, or an image too large for its sums (sides past 2^24).
RegionTotals measureTerms(const LabelSamples& labels, const IntensitySamples* intensity,
                          const TermRequest& request, int threads, bool backgroundIsRegion = false);

// The property table of a label image: termsFor + measureTerms + finalizeProperties.
PropertyTable measureRegions(const LabelSamples& labels, const IntensitySamples* intensity,
                             const MeasureOptions& options);

// The property table of an engine's labeling (labels 1..n, rows in label
// order): its table's boxes and areas are used, not gathered again.
PropertyTable measureLabeling(const Labeling& labeling, const IntensitySamples* intensity,
                              const MeasureOptions& options);

}  // namespace glccl

#pragma once
// glccl::sumsByLabel: scipy.ndimage's reductions over labels (count, sum,
// variance, extrema and their first positions, centre of mass) for a list of
// labels, in one pass over labels and values on the host, with nothing
// numbered, boxed or sorted first: the host's counterpart of
// glccl::cuda::sumsByLabel, for glccl.ndimage's measurements of numpy arrays.
//
// The elements are cut into fixed stripes whatever the thread count; a team
// of threads gathers each stripe's totals for the labels it holds, and each
// label's totals are added stripe by stripe in stripe order, so that every
// thread count gives the same results, bit for bit. Sums of integer values
// are exact (128-bit integers, 256-bit where 8-byte values are squared or
// weighted by coordinates); sums of floating-point values are double-doubles
// (glccl/region_properties.hpp), added element by element in C order within
// a stripe.

#include <glccl/region_properties.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace glccl {

// What sumsByLabel() gathers for each label of the list, bits of `terms`.
namespace HostLabelSums {
enum : unsigned {
    Count = 1u,     // elements with the label (always gathered)
    Sum = 2u,       // the sum of their values
    Variance = 4u,  // the population variance of their values
    Extrema = 8u,   // the first positions (C order) of the smallest and largest value
    Centre = 16u,   // the centre of mass: coordinates weighted by the values over their sum
};
}  // namespace HostLabelSums

struct LabelSumsInput {
    // The array's extents in numpy order (planes, rows, columns), 1 to 3 axes.
    int axes = 2;
    std::array<std::uint64_t, 3> extents{0, 0, 0};
    // Labels: C-ordered integers of 1, 2, 4 or 8 bytes.
    const void* labels = nullptr;
    int labelBytes = 4;
    bool labelsSigned = false;
    // Values of the labels' shape, C-ordered: integers of 1, 2, 4 or 8
    // bytes or floats of 4 or 8; unread (may be null) for counts alone.
    const void* values = nullptr;
    int valueBytes = 4;
    SampleKind valueKind = SampleKind::Unsigned;
    // The labels asked, distinct and ascending: std::int64_t for signed
    // labels, std::uint64_t for unsigned ones.
    const void* sortedList = nullptr;
    std::size_t listCount = 0;
};

// Where sumsByLabel() writes, arrays of the list's length (null: not
// written). A label with no element gets count 0, sum 0, variance NaN,
// positions 0 and centres NaN (0 / 0), as scipy.ndimage gives for a label
// absent; a label whose values sum to 0 gets centres of (weighted sum) / 0.
// Positions are flat indices in C order; among equal extremes the first
// wins, and a NaN is larger than every number (numpy's sort order).
struct LabelSumsOutput {
    std::int64_t* counts = nullptr;
    double* sums = nullptr;
    double* variances = nullptr;
    std::int64_t* minimumAt = nullptr;
    std::int64_t* maximumAt = nullptr;
    std::array<double*, 3> centres{nullptr, nullptr, nullptr};  // by axis, numpy order
};

// Gathers `terms` (HostLabelSums bits) of every label of the list on
// `threads` threads (0: every core the process may run on). Throws
// glccl::Error for an array it does not read.
void sumsByLabel(const LabelSumsInput& input, unsigned terms, const LabelSumsOutput& out, int threads);

}  // namespace glccl

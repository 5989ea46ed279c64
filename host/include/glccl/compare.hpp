#pragma once
// Comparing two labelings of the same image or volume.

#include <cstdint>
#include <string>

#include "glccl/types.hpp"

namespace glccl {

struct Comparison {
    bool sameSize = true;
    bool identicalLabels = true;    // byte-for-byte equal label arrays
    bool samePartition = true;      // same grouping, numbering aside (background must match)
    bool identicalTables = true;    // component tables equal
    std::uint64_t differingPixels = 0;
    int firstX = -1, firstY = -1;   // first differing pixel in raster order, -1 if none
    int firstZ = -1;                // its slice, in a volume (0 in a 2-D image)
    bool volume = false;            // the labelings are volumes (describe() names z)
    std::uint32_t expectedAtFirst = 0, actualAtFirst = 0;

    bool identical() const { return sameSize && identicalLabels && identicalTables; }
    std::string describe() const;   // one line for logs and test failures
};

Comparison compareLabelings(const Labeling& expected, const Labeling& actual);

// RGB image: black where both agree on background, dark gray where they
// agree on a nonzero label, red where they differ. Of a volume: its slices
// one under the other (width x height * depth).
Image diffImage(const Labeling& expected, const Labeling& actual);

}  // namespace glccl

#pragma once
// Labeler::measureTerms() with the labeling's table that the caller holds
// already (the offscreen labeler's engines downloaded it with the labels),
// so that the measuring does not download it again. Not public: a table of
// another labeling would misplace the regions' records.

#include <vector>

#include "glccl/labeler.hpp"

namespace glccl::detail {

struct LabelerWithTable {
    static RegionTotals measureTerms(Labeler& labeler, const TermRequest& request, unsigned intensity,
                                     const std::vector<Component>& table) {
        return labeler.measureTerms(request, intensity, &table);
    }
};

}  // namespace glccl::detail

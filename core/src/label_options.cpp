// LabelOptions' neighbours (glccl/label_options.hpp).

#include "glccl/label_options.hpp"

namespace glccl {

const char* const kMeasuredByLabelerAlone =
    "LabelOptions::measure is measured by Labeler::label(texture, options) alone; through a route "
    "(OffscreenLabeler, Session, tiles) measure the labels with measureTerms() and finalizeProperties()";

LabelOptions neighbourhoodOptions(LabelOptions options, const Neighbourhood& neighbourhood) {
    if (neighbourhood.isNamed()) {
        options.connectivity = neighbourhood.named();
        options.neighbourhood.reset();
    } else {
        options.connectivity = neighbourhood.dimensions() == 3 ? Connectivity::TwentySix : Connectivity::Eight;
        options.neighbourhood = neighbourhood;
    }
    return options;
}

std::string whyNeighboursDoNotFit(const LabelOptions& options, const Shape& shape) {
    return options.neighbourhood ? whyNeighbourhoodDoesNotFit(*options.neighbourhood, shape)
                                 : whyConnectivityDoesNotFit(options.connectivity, shape);
}

}  // namespace glccl

#pragma once
// The options of one labeling call, the same for every engine and entry
// (glccl::Session, glccl::Labeler, the engines, tiles): GL-free, so that
// the router, the engines' interface and the cpu-only build share them.

#include <functional>
#include <optional>
#include <string>

#include "glccl/backend.hpp"
#include "glccl/progress.hpp"
#include "glccl/region_properties.hpp"
#include "glccl/types.hpp"

namespace glccl {

struct LabelOptions {
    Connectivity connectivity = Connectivity::Eight;
    // Where set, the neighbours that join in place of `connectivity`'s: any
    // symmetric 3x3 or 3x3x3 block (scipy.ndimage's structure), labeled only
    // by the engines that declare neighbourhoods (the cpu engine, the
    // reference; auto takes the cpu engine). A block that is a named
    // connectivity is better given as `connectivity`, which every engine
    // labels (neighbourhoodOptions() does so).
    std::optional<Neighbourhood> neighbourhood;
    Criterion criterion = Criterion::binary();
    // Which engine labels (glccl/backend.hpp); auto picks the fastest that
    // runs in the context, and backend() says which one it was.
    Backend backend = Backend::Auto;
    // Per-stage GPU times (timer queries) in stageTimings(). Costs a glFinish
    // before the first stage, so that the host's pending work is not counted.
    bool timings = false;
    // Threads of the cpu engine: 0 for the cores this process may run on,
    // else 1..kMostThreads. Its labels and table are the same for every count.
    int threads = 0;
    // Polled by what can stop part-way (the cpu engine between its stages
    // and stripes, tiles between rounds); true ends the call with
    // glccl::Cancelled, before anything more is written. Empty: never.
    std::function<bool()> cancelled;
    // When set, told where the call is (glccl/progress.hpp), for another
    // thread to show: the cpu engine its stages and rows, a call in pieces
    // its tiles and bands, the other engines their start and end.
    LabelProgress* progress = nullptr;
    // Region properties measured with the labeling, their table in
    // Labeler::properties() (glccl/labeler.hpp): scikit-image's names (the term properties of
    // glccl/region_properties.hpp: label, bbox, area, centroid, moments,
    // orientation, axis lengths, perimeter, euler_number, intensity_mean,
    // ...; docs/measuring.md lists them), the spacing and the columns'
    // separator. Empty: nothing is measured, and a call costs what a
    // labeling costs. Measured by Labeler::label(texture, options) alone:
    // the route overload (OffscreenLabeler, the Session, tiles) refuses it.
    PropertyOptions measure;
    // The intensity texture of the properties that need one (intensity_*,
    // centroid_weighted*, moments_weighted*): a GL name of the current
    // context, of the input's size and target, GL_R8, GL_R8UI, GL_R16,
    // GL_R16UI or GL_R32UI (read in its units). 0: none. Read only where a
    // property of `measure` needs it.
    unsigned intensity = 0;
};

// Why a call other than Labeler::label(texture, options) (the route
// overload, OffscreenLabeler, the Session, tiles) refuses a non-empty
// LabelOptions::measure: said, not skipped, since a caller who set it would
// otherwise get no table and no word why.
extern const char* const kMeasuredByLabelerAlone;

// Options whose neighbours are `neighbourhood`: `connectivity` where the
// block is a named one, else `neighbourhood` set (and `connectivity` the full
// one of its dimensions, 8 or 26).
LabelOptions neighbourhoodOptions(LabelOptions options, const Neighbourhood& neighbourhood);

// Why the neighbours of `options` (its neighbourhood where set, else its
// connectivity) cannot join the elements of `shape`, "" when they can.
std::string whyNeighboursDoNotFit(const LabelOptions& options, const Shape& shape);

}  // namespace glccl

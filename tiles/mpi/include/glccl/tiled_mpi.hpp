#pragma once
// Tiled labeling over MPI ranks (Open MPI): Bester & Pulles' row blocks,
// generalised to tiles. Every rank labels the tiles of its block of bands
// with its own workers; the equivalences across block borders are merged
// pairwise up a binary tree (each merge sees two rows of border data, never
// the labels), the components are numbered by an exclusive scan of the
// ranks' counts, and every rank writes its rows of the one .npy at their
// offsets (MPI-IO), the table rows of its components likewise.

#include <mpi.h>

#include <functional>
#include <string>

#include "glccl/error.hpp"
#include "glccl/tiled.hpp"

namespace glccl {

struct MpiTiledResult {
    TiledResult local;                 // this rank's run (its plan is the whole image's)
    int ranks = 1;
    std::uint32_t firstBand = 0, endBand = 0;  // this rank's bands
    std::uint64_t count = 0;           // components of the whole image
    LabelType labelType = LabelType::Uint32;
    // Slowest rank's time of each phase.
    double labelMilliseconds = 0.0;    // pass 1 on the rank's block
    double mergeMilliseconds = 0.0;    // tree merge of block borders, roots resolved
    double numberMilliseconds = 0.0;   // scan, numbering, final labels and stats exchanged
    double writeMilliseconds = 0.0;    // pass 2 and MPI-IO
    double deviceMilliseconds = 0.0;   // sum over all ranks' tiles (deviceTimings)
    double busiestDeviceMilliseconds = 0.0;  // the busiest worker of all ranks (its tiles' sum)
    std::uint64_t treeBytes = 0;       // border data this rank sent up the tree
};

// What every rank but the failing one throws, so that only the failing rank
// reports (glccl-mpi prints nothing for it).
class OtherRankFailed : public Error {
public:
    using Error::Error;
};

// Collective over `comm`: every rank calls it with the same options and an
// ImageSource of the same image (each rank maps the file itself). Writes
// `labelsPath` (.npy) and `statsPath` (.csv) if not empty, all or nothing.
// Throws on every rank when any rank fails: glccl::Error with the reason on
// the failing rank, OtherRankFailed on the others, so that no rank waits
// forever. Each rank's route comes from `route` (the caller's door, e.g.
// glccl::Session::route of the source as streamed), asked once on every
// rank, so that each rank labels on what it has; tiles are planned by rank
// 0 (with the smallest backend side of all ranks) and shared.
MpiTiledResult labelTiledMpi(MPI_Comm comm, const ImageSource& source, const TiledOptions& options,
                             const std::function<Route()>& route, const std::string& labelsPath,
                             const std::string& statsPath, bool overwrite);

}  // namespace glccl

// MergeBordersPass: the pixel pairs across a straight border. A border is
// two faces of pixels facing each other: a row above a row or a column
// beside a column between tiles, or two faces of bricks (rows of pixels on
// both sides). A pixel's neighbours across it are the one facing it, and
// those one step away along the face as the connectivity reaches them:
//
//     upper:  ... a[i-1]  a[i]  a[i+1] ...     on a face of several rows,
//                      \   |   /               18 adds the 4 pixels beside
//     lower:  ... b[i-1]  b[i]  b[i+1] ...     the facing one (edges), 26
//                                              also the 4 corners
//
// 4 and 6 take the facing pixel alone; 8 is 18 on a face of one row. Each
// pair is tested by glccl::areConnected on the two pixels, the very function
// the reference labels with, so a pair connects across a border exactly when
// it connects anywhere else.

#include <string>

#include "glccl/error.hpp"
#include "glccl/reference.hpp"
#include "glccl/tile_pipeline.hpp"

namespace glccl {

namespace {

// Steps along a face (rows, columns) to a neighbour across it, one of each
// pair of opposite steps: the other is the same pair seen from its far end.
struct FaceStep {
    int rows, columns;
};
constexpr FaceStep kEdgeSteps[] = {{0, 1}, {1, 0}};
constexpr FaceStep kCornerSteps[] = {{1, 1}, {1, -1}};

}  // namespace

void forEachConnectedPair(const BorderFace& upper, const BorderFace& lower, Connectivity connectivity,
                          const Criterion& criterion,
                          const std::function<void(std::uint64_t, std::uint64_t)>& unite) {
    const std::size_t length = upper.size();
    if (lower.size() != length || upper.channels != lower.channels || upper.sampleBits != lower.sampleBits ||
        upper.rows != lower.rows || upper.rows == 0 || length % upper.rows != 0 ||
        upper.pixels.size() != length * upper.pixelBytes() || lower.pixels.size() != upper.pixels.size())
        throw Error("glccl::forEachConnectedPair(): the two sides of a border differ in length, rows, channels or "
                    "sampleBits (" + std::to_string(upper.size()) + " and " + std::to_string(lower.size()) + " pixels)");
    if (length == 0) return;
    // Both sides as the two rows of one image, so areConnected reads them.
    Image strip(int(length), 2, upper.channels, upper.sampleBits);
    std::copy(upper.pixels.begin(), upper.pixels.end(), strip.pixels.begin());
    std::copy(lower.pixels.begin(), lower.pixels.end(), strip.pixels.begin() + std::ptrdiff_t(upper.pixels.size()));

    // Along a face, neighbouring pairs mostly join the same two parts: a
    // pair of parts just united is not tested again.
    std::uint64_t unitedA = BorderFace::kNone, unitedB = BorderFace::kNone;
    auto visit = [&](std::size_t a, std::size_t b) {
        const std::uint64_t nodeA = upper.nodes[a], nodeB = lower.nodes[b];
        if (nodeA == unitedA && nodeB == unitedB && nodeA != BorderFace::kNone) return;
        if (!areConnected(strip, a, length + b, criterion)) return;
        if (nodeA == BorderFace::kNone || nodeB == BorderFace::kNone)
            throw Error("glccl::labelTiled(): pixels " + std::to_string(a) + " and " + std::to_string(b) +
                        " across a tile border connect by the criterion but one is labeled background");
        unite(nodeA, nodeB);
        unitedA = nodeA;
        unitedB = nodeB;
    };
    const bool edges = connectivity == Connectivity::Eight || connectivity == Connectivity::Eighteen ||
                       connectivity == Connectivity::TwentySix;
    const bool corners = connectivity == Connectivity::TwentySix;
    const std::size_t rows = upper.rows, columns = length / rows;
    const auto visitStep = [&](std::size_t r, std::size_t c, FaceStep step) {
        const std::size_t r2 = r + std::size_t(step.rows);
        const std::ptrdiff_t c2 = std::ptrdiff_t(c) + step.columns;
        if (r2 >= rows || c2 < 0 || std::size_t(c2) >= columns) return;
        const std::size_t i = r * columns + c, j = r2 * columns + std::size_t(c2);
        visit(i, j);
        visit(j, i);
    };
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < columns; ++c) {
            const std::size_t i = r * columns + c;
            // Every pair visited at i has upper[i] or lower[i] in it, and
            // background connects to nothing: skip the common empty stretch fast.
            if (upper.nodes[i] == BorderFace::kNone && lower.nodes[i] == BorderFace::kNone) continue;
            visit(i, i);
            if (edges)
                for (const FaceStep step : kEdgeSteps) visitStep(r, c, step);
            if (corners)
                for (const FaceStep step : kCornerSteps) visitStep(r, c, step);
        }
}

}  // namespace glccl

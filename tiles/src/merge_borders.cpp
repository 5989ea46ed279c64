// MergeBordersPass: the pixel pairs across a straight tile border. A border
// is two sequences of pixels facing each other, a row above a row or a
// column beside a column; either way a pixel's neighbours across it are the
// one facing it and, at 8-connectivity, the two diagonal ones:
//
//     upper:  ... a[i-1]  a[i]  a[i+1] ...
//                      \   |   /
//     lower:  ... b[i-1]  b[i]  b[i+1] ...
//
// Each pair is tested by glccl::areConnected on the two pixels, the very
// function the reference labels with, so a pair connects across a tile
// border exactly when it connects anywhere else.

#include <string>

#include "glccl/error.hpp"
#include "glccl/reference.hpp"
#include "glccl/tile_pipeline.hpp"

namespace glccl {

void forEachConnectedPair(const BorderRow& upper, const BorderRow& lower, Connectivity connectivity,
                          const Criterion& criterion,
                          const std::function<void(std::uint64_t, std::uint64_t)>& unite) {
    const std::size_t length = upper.size();
    if (lower.size() != length || upper.channels != lower.channels || upper.sampleBits != lower.sampleBits ||
        upper.pixels.size() != length * upper.pixelBytes() || lower.pixels.size() != upper.pixels.size())
        throw Error("glccl::forEachConnectedPair(): the two sides of a border differ in length, channels or "
                    "sampleBits (" + std::to_string(upper.size()) + " and " + std::to_string(lower.size()) + " pixels)");
    if (length == 0) return;
    // Both sides as the two rows of one image, so areConnected reads them.
    Image strip(int(length), 2, upper.channels, upper.sampleBits);
    std::copy(upper.pixels.begin(), upper.pixels.end(), strip.pixels.begin());
    std::copy(lower.pixels.begin(), lower.pixels.end(), strip.pixels.begin() + std::ptrdiff_t(upper.pixels.size()));

    auto visit = [&](std::size_t a, std::size_t b) {
        if (!areConnected(strip, a, length + b, criterion)) return;
        const std::uint64_t nodeA = upper.nodes[a], nodeB = lower.nodes[b];
        if (nodeA == BorderRow::kNone || nodeB == BorderRow::kNone)
            throw Error("glccl::labelTiled(): pixels " + std::to_string(a) + " and " + std::to_string(b) +
                        " across a tile border connect by the criterion but one is labeled background");
        unite(nodeA, nodeB);
    };
    const bool eight = connectivity == Connectivity::Eight;
    for (std::size_t i = 0; i < length; ++i) {
        // Every pair visited at i has upper[i] or lower[i] in it, and
        // background connects to nothing: skip the common empty stretch fast.
        if (upper.nodes[i] == BorderRow::kNone && lower.nodes[i] == BorderRow::kNone) continue;
        visit(i, i);
        if (eight && i + 1 < length) {
            visit(i, i + 1);
            visit(i + 1, i);
        }
    }
}

}  // namespace glccl

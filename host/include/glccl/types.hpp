#pragma once
// Vocabulary shared by every backend: connectivity, criterion, images,
// labelings and the component table (the output contract of ARCHITECTURE.md).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace glccl {

enum class Connectivity : int { Four = 4, Eight = 8 };

// Which neighbouring pixels belong together.
//   Binary:    nonzero is foreground; foreground neighbours connect.
//   Segments:  8-bit values, 0 is background; neighbours connect when equal.
//   Threshold: every pixel is foreground (no background); neighbours connect
//              when every channel differs by at most `threshold`.
struct Criterion {
    enum class Kind { Binary, Segments, Threshold };
    Kind kind = Kind::Binary;
    int threshold = 0;  // only for Kind::Threshold, 0..255

    static Criterion binary() { return {Kind::Binary, 0}; }
    static Criterion segments() { return {Kind::Segments, 0}; }
    static Criterion thresholded(int t) { return {Kind::Threshold, t}; }

    // "binary", "segments" or "threshold:T"; throws glccl::Error otherwise.
    static Criterion parse(std::string_view text);
    std::string toString() const;
    bool operator==(const Criterion& o) const { return kind == o.kind && threshold == o.threshold; }
};

Connectivity parseConnectivity(std::string_view text);  // "4" or "8"

// An 8-bit image, row 0 at the top, rows tightly packed.
// channels is 1 (gray) or 4 (RGBA).
struct Image {
    int width = 0;
    int height = 0;
    int channels = 1;
    std::vector<std::uint8_t> pixels;

    Image() = default;
    Image(int w, int h, int c = 1) : width(w), height(h), channels(c), pixels(std::size_t(w) * h * c, 0) {}
    std::uint8_t& at(int x, int y, int c = 0) { return pixels[(std::size_t(y) * width + x) * channels + c]; }
    std::uint8_t at(int x, int y, int c = 0) const { return pixels[(std::size_t(y) * width + x) * channels + c]; }
};

// One row of the component table (OpenCV's connectedComponentsWithStats).
struct Component {
    std::uint32_t left = 0, top = 0, width = 0, height = 0;
    std::uint64_t area = 0;
    double centroidX = 0.0, centroidY = 0.0;
    bool operator==(const Component& o) const {
        return left == o.left && top == o.top && width == o.width && height == o.height && area == o.area &&
               centroidX == o.centroidX && centroidY == o.centroidY;
    }
    bool operator!=(const Component& o) const { return !(*this == o); }
};

// Labels of every pixel (0 background, components 1..N in raster order of
// their first pixel) and the table: components[i] describes label i + 1.
struct Labeling {
    int width = 0;
    int height = 0;
    std::vector<std::uint32_t> labels;
    std::vector<Component> components;

    std::size_t count() const { return components.size(); }
    std::uint32_t at(int x, int y) const { return labels[std::size_t(y) * width + x]; }
};

// GPU time of one named stage (the name is the pass / kernel name).
struct StageTime {
    std::string stage;
    double milliseconds = 0.0;
};
using StageTimings = std::vector<StageTime>;

// Adds `milliseconds` to the entry of `stage` (a stage run several times, a
// loop, accumulates under its one name), or appends it in first-run order.
void addStageTime(StageTimings& timings, const std::string& stage, double milliseconds);

}  // namespace glccl

#pragma once
// Vocabulary shared by every backend: connectivity, criterion, images,
// labelings and the component table (the output contract of docs/formats.md).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace glccl {

// The most threads a call may ask the cpu engine and the measuring for
// (LabelOptions::threads, MeasureOptions::threads: 0 for every core).
constexpr int kMostThreads = 1024;
// "" where `threads` is such a count, else what it must be, to follow
// "threads are " or "LabelOptions::threads is ": "0 (every core ...) or
// 1..1024, not 5000".
std::string whyThreadsRefused(int threads);

// Which neighbours of an element join it, named by how many there are: 4
// (edges) and 8 (edges and corners) in 2-D; 6 (faces), 18 (faces and edges)
// and 26 (faces, edges and corners) in 3-D. Engines say which they take.
enum class Connectivity : int { Four = 4, Eight = 8, Six = 6, Eighteen = 18, TwentySix = 26 };

// The number that names it: 4, 8, 6, 18 or 26.
constexpr int neighbourCount(Connectivity connectivity) { return static_cast<int>(connectivity); }
// 2 for 4 and 8, 3 for 6, 18 and 26.
constexpr int dimensionsOf(Connectivity connectivity) {
    return connectivity == Connectivity::Four || connectivity == Connectivity::Eight ? 2 : 3;
}

// Which neighbours of an element join it, as offsets (dx, dy, dz), each in
// -1..1: a 3x3 block around the element in 2-D (dz 0), a 3x3x3 block in
// 3-D; scipy.ndimage's `structure`. Symmetric about the element (an offset
// joins where its opposite does), so that "a joins b" is "b joins a"; the
// element itself is no neighbour. Each named connectivity is one
// (Neighbourhood(Connectivity::Four) is the cross); the others (a vertical
// line, one diagonal, ...) are labeled by the engines that declare
// neighbourhoods (EngineCapabilities::neighbourhoods: the cpu engine and the
// reference).
class Neighbourhood {
public:
    // The neighbours of a named connectivity.
    explicit Neighbourhood(Connectivity connectivity);
    // Bit bitOf(dx, dy, dz) of `mask` set: that offset joins. The centre's bit
    // is ignored. Throws glccl::Error for dimensions other than 2 or 3, a bit
    // outside the 3x3 block of dz 0 in 2-D or past the 27 of 3-D, or a mask
    // that is not symmetric.
    static Neighbourhood fromMask(int dimensions, std::uint32_t mask);
    static constexpr int bitOf(int dx, int dy, int dz = 0) { return (dz + 1) * 9 + (dy + 1) * 3 + (dx + 1); }

    int dimensions() const { return dimensions_; }
    std::uint32_t mask() const { return mask_; }
    bool joins(int dx, int dy, int dz = 0) const { return (mask_ >> bitOf(dx, dy, dz)) & 1u; }
    // The named connectivity of exactly these neighbours, if one is.
    bool isNamed() const;
    Connectivity named() const;  // only where isNamed()
    // A named one's number ("8"), else the block as rows of 0 and 1, slices
    // first in 3-D, as numpy prints it: "[[0, 1, 0], [0, 0, 0], [0, 1, 0]]".
    std::string toString() const;
    bool operator==(const Neighbourhood& o) const { return dimensions_ == o.dimensions_ && mask_ == o.mask_; }
    bool operator!=(const Neighbourhood& o) const { return !(*this == o); }

private:
    Neighbourhood(int dimensions, std::uint32_t mask) : dimensions_(dimensions), mask_(mask) {}
    int dimensions_ = 2;
    std::uint32_t mask_ = 0;
};

// The extents of an image or a volume, x fastest: width elements a line,
// height lines a slice, depth slices. A 2-D image is dimensions 2 and depth
// 1; a volume is dimensions 3, whatever its depth (a one-slice volume
// connects at 6, 18 or 26 like any other).
struct Shape {
    std::int64_t width = 0;
    std::int64_t height = 0;
    std::int64_t depth = 1;
    int dimensions = 2;

    static Shape image(std::int64_t w, std::int64_t h) { return {w, h, 1, 2}; }
    static Shape volume(std::int64_t w, std::int64_t h, std::int64_t d) { return {w, h, d, 3}; }
    // Elements in all (0 when an extent is not positive).
    std::uint64_t count() const {
        if (width <= 0 || height <= 0 || depth <= 0) return 0;
        return std::uint64_t(width) * std::uint64_t(height) * std::uint64_t(depth);
    }
    // Extent along axis 0 (x), 1 (y) or 2 (z).
    std::int64_t extent(int axis) const { return axis == 0 ? width : axis == 1 ? height : depth; }
    bool operator==(const Shape& o) const {
        return width == o.width && height == o.height && depth == o.depth && dimensions == o.dimensions;
    }
    bool operator!=(const Shape& o) const { return !(*this == o); }
};

// Which neighbouring pixels belong together. Values are in the units of the
// image's samples (0..255 for 8-bit, 0..65535 for 16-bit, 0..2^32-1 for
// 32-bit, 0..2^64-1 for 64-bit images); the criterion's own number (level,
// threshold, delta) is at most 2^32-1 and at most the samples' largest value.
//   Binary:    foreground where the value is above `level` (0: nonzero);
//              foreground neighbours connect.
//   Segments:  the values are segment ids, 0 is background; neighbours
//              connect when their full values are equal.
//   Threshold: every pixel is foreground (no background); neighbours connect
//              when every channel differs by at most `threshold`.
//   Delta:     0 is background (cc3d's `delta`); nonzero neighbours connect
//              when their values differ by at most `delta` (delta 0 is
//              segments).
struct Criterion {
    enum class Kind { Binary, Segments, Threshold, Delta };
    Kind kind = Kind::Binary;
    std::int64_t threshold = 0;  // only for Kind::Threshold: 0..2^32-1, at most the image's largest value
    std::int64_t level = 0;      // only for Kind::Binary: 0..2^32-1 ("binary:L")
    std::int64_t delta = 0;      // only for Kind::Delta: 0..2^32-1 ("delta:D"), at most the image's largest value

    static Criterion binary() { return {Kind::Binary, 0, 0, 0}; }
    static Criterion binaryAbove(std::int64_t level) { return {Kind::Binary, 0, level, 0}; }
    static Criterion segments() { return {Kind::Segments, 0, 0, 0}; }
    static Criterion thresholded(std::int64_t t) { return {Kind::Threshold, t, 0, 0}; }
    static Criterion withinDelta(std::int64_t d) { return {Kind::Delta, 0, 0, d}; }

    // "binary", "binary:L", "segments", "threshold:T" or "delta:D" (L, T and
    // D decimal integers in 0..4294967295); throws glccl::Error otherwise.
    static Criterion parse(std::string_view text);
    std::string toString() const;
    // Why this criterion cannot apply to samples of `sampleBits` bits (its
    // threshold, level or delta above the largest value, 2^sampleBits - 1),
    // "" when it can.
    std::string problemForSampleBits(int sampleBits) const;
    bool operator==(const Criterion& o) const {
        return kind == o.kind && threshold == o.threshold && level == o.level && delta == o.delta;
    }
};

// "4", "8", "6", "18" or "26"; throws glccl::Error otherwise.
Connectivity parseConnectivity(std::string_view text);

// Why `connectivity` cannot join the elements of `shape`, "" when it can: 4
// and 8 connect 2-D images, 6, 18 and 26 volumes. The one rule every engine
// and entry applies; callers put their own entry in front ("connectivity 6
// is for volumes; a 2-D image takes 4 or 8").
std::string whyConnectivityDoesNotFit(Connectivity connectivity, const Shape& shape);

// Why `neighbourhood` cannot join the elements of `shape`, "" when it can: a
// 3x3 one connects 2-D images, a 3x3x3 one volumes.
std::string whyNeighbourhoodDoesNotFit(const Neighbourhood& neighbourhood, const Shape& shape);

// An image or a volume: `depth` slices of `height` rows of `width` pixels,
// row 0 of slice 0 first, x fastest, then y, then z, tightly packed. A 2-D
// image has dimensions 2 and depth 1; a volume has dimensions 3 (shape()).
// channels is 1 (gray) or 4 (RGBA); sampleBits is the bits of one sample: 8,
// 16, 32 or 64 (unsigned integers; 64-bit images are 1 channel). `pixels` holds the samples as little-endian
// bytes, sampleBits / 8 per sample, channels samples per pixel; at() reads
// and writes 8-bit images only, the sample accessors every sampleBits.
struct Image {
    int width = 0;
    int height = 0;
    int depth = 1;       // slices (1 for a 2-D image)
    int dimensions = 2;  // 2 for an image, 3 for a volume
    int channels = 1;
    int sampleBits = 8;
    std::vector<std::uint8_t> pixels;

    Image() = default;
    Image(int w, int h, int c = 1, int bits = 8)
        : width(w), height(h), channels(c), sampleBits(bits), pixels(byteCount(w, h, c, bits), 0) {}
    // An image (Shape::image) or a volume (Shape::volume) of this shape.
    explicit Image(const Shape& shape, int c = 1, int bits = 8)
        : width(int(shape.width)), height(int(shape.height)), depth(int(shape.depth)), dimensions(shape.dimensions),
          channels(c), sampleBits(bits), pixels(byteCount(shape, c, bits), 0) {}

    Shape shape() const { return {width, height, depth, dimensions}; }

    // Bytes of a w x h image of c channels of `bits` bits (0 for negative sizes).
    static std::size_t byteCount(int w, int h, int c, int bits) {
        if (w <= 0 || h <= 0 || c <= 0 || bits <= 0) return 0;
        return std::size_t(w) * std::size_t(h) * std::size_t(c) * std::size_t(bits / 8);
    }
    // Bytes of an image or volume of `shape` (0 when an extent is not positive).
    static std::size_t byteCount(const Shape& shape, int c, int bits) {
        if (c <= 0 || bits <= 0) return 0;
        return std::size_t(shape.count()) * std::size_t(c) * std::size_t(bits / 8);
    }
    int bytesPerSample() const { return sampleBits / 8; }
    // Whether a non-empty image's pixel buffer is not the size its fields
    // call for (the entries report an empty image in their own words).
    bool pixelBufferMismatched() const {
        return width >= 1 && height >= 1 && depth >= 1 && pixels.size() != byteCount(shape(), channels, sampleBits);
    }
    // The largest value a sample of `bits` bits holds: 255, 65535, 2^32-1 or 2^64-1.
    static std::uint64_t largestSample(int bits) {
        return bits >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bits) - 1u;
    }
    std::uint64_t maxValue() const { return largestSample(sampleBits); }
    static bool isSampleBits(int bits) { return bits == 8 || bits == 16 || bits == 32 || bits == 64; }
    // Whether the fields describe an image glccl takes: sides >= 1 (depth 1
    // for dimensions 2, dimensions 2 or 3), 1 or 4 channels, sampleBits 8, 16,
    // 32 or 64, and a pixel buffer of exactly that size.
    bool isConsistent() const {
        return width >= 1 && height >= 1 && depth >= 1 && (dimensions == 3 || (dimensions == 2 && depth == 1)) &&
               (channels == 1 || channels == 4) && isSampleBits(sampleBits) &&
               pixels.size() == byteCount(shape(), channels, sampleBits);
    }

    std::uint8_t& at(int x, int y, int c = 0) { return pixels[(std::size_t(y) * width + x) * channels + c]; }
    std::uint8_t at(int x, int y, int c = 0) const { return pixels[(std::size_t(y) * width + x) * channels + c]; }

    // Sample c of pixel (x, y), or of pixel index i = (z * height + y) * width + x.
    std::uint64_t sample(std::size_t i, int c = 0) const {
        const std::uint8_t* p = pixels.data() + (i * std::size_t(channels) + std::size_t(c)) * std::size_t(sampleBits / 8);
        std::uint64_t value = 0;
        for (int b = 0; b < sampleBits / 8; ++b) value |= std::uint64_t(p[b]) << (8 * b);
        return value;
    }
    std::uint64_t sample(int x, int y, int c = 0) const { return sample(std::size_t(y) * width + x, c); }
    // Sample c of voxel (x, y, z).
    std::uint64_t sampleAt(int x, int y, int z, int c = 0) const {
        return sample((std::size_t(z) * height + y) * width + x, c);
    }
    void setSample(std::size_t i, int c, std::uint64_t value) {
        std::uint8_t* p = pixels.data() + (i * std::size_t(channels) + std::size_t(c)) * std::size_t(sampleBits / 8);
        for (int b = 0; b < sampleBits / 8; ++b) p[b] = std::uint8_t(value >> (8 * b));
    }
    void setSample(int x, int y, int c, std::uint64_t value) { setSample(std::size_t(y) * width + x, c, value); }
};

// Pixels in an Image's layout (x, then y, then z, tightly packed, little-endian samples)
// that the caller owns and keeps alive for the call: the entries that take
// one read the caller's buffer where it already has that layout (a numpy
// array, a mapped file), so that nothing is copied on the host. An Image
// converts to its view.
struct ImageView {
    int width = 0;
    int height = 0;
    int depth = 1;       // slices (1 for a 2-D image)
    int dimensions = 2;  // 2 for an image, 3 for a volume
    int channels = 1;
    int sampleBits = 8;
    const std::uint8_t* pixels = nullptr;

    ImageView() = default;
    ImageView(int w, int h, int c, int bits, const void* p)
        : width(w), height(h), channels(c), sampleBits(bits), pixels(static_cast<const std::uint8_t*>(p)) {}
    ImageView(const Shape& shape, int c, int bits, const void* p)
        : width(int(shape.width)), height(int(shape.height)), depth(int(shape.depth)), dimensions(shape.dimensions),
          channels(c), sampleBits(bits), pixels(static_cast<const std::uint8_t*>(p)) {}
    ImageView(const Image& image)  // NOLINT(google-explicit-constructor): an Image is a view of itself
        : width(image.width), height(image.height), depth(image.depth), dimensions(image.dimensions),
          channels(image.channels), sampleBits(image.sampleBits), pixels(image.pixels.data()) {}
    Shape shape() const { return {width, height, depth, dimensions}; }
    std::size_t byteCount() const { return Image::byteCount(shape(), channels, sampleBits); }
};

// One row of the component table (OpenCV's connectedComponentsWithStats),
// with room for z: the bounding box's first slice (front) and slice count
// (depth), and the centroid's z. A component of a 2-D image has front 0,
// depth 1 and centroidZ 0, and the 2-D outputs (CSV, .npy, Python) leave
// those out. area is the element count (pixels, or voxels of a volume).
struct Component {
    std::uint32_t left = 0, top = 0, width = 0, height = 0;
    std::uint64_t area = 0;
    double centroidX = 0.0, centroidY = 0.0;
    std::uint32_t front = 0, depth = 1;
    double centroidZ = 0.0;
    bool operator==(const Component& o) const {
        return left == o.left && top == o.top && width == o.width && height == o.height && area == o.area &&
               centroidX == o.centroidX && centroidY == o.centroidY && front == o.front && depth == o.depth &&
               centroidZ == o.centroidZ;
    }
    bool operator!=(const Component& o) const { return !(*this == o); }
};

// Labels of every pixel or voxel (0 background, components 1..N in raster
// order of their first element: slice by slice, row by row), laid out as the
// image's samples (x, then y, then z), and the table: components[i]
// describes label i + 1.
struct Labeling {
    int width = 0;
    int height = 0;
    std::vector<std::uint32_t> labels;
    std::vector<Component> components;
    int depth = 1;       // slices (1 for a 2-D image)
    int dimensions = 2;  // 2 for an image, 3 for a volume

    Shape shape() const { return {width, height, depth, dimensions}; }
    std::size_t count() const { return components.size(); }
    std::uint32_t at(int x, int y) const { return labels[std::size_t(y) * width + x]; }
    std::uint32_t at(int x, int y, int z) const { return labels[(std::size_t(z) * height + y) * width + x]; }
};

// GPU time of one named stage (the name is the pass / kernel name). A stage
// the device ran but could not time (a driver whose timer query reads next to
// nothing, as llvmpipe's 1 ns for compute dispatches) has measured false:
// its milliseconds are no time.
struct StageTime {
    std::string stage;
    double milliseconds = 0.0;
    bool measured = true;
};
using StageTimings = std::vector<StageTime>;

// Adds `milliseconds` to the entry of `stage` (a stage run several times, a
// loop, accumulates under its one name), or appends it in first-run order;
// the entry is measured while every time added to it was.
void addStageTime(StageTimings& timings, const std::string& stage, double milliseconds, bool measured = true);

}  // namespace glccl

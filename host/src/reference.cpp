#include "glccl/reference.hpp"

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "glccl/canonical.hpp"
#include "glccl/error.hpp"
#include "small_helpers.hpp"

namespace glccl {

namespace {

// The criterion on the CPU, written once. The public isForeground /
// areConnected and the labeler below all go through these two functions, on
// the samples of one sampleBits (Sample: uint8_t, uint16_t, uint32_t or
// uint64_t; the image holds them little-endian). Values are compared as
// unsigned integers of 64 bits, which every sample and criterion number fits
// without a sign. Binary, segments and delta are defined for any channel
// count (foreground when some channel is foreground) so that the predicates
// never read out of bounds; labelReference restricts them to 1-channel
// images as the contract says.
template <class Sample>
std::uint64_t loadSample(const std::uint8_t* p) {
    std::uint64_t value = 0;
    for (std::size_t b = 0; b < sizeof(Sample); ++b) value |= std::uint64_t(p[b]) << (8 * b);
    return value;
}

std::uint64_t distance(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : b - a; }

template <class Sample>
bool pixelIsForeground(const std::uint8_t* p, int channels, const Criterion& criterion) {
    if (criterion.kind == Criterion::Kind::Threshold) return true;
    // Binary: above the level (0: nonzero); segments and delta: nonzero.
    const auto level = std::uint64_t(criterion.kind == Criterion::Kind::Binary ? criterion.level : 0);
    for (int c = 0; c < channels; ++c) {
        if (loadSample<Sample>(p + c * sizeof(Sample)) > level) return true;
    }
    return false;
}

// Whether every channel of a and b differs by at most `largest`.
template <class Sample>
bool channelsWithin(const std::uint8_t* a, const std::uint8_t* b, int channels, std::int64_t largest) {
    for (int c = 0; c < channels; ++c) {
        if (distance(loadSample<Sample>(a + c * sizeof(Sample)), loadSample<Sample>(b + c * sizeof(Sample))) >
            std::uint64_t(largest))
            return false;
    }
    return true;
}

template <class Sample>
bool pixelsConnect(const std::uint8_t* a, const std::uint8_t* b, int channels, const Criterion& criterion) {
    switch (criterion.kind) {
        case Criterion::Kind::Binary:
            return pixelIsForeground<Sample>(a, channels, criterion) && pixelIsForeground<Sample>(b, channels, criterion);
        case Criterion::Kind::Segments:
            return channelsWithin<Sample>(a, b, channels, 0) && pixelIsForeground<Sample>(a, channels, criterion);
        case Criterion::Kind::Threshold: return channelsWithin<Sample>(a, b, channels, criterion.threshold);
        case Criterion::Kind::Delta:
            return channelsWithin<Sample>(a, b, channels, criterion.delta) &&
                   pixelIsForeground<Sample>(a, channels, criterion) && pixelIsForeground<Sample>(b, channels, criterion);
    }
    return false;
}

// Union-find over pixel indices in which every parent index is smaller than
// its child (Stava & Benes Fig. 35.4 links the larger root to the smaller).
// Hence the root of a tree is the first pixel of its component in raster
// order, which is what makes the canonical numbering fall out of pass 2.
// Written here on its own, not taken from the engines' union-find
// (glccl/key_forest.hpp): the reference is the independent oracle every
// engine is checked against, and shares no labeling code with them.
// Index: uint32_t, or uint64_t for 2^32 elements and more.
template <class Index>
Index findRoot(std::vector<Index>& parent, Index i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];  // path halving keeps parents smaller than children
        i = parent[i];
    }
    return i;
}

template <class Index>
void unite(std::vector<Index>& parent, Index a, Index b) {
    const Index rootA = findRoot(parent, a);
    const Index rootB = findRoot(parent, b);
    if (rootA < rootB) parent[rootB] = rootA;
    if (rootB < rootA) parent[rootA] = rootB;
}

// "WxH" for an image, "WxHxD" for a volume.
std::string describe(const Image& image) {
    std::string text = std::to_string(image.width) + "x" + std::to_string(image.height);
    if (image.dimensions == 3) text += "x" + std::to_string(image.depth);
    return text;
}

void validate(const Image& image, const Neighbourhood& neighbourhood, const Criterion& criterion) {
    const std::string where = "glccl::labelReference(): ";
    const std::string misfit = whyNeighbourhoodDoesNotFit(neighbourhood, image.shape());
    if (!misfit.empty()) throw Error(where + misfit);
    if (image.width <= 0 || image.height <= 0 || image.depth <= 0) {
        throw Error(where + "the " + std::string(image.dimensions == 3 ? "volume" : "image") + " is empty (" +
                    describe(image) + ")");
    }
    if (image.channels != 1 && image.channels != 4) {
        throw Error(where + "the image has " + std::to_string(image.channels) + " channels; expected 1 or 4");
    }
    if (!Image::isSampleBits(image.sampleBits)) {
        throw Error(where + "the image has " + std::to_string(image.sampleBits) +
                    "-bit samples; expected 8, 16, 32 or 64");
    }
    if (!image.isConsistent()) {
        throw Error(where + "the image is " + describe(image) + "x" + std::to_string(image.channels) + " of " +
                    std::to_string(image.sampleBits) +
                    "-bit samples but holds " + std::to_string(image.pixels.size()) + " bytes");
    }
    if (criterion.kind != Criterion::Kind::Threshold && image.channels != 1) {
        throw Error(where + "criterion '" + criterion.toString() +
                    "' needs a 1-channel image but this one has 4 channels (convert it to gray first)");
    }
    const std::string problem = criterion.problemForSampleBits(image.sampleBits);
    if (!problem.empty()) throw Error(where + problem);
}

}  // namespace

bool isForeground(const Image& image, std::size_t pixel, const Criterion& criterion) {
    const std::size_t pixelBytes = std::size_t(image.channels) * std::size_t(image.bytesPerSample());
    return withSampleType(image.sampleBits, [&](auto sample) {
        return pixelIsForeground<decltype(sample)>(&image.pixels[pixel * pixelBytes], image.channels, criterion);
    });
}

bool areConnected(const Image& image, std::size_t a, std::size_t b, const Criterion& criterion) {
    const std::size_t pixelBytes = std::size_t(image.channels) * std::size_t(image.bytesPerSample());
    return withSampleType(image.sampleBits, [&](auto sample) {
        return pixelsConnect<decltype(sample)>(&image.pixels[a * pixelBytes], &image.pixels[b * pixelBytes],
                                               image.channels, criterion);
    });
}

namespace {

// The neighbours a raster scan has already visited when it reaches an
// element, as offsets (dx, dy, dz): those whose linear index is smaller. The
// rest of the neighbourhood is visited from the other side (a neighbourhood
// is symmetric). In 2-D, at 8-connectivity:
//     NW N NE
//     W  *
// In 3-D the slice before holds the 9 of the 3x3 square at 26-connectivity,
// the 5 of its cross at 18 and its centre at 6; the element's own slice adds
// the four (or two, at 6) of the 2-D picture.
struct Offset {
    int dx, dy, dz;
};

std::vector<Offset> visitedNeighbours(const Neighbourhood& neighbourhood) {
    std::vector<Offset> offsets;
    for (int dz = neighbourhood.dimensions() == 3 ? -1 : 0; dz <= 0; ++dz) {
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                const bool before = dz < 0 || (dz == 0 && (dy < 0 || (dy == 0 && dx < 0)));
                if (before && neighbourhood.joins(dx, dy, dz)) offsets.push_back({dx, dy, dz});
            }
        }
    }
    return offsets;
}

template <class Sample, class Index>
Labeling labelSamples(const Image& image, const Neighbourhood& neighbourhood, const Criterion& criterion) {
    const std::int64_t width = image.width, height = image.height, depth = image.depth;
    const int channels = image.channels;
    const std::size_t pixelBytes = std::size_t(channels) * sizeof(Sample);
    const std::uint8_t* pixels = image.pixels.data();
    const std::size_t elementCount = image.shape().count();
    const std::vector<Offset> neighbours = visitedNeighbours(neighbourhood);

    // The equivalence forest of pass 1; with 32-bit indices it becomes the
    // label array in pass 2. Background elements are marked so that pass 2
    // can tell them apart without evaluating the criterion again.
    constexpr Index kBackground = std::numeric_limits<Index>::max();
    std::vector<Index> forest(elementCount);

    // Pass 1 (Fig. 35.3 / Algorithm 1): every foreground element starts as
    // its own root and is united with the visited neighbours it connects to.
    for (std::int64_t z = 0; z < depth; ++z) {
        for (std::int64_t y = 0; y < height; ++y) {
            for (std::int64_t x = 0; x < width; ++x) {
                const auto i = Index((z * height + y) * width + x);
                const std::uint8_t* p = pixels + std::size_t(i) * pixelBytes;
                if (!pixelIsForeground<Sample>(p, channels, criterion)) {
                    forest[i] = kBackground;
                    continue;
                }
                forest[i] = i;
                for (const Offset& o : neighbours) {
                    const std::int64_t nx = x + o.dx, ny = y + o.dy, nz = z + o.dz;
                    if (nx < 0 || nx >= width || ny < 0 || ny >= height || nz < 0) continue;
                    const auto neighbour = Index((nz * height + ny) * width + nx);
                    if (pixelsConnect<Sample>(p, pixels + std::size_t(neighbour) * pixelBytes, channels, criterion))
                        unite(forest, i, neighbour);
                }
            }
        }
    }

    // Pass 2: in raster order a root is met before the rest of its
    // component, and every parent index is smaller than its child, so the
    // parent's label is final when the child is reached. With 64-bit
    // indices the labels go into an array of their own.
    std::vector<std::uint32_t> labels;
    if constexpr (sizeof(Index) != sizeof(std::uint32_t)) labels.resize(elementCount);
    std::vector<std::uint32_t>& out = [&]() -> std::vector<std::uint32_t>& {
        if constexpr (sizeof(Index) == sizeof(std::uint32_t)) return forest;
        else return labels;
    }();
    std::uint32_t count = 0;
    for (std::size_t i = 0; i < elementCount; ++i) {
        const Index parent = forest[i];
        if (parent == kBackground) {
            out[i] = 0;
        } else if (parent == i) {
            if (count == UINT32_MAX)
                throw Error("glccl::labelReference(): the " + std::string(image.dimensions == 3 ? "volume" : "image") +
                            " " + describe(image) + " has more components than 32-bit labels can number");
            out[i] = ++count;
        } else {
            out[i] = out[parent];
        }
    }
    if constexpr (sizeof(Index) != sizeof(std::uint32_t)) std::vector<Index>().swap(forest);
    return canonicalLabeling(image.shape(), std::move(out), count);
}

}  // namespace

EngineCapabilities referenceCapabilities() {
    EngineCapabilities engine;
    engine.backend = Backend::Reference;
    engine.residences = {Residence::HostMemory};
    engine.textureDownload = true;
    engine.sampleBits = {8, 16, 32, 64};
    engine.channels = {1, 4};  // binary and segments read the red channel of a color texture
    engine.thresholdChannels = {1, 4};
    engine.connectivities = {Connectivity::Four, Connectivity::Eight, Connectivity::Six, Connectivity::Eighteen,
                             Connectivity::TwentySix};
    engine.neighbourhoods = true;
    engine.dimensions = {2, 3};
    engine.largestExtent = std::numeric_limits<int>::max();
    engine.largestCount = std::numeric_limits<std::uint64_t>::max();
    return engine;
}

Labeling labelReference(const Image& image, Connectivity connectivity, Criterion criterion) {
    return labelReference(image, Neighbourhood(connectivity), criterion);
}

Labeling labelReference(const Image& image, const Neighbourhood& neighbourhood, Criterion criterion) {
    // 32-bit indices where they reach every element (UINT32_MAX marks the
    // background), 64-bit past that.
    return detail::labelReference(image, neighbourhood, criterion, image.shape().count() >= std::uint64_t(UINT32_MAX));
}

Labeling detail::labelReference(const Image& image, Connectivity connectivity, Criterion criterion, bool wide) {
    return labelReference(image, Neighbourhood(connectivity), criterion, wide);
}

Labeling detail::labelReference(const Image& image, const Neighbourhood& neighbourhood, Criterion criterion,
                                bool wide) {
    validate(image, neighbourhood, criterion);
    return withSampleType(image.sampleBits, [&](auto sample) {
        using Sample = decltype(sample);
        return wide ? labelSamples<Sample, std::uint64_t>(image, neighbourhood, criterion)
                    : labelSamples<Sample, std::uint32_t>(image, neighbourhood, criterion);
    });
}

}  // namespace glccl

#include "glccl/generate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "glccl/error.hpp"

namespace glccl {

namespace {

constexpr int kMaxGeneratedSide = 32768;  // generateFamily: an Image in memory
constexpr std::uint64_t kMaxRandomPixels = std::uint64_t(1) << 31;  // randomImage
constexpr std::uint8_t kOn = 255;
constexpr const char* kFamilyForms =
    "noise<P> (P = 0..100, e.g. noise50), granularity<G> (G = 1..16, e.g. granularity4), large, dense_disks, "
    "sparse_disks, corridor, spiral, comb, rings, staircase, checkerboard, zeros, ones";

// splitmix64: a fixed, tiny generator, so an image depends only on (family,
// size, seed) and never on the standard library's distributions.
class Random {
public:
    explicit Random(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

    // Uniform in 0..n-1 (Lemire's multiply-shift; the bias is below 2^-32).
    std::uint32_t below(std::uint32_t n) { return std::uint32_t((std::uint64_t(std::uint32_t(next() >> 32)) * n) >> 32); }

    // Uniform in lo..hi inclusive.
    int between(int lo, int hi) { return lo + int(below(std::uint32_t(hi - lo + 1))); }

    // True with probability numerator / denominator.
    bool chance(std::uint64_t numerator, std::uint64_t denominator) {
        return (next() >> 11) < (numerator << 53) / denominator;
    }

private:
    std::uint64_t state_;
};

std::uint64_t isqrt(std::uint64_t n) {
    auto r = std::uint64_t(std::sqrt(double(n)));
    while (r * r > n) --r;
    while ((r + 1) * (r + 1) <= n) ++r;
    return r;
}

// Rows firstRow .. firstRow + rows - 1 of a generated image of `width`
// columns, zero-filled before a family paints them. A family paints every
// band of an image in order, top to bottom, and a pixel comes out the same
// whether its image is one band or many: the families that draw random
// numbers draw them in the same order either way.
struct Band {
    std::int64_t width = 0, firstRow = 0, rows = 0;
    std::uint8_t* pixels = nullptr;

    std::int64_t endRow() const { return firstRow + rows; }
    std::uint8_t& at(std::int64_t x, std::int64_t y) { return pixels[std::size_t(y - firstRow) * std::size_t(width) + std::size_t(x)]; }
};

void fillSpan(Band& band, std::int64_t y, std::int64_t x0, std::int64_t x1, std::uint8_t value) {
    if (y < band.firstRow || y >= band.endRow()) return;
    x0 = std::max<std::int64_t>(x0, 0);
    x1 = std::min(x1, band.width - 1);
    if (x0 > x1) return;
    std::memset(&band.at(x0, y), value, std::size_t(x1 - x0 + 1));
}

// The rows of -radius..radius around cy that lie in the band.
std::pair<std::int64_t, std::int64_t> rowsInBand(const Band& band, std::int64_t cy, std::int64_t radius) {
    return {std::max(-radius, band.firstRow - cy), std::min(radius, band.endRow() - 1 - cy)};
}

struct Disk {
    std::int32_t cx, cy, radius;
};

void fillDisk(Band& band, const Disk& disk, std::uint8_t value) {
    const std::int64_t r2 = std::int64_t(disk.radius) * disk.radius;
    const auto [first, last] = rowsInBand(band, disk.cy, disk.radius);
    for (std::int64_t dy = first; dy <= last; ++dy) {
        const auto half = std::int64_t(isqrt(std::uint64_t(r2 - dy * dy)));
        fillSpan(band, disk.cy + dy, disk.cx - half, disk.cx + half, value);
    }
}

void fillEllipse(Band& band, std::int64_t cx, std::int64_t cy, std::int64_t rx, std::int64_t ry, std::uint8_t value) {
    const auto [first, last] = rowsInBand(band, cy, ry);
    for (std::int64_t dy = first; dy <= last; ++dy) {
        const double t = double(dy) / double(ry);
        const auto half = std::int64_t(std::floor(double(rx) * std::sqrt(std::max(0.0, 1.0 - t * t))));
        fillSpan(band, cy + dy, cx - half, cx + half, value);
    }
}

void fillRectangle(Band& band, std::int64_t x0, std::int64_t y0, std::int64_t x1, std::int64_t y1, std::uint8_t value) {
    for (std::int64_t y = std::max(y0, band.firstRow); y <= std::min(y1, band.endRow() - 1); ++y)
        fillSpan(band, y, x0, x1, value);
}

// One family of one image: paint() is called for its bands in order.
class Family {
public:
    virtual ~Family() = default;
    virtual void paint(Band& band) = 0;
};

// A family that is a function of the pixel's position alone.
template <class Paint>
class PositionFamily final : public Family {
public:
    explicit PositionFamily(Paint paint) : paint_(std::move(paint)) {}
    void paint(Band& band) override { paint_(band); }

private:
    Paint paint_;
};

template <class Paint>
std::unique_ptr<Family> positionFamily(Paint paint) {
    return std::make_unique<PositionFamily<Paint>>(std::move(paint));
}

class Noise final : public Family {
public:
    Noise(int percent, std::uint64_t seed) : percent_(percent), random_(seed) {}
    void paint(Band& band) override {
        const std::size_t count = std::size_t(band.rows) * std::size_t(band.width);
        for (std::size_t i = 0; i < count; ++i) band.pixels[i] = random_.chance(std::uint64_t(percent_), 100) ? kOn : 0;
    }

private:
    int percent_;
    Random random_;
};

// YACCLAB's granularity images: noise drawn on g x g blocks, so that the
// components have a minimum feature size of g.
class Granularity final : public Family {
public:
    Granularity(int g, std::int64_t width, std::uint64_t seed)
        : g_(g), random_(seed), blockRow_(std::size_t((width + g - 1) / g), 0) {}
    void paint(Band& band) override {
        for (std::int64_t y = band.firstRow; y < band.endRow(); ++y) {
            if (y % g_ == 0) {
                for (std::uint8_t& b : blockRow_) b = random_.chance(1, 2) ? kOn : 0;
            }
            for (std::int64_t x = 0; x < band.width; ++x) band.at(x, y) = blockRow_[std::size_t(x / g_)];
        }
    }

private:
    int g_;
    Random random_;
    std::vector<std::uint8_t> blockRow_;
};

// Disks of random radii at random centres; `perTile` disks per 1024^2
// pixels. All are drawn up front (12 bytes a disk), sorted by centre row,
// so that a band paints only the disks that reach it.
class Disks final : public Family {
public:
    Disks(std::int64_t width, std::int64_t height, int perTile, int minRadius, int maxRadius, std::uint64_t seed)
        : maxRadius_(maxRadius) {
        Random random(seed);
        const double tiles = double(width) * double(height) / (1024.0 * 1024.0);
        const auto count = std::max<std::uint64_t>(1, std::uint64_t(std::llround(perTile * tiles)));
        disks_.reserve(std::size_t(count));
        for (std::uint64_t i = 0; i < count; ++i) {
            Disk disk{};
            disk.cx = std::int32_t(random.below(std::uint32_t(width)));
            disk.cy = std::int32_t(random.below(std::uint32_t(height)));
            disk.radius = random.between(minRadius, maxRadius);
            disks_.push_back(disk);
        }
        // Every disk paints foreground only, so their order does not matter.
        std::sort(disks_.begin(), disks_.end(), [](const Disk& a, const Disk& b) { return a.cy < b.cy; });
    }
    void paint(Band& band) override {
        auto disk = std::lower_bound(disks_.begin(), disks_.end(), band.firstRow - maxRadius_,
                                     [](const Disk& d, std::int64_t row) { return d.cy < row; });
        for (; disk != disks_.end() && disk->cy < band.endRow() + maxRadius_; ++disk) fillDisk(band, *disk, kOn);
    }

private:
    std::int64_t maxRadius_;
    std::vector<Disk> disks_;
};

// A handful of large overlapping ellipses and rectangles, sized with the
// canvas, some with holes: few components, each spanning many tiles. The
// shapes are drawn up front and painted in their order on every band (a
// hole clears what the shapes before it painted).
class Large final : public Family {
public:
    Large(std::int64_t width, std::int64_t height, std::uint64_t seed) {
        Random random(seed);
        const int w = int(width), h = int(height);
        const int shapes = random.between(5, 8);
        for (int i = 0; i < shapes; ++i) {
            Shape shape{};
            shape.cx = random.below(std::uint32_t(w));
            shape.cy = random.below(std::uint32_t(h));
            shape.rx = random.between(w / 12, w / 4) + 1;
            shape.ry = random.between(h / 12, h / 4) + 1;
            shape.ellipse = random.below(2) == 0;
            shape.hole = random.below(2) == 0;
            shapes_.push_back(shape);
        }
    }
    void paint(Band& band) override {
        for (const Shape& s : shapes_) {
            if (s.ellipse) fillEllipse(band, s.cx, s.cy, s.rx, s.ry, kOn);
            else fillRectangle(band, s.cx - s.rx, s.cy - s.ry, s.cx + s.rx, s.cy + s.ry, kOn);
            if (s.hole) fillEllipse(band, s.cx, s.cy, s.rx / 3, s.ry / 3, 0);
        }
    }

private:
    struct Shape {
        std::int64_t cx, cy, rx, ry;
        bool ellipse, hole;
    };
    std::vector<Shape> shapes_;
};

// One snake-shaped path: full rows on even y, joined alternately at the
// right and the left end through one pixel of the odd row between them.
void corridor(Band& band) {
    const std::int64_t w = band.width;
    for (std::int64_t y = band.firstRow; y < band.endRow(); ++y) {
        if (y % 2 == 0) {
            fillSpan(band, y, 0, w - 1, kOn);
        } else {
            band.at(y % 4 == 1 ? w - 1 : 0, y) = kOn;
        }
    }
}

// A square spiral, one path one pixel wide with one-pixel gaps. Even layers
// (distance to the border) are rectangular rings; ring e is cut at (e, e+1)
// and joined to ring e+2 through the pixel (e+1, e+2) of the odd layer:
//     e . . . .      ring e enters at (e, e) from the bridge of ring e-2,
//     x   . . .      goes clockwise and leaves at (e, e+2) through the
//     . b . . .      bridge b to ring e+2; x is the cut.
// The innermost ring may be thin; it is trimmed so that the path never
// touches itself.
void spiral(Band& band, std::int64_t h) {
    const std::int64_t w = band.width;
    auto ringExists = [&](std::int64_t layer) { return layer <= w - 1 - layer && layer <= h - 1 - layer; };
    for (std::int64_t y = band.firstRow; y < band.endRow(); ++y) {
        for (std::int64_t x = 0; x < w; ++x) {
            const std::int64_t layer = std::min(std::min(x, y), std::min(w - 1 - x, h - 1 - y));
            bool on = layer % 2 == 0;
            const bool thinRing = w - 1 - layer - layer == 1 || h - 1 - layer - layer == 1;
            if (on && thinRing) {
                // A ring two pixels thick cannot be walked without touching
                // itself; the path ends along its top row and right column.
                on = y == layer || x == w - 1 - layer;
            } else if (x == layer && y == layer + 1) {
                if (on) {
                    on = !(w - 1 - layer > layer && h - 1 - layer >= layer + 2);
                } else {
                    on = ringExists(layer + 1);
                }
            }
            band.at(x, y) = on ? kOn : 0;
        }
    }
}

// A comb: a spine along the bottom row and a tooth up every other column.
// The first pixel of the component is the top of the leftmost tooth, so
// its label has to travel down one tooth, along the spine and up all others.
void comb(Band& band, std::int64_t h) {
    const std::int64_t w = band.width;
    fillSpan(band, h - 1, 0, w - 1, kOn);
    for (std::int64_t y = band.firstRow; y < std::min(band.endRow(), h - 1); ++y) {
        for (std::int64_t x = 0; x < w; x += 2) band.at(x, y) = kOn;
    }
}

// Concentric rings two pixels wide, two apart, around the centre.
void rings(Band& band, std::int64_t h) {
    const std::int64_t cx = band.width / 2, cy = h / 2;
    for (std::int64_t y = band.firstRow; y < band.endRow(); ++y) {
        const std::int64_t dy = y - cy;
        for (std::int64_t x = 0; x < band.width; ++x) {
            const std::int64_t dx = x - cx;
            const std::uint64_t radius = isqrt(std::uint64_t(dx * dx + dy * dy));
            band.at(x, y) = (radius / 2) % 2 == 0 ? kOn : 0;
        }
    }
}

// Parallel staircases going down to the right: runs of kStep pixels, each
// run one row below and just past the previous one, so consecutive runs
// touch only at a corner. Each staircase is one component at 8-connectivity
// and falls apart into its runs at 4-connectivity.
void staircase(Band& band) {
    constexpr std::int64_t kStep = 4;
    constexpr std::int64_t kPeriod = 3 * kStep;
    for (std::int64_t y = band.firstRow; y < band.endRow(); ++y) {
        for (std::int64_t x = 0; x < band.width; ++x) {
            const std::int64_t phase = ((x - kStep * y) % kPeriod + kPeriod) % kPeriod;
            band.at(x, y) = phase < kStep ? kOn : 0;
        }
    }
}

void checkerboard(Band& band) {
    for (std::int64_t y = band.firstRow; y < band.endRow(); ++y) {
        for (std::int64_t x = 0; x < band.width; ++x) band.at(x, y) = (x + y) % 2 == 0 ? kOn : 0;
    }
}

// The number after `prefix` in `name`, or -1 when the rest is not 1..3 digits.
int parameterAfter(std::string_view name, std::string_view prefix) {
    if (name.substr(0, prefix.size()) != prefix) return -1;
    const std::string_view digits = name.substr(prefix.size());
    if (digits.empty() || digits.size() > 3) return -1;
    int value = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') return -1;
        value = value * 10 + (c - '0');
    }
    return value;
}

[[noreturn]] void unknownFamily(const std::string& where, const std::string& family) {
    throw Error(where + "unknown family '" + family + "'; valid names are " + kFamilyForms);
}

// The family called `name` for an image of width x height; `where` starts
// the error for an unknown name.
std::unique_ptr<Family> makeFamily(const std::string& where, const std::string& family, std::int64_t width,
                                   std::int64_t height, std::uint64_t seed) {
    if (family.rfind("noise", 0) == 0) {
        const int percent = parameterAfter(family, "noise");
        if (percent < 0 || percent > 100) unknownFamily(where, family);
        return std::make_unique<Noise>(percent, seed);
    }
    if (family.rfind("granularity", 0) == 0) {
        const int g = parameterAfter(family, "granularity");
        if (g < 1 || g > 16) unknownFamily(where, family);
        return std::make_unique<Granularity>(g, width, seed);
    }
    if (family == "large") return std::make_unique<Large>(width, height, seed);
    if (family == "dense_disks") return std::make_unique<Disks>(width, height, 2500, 2, 12, seed);
    if (family == "sparse_disks") return std::make_unique<Disks>(width, height, 250, 4, 24, seed);
    if (family == "corridor") return positionFamily([](Band& band) { corridor(band); });
    if (family == "spiral") return positionFamily([height](Band& band) { spiral(band, height); });
    if (family == "comb") return positionFamily([height](Band& band) { comb(band, height); });
    if (family == "rings") return positionFamily([height](Band& band) { rings(band, height); });
    if (family == "staircase") return positionFamily([](Band& band) { staircase(band); });
    if (family == "checkerboard") return positionFamily([](Band& band) { checkerboard(band); });
    // A band starts all zero.
    if (family == "zeros") return positionFamily([](Band&) {});
    if (family == "ones")
        return positionFamily([](Band& band) {
            std::memset(band.pixels, kOn, std::size_t(band.rows) * std::size_t(band.width));
        });
    unknownFamily(where, family);
}

}  // namespace

Image generateFamily(const std::string& family, int width, int height, std::uint64_t seed) {
    if (width < 1 || height < 1 || width > kMaxGeneratedSide || height > kMaxGeneratedSide) {
        throw Error("glccl::generateFamily(): size " + std::to_string(width) + "x" + std::to_string(height) +
                    " is outside 1..32768 on a side");
    }
    Image image(width, height, 1);
    Band band{width, 0, height, image.pixels.data()};
    makeFamily("glccl::generateFamily(): ", family, width, height, seed)->paint(band);
    return image;
}

struct FamilyRows::State {
    std::unique_ptr<Family> family;
};

FamilyRows::FamilyRows(const std::string& family, std::int64_t width, std::int64_t height, std::uint64_t seed)
    : width_(width), height_(height) {
    if (width < 1 || height < 1 || width > kMaxStreamedSide || height > kMaxStreamedSide) {
        throw Error("glccl::FamilyRows(): size " + std::to_string(width) + "x" + std::to_string(height) +
                    " is outside 1.." + std::to_string(kMaxStreamedSide) + " on a side");
    }
    state_ = std::make_unique<State>();
    state_->family = makeFamily("glccl::FamilyRows(): ", family, width, height, seed);
}

FamilyRows::FamilyRows(FamilyRows&&) noexcept = default;
FamilyRows& FamilyRows::operator=(FamilyRows&&) noexcept = default;
FamilyRows::~FamilyRows() = default;

void FamilyRows::next(std::int64_t rows, std::uint8_t* out) {
    if (rows < 1 || rows > height_ - nextRow_)
        throw Error("glccl::FamilyRows::next(): " + std::to_string(rows) + " rows asked for at row " +
                    std::to_string(nextRow_) + "; expected 1.." + std::to_string(height_ - nextRow_));
    std::memset(out, 0, std::size_t(rows) * std::size_t(width_));
    Band band{width_, nextRow_, rows, out};
    state_->family->paint(band);
    nextRow_ += rows;
}

std::vector<std::string> generatedFamilies() {
    return {"noise10",  "noise50",   "noise90", "granularity4", "granularity16", "large",
            "dense_disks", "sparse_disks", "corridor", "spiral", "comb", "rings",
            "staircase", "checkerboard", "zeros", "ones"};
}

Image randomImage(int width, int height, double density, int levels, int channels, std::uint64_t seed) {
    const std::string where = "glccl::randomImage(): ";
    // Any shape in memory, the images past the GPU engines' widths included
    // (a 65601x3 image reaches the CUDA engine's Stava & Benes kernels).
    if (width < 1 || height < 1 || std::uint64_t(width) * std::uint64_t(height) > kMaxRandomPixels) {
        throw Error(where + "size " + std::to_string(width) + "x" + std::to_string(height) +
                    " is not 1x1 .. 2^31 pixels");
    }
    if (!(density >= 0.0 && density <= 1.0)) {
        throw Error(where + "density " + std::to_string(density) + " is outside 0..1");
    }
    if (levels < 2 || levels > 256) throw Error(where + "levels " + std::to_string(levels) + " is outside 2..256");
    if (channels != 1 && channels != 4) {
        throw Error(where + "channels is " + std::to_string(channels) + "; expected 1 or 4");
    }

    // Level k of `levels` is the value k * 255 / (levels - 1): 2 levels are 0 / 255.
    auto value = [levels](std::uint32_t level) { return std::uint8_t(level * 255u / std::uint32_t(levels - 1)); };
    const auto threshold = std::uint64_t(std::ldexp(density, 53));
    Random random(seed);
    Image image(width, height, channels);
    std::uint8_t* p = image.pixels.data();
    const std::size_t pixelCount = std::size_t(width) * height;
    for (std::size_t i = 0; i < pixelCount; ++i, p += channels) {
        if ((random.next() >> 11) >= threshold) continue;
        if (channels == 1) {
            p[0] = value(1 + random.below(std::uint32_t(levels - 1)));
            continue;
        }
        // Every channel varies on its own so that the threshold criterion
        // meets pixels that are close in some channels and far in others;
        // all-zero draws are repeated because the pixel must be nonzero.
        bool nonzero = false;
        while (!nonzero) {
            for (int c = 0; c < 4; ++c) {
                p[c] = value(random.below(std::uint32_t(levels)));
                nonzero = nonzero || p[c] != 0;
            }
        }
    }
    return image;
}

namespace {

constexpr const char* kVolumeFamilyForms = "noise<P> (P = 0..100, e.g. noise30), blobs, balls, hilbert";

// A volume's voxel (x, y, z) in its pixel buffer.
std::size_t voxelIndex(const Image& volume, std::int64_t x, std::int64_t y, std::int64_t z) {
    return (std::size_t(z) * std::size_t(volume.height) + std::size_t(y)) * std::size_t(volume.width) + std::size_t(x);
}

// The mean over a window of `radius` on each side along one axis, in place,
// mirrored at the ends (d c b a | a b c d | d c b a), for every line of
// `field` along that axis. The lines are taken a batch of neighbours at a
// time (contiguous in memory but along x), so each step reads whole rows
// rather than one element a cache line; every element's sum runs over the
// same window in the same order, whatever the batch.
void boxAlongAxis(std::vector<float>& field, const Image& volume, int axis, int radius) {
    const std::int64_t extent[3] = {volume.width, volume.height, volume.depth};
    const std::int64_t n = extent[axis];
    // field is [outer][n][inner]: inner elements between two of a line.
    std::int64_t inner = 1, outer = 1;
    for (int a = 0; a < axis; ++a) inner *= extent[a];
    for (int a = axis + 1; a < 3; ++a) outer *= extent[a];
    const std::int64_t batch = std::min<std::int64_t>(inner, 2048);
    std::vector<float> lines(std::size_t(n * batch));
    std::vector<const float*> window(std::size_t(2 * radius + 1));
    auto mirrored = [n](std::int64_t i) {
        while (i < 0 || i >= n) i = i < 0 ? -i - 1 : 2 * n - i - 1;
        return i;
    };
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t first = 0; first < inner; first += batch) {
            const std::int64_t count = std::min(batch, inner - first);
            const std::size_t base = std::size_t(o * n * inner + first);
            for (std::int64_t k = 0; k < n; ++k)
                std::memcpy(&lines[std::size_t(k * count)], &field[base + std::size_t(k * inner)], std::size_t(count) * sizeof(float));
            for (std::int64_t k = 0; k < n; ++k) {
                for (int w = -radius; w <= radius; ++w)
                    window[std::size_t(w + radius)] = &lines[std::size_t(mirrored(k + w) * count)];
                float* out = &field[base + std::size_t(k * inner)];
                for (std::int64_t c = 0; c < count; ++c) {
                    double sum = 0.0;
                    for (const float* row : window) sum += row[c];
                    out[c] = float(sum / (2 * radius + 1));
                }
            }
        }
}

void blobs(Image& volume, Random& random) {
    std::vector<float> field(volume.shape().count());
    for (float& value : field) value = float(double(random.next() >> 11) / double(std::uint64_t(1) << 53));
    for (int axis = 0; axis < 3; ++axis) boxAlongAxis(field, volume, axis, 2);
    for (std::size_t i = 0; i < field.size(); ++i)
        if (field[i] > 0.52f) volume.pixels[i] = kOn;
}

void balls(Image& volume, Random& random) {
    const int n = std::min({volume.width, volume.height, volume.depth});
    const int smallest = n / 32 + 2, largest = n / 10 + 2;
    for (int ball = 0; ball < std::max(1, n / 8); ++ball) {
        const std::int64_t cx = random.below(std::uint32_t(volume.width)), cy = random.below(std::uint32_t(volume.height)),
                           cz = random.below(std::uint32_t(volume.depth));
        const std::int64_t r = random.between(smallest, largest);
        for (std::int64_t z = std::max<std::int64_t>(0, cz - r); z <= std::min<std::int64_t>(volume.depth - 1, cz + r); ++z)
            for (std::int64_t y = std::max<std::int64_t>(0, cy - r); y <= std::min<std::int64_t>(volume.height - 1, cy + r);
                 ++y) {
                const std::int64_t rest = r * r - (z - cz) * (z - cz) - (y - cy) * (y - cy);
                if (rest < 0) continue;
                const auto half = std::int64_t(isqrt(std::uint64_t(rest)));
                const std::int64_t x0 = std::max<std::int64_t>(0, cx - half);
                const std::int64_t x1 = std::min<std::int64_t>(volume.width - 1, cx + half);
                if (x0 <= x1) std::memset(&volume.pixels[voxelIndex(volume, x0, y, z)], kOn, std::size_t(x1 - x0 + 1));
            }
    }
}

// Point `index` of the 3-D Hilbert curve of 2^bits points a side: the index
// spread over three words, bit by bit (the "transposed" index), then
// Skilling's Gray decoding and undoing of the excess rotations
// ("Programming the Hilbert curve", 2004).
std::array<std::uint32_t, 3> hilbertPoint(std::uint64_t index, int bits) {
    std::array<std::uint32_t, 3> x{0, 0, 0};
    for (int k = 0; k < bits; ++k)
        for (int i = 0; i < 3; ++i)
            if ((index >> (3 * k + (2 - i))) & 1u) x[std::size_t(i)] |= 1u << k;
    const std::uint32_t t = x[2] >> 1;
    for (int i = 2; i > 0; --i) x[std::size_t(i)] ^= x[std::size_t(i - 1)];
    x[0] ^= t;
    for (std::uint32_t q = 2; q < (1u << bits); q <<= 1) {
        const std::uint32_t p = q - 1;
        for (int i = 2; i >= 0; --i) {
            if (x[std::size_t(i)] & q) {
                x[0] ^= p;
            } else {
                const std::uint32_t swap = (x[0] ^ x[std::size_t(i)]) & p;
                x[0] ^= swap;
                x[std::size_t(i)] ^= swap;
            }
        }
    }
    return x;
}

void hilbert(Image& volume) {
    const int n = std::min({volume.width, volume.height, volume.depth});
    int bits = 0;
    while (2 * (std::int64_t(2) << bits) - 1 <= n) ++bits;  // 2^bits points at spacing 2 fit n
    const std::uint64_t points = std::uint64_t(1) << (3 * bits);
    std::array<std::uint32_t, 3> last{};
    for (std::uint64_t i = 0; i < points; ++i) {
        const auto point = hilbertPoint(i, bits);
        volume.pixels[voxelIndex(volume, 2 * point[0], 2 * point[1], 2 * point[2])] = kOn;
        if (i > 0)  // the voxel between this point and the last (one step apart on one axis)
            volume.pixels[voxelIndex(volume, point[0] + last[0], point[1] + last[1], point[2] + last[2])] = kOn;
        last = point;
    }
}

}  // namespace

Image generateVolumeFamily(const std::string& family, int width, int height, int depth, std::uint64_t seed) {
    const std::string where = "glccl::generateVolumeFamily(): ";
    if (width < 1 || height < 1 || depth < 1 || width > kMaxGeneratedSide || height > kMaxGeneratedSide || depth > kMaxGeneratedSide)
        throw Error(where + "size " + std::to_string(width) + "x" + std::to_string(height) + "x" +
                    std::to_string(depth) + " is outside 1..32768 on a side");
    Image volume(Shape::volume(width, height, depth));
    Random random(seed);
    if (family.rfind("noise", 0) == 0) {
        const int percent = parameterAfter(family, "noise");
        if (percent < 0 || percent > 100)
            throw Error(where + "unknown family '" + family + "'; valid names are " + kVolumeFamilyForms);
        for (std::uint8_t& voxel : volume.pixels)
            if (random.chance(std::uint64_t(percent), 100)) voxel = kOn;
    } else if (family == "blobs") {
        blobs(volume, random);
    } else if (family == "balls") {
        balls(volume, random);
    } else if (family == "hilbert") {
        hilbert(volume);
    } else {
        throw Error(where + "unknown family '" + family + "'; valid names are " + kVolumeFamilyForms);
    }
    return volume;
}

std::vector<std::string> generatedVolumeFamilies() { return {"noise30", "blobs", "balls", "hilbert"}; }

Image randomVolume(int width, int height, int depth, double density, int levels, std::uint64_t seed) {
    if (width < 1 || height < 1 || depth < 1 || width > kMaxGeneratedSide || height > kMaxGeneratedSide || depth > kMaxGeneratedSide)
        throw Error("glccl::randomVolume(): size " + std::to_string(width) + "x" + std::to_string(height) + "x" +
                    std::to_string(depth) + " is outside 1..32768 on a side");
    // Slice z is randomImage's of seed + z (its arguments' errors are its own).
    Image volume(Shape::volume(width, height, depth));
    const std::size_t sliceBytes = std::size_t(width) * std::size_t(height);
    for (int z = 0; z < depth; ++z) {
        const Image slice = randomImage(width, height, density, levels, 1, seed + std::uint64_t(z));
        std::memcpy(volume.pixels.data() + std::size_t(z) * sliceBytes, slice.pixels.data(), sliceBytes);
    }
    return volume;
}

}  // namespace glccl

#include "glccl/generate.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>

#include "glccl/error.hpp"

namespace glccl {

namespace {

constexpr int kMaxSide = 32768;
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

void fillSpan(Image& image, int y, int x0, int x1, std::uint8_t value) {
    if (y < 0 || y >= image.height) return;
    x0 = std::max(x0, 0);
    x1 = std::min(x1, image.width - 1);
    if (x0 > x1) return;
    std::memset(&image.at(x0, y), value, std::size_t(x1 - x0 + 1));
}

void fillDisk(Image& image, int cx, int cy, int radius, std::uint8_t value) {
    const std::int64_t r2 = std::int64_t(radius) * radius;
    for (int dy = -radius; dy <= radius; ++dy) {
        const int half = int(isqrt(std::uint64_t(r2 - std::int64_t(dy) * dy)));
        fillSpan(image, cy + dy, cx - half, cx + half, value);
    }
}

void fillEllipse(Image& image, int cx, int cy, int rx, int ry, std::uint8_t value) {
    for (int dy = -ry; dy <= ry; ++dy) {
        const double t = double(dy) / double(ry);
        const int half = int(std::floor(double(rx) * std::sqrt(std::max(0.0, 1.0 - t * t))));
        fillSpan(image, cy + dy, cx - half, cx + half, value);
    }
}

void fillRectangle(Image& image, int x0, int y0, int x1, int y1, std::uint8_t value) {
    for (int y = y0; y <= y1; ++y) fillSpan(image, y, x0, x1, value);
}

void noise(Image& image, int percent, Random& random) {
    for (std::uint8_t& p : image.pixels) p = random.chance(std::uint64_t(percent), 100) ? kOn : 0;
}

// YACCLAB's granularity images: noise drawn on g x g blocks, so that the
// components have a minimum feature size of g.
void granularity(Image& image, int g, Random& random) {
    const int blocksX = (image.width + g - 1) / g;
    std::vector<std::uint8_t> blockRow(std::size_t(blocksX), 0);
    for (int y = 0; y < image.height; ++y) {
        if (y % g == 0) {
            for (std::uint8_t& b : blockRow) b = random.chance(1, 2) ? kOn : 0;
        }
        for (int x = 0; x < image.width; ++x) image.at(x, y) = blockRow[std::size_t(x / g)];
    }
}

// Disks of random radii at random centres; `perTile` disks per 1024^2 pixels.
void disks(Image& image, int perTile, int minRadius, int maxRadius, Random& random) {
    const double tiles = double(image.width) * double(image.height) / (1024.0 * 1024.0);
    const auto count = std::max<std::uint64_t>(1, std::uint64_t(std::llround(perTile * tiles)));
    for (std::uint64_t i = 0; i < count; ++i) {
        const int cx = int(random.below(std::uint32_t(image.width)));
        const int cy = int(random.below(std::uint32_t(image.height)));
        fillDisk(image, cx, cy, random.between(minRadius, maxRadius), kOn);
    }
}

// A handful of large overlapping ellipses and rectangles, sized with the
// canvas, some with holes: few components, each spanning many tiles.
void large(Image& image, Random& random) {
    const int w = image.width, h = image.height;
    const int shapes = random.between(5, 8);
    for (int i = 0; i < shapes; ++i) {
        const int cx = int(random.below(std::uint32_t(w)));
        const int cy = int(random.below(std::uint32_t(h)));
        const int rx = random.between(w / 12, w / 4) + 1;
        const int ry = random.between(h / 12, h / 4) + 1;
        if (random.below(2) == 0) {
            fillEllipse(image, cx, cy, rx, ry, kOn);
        } else {
            fillRectangle(image, cx - rx, cy - ry, cx + rx, cy + ry, kOn);
        }
        if (random.below(2) == 0) fillEllipse(image, cx, cy, rx / 3, ry / 3, 0);
    }
}

// One snake-shaped path: full rows on even y, joined alternately at the
// right and the left end through one pixel of the odd row between them.
void corridor(Image& image) {
    const int w = image.width;
    for (int y = 0; y < image.height; ++y) {
        if (y % 2 == 0) {
            fillSpan(image, y, 0, w - 1, kOn);
        } else {
            image.at(y % 4 == 1 ? w - 1 : 0, y) = kOn;
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
void spiral(Image& image) {
    const int w = image.width, h = image.height;
    auto ringExists = [&](int layer) { return layer <= w - 1 - layer && layer <= h - 1 - layer; };
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const int layer = std::min(std::min(x, y), std::min(w - 1 - x, h - 1 - y));
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
            image.at(x, y) = on ? kOn : 0;
        }
    }
}

// A comb: a spine along the bottom row and a tooth up every other column.
// The first pixel of the component is the top of the leftmost tooth, so
// its label has to travel down one tooth, along the spine and up all others.
void comb(Image& image) {
    const int w = image.width, h = image.height;
    fillSpan(image, h - 1, 0, w - 1, kOn);
    for (int y = 0; y + 1 < h; ++y) {
        for (int x = 0; x < w; x += 2) image.at(x, y) = kOn;
    }
}

// Concentric rings two pixels wide, two apart, around the centre.
void rings(Image& image) {
    const std::int64_t cx = image.width / 2, cy = image.height / 2;
    for (int y = 0; y < image.height; ++y) {
        const std::int64_t dy = y - cy;
        for (int x = 0; x < image.width; ++x) {
            const std::int64_t dx = x - cx;
            const std::uint64_t radius = isqrt(std::uint64_t(dx * dx + dy * dy));
            image.at(x, y) = (radius / 2) % 2 == 0 ? kOn : 0;
        }
    }
}

// Parallel staircases going down to the right: runs of kStep pixels, each
// run one row below and just past the previous one, so consecutive runs
// touch only at a corner. Each staircase is one component at 8-connectivity
// and falls apart into its runs at 4-connectivity.
void staircase(Image& image) {
    constexpr std::int64_t kStep = 4;
    constexpr std::int64_t kPeriod = 3 * kStep;
    for (int y = 0; y < image.height; ++y) {
        for (int x = 0; x < image.width; ++x) {
            const std::int64_t phase = ((std::int64_t(x) - kStep * y) % kPeriod + kPeriod) % kPeriod;
            image.at(x, y) = phase < kStep ? kOn : 0;
        }
    }
}

void checkerboard(Image& image) {
    for (int y = 0; y < image.height; ++y) {
        for (int x = 0; x < image.width; ++x) image.at(x, y) = (x + y) % 2 == 0 ? kOn : 0;
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

[[noreturn]] void unknownFamily(const std::string& family) {
    throw Error("glccl::generateFamily(): unknown family '" + family + "'; valid names are " + kFamilyForms);
}

}  // namespace

Image generateFamily(const std::string& family, int width, int height, std::uint64_t seed) {
    if (width < 1 || height < 1 || width > kMaxSide || height > kMaxSide) {
        throw Error("glccl::generateFamily(): size " + std::to_string(width) + "x" + std::to_string(height) +
                    " is outside 1..32768 on a side");
    }
    Image image(width, height, 1);
    Random random(seed);

    if (family.rfind("noise", 0) == 0) {
        const int percent = parameterAfter(family, "noise");
        if (percent < 0 || percent > 100) unknownFamily(family);
        noise(image, percent, random);
    } else if (family.rfind("granularity", 0) == 0) {
        const int g = parameterAfter(family, "granularity");
        if (g < 1 || g > 16) unknownFamily(family);
        granularity(image, g, random);
    } else if (family == "large") {
        large(image, random);
    } else if (family == "dense_disks") {
        disks(image, 2500, 2, 12, random);
    } else if (family == "sparse_disks") {
        disks(image, 250, 4, 24, random);
    } else if (family == "corridor") {
        corridor(image);
    } else if (family == "spiral") {
        spiral(image);
    } else if (family == "comb") {
        comb(image);
    } else if (family == "rings") {
        rings(image);
    } else if (family == "staircase") {
        staircase(image);
    } else if (family == "checkerboard") {
        checkerboard(image);
    } else if (family == "zeros") {
        // Image starts all zero.
    } else if (family == "ones") {
        std::fill(image.pixels.begin(), image.pixels.end(), kOn);
    } else {
        unknownFamily(family);
    }
    return image;
}

std::vector<std::string> generatedFamilies() {
    return {"noise10",  "noise50",   "noise90", "granularity4", "granularity16", "large",
            "dense_disks", "sparse_disks", "corridor", "spiral", "comb", "rings",
            "staircase", "checkerboard", "zeros", "ones"};
}

Image randomImage(int width, int height, double density, int levels, int channels, std::uint64_t seed) {
    const std::string where = "glccl::randomImage(): ";
    if (width < 1 || height < 1 || width > kMaxSide || height > kMaxSide) {
        throw Error(where + "size " + std::to_string(width) + "x" + std::to_string(height) +
                    " is outside 1..32768 on a side");
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

}  // namespace glccl

// The cpu engine's accumulator of region terms (glccl/measure.hpp).
//
// Three passes over fixed blocks of rows ("chunks", sized by the image's
// width alone, never by the thread count):
//   1. labels: the largest, no negative one, which are present;
//   2. counts and boxes (skipped for an engine's labeling, whose table has them);
//   3. the requested terms, in coordinates local to each region's box.
// A region whose rows lie inside one chunk gets its totals from that chunk
// alone; the totals of a region spanning chunks are added chunk by chunk in
// chunk order. Integer sums are exact whatever the order, and the order of
// floating-point ones is fixed, so every thread count gives the same totals.

#include <glccl/cpu_labeler.hpp>
#include <glccl/error.hpp>
#include <glccl/measure.hpp>

#include "thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <functional>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace glccl {
namespace {

using cpu::detail::ThreadPool;

constexpr std::int64_t kNoRegion = -1;
constexpr std::uint64_t kChunkElements = 1u << 16;  // elements per chunk, at least one row

std::string where() { return "glccl::measureRegions(): "; }

// --- Reading labels -------------------------------------------------------------

// Label value of element i, as an unsigned 64-bit integer; `negative` set
// where a signed label is below 0.
struct LabelReader {
    const std::uint8_t* data;
    int bytes;
    bool isSigned;
    std::uint64_t at(std::size_t i, bool& negative) const {
        const std::uint8_t* p = data + i * std::size_t(bytes);
        switch (bytes) {
        case 1: {
            if (isSigned) { const auto v = std::int8_t(*p); negative |= v < 0; return std::uint64_t(std::max<int>(v, 0)); }
            return *p;
        }
        case 2: {
            std::uint16_t u; std::memcpy(&u, p, 2);
            if (isSigned) { const auto v = std::int16_t(u); negative |= v < 0; return std::uint64_t(std::max<int>(v, 0)); }
            return u;
        }
        case 4: {
            std::uint32_t u; std::memcpy(&u, p, 4);
            if (isSigned) { const auto v = std::int32_t(u); negative |= v < 0; return std::uint64_t(std::max<std::int32_t>(v, 0)); }
            return u;
        }
        default: {
            std::uint64_t u; std::memcpy(&u, p, 8);
            if (isSigned) { const auto v = std::int64_t(u); negative |= v < 0; return std::uint64_t(std::max<std::int64_t>(v, 0)); }
            return u;
        }
        }
    }
};

// Region index of a label value: the rank among the present labels
// (ascending), label 0 a region only where the background is measured.
class RegionIndex {
public:
    // Labels 1..n of an engine's labeling (uint32).
    static RegionIndex consecutive(std::uint64_t n, bool background) {
        RegionIndex r;
        r.mode_ = Mode::Consecutive;
        r.background_ = background;
        r.regions_ = n + (background ? 1 : 0);
        return r;
    }
    static RegionIndex dense(std::vector<std::int64_t> table, std::size_t regions) {
        RegionIndex r;
        r.mode_ = Mode::Dense;
        r.table_ = std::move(table);
        r.regions_ = regions;
        return r;
    }
    static RegionIndex sparse(std::vector<std::uint64_t> sortedLabels) {
        RegionIndex r;
        r.mode_ = Mode::Sparse;
        r.regions_ = sortedLabels.size();
        r.sorted_ = std::move(sortedLabels);
        return r;
    }
    std::size_t regions() const { return regions_; }
    std::int64_t of(std::uint64_t label) const {
        switch (mode_) {
        case Mode::Consecutive:
            if (label == 0) return background_ ? 0 : kNoRegion;
            return std::int64_t(label) - (background_ ? 0 : 1);
        case Mode::Dense: return table_[label];
        default: {
            const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), label);
            return it != sorted_.end() && *it == label ? std::int64_t(it - sorted_.begin()) : kNoRegion;
        }
        }
    }

private:
    enum class Mode { Consecutive, Dense, Sparse };
    Mode mode_ = Mode::Consecutive;
    bool background_ = false;
    std::size_t regions_ = 0;
    std::vector<std::int64_t> table_;
    std::vector<std::uint64_t> sorted_;
};

// The image's geometry and its chunks.
struct Grid {
    std::int64_t w = 0, h = 0, d = 1;
    int dims = 2;
    std::int64_t rows = 0;  // h * d
    std::int64_t rowsPerChunk = 1;
    std::size_t chunks = 0;
    explicit Grid(const Shape& s) : w(s.width), h(s.height), d(s.dimensions == 3 ? s.depth : 1), dims(s.dimensions) {
        rows = h * d;
        rowsPerChunk = std::max<std::int64_t>(1, std::int64_t(kChunkElements) / std::max<std::int64_t>(w, 1));
        chunks = std::size_t((rows + rowsPerChunk - 1) / rowsPerChunk);
    }
    std::int64_t chunkBegin(std::size_t c) const { return std::int64_t(c) * rowsPerChunk; }
    std::int64_t chunkEnd(std::size_t c) const { return std::min(rows, chunkBegin(c) + rowsPerChunk); }
};

// Region indices of one row (y, z), computed once and kept while a chunk
// reads around it.
class RowIndices {
public:
    RowIndices(const Grid& g, const std::function<void(std::int64_t, std::int64_t*)>& fill) : g_(g), fill_(fill) {
        for (auto& s : slots_) s.values.resize(std::size_t(g.w));
    }
    // The row's indices, or nullptr outside the image.
    const std::int64_t* row(std::int64_t y, std::int64_t z) {
        if (y < 0 || y >= g_.h || z < 0 || z >= g_.d) return nullptr;
        const std::int64_t id = z * g_.h + y;
        for (auto& s : slots_)
            if (s.id == id) return s.values.data();
        Slot& s = slots_[next_];
        next_ = (next_ + 1) % slots_.size();
        s.id = id;
        fill_(id, s.values.data());
        return s.values.data();
    }

private:
    struct Slot {
        std::int64_t id = -1;
        std::vector<std::int64_t> values;
    };
    const Grid& g_;
    const std::function<void(std::int64_t, std::int64_t*)>& fill_;
    std::array<Slot, 10> slots_;
    std::size_t next_ = 0;
};

// --- Local configurations -------------------------------------------------------

// Bits of a 2x2 window whose bottom-right element is (x, y): 1 (x, y),
// 2 (x, y - 1), 4 (x - 1, y), 8 (x - 1, y - 1); in 3-D the window's back
// slice z - 1 adds the same four shifted by 4 bits.
//
// Euler numbers count the region as a union of closed unit squares (cubes),
// which touch where 8-connected (26-connected) elements do: its Euler
// characteristic V - E + F (- C) is a sum over the grid's vertices, each
// window holding one vertex at its centre with the edges, faces and cubes
// around it shared among their vertices. kEulerTimes holds 4 (2-D) or 8
// (3-D) times each configuration's share.
struct Configurations {
    std::array<int, 16> euler2{};
    std::array<int, 256> euler3{};
    std::array<int, 16> crofton{};  // Crofton class 0..4, or -1 (coefficient 0)

    Configurations() {
        for (int c = 0; c < 16; ++c) {
            const bool br = c & 1, tr = c & 2, bl = c & 4, tl = c & 8;
            const int pixels = br + tr + bl + tl;
            const int edges = (tl || tr) + (bl || br) + (tl || bl) + (tr || br);
            euler2[std::size_t(c)] = 4 * (pixels > 0) - 2 * edges + pixels;
        }
        for (int c = 0; c < 256; ++c) {
            auto set = [&](int dx, int dy, int dz) { return (c >> voxelBit(dx, dy, dz)) & 1; };
            int voxels = 0;
            for (int i = 0; i < 8; ++i) voxels += (c >> i) & 1;
            int edges = 0;  // six edges from the vertex, each amid the four voxels on its side
            for (int axis = 0; axis < 3; ++axis)
                for (int side = 0; side < 2; ++side) {
                    bool any = false;
                    for (int a = 0; a < 2; ++a)
                        for (int b = 0; b < 2; ++b) {
                            int v[3];
                            v[axis] = side;
                            v[(axis + 1) % 3] = a;
                            v[(axis + 2) % 3] = b;
                            any |= set(v[0], v[1], v[2]) != 0;
                        }
                    edges += any;
                }
            int faces = 0;  // twelve faces at the vertex, each between two voxels
            for (int axis = 0; axis < 3; ++axis)
                for (int a = 0; a < 2; ++a)
                    for (int b = 0; b < 2; ++b) {
                        int v[3], u[3];
                        v[axis] = 0;
                        u[axis] = 1;
                        v[(axis + 1) % 3] = u[(axis + 1) % 3] = a;
                        v[(axis + 2) % 3] = u[(axis + 2) % 3] = b;
                        faces += (set(v[0], v[1], v[2]) || set(u[0], u[1], u[2]));
                    }
            euler3[std::size_t(c)] = 8 * (voxels > 0) - 4 * edges + 2 * faces - voxels;
        }
        crofton.fill(-1);
        for (int c : {1, 5}) crofton[std::size_t(c)] = 0;
        for (int c : {2, 7, 10, 11}) crofton[std::size_t(c)] = 1;
        crofton[3] = 2;
        for (int c : {8, 12}) crofton[std::size_t(c)] = 3;
        for (int c : {9, 13}) crofton[std::size_t(c)] = 4;
    }
    // Bit of the voxel at (x - 1 + dx, y - 1 + dy, z - 1 + dz) in a window
    // whose far corner is (x, y, z): the 2-D bits, slice z - 1 four above.
    static int voxelBit(int dx, int dy, int dz) { return (dz ? 0 : 4) + (dx ? 0 : 2) + (dy ? 0 : 1); }
};

const Configurations& configurations() {
    static const Configurations c;
    return c;
}


// --- Reading intensities ----------------------------------------------------------

struct Sample {
    __int128 integer = 0;  // unsigned and signed kinds
    double real = 0.0;     // every kind (rounded for integers past 2^53)
    std::uint64_t bits = 0;
};

struct IntensityReader {
    const std::uint8_t* data = nullptr;
    int bytes = 1;
    int channels = 1;
    SampleKind kind = SampleKind::Unsigned;
    Sample at(std::size_t element, int channel) const {
        const std::uint8_t* p = data + (element * std::size_t(channels) + std::size_t(channel)) * std::size_t(bytes);
        Sample s;
        if (kind == SampleKind::Float) {
            if (bytes == 4) { float f; std::memcpy(&f, p, 4); s.real = f; }
            else std::memcpy(&s.real, p, 8);
            std::memcpy(&s.bits, &s.real, 8);
            return s;
        }
        std::uint64_t u = 0;
        std::memcpy(&u, p, std::size_t(bytes));
        if (kind == SampleKind::Signed && bytes < 8 && (u >> (8 * bytes - 1)) & 1) u |= ~std::uint64_t(0) << (8 * bytes);
        s.bits = u;
        s.integer = kind == SampleKind::Signed ? __int128(std::int64_t(u)) : __int128(u);
        s.real = double(s.integer);
        return s;
    }
    // a < b in the samples' own order.
    bool less(const Sample& a, const Sample& b) const {
        if (kind == SampleKind::Float) return a.real < b.real || (std::isnan(a.real) && !std::isnan(b.real));
        return a.integer < b.integer;
    }
};

// --- Chunk totals -------------------------------------------------------------------

// Exact accumulators: __int128 where every sum a chunk can reach fits
// (checked from the boxes and the intensity's width), Int256 otherwise.
inline void add(__int128& a, __int128 v) { a += v; }
inline void add(Int256& a, __int128 v) { a += v; }
inline __int128 product(__int128 a, __int128 b, __int128*) { return a * b; }
inline Int256 product(__int128 a, __int128 b, Int256*) { return Int256::of(a) * Int256::of(b); }
inline Int256 product(const Int256& a, __int128 b) { return a * Int256::of(b); }
inline __int128 product(__int128 a, __int128 b) { return a * b; }
inline void add(__int128& a, const __int128& v, int) { a += v; }
inline void add(Int256& a, const Int256& v, int) { a += v; }
inline Int256 widen(__int128 v) { return Int256::of(v); }
inline Int256 widen(const Int256& v) { return v; }

inline DoubleDouble exactDD(__int128 v) {
    const double hi = double(v);
    return {hi, double(v - __int128(hi))};
}

// The totals of one region in one chunk, or the whole of them.
template <class Acc>
struct Partial {
    std::vector<Acc> moments;                        // exponents
    std::array<std::uint64_t, 3> perimeter{};
    std::array<std::uint64_t, 5> crofton{};
    std::int64_t euler = 0;
    std::vector<Acc> sum, squares;                   // channels (integer intensities)
    std::vector<DoubleDouble> sumFloat, squaresFloat;  // channels (floating-point intensities)
    std::vector<Sample> min, max;
    std::vector<std::uint64_t> minAt, maxAt;
    std::vector<Acc> weighted;                       // channels x weighted exponents
    std::vector<DoubleDouble> weightedFloat;
    bool seen = false;                               // intensity extrema set
};

template <class Acc>
struct Shapes {
    std::size_t moments = 0, weighted = 0, channels = 0;
    bool floats = false;
    Partial<Acc> empty() const {
        Partial<Acc> p;
        p.moments.assign(moments, Acc{});
        if (channels) {
            if (floats) {
                p.sumFloat.assign(channels, {});
                p.squaresFloat.assign(channels, {});
                p.weightedFloat.assign(channels * weighted, {});
            } else {
                p.sum.assign(channels, Acc{});
                p.squares.assign(channels, Acc{});
                p.weighted.assign(channels * weighted, Acc{});
            }
            p.min.assign(channels, {});
            p.max.assign(channels, {});
            p.minAt.assign(channels, 0);
            p.maxAt.assign(channels, 0);
        }
        return p;
    }
};

// b's totals added to a's (b from a later chunk: its extrema win only when
// strictly beyond, so that the first position is kept).
template <class Acc>
void merge(Partial<Acc>& a, const Partial<Acc>& b, const IntensityReader& reader) {
    for (std::size_t i = 0; i < a.moments.size(); ++i) add(a.moments[i], b.moments[i], 0);
    for (int i = 0; i < 3; ++i) a.perimeter[std::size_t(i)] += b.perimeter[std::size_t(i)];
    for (int i = 0; i < 5; ++i) a.crofton[std::size_t(i)] += b.crofton[std::size_t(i)];
    a.euler += b.euler;
    for (std::size_t i = 0; i < a.sum.size(); ++i) { add(a.sum[i], b.sum[i], 0); add(a.squares[i], b.squares[i], 0); }
    for (std::size_t i = 0; i < a.sumFloat.size(); ++i) { a.sumFloat[i] += b.sumFloat[i]; a.squaresFloat[i] += b.squaresFloat[i]; }
    for (std::size_t i = 0; i < a.weighted.size(); ++i) add(a.weighted[i], b.weighted[i], 0);
    for (std::size_t i = 0; i < a.weightedFloat.size(); ++i) a.weightedFloat[i] += b.weightedFloat[i];
    if (b.seen) {
        for (std::size_t c = 0; c < a.min.size(); ++c) {
            if (!a.seen || reader.less(b.min[c], a.min[c]) || (!reader.less(a.min[c], b.min[c]) && b.minAt[c] < a.minAt[c])) {
                a.min[c] = b.min[c];
                a.minAt[c] = b.minAt[c];
            }
            if (!a.seen || reader.less(a.max[c], b.max[c]) || (!reader.less(b.max[c], a.max[c]) && b.maxAt[c] < a.maxAt[c])) {
                a.max[c] = b.max[c];
                a.maxAt[c] = b.maxAt[c];
            }
        }
        a.seen = true;
    }
}

// A chunk's partial totals by region, in first-touch order.
template <class Acc>
class ChunkTable {
public:
    explicit ChunkTable(const Shapes<Acc>& shapes) : shapes_(shapes) {}
    Partial<Acc>& of(std::int64_t region) {
        if (region == lastRegion_) return parts_[lastSlot_];
        const auto found = slots_.find(region);
        std::size_t slot;
        if (found != slots_.end()) slot = found->second;
        else {
            slot = regions_.size();
            slots_.emplace(region, slot);
            regions_.push_back(region);
            if (parts_.size() <= slot) parts_.push_back(shapes_.empty());
            else parts_[slot] = shapes_.empty();
        }
        lastRegion_ = region;
        lastSlot_ = slot;
        return parts_[slot];
    }
    const std::vector<std::int64_t>& regions() const { return regions_; }
    Partial<Acc>& at(std::size_t slot) { return parts_[slot]; }
    void clear() {
        slots_.clear();
        regions_.clear();
        lastRegion_ = kNoRegion;
    }

private:
    const Shapes<Acc>& shapes_;
    std::unordered_map<std::int64_t, std::size_t> slots_;
    std::vector<std::int64_t> regions_;
    std::vector<Partial<Acc>> parts_;
    std::int64_t lastRegion_ = kNoRegion;
    std::size_t lastSlot_ = 0;
};

// --- The passes ---------------------------------------------------------------------

struct Boxes {
    std::vector<std::uint64_t> counts;
    std::vector<std::array<std::int64_t, 3>> min, max;
};

// Everything a chunk of pass 3 reads.
// The elements a measurement counts, as array ranges [begin, end) along
// x, y, z: the whole array, or the part of a piece it owns (measurePiece).
// The 2x2 (2x2x2) windows counted are those whose far corner is owned, and
// where the owned part reaches the array's end, those past it too.
struct Owned {
    std::array<std::int64_t, 3> begin{0, 0, 0}, end{0, 0, 0};
    bool element(std::int64_t y, std::int64_t z) const { return y >= begin[1] && y < end[1] && z >= begin[2] && z < end[2]; }
};

struct Context {
    Grid grid;
    Owned owned;
    const TermRequest& q;
    const Boxes& boxes;
    const std::function<void(std::int64_t, std::int64_t*)>& fillRow;
    const IntensityReader* intensity;
    std::vector<std::array<int, 3>> momentExponents, weightedExponents;
};

// The rows of the windows and elements a region's terms come from: its
// own rows, and the row (slice) after, whose windows hold its last row (slice).
std::pair<std::int64_t, std::int64_t> span(const Grid& g, const Boxes& b, std::size_t r) {
    if (b.counts[r] == 0) return {0, g.rows};  // a region only a piece's margin holds: its windows' terms
    const std::int64_t first = b.min[r][2] * g.h + b.min[r][1];
    const std::int64_t z = std::min(b.max[r][2] + (g.dims == 3 ? 1 : 0), g.d - 1);
    const std::int64_t y = std::min(b.max[r][1] + 1, g.h - 1);
    return {first, std::max(first, z * g.h + y)};
}

template <class Acc>
void accumulateChunk(const Context& cx, std::size_t chunk, ChunkTable<Acc>& table) {
    const Grid& g = cx.grid;
    const TermRequest& q = cx.q;
    RowIndices rows(g, cx.fillRow);
    const auto& conf = configurations();
    const Owned& own = cx.owned;
    const std::int64_t begin = g.chunkBegin(chunk), end = g.chunkEnd(chunk);

    // Border flags of row (y, z) for the perimeter: an element of a region
    // with a 4-neighbour outside it (or outside the image).
    std::vector<std::vector<char>> borderRows(3, std::vector<char>(std::size_t(g.w)));
    std::array<std::int64_t, 3> borderIds{-1, -1, -1};
    auto border = [&](std::int64_t y, std::int64_t z) -> const char* {
        if (y < 0 || y >= g.h) return nullptr;
        const std::int64_t id = z * g.h + y;
        for (int i = 0; i < 3; ++i)
            if (borderIds[std::size_t(i)] == id) return borderRows[std::size_t(i)].data();
        const std::size_t slot = std::size_t(id % 3);
        borderIds[slot] = id;
        char* out = borderRows[slot].data();
        const std::int64_t* up = rows.row(y - 1, z);
        const std::int64_t* down = rows.row(y + 1, z);
        const std::int64_t* row = rows.row(y, z);
        for (std::int64_t x = 0; x < g.w; ++x) {
            const std::int64_t r = row[x];
            out[x] = r != kNoRegion && (x == 0 || x == g.w - 1 || !up || !down || row[x - 1] != r || row[x + 1] != r ||
                                        up[x] != r || down[x] != r);
        }
        return out;
    };

    // One window of 2x2 (2x2x2) elements whose far corner is (x, y, z).
    auto window = [&](std::int64_t y, std::int64_t z) {
        const std::int64_t* near[2] = {rows.row(y - 1, z), rows.row(y, z)};       // rows y - 1, y of slice z
        const std::int64_t* far[2] = {nullptr, nullptr};
        if (g.dims == 3) {
            far[0] = rows.row(y - 1, z - 1);
            far[1] = rows.row(y, z - 1);
        }
        const std::int64_t xEnd = own.end[0] == g.w ? g.w : own.end[0] - 1;
        for (std::int64_t x = own.begin[0]; x <= xEnd; ++x) {
            std::int64_t v[8];
            int count = g.dims == 3 ? 8 : 4;
            auto get = [&](const std::int64_t* row, std::int64_t xx) { return row && xx >= 0 && xx < g.w ? row[xx] : kNoRegion; };
            // Bits: 1 (x, y), 2 (x, y - 1), 4 (x - 1, y), 8 (x - 1, y - 1); slice z - 1 four above.
            v[0] = get(near[1], x);
            v[1] = get(near[0], x);
            v[2] = get(near[1], x - 1);
            v[3] = get(near[0], x - 1);
            if (count == 8) {
                v[4] = get(far[1], x);
                v[5] = get(far[0], x);
                v[6] = get(far[1], x - 1);
                v[7] = get(far[0], x - 1);
            }
            for (int i = 0; i < count; ++i) {
                const std::int64_t r = v[i];
                if (r == kNoRegion) continue;
                bool earlier = false;
                for (int j = 0; j < i; ++j) earlier |= v[j] == r;
                if (earlier) continue;
                int config = 0;
                for (int j = i; j < count; ++j) config |= (v[j] == r) << j;
                Partial<Acc>& p = table.of(r);
                if (q.euler) p.euler += g.dims == 3 ? conf.euler3[std::size_t(config)] : conf.euler2[std::size_t(config)];
                if (q.crofton) {
                    const int k = conf.crofton[std::size_t(config)];
                    if (k >= 0) ++p.crofton[std::size_t(k)];
                }
            }
        }
    };

    const std::size_t nm = cx.momentExponents.size(), nw = cx.weightedExponents.size();
    const int channels = q.channels;
    const bool floats = q.intensityKind == SampleKind::Float;

    auto ownedWindow = [&](std::int64_t v, int axis, std::int64_t extent) {
        return (v >= own.begin[std::size_t(axis)] && v < own.end[std::size_t(axis)]) ||
               (v == extent && own.end[std::size_t(axis)] == extent);
    };
    for (std::int64_t flat = begin; flat < end; ++flat) {
        const std::int64_t y = flat % g.h, z = flat / g.h;
        const std::int64_t* row = rows.row(y, z);
        const bool pixelTerms = nm > 0 || channels > 0;
        if ((pixelTerms || q.perimeter) && own.element(y, z)) {
            const char* b0 = q.perimeter ? border(y - 1, z) : nullptr;
            const char* b1 = q.perimeter ? border(y, z) : nullptr;
            const char* b2 = q.perimeter ? border(y + 1, z) : nullptr;
            const std::int64_t* up = q.perimeter ? rows.row(y - 1, z) : nullptr;
            const std::int64_t* down = q.perimeter ? rows.row(y + 1, z) : nullptr;
            for (std::int64_t x = own.begin[0]; x < own.end[0];) {
                const std::int64_t r = row[x];
                std::int64_t x1 = x + 1;
                while (x1 < own.end[0] && row[x1] == r) ++x1;
                if (r == kNoRegion) {
                    x = x1;
                    continue;
                }
                Partial<Acc>& p = table.of(r);
                const auto& lo = cx.boxes.min[std::size_t(r)];
                const __int128 ly = y - lo[1], lz = z - lo[2];
                if (nm > 0) {
                    __int128 sx[4] = {0, 0, 0, 0};
                    for (std::int64_t xx = x; xx < x1; ++xx) {
                        const __int128 lx = xx - lo[0];
                        sx[0] += 1;
                        sx[1] += lx;
                        sx[2] += lx * lx;
                        sx[3] += lx * lx * lx;
                    }
                    const __int128 py[4] = {1, ly, ly * ly, ly * ly * ly};
                    const __int128 pz[4] = {1, lz, lz * lz, lz * lz * lz};
                    for (std::size_t e = 0; e < nm; ++e) {
                        const auto& ex = cx.momentExponents[e];
                        add(p.moments[e], product(product(sx[ex[0]], py[ex[1]], (Acc*)nullptr), pz[ex[2]]), 0);
                    }
                }
                if (channels > 0) {
                    const __int128 py[4] = {1, ly, ly * ly, ly * ly * ly};
                    const __int128 pz[4] = {1, lz, lz * lz, lz * lz * lz};
                    for (std::int64_t xx = x; xx < x1; ++xx) {
                        const std::size_t element = std::size_t(flat * g.w + xx);
                        const __int128 lx = xx - lo[0];
                        const __int128 px[4] = {1, lx, lx * lx, lx * lx * lx};
                        for (int c = 0; c < channels; ++c) {
                            const Sample s = cx.intensity->at(element, c);
                            const std::size_t ci = std::size_t(c);
                            if (q.intensitySums) {
                                if (floats) {
                                    p.sumFloat[ci] += DoubleDouble(s.real);
                                    p.squaresFloat[ci] += DoubleDouble(s.real) * DoubleDouble(s.real);
                                } else {
                                    add(p.sum[ci], s.integer);
                                    add(p.squares[ci], product(s.integer, s.integer, (Acc*)nullptr), 0);
                                }
                            }
                            if (q.intensityExtrema) {
                                if (!p.seen || cx.intensity->less(s, p.min[ci])) { p.min[ci] = s; p.minAt[ci] = element; }
                                if (!p.seen || cx.intensity->less(p.max[ci], s)) { p.max[ci] = s; p.maxAt[ci] = element; }
                            }
                            for (std::size_t e = 0; e < nw; ++e) {
                                const auto& ex = cx.weightedExponents[e];
                                const __int128 coordinate = px[ex[0]] * py[ex[1]] * pz[ex[2]];
                                if (floats) p.weightedFloat[ci * nw + e] += DoubleDouble(s.real) * exactDD(coordinate);
                                else add(p.weighted[ci * nw + e], product(coordinate, s.integer, (Acc*)nullptr), 0);
                            }
                        }
                        if (q.intensityExtrema) p.seen = true;
                    }
                }
                if (q.perimeter) {
                    for (std::int64_t xx = x; xx < x1; ++xx) {
                        if (!b1[xx]) continue;
                        // Border neighbours of the same region: along the edges, at the corners.
                        auto same = [&](const std::int64_t* rr, const char* bb, std::int64_t xn) {
                            return rr && bb && xn >= 0 && xn < g.w && rr[xn] == r && bb[xn];
                        };
                        const int edges = same(row, b1, xx - 1) + same(row, b1, xx + 1) + same(up, b0, xx) + same(down, b2, xx);
                        const int corners = same(up, b0, xx - 1) + same(up, b0, xx + 1) + same(down, b2, xx - 1) +
                                            same(down, b2, xx + 1);
                        // scikit-image's weights by (edges, corners): 1 for (2|3, 0..2),
                        // sqrt 2 for (0, 2) and (1, 3), (1 + sqrt 2) / 2 for (1, 1) and (1, 2).
                        if ((edges == 2 || edges == 3) && corners <= 2) ++p.perimeter[0];
                        else if ((edges == 0 && corners == 2) || (edges == 1 && corners == 3)) ++p.perimeter[1];
                        else if (edges == 1 && (corners == 1 || corners == 2)) ++p.perimeter[2];
                    }
                }
                x = x1;
            }
        }
        if (q.euler || q.crofton) {
            const bool zOwned = ownedWindow(z, 2, g.d), zLast = g.dims == 3 && z == g.d - 1 && ownedWindow(g.d, 2, g.d);
            const bool yOwned = ownedWindow(y, 1, g.h), yLast = y == g.h - 1 && ownedWindow(g.h, 1, g.h);
            if (zOwned && yOwned) window(y, z);
            if (zOwned && yLast) window(g.h, z);
            if (zLast && yOwned) window(y, g.d);
            if (zLast && yLast) window(g.h, g.d);
        }
    }
}

// Pass 3 over every chunk, then the totals in region order.
template <class Acc>
void accumulateTerms(const Context& cx, ThreadPool& pool, int threads, RegionTotals& totals) {
    const Grid& g = cx.grid;
    const TermRequest& q = cx.q;
    Shapes<Acc> shapes;
    shapes.moments = cx.momentExponents.size();
    shapes.weighted = cx.weightedExponents.size();
    shapes.channels = std::size_t(q.channels);
    shapes.floats = q.intensityKind == SampleKind::Float;
    IntensityReader none;
    const IntensityReader& reader = cx.intensity ? *cx.intensity : none;

    // Regions whose span lies in one chunk take that chunk's totals as
    // theirs; the others keep each chunk's partial for the ordered sum.
    const std::size_t n = totals.regions;
    std::vector<Partial<Acc>> whole(n);
    std::vector<std::vector<std::pair<std::int64_t, Partial<Acc>>>> spanning(g.chunks);
    std::vector<ChunkTable<Acc>> tables;
    for (int t = 0; t < threads; ++t) tables.emplace_back(shapes);
    pool.run(g.chunks, threads, [&](std::size_t chunk, int worker) {
        ChunkTable<Acc>& table = tables[std::size_t(worker)];
        table.clear();
        accumulateChunk(cx, chunk, table);
        const std::int64_t begin = g.chunkBegin(chunk), end = g.chunkEnd(chunk);
        for (std::size_t slot = 0; slot < table.regions().size(); ++slot) {
            const std::int64_t r = table.regions()[slot];
            const auto [first, last] = span(g, cx.boxes, std::size_t(r));
            if (first >= begin && last < end) whole[std::size_t(r)] = std::move(table.at(slot));
            else spanning[chunk].emplace_back(r, std::move(table.at(slot)));
        }
    });
    std::vector<char> started(n, 0);
    for (std::size_t chunk = 0; chunk < g.chunks; ++chunk) {
        for (auto& [r, part] : spanning[chunk]) {
            if (!started[std::size_t(r)]) {
                whole[std::size_t(r)] = std::move(part);
                started[std::size_t(r)] = 1;
            } else {
                merge(whole[std::size_t(r)], part, reader);
            }
        }
        spanning[chunk].clear();
        spanning[chunk].shrink_to_fit();
    }

    // Into the totals' arrays.
    const std::size_t nm = shapes.moments, nw = shapes.weighted, channels = shapes.channels;
    if (nm) totals.moments.assign(n * nm, Int256{});
    if (q.perimeter) totals.perimeterClasses.assign(n * 3, 0);
    if (q.crofton) totals.croftonClasses.assign(n * 5, 0);
    if (q.euler) totals.eulerTimes.assign(n, 0);
    if (channels) {
        if (shapes.floats) {
            totals.intensitySumFloat.assign(n * channels, {});
            totals.intensitySquaresFloat.assign(n * channels, {});
            totals.weightedMomentsFloat.assign(n * channels * nw, {});
        } else {
            totals.intensitySum.assign(n * channels, Int256{});
            totals.intensitySquares.assign(n * channels, Int256{});
            totals.weightedMoments.assign(n * channels * nw, Int256{});
        }
        totals.intensityMin.assign(n * channels, 0.0);
        totals.intensityMax.assign(n * channels, 0.0);
        totals.intensityMinBits.assign(n * channels, 0);
        totals.intensityMaxBits.assign(n * channels, 0);
        totals.intensityMinAt.assign(n * channels, 0);
        totals.intensityMaxAt.assign(n * channels, 0);
    }
    pool.run((n + 4095) / 4096, threads, [&](std::size_t block, int) {
        for (std::size_t r = block * 4096; r < std::min(n, (block + 1) * 4096); ++r) {
            Partial<Acc>& p = whole[r];
            if (p.moments.size() != nm) p = shapes.empty();  // a region no chunk reached (none can: every region has an element)
            for (std::size_t e = 0; e < nm; ++e) totals.moments[r * nm + e] = widen(p.moments[e]);
            if (q.perimeter) std::copy(p.perimeter.begin(), p.perimeter.end(), totals.perimeterClasses.begin() + std::ptrdiff_t(r * 3));
            if (q.crofton) std::copy(p.crofton.begin(), p.crofton.end(), totals.croftonClasses.begin() + std::ptrdiff_t(r * 5));
            if (q.euler) totals.eulerTimes[r] = p.euler;
            for (std::size_t c = 0; c < channels; ++c) {
                const std::size_t i = r * channels + c;
                if (shapes.floats) {
                    totals.intensitySumFloat[i] = p.sumFloat[c];
                    totals.intensitySquaresFloat[i] = p.squaresFloat[c];
                    for (std::size_t e = 0; e < nw; ++e) totals.weightedMomentsFloat[i * nw + e] = p.weightedFloat[c * nw + e];
                } else {
                    totals.intensitySum[i] = widen(p.sum[c]);
                    totals.intensitySquares[i] = widen(p.squares[c]);
                    for (std::size_t e = 0; e < nw; ++e) totals.weightedMoments[i * nw + e] = widen(p.weighted[c * nw + e]);
                }
                totals.intensityMin[i] = p.min[c].real;
                totals.intensityMax[i] = p.max[c].real;
                totals.intensityMinBits[i] = p.min[c].bits;
                totals.intensityMaxBits[i] = p.max[c].bits;
                totals.intensityMinAt[i] = p.minAt[c];
                totals.intensityMaxAt[i] = p.maxAt[c];
            }
            p = Partial<Acc>();
        }
    });
}

int bitLength(unsigned __int128 v) {
    int bits = 0;
    while (v) { ++bits; v >>= 1; }
    return bits;
}

void checkShape(const Shape& shape) {
    if (shape.dimensions != 2 && shape.dimensions != 3)
        throw Error(where() + "regions are measured in 2-D and 3-D images");
    for (int a = 0; a < shape.dimensions; ++a)
        if (shape.extent(a) <= 0 || shape.extent(a) > (std::int64_t(1) << 24))
            throw Error(where() + "every side must be 1 to 2^24 elements, not " + std::to_string(shape.extent(a)));
}

IntensityReader readerOf(const IntensitySamples& s, const Shape& shape) {
    if (s.shape.width != shape.width || s.shape.height != shape.height || s.shape.depth != shape.depth ||
        s.shape.dimensions != shape.dimensions)
        throw Error(where() + "the intensity image's shape differs from the labels'");
    if (s.channels < 1) throw Error(where() + "the intensity image has no channel");
    if (!s.data) throw Error(where() + "the intensity samples are null");
    const bool ok = s.kind == SampleKind::Float ? (s.bytes == 4 || s.bytes == 8) : (s.bytes == 1 || s.bytes == 2 || s.bytes == 4 || s.bytes == 8);
    if (!ok) throw Error(where() + "intensity samples of " + std::to_string(s.bytes) + " bytes are not read");
    IntensityReader r;
    r.data = static_cast<const std::uint8_t*>(s.data);
    r.bytes = s.bytes;
    r.channels = s.channels;
    r.kind = s.kind;
    return r;
}

// Pass 3 and the totals, for regions whose counts and boxes are known.
RegionTotals gatherTerms(const Grid& g, const Owned& owned, const TermRequest& q, Boxes boxes, std::vector<std::uint64_t> labels,
                         const std::function<void(std::int64_t, std::int64_t*)>& fillRow, const IntensityReader* intensity,
                         ThreadPool& pool, int threads, const Shape& shape, const PiecePlace* piece) {
    RegionTotals totals;
    totals.request = q;
    totals.regions = labels.size();
    totals.labels = std::move(labels);
    const Shape whole = piece ? piece->whole : shape;
    for (int a = whole.dimensions - 1; a >= 0; --a) totals.imageExtents.push_back(whole.extent(a));
    if (q.any()) {
        Context cx{g, owned, q, boxes, fillRow, intensity, TermRequest::exponents(q.momentLevel, g.dims),
                   TermRequest::exponents(q.weightedMomentLevel, g.dims)};
        // Which accumulator holds every sum a chunk reaches.
        std::int64_t extent = 1;
        for (std::size_t r = 0; r < totals.regions; ++r)
            for (int a = 0; a < 3 && boxes.counts[r] > 0; ++a)
                extent = std::max(extent, boxes.max[r][std::size_t(a)] - boxes.min[r][std::size_t(a)] + 1);
        if (piece)  // pieces' totals are re-centred on boxes as large as the whole image
            for (int a = 0; a < whole.dimensions; ++a) extent = std::max(extent, whole.extent(a));
        auto degreeOf = [&](int level) { return level == 4 ? 3 * g.dims : level; };
        const int coordinateBits = bitLength((unsigned __int128)extent) * std::max(degreeOf(q.momentLevel), degreeOf(q.weightedMomentLevel));
        if (coordinateBits > 120)
            throw Error(where() + "moments of a region " + std::to_string(extent) + " elements across exceed what is summed exactly");
        const int chunkBits = bitLength((unsigned __int128)(g.rowsPerChunk * g.w)) + 1;
        const int intensityBits = q.channels && q.intensityKind != SampleKind::Float ? q.intensityBits : 0;
        const int need = chunkBits + std::max({coordinateBits + (q.weightedMomentLevel ? intensityBits : 0), 2 * intensityBits});
        if (need < 126) accumulateTerms<__int128>(cx, pool, threads, totals);
        else accumulateTerms<Int256>(cx, pool, threads, totals);
    }
    totals.counts = std::move(boxes.counts);
    totals.boxMin = std::move(boxes.min);
    totals.boxMax = std::move(boxes.max);
    if (piece) {
        // Boxes and the extrema's positions in the whole image's coordinates.
        for (std::size_t r = 0; r < totals.regions; ++r)
            for (int a = 0; a < 3 && totals.counts[r] > 0; ++a) {
                totals.boxMin[r][std::size_t(a)] += piece->origin[std::size_t(a)];
                totals.boxMax[r][std::size_t(a)] += piece->origin[std::size_t(a)];
            }
        auto toWhole = [&](std::uint64_t flat) {
            const std::int64_t x = std::int64_t(flat % std::uint64_t(g.w)) + piece->origin[0];
            const std::int64_t y = std::int64_t(flat / std::uint64_t(g.w) % std::uint64_t(g.h)) + piece->origin[1];
            const std::int64_t z = std::int64_t(flat / std::uint64_t(g.w * g.h)) + piece->origin[2];
            return std::uint64_t((z * whole.height + y) * whole.width + x);
        };
        for (auto& at : totals.intensityMinAt) at = toWhole(at);
        for (auto& at : totals.intensityMaxAt) at = toWhole(at);
    }
    return totals;
}

}  // namespace

RegionTotals measureTerms(const LabelSamples& labels, const IntensitySamples* intensity, const TermRequest& request,
                          int threads, bool backgroundIsRegion, const PiecePlace* piece) {
    checkShape(labels.shape);
    if (!labels.data) throw Error(where() + "the labels are null");
    if (labels.bytes != 1 && labels.bytes != 2 && labels.bytes != 4 && labels.bytes != 8)
        throw Error(where() + "labels of " + std::to_string(labels.bytes) + " bytes are not read");
    std::optional<IntensityReader> reader;
    if (intensity) reader = readerOf(*intensity, labels.shape);
    if (request.channels > 0 && !intensity) throw Error(where() + "the properties asked need an intensity image");

    const Grid g(labels.shape);
    Owned owned;
    owned.end = {g.w, g.h, g.d};
    if (piece) {
        for (int a = 0; a < 3; ++a) {
            const std::int64_t extent = a == 0 ? g.w : a == 1 ? g.h : g.d;
            if (piece->ownBegin[std::size_t(a)] < 0 || piece->ownBegin[std::size_t(a)] > piece->ownEnd[std::size_t(a)] ||
                piece->ownEnd[std::size_t(a)] > extent)
                throw Error(where() + "the owned range of a piece must lie inside it");
            owned.begin[std::size_t(a)] = piece->ownBegin[std::size_t(a)];
            owned.end[std::size_t(a)] = piece->ownEnd[std::size_t(a)];
        }
        checkShape(piece->whole);
    }
    if (threads <= 0) threads = cpu::defaultThreads();
    threads = int(std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(threads), g.chunks)));
    ThreadPool pool(threads);
    const LabelReader read{static_cast<const std::uint8_t*>(labels.data), labels.bytes, labels.isSigned};

    // Pass 1: which labels are present.
    std::vector<std::uint64_t> chunkMax(g.chunks, 0);
    std::atomic<bool> negative{false};
    pool.run(g.chunks, threads, [&](std::size_t chunk, int) {
        bool neg = false;
        std::uint64_t m = 0;
        const std::size_t a = std::size_t(g.chunkBegin(chunk) * g.w), b = std::size_t(g.chunkEnd(chunk) * g.w);
        for (std::size_t i = a; i < b; ++i) m = std::max(m, read.at(i, neg));
        chunkMax[chunk] = m;
        if (neg) negative.store(true, std::memory_order_relaxed);
    });
    if (negative.load()) throw Error(where() + "labels must not be negative");
    const std::uint64_t maxLabel = chunkMax.empty() ? 0 : *std::max_element(chunkMax.begin(), chunkMax.end());
    const std::uint64_t elements = labels.shape.count();
    std::vector<std::uint64_t> present;  // ascending
    RegionIndex index;
    if (maxLabel <= std::max<std::uint64_t>(std::uint64_t(1) << 20, elements / 2)) {
        std::vector<std::atomic<unsigned char>> seen(std::size_t(maxLabel) + 1);
        pool.run(g.chunks, threads, [&](std::size_t chunk, int) {
            bool neg = false;
            const std::size_t a = std::size_t(g.chunkBegin(chunk) * g.w), b = std::size_t(g.chunkEnd(chunk) * g.w);
            std::uint64_t last = ~std::uint64_t(0);
            for (std::size_t i = a; i < b; ++i) {
                const std::uint64_t v = read.at(i, neg);
                if (v != last) seen[v].store(1, std::memory_order_relaxed);
                last = v;
            }
        });
        std::vector<std::int64_t> table(std::size_t(maxLabel) + 1, kNoRegion);
        for (std::uint64_t v = 0; v <= maxLabel; ++v)
            if (seen[v].load(std::memory_order_relaxed) && (v != 0 || backgroundIsRegion)) {
                table[v] = std::int64_t(present.size());
                present.push_back(v);
            }
        index = RegionIndex::dense(std::move(table), present.size());
    } else {
        std::vector<std::vector<std::uint64_t>> found(g.chunks);
        pool.run(g.chunks, threads, [&](std::size_t chunk, int) {
            bool neg = false;
            const std::size_t a = std::size_t(g.chunkBegin(chunk) * g.w), b = std::size_t(g.chunkEnd(chunk) * g.w);
            auto& out = found[chunk];
            for (std::size_t i = a; i < b; ++i) {
                const std::uint64_t v = read.at(i, neg);
                if (out.empty() || out.back() != v) out.push_back(v);
            }
            std::sort(out.begin(), out.end());
            out.erase(std::unique(out.begin(), out.end()), out.end());
        });
        for (auto& f : found) present.insert(present.end(), f.begin(), f.end());
        std::sort(present.begin(), present.end());
        present.erase(std::unique(present.begin(), present.end()), present.end());
        if (!backgroundIsRegion && !present.empty() && present.front() == 0) present.erase(present.begin());
        index = RegionIndex::sparse(present);
    }
    const std::size_t n = present.size();
    std::function<void(std::int64_t, std::int64_t*)> fillRow = [&](std::int64_t flatRow, std::int64_t* out) {
        bool neg = false;
        const std::size_t base = std::size_t(flatRow * g.w);
        std::uint64_t last = ~std::uint64_t(0);
        std::int64_t lastIndex = kNoRegion;
        for (std::int64_t x = 0; x < g.w; ++x) {
            const std::uint64_t v = read.at(base + std::size_t(x), neg);
            if (v != last) {
                last = v;
                lastIndex = index.of(v);
            }
            out[x] = lastIndex;
        }
    };

    // Pass 2: counts and boxes.
    Boxes boxes;
    boxes.counts.assign(n, 0);
    boxes.min.assign(n, {std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::max(),
                         std::numeric_limits<std::int64_t>::max()});
    boxes.max.assign(n, {-1, -1, -1});
    {
        struct BoxPart {
            std::int64_t region;
            std::uint64_t count;
            std::array<std::int64_t, 3> min, max;
        };
        std::vector<std::vector<BoxPart>> parts(g.chunks);
        std::vector<std::vector<std::int64_t>> rowBuffers(std::size_t(threads), std::vector<std::int64_t>(std::size_t(g.w)));
        pool.run(g.chunks, threads, [&](std::size_t chunk, int worker) {
            std::unordered_map<std::int64_t, std::size_t> slot;
            auto& out = parts[chunk];
            std::int64_t* row = rowBuffers[std::size_t(worker)].data();
            for (std::int64_t flat = g.chunkBegin(chunk); flat < g.chunkEnd(chunk); ++flat) {
                const std::int64_t y = flat % g.h, z = flat / g.h;
                if (!owned.element(y, z)) continue;
                fillRow(flat, row);
                for (std::int64_t x = owned.begin[0]; x < owned.end[0];) {
                    const std::int64_t r = row[x];
                    std::int64_t x1 = x + 1;
                    while (x1 < owned.end[0] && row[x1] == r) ++x1;
                    if (r != kNoRegion) {
                        auto [it, added] = slot.emplace(r, out.size());
                        if (added) out.push_back({r, 0, {x, y, z}, {x1 - 1, y, z}});
                        BoxPart& p = out[it->second];
                        p.count += std::uint64_t(x1 - x);
                        p.min = {std::min(p.min[0], x), std::min(p.min[1], y), std::min(p.min[2], z)};
                        p.max = {std::max(p.max[0], x1 - 1), std::max(p.max[1], y), std::max(p.max[2], z)};
                    }
                    x = x1;
                }
            }
        });
        for (auto& chunkParts : parts) {
            for (const BoxPart& p : chunkParts) {
                const std::size_t r = std::size_t(p.region);
                boxes.counts[r] += p.count;
                for (int a = 0; a < 3; ++a) {
                    boxes.min[r][std::size_t(a)] = std::min(boxes.min[r][std::size_t(a)], p.min[std::size_t(a)]);
                    boxes.max[r][std::size_t(a)] = std::max(boxes.max[r][std::size_t(a)], p.max[std::size_t(a)]);
                }
            }
            chunkParts.clear();
            chunkParts.shrink_to_fit();
        }
    }
    return gatherTerms(g, owned, request, std::move(boxes), std::move(present), fillRow, reader ? &*reader : nullptr, pool,
                       threads, labels.shape, piece);
}

namespace {

TermRequest requestOf(const MeasureOptions& options, int dimensions, const IntensitySamples* intensity,
                      bool channelAxis) {
    int bits = 8;
    SampleKind kind = SampleKind::Unsigned;
    int channels = 0;
    if (intensity) {
        bits = intensity->bytes * 8;
        kind = intensity->kind;
        channels = intensity->channels;
    }
    TermRequest q = termsFor(options.properties.properties, dimensions, channels, kind, bits);
    q.intensityChannelAxis = channelAxis;
    if (channels == 0) q.intensitySums = q.intensityExtrema = false, q.weightedMomentLevel = 0;
    return q;
}

}  // namespace

namespace {

// Sums of powers of coordinates relative to an old origin, re-centred on a
// new one d below it along each axis: sum (c + d)^e expanded binomially.
template <class T, class Scale>
void recentre(const std::vector<std::array<int, 3>>& exps, const T* sums, T* out, const std::array<std::int64_t, 3>& d,
              Scale scale) {
    static const int binomial[4][4] = {{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 2, 1, 0}, {1, 3, 3, 1}};
    int where[4][4][4];
    for (auto& a : where)
        for (auto& b : a)
            for (int& c : b) c = -1;
    for (std::size_t e = 0; e < exps.size(); ++e) where[exps[e][0]][exps[e][1]][exps[e][2]] = int(e);
    for (std::size_t e = 0; e < exps.size(); ++e) {
        const auto& ex = exps[e];
        T total{};
        for (int p = 0; p <= ex[0]; ++p)
            for (int q = 0; q <= ex[1]; ++q)
                for (int r = 0; r <= ex[2]; ++r) {
                    __int128 factor = __int128(binomial[ex[0]][p]) * binomial[ex[1]][q] * binomial[ex[2]][r];
                    for (int k = 0; k < ex[0] - p; ++k) factor *= d[0];
                    for (int k = 0; k < ex[1] - q; ++k) factor *= d[1];
                    for (int k = 0; k < ex[2] - r; ++k) factor *= d[2];
                    total += scale(sums[where[p][q][r]], factor);
                }
        out[e] = total;
    }
}

Int256 scaledInt(const Int256& v, __int128 f) { return v * Int256::of(f); }
DoubleDouble scaledDD(const DoubleDouble& v, __int128 f) { return v * exactDD(f); }

bool sampleLess(SampleKind kind, double a, std::uint64_t aBits, double b, std::uint64_t bBits) {
    switch (kind) {
    case SampleKind::Float: return a < b || (std::isnan(a) && !std::isnan(b));
    case SampleKind::Signed: return std::int64_t(aBits) < std::int64_t(bBits);
    default: return aBits < bBits;
    }
}

}  // namespace

void mergeTotals(RegionTotals& into, const RegionTotals& from) {
    const TermRequest& q = into.request;
    const TermRequest& f = from.request;
    if (q.dimensions != f.dimensions || q.momentLevel != f.momentLevel || q.weightedMomentLevel != f.weightedMomentLevel ||
        q.perimeter != f.perimeter || q.crofton != f.crofton || q.euler != f.euler || q.channels != f.channels ||
        q.intensityKind != f.intensityKind || q.intensitySums != f.intensitySums || q.intensityExtrema != f.intensityExtrema ||
        into.imageExtents != from.imageExtents)
        throw Error("glccl::mergeTotals(): the totals were gathered for different requests or images");
    const auto momentExps = TermRequest::exponents(q.momentLevel, q.dimensions);
    const auto weightedExps = TermRequest::exponents(q.weightedMomentLevel, q.dimensions);
    const std::size_t nm = momentExps.size(), nw = weightedExps.size(), channels = std::size_t(q.channels);
    const bool floats = q.intensityKind == SampleKind::Float;

    RegionTotals out;
    out.request = q;
    out.imageExtents = into.imageExtents;
    std::size_t i = 0, j = 0;
    auto appendRegion = [&](const RegionTotals* a, std::size_t ia, const RegionTotals* b, std::size_t ib) {
        const std::uint64_t label = a ? a->labels[ia] : b->labels[ib];
        const std::uint64_t ca = a ? a->counts[ia] : 0, cb = b ? b->counts[ib] : 0;
        std::array<std::int64_t, 3> lo{std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::max(),
                                       std::numeric_limits<std::int64_t>::max()};
        std::array<std::int64_t, 3> hi{-1, -1, -1};
        for (int side = 0; side < 2; ++side) {
            const RegionTotals* t = side ? b : a;
            const std::size_t r = side ? ib : ia;
            if (!t || t->counts[r] == 0) continue;
            for (std::size_t k = 0; k < 3; ++k) {
                lo[k] = std::min(lo[k], t->boxMin[r][k]);
                hi[k] = std::max(hi[k], t->boxMax[r][k]);
            }
        }
        out.labels.push_back(label);
        out.counts.push_back(ca + cb);
        out.boxMin.push_back(lo);
        out.boxMax.push_back(hi);
        // Each side's sums re-centred on the merged box, then added (a first).
        auto shiftOf = [&](const RegionTotals* t, std::size_t r) {
            std::array<std::int64_t, 3> d{0, 0, 0};
            if (t->counts[r] > 0)
                for (std::size_t k = 0; k < 3; ++k) d[k] = t->boxMin[r][k] - lo[k];
            return d;
        };
        const std::size_t base = out.moments.size();
        out.moments.resize(base + nm);
        std::vector<Int256> shifted(std::max(nm, nw));
        std::vector<DoubleDouble> shiftedFloat(nw);
        for (int side = 0; side < 2; ++side) {
            const RegionTotals* t = side ? b : a;
            const std::size_t r = side ? ib : ia;
            if (!t) continue;
            const auto d = shiftOf(t, r);
            if (nm) {
                recentre(momentExps, &t->moments[r * nm], shifted.data(), d, scaledInt);
                for (std::size_t e = 0; e < nm; ++e) out.moments[base + e] += shifted[e];
            }
        }
        if (q.perimeter) {
            for (std::size_t k = 0; k < 3; ++k)
                out.perimeterClasses.push_back((a ? a->perimeterClasses[ia * 3 + k] : 0) + (b ? b->perimeterClasses[ib * 3 + k] : 0));
        }
        if (q.crofton) {
            for (std::size_t k = 0; k < 5; ++k)
                out.croftonClasses.push_back((a ? a->croftonClasses[ia * 5 + k] : 0) + (b ? b->croftonClasses[ib * 5 + k] : 0));
        }
        if (q.euler) out.eulerTimes.push_back((a ? a->eulerTimes[ia] : 0) + (b ? b->eulerTimes[ib] : 0));
        for (std::size_t c = 0; c < channels; ++c) {
            if (q.intensitySums) {
                if (floats) {
                    DoubleDouble sum, squares;
                    if (a) { sum += a->intensitySumFloat[ia * channels + c]; squares += a->intensitySquaresFloat[ia * channels + c]; }
                    if (b) { sum += b->intensitySumFloat[ib * channels + c]; squares += b->intensitySquaresFloat[ib * channels + c]; }
                    out.intensitySumFloat.push_back(sum);
                    out.intensitySquaresFloat.push_back(squares);
                } else {
                    Int256 sum, squares;
                    if (a) { sum += a->intensitySum[ia * channels + c]; squares += a->intensitySquares[ia * channels + c]; }
                    if (b) { sum += b->intensitySum[ib * channels + c]; squares += b->intensitySquares[ib * channels + c]; }
                    out.intensitySum.push_back(sum);
                    out.intensitySquares.push_back(squares);
                }
            }
            if (q.intensityExtrema) {
                // The smaller (larger) value; of equal ones, the first position.
                const RegionTotals* minFrom = nullptr;
                const RegionTotals* maxFrom = nullptr;
                std::size_t minRow = 0, maxRow = 0;
                for (int side = 0; side < 2; ++side) {
                    const RegionTotals* t = side ? b : a;
                    const std::size_t r = side ? ib : ia;
                    if (!t || t->counts[r] == 0) continue;
                    const std::size_t k = r * channels + c;
                    if (!minFrom) { minFrom = maxFrom = t; minRow = maxRow = k; continue; }
                    const std::size_t m = minRow, x = maxRow;
                    const bool below = sampleLess(q.intensityKind, t->intensityMin[k], t->intensityMinBits[k], minFrom->intensityMin[m], minFrom->intensityMinBits[m]);
                    const bool above = sampleLess(q.intensityKind, minFrom->intensityMin[m], minFrom->intensityMinBits[m], t->intensityMin[k], t->intensityMinBits[k]);
                    if (below || (!above && t->intensityMinAt[k] < minFrom->intensityMinAt[m])) { minFrom = t; minRow = k; }
                    const bool over = sampleLess(q.intensityKind, maxFrom->intensityMax[x], maxFrom->intensityMaxBits[x], t->intensityMax[k], t->intensityMaxBits[k]);
                    const bool under = sampleLess(q.intensityKind, t->intensityMax[k], t->intensityMaxBits[k], maxFrom->intensityMax[x], maxFrom->intensityMaxBits[x]);
                    if (over || (!under && t->intensityMaxAt[k] < maxFrom->intensityMaxAt[x])) { maxFrom = t; maxRow = k; }
                }
                out.intensityMin.push_back(minFrom ? minFrom->intensityMin[minRow] : 0.0);
                out.intensityMinBits.push_back(minFrom ? minFrom->intensityMinBits[minRow] : 0);
                out.intensityMinAt.push_back(minFrom ? minFrom->intensityMinAt[minRow] : 0);
                out.intensityMax.push_back(maxFrom ? maxFrom->intensityMax[maxRow] : 0.0);
                out.intensityMaxBits.push_back(maxFrom ? maxFrom->intensityMaxBits[maxRow] : 0);
                out.intensityMaxAt.push_back(maxFrom ? maxFrom->intensityMaxAt[maxRow] : 0);
            }
            if (nw) {
                const std::size_t base = floats ? out.weightedMomentsFloat.size() : out.weightedMoments.size();
                if (floats) out.weightedMomentsFloat.resize(base + nw);
                else out.weightedMoments.resize(base + nw);
                for (int side = 0; side < 2; ++side) {
                    const RegionTotals* t = side ? b : a;
                    const std::size_t r = side ? ib : ia;
                    if (!t) continue;
                    const auto d = shiftOf(t, r);
                    const std::size_t k = (r * channels + c) * nw;
                    if (floats) {
                        recentre(weightedExps, &t->weightedMomentsFloat[k], shiftedFloat.data(), d, scaledDD);
                        for (std::size_t e = 0; e < nw; ++e) out.weightedMomentsFloat[base + e] += shiftedFloat[e];
                    } else {
                        recentre(weightedExps, &t->weightedMoments[k], shifted.data(), d, scaledInt);
                        for (std::size_t e = 0; e < nw; ++e) out.weightedMoments[base + e] += shifted[e];
                    }
                }
            }
        }
    };
    while (i < into.regions || j < from.regions) {
        if (j >= from.regions || (i < into.regions && into.labels[i] < from.labels[j])) appendRegion(&into, i++, nullptr, 0);
        else if (i >= into.regions || from.labels[j] < into.labels[i]) appendRegion(nullptr, 0, &from, j++);
        else {
            appendRegion(&into, i, &from, j);
            ++i;
            ++j;
        }
    }
    out.regions = out.labels.size();
    into = std::move(out);
}

PropertyTable measureRegions(const LabelSamples& labels, const IntensitySamples* intensity, const MeasureOptions& options) {
    const TermRequest q = requestOf(options, labels.shape.dimensions, intensity, options.intensityChannelAxis);
    const RegionTotals totals = measureTerms(labels, intensity, q, options.threads, options.backgroundIsRegion);
    return finalizeProperties(totals, options.properties);
}

PropertyTable measureLabeling(const Labeling& labeling, const IntensitySamples* intensity, const MeasureOptions& options) {
    const Shape shape = labeling.shape();
    checkShape(shape);
    if (labeling.labels.size() != shape.count()) throw Error("glccl::measureLabeling(): the labels do not fill the shape");
    std::optional<IntensityReader> reader;
    if (intensity) reader = readerOf(*intensity, shape);
    const TermRequest q = requestOf(options, shape.dimensions, intensity, options.intensityChannelAxis);
    const Grid g(shape);
    int threads = options.threads > 0 ? options.threads : cpu::defaultThreads();
    threads = int(std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(threads), g.chunks)));
    ThreadPool pool(threads);
    const std::size_t n = labeling.components.size();
    Boxes boxes;
    boxes.counts.resize(n);
    boxes.min.resize(n);
    boxes.max.resize(n);
    std::vector<std::uint64_t> labels(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Component& c = labeling.components[i];
        labels[i] = i + 1;
        boxes.counts[i] = c.area;
        boxes.min[i] = {std::int64_t(c.left), std::int64_t(c.top), std::int64_t(c.front)};
        boxes.max[i] = {std::int64_t(c.left) + c.width - 1, std::int64_t(c.top) + c.height - 1,
                        std::int64_t(c.front) + std::int64_t(c.depth) - 1};
    }
    const RegionIndex index = RegionIndex::consecutive(n, false);
    std::function<void(std::int64_t, std::int64_t*)> fillRow = [&](std::int64_t flatRow, std::int64_t* out) {
        const std::uint32_t* in = labeling.labels.data() + std::size_t(flatRow * g.w);
        for (std::int64_t x = 0; x < g.w; ++x) out[x] = index.of(in[x]);
    };
    Owned owned;
    owned.end = {g.w, g.h, g.d};
    const RegionTotals totals = gatherTerms(g, owned, q, std::move(boxes), std::move(labels), fillRow,
                                            reader ? &*reader : nullptr, pool, threads, shape, nullptr);
    return finalizeProperties(totals, options.properties);
}

}  // namespace glccl

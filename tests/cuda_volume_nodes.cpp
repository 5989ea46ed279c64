// The nodes and links of binary volumes (cuda/src/volume_nodes.cuh), on the
// host: no GPU needed, so these run in CI too. The volume kernels unite
// exactly the links forEachLinkInWord lists, across word edges too, and
// number roots by their keys; here one sequential union-find over the same
// links labels random and shaped volumes, and the result must equal the
// CPU reference byte for byte. A link missed, a line of a face term wrong,
// a key that is not the first voxel: each shows as a different labeling.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "glccl/compare.hpp"
#include "glccl/reference.hpp"
#include "volume_nodes.cuh"
#include "volume_support.hpp"

using glccl::Connectivity;
using glccl::Criterion;
using glccl::Image;
using glccl::Labeling;
using glccl::Shape;
namespace volume = glccl::cuda::volume;

namespace {

int connectivityNumber(Connectivity c) {
    return c == Connectivity::Six ? 6 : c == Connectivity::Eighteen ? 18 : 26;
}

// The volume as the kernels hold it: one bit per voxel, words of lines.
std::vector<std::uint32_t> bitsOf(const Image& image, const volume::NodeGrid& g) {
    std::vector<std::uint32_t> bits(g.lineWords(), 0u);
    for (std::uint32_t z = 0; z < g.depth; ++z)
        for (std::uint32_t y = 0; y < g.height; ++y)
            for (std::uint32_t x = 0; x < g.width; ++x)
                if (image.sample((std::size_t(z) * g.height + y) * g.width + x, 0) != 0)
                    bits[g.lineWord(x / 32, y, z)] |= 1u << (x % 32);
    return bits;
}

template <int Lines>
struct Model {
    volume::NodeGrid g;
    volume::Bundle bundle;
    std::vector<std::uint32_t> bits;
    std::vector<std::uint32_t> parents;  // per slot: a key

    Model(const Image& image, int connectivity)
        : g(volume::NodeGrid::of(std::uint32_t(image.width), std::uint32_t(image.height),
                                 std::uint32_t(image.depth), connectivity)),
          bundle(volume::bundleOf(connectivity)),
          bits(bitsOf(image, g)),
          parents(g.slots(), volume::kNoKey) {}

    // Lines of bundle word (wx, by, bz): 0 past the volume.
    void linesOf(std::int64_t wx, std::int64_t by, std::int64_t bz, std::uint32_t (&lines)[Lines]) const {
        for (int l = 0; l < Lines; ++l) {
            lines[l] = 0;
            const std::int64_t y = by * bundle.height + l % bundle.height, z = bz * bundle.depth + l / bundle.height;
            if (wx < 0 || wx >= std::int64_t(g.wordsX) || y < 0 || y >= std::int64_t(g.height) || z < 0 ||
                z >= std::int64_t(g.depth))
                continue;
            lines[l] = bits[g.lineWord(std::uint32_t(wx), std::uint32_t(y), std::uint32_t(z))];
        }
    }
    std::uint32_t foreground(std::int64_t wx, std::int64_t by, std::int64_t bz) const {
        std::uint32_t lines[Lines];
        linesOf(wx, by, bz, lines);
        return volume::linesOf(lines, std::uint8_t((1u << Lines) - 1u));
    }

    std::size_t slotOf(std::uint32_t wx, std::uint32_t by, std::uint32_t bz, int bit) const {
        return g.slotOf(g.bundleWord(wx, by, bz), volume::runAt(foreground(wx, by, bz), bit));
    }
    std::size_t slotOfKey(std::uint32_t key) const {
        const volume::NodeGrid::Voxel v = g.voxelOf(key);
        return slotOf(v.x / 32, v.y / std::uint32_t(bundle.height), v.z / std::uint32_t(bundle.depth), int(v.x % 32));
    }

    std::uint32_t root(std::uint32_t key) const {
        for (;;) {
            const std::uint32_t parent = parents[slotOfKey(key)];
            if (parent == key) return key;
            key = parent;
        }
    }
    void unite(std::size_t a, std::size_t b) {
        const std::uint32_t ra = root(parents[a]), rb = root(parents[b]);
        if (ra < rb) parents[slotOfKey(rb)] = ra;
        if (rb < ra) parents[slotOfKey(ra)] = rb;
    }

    void label() {
        // Every node's key: its first voxel.
        for (std::uint32_t bz = 0; bz < g.bundlesZ; ++bz)
            for (std::uint32_t by = 0; by < g.bundlesY; ++by)
                for (std::uint32_t wx = 0; wx < g.wordsX; ++wx) {
                    std::uint32_t lines[Lines];
                    linesOf(wx, by, bz, lines);
                    const std::uint32_t p = volume::linesOf(lines, std::uint8_t((1u << Lines) - 1u));
                    for (int r = 0; r < volume::popCount(volume::runStarts(p)); ++r) {
                        const volume::FirstVoxel first = volume::firstVoxelOf(lines, volume::runBits(p, r));
                        parents[g.slotOf(g.bundleWord(wx, by, bz), r)] =
                            g.keyOf(wx * 32 + std::uint32_t(first.bit), by * std::uint32_t(bundle.height) + std::uint32_t(first.line % bundle.height),
                                    bz * std::uint32_t(bundle.depth) + std::uint32_t(first.line / bundle.height));
                    }
                }
        // Every link.
        for (std::uint32_t bz = 0; bz < g.bundlesZ; ++bz)
            for (std::uint32_t by = 0; by < g.bundlesY; ++by)
                for (std::uint32_t wx = 0; wx < g.wordsX; ++wx) {
                    std::uint32_t u[Lines];
                    linesOf(wx, by, bz, u);
                    const std::uint32_t pu = volume::linesOf(u, std::uint8_t((1u << Lines) - 1u));
                    if (pu == 0u) continue;
                    // The same bundle's word before.
                    if (wx > 0 && (pu & 1u) != 0u && (foreground(wx - 1, by, bz) >> 31) != 0u)
                        unite(slotOf(wx, by, bz, 0), slotOf(wx - 1, by, bz, 31));
                    for (int i = 0; i < volume::relationCount(g.connectivity); ++i) {
                        const volume::Relation relation = volume::relationOf(g.connectivity, i);
                        const std::int64_t vy = std::int64_t(by) + relation.dy, vz = std::int64_t(bz) + relation.dz;
                        if (vy < 0 || vz < 0 || vy >= std::int64_t(g.bundlesY)) continue;
                        std::uint32_t v[Lines], before[Lines], after[Lines];
                        linesOf(wx, vy, vz, v);
                        linesOf(std::int64_t(wx) - 1, vy, vz, before);
                        linesOf(std::int64_t(wx) + 1, vy, vz, after);
                        std::uint32_t fu[volume::kMostTerms] = {}, fv[volume::kMostTerms] = {};
                        bool across[volume::kMostTerms] = {};
                        for (int k = 0; k < relation.terms; ++k) {
                            const volume::FaceTerm term = relation.term[k];
                            fu[k] = volume::linesOf(u, term.uLines);
                            fv[k] = volume::linesOf(v, term.vLines);
                            across[k] = term.across;
                            if (!term.across) continue;
                            if ((fu[k] & 1u) != 0u && (volume::linesOf(before, term.vLines) >> 31) != 0u)
                                unite(slotOf(wx, by, bz, 0), slotOf(wx - 1, std::uint32_t(vy), std::uint32_t(vz), 31));
                            if ((fu[k] >> 31) != 0u && (volume::linesOf(after, term.vLines) & 1u) != 0u)
                                unite(slotOf(wx, by, bz, 31), slotOf(wx + 1, std::uint32_t(vy), std::uint32_t(vz), 0));
                        }
                        volume::forEachLinkInWord(fu, fv, across, [&](int p, int q) {
                            unite(slotOf(wx, by, bz, p), slotOf(wx, std::uint32_t(vy), std::uint32_t(vz), q));
                        });
                        if (relation.kissLines == 0) continue;
                        std::uint32_t touchUV = 0, touchVU = 0;
                        for (int l = 0; l < Lines; ++l) {
                            if (((relation.kissLines >> l) & 1u) == 0u) continue;
                            touchUV |= u[l] & (v[l] >> 1);
                            touchVU |= v[l] & (u[l] >> 1);
                            // Across the word's edges, as the terms that join one step along x.
                            if ((u[l] & 1u) != 0u && (before[l] >> 31) != 0u)
                                unite(slotOf(wx, by, bz, 0), slotOf(wx - 1, std::uint32_t(vy), std::uint32_t(vz), 31));
                            if ((u[l] >> 31) != 0u && (after[l] & 1u) != 0u)
                                unite(slotOf(wx, by, bz, 31), slotOf(wx + 1, std::uint32_t(vy), std::uint32_t(vz), 0));
                        }
                        const std::uint32_t pv = volume::linesOf(v, std::uint8_t((1u << Lines) - 1u));
                        const volume::Kisses kisses = volume::kissesOf(pu, pv, touchUV, touchVU);
                        for (std::uint32_t e = kisses.uToV; e != 0u; e &= e - 1u)
                            unite(slotOf(wx, by, bz, volume::lowestBit(e)),
                                  slotOf(wx, std::uint32_t(vy), std::uint32_t(vz), volume::lowestBit(e) + 1));
                        for (std::uint32_t e = kisses.vToU; e != 0u; e &= e - 1u)
                            unite(slotOf(wx, by, bz, volume::lowestBit(e) + 1),
                                  slotOf(wx, std::uint32_t(vy), std::uint32_t(vz), volume::lowestBit(e)));
                    }
                }
    }

    // Labels numbered by the roots' keys, raster order of first voxels.
    Labeling labels() const {
        Labeling out;
        out.width = int(g.width), out.height = int(g.height), out.depth = int(g.depth), out.dimensions = 3;
        out.labels.assign(std::size_t(g.width) * g.height * g.depth, 0u);
        std::vector<std::uint32_t> rootKeys;
        // A root holds its own key: the key's slot is its own.
        for (std::size_t s = 0; s < parents.size(); ++s)
            if (parents[s] != volume::kNoKey && slotOfKey(parents[s]) == s) rootKeys.push_back(parents[s]);
        std::sort(rootKeys.begin(), rootKeys.end());
        for (std::uint32_t z = 0; z < g.depth; ++z)
            for (std::uint32_t y = 0; y < g.height; ++y)
                for (std::uint32_t x = 0; x < g.width; ++x) {
                    if (((bits[g.lineWord(x / 32, y, z)] >> (x % 32)) & 1u) == 0u) continue;
                    const std::size_t slot = slotOf(x / 32, y / std::uint32_t(bundle.height), z / std::uint32_t(bundle.depth), int(x % 32));
                    const std::uint32_t r = root(parents[slot]);
                    out.labels[g.keyOf(x, y, z)] =
                        std::uint32_t(std::lower_bound(rootKeys.begin(), rootKeys.end(), r) - rootKeys.begin()) + 1u;
                }
        out.components.resize(rootKeys.size());
        return out;
    }
};

Labeling labelByNodes(const Image& image, Connectivity connectivity) {
    const int c = connectivityNumber(connectivity);
    Labeling out;
    if (c == 26) {
        Model<4> model(image, c);
        model.label();
        out = model.labels();
    } else if (c == 18) {
        Model<2> model(image, c);
        model.label();
        out = model.labels();
    } else {
        Model<1> model(image, c);
        model.label();
        out = model.labels();
    }
    return out;
}

void requireLabelsEqualReference(const Image& image, Connectivity connectivity, const std::string& what) {
    INFO(what << " " << image.width << "x" << image.height << "x" << image.depth << " at "
              << connectivityNumber(connectivity));
    const Labeling expected = glccl::labelReference(image, connectivity, Criterion::binary());
    const Labeling actual = labelByNodes(image, connectivity);
    REQUIRE(actual.count() == expected.count());
    REQUIRE(actual.labels == expected.labels);
}

}  // namespace

TEST_CASE("cuda volume nodes: division by an invariant divisor is exact for every dividend", "[volume][nodes]") {
    std::mt19937 rng(7);
    std::vector<std::uint32_t> divisors = {1, 2, 3, 5, 7, 31, 32, 33, 641, 1000, 1023, 1024, 1025, 65535, 65536,
                                           65537, 2147483647u, 2147483648u, 2147483649u, 4294967294u, 4294967295u};
    for (int i = 0; i < 200; ++i) divisors.push_back(std::uint32_t(rng()) >> (rng() % 32) | 1u);
    std::vector<std::uint32_t> dividends = {0, 1, 2, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    for (int i = 0; i < 2000; ++i) dividends.push_back(std::uint32_t(rng()) >> (rng() % 32));
    for (std::uint32_t d : divisors) {
        const volume::Divisor divisor = volume::Divisor::of(d);
        for (std::uint32_t n : dividends) {
            REQUIRE(divisor.quotient(n) == n / d);
            // Both ends of a quotient step.
            const std::uint32_t q = n / d;
            const std::uint64_t low = std::uint64_t(q) * d, high = low + d - 1;
            REQUIRE(divisor.quotient(std::uint32_t(low)) == q);
            if (high <= 0xFFFFFFFFu) REQUIRE(divisor.quotient(std::uint32_t(high)) == q);
        }
    }
}

TEST_CASE("cuda volume nodes: runs and first voxels of bundle words", "[volume][nodes]") {
    std::mt19937 rng(11);
    for (int i = 0; i < 5000; ++i) {
        const std::uint32_t p = std::uint32_t(rng()) & std::uint32_t(rng());
        const int runs = volume::popCount(volume::runStarts(p));
        REQUIRE(runs <= volume::kRunsPerWord);
        std::uint32_t covered = 0;
        for (int r = 0; r < runs; ++r) {
            const std::uint32_t bits = volume::runBits(p, r);
            REQUIRE(bits != 0u);
            REQUIRE((bits & covered) == 0u);
            covered |= bits;
            // Contiguous and maximal.
            const std::uint32_t shifted = bits >> volume::lowestBit(bits);
            REQUIRE((shifted & (shifted + 1u)) == 0u);
            for (int b = 0; b < 32; ++b)
                if ((bits >> b) & 1u) REQUIRE(volume::runAt(p, b) == r);
        }
        REQUIRE(covered == p);
    }
}

TEST_CASE("cuda volume nodes: links of bundle runs label random volumes like the reference", "[volume][nodes]") {
    std::mt19937 rng(3);
    const double densities[] = {0.05, 0.2, 0.3, 0.45, 0.6, 0.85};
    for (Connectivity connectivity : glccl::test::kVolumeConnectivities) {
        for (int i = 0; i < 60; ++i) {
            const int w = 1 + int(rng() % 100), h = 1 + int(rng() % 9), d = 1 + int(rng() % 9);
            const Image image = glccl::test::randomTestVolume(w, h, d, densities[i % 6], rng());
            requireLabelsEqualReference(image, connectivity, "random");
        }
        // Word edges: widths around multiples of 32, and every voxel set.
        for (int w : {31, 32, 33, 63, 64, 65, 96, 97}) {
            requireLabelsEqualReference(glccl::test::randomTestVolume(w, 5, 4, 0.35, rng()), connectivity, "edges");
            requireLabelsEqualReference(glccl::test::randomTestVolume(w, 3, 3, 1.0, rng()), connectivity, "full");
        }
        requireLabelsEqualReference(glccl::test::randomTestVolume(1, 1, 70, 0.5, rng()), connectivity, "1x1xN");
        requireLabelsEqualReference(glccl::test::randomTestVolume(70, 1, 1, 0.5, rng()), connectivity, "Nx1x1");
        requireLabelsEqualReference(glccl::test::randomTestVolume(1, 70, 1, 0.5, rng()), connectivity, "1xNx1");
    }
}

TEST_CASE("cuda volume nodes: shapes only an edge or a corner joins", "[volume][nodes]") {
    // Pairs of voxels that touch across one, two or three axes, at every
    // position in a word and across word edges: 6, 18 and 26 separate them.
    for (Connectivity connectivity : glccl::test::kVolumeConnectivities)
        for (int x = 0; x < 66; x += 5)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dz = 0; dz <= 1; ++dz)
                    for (int dx = -1; dx <= 1; ++dx) {
                        if (dz == 0 && dy <= 0) continue;  // each pair once
                        for (int y0 = 1; y0 <= 2; ++y0)
                            for (int z0 = 0; z0 <= 1; ++z0) {
                                Image image(Shape::volume(67, 5, 4), 1, 8);
                                glccl::test::setVoxel(image, x, y0, z0);
                                if (x + dx >= 0 && x + dx < 67) glccl::test::setVoxel(image, x + dx, y0 + dy, z0 + dz);
                                requireLabelsEqualReference(image, connectivity, "pair");
                            }
                    }
}

TEST_CASE("cuda volume nodes: the nonzero bytes of a word, and local keys of patches", "[volume][nodes]") {
    std::mt19937 rng(5);
    for (int i = 0; i < 100000; ++i) {
        std::uint32_t v = std::uint32_t(rng());
        for (int b = 0; b < 4; ++b)
            if (rng() % 2) v &= ~(0xFFu << (8 * b));
        std::uint32_t expected = 0;
        for (int b = 0; b < 4; ++b)
            if (((v >> (8 * b)) & 0xFFu) != 0u) expected |= 1u << b;
        REQUIRE(volume::nonzeroBytes(v) == expected);
    }
    using B = volume::Patch<26>;
    std::uint32_t last = 0;
    bool first = true;
    for (int z = 0; z < B::kZ; ++z)
        for (int y = 0; y < B::kY; ++y)
            for (int x = 0; x < B::kX; ++x) {
                const std::uint32_t key = B::localKey(x, y, z);
                REQUIRE((first || key > last));  // raster order
                first = false, last = key;
                REQUIRE(B::xOfKey(key) == x);
                REQUIRE(B::yOfKey(key) == y);
                REQUIRE(B::zOfKey(key) == z);
                const int t = B::threadOfKey(key);
                REQUIRE(B::wordOf(t) == x / 32);
                REQUIRE(B::bundleYOf(t) == y / 2);
                REQUIRE(B::bundleZOf(t) == z / 2);
            }
}


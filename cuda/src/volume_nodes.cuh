#pragma once
// The nodes of a binary volume and the links between them, as the volume
// block kernels see them (local_merge_volume, merge_borders_volume,
// count_roots_volume, final_labels_volume). Host and device code: the same
// functions are checked on the host against the CPU reference
// (tests/cuda_volume_nodes.cpp, which needs no GPU).
//
// Words. A line of the volume (one y of one slice) is cut into words of 32
// voxels, bit i of a word the voxel at x = 32 * word + i; voxels past the
// width are 0.
//
// Bundles. Lines are taken in bundles whose voxels, at the connectivity,
// all touch their neighbours one step along x in any line of the bundle:
//
//      26: 2 x 2 lines (y, z)     18: 2 lines (y)     6: one line
//          z+1  [2] [3]               [0] [1]             [0]
//          z    [0] [1]               y   y+1             y
//               y   y+1
//
// so every run of the OR of a bundle word's lines (P, "the bundle's
// foreground") is connected: consecutive positions hold voxels one step
// apart along x, in lines at most one step apart along y and z. Different
// runs of P are separated by a column with no voxel and are not connected
// inside the bundle. Such a run is a node: the compute engine's 2x2x2,
// 2x2x1 and 2x1x1 blocks, strung along x as far as they touch. A word has
// at most 16 runs; node r of bundle word b has slot NodeGrid::slotOf(b, r).
//
// A node is known by its key: the volume index (z * height + y) * width + x
// of its first voxel in raster order (lowest z, then y, then x). Keys order
// like raster positions, so a union-find that keeps the smaller key roots
// every component at its first voxel, the one the output contract numbers
// it by.
//
// Links. Two nodes of neighbouring bundles are linked when a voxel of one
// touches a voxel of the other. Every pair of neighbouring bundles is one
// relation of the later of the two (V = U + (dy, dz) in bundles, V before U
// in raster order), with the words at the same x, and one word left and
// right of it. Which lines of U and V face each other, and whether voxels
// one step apart along x still touch, is a relation's list of face terms:
// nodes u and v are linked when, for some term, a voxel of u in the term's
// lines of U and a voxel of v in its lines of V are at most `across` apart
// along x. The next word of the same bundle is linked where the runs of P
// meet across the word's edge.
//
// Which links to unite. For one word and one term, with FU and FV the OR of
// the term's lines of U and V, cut FU and FV into their own runs ("face
// runs"). Two face runs a (of FU) and b (of FV) touch when they are at most
// `across` apart. It suffices to unite, for every face run a starting at s,
// the node of a with the node of the first FV voxel within `across` of s,
// and for every face run b starting at t, the node of b with the node of the
// first FU voxel within `across` of t: for touching a and b, either b starts
// before s - across, and then s - across lies in b, or b's start t lies
// within `across` of a voxel of a; in the latter case the first FU voxel
// near t is in a, or in a face run that ends at t - 1 while a starts at
// t + 1, and then a's own start finds t. So every pair of touching face runs
// is united directly, and the words' edges add the pairs one step apart
// across them. forEachLinkInWord lists these unions.

#include <cstddef>
#include <cstdint>

#include "invariant_divisor.hpp"
#include "node_grid_sizes.hpp"

#if defined(__CUDACC__)
#define GLCCL_NODES_HD __host__ __device__ __forceinline__
#else
#define GLCCL_NODES_HD inline
#endif

namespace glccl::cuda::volume {

// Voxels per word and nodes per bundle word, at most: the compute engine's
// too (node_grid_sizes.hpp).
using ::glccl::detail::kWordBits;
using ::glccl::detail::kRunsPerWord;
constexpr std::uint32_t kNoKey = 0xFFFFFFFFu;

GLCCL_NODES_HD int popCount(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
    return __popc(v);
#else
    return __builtin_popcount(v);
#endif
}

// The sum of the positions of v's set bits (a run's x offsets in its word,
// a warp's lane indices): bit b of each position, counted over v.
GLCCL_NODES_HD std::uint32_t positionSum(std::uint32_t v) {
    return std::uint32_t(popCount(v & 0xAAAAAAAAu)) + 2u * std::uint32_t(popCount(v & 0xCCCCCCCCu)) +
           4u * std::uint32_t(popCount(v & 0xF0F0F0F0u)) + 8u * std::uint32_t(popCount(v & 0xFF00FF00u)) +
           16u * std::uint32_t(popCount(v & 0xFFFF0000u));
}

// Position of the lowest (highest) set bit of v != 0.
GLCCL_NODES_HD int lowestBit(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
    return __ffs(int(v)) - 1;
#else
    return __builtin_ctz(v);
#endif
}
GLCCL_NODES_HD int highestBit(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
    return 31 - __clz(int(v));
#else
    return 31 - __builtin_clz(v);
#endif
}

// Bits 0 .. bit (bit in 0 .. 31).
GLCCL_NODES_HD std::uint32_t bitsThrough(int bit) { return bit == 31 ? 0xFFFFFFFFu : (2u << bit) - 1u; }

// Where the runs of a word start.
GLCCL_NODES_HD std::uint32_t runStarts(std::uint32_t p) { return p & ~(p << 1); }

// The run of P (its index, counting from 0) that holds position `bit`.
GLCCL_NODES_HD int runAt(std::uint32_t p, int bit) { return popCount(runStarts(p) & bitsThrough(bit)) - 1; }

// The bits of the run of P that starts at `start`.
GLCCL_NODES_HD std::uint32_t runFrom(std::uint32_t p, int start) {
    const std::uint32_t gaps = ~(p >> start);  // bit k: position start + k is 0 (or past the word)
    const int length = gaps == 0u ? kWordBits : lowestBit(gaps);
    return (length == kWordBits ? 0xFFFFFFFFu : (1u << length) - 1u) << start;
}

// A word's runs, from the left: the bits of run `run`.
GLCCL_NODES_HD std::uint32_t runBits(std::uint32_t p, int run) {
    std::uint32_t starts = runStarts(p);
    for (int i = 0; i < run; ++i) starts &= starts - 1u;
    return runFrom(p, lowestBit(starts));
}

// ---------------------------------------------------------------------------
// Bundles and relations.

struct Bundle {
    int height, depth;  // lines along y and z
    GLCCL_NODES_HD constexpr int lines() const { return height * depth; }
};

// Line l of a bundle is (dy, dz) = (l % height, l / height): raster order.
GLCCL_NODES_HD constexpr Bundle bundleOf(int connectivity) {
    return {connectivity == 6 ? 1 : 2, connectivity == 26 ? 2 : 1};
}

// One face term of a relation: bit l of uLines (vLines) selects line l of U
// (V); across: voxels one step apart along x touch too.
struct FaceTerm {
    std::uint8_t uLines, vLines;
    bool across;
};

constexpr int kMostTerms = 1;
struct Relation {
    int dy, dz;  // V = U + (dy, dz), in bundles
    int terms;
    FaceTerm term[kMostTerms];
    // Lines l of U whose voxels touch V's line l one step along x where the
    // relation's term joins only what overlaps (18 across z): such a pair
    // adds a link only where a run of U's foreground ends and the next run
    // of V's starts right after it, or the other way round (kissesOf); any
    // other two runs that touch so also overlap.
    std::uint8_t kissLines;
};

GLCCL_NODES_HD constexpr int relationCount(int connectivity) { return connectivity == 6 ? 2 : 4; }

// The relations of each connectivity, V before U in raster order of
// bundles. 26, lines 0 = (y, z), 1 = (y+1, z), 2 = (y, z+1), 3 = (y+1, z+1):
//   (-1, 0): U's lines at y face V's at y-1, any z: lines {0, 2} and {1, 3}
//   (-1,-1): U's (y, z) meets V's (y-1, z-1) only: {0} and {3}
//   ( 0,-1): U's lines at z face V's at z-1: {0, 1} and {2, 3}
//   (+1,-1): U's (y+1, z) meets V's (y+2, z-1) only: {1} and {2}
// all one step apart along x too. 18, lines 0 = y, 1 = y+1: a voxel touches
// another one step along x only when they differ in one other axis at
// most, so across z (0,-1) the same lines touch along x but the crossed
// ones only straight: the overlap of the two bundles' P joins both the
// crossed lines and the same lines straight, and the same lines one step
// apart add the kisses of the two P (kissLines); the diagonal relations
// join only straight. 6: the line above and the line before, straight.
GLCCL_NODES_HD constexpr Relation relationOf(int connectivity, int i) {
    if (connectivity == 26) {
        constexpr Relation kRelations[4] = {{-1, 0, 1, {{0x5, 0xA, true}}, 0},
                                            {-1, -1, 1, {{0x1, 0x8, true}}, 0},
                                            {0, -1, 1, {{0x3, 0xC, true}}, 0},
                                            {1, -1, 1, {{0x2, 0x4, true}}, 0}};
        return kRelations[i];
    }
    if (connectivity == 18) {
        constexpr Relation kRelations[4] = {{-1, 0, 1, {{0x1, 0x2, true}}, 0},
                                            {-1, -1, 1, {{0x1, 0x2, false}}, 0},
                                            {0, -1, 1, {{0x3, 0x3, false}}, 0x3},
                                            {1, -1, 1, {{0x2, 0x1, false}}, 0}};
        return kRelations[i];
    }
    constexpr Relation kRelations[2] = {{-1, 0, 1, {{0x1, 0x1, false}}, 0}, {0, -1, 1, {{0x1, 0x1, false}}, 0}};
    return kRelations[i];
}

// The OR of the selected lines of a bundle word.
template <int Lines>
GLCCL_NODES_HD std::uint32_t linesOf(const std::uint32_t (&lines)[Lines], std::uint8_t selected) {
    std::uint32_t f = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int l = 0; l < Lines; ++l)
        if ((selected >> l) & 1u) f |= lines[l];
    return f;
}

// The positions within `across` (0 or 1) of `bit`, inside the word.
GLCCL_NODES_HD std::uint32_t reachOf(int bit, bool across) {
    if (!across) return 1u << bit;
    return bit == 0 ? 3u : 7u << (bit - 1);
}

// Where one word and one face term ask for unions (see "Which links to
// unite"): fromU has the starts of FU's face runs with an FV voxel within
// `across`, fromV the starts of FV's with an FU voxel. The union asked at a
// start x of fromU joins x with partnerOf(fv, x), one asked at a start x of
// fromV joins partnerOf(fu, x) with x.
struct TermLinks {
    std::uint32_t fromU, fromV;
};
GLCCL_NODES_HD TermLinks termLinks(std::uint32_t fu, std::uint32_t fv, bool across) {
    const std::uint32_t nearV = across ? (fv | (fv << 1) | (fv >> 1)) : fv;
    const std::uint32_t nearU = across ? (fu | (fu << 1) | (fu >> 1)) : fu;
    return {runStarts(fu) & nearV, runStarts(fv) & nearU};
}
GLCCL_NODES_HD int partnerOf(std::uint32_t face, int x, bool across) { return lowestBit(face & reachOf(x, across)); }

// Where the runs of U's foreground pu and V's pv kiss (kissLines): bit e of
// uToV when a run of pu ends at e, the next run of pv starts at e + 1 (and
// pv has no voxel at e), and one of the lines touches across (touchUV =
// the OR over kiss lines l of U_l & (V_l >> 1)): it joins U at e with V at
// e + 1. vToU the other way round (touchVU = V_l & (U_l >> 1)): it joins U
// at e + 1 with V at e.
struct Kisses {
    std::uint32_t uToV, vToU;
};
GLCCL_NODES_HD Kisses kissesOf(std::uint32_t pu, std::uint32_t pv, std::uint32_t touchUV, std::uint32_t touchVU) {
    const std::uint32_t endsU = pu & ~(pu >> 1), endsV = pv & ~(pv >> 1);
    return {endsU & ~pv & (pv >> 1) & touchUV, endsV & ~pu & (pu >> 1) & touchVU};
}

// Every union one word of a relation needs, term by term: link(p, q) for a
// position p of the term's FU and q of its FV. The unions come in order of
// the position that asks for them (a face run's start), so the same two
// nodes asked twice are usually asked one after the other, and a caller
// that skips a repeat of the last pair skips most repeats. Pairs one step
// apart across the word's edges are the caller's (the first and last bit
// of FU against the words beside V's). The kernels walk the same positions
// in the same order, a warp in step (local_merge_volume.cu).
template <int Terms, class Link>
GLCCL_NODES_HD void forEachLinkInWord(const std::uint32_t (&fu)[Terms], const std::uint32_t (&fv)[Terms],
                                      const bool (&across)[Terms], Link&& link) {
    TermLinks links[Terms];
    std::uint32_t asking = 0;
    for (int k = 0; k < Terms; ++k) {
        links[k] = termLinks(fu[k], fv[k], across[k]);
        asking |= links[k].fromU | links[k].fromV;
    }
    for (; asking != 0u; asking &= asking - 1u) {
        const int x = lowestBit(asking);
        for (int k = 0; k < Terms; ++k) {
            if ((links[k].fromU >> x) & 1u) link(x, partnerOf(fv[k], x, across[k]));
            if ((links[k].fromV >> x) & 1u) link(partnerOf(fu[k], x, across[k]), x);
        }
    }
}

// ---------------------------------------------------------------------------
// First voxels.

// The first voxel in raster order of the node with bits `run` of a bundle
// word with `lines`: its line in the bundle and its bit.
struct FirstVoxel {
    int line, bit;
};
template <int Lines>
GLCCL_NODES_HD FirstVoxel firstVoxelOf(const std::uint32_t (&lines)[Lines], std::uint32_t run) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int l = 0; l < Lines - 1; ++l)
        if ((lines[l] & run) != 0u) return {l, lowestBit(lines[l] & run)};
    return {Lines - 1, lowestBit(lines[Lines - 1] & run)};
}

// ---------------------------------------------------------------------------
// Patches: what one thread block of local_merge and merge_borders covers, a
// box of kWords x kBundlesY x kBundlesZ bundle words, one thread each
// (words fastest, so that a warp reads whole lines). Inside a patch a node
// is known by its local key, the same raster order in bits:
// (z << (kXBits + kYBits)) | (y << kXBits) | x.
//
//        +-----------------+     26: 64 x 32 x 32 voxels (2 words, 16 x 16
//       / 2 words (x)     /|         bundles of 2 x 2 lines)
//      +-----------------+ |     18: 64 x 32 x 16 (bundles of 2 lines)
//      | 16 bundles (y)  | +      6: 64 x 16 x 16 (single lines)
//      +-----------------+/      16 bundles deep (z)
template <int Connectivity>
struct Patch {
    static constexpr Bundle kBundle = bundleOf(Connectivity);
    static constexpr int kLines = kBundle.lines();
    static constexpr int kWords = 2;
    static constexpr int kBundlesY = 16;
    static constexpr int kBundlesZ = 16;
    static constexpr int kThreads = kWords * kBundlesY * kBundlesZ;
    static constexpr int kX = kWords * kWordBits;
    static constexpr int kY = kBundlesY * kBundle.height;
    static constexpr int kZ = kBundlesZ * kBundle.depth;
    static constexpr int kXBits = kX == 64 ? 6 : kX == 128 ? 7 : 5;
    static constexpr int kYBits = kY == 32 ? 5 : kY == 16 ? 4 : kY == 64 ? 6 : 3;
    static_assert((1 << kXBits) == kX && (1 << kYBits) == kY, "patch sides are powers of two");
    static_assert(kThreads <= 1024, "one thread per bundle word");

    // Thread t's bundle word in the patch.
    GLCCL_NODES_HD static int wordOf(int t) { return t % kWords; }
    GLCCL_NODES_HD static int bundleYOf(int t) { return t / kWords % kBundlesY; }
    GLCCL_NODES_HD static int bundleZOf(int t) { return t / (kWords * kBundlesY); }
    GLCCL_NODES_HD static int threadOf(int w, int by, int bz) { return (bz * kBundlesY + by) * kWords + w; }

    GLCCL_NODES_HD static std::uint32_t localKey(int x, int y, int z) {
        return (std::uint32_t(z) << (kXBits + kYBits)) | (std::uint32_t(y) << kXBits) | std::uint32_t(x);
    }
    GLCCL_NODES_HD static int xOfKey(std::uint32_t key) { return int(key & (kX - 1)); }
    GLCCL_NODES_HD static int yOfKey(std::uint32_t key) { return int((key >> kXBits) & (kY - 1)); }
    GLCCL_NODES_HD static int zOfKey(std::uint32_t key) { return int(key >> (kXBits + kYBits)); }
    // The thread whose bundle word holds a local key's voxel.
    GLCCL_NODES_HD static int threadOfKey(std::uint32_t key) {
        return threadOf(xOfKey(key) / kWordBits, yOfKey(key) / kBundle.height, zOfKey(key) / kBundle.depth);
    }
};

// The nonzero bytes of a word of four samples, as bits 0..3.
GLCCL_NODES_HD std::uint32_t nonzeroBytes(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
    const std::uint32_t ones = __vcmpne4(v, 0u) & 0x01010101u;
#else
    std::uint32_t ones = v | (v >> 4);
    ones |= ones >> 2;
    ones = (ones | (ones >> 1)) & 0x01010101u;
#endif
    // Byte i's bit to bit 24 + i: no partial product carries below bit 24.
    return (ones * 0x01020408u) >> 24;
}

// Node keys divided by the width and lines by the height with a multiply
// and shifts: invariant_divisor.hpp.
using detail::Divisor;

// ---------------------------------------------------------------------------
// The node grid of one volume.

struct NodeGrid {
    std::uint32_t width = 0, height = 0, depth = 0;
    int connectivity = 26;
    std::uint32_t wordsX = 0;     // words per line
    std::uint32_t bundlesY = 0;   // bundles per slice column
    std::uint32_t bundlesZ = 0;
    Divisor byWidth, byHeight;

    static NodeGrid of(std::uint32_t width, std::uint32_t height, std::uint32_t depth, int connectivity) {
        NodeGrid g;
        g.width = width, g.height = height, g.depth = depth;
        g.connectivity = connectivity;
        const Bundle b = bundleOf(connectivity);
        g.wordsX = (width + kWordBits - 1) / kWordBits;
        g.bundlesY = (height + std::uint32_t(b.height) - 1) / std::uint32_t(b.height);
        g.bundlesZ = (depth + std::uint32_t(b.depth) - 1) / std::uint32_t(b.depth);
        g.byWidth = Divisor::of(width);
        g.byHeight = Divisor::of(height);
        return g;
    }

    GLCCL_NODES_HD std::size_t lineWords() const { return std::size_t(height) * depth * wordsX; }
    GLCCL_NODES_HD std::size_t bundleWords() const { return std::size_t(bundlesY) * bundlesZ * wordsX; }
    // Node slots: groups of 32 consecutive bundle words, run r of each of
    // them side by side, so that threads of consecutive words reach their
    // r-th nodes in consecutive words of memory.
    GLCCL_NODES_HD std::size_t slots() const { return (bundleWords() + 31) / 32 * 32 * kRunsPerWord; }
    GLCCL_NODES_HD static std::size_t slotOf(std::size_t bundleWord, int run) {
        return (bundleWord / 32) * (32 * kRunsPerWord) + std::size_t(run) * 32 + bundleWord % 32;
    }
    GLCCL_NODES_HD static std::size_t wordOfSlot(std::size_t slot) {
        return slot / (32 * kRunsPerWord) * 32 + slot % 32;
    }
    GLCCL_NODES_HD static int runOfSlot(std::size_t slot) { return int(slot / 32 % kRunsPerWord); }

    // Word wx of line (y, z) in the volume's bit array.
    GLCCL_NODES_HD std::size_t lineWord(std::uint32_t wx, std::uint32_t y, std::uint32_t z) const {
        return (std::size_t(z) * height + y) * wordsX + wx;
    }
    // Word wx of bundle (by, bz).
    GLCCL_NODES_HD std::size_t bundleWord(std::uint32_t wx, std::uint32_t by, std::uint32_t bz) const {
        return (std::size_t(bz) * bundlesY + by) * wordsX + wx;
    }
    GLCCL_NODES_HD std::uint32_t keyOf(std::uint32_t x, std::uint32_t y, std::uint32_t z) const {
        return (z * height + y) * width + x;
    }

    // The voxel of a key.
    struct Voxel {
        std::uint32_t x, y, z;
    };
    GLCCL_NODES_HD Voxel voxelOf(std::uint32_t key) const {
        const std::uint32_t line = byWidth.quotient(key);
        const std::uint32_t z = byHeight.quotient(line);
        return {key - line * width, line - z * height, z};
    }
    // The line (z * height + y) of a key.
    GLCCL_NODES_HD std::uint32_t lineOfKey(std::uint32_t key) const { return byWidth.quotient(key); }
};

}  // namespace glccl::cuda::volume

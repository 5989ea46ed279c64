#pragma once
// Sizes and bindings the compute backend's C++ and GLSL share. Written once
// here; every compute program gets them as #defines (computeDefines), and
// each pass adds the few that are its own (its ProgramSpec).
//
// The vocabulary of the compute passes:
//   pixel        a sample of the input, at (x, y); a pixel line is one y.
//   node         NODE_W x NODE_H pixels labelled as one (2 x 2 for binary
//                8-connectivity, NodeSize); the node grid is gridSize.
//   line         one y of a grid: a pixel line or a node line.
//   patch        kPatch: 32 x 32 nodes, the area one work group of
//                local_merge and merge_borders covers (its shared-memory
//                union-find, its border links).
//   label patch  kLabelPatch: 64 x 64 nodes, the area one
//                work group of final_labels covers (its shared-memory table).
//   key          a pixel's linear index y * width + x, which orders keys
//                like raster positions (compute_common.glsl).
// "Tile" is kept for the pieces of a huge image (tiles/), never for these.
// A volume has the same words in 3-D (voxel for pixel, a line is one (y, z),
// patches are boxes of nodes); its passes are the 2-D ones with DIMENSIONS 3
// (count_roots.comp, final_labels.comp) or, where the algorithm differs, a
// <stage>_volume_grid.comp sibling (local_merge, merge_borders), under the same
// stage names and timer keys. A binary volume has nodes of its own, runs of
// bundles of lines (words, bundles, patches: volume_nodes.glsl), labeled by the
// <stage>_volume.comp passes, again under the same names.
//
//   the node grid, from its top-left corner:
//   +-------+-------+-------+--
//   | patch | patch | patch |     a patch: 32 x 32 nodes (local_merge,
//   |       |       |       |     merge_borders)
//   +-------+-------+-------+--
//   | patch | patch | patch |     a label patch: 64 x 64 nodes, four
//   |       |       |       |     patches' area (final_labels)
//   +-------+-------+-------+--
//   \______________/
//     label patch

#include <cstdint>

#include "glccl/types.hpp"
#include "invariant_divisor.hpp"
#include "node_grid_sizes.hpp"
#include "program.hpp"

namespace glccl::compute {

// A box of nodes: the shape of a patch or of a label patch (depth 1 for an
// image). Each is passed to GLSL as PATCH_W/H/D or LABEL_PATCH_W/H/D.
struct NodeBox {
    int width, height, depth;
    constexpr int nodes() const { return width * height * depth; }
};

// A patch, local_merge's lines per pass, merge_borders' threads and
// count_roots' threads per node line: the CUDA engine's block kernels use
// the same, written once in node_grid_sizes.hpp.
using detail::kNodePatchLinesPerPass;
using detail::kBorderThreads;
using detail::kLineThreads;
using detail::kNarrowLineThreads;
using detail::kNarrowGridWidth;
using detail::countRootsThreads;
constexpr NodeBox kPatch{detail::kNodePatchSide, detail::kNodePatchSide, 1};
// A label patch: 64 x 64 nodes with 64 x 16 threads. final_labels reduces
// the table over four times the nodes of a patch before its global atomics,
// which made it faster, while local_merge on such patches was slower (its
// union-find runs over more nodes). Its shared memory fits the 32 KiB every
// OpenGL 4.3 context has: labels and masks share one word, and a label
// patch's coordinate sums stay below 2^32.
constexpr NodeBox kLabelPatch{64, 64, 1};
constexpr int kLabelLinesPerPass = 16;
constexpr int kTableRun = 4;            // final_labels: nodes a thread adds up in registers
constexpr int kTableSlotBits = 9;       // final_labels: 512 shared-memory slots for the table (16 KiB)
constexpr int kTableProbes = 8;
// The table: an R32UI 2-D array, one layer per field, entry i at
// (i % kTableWidth, i / kTableWidth). Zero is every field's starting value:
// kMinX holds the inverted minimum (~x, summed with atomicMax); kMinY is
// written once, by the component's first pixel. A volume's table has the z
// fields too (kVolumeTableFields): there kMinZ is the one written by the
// first voxel, and kMinY is inverted like kMinX.
constexpr int kTableWidth = 4096;
enum TableField {
    kMinX, kMinY, kMaxX, kMaxY, kArea, kSumXLow, kSumXHigh, kSumYLow, kSumYHigh, kTableFields,
    kMinZ = kTableFields, kMaxZ, kSumZLow, kSumZHigh, kVolumeTableFields
};

// Volumes on the node grid (DIMENSIONS 3). A patch: 16 x 8 x 4 nodes, one
// thread each (512: every OpenGL 4.3 context runs 1024); a node line of 16
// nodes reads 32 consecutive voxels of a 2x2x2 node grid. local_merge is
// written for patches deeper than its threads (each thread taking the nodes of
// its (x, y) in every PATCH_SLICES_PER_PASS-th slice), and deeper patches do
// send fewer links out to merge_borders, but local_merge's shared-memory
// union-find over them ran several times slower than merge_borders gained. A
// label patch: 16 x 8 x 8 nodes, two per thread; its shared memory (labels and
// masks of 1024 nodes, 512 table slots of 10 words) stays under the 32 KiB of
// llvmpipe, and its coordinate sums below 2^32 (8192 voxels of coordinates
// below 2^15).
constexpr NodeBox kVolumePatch{16, 8, 4};
constexpr int kVolumePatchSlicesPerPass = 4;
constexpr NodeBox kVolumeLabelPatch{16, 8, 8};
constexpr int kVolumeLabelSlicesPerPass = 4;
static_assert(kVolumePatch.depth % kVolumePatchSlicesPerPass == 0 &&
                  kVolumePatch.width * kVolumePatch.height * kVolumePatchSlicesPerPass <= 1024,
              "volume patch shape");
static_assert(kVolumePatch.nodes() <= 1024, "merge_borders: a work group of one thread per node");
static_assert(kVolumeLabelPatch.depth % kVolumeLabelSlicesPerPass == 0 && kVolumeLabelPatch.width % kTableRun == 0,
              "volume label patch shape");

// Binary volumes over bundle nodes: the *_volume.comp passes and their
// common file volume_nodes.glsl, the CUDA engine's cuda/src/volume_nodes.cuh
// in GLSL. Voxels per word and nodes per bundle word are that header's too
// (node_grid_sizes.hpp); they reach the shaders as defines
// (volumeNodeDefines).
using detail::kWordBits;
using detail::kRunsPerWord;

// Lines along y and z whose runs are nodes (volume_nodes.cuh, bundleOf).
struct Bundle {
    int height, depth;
    constexpr int lines() const { return height * depth; }
};
constexpr Bundle bundleOf(Connectivity connectivity) {
    return {connectivity == Connectivity::Six ? 1 : 2, connectivity == Connectivity::TwentySix ? 2 : 1};
}

// A box of bundle words, one thread each, words fastest.
struct WordBox {
    int words, bundlesY, bundlesZ;
    constexpr int threads() const { return words * bundlesY * bundlesZ; }
};

// A bundle patch: what one work group of local_merge and merge_borders
// covers in a binary volume.
//
//        +-----------------+     26: 64 x 32 x 16 voxels (2 words, 16 x 8
//       / 2 words (x)     /|         bundles of 2 x 2 lines)
//      +-----------------+ |     18: 64 x 32 x 8 (bundles of 2 lines)
//      | 16 bundles (y)  | +      6: 64 x 16 x 8 (single lines)
//      +-----------------+/      8 bundles deep (z)
//
// Half the CUDA engine's patches (16 bundles deep): local_merge keeps 16
// node slots per thread in shared memory, and 512 threads' slots alone
// would fill the 32 KiB every OpenGL 4.3 context has (llvmpipe has no more).
// With 256 threads the slots, the lines, their ORs and the link queue fit.
constexpr WordBox kBundlePatch{2, 16, 8};
// The work group's link queues (link_queue.glsl): local_merge's
// links are two 16-bit slots (4 bytes), merge_borders' two global slots (8
// bytes). local_merge's queue is short: a full queue is united and refilled
// (a few more barriers), while the shared memory it would hold keeps other
// patches off the multiprocessor, and the pass waits on shared-memory loads
// that only more resident patches hide.
constexpr int kBundlePatchLinks = 512;
constexpr int kBorderLinks = 1024;
// final_labels: a label patch of 128 words. Its shared memory holds the
// node numbers of its words (16 a word), their lines and the table's
// 2^kVolumeTableSlotBits hash slots of 10 words. Its coordinate sums stay
// below 2^32: at most 2^14 voxels of coordinates below 2^15.
constexpr WordBox kBundleLabelPatch{2, 8, 8};
// Hash slots of final_labels_volume.comp: far fewer than the 2-D pass's.
// Every slot is cleared and scanned by each label patch (a few threads of
// its 128 suffice for 32), and a number that finds no slot goes to the
// global table directly. Large components, the ones whose atomics the slots
// save, are few in any label patch; more slots only cost time, at every
// connectivity and on every family of the benchmarks (docs/benchmarks.md).
constexpr int kVolumeTableSlotBits = 5;
// count_roots: work groups of kCountRootsThreads, a bundle row to each
// countRootsRowThreads(wordsX) of them (each thread a run of words), so that
// narrow volumes put several rows in a group rather than idle threads.
constexpr int kCountRootsThreads = 256;
inline int countRootsRowThreads(int wordsX) {
    int threads = 32;
    while (threads < wordsX && threads < kCountRootsThreads) threads *= 2;
    return threads;
}
// scan_lines (a volume's line offsets): work groups of kScanLinesThreads,
// each thread kScanLinesPerThread consecutive lines of a block.
constexpr int kScanLinesThreads = 256;
constexpr int kScanLinesPerThread = 16;
constexpr int kScanLinesBlock = kScanLinesThreads * kScanLinesPerThread;
// Its work groups per row (x) of a dispatch, before the blocks go on in
// rows along y.
constexpr int kScanGroupsX = 256;
// Parents past a storage block: a 3-D image 2^10 texels wide and high
// (volume_nodes.glsl, parentTexel).
constexpr int kParentsSideBits = 10;

constexpr int log2Of(int n) { return n <= 1 ? 0 : 1 + log2Of(n / 2); }
static_assert(kBundlePatch.threads() * kRunsPerWord <= 0x10000, "local_merge: a link is two 16-bit slots");
static_assert(kBundlePatch.threads() * (4 + 1 + kRunsPerWord) * 4 + kBundlePatchLinks * 4 + 16 <= 32768 &&
                  kBorderLinks * 8 + 16 <= 32768,
              "local_merge and merge_borders: shared memory within the 32 KiB of OpenGL 4.3");
static_assert(kRunsPerWord * (kBundleLabelPatch.threads() + 1) * 4 + kBundleLabelPatch.threads() * (4 + 1) * 4 +
                      10 * (1 << kVolumeTableSlotBits) * 4 <=
                  32768,
              "final_labels: shared memory within the 32 KiB of OpenGL 4.3");
static_assert(kBundleLabelPatch.threads() % 32 == 0, "final_labels writes a word's voxels with 32 threads");
static_assert(kBundleLabelPatch.threads() * kWordBits * 4 <= (1 << 14), "final_labels: a label patch's sums fit 32 bits");

// Node keys divided by the width and lines by the height with a multiply
// and shifts (invariant_divisor.hpp), which volume_nodes.glsl takes as
// uniforms.
using detail::Divisor;

// The words, bundles and node slots of one binary volume (volume_nodes.cuh,
// NodeGrid).
struct VolumeNodeGrid {
    int width = 0, height = 0, depth = 0;
    Connectivity connectivity = Connectivity::TwentySix;
    std::uint32_t wordsX = 0, bundlesY = 0, bundlesZ = 0;

    static VolumeNodeGrid of(int width, int height, int depth, Connectivity connectivity) {
        const Bundle b = bundleOf(connectivity);
        VolumeNodeGrid g;
        g.width = width, g.height = height, g.depth = depth, g.connectivity = connectivity;
        g.wordsX = std::uint32_t((width + kWordBits - 1) / kWordBits);
        g.bundlesY = std::uint32_t((height + b.height - 1) / b.height);
        g.bundlesZ = std::uint32_t((depth + b.depth - 1) / b.depth);
        return g;
    }
    std::uint64_t voxels() const { return std::uint64_t(width) * std::uint64_t(height) * std::uint64_t(depth); }
    std::uint64_t lineWords() const { return std::uint64_t(height) * std::uint64_t(depth) * wordsX; }
    std::uint64_t bundleWords() const { return std::uint64_t(bundlesY) * bundlesZ * wordsX; }
    // 16 slots per bundle word, in groups of 32 words (volume_nodes.glsl, slotOf).
    std::uint64_t slots() const { return (bundleWords() + 31) / 32 * 32 * kRunsPerWord; }
};

// The patches and label patches of an image or a volume.
inline NodeBox patchOf(bool volume) { return volume ? kVolumePatch : kPatch; }
inline NodeBox labelPatchOf(bool volume) { return volume ? kVolumeLabelPatch : kLabelPatch; }

// Image units, buffer bindings and the input's texture unit.
constexpr int kParentsImage = 0;  // parents where they do not fit a storage buffer
constexpr int kNodeInfoImage = 1;
constexpr int kLabelsImage = 2;
constexpr int kTableImage = 3;
constexpr int kLineCountsBuffer = 0;
constexpr int kLineOffsetsBuffer = 1;
constexpr int kGroupsDoneBuffer = 2;
constexpr int kParentsBuffer = 3;
constexpr int kBitsBuffer = 4;        // binary volumes: the voxels, a bit each
constexpr int kForegroundBuffer = 5;  // binary volumes: each bundle word's OR of its lines
constexpr int kBlockSumsBuffer = 6;   // volumes: scan_lines' sums of blocks of lines
constexpr int kInputUnit = 0;

static_assert(kPatch.width % kTableRun == 0 && kPatch.height % kNodePatchLinesPerPass == 0, "patch shape");
// local_merge: a thread's line segment of kPatch.height / kNodePatchLinesPerPass nodes.
static_assert(kPatch.width % (kPatch.height / kNodePatchLinesPerPass) == 0, "segments cover the lines");
// final_labels: each of the patch's threads walks one run of kTableRun nodes.
static_assert(kLabelPatch.width % kTableRun == 0 && kLabelPatch.height % kLabelLinesPerPass == 0, "label patch shape");
static_assert(kLabelLinesPerPass * kTableRun == kLabelPatch.height, "table runs cover the label patch");
static_assert(kLabelPatch.width * kLabelLinesPerPass <= 1024, "a work group every OpenGL 4.3 context runs");
// count_roots: a thread's run of nodes is one 32-bit mask (sides up to 32768).
static_assert(kLineThreads * 32 >= 32768, "count_roots covers the widest image");

// The bits of a key's x (compute_common.glsl): the smallest b with 2^b >=
// width, so that a key's line is a shift away.
inline std::uint32_t keyLineBits(int width) {
    std::uint32_t bits = 0;
    while ((std::int64_t(1) << bits) < std::int64_t(width)) ++bits;
    return bits;
}

// A volume's lines (z * height + y) are divided by the height as
// floor(2 line * multiplier / 2^(32 + shift)): Granlund and Montgomery's
// division by an invariant integer, for dividends below 2^31 (twice a line)
// and the divisor 2 * height. With l = ceil(log2(2 * height)), shift = l - 1
// and multiplier = ceil(2^(31 + l) / (2 * height)) < 2^32, the error of the
// multiplier times the largest dividend stays under one quotient step, so
// every quotient is exact (checked at both ends of every quotient for every
// divisor up to 32768).
struct KeyDivision {
    std::uint32_t multiplier, shift;
    static KeyDivision of(int width) {
        const std::uint64_t divisor = 2 * std::uint64_t(width);
        std::uint32_t bits = 1;
        while ((std::uint64_t(1) << bits) < divisor) ++bits;
        return {std::uint32_t(((std::uint64_t(1) << (31 + bits)) + divisor - 1) / divisor), bits - 1};
    }
};

// `volume`: the sizes of the passes over a volume's node grid (DIMENSIONS 3).
inline void computeDefines(gl::ProgramBuilder& builder, bool volume) {
    const NodeBox patch = patchOf(volume), label = labelPatchOf(volume);
    builder.define("PATCH_W", patch.width).define("PATCH_H", patch.height);
    builder.define("LABEL_PATCH_W", label.width).define("LABEL_PATCH_H", label.height);
    if (volume) {
        builder.define("DIMENSIONS", 3)
            .define("PATCH_D", patch.depth)
            .define("PATCH_SLICES_PER_PASS", kVolumePatchSlicesPerPass)
            .define("LABEL_PATCH_D", label.depth)
            .define("LABEL_SLICES_PER_PASS", kVolumeLabelSlicesPerPass)
            .define("TABLE_FIELDS", kVolumeTableFields)
            .define("FIELD_MIN_Z", kMinZ)
            .define("FIELD_MAX_Z", kMaxZ)
            .define("FIELD_SUM_Z", kSumZLow);
    } else {
        builder.define("DIMENSIONS", 2)
            .define("PATCH_LINES_PER_PASS", kNodePatchLinesPerPass)
            .define("LABEL_LINES_PER_PASS", kLabelLinesPerPass)
            .define("TABLE_FIELDS", kTableFields);
    }
    builder.define("BORDER_THREADS", kBorderThreads)
        .define("TABLE_RUN", kTableRun)
        .define("TABLE_SLOT_BITS", kTableSlotBits)
        .define("TABLE_PROBES", kTableProbes)
        .define("TABLE_WIDTH", kTableWidth)
        .define("FIELD_MIN_X", kMinX)
        .define("FIELD_MIN_Y", kMinY)
        .define("FIELD_MAX_X", kMaxX)
        .define("FIELD_MAX_Y", kMaxY)
        .define("FIELD_AREA", kArea)
        .define("FIELD_SUM_X", kSumXLow)
        .define("FIELD_SUM_Y", kSumYLow)
        .define("PARENTS_IMAGE", kParentsImage)
        .define("NODE_INFO_IMAGE", kNodeInfoImage)
        .define("LABELS_IMAGE", kLabelsImage)
        .define("TABLE_IMAGE", kTableImage)
        .define("LINE_COUNTS_BUFFER", kLineCountsBuffer)
        .define("LINE_OFFSETS_BUFFER", kLineOffsetsBuffer)
        .define("GROUPS_DONE_BUFFER", kGroupsDoneBuffer)
        .define("BLOCK_SUMS_BUFFER", kBlockSumsBuffer)
        .define("PARENTS_BUFFER", kParentsBuffer);
}

// The defines of the *_volume.comp passes and volume_nodes.glsl, besides
// computeDefines' table fields and bindings.
inline void volumeNodeDefines(gl::ProgramBuilder& builder, Connectivity connectivity) {
    const Bundle bundle = bundleOf(connectivity);
    builder.define("WORD_BITS", kWordBits)
        .define("RUNS_PER_WORD", kRunsPerWord)
        .define("BUNDLE_H", bundle.height)
        .define("BUNDLE_D", bundle.depth)
        .define("PATCH_WORDS", kBundlePatch.words)
        .define("PATCH_BUNDLES_Y", kBundlePatch.bundlesY)
        .define("PATCH_BUNDLES_Z", kBundlePatch.bundlesZ)
        .define("PATCH_THREADS", kBundlePatch.threads())
        .define("PATCH_X_BITS", log2Of(kBundlePatch.words * kWordBits))
        .define("PATCH_Y_BITS", log2Of(kBundlePatch.bundlesY * bundle.height))
        .define("PATCH_LINKS", kBundlePatchLinks)
        .define("BORDER_LINKS", kBorderLinks)
        .define("LABEL_PATCH_WORDS", kBundleLabelPatch.words)
        .define("LABEL_PATCH_BUNDLES_Y", kBundleLabelPatch.bundlesY)
        .define("LABEL_PATCH_BUNDLES_Z", kBundleLabelPatch.bundlesZ)
        .define("LABEL_PATCH_THREADS", kBundleLabelPatch.threads())
        .define("LABEL_PATCH_SLOT_BITS", kVolumeTableSlotBits)
        .define("COUNT_ROOTS_THREADS", kCountRootsThreads)
        .define("PARENTS_SIDE_BITS", kParentsSideBits)
        .define("BITS_BUFFER", kBitsBuffer)
        .define("FOREGROUND_BUFFER", kForegroundBuffer);
}

}  // namespace glccl::compute

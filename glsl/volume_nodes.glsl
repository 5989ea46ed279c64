// The nodes of a binary volume and the links between them, as the volume
// passes see them (local_merge_volume, merge_borders_volume,
// count_roots_volume, final_labels_volume): a transliteration of the CUDA
// engine's cuda/src/volume_nodes.cuh and volume_forest.cuh, function by
// function, under the same names. Those headers' comments hold the
// argument; this file repeats what the GLSL needs to be read on its own.
// The program builder prepends "#version 430 core", the defines of
// criterion.glsl and of compute_constants.hpp (volumeNodeDefines: the word,
// bundle and patch sizes, the bindings), then criterion.glsl, and uses this
// file as the stages' common file in place of compute_common.glsl.
//
// Words. A line of the volume (one y of one slice) is cut into words of 32
// voxels, bit i of a word the voxel at x = 32 * word + i; voxels past the
// width are 0. local_merge writes them to `bits`, the only copy of the
// input the later stages read.
//
// Bundles. Lines are taken in bundles whose voxels, at the connectivity,
// all touch their neighbours one step along x in any line of the bundle:
//
//      26: 2 x 2 lines (y, z)     18: 2 lines (y)     6: one line
//          z+1  [2] [3]               [0] [1]             [0]
//          z    [0] [1]               y   y+1             y
//               y   y+1
//
// so every run of the OR of a bundle word's lines (P, the bundle's
// `foreground`) is connected, and different runs are not connected inside
// the bundle. Such a run is a node. A word has at most 16 runs; node r of
// bundle word b has slot slotOf(b, r).
//
// Keys. A node is known by its key, the volume index (z * height + y) *
// width + x of its first voxel in raster order. Keys order like raster
// positions, so a union-find that keeps the smaller key roots every
// component at its first voxel, the one the output contract numbers it by.
// The router holds a volume below 2^30 voxels, so keys stay below 2^30 and
// count_roots can mark a root's rank with kRankFlag.
//
// Links. Two nodes of neighbouring bundles are linked when a voxel of one
// touches a voxel of the other. Every pair of neighbouring bundles is one
// relation of the later of the two (V = U + (dy, dz) in bundles, V before U
// in raster order), with the words at the same x and one word left and
// right of it; which lines face each other, and whether voxels one step
// apart along x still touch, is the relation's list of face terms. The next
// word of the same bundle is linked where the runs of P meet across the
// word's edge. Per word and term only the unions termLinks asks for are
// made: every face run's start is united with the first voxel of the other
// face within reach (volume_nodes.cuh, "Which links to unite", proves that
// this joins every pair of touching face runs).
// ---------------------------------------------------------------------------

const int kWordBits = WORD_BITS;
const int kRunsPerWord = RUNS_PER_WORD;  // runs alternate with gaps: at most 16 in 32 bits
const uint kNoKey = 0xFFFFFFFFu;
// count_roots replaces a root's own key by kRankFlag | its rank among the
// roots of its line; keys stay below 2^30, so no key has the flag.
const uint kRankFlag = 0x80000000u;

int popCount(uint v) { return bitCount(v); }

// Position of the lowest (highest) set bit of v != 0.
int lowestBit(uint v) { return findLSB(v); }
int highestBit(uint v) { return findMSB(v); }

// Bits 0 .. bit (bit in 0 .. 31).
uint bitsThrough(int bit) { return bit == 31 ? 0xFFFFFFFFu : (2u << uint(bit)) - 1u; }

// Where the runs of a word start.
uint runStarts(uint p) { return p & ~(p << 1u); }

// The run of P (its index, counting from 0) that holds position `bit`.
int runAt(uint p, int bit) { return popCount(runStarts(p) & bitsThrough(bit)) - 1; }

// The bits of the run of P that starts at `start`.
uint runFrom(uint p, int start) {
    uint gaps = ~(p >> uint(start));  // bit k: position start + k is 0 (or past the word)
    int length = gaps == 0u ? kWordBits : lowestBit(gaps);
    return (length == kWordBits ? 0xFFFFFFFFu : (1u << uint(length)) - 1u) << uint(start);
}

// ---------------------------------------------------------------------------
// Bundles and relations.

const int kBundleHeight = BUNDLE_H;  // lines along y
const int kBundleDepth = BUNDLE_D;   // lines along z
// Line l of a bundle is (dy, dz) = (l % kBundleHeight, l / kBundleHeight).
const int kLines = BUNDLE_H * BUNDLE_D;

// One face term of a relation: bit l of uLines (vLines) selects line l of U
// (V); across: voxels one step apart along x touch too.
struct FaceTerm {
    uint uLines, vLines;
    bool across;
};

// Terms per relation, at most: three at 18, one at 6 and 26, so that the
// passes' loops over terms hold no empty ones. Here 18's relation across z
// has a term for the crossed lines (straight) and one for each line with
// itself (one step apart along x too); volume_nodes.cuh has one term a
// relation (its kMostTerms) and adds the same lines' links one step apart
// where runs kiss (kissesOf, kissLines) instead, which this file has not
// taken over: both unite the same nodes.
#if CONNECTIVITY == 18
const int kMostTerms = 3;
#else
const int kMostTerms = 1;
#endif
struct Relation {
    int dy, dz;  // V = U + (dy, dz), in bundles
    int terms;
    FaceTerm term[kMostTerms];
};

// The relations of each connectivity, V before U in raster order of
// bundles (volume_nodes.cuh, relationOf, says which lines touch and why).
// 26, lines 0 = (y, z), 1 = (y+1, z), 2 = (y, z+1), 3 = (y+1, z+1):
//   (-1, 0): U's lines at y face V's at y-1, any z: lines {0, 2} and {1, 3}
//   (-1,-1): U's (y, z) meets V's (y-1, z-1) only: {0} and {3}
//   ( 0,-1): U's lines at z face V's at z-1: {0, 1} and {2, 3}
//   (+1,-1): U's (y+1, z) meets V's (y+2, z-1) only: {1} and {2}
// all one step apart along x too. 18, lines 0 = y, 1 = y+1: across z the
// same lines touch along x, the crossed ones only straight, and the
// diagonal relations only straight. 6: the line above and the line before,
// straight.
#if CONNECTIVITY == 26
const int kRelationCount = 4;
const Relation kRelations[4] = Relation[4](Relation(-1, 0, 1, FaceTerm[1](FaceTerm(0x5u, 0xAu, true))),
                                           Relation(-1, -1, 1, FaceTerm[1](FaceTerm(0x1u, 0x8u, true))),
                                           Relation(0, -1, 1, FaceTerm[1](FaceTerm(0x3u, 0xCu, true))),
                                           Relation(1, -1, 1, FaceTerm[1](FaceTerm(0x2u, 0x4u, true))));
#elif CONNECTIVITY == 18
const int kRelationCount = 4;
const FaceTerm kNoTerm = FaceTerm(0u, 0u, false);
const Relation kRelations[4] = Relation[4](
    Relation(-1, 0, 1, FaceTerm[3](FaceTerm(0x1u, 0x2u, true), kNoTerm, kNoTerm)),
    Relation(-1, -1, 1, FaceTerm[3](FaceTerm(0x1u, 0x2u, false), kNoTerm, kNoTerm)),
    Relation(0, -1, 3, FaceTerm[3](FaceTerm(0x3u, 0x3u, false), FaceTerm(0x1u, 0x1u, true), FaceTerm(0x2u, 0x2u, true))),
    Relation(1, -1, 1, FaceTerm[3](FaceTerm(0x2u, 0x1u, false), kNoTerm, kNoTerm)));
#else
const int kRelationCount = 2;
const Relation kRelations[2] = Relation[2](Relation(-1, 0, 1, FaceTerm[1](FaceTerm(0x1u, 0x1u, false))),
                                           Relation(0, -1, 1, FaceTerm[1](FaceTerm(0x1u, 0x1u, false))));
#endif

// The OR of the selected lines of a bundle word.
uint linesOf(uint lines[kLines], uint selected) {
    uint f = 0u;
    for (int l = 0; l < kLines; ++l)
        if (((selected >> uint(l)) & 1u) != 0u) f |= lines[l];
    return f;
}

// The positions within `across` (0 or 1) of `bit`, inside the word.
uint reachOf(int bit, bool across) {
    if (!across) return 1u << uint(bit);
    return bit == 0 ? 3u : 7u << uint(bit - 1);
}

// Where one word and one face term ask for unions: .x (fromU) has the starts
// of FU's face runs with an FV voxel within `across`, .y (fromV) the starts
// of FV's with an FU voxel. The union asked at a start x of fromU joins x
// with partnerOf(fv, x), one asked at a start x of fromV joins
// partnerOf(fu, x) with x. The passes walk the asking positions from the
// lowest, every term at each (volume_nodes.cuh, forEachLinkInWord), so the
// same two nodes asked twice are usually asked one after the other.
uvec2 termLinks(uint fu, uint fv, bool across) {
    uint nearV = across ? (fv | (fv << 1u) | (fv >> 1u)) : fv;
    uint nearU = across ? (fu | (fu << 1u) | (fu >> 1u)) : fu;
    return uvec2(runStarts(fu) & nearV, runStarts(fv) & nearU);
}
int partnerOf(uint face, int x, bool across) { return lowestBit(face & reachOf(x, across)); }

// ---------------------------------------------------------------------------
// First voxels.

// The first voxel in raster order of the node with bits `run` of a bundle
// word with `lines`: .x its line in the bundle, .y its bit.
ivec2 firstVoxelOf(uint lines[kLines], uint run) {
    for (int l = 0; l < kLines - 1; ++l)
        if ((lines[l] & run) != 0u) return ivec2(l, lowestBit(lines[l] & run));
    return ivec2(kLines - 1, lowestBit(lines[kLines - 1] & run));
}

// ---------------------------------------------------------------------------
// Patches: what one work group of local_merge and merge_borders covers, a
// box of PATCH_WORDS x PATCH_BUNDLES_Y x PATCH_BUNDLES_Z bundle words, one
// thread each (words fastest, so that neighbouring threads read
// neighbouring words of a line). Inside a patch a node is known by its
// local key, the same raster order in bits: (z << (kPatchXBits +
// kPatchYBits)) | (y << kPatchXBits) | x. compute_constants.hpp,
// kBundlePatch, draws it and says why its shape differs from the CUDA
// engine's.
const int kPatchWords = PATCH_WORDS;
const int kPatchBundlesY = PATCH_BUNDLES_Y;
const int kPatchBundlesZ = PATCH_BUNDLES_Z;
const int kPatchThreads = PATCH_THREADS;
const int kPatchX = kPatchWords * kWordBits;
const int kPatchY = kPatchBundlesY * kBundleHeight;
const int kPatchZ = kPatchBundlesZ * kBundleDepth;
const int kPatchXBits = PATCH_X_BITS;
const int kPatchYBits = PATCH_Y_BITS;

// Thread t's bundle word in the patch.
int patchWordOf(int t) { return t % kPatchWords; }
int patchBundleYOf(int t) { return t / kPatchWords % kPatchBundlesY; }
int patchBundleZOf(int t) { return t / (kPatchWords * kPatchBundlesY); }
int patchThreadOf(int w, int by, int bz) { return (bz * kPatchBundlesY + by) * kPatchWords + w; }

uint localKey(int x, int y, int z) {
    return (uint(z) << uint(kPatchXBits + kPatchYBits)) | (uint(y) << uint(kPatchXBits)) | uint(x);
}
int xOfLocalKey(uint key) { return int(key & uint(kPatchX - 1)); }
int yOfLocalKey(uint key) { return int((key >> uint(kPatchXBits)) & uint(kPatchY - 1)); }
int zOfLocalKey(uint key) { return int(key >> uint(kPatchXBits + kPatchYBits)); }
// The thread whose bundle word holds a local key's voxel.
int threadOfLocalKey(uint key) {
    return patchThreadOf(xOfLocalKey(key) / kWordBits, yOfLocalKey(key) / kBundleHeight,
                         zOfLocalKey(key) / kBundleDepth);
}

// ---------------------------------------------------------------------------
// Division by an invariant divisor (Granlund and Montgomery, fig. 4.1;
// compute_constants.hpp, Divisor): d = (multiplier, shift1, shift2), exact
// for every 32-bit dividend.
uint quotient(uvec3 d, uint n) {
    uint t, low;
    umulExtended(d.x, n, t, low);
    return (t + ((n - t) >> d.y)) >> d.z;
}

// ---------------------------------------------------------------------------
// The node grid of one volume (imageSize, from criterion.glsl, is its
// voxels).
uniform uint wordsX;    // words per line
uniform uint bundlesY;  // bundles per slice column
uniform uint bundlesZ;
uniform uvec3 byWidth, byHeight;  // Divisors of the width and the height

uint volumeWidth() { return uint(imageSize.x); }
uint volumeHeight() { return uint(imageSize.y); }
uint volumeDepth() { return uint(imageSize.z); }

// Node slots: groups of 32 consecutive bundle words, run r of each of them
// side by side, so that threads of consecutive words reach their r-th nodes
// in consecutive words of memory.
uint slotOf(uint bundleWord, int run) {
    return (bundleWord / 32u) * uint(32 * kRunsPerWord) + uint(run) * 32u + bundleWord % 32u;
}

// Word wx of line (y, z) in the volume's bit array.
uint lineWord(uint wx, uint y, uint z) { return (z * volumeHeight() + y) * wordsX + wx; }
// Word wx of bundle (by, bz).
uint bundleWord(uint wx, uint by, uint bz) { return (bz * bundlesY + by) * wordsX + wx; }

// Where a thread of a patch's work group stands (local_merge_volume.comp,
// merge_borders_volume.comp: one work group per patch, one thread per
// bundle word; volume_forest.cuh, PatchPlace): its bundle word in the patch
// (w, by, bz) and in the volume (wx, gby, gbz).
struct PatchPlace {
    int t, w, by, bz;
    uint wx, gby, gbz;
    bool inside;  // the word is one of the volume's
};
PatchPlace patchPlace() {
    PatchPlace at;
    at.t = int(gl_LocalInvocationIndex);
    at.w = patchWordOf(at.t);
    at.by = patchBundleYOf(at.t);
    at.bz = patchBundleZOf(at.t);
    at.wx = gl_WorkGroupID.x * uint(kPatchWords) + uint(at.w);
    at.gby = gl_WorkGroupID.y * uint(kPatchBundlesY) + uint(at.by);
    at.gbz = gl_WorkGroupID.z * uint(kPatchBundlesZ) + uint(at.bz);
    at.inside = at.wx < wordsX && at.gby < bundlesY && at.gbz < bundlesZ;
    return at;
}
uint keyOf(uint x, uint y, uint z) { return (z * volumeHeight() + y) * volumeWidth() + x; }

// The voxel of a key.
uvec3 voxelOf(uint key) {
    uint line = quotient(byWidth, key);
    uint z = quotient(byHeight, line);
    return uvec3(key - line * volumeWidth(), line - z * volumeHeight(), z);
}
// The line (z * height + y) of a key.
uint lineOfKey(uint key) { return quotient(byWidth, key); }

// ---------------------------------------------------------------------------
// The nodes in memory: `bits` (a word per line word), `foreground` (a word
// per bundle word: the OR of its lines; at 6-connectivity a bundle is a
// line, and the same buffer is bound to both) and `parents` (a key per node
// slot; count_roots leaves every root kRankFlag | its rank). local_merge
// writes them (NODES_WRITEONLY, PARENTS_WRITEONLY); merge_borders and
// count_roots change parents while other work groups read them, through the
// caches (compute_common.glsl says why stale reads are safe); final_labels
// only reads (PARENTS_READONLY).
#ifdef NODES_WRITEONLY
#define NODES_ACCESS writeonly
#else
#define NODES_ACCESS readonly
#endif
layout(binding = BITS_BUFFER, std430) NODES_ACCESS buffer Bits { uint bits[]; };
layout(binding = FOREGROUND_BUFFER, std430) NODES_ACCESS buffer Foreground { uint foreground[]; };

// A node's slot in the parents buffer. Slots past a storage block
// (GL_MAX_SHADER_STORAGE_BLOCK_SIZE) live in a 3-D R32UI image of
// 2^PARENTS_SIDE_BITS x 2^PARENTS_SIDE_BITS x n texels, slot s at (s's low
// bits, its middle bits, the rest): every slot count the router allows fits
// a 3-D texture of every GL 4.3 context (ComputeResources::reserve).
#define ParentRef uint
#define PARENTS_IMAGE_TYPE uimage3D
uint parentIndex(uint slot) { return slot; }
#ifdef PARENTS_IN_IMAGE
const uint kParentsSideMask = (1u << uint(PARENTS_SIDE_BITS)) - 1u;
ivec3 parentTexel(uint slot) {
    return ivec3(int(slot & kParentsSideMask), int((slot >> uint(PARENTS_SIDE_BITS)) & kParentsSideMask),
                 int(slot >> uint(2 * PARENTS_SIDE_BITS)));
}
#endif

#ifndef NODES_WRITEONLY
// The lines of bundle word (wx, by, bz) from the volume's bits; lines past
// the volume are 0.
void loadBundleLines(uint wx, uint by, uint bz, out uint lines[kLines]) {
    for (int l = 0; l < kLines; ++l) {
        uint y = by * uint(kBundleHeight) + uint(l % kBundleHeight);
        uint z = bz * uint(kBundleDepth) + uint(l / kBundleHeight);
        lines[l] = y < volumeHeight() && z < volumeDepth() ? bits[lineWord(wx, y, z)] : 0u;
    }
}

// ---------------------------------------------------------------------------
// The global forest over keys (volume_forest.cuh, VolumeForest; the union
// is union_find.glsl's): a key's node is a division away (its voxel, its
// bundle word, the run of the word's foreground that holds the voxel).
uint bundleWordOfVoxel(uvec3 v) {
    return bundleWord(v.x / uint(kWordBits), v.y / uint(kBundleHeight), v.z / uint(kBundleDepth));
}
uint slotOfKey(uint key) {
    uvec3 v = voxelOf(key);
    uint word = bundleWordOfVoxel(v);
    return slotOf(word, runAt(foreground[word], int(v.x % uint(kWordBits))));
}

#endif

// The parents store and the global forest over it (local_merge, which
// writes the nodes, writes parents only and unites in shared memory).
#ifndef NODES_WRITEONLY
uint entryOfKey(uint key) { return slotOfKey(key); }
#endif
#include "parents.glsl"

// Shared by every stage of the compute backend: nodes, keys, the union-find
// over the parents image and the component numbering. The program builder
// prepends "#version 430 core" (in OpenGL ES "#version 310 es" or "320 es",
// precisions and GLSL_ES), the defines of criterion.glsl and of
// compute_constants.hpp (NODE_W, NODE_H, PATCH_*, bindings...), then
// criterion.glsl itself.
//
// ---------------------------------------------------------------------------
// Nodes. The engine labels a grid of nodes, blocks of NODE_W x NODE_H pixels
// whose foreground pixels always touch one another: 2x2 for binary images at
// 8-connectivity, 2x1 at 4-connectivity, single pixels for segments and
// threshold (a block could hold two segments). Pixel i of a node is bit i of
// its foreground mask, row by row:
//
//      +---+---+         node n links to its backward neighbours
//      | 0 | 1 |         (the nodes before it in raster order):
//      +---+---+
//      | 2 | 3 |              UL  U  UR        d = 1 2 3
//      +---+---+              L   n            d = 0
//
// Every adjacent pair of nodes is one node's backward link, so the backward
// links alone describe the graph. (At 4-connectivity the diagonal ones, d = 1
// and 3, never link.)
//
// A volume (DIMENSIONS 3) has nodes of NODE_W x NODE_H x NODE_D voxels
// (NodeSize: 2x2x2 at 26, 2x2x1 at 18, 2x1x1 at 6, single voxels for
// segments and threshold), voxel i bit i of the mask, x fastest:
//
//        z = 0          z = 1          node n links to its 13 backward
//      +---+---+      +---+---+        neighbours: d = 0..3 in its slice,
//      | 0 | 1 |      | 4 | 5 |        as in 2-D (L, UL, U, UR), and
//      +---+---+      +---+---+        d = 4..12 the 3x3 nodes of the
//      | 2 | 3 |      | 6 | 7 |        slice in front of it (dz = -1).
//      +---+---+      +---+---+
//
// Which voxels of a node touch which of a neighbour's under the
// connectivity is a table the program builder computes (LINK_VOXELS), and
// LINK_DIRECTIONS says which of the 13 can link at all.
// ---------------------------------------------------------------------------
// node_info's texels: R8UI, or R32UI in GLSL ES, whose images have no
// 8-bit formats (ComputeResources::nodeInfoFormat).
#ifdef GLSL_ES
#define NODE_INFO_FORMAT r32ui
#else
#define NODE_INFO_FORMAT r8ui
#endif

#if DIMENSIONS == 3
#define NodeCoord ivec3
const ivec3 kNode = ivec3(NODE_W, NODE_H, NODE_D);
const int kNodePixels = NODE_W * NODE_H * NODE_D;
const int kBackwardCount = 13;
const ivec3 kBackward[13] = ivec3[13](ivec3(-1, 0, 0), ivec3(-1, -1, 0), ivec3(0, -1, 0), ivec3(1, -1, 0),
                                      ivec3(-1, -1, -1), ivec3(0, -1, -1), ivec3(1, -1, -1),
                                      ivec3(-1, 0, -1), ivec3(0, 0, -1), ivec3(1, 0, -1),
                                      ivec3(-1, 1, -1), ivec3(0, 1, -1), ivec3(1, 1, -1));
uniform ivec3 gridSize;  // nodes: ceil(imageSize / kNode)
const ivec3 kPatch = ivec3(PATCH_W, PATCH_H, PATCH_D);  // local_merge's patches, in nodes
// The node grid's images (node_info) and the labels' image.
#define UImageND uimage3D

bool insideGrid(ivec3 n) { return all(greaterThanEqual(n, ivec3(0))) && all(lessThan(n, gridSize)); }
bool insideImage(ivec3 p) { return all(greaterThanEqual(p, ivec3(0))) && all(lessThan(p, imageSize)); }
ivec3 pixelOfNode(ivec3 n, int i) {
    return n * kNode + ivec3(i % NODE_W, (i / NODE_W) % NODE_H, i / (NODE_W * NODE_H));
}
bool directionLinks(int d) { return (uint(LINK_DIRECTIONS) & (1u << uint(d))) != 0u; }

#ifndef NO_INPUT
// The foreground mask of node n: one fetch per voxel (3-D textures have no
// gather); voxels past the volume are background.
uint nodeMask(ivec3 n) {
    uint mask = 0u;
    for (int i = 0; i < kNodePixels; ++i) {
        ivec3 p = pixelOfNode(n, i);
        if (insideImage(p) && isForegroundValue(pixelValue(p))) mask |= 1u << uint(i);
    }
    return mask;
}
#endif

#if NODE_W * NODE_H * NODE_D > 1
// Entry d * kNodePixels + i: the voxels of backward neighbour d that voxel i
// of a node touches.
const uint kLinkVoxels[13 * kNodePixels] = uint[](LINK_VOXELS);

// Do blocks of masks m and b touch, b being m's backward neighbour d?
bool masksLink(uint m, uint b, int d) {
    for (uint bits = m; bits != 0u; bits &= bits - 1u)
        if ((kLinkVoxels[d * kNodePixels + findLSB(bits)] & b) != 0u) return true;
    return false;
}
#elif !defined(NO_INPUT)
// Does foreground voxel p (value v) connect to its backward neighbour d?
bool pixelLinks(ivec3 p, vec4 v, int d) {
    ivec3 q = p + kBackward[d];
    if (!directionLinks(d) || !insideImage(q)) return false;
    vec4 w = pixelValue(q);
    return isForegroundValue(w) && valuesConnect(v, w);
}
#endif

// node_info texels (R8UI): the foreground mask, up to 8 voxels.
const uint kMaskBits = 0xFFu;
#else
#define NodeCoord ivec2
const int kBackwardCount = 4;
const ivec2 kNode = ivec2(NODE_W, NODE_H);
const int kNodePixels = NODE_W * NODE_H;
const ivec2 kBackward[4] = ivec2[4](ivec2(-1, 0), ivec2(-1, -1), ivec2(0, -1), ivec2(1, -1));
uniform ivec2 gridSize;  // nodes: ceil(imageSize / kNode)
const ivec2 kPatch = ivec2(PATCH_W, PATCH_H);  // local_merge's patches, in nodes
#define UImageND uimage2D

bool insideGrid(ivec2 n) { return all(greaterThanEqual(n, ivec2(0))) && all(lessThan(n, gridSize)); }
bool insideImage(ivec2 p) { return all(greaterThanEqual(p, ivec2(0))) && all(lessThan(p, imageSize)); }
ivec2 pixelOfNode(ivec2 n, int i) { return n * kNode + ivec2(i % NODE_W, i / NODE_W); }

#if NODE_W * NODE_H > 1
#ifndef NO_INPUT
// Binary blocks: the foreground mask of node n from one textureGather of its
// 2x2 footprint (a 2x1 node uses the upper row), foreground by the binary
// criterion in the input's own sampler type (criterion.glsl). The input's
// sampler clamps to a zero border, so pixels past the image are background.
uint nodeMask(ivec2 n) {
    vec2 centre = vec2(n * kNode + ivec2(1)) / vec2(imageSize);
    bvec4 g = gatherForeground(centre);  // .w (0,0), .z (1,0), .x (0,1), .y (1,1)
    uint mask = uint(g.w) | (uint(g.z) << 1);
#if NODE_H == 2
    mask |= (uint(g.x) << 2) | (uint(g.y) << 3);
#endif
#ifdef NO_BORDER_CLAMP
    // A sampler without a border (OpenGL ES 3.1 without
    // EXT_texture_border_clamp) repeats the last column and row.
    ivec2 first = n * kNode;
    if (first.x + 1 >= imageSize.x) mask &= ~10u;
    if (first.y + 1 >= imageSize.y) mask &= ~12u;
#endif
    return mask;
}
#endif

// Do blocks of masks m and b touch, b being m's backward neighbour d? Any
// foreground pixels of the two that are adjacent connect (binary).
bool masksLink(uint m, uint b, int d) {
#if NODE_H == 2  // 2x2 blocks, 8-connectivity: pixel bits 0 1 / 2 3
    if (d == 0) return (m & 5u) != 0u && (b & 10u) != 0u;  // left column, its right column
    if (d == 1) return (m & 1u) != 0u && (b & 8u) != 0u;   // corner to corner
    if (d == 2) return (m & 3u) != 0u && (b & 12u) != 0u;  // top row, its bottom row
    return (m & 2u) != 0u && (b & 4u) != 0u;
#else            // 2x1 blocks, 4-connectivity: pixel bits 0 1
    if (d == 0) return (m & 1u) != 0u && (b & 2u) != 0u;
    if (d == 2) return (m & b) != 0u;
    return false;
#endif
}
#elif !defined(NO_INPUT)
// Single pixels (segments, threshold): foreground by the criterion.
uint nodeMask(ivec2 n) { return isForegroundValue(pixelValue(n)) ? 1u : 0u; }

// Does foreground pixel p (value v) connect to its backward neighbour d?
bool pixelLinks(ivec2 p, vec4 v, int d) {
    ivec2 q = p + kBackward[d];
    if (!insideImage(q) || (CONNECTIVITY == 4 && (d & 1) == 1)) return false;
    vec4 w = pixelValue(q);
    return isForegroundValue(w) && valuesConnect(v, w);
}
#endif

// node_info texels (R8UI): the foreground mask.
const uint kMaskBits = 0xFu;
#endif

// ---------------------------------------------------------------------------
// Keys. A node is known by the key of its first foreground pixel in raster
// order: the pixel's linear index in a grid whose lines are 2^keyLineBits
// long (the image's width rounded up to a power of two), line * 2^keyLineBits
// + x, where a line is y in 2-D and z * height + y in a volume. Keys order
// like raster positions, and the smallest key of a component is its first
// pixel, the one the output contract numbers it by; a key's line is a shift
// away, which the finds of every stage need. Parents hold, per node, the key
// of a node of the same component with a smaller or equal key; a root holds
// its own key. Unions keep the smaller key (atomicMin), so every root ends as
// its component's first pixel. Keys stay below 2^31: sides up to 32768 make
// at most 2^30 in 2-D, and the router holds a volume below 2^30 voxels, which
// the rounding of its width at most doubles. kNone marks background.
// ---------------------------------------------------------------------------
const uint kNone = 0xFFFFFFFFu;
// count_roots replaces a root's own key by kRankFlag | its rank among the
// roots of its pixel line; a find stops at either.
const uint kRankFlag = 0x80000000u;

uniform uint keyLineBits;  // compute_constants.hpp, keyLineBits()
uint lineOfKey(uint key) { return key >> keyLineBits; }
uint xOfKey(uint key) { return key & ((1u << keyLineBits) - 1u); }
#if DIMENSIONS == 3
// A line's slice, line / imageSize.y, by a multiplication (sliceMultiplier,
// sliceShift: KeyDivision of the height; lines stay below 2^30): an integer
// division by a uniform compiles to a long instruction sequence.
uniform uint sliceMultiplier;
uniform uint sliceShift;
uint sliceOfLine(uint line) {
    uint high, low;
    umulExtended(line << 1, sliceMultiplier, high, low);
    return high >> sliceShift;
}
uint keyOf(ivec3 p) { return ((uint(p.z) * uint(imageSize.y) + uint(p.y)) << keyLineBits) | uint(p.x); }
int lineOfPixel(ivec3 p) { return p.z * imageSize.y + p.y; }
ivec3 pixelOfKey(uint key) {
    uint line = lineOfKey(key);
    uint z = sliceOfLine(line);
    return ivec3(int(xOfKey(key)), int(line - z * uint(imageSize.y)), int(z));
}
#else
uint keyOf(ivec2 p) { return (uint(p.y) << keyLineBits) | uint(p.x); }
int lineOfPixel(ivec2 p) { return p.y; }
ivec2 pixelOfKey(uint key) {
    return ivec2(int(xOfKey(key)), int(lineOfKey(key)));
}
#endif
NodeCoord nodeOfKey(uint key) { return pixelOfKey(key) / kNode; }

// Node n's first foreground pixel (mask != 0), and its key.
NodeCoord firstPixel(NodeCoord n, uint mask) { return pixelOfNode(n, findLSB(mask)); }
uint ownKey(NodeCoord n, uint mask) { return keyOf(firstPixel(n, mask)); }

// Parents live in a storage buffer, one uint per node in raster order of
// the node grid: its loads, stores and atomics cost about half what the same
// operations cost on an R32UI image (merge_borders and count_roots, the
// atomics and finds, are mostly that). A grid larger than the
// context's storage blocks (GL_MAX_SHADER_STORAGE_BLOCK_SIZE: 128 MiB on
// llvmpipe) keeps them in that image instead (PARENTS_IN_IMAGE).
// local_merge only writes them and final_labels only reads them.
// merge_borders and count_roots change parents while other work groups walk
// them, and read them through the caches all the same (no `coherent`): a
// stale parent is still an ancestor (union_find.glsl), every change is an
// atomic or a store of an ancestor, and the atomics return what is current,
// so a walk on stale reads still ends at a node of its tree and a union
// still joins the right trees. Every write is seen by the next stage (the
// barrier between dispatches). Uncached reads slowed merge_borders most on
// images of few large components, whose unions walk long paths.
// A node's place in the parents image, and in the buffer (raster order of
// the node grid).
#define ParentRef NodeCoord
#define PARENTS_IMAGE_TYPE UImageND
NodeCoord parentTexel(NodeCoord n) { return n; }
NodeCoord entryOfKey(uint key) { return nodeOfKey(key); }
#if DIMENSIONS == 3
int parentIndex(ivec3 n) { return (n.z * gridSize.y + n.y) * gridSize.x + n.x; }
#else
int parentIndex(ivec2 n) { return n.y * gridSize.x + n.x; }
#endif
#include "parents.glsl"

#ifndef PARENTS_WRITEONLY
uint parentOf(uint key) { return loadParent(nodeOfKey(key)); }

// The root of the node of `key`. Parents only decrease and stay in the
// component, so a stale read is still an ancestor: the walk ends.
uint rootOf(uint key) {
    for (;;) {
        uint parent = parentOf(key);
        if (parent == key || (parent & kRankFlag) != 0u) return key;
        key = parent;
    }
}

#endif

#ifdef USES_LINE_OFFSETS
// count_roots' numbering: the number of roots in the pixel lines above each line.
layout(binding = LINE_OFFSETS_BUFFER, std430) readonly buffer LineOffsets { uint lineOffsets[]; };

// The final label of foreground node n (its parents texel `parent`, after
// count_roots): the roots of the lines above, plus its root's rank, plus 1.
uint labelOfNode(NodeCoord n, uint mask, uint parent) {
    if ((parent & kRankFlag) != 0u) return lineOffsets[lineOfPixel(firstPixel(n, mask))] + (parent & ~kRankFlag) + 1u;
    uint root = rootOf(parent);
    return lineOffsets[lineOfKey(root)] + (parentOf(root) & ~kRankFlag) + 1u;
}
#endif

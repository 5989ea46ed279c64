// Shared by every stage of the raster backend: nodes, ID encoding, the
// helpers of the render passes. The program builder prepends "#version 330
// core", STAGE_VERTEX or STAGE_FRAGMENT, the defines of criterion.glsl, then
// criterion.glsl itself, and:
//   NODE_W, NODE_H: the pixels of a node (see "Nodes")
//   RASTER_PIPELINE, ID_BASE, ID_COORDINATE_BITS, SCAN_BLOCK, SEGMENT, MOST_SIDE,
//   BIT_COUNTER_TARGETS: the constants the C++ shares with these shaders
//   (backends/raster/raster_constants.hpp, which explains each)
// Stage files are named after their stage (the timer key and the C++ unit):
// <stage>.vert/.frag, or <stage>_<step>.vert/.frag for stages of several
// programs. fullscreen.vert, write_scatter.frag and write_label.frag are
// building blocks of several stages.
//
// Programs built outside the pipeline (the benchmark's full-screen
// yardstick) get none of its defines and none of what follows.
#ifdef RASTER_PIPELINE

// ---------------------------------------------------------------------------
// Nodes. The pipeline labels a grid of nodes, not pixels: a node is a block
// of kNode pixels whose foreground pixels are always connected to one
// another, so a node belongs to one component. Binary images use 2x2 blocks
// with 8-connectivity and 2x1 blocks with 4-connectivity (two horizontal
// neighbours touch in both); the segments and threshold criteria use single
// pixels (a block could hold two segments). Every stage after node_graph
// works on the grid, a quarter or half of the pixels for binary images.
// ---------------------------------------------------------------------------
const ivec2 kNode = ivec2(NODE_W, NODE_H);
uniform ivec2 gridSize;  // nodes: ceil(imageSize / kNode)

// node_graph's texels (R16UI): bit i (0..7) is set when the node connects to
// the node at kNeighbours[i]; bit 8 + j * NODE_W + i when pixel (i, j) of
// the block is foreground. A node is foreground when any pixel is.
uniform usampler2D nodeGraph;
const uint kLinkBits = 0xFFu;
const int kFirstPixelBit = 8;

uint nodeBits(ivec2 n) { return texelFetch(nodeGraph, n, 0).r; }
bool nodeIsForeground(uint bits) { return bits > kLinkBits; }
bool linksTo(uint bits, int neighbour) { return (bits & (1u << uint(neighbour))) != 0u; }
bool pixelIsSet(uint bits, ivec2 inBlock) {
    return (bits & (1u << uint(kFirstPixelBit + inBlock.y * NODE_W + inBlock.x))) != 0u;
}
bool insideGrid(ivec2 n) { return all(greaterThanEqual(n, ivec2(0))) && all(lessThan(n, gridSize)); }

// ---------------------------------------------------------------------------
// IDs. A node's ID is a 32-bit value stored as the bit pattern of an R32F
// texel, so GL_MAX blending orders IDs like unsigned integers (O'Connell §4
// packed 11+11 bits into the mantissa and stopped at 2047x2047). It encodes
// the node's first foreground pixel in raster order:
//
//   bits:  kIdBase + ((H-1-y) << kIdCoordinateBits) + (W-1-x),   0 = background
//
// x and y are stored inverted so that the LARGEST ID of a component belongs
// to the node of its first pixel in raster order: the paper's "keep the
// maximum" then leaves exactly the roots the output contract numbers. (A
// node above or left of that node holds none of the component's pixels
// before it.) kIdBase keeps every ID a normal float: blending flushes
// denormals to zero (docs/design.md, The raster pipeline), and the largest
// ID, 2^23 + 2^30 - 1, stays far below the infinities (0x7F800000).
// ---------------------------------------------------------------------------
const uint kIdBase = ID_BASE;
const int kIdCoordinateBits = ID_COORDINATE_BITS;
const uint kIdCoordinateMask = (1u << uint(kIdCoordinateBits)) - 1u;

float encodeId(ivec2 p) {
    return uintBitsToFloat(kIdBase + (uint(imageSize.y - 1 - p.y) << uint(kIdCoordinateBits)) + uint(imageSize.x - 1 - p.x));
}

// The pixel an ID encodes, and the node holding it.
ivec2 decodeId(float id) {
    uint bits = floatBitsToUint(id) - kIdBase;
    return ivec2(imageSize.x - 1 - int(bits & kIdCoordinateMask), imageSize.y - 1 - int(bits >> uint(kIdCoordinateBits)));
}
ivec2 nodeOfId(float id) { return decodeId(id) / kNode; }

// The ID of foreground node n (bits: its node_graph texel).
float nodeId(ivec2 n, uint bits) {
    int first = NODE_W * NODE_H - 1;
    for (int k = NODE_W * NODE_H - 2; k >= 0; --k)
        if ((bits & (1u << uint(kFirstPixelBit + k))) != 0u) first = k;
    return encodeId(n * kNode + ivec2(first % NODE_W, first / NODE_W));
}

// A node holds its own ID only when it is a root (nodes hold one ID each).
bool isRootNode(ivec2 n, float id) { return id != 0.0 && nodeOfId(id) == n; }

// Roots are numbered in raster order of their first pixels. When a node row
// holds two pixel rows, the roots whose first pixel is in the upper one come
// first: the numbering runs over a scan grid NODE_H node grids wide (its
// size: scanSize), and the root of `id` has this place in it.
ivec2 scanTexelOfId(float id) {
    ivec2 p = decodeId(id);
    ivec2 n = p / kNode;
    return ivec2(n.x + (p.y - n.y * NODE_H) * gridSize.x, n.y);
}

// scan_roots numbers the roots by a prefix count over the scan grid in
// blocks of kScanBlock texels.
const int kScanBlock = SCAN_BLOCK;

// Whether `id`, node n's, is a root whose place in the scan grid is
// (x, n.y). Texel v of the scan grid is node (v.x mod gridSize.x, v.y).
bool isRootAtScanX(ivec2 n, float id, int x) { return isRootNode(n, id) && scanTexelOfId(id).x == x; }

// Is there a root at texel v of the scan grid?
bool isRootInScanTexel(sampler2D ids, ivec2 v) {
    ivec2 n = ivec2(v.x % gridSize.x, v.y);
    return isRootAtScanX(n, texelFetch(ids, n, 0).r, v.x);
}

bool insideImage(ivec2 p) { return all(greaterThanEqual(p, ivec2(0))) && all(lessThan(p, imageSize)); }

// Points and quads in texel units: NDC of the centre of texel p of a target.
vec4 pixelPosition(ivec2 p, ivec2 targetSize, float ndcDepth) {
    return vec4((vec2(p) + 0.5) / vec2(targetSize) * 2.0 - 1.0, ndcDepth, 1.0);
}
const vec4 kClipped = vec4(2.0, 2.0, 2.0, 1.0);  // outside the clip volume: not rasterised

// Follows the pointers of `ids` from `id` to the root it leads to: the node
// whose value is its own ID (O'Connell Fig. 6.3). Values only grow along a
// chain, so it ends; the bound is a guard against a driver bug, not a limit.
float rootOf(sampler2D ids, float id) {
    for (int step = 0; step < (1 << 20) && id != 0.0; ++step) {
        float next = texelFetch(ids, nodeOfId(id), 0).r;
        if (next == id) break;
        id = next;
    }
    return id;
}

// The number of set bits (bitCount() is GLSL 4.00).
uint onesIn(uint v) {
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    return (((v + (v >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
}

// The index of the lowest set bit of v (nonzero); findLSB is GLSL 4.00.
int lowestBit(uint v) { return int(onesIn((v & (~v + 1u)) - 1u)); }

// The label of the root whose ID is `id`, for the passes that number
// components (ROOT_LABELS_BY_SCAN #defined: 1 or 0). Numbered by
// scan_roots: its block's offset plus the roots before it in its block's
// mask, plus one, from scan_roots' level 0 (rootMasks, rootOffsets), so no
// pass writes a label for every texel of the scan grid. Numbered by
// route_roots: what it wrote into rootLabels.
#ifdef ROOT_LABELS_BY_SCAN
#if ROOT_LABELS_BY_SCAN
uniform usampler2D rootMasks;    // scan_roots' level 0: bit i for texel i of a block
uniform usampler2D rootOffsets;  // the roots before each block
uint rootLabelOf(float id) {
    ivec2 v = scanTexelOfId(id);
    ivec2 block = ivec2(v.x / kScanBlock, v.y);
    uint before = texelFetch(rootMasks, block, 0).r & ((1u << uint(v.x % kScanBlock)) - 1u);
    return texelFetch(rootOffsets, block, 0).r + onesIn(before) + 1u;
}

// rootLabelOf's inverse: the node of the root numbered `label`, false past
// the last root. Level 0's offsets grow along its blocks in raster order,
// so the block is the last whose offset is below the label: its row by
// bisection over the rows' first blocks, then its place in the row.
bool rootNumbered(uint label, out ivec2 node) {
    ivec2 blocks = textureSize(rootMasks, 0);
    int low = 0, high = blocks.y;  // offset(low) < label <= offset(high), past the end
    while (high - low > 1) {
        int middle = (low + high) / 2;
        if (texelFetch(rootOffsets, ivec2(0, middle), 0).r < label) low = middle;
        else high = middle;
    }
    ivec2 block = ivec2(0, low);
    high = blocks.x;
    while (high - block.x > 1) {
        int middle = (block.x + high) / 2;
        if (texelFetch(rootOffsets, ivec2(middle, low), 0).r < label) block.x = middle;
        else high = middle;
    }
    uint rank = label - 1u - texelFetch(rootOffsets, block, 0).r;
    uint mask = texelFetch(rootMasks, block, 0).r;
    node = ivec2(0);
    if (rank >= onesIn(mask)) return false;
    for (uint k = 0u; k < rank; ++k) mask &= mask - 1u;  // the rank lowest set bits dropped
    node = ivec2((block.x * kScanBlock + lowestBit(mask)) % gridSize.x, block.y);
    return true;
}
#else
uniform usampler2D rootLabels;  // each root's label, over the scan grid
uint rootLabelOf(float id) { return texelFetch(rootLabels, scanTexelOfId(id), 0).r; }
#endif
#endif

// The component table: label k is entry k - 1, laid out in rows of tableWidth.
ivec2 tableEntry(uint label, int tableWidth) {
    int index = int(label) - 1;
    return ivec2(index % tableWidth, index / tableWidth);
}

#ifdef DIGIT_BITS
// The table's sums as digits (SumDigits, download_table.hpp): digitBits bits
// a digit, and the digits of the area, of the sum of x and of the sum of y.
// Constants of the program (SumDigits::programConstants), as the layout is
// fixed for an image's size: the digits' selects and shifts fold away.
const int digitBits = DIGIT_BITS;
const ivec3 sumDigits = ivec3(AREA_DIGITS, X_DIGITS, Y_DIGITS);
#endif

#ifdef STAGE_VERTEX
// One vertex per node: the node of vertex gl_VertexID, node rows from firstRow.
ivec2 nodeOfVertex(int firstRow) { return ivec2(gl_VertexID % gridSize.x, firstRow + gl_VertexID / gridSize.x); }
#endif

// The table stages scatter one point per component per row segment of
// kSegment nodes instead of one per node: the first node of a component in
// its segment sums up the segment's nodes of that component (at most
// kSegment fetches: unbounded walks along long runs serialise whole warps).
const int kSegment = SEGMENT;

int segmentEnd(ivec2 n) { return min((n.x / kSegment + 1) * kSegment, gridSize.x); }

// component_table by slots takes its segments as blocks of kSegment nodes,
// kSlotSegment.x wide (raster_constants.hpp, slotSegmentWidth): segment s's
// node i at (i % width, i / width) in its block, which may reach past the
// grid's edge.
const ivec2 kSlotSegment = ivec2(SLOT_SEGMENT_W, kSegment / SLOT_SEGMENT_W);
ivec2 slotSegmentNode(ivec2 s, int i) { return s * kSlotSegment + ivec2(i % kSlotSegment.x, i / kSlotSegment.x); }

// Where component_table sends the point of `label` into copy `copy` of the
// table: its layout (tableSize) repeated `spread` times down, copy k at
// rows k * tableSize.y on (Tuning::rasterTableSpread; component_table_fold.frag
// or download_table_words.frag adds them up). tablePointPosition takes the
// copy from node n's row segment, so that neighbouring segments, across and
// down, blend into different copies.
vec4 tableCopyPosition(uint label, int copy, ivec2 tableSize, int spread) {
    ivec2 texel = tableEntry(label, tableSize.x) + ivec2(0, copy * tableSize.y);
    return pixelPosition(texel, ivec2(tableSize.x, tableSize.y * spread), 0.0);
}
vec4 tablePointPosition(uint label, ivec2 n, ivec2 tableSize, int spread) {
    return tableCopyPosition(label, (n.x / kSegment + n.y) % spread, tableSize, spread);
}

// Is n the first node of root `root` (nonzero) in its row segment?
bool firstOfRootInSegment(sampler2D ids, ivec2 n, float root) {
    if (root == 0.0) return false;
    int segmentStart = n.x / kSegment * kSegment;
    if (n.x > segmentStart && texelFetch(ids, n - ivec2(1, 0), 0).r == root) return false;
    for (int x = segmentStart; x < n.x - 1; ++x)
        if (texelFetch(ids, ivec2(x, n.y), 0).r == root) return false;
    return true;
}

// Linking roots across connections (merge_block_borders, resolve_links).
// Labels are compressed (every node holds its root's ID); node n sends the
// largest label among its connected neighbours to its own root when that
// label is larger than its own (GL_MAX keeps the largest arriving). A root
// only ever moves to a larger label: no cycles, and each round removes at
// least one root until none is left to merge. Returns where the point goes
// (kClipped: nowhere) and, in `value`, what it carries.
vec4 linkToLargestNeighbour(sampler2D ids, ivec2 n, out float value) {
    value = 0.0;
    if (!insideGrid(n)) return kClipped;
    uint bits = nodeBits(n);
    if ((bits & kLinkBits) == 0u) return kClipped;
    float label = texelFetch(ids, n, 0).r;
    float best = label;
    for (int i = 0; i < kNeighbourCount; ++i)
        if (linksTo(bits, i)) best = max(best, texelFetch(ids, n + kNeighbours[i], 0).r);
    if (best <= label) return kClipped;
    value = best;
    return pixelPosition(nodeOfId(label), gridSize, 0.0);
}

#endif  // RASTER_PIPELINE

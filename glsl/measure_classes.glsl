// What an element's or a window's neighbourhood adds to one region, for
// the passes that read it over the image (measure_terms.comp,
// measure_windows.comp) and for measure_small.comp, which reads it over a
// small region's box: the same classes either way. Included after
// measure_common.glsl (labelAt, imageSize).

#ifdef GATHER_PERIMETER
// The bits of an element's 4-neighbours (along its edges) and of its other
// 4 neighbours (at its corners) in a 5x5 neighbourhood's word: bit
// 5 (dy + 2) + (dx + 2) for the element at (dx, dy) from the centre.
const uint kEdgeBits = (1u << 7) | (1u << 11) | (1u << 13) | (1u << 17);
const uint kCornerBits = (1u << 6) | (1u << 8) | (1u << 16) | (1u << 18);

// The class of a border element by its border neighbours of the same
// region along the edges and at the corners: scikit-image's weights 1 for
// (2|3, 0..2), sqrt 2 for (0, 2) and (1, 3), (1 + sqrt 2) / 2 for (1, 1) and
// (1, 2); -1 for the weight 0.
int classOf(int edges, int corners) {
    if ((edges == 2 || edges == 3) && corners <= 2) return 0;
    if ((edges == 0 && corners == 2) || (edges == 1 && corners == 3)) return 1;
    if (edges == 1 && (corners == 1 || corners == 2)) return 2;
    return -1;
}

// The class of border element p from the labels around it, read once into
// registers: `inside` has bit 5 (dy + 2) + (dx + 2) set where p + (dx, dy),
// |dx| <= 2 and |dy| <= 2, is in p's region (outside the image: not), its
// bits at the window's four corners unused. An element is a border element
// (scikit-image's perimeter reads the region's inner border) where one of
// its 4-neighbours is not inside: as labelAt reads 0 outside the image, an
// element on the image's sides is one.
int windowPerimeterClass(uint inside) {
    const uint interior = inside & (inside >> 1) & (inside << 1) & (inside >> 5) & (inside << 5);
    const uint border = inside & ~interior;  // right for the 3x3 around p: their neighbours are in the window
    return classOf(bitCount(border & kEdgeBits), bitCount(border & kCornerBits));
}
#endif

// The 2x2 (2x2x2) windows are those of the cpu engine's accumulator
// (cpu/src/measure.cpp): one per grid vertex, its far corner (x, y, z)
// anywhere in 0..width, 0..height (0..depth), elements outside the image
// empty. A window's configuration, for one region, has a bit for each of
// its elements in that region:
//
//        x-1   x
//   y-1 [ 8 ][ 2 ]     slice z; slice z - 1 the same bits times 16
//   y   [ 4 ][ 1 ]

#if DIMENSIONS == 3
#define WINDOW 8
#define FULL_WINDOW 255u
#else
#define WINDOW 4
#define FULL_WINDOW 15u
#endif

// The labels of the window's half at the last coordinate of `corner` (row y
// of an image, slice z of a volume), in its bits' order: (x, y), (x - 1, y)
// (bits 1, 4); in 3-D (x, y), (x, y - 1), (x - 1, y), (x - 1, y - 1) of
// slice z (bits 1, 2, 4, 8).
uvec4 windowFront(PixelCoord corner) {
#if DIMENSIONS == 3
    return uvec4(labelAt(corner), labelAt(corner - ivec3(0, 1, 0)), labelAt(corner - ivec3(1, 0, 0)),
                 labelAt(corner - ivec3(1, 1, 0)));
#else
    return uvec4(labelAt(corner), labelAt(corner - ivec2(1, 0)), 0u, 0u);
#endif
}

// A half as windowFront orders it into the window's bits, the front half's
// or (`back`) the half one step back along the last axis, whose bits are
// the front's times 2 (an image's row y - 1) or 16 (a volume's slice z - 1).
void putFront(inout uint v[WINDOW], uvec4 labels, bool back) {
#if DIMENSIONS == 3
    const int at = back ? 4 : 0;
    v[at] = labels.x;
    v[at + 1] = labels.y;
    v[at + 2] = labels.z;
    v[at + 3] = labels.w;
#else
    const int at = back ? 1 : 0;
    v[at] = labels.x;
    v[at + 2] = labels.y;
#endif
}

// The labels of the window whose far corner is `corner`, in the order of
// the configuration's bits.
void windowLabels(PixelCoord corner, out uint v[WINDOW]) {
    PixelCoord back = corner;
    back[DIMENSIONS - 1] -= 1;
    putFront(v, windowFront(back), true);
    putFront(v, windowFront(corner), false);
}

#ifdef GATHER_CROFTON
// Crofton class 0..4 of a 2x2 configuration, -1 for coefficient 0: the
// class + 1 of configurations 0..7 and 8..15 in two words' nibbles,
//   config  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15
//   class  -1  0  1  2 -1  0 -1  1  3  4  1  1  3  4 -1 -1
// (shifts and masks, where a table indexed at run time would be copied
// into each invocation's local memory).
int croftonClass(uint config) {
    const uint nibbles = config < 8u ? 0x20103210u : 0x00542254u;
    return int((nibbles >> (4u * (config & 7u))) & 15u) - 1;
}
#endif

#ifdef GATHER_EULER
#if DIMENSIONS == 3
// 8 times the configuration's share of V - E + F - C of the region's union
// of closed unit cubes: the vertex at the window's centre, its six edges,
// twelve faces and eight cubes shared among their vertices. Bit 4 dz' + 2
// dx' + dy' is the voxel at (x - dx', y - dy', z - dz'), so that
//   the voxels on either side of the vertex along x are masks 0x33, 0xcc,
//   along y 0x55, 0xaa, along z 0x0f, 0xf0 (an edge: any of its four);
//   the faces are the pairs a bit 2 (x), 1 (y), 4 (z) apart (either of two).
int eulerTimes(uint config) {
    const int voxels = bitCount(config);
    const int edges = int((config & 0x33u) != 0u) + int((config & 0xccu) != 0u) + int((config & 0x55u) != 0u) +
                      int((config & 0xaau) != 0u) + int((config & 0x0fu) != 0u) + int((config & 0xf0u) != 0u);
    const int faces = bitCount((config | (config >> 2u)) & 0x33u) + bitCount((config | (config >> 1u)) & 0x55u) +
                      bitCount((config | (config >> 4u)) & 0x0fu);
    return 8 * int(voxels > 0) - 4 * edges + 2 * faces - voxels;
}
#else
// 4 times the configuration's share of V - E + F of the region's union of
// closed unit squares.
int eulerTimes(uint config) {
    const bool br = (config & 1u) != 0u, tr = (config & 2u) != 0u, bl = (config & 4u) != 0u, tl = (config & 8u) != 0u;
    const int pixels = bitCount(config);
    const int edges = int(tl || tr) + int(bl || br) + int(tl || bl) + int(tr || br);
    return 4 * int(pixels > 0) - 2 * edges + pixels;
}

// eulerTimes' shares plus 2, two bits a configuration, read by a shift and
// a mask:
//   config  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15
//   share   0  1  1  0  1  0 -2 -1  1 -2  0 -1  0 -1 -1  0
// measure_terms' walk counts the four windows of nearly every element of a
// region's border, and there this costs less than eulerTimes' tests; in
// measure_medium's loop over a row's windows the shift made the pass slower.
int eulerTimesPacked(uint config) { return int((0x96634bbeu >> (2u * config)) & 3u) - 2; }
#endif
#endif

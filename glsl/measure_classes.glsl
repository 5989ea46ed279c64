// What an element's or a window's neighbourhood adds to one region, for
// the passes that read it over the image (measure_terms.comp,
// measure_windows.comp) and for measure_small.comp, which reads it over a
// small region's box: the same classes either way. Included after
// measure_common.glsl (labelAt, imageSize). The classes read the labels
// through CLASS_LABEL_AT(p), labelAt unless the stage file defines it
// (a staged tile's labels: below).

#ifdef MEASURE_STAGED
// --- staged tiles -----------------------------------------------------------
//
// An invocation walking a row segment from the image reads addresses a
// segment apart from its neighbours' in the work group: each load of a
// subgroup touches as many lines as it has invocations. In a staged pass
// (MEASURE_STAGED) the work group's MEASURE_GROUP invocations walk
// MEASURE_GROUP consecutive rows of one segment of MEASURE_SEGMENT columns,
// invocation t the row rowOfGroup + t, and the segment in sub-tiles of
// MEASURE_TILE columns: the group copies a sub-tile's labels (with the
// halo its classes read) and samples into shared memory, consecutive
// invocations reading consecutive x, then each invocation walks its row
// of the sub-tile there, keeping its sums across sub-tiles. The including
// stage file defines
//
//   STAGE_LEAD, STAGE_TRAIL  halo rows and columns before and after the tile
//   STAGE_BANDS              1, or 2: a second band of rows one slice before (z - 1)
//   STAGE_WINDOWS            rows and columns are window corners, one more
//                            than the image's along each axis
//   STAGE_SAMPLES            the intensity's samples of the tile are staged too
//
// A pass's rows are numbered slice after slice (y, z) over the whole image,
// so that a work group of a volume's rows is full wherever the rows are. A
// staged row is the tile's row of elements at the pass's row
// (rowOfGroup - STAGE_LEAD + slot), its slot's band a slice before; rows
// and columns outside the image hold label 0 and sample 0.

#define STAGED_ROWS (MEASURE_GROUP + STAGE_LEAD + STAGE_TRAIL)
#define STAGED_COLUMNS (MEASURE_TILE + STAGE_LEAD + STAGE_TRAIL)
// Odd strides: the invocations of a subgroup reading one column of their
// rows read as many banks.
#define STAGED_STRIDE (STAGED_COLUMNS | 1)
#define SAMPLE_STRIDE (MEASURE_TILE | 1)

shared uint stagedLabels[STAGE_BANDS * STAGED_ROWS * STAGED_STRIDE];
#ifdef STAGE_SAMPLES
shared uint stagedSamples[MEASURE_GROUP * SAMPLE_STRIDE];  // the group's own rows, no halo
#endif
// Each staged row's (y, z), y -1 for a row outside the image.
shared ivec2 stagedRowAt[STAGE_BANDS * STAGED_ROWS];

#if DIMENSIONS == 3
int imageDepth() { return imageSize.z; }
PixelCoord elementAt(int x, ivec2 row) { return ivec3(x, row); }
#else
int imageDepth() { return 1; }
PixelCoord elementAt(int x, ivec2 row) { return ivec2(x, row.x); }
#endif

#ifdef STAGE_WINDOWS
int rowSpan() { return imageSize.y + 1; }
int passColumns() { return imageSize.x + 1; }
int passRows() { return (imageSize.y + 1) * (DIMENSIONS == 3 ? imageDepth() + 1 : 1); }
#else
int rowSpan() { return imageSize.y; }
int passColumns() { return imageSize.x; }
int passRows() { return imageSize.y * imageDepth(); }
#endif

// The pass's row `row` as (y, z).
ivec2 rowPlace(int row) { return ivec2(row % rowSpan(), row / rowSpan()); }

// The group's first row and its segment's columns x0 .. x1 - 1 (x0 >=
// x1: a group past the last row, which a dispatch of a volume's many rows
// may hold). Work groups are numbered over y, then z: the rows may pass
// the 65535 groups of one axis.
int rowOfGroup, segmentStart, segmentEnd;

void placeGroup() {
    rowOfGroup = int(gl_WorkGroupID.y + gl_WorkGroupID.z * gl_NumWorkGroups.y) * MEASURE_GROUP;
    segmentStart = int(gl_WorkGroupID.x) * MEASURE_SEGMENT;
    segmentEnd = rowOfGroup < passRows() ? min(segmentStart + MEASURE_SEGMENT, passColumns()) : segmentStart;
    for (int slot = int(gl_LocalInvocationIndex); slot < STAGE_BANDS * STAGED_ROWS; slot += MEASURE_GROUP) {
        const int band = slot / STAGED_ROWS;
        const int row = rowOfGroup - STAGE_LEAD + slot - band * STAGED_ROWS - band * rowSpan();
        ivec2 place = rowPlace(max(row, 0));
        if (row < 0 || place.x >= imageSize.y || place.y >= imageDepth()) place.x = -1;
        stagedRowAt[slot] = place;
    }
}

// The sub-tile from column tileStart on into shared memory. Every
// invocation of the group calls it, between barriers.
int tileStart;

void stageTile(int start) {
    tileStart = start;
    for (int k = int(gl_LocalInvocationIndex); k < STAGE_BANDS * STAGED_ROWS * STAGED_COLUMNS; k += MEASURE_GROUP) {
        const int slot = k / STAGED_COLUMNS;
        const int column = k - slot * STAGED_COLUMNS;
        const ivec2 row = stagedRowAt[slot];
        const int x = start - STAGE_LEAD + column;
        uint label = 0u;
        if (row.x >= 0 && x >= 0 && x < imageSize.x) label = imageLoad(labelImage, elementAt(x, row)).r;
        stagedLabels[slot * STAGED_STRIDE + column] = label;
    }
#ifdef STAGE_SAMPLES
    for (int k = int(gl_LocalInvocationIndex); k < MEASURE_GROUP * MEASURE_TILE; k += MEASURE_GROUP) {
        const int slot = k / MEASURE_TILE;
        const int column = k - slot * MEASURE_TILE;
        const ivec2 row = stagedRowAt[slot + STAGE_LEAD];
        const int x = start + column;
        uint value = 0u;
        if (row.x >= 0 && x < imageSize.x) value = sampleAt(elementAt(x, row));
        stagedSamples[slot * SAMPLE_STRIDE + column] = value;
    }
#endif
}

// Where this invocation's element at x sits in stagedLabels (band 0);
// the staged row before is STAGED_STRIDE before it, band 1 STAGED_BAND after.
#define STAGED_BAND (STAGED_ROWS * STAGED_STRIDE)
int stagedIndex(int x) {
    return (int(gl_LocalInvocationIndex) + STAGE_LEAD) * STAGED_STRIDE + x - tileStart + STAGE_LEAD;
}
#if DIMENSIONS == 2
// The staged label at p of an image's pass of label rows (STAGE_WINDOWS
// undefined): p within STAGE_LEAD, STAGE_TRAIL of the tile.
uint stagedLabelAt(ivec2 p) {
    return stagedLabels[(p.y - rowOfGroup + STAGE_LEAD) * STAGED_STRIDE + p.x - tileStart + STAGE_LEAD];
}
#endif
#ifdef STAGE_SAMPLES
uint stagedSample(int x) { return stagedSamples[int(gl_LocalInvocationIndex) * SAMPLE_STRIDE + x - tileStart]; }
#endif
#endif

#ifndef CLASS_LABEL_AT
#define CLASS_LABEL_AT labelAt
#endif

#ifdef GATHER_PERIMETER
// An element of region `label` with a 4-neighbour outside it or outside the
// image (scikit-image's perimeter reads the region's inner border).
bool isBorder(ivec2 p, uint label) {
    return p.x == 0 || p.y == 0 || p.x == imageSize.x - 1 || p.y == imageSize.y - 1 ||
           CLASS_LABEL_AT(p - ivec2(1, 0)) != label || CLASS_LABEL_AT(p + ivec2(1, 0)) != label ||
           CLASS_LABEL_AT(p - ivec2(0, 1)) != label || CLASS_LABEL_AT(p + ivec2(0, 1)) != label;
}
bool borderOf(ivec2 p, uint label) { return CLASS_LABEL_AT(p) == label && isBorder(p, label); }

// The class of border element p by its border neighbours of the same
// region along the edges and at the corners: scikit-image's weights 1 for
// (2|3, 0..2), sqrt 2 for (0, 2) and (1, 3), (1 + sqrt 2) / 2 for (1, 1) and
// (1, 2); -1 for the weight 0.
int perimeterClass(ivec2 p, uint label) {
    const int edges = int(borderOf(p - ivec2(1, 0), label)) + int(borderOf(p + ivec2(1, 0), label)) +
                      int(borderOf(p - ivec2(0, 1), label)) + int(borderOf(p + ivec2(0, 1), label));
    const int corners = int(borderOf(p + ivec2(-1, -1), label)) + int(borderOf(p + ivec2(1, -1), label)) +
                        int(borderOf(p + ivec2(-1, 1), label)) + int(borderOf(p + ivec2(1, 1), label));
    if ((edges == 2 || edges == 3) && corners <= 2) return 0;
    if ((edges == 0 && corners == 2) || (edges == 1 && corners == 3)) return 1;
    if (edges == 1 && (corners == 1 || corners == 2)) return 2;
    return -1;
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

// The labels of the window whose far corner is `corner`, in the order of
// the configuration's bits.
void windowLabels(PixelCoord corner, out uint v[WINDOW]) {
    PixelCoord up = corner, left = corner, upLeft = corner;
    up.y -= 1;
    left.x -= 1;
    upLeft.xy -= ivec2(1);
    v[0] = labelAt(corner);
    v[1] = labelAt(up);
    v[2] = labelAt(left);
    v[3] = labelAt(upLeft);
#if DIMENSIONS == 3
    const ivec3 back = ivec3(0, 0, 1);
    v[4] = labelAt(corner - back);
    v[5] = labelAt(up - back);
    v[6] = labelAt(left - back);
    v[7] = labelAt(upLeft - back);
#endif
}

#ifdef GATHER_CROFTON
// Crofton class 0..4 of a 2x2 configuration, -1 for coefficient 0.
const int kCroftonClass[16] = int[16](-1, 0, 1, 2, -1, 0, -1, 1, 3, 4, 1, 1, 3, 4, -1, -1);
#endif

#ifdef GATHER_EULER
#if DIMENSIONS == 3
// Whether the voxel at (x - 1 + d.x, y - 1 + d.y, z - 1 + d.z) is in the configuration.
bool voxelIn(uint config, ivec3 d) {
    const int bit = (d.z != 0 ? 0 : 4) + (d.x != 0 ? 0 : 2) + (d.y != 0 ? 0 : 1);
    return ((config >> uint(bit)) & 1u) != 0u;
}

// 8 times the configuration's share of V - E + F - C of the region's union
// of closed unit cubes: the vertex at the window's centre, its six edges,
// twelve faces and eight cubes shared among their vertices.
int eulerTimes(uint config) {
    const int voxels = bitCount(config);
    int edges = 0;  // each amid the four voxels on its side of the vertex
    for (int axis = 0; axis < 3; ++axis)
        for (int side = 0; side < 2; ++side) {
            bool touched = false;
            for (int a = 0; a < 2; ++a)
                for (int b = 0; b < 2; ++b) {
                    ivec3 v;
                    v[axis] = side;
                    v[(axis + 1) % 3] = a;
                    v[(axis + 2) % 3] = b;
                    touched = touched || voxelIn(config, v);
                }
            edges += int(touched);
        }
    int faces = 0;  // each between two voxels
    for (int axis = 0; axis < 3; ++axis)
        for (int a = 0; a < 2; ++a)
            for (int b = 0; b < 2; ++b) {
                ivec3 v, u;
                v[axis] = 0;
                u[axis] = 1;
                v[(axis + 1) % 3] = a;
                u[(axis + 1) % 3] = a;
                v[(axis + 2) % 3] = b;
                u[(axis + 2) % 3] = b;
                faces += int(voxelIn(config, v) || voxelIn(config, u));
            }
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
#endif
#endif

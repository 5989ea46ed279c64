// Shared by the measuring passes (measure_small.comp, measure_terms.comp,
// measure_extrema.comp, measure_windows.comp): the label image,
// the regions' boxes and their totals, each total a sum added exactly by
// 32-bit atomics (engine/src/measure_terms.hpp sets the defines).
//
//   DIMENSIONS       2 or 3 (criterion.glsl: PixelCoord, imageSize)
//   MEASURE_GROUP    work group size; MEASURE_SEGMENT elements (windows) per invocation
//   LIMBS            32-bit limbs of the widest sum (scratch sums' width), lowest first
//   MOMENT_LEVEL     TermRequest::momentLevel, 0 .. 4
//   WEIGHTED_LEVEL   TermRequest::weightedMomentLevel, 0 .. 4
//   MOMENT_TERMS, WEIGHTED_TERMS  the exponent tuples of those levels (at least 1)
//   EXTENT_BITS, COUNT_BITS, SAMPLE_BITS  bounds that give each moment sum
//                    RecordLayout's limbs: one of degree d has those of
//                    2^(EXTENT_BITS d + COUNT_BITS), times 2^SAMPLE_BITS for a
//                    weighted one (termLimbs; the least such bounds, so that
//                    records alike share one program)
//   SUM_LIMBS, SQUARES_LIMBS  the limbs of the intensity's sum and sum of squares
//   RECORD_WORDS     words of one region's record in `totals`:
//
//     | moments: each term's limbs | perimeter: 3 | crofton: 5 | euler: 2 (int64) |
//       MOMENTS_AT                PERIMETER_AT   CROFTON_AT   EULER_AT
//     | sum | squares | ~min, max: 2 | ~first positions: 2 | weighted: each term's limbs |
//       SUM_AT SQUARES_AT EXTREMA_AT  POSITIONS_AT          WEIGHTED_AT
//
//   a part only where its GATHER_MOMENTS, GATHER_PERIMETER, GATHER_CROFTON,
//   GATHER_EULER, GATHER_SUMS, GATHER_EXTREMA, GATHER_POSITIONS or
//   GATHER_WEIGHTED is defined. The least sample
//   and the first positions are kept complemented, so that atomicMax over
//   a zeroed record finds them.
//
// An intensity (GATHER_SUMS, GATHER_EXTREMA or GATHER_WEIGHTED) is read
// from image unit MEASURE_INTENSITY_IMAGE in INTENSITY_FORMAT (r8ui, r16ui,
// r32ui; r8 and r16 with INTENSITY_SCALE 255.0 and 65535.0, read in the
// format's units).

#if DIMENSIONS == 3
layout(r32ui, binding = MEASURE_LABELS_IMAGE) uniform readonly uimage3D labelImage;
#else
layout(r32ui, binding = MEASURE_LABELS_IMAGE) uniform readonly uimage2D labelImage;
#endif

#if defined(GATHER_SUMS) || defined(GATHER_EXTREMA) || defined(GATHER_WEIGHTED)
#define GATHER_INTENSITY 1
#if DIMENSIONS == 3
#define INTENSITY_IMAGE_TYPE image3D
#define INTENSITY_UIMAGE_TYPE uimage3D
#else
#define INTENSITY_IMAGE_TYPE image2D
#define INTENSITY_UIMAGE_TYPE uimage2D
#endif
#ifdef INTENSITY_SCALE
layout(INTENSITY_FORMAT, binding = MEASURE_INTENSITY_IMAGE) uniform readonly INTENSITY_IMAGE_TYPE intensityImage;
uint sampleAt(PixelCoord p) { return uint(round(imageLoad(intensityImage, p).r * INTENSITY_SCALE)); }
#else
layout(INTENSITY_FORMAT, binding = MEASURE_INTENSITY_IMAGE) uniform readonly INTENSITY_UIMAGE_TYPE intensityImage;
uint sampleAt(PixelCoord p) { return imageLoad(intensityImage, p).r; }
#endif
#endif

// Per region of the batch, the least x, y, z of its box, and in w the
// box's extent if measure_small measures the region alone: width, height
// and depth, a byte each (TermGatherer's packedExtent), positive; for a
// region the passes over the image gather, 0, or -(1 + h) where it is hot
// region h, whose runs measure_terms spreads over REPLICAS records of its
// own past the batch's (measure_fold.comp).
layout(std430, binding = MEASURE_BOXES_BUFFER) readonly buffer RegionBoxes { ivec4 boxMin[]; };
layout(std430, binding = MEASURE_TOTALS_BUFFER) buffer RegionTotals { uint totals[]; };

// The label at p, 0 outside the image: OpenGL (4.2 and up) and OpenGL ES
// (3.1 and up) make a load of a texel that does not exist an invalid
// access, which returns 0 in the red component, so no test of p is needed
// (every pass over the labels loads a neighbourhood past the image's
// sides, and the tests were most of a window's instructions).
uint labelAt(PixelCoord p) { return imageLoad(labelImage, p).r; }

// The passes over the labels: an invocation walks a segment of
// MEASURE_SEGMENT elements (windows), numbered so that the invocations of a
// work group fill it whatever the image's shape; the work groups numbered
// over x, then y.
uniform uint segments;  // in all (an image's passes along y: tiles listed)

#ifdef WALK_ROWS
// measure_extrema: a segment of one row, along x (an element's first
// position in raster order is its run's first offer), the segments numbered
// along each row, the rows slice after slice.
uniform uint segmentsPerRow;  // of each row
uniform uint rowsPerSlice;    // rows of a slice: the image's height

// This invocation's segment: its first element's x and its row, y and z
// (false: past the last segment).
bool thisSegment(out PixelCoord first, out uint index) {
    index = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * uint(MEASURE_GROUP) + gl_LocalInvocationID.x;
    if (index >= segments) return false;
    const uint row = index / segmentsPerRow;
    first = PixelCoord(0);
    first.x = int((index - row * segmentsPerRow) * uint(MEASURE_SEGMENT));
    first.y = int(row % rowsPerSlice);
#if DIMENSIONS == 3
    first.z = int(row / rowsPerSlice);
#endif
    return true;
}
#else
// measure_terms, measure_windows: a segment along the last axis (an
// image's y, a volume's z), the invocations numbered along x, then y (a
// volume), then the segments: a warp's invocations at consecutive x, so
// that each step's loads are consecutive elements.
const int WALK_AXIS = DIMENSIONS - 1;
uniform uint walkColumns;  // elements (windows) along x
uniform uint walkRows;     // along y (a volume)

#if DIMENSIONS == 2
#ifdef MEASURE_TILES_BUFFER  // the measuring passes' programs (not region_rows')
// An image's segments are walked in tiles of MEASURE_GROUP columns by one
// segment, a work group a tile, only the tiles the host lists: those that
// hold an element (window) of a region the pass gathers (measure_terms,
// measure_windows; the regions measured alone are skipped anyway). Tile t of the
// list is x-tile (walkTile[t] & 0xffff), segment (walkTile[t] >> 16).
layout(std430, binding = MEASURE_TILES_BUFFER) readonly buffer WalkTiles { uint walkTile[]; };

// This invocation's segment: its first element (window's far corner), the
// walk axis' coordinate the segment's first (false: past the image's
// side, or past the last tile).
bool thisPillar(out PixelCoord first, out uint index) {
    const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    index = group * uint(MEASURE_GROUP) + gl_LocalInvocationID.x;
    if (group >= segments) return false;
    const uint tile = walkTile[group];
    first = PixelCoord((tile & 0xffffu) * uint(MEASURE_GROUP) + gl_LocalInvocationID.x,
                       (tile >> 16) * uint(MEASURE_SEGMENT));
    return first.x < int(walkColumns);
}
#endif
#else
// A volume's: this invocation's segment, its first element (window's far
// corner), the walk axis' coordinate the segment's first (false: past the
// last segment).
bool thisPillar(out PixelCoord first, out uint index) {
    index = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * uint(MEASURE_GROUP) + gl_LocalInvocationID.x;
    if (index >= segments) return false;
    const uint rest = index / walkColumns;
    first = PixelCoord(0);
    first.x = int(index - rest * walkColumns);
    first.y = int(rest % walkRows);
    first.z = int(rest / walkRows * uint(MEASURE_SEGMENT));
    return true;
}
#endif
#endif

// The regions of this dispatch: labels firstLabel .. firstLabel + batchLabels - 1
// (all of them but where their records pass one storage block).
uniform uint firstLabel;
uniform uint batchLabels;

bool inBatch(uint label) { return label - firstLabel < batchLabels; }  // label 0 wraps past every batch
uint recordOf(uint label) { return (label - firstLabel) * uint(RECORD_WORDS); }
ivec4 boxOf(uint label) { return boxMin[label - firstLabel]; }
#ifdef REPLICAS
// Replica `slot` (any number: taken modulo REPLICAS) of hot region h.
uint replicaOf(uint h, uint slot) { return (batchLabels + h * uint(REPLICAS) + slot % uint(REPLICAS)) * uint(RECORD_WORDS); }
#endif
// A region measure_small measures whole: the passes over the image skip it.
bool measuredAlone(uint label) { return boxOf(label).w > 0; }

#ifdef EXTENT_BITS
// The limbs of a moment sum of `degree`, weighted or not, as
// engine/src/measure_terms.cpp's recordLayout gives them: its terms lie one
// after another in TermRequest::exponents' order, each this wide. Worked
// out in the loops over the terms rather than read from an array, which an
// unrolled loop makes constants.
int termLimbs(int degree, bool weighted) {
    const int bits = EXTENT_BITS * degree + COUNT_BITS + (weighted ? SAMPLE_BITS : 0);
    return max(1, (bits + 31) / 32);
}
#endif

// Adds v's low `limbs` limbs to the sum of that many at totals[at]. Each
// limb's atomicAdd returns the limb before it, so the carry out of limb k
// is known and goes into limb k + 1 with the next addend: the sum is exact
// modulo 2^(32 limbs), whatever order the invocations add in, and the
// record's bounds keep every sum below that.
void addWide(uint at, uint v[LIMBS], int limbs) {
    uint carry = 0u;
    // Over LIMBS, a constant, so that the loop unrolls and v stays in
    // registers; `limbs` is a constant too where the caller's loops unroll.
    for (int k = 0; k < LIMBS; ++k) {
        if (k >= limbs) break;
        const uint addend = v[k] + carry;
        carry = addend < carry ? 1u : 0u;  // v[k] = 2^32 - 1 and a carry in: a carry on, nothing added here
        if (addend != 0u) {
            const uint before = atomicAdd(totals[at + uint(k)], addend);
            carry += before + addend < before ? 1u : 0u;
        }
    }
}

// Adds a signed value to the 64-bit two's-complement sum at totals[at] (the
// same carry as addWide, modulo 2^64).
void addSigned64(uint at, int value) {
    if (value == 0) return;
    const uint low = uint(value);
    const uint before = atomicAdd(totals[at], low);
    const uint high = (value < 0 ? 0xffffffffu : 0u) + (before + low < before ? 1u : 0u);
    if (high != 0u) atomicAdd(totals[at + 1u], high);
}

// Sums of fixed width in registers, for a run's or a small region's sums
// before they go into its record: a + b of 64 and 96 bits (modulo 2^64,
// 2^96), a x b of a 64-bit a and a 32-bit b, and of two 32-bit ones.
uvec2 add64(uvec2 a, uvec2 b) {
    uint carry;
    const uint low = uaddCarry(a.x, b.x, carry);
    return uvec2(low, a.y + b.y + carry);
}

uvec3 add96(uvec3 a, uvec3 b) {
    uint carry0, carry1, carry2;
    const uint low = uaddCarry(a.x, b.x, carry0);
    uint middle = uaddCarry(a.y, b.y, carry1);
    middle = uaddCarry(middle, carry0, carry2);
    return uvec3(low, middle, a.z + b.z + carry1 + carry2);
}

uvec3 multiply64(uvec2 a, uint b) {
    uint high0, low0, high1, low1, carry;
    umulExtended(a.x, b, high0, low0);
    umulExtended(a.y, b, high1, low1);
    const uint middle = uaddCarry(high0, low1, carry);
    return uvec3(low0, middle, high1 + carry);
}

uvec2 product64(uint a, uint b) {
    uint high, low;
    umulExtended(a, b, high, low);
    return uvec2(low, high);
}

// v *= factor, in LIMBS limbs (the totals bound every product: no overflow).
void multiplyWide(inout uint v[LIMBS], uint factor) {
    uint carry = 0u;
    for (int k = 0; k < LIMBS; ++k) {
        uint high, low;
        umulExtended(v[k], factor, high, low);
        low += carry;
        high += low < carry ? 1u : 0u;
        v[k] = low;
        carry = high;
    }
}

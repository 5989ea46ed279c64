// measure_medium: every term the request asks for of an image's region
// whose box holds more than kSmallBox and at most kMediumBox elements
// (engine/src/measure_terms.hpp), by one work group of MEASURE_GROUP
// invocations. Each invocation adds up its elements' terms in registers;
// the group adds its invocations' sums into a record in shared memory and
// stores that record into the region's once, with plain stores. The
// passes over the image skip the region (measuredAlone), whose runs would
// otherwise each take a run of atomics on its record in global memory, one
// for every column it crosses.
//
// With MEDIUM_STRIPS (ballots in subgroups of 32), the group's subgroups
// walk the box in strips of columns (measure_strips.glsl), and the work
// groups after the listed regions' take the narrow ones listed after
// those, a subgroup each, in the same dispatch, so that the GPU runs them
// beside the longest walks of the groups before, which start first.
// Without, the group walks the box `rows` rows a step, `rowLanes`
// invocations a row, an invocation an element (and every rowLanes-th one
// after it), as below.
//
// The terms are measure_small.comp's, from the same classes
// (measure_classes.glsl). The group holds a band of the box's rows in
// shared memory (two rows and two columns past them on each side), a bit
// an element for "in the region": an element's perimeter window and the
// windows' configurations read them there. It loads a band's labels at
// once, every invocation four at a time, and walks the band's rows with no
// barrier between its steps; a box of few rows is one band. (A ring of the
// rows around the step, loaded a row a step, would make every step wait on
// its loads and two barriers.)
//
// Within a box of w x h <= kMediumBox <= 2^14 elements, each side below
// 256, a moment's term lx^a ly^b (a, b at most 3) is below (w h)^3, so the
// region's moment sums are below 2^56, its sum below 2^46 and its sum of
// squares below 2^78; an invocation's sums of lx^e over the at most 8 of
// its columns in a row below 2^27, and of ly^e over the at most 255 rows of
// its one column below 255 * 254^3 < 2^32. An invocation's share of a sum
// is part of it: 64 and 96 bits in registers.

#include "measure_classes.glsl"

#if DIMENSIONS != 2
#error measure_medium measures the regions of images
#endif

layout(local_size_x = MEASURE_GROUP) in;

// The regions of the batch measured here, each its index in the batch
// (label - firstLabel), mediumRegions of them: one a work group.
layout(std430, binding = MEASURE_MEDIUM_BUFFER) readonly buffer MediumRegions { uint mediumRegion[]; };
uniform uint mediumRegions;

// A band: rows of the box, and two more on each side, each from column
// least.x - 2 to past.x + 1 (w + 4 elements), a bit an element (set where
// it is in the region) in rowWords words (measure_terms.hpp's
// mediumRowWords), row y at (y - bandFirst) rowWords. MEDIUM_BAND_WORDS
// words hold mediumBandRows(w) rows of the box and the four around them.
// Bits, not a word an element: the group's shared memory sets how many
// groups run at once.
shared uint band[MEDIUM_BAND_WORDS];
int rowWords = 0, bandFirst = 0;
// A step walks `rows` rows, `rowLanes` invocations a row. A box wider than
// ROW_LANES and at most MEASURE_GROUP wide is walked a row a step, an
// invocation a column; any other box ROW_LANES invocations a row (main()
// sets the two, the same for the whole group).
const int ROW_LANES = 32;
int rowLanes = ROW_LANES, rows = MEASURE_GROUP / ROW_LANES;
// The region's record, as `totals` holds it, summed by the group (with
// MEDIUM_STRIPS, a narrow region's by its subgroup, from recordAt).
#ifdef MEDIUM_STRIPS
const int GROUP_RECORDS = MEASURE_GROUP / 32;
#else
const int GROUP_RECORDS = 1;
#endif
shared uint groupRecord[GROUP_RECORDS * RECORD_WORDS];
uint recordAt = 0u;

int bandRow(int y) { return (y - bandFirst) * rowWords; }  // y >= bandFirst

// The band of the box's rows first .. past - 1 (of rows 0 .. h - 1 of the
// w x h box at `least`) into `band`, for the group to walk: its words
// zeroed, then the labels of rows first - 2 .. past + 1 in the box loaded,
// each invocation four ahead of their tests. The elements around the box
// are not the region's: their bits stay 0. Every invocation calls it.
void loadBand(int first, int past, ivec2 least, int w, int h, uint label) {
    const int lane = int(gl_LocalInvocationID.x);
    bandFirst = least.y + first - 2;
    const int words = w > 0 ? (past - first + 4) * rowWords : 0;
    for (int k = lane; k < words; k += MEASURE_GROUP) band[k] = 0u;
    memoryBarrierShared();
    barrier();  // the band zeroed
    const int top = max(first - 2, 0), elements = (min(past + 2, h) - top) * w;
    for (int k0 = lane; k0 < elements; k0 += 4 * MEASURE_GROUP) {
        uint v[4];
        ivec2 at[4];  // in the box
        for (int u = 0; u < 4; ++u) {
            const int k = k0 + u * MEASURE_GROUP, row = k / w;
            at[u] = ivec2(k - row * w, top + row);
            v[u] = k < elements ? labelAt(least + at[u]) : 0u;
        }
        for (int u = 0; u < 4; ++u)
            if (v[u] == label && k0 + u * MEASURE_GROUP < elements) {
                const int j = at[u].x + 2;
                atomicOr(band[bandRow(least.y + at[u].y) + (j >> 5)], 1u << uint(j & 31));
            }
    }
    memoryBarrierShared();
    barrier();  // the band's bits
}

// Bits j .. j + 31 of a band's row (those past its last bit 0), bit j in bit 0:
// the callers keep the low 5 or 2.
uint bitsAt(int row, int j) {
    const uint shift = uint(j & 31);
    const uint low = band[row + (j >> 5)] >> shift;
    return shift == 0u ? low : low | band[row + (j >> 5) + 1] << (32u - shift);
}

// v's low `limbs` limbs added to the wide sum at groupRecord[recordAt + at], carries as
// measure_common.glsl's addWide takes them: exact modulo 2^(32 limbs).
void addGroupWide(uint at, uvec3 v, int limbs) {
    uint carry = 0u;
    // Up to 8 limbs (RecordLayout's widest): `limbs` may pass LIMBS, the
    // widest of the sums alone (Euler's 64-bit sum beside sums of one limb).
    for (int k = 0; k < 8; ++k) {
        if (k >= limbs) break;
        const uint addend = (k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : 0u) + carry;
        carry = addend < carry ? 1u : 0u;
        if (addend != 0u) {
            const uint before = atomicAdd(groupRecord[recordAt + at + uint(k)], addend);
            carry += before + addend < before ? 1u : 0u;
        }
    }
}

// An invocation's sums of its elements' and windows' terms other than the
// moments (which the two walks add up each their own way).
struct ElementSums {
    bool any;  // an element added: the extrema hold one
#ifdef GATHER_PERIMETER
    uvec3 perimeter;  // border elements by class
#endif
#ifdef GATHER_SUMS
    uvec2 sum;
    uvec3 squares;
#endif
#ifdef GATHER_EXTREMA
    uint leastSample, mostSample, leastAt, mostAt;
#endif
#if defined(GATHER_CROFTON) || defined(GATHER_EULER)
    uint crofton[5];
    int euler;
#endif
};

ElementSums noElements() {
    ElementSums e;
    e.any = false;
#ifdef GATHER_PERIMETER
    e.perimeter = uvec3(0u);
#endif
#ifdef GATHER_SUMS
    e.sum = uvec2(0u);
    e.squares = uvec3(0u);
#endif
#ifdef GATHER_EXTREMA
    e.leastSample = 0xffffffffu;
    e.mostSample = 0u;
    e.leastAt = 0u;
    e.mostAt = 0u;
#endif
#if defined(GATHER_CROFTON) || defined(GATHER_EULER)
    for (int n = 0; n < 5; ++n) e.crofton[n] = 0u;
    e.euler = 0;
#endif
    return e;
}

#if defined(GATHER_CROFTON) || defined(GATHER_EULER)
// The 2x2 window of `config`: its bits (x, y) 1, (x, y-1) 2, (x-1, y) 4,
// (x-1, y-1) 8 (measure_classes.glsl); an empty or full one adds nothing.
void addWindow(inout ElementSums e, uint config) {
    if (config == 0u || config == FULL_WINDOW) return;
#ifdef GATHER_CROFTON
    const int k = croftonClass(config);
    for (int n = 0; n < 5; ++n) e.crofton[n] += k == n ? 1u : 0u;  // not crofton[k]: indexed at run time
#endif
#ifdef GATHER_EULER
    e.euler += eulerTimes(config);
#endif
}
#endif

#ifdef GATHER_PERIMETER
// A border element, whose 5x5 window is `inside` (bit 5 (dy + 2) + (dx + 2):
// element (x + dx, y + dy) in the region).
void addBorder(inout ElementSums e, uint inside) {
    const int k = windowPerimeterClass(inside);
    e.perimeter += uvec3(equal(ivec3(k), ivec3(0, 1, 2)));  // not perimeter[k]: indexed at run time
}
#endif

// The intensity at p, an element of the region. An extremum keeps the
// least index of its value: the walk by strips gives an invocation its
// elements strip by strip, not in raster order.
void addSample(inout ElementSums e, ivec2 p) {
#ifdef GATHER_INTENSITY
    const uint value = sampleAt(p);
#endif
#ifdef GATHER_SUMS
    e.sum = add64(e.sum, uvec2(value, 0u));
    e.squares = add96(e.squares, multiply64(uvec2(value, 0u), value));
#endif
#ifdef GATHER_EXTREMA
    const uint element = uint(p.y) * uint(imageSize.x) + uint(p.x);
    if (!e.any || value < e.leastSample || (value == e.leastSample && element < e.leastAt)) {
        e.leastSample = value;
        e.leastAt = element;
    }
    if (!e.any || value > e.mostSample || (value == e.mostSample && element < e.mostAt)) {
        e.mostSample = value;
        e.mostAt = element;
    }
#endif
    e.any = true;
}

// The invocation's sums into the record at recordAt, but the extrema's
// positions (storePositions, once the record's extrema are complete).
void storeElements(ElementSums e) {
#ifdef GATHER_PERIMETER
    for (int k = 0; k < 3; ++k)
        if (e.perimeter[k] != 0u) atomicAdd(groupRecord[recordAt + uint(PERIMETER_AT + k)], e.perimeter[k]);
#endif
#ifdef GATHER_SUMS
    addGroupWide(uint(SUM_AT), uvec3(e.sum, 0u), SUM_LIMBS);
    addGroupWide(uint(SQUARES_AT), e.squares, SQUARES_LIMBS);
#endif
#ifdef GATHER_EXTREMA
    // Complemented, as measure_terms and measure_extrema keep them.
    if (e.any) {
        atomicMax(groupRecord[recordAt + uint(EXTREMA_AT)], ~e.leastSample);
        atomicMax(groupRecord[recordAt + uint(EXTREMA_AT + 1)], e.mostSample);
    }
#endif
#ifdef GATHER_CROFTON
    for (int k = 0; k < 5; ++k)
        if (e.crofton[k] != 0u) atomicAdd(groupRecord[recordAt + uint(CROFTON_AT + k)], e.crofton[k]);
#endif
#ifdef GATHER_EULER
    // A 64-bit two's-complement sum, as addSigned64 keeps it.
    if (e.euler != 0) addGroupWide(uint(EULER_AT), uvec3(uint(e.euler), e.euler < 0 ? 0xffffffffu : 0u, 0u), 2);
#endif
}

#ifdef GATHER_POSITIONS
// The first position of each extremum: the least among the invocations
// that hold it.
void storePositions(ElementSums e) {
    if (e.any && e.leastSample == ~groupRecord[recordAt + uint(EXTREMA_AT)])
        atomicMax(groupRecord[recordAt + uint(POSITIONS_AT)], ~e.leastAt);
    if (e.any && e.mostSample == groupRecord[recordAt + uint(EXTREMA_AT + 1)])
        atomicMax(groupRecord[recordAt + uint(POSITIONS_AT + 1)], ~e.mostAt);
}
#endif

#ifdef MEDIUM_STRIPS
#include "measure_strips.glsl"
#endif

// A listed region's work group.
void measureMedium() {
    // Work groups are numbered over x, then y: the regions may outnumber
    // what one axis of a dispatch holds. A group past the last walks an
    // empty box and stores nothing (a barrier may not follow a return).
    const uint i = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    const bool listed = i < mediumRegions;
    const int lane = int(gl_LocalInvocationID.x);
    const uint r = listed ? mediumRegion[i] : 0u;
    const uint label = firstLabel + r;
    const ivec4 box = listed ? boxMin[r] : ivec4(0);
    // TermGatherer's packedExtent: width, height a byte each.
    const int w = box.w & 0xff, h = (box.w >> 8) & 0xff;
    if (w > ROW_LANES && w <= MEASURE_GROUP) rowLanes = MEASURE_GROUP;
    rows = MEASURE_GROUP / rowLanes;
    const int column = lane % rowLanes, rowOfStep = lane / rowLanes;
    const ivec2 least = box.xy;
    // measure_terms.hpp's mediumRowWords and mediumBandRows.
    rowWords = (w + 4 + 31) / 32 + 1;  // a word past the last bit's for bitsAt
    const int bandRows = MEDIUM_BAND_WORDS / rowWords - 4;
    for (int k = lane; k < RECORD_WORDS; k += MEASURE_GROUP) groupRecord[k] = 0u;

#ifdef GATHER_MOMENTS
    uvec2 moments[MOMENT_TERMS];
    for (int t = 0; t < MOMENT_TERMS; ++t) moments[t] = uvec2(0u);
    // A box at most rowLanes wide gives an invocation one column, lx =
    // column: its moment sums are lx^a times its sums of ly^b, which it
    // adds up an element at a time and multiplies once at the end, rather
    // than taking every row's 16 products.
    const bool oneColumn = w <= rowLanes;
    uint rowPowers[4] = uint[4](0u, 0u, 0u, 0u);
#endif
    ElementSums e = noElements();
    // The box's rows in bands, past the last row too (the windows whose far
    // corner is on row h).
    for (int first = 0; first <= h; first += bandRows) {
        const int past = min(first + bandRows, h + 1);
        loadBand(first, past, least, w, h, label);
        // A step: the elements of rows least.y + step .. + rows - 1, this
        // invocation's row y's (s < h), and the windows whose far corner is
        // on them (s <= h, the row past the box's last too).
        for (int step = first; step < past; step += rows) {
            const int s = step + rowOfStep, y = least.y + s;
            if (s >= past) continue;  // no barrier in the band's walk
            const int above = bandRow(y - 1), here = bandRow(y);
            uint powers[4] = uint[4](0u, 0u, 0u, 0u);
            const uint ly = uint(s);
            const uint lyPower[4] = uint[4](1u, ly, ly * ly, ly * ly * ly);
            const int below = bandRow(y + 1);
            // Column c: the window whose far corner is (least.x + c, y), c =
            // 0 .. w (on rows s <= h, the row past the box's last too), and
            // the element there (c < w, s < h).
            for (int c = column; c <= (listed ? w : -1); c += rowLanes) {
                // Rows y's and y - 1's columns c - 2 .. c + 2 (bits 0..4; the
                // element's bit 2): c's bit in a band's row is c + 2.
                const uint middle = bitsAt(here, c) & 31u;
                const uint up = bitsAt(above, c) & 31u;
#if defined(GATHER_CROFTON) || defined(GATHER_EULER)
                addWindow(e, (middle >> 2u & 1u) | (up >> 2u & 1u) << 1u | (middle >> 1u & 1u) << 2u |
                                 (up >> 1u & 1u) << 3u);
#endif
                if (c >= w || s >= h || (middle & 4u) == 0u) continue;
                const ivec2 p = ivec2(least.x + c, y);
                const uint lx = uint(c);
#ifdef GATHER_MOMENTS
                if (oneColumn) {
                    for (int e = 0; e < 4; ++e) rowPowers[e] += lyPower[e];
                } else {
                    const uint power[4] = uint[4](1u, lx, lx * lx, lx * lx * lx);
                    for (int e = 0; e < 4; ++e) powers[e] += power[e];
                }
#endif
#ifdef GATHER_PERIMETER
                // A border element has a 4-neighbour outside the region (or
                // outside the image, whose bits are 0): rows y - 1 .. y + 1
                // settle whether it is one, and only a border element reads
                // rows y - 2 and y + 2 for its class (most of a region's
                // elements are inside it).
                const uint down = bitsAt(below, c) & 31u;
                if ((up & down & 4u) == 0u || (middle & 10u) != 10u)
                    addBorder(e, (bitsAt(bandRow(y - 2), c) & 31u) | up << 5u | middle << 10u | down << 15u |
                                     (bitsAt(bandRow(y + 2), c) & 31u) << 20u);
#endif
                addSample(e, p);
            }
#ifdef GATHER_MOMENTS
            // TermRequest::exponents' order: y, then x. Each product is part
            // of its term's sum, below 2^56.
            if (!oneColumn && s < h) {
                int term = 0;
                for (int ey = 0; ey <= 3; ++ey)
                    for (int ex = 0; ex <= 3; ++ex) {
                        if (MOMENT_LEVEL != 4 && ex + ey > MOMENT_LEVEL) continue;
                        moments[term] = add64(moments[term], product64(powers[ex], lyPower[ey]));
                        ++term;
                    }
            }
#endif
        }
        memoryBarrierShared();
        barrier();  // the band's rows read: the next band's zeroes them
    }

#ifdef GATHER_MOMENTS
    if (oneColumn) {
        const uint lx = uint(column);
        const uint lxPower[4] = uint[4](1u, lx, lx * lx, lx * lx * lx);
        int term = 0;
        for (int ey = 0; ey <= 3; ++ey)
            for (int ex = 0; ex <= 3; ++ex) {
                if (MOMENT_LEVEL != 4 && ex + ey > MOMENT_LEVEL) continue;
                moments[term] = product64(lxPower[ex], rowPowers[ey]);
                ++term;
            }
    }
    uint at = uint(MOMENTS_AT);
    int term = 0;
    for (int ey = 0; ey <= 3; ++ey)
        for (int ex = 0; ex <= 3; ++ex) {
            if (MOMENT_LEVEL != 4 && ex + ey > MOMENT_LEVEL) continue;
            const int limbs = termLimbs(ex + ey, false);
            addGroupWide(at, uvec3(moments[term], 0u), limbs);
            at += uint(limbs);
            ++term;
        }
#endif
    storeElements(e);
#ifdef GATHER_POSITIONS
    memoryBarrierShared();
    barrier();  // the extrema, complete
    storePositions(e);
#endif
    memoryBarrierShared();
    barrier();  // the group's record, complete
    const uint record = r * uint(RECORD_WORDS);
    if (listed)
        for (int k = lane; k < RECORD_WORDS; k += MEASURE_GROUP) totals[record + uint(k)] = groupRecord[k];
}

void main() {
#ifdef MEDIUM_STRIPS
    // The groups past the listed regions' walk the narrow ones.
    const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (group >= mediumRegions) {
        measureNarrow(group - mediumRegions);
        return;
    }
    measureByStrips(group);
#else
    measureMedium();
#endif
}

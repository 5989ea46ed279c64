// measure_terms: the element terms of every region, its moments (sums of
// powers of coordinates local to its box), its perimeter's border elements
// by class, and of an integer intensity its sum, sum of squares, extrema
// and weighted moments, added into `totals` (measure_common.glsl).
// measure_extrema finds the extrema's first positions after it.
//
// An invocation walks MEASURE_SEGMENT elements along the last axis (an
// image's column x, a volume's (x, y) line along z: measure_common.glsl's
// thisPillar) and sums the run of each label it meets on the way
// (background, and labels of other batches, between elements of one label
// do not end a run), so that a region's totals take one atomic add per run
// and term, not one per element:
//
//   x:   .   3   3   .   5   5        one invocation's segment down column x,
//   y:   0   1   2   3   4   5        runs of 3 (y = 1..2) and 5 (y = 4..5)
//
// Regions measured alone (measure_small.comp) are skipped as background
// is: a large region's run goes on past the small regions it surrounds.
// A hot region's runs go into one of its replicas, chosen by segment, so
// that the invocations flushing it at once add to different words; hot
// region 0's moments go into the work group's share in shared memory
// first (groupShare).
//
// With the perimeter, an element's class needs the labels of columns
// x-2 .. x+2 around it (measure_classes.glsl's windowPerimeterClass),
// which the walk keeps in registers as rows y-2 .. y+2, shifted a row a
// step: each step loads row y+2 alone, its column x's label (read a step
// ahead) and its other 4 where one of elements y+1 .. y+3 of column x is
// labeled (1 label a step through the background, 5 elsewhere).
//
// With FOREGROUND_CONNECTED (an image's binary labeling at 8-connectivity:
// TermGatherer::setForegroundConnected) the rows are kept as the
// foreground's bits instead, which are the region's wherever the classes
// read them.
//
// With those rows at hand (TERMS_WINDOWS: an image's perimeter asked with
// its Euler number or Crofton perimeter), the walk counts the 2x2 windows
// too, in place of measure_windows' pass over the image: each window of a
// region counts at the region's element of its lowest bit
// (measure_classes.glsl's order), so that it counts once. An element p
// is in the four windows whose far corners are p + (cx, cy), cx and cy 0
// or 1, and holds bit 2 cx + cy of each.

#include "measure_classes.glsl"

layout(local_size_x = MEASURE_GROUP) in;

// The work group's share of hot region 0's moment sums (TermGatherer
// lists the batch's largest hot region first), which its invocations' runs
// add into in shared memory and the group adds into one replica once, at
// the end: a run's flush of the one region that nearly every segment
// crosses (a noisy image's, a porous volume's) takes no atomic in global
// memory for its moments, the words most of its record. In a volume, a
// group whose lines are all of one row y adds the region's runs as 16
// sums of lx^ex lz^ez (rowSums) and multiplies them by ly^ey once at its
// end, in place of a run's 64 terms.
shared uint groupShare[RECORD_WORDS];

#if DIMENSIONS == 3 && defined(GATHER_MOMENTS)
// Where the group's invocations all walk lines of one row y (groupRow), hot
// region 0's runs add their sums of lx^ex lz^ez into rowSums (term ez 4 +
// ex, LIMBS limbs each), 16 sums where each run took 64 terms; the group
// multiplies them by ly^ey at its end, ly being one for the whole group
// (rowLy: ly + 1, 0 where no run of the region came).
shared uint rowSums[16 * LIMBS];
shared uint rowLy;
bool groupRow = false;

// addWideInto's carries into rowSums. A copy of them rather than a third
// destination of addWideInto: a destination chosen by a value, even one
// constant at every call, made the image's walk an eighth slower.
void addRowWide(uint at, uint v[LIMBS]) {
    uint carry = 0u;
    for (int k = 0; k < LIMBS; ++k) {
        const uint addend = v[k] + carry;
        carry = addend < carry ? 1u : 0u;
        if (addend != 0u) {
            const uint before = atomicAdd(rowSums[at + uint(k)], addend);
            carry += before + addend < before ? 1u : 0u;
        }
    }
}

#endif

// atomicAdd into the group's share (`share`; `at` a word of the record) or
// into `totals`.
uint addInto(bool share, uint at, uint v) { return share ? atomicAdd(groupShare[at], v) : atomicAdd(totals[at], v); }

// measure_common.glsl's addWide (its carries), into the group's share or
// into `totals`.
void addWideInto(bool share, uint at, uint v[LIMBS], int limbs) {
    uint carry = 0u;
    for (int k = 0; k < LIMBS; ++k) {
        if (k >= limbs) break;
        const uint addend = v[k] + carry;
        carry = addend < carry ? 1u : 0u;
        if (addend != 0u) {
            const uint before = addInto(share, at + uint(k), addend);
            carry += before + addend < before ? 1u : 0u;
        }
    }
}

#if defined(GATHER_PERIMETER) && defined(FOREGROUND_CONNECTED)
// Row y's columns x-2 .. x+2 that are foreground (labelled), a bit each
// (windowPerimeterClass's bits of one row), 0 outside the image.
uint foregroundBits(int x, int y) {
    return uint(labelAt(ivec2(x - 2, y)) != 0u) | uint(labelAt(ivec2(x - 1, y)) != 0u) << 1u |
           uint(labelAt(ivec2(x, y)) != 0u) << 2u | uint(labelAt(ivec2(x + 1, y)) != 0u) << 3u |
           uint(labelAt(ivec2(x + 2, y)) != 0u) << 4u;
}
#endif

#ifdef GATHER_PERIMETER
// The labels of columns x-2 .. x+2 of one row, 0 outside the image as
// labelAt reads them.
struct Row {
    uint c0, c1, c2, c3, c4;
};

Row rowAt(int x, int y) {
    return Row(labelAt(ivec2(x - 2, y)), labelAt(ivec2(x - 1, y)), labelAt(ivec2(x, y)), labelAt(ivec2(x + 1, y)),
               labelAt(ivec2(x + 2, y)));
}

// The row's columns in `label`, a bit each (windowPerimeterClass's bits of
// row dy = -2).
uint insideBits(Row r, uint label) {
    return uint(r.c0 == label) | uint(r.c1 == label) << 1u | uint(r.c2 == label) << 2u |
           uint(r.c3 == label) << 3u | uint(r.c4 == label) << 4u;
}
#endif

// One run's sums: of j^e (e = 0..3, j its element's offset from its first
// along the walk axis), its border elements of each perimeter class; of the
// intensity I, the sums of I, I^2 and I lw^e (lw the element's coordinate
// local to the box; 64 and 96 bits: a run is at most MEASURE_SEGMENT
// elements) and the extrema. j is below MEASURE_SEGMENT (at most 256), so
// that the sums of j^3 fit 32 bits and an element adds four words, not
// four 64-bit pairs; the flush moves them to the box's origin once.
struct Run {
    uint label;
    uint record;  // where its sums go: the region's record or a replica of it
    bool share;   // hot region 0's: its moments go into the group's share
    PixelCoord origin;  // the region's box's least corner
    int first;          // its first element's walk-axis coordinate
    uint powers[4];     // the sums of j^e
    uvec3 perimeter;
#ifdef TERMS_WINDOWS
    int euler;      // 4 times the windows' share of its Euler number
    uvec3 crofton;  // its windows by Crofton class, 16 bits each: classes 0, 1 in x, 2, 3 in y, 4 in z
#endif
    uvec2 sum;
    uvec3 squares;
    uvec3 weighted[4];
    uint least, most;
};

// The run's sums of lw^e (lw = j + d, d its first element's coordinate local
// to the box, below 2^15: a GL engine's side is at most 32768) from its sums
// of j^e, by the binomial expansion; each product below 2^64.
struct BoxPowers {
    uvec2 p0, p1, p2, p3;
};

BoxPowers boxPowers(Run run) {
    const uint n = run.powers[0], s1 = run.powers[1], s2 = run.powers[2], s3 = run.powers[3];
    const uint d = uint(run.first - run.origin[WALK_AXIS]);
    const uint d2 = d * d;
    BoxPowers p;
    p.p0 = uvec2(n, 0u);
    p.p1 = add64(uvec2(s1, 0u), product64(d, n));
    p.p2 = add64(add64(uvec2(s2, 0u), product64(2u * d, s1)), product64(d2, n));
    p.p3 = add64(add64(uvec2(s3, 0u), product64(3u * d, s2)), add64(product64(d2, 3u * s1), product64(d2, d * n)));
    return p;
}

// A run's sum of lw^e for e known only at run time (the flush's loops over
// the terms do not unroll), chosen among registers: an array indexed at
// run time would go to local memory.
uvec2 runPowers(BoxPowers p, int e) { return e == 0 ? p.p0 : e == 1 ? p.p1 : e == 2 ? p.p2 : p.p3; }

// A run's power sum, times a^ea b^eb (its fixed local coordinates' powers),
// into the wide sum of `limbs` at totals[at].
void addScaled(bool share, uint at, int limbs, uvec3 powerSum, uint a, int ea, uint b, int eb) {
    uint sum[LIMBS];
    for (int k = 0; k < LIMBS; ++k) sum[k] = k < 3 ? powerSum[k] : 0u;
    for (int i = 0; i < ea; ++i) multiplyWide(sum, a);
    for (int i = 0; i < eb; ++i) multiplyWide(sum, b);
    addWideInto(share, at, sum, limbs);
}

#if DIMENSIONS == 3 && defined(GATHER_MOMENTS)
// A run of hot region 0 into rowSums: its sums of lz^ez (`p`) times lx^ex.
void addRowRun(BoxPowers p, uint lx, uint ly) {
    atomicMax(rowLy, ly + 1u);
    for (int ez = 0; ez <= 3; ++ez) {
        if (MOMENT_LEVEL != 4 && ez > MOMENT_LEVEL) break;
        const uvec2 walk = runPowers(p, ez);
        uint term[LIMBS];
        for (int k = 0; k < LIMBS; ++k) term[k] = k < 2 ? walk[k] : 0u;
        for (int ex = 0; ex <= 3; ++ex) {
            if (MOMENT_LEVEL != 4 && ex + ez > MOMENT_LEVEL) break;
            if (ex > 0) multiplyWide(term, lx);
            addRowWide(uint(ez * 4 + ex) * uint(LIMBS), term);
        }
    }
}
#endif

#if DIMENSIONS == 3
// A volume run's moment sums into the wide sums from `at` on (of the group's
// share where `share`), from its sums of lz^e `p` and its fixed lx, ly, in
// TermRequest::exponents' order: z slowest, then y, then x. Each term is the
// one before it along x (along y) times lx (ly): a multiplication a term,
// where scaling each by lx^ex ly^ey takes as many as its degree. An image's
// 16 terms keep that form (addScaled), which took less time there.
void addVolumeRunMoments(bool share, uint at, BoxPowers p, uint lx, uint ly) {
    for (int ez = 0; ez <= 3; ++ez) {
        if (MOMENT_LEVEL != 4 && ez > MOMENT_LEVEL) break;
        const uvec2 walk = runPowers(p, ez);
        uint across[LIMBS];  // the sum of lz^ez times ly^ey, as ey steps
        for (int k = 0; k < LIMBS; ++k) across[k] = k < 2 ? walk[k] : 0u;
        for (int ey = 0; ey <= 3; ++ey) {
            if (MOMENT_LEVEL != 4 && ey + ez > MOMENT_LEVEL) break;
            if (ey > 0) multiplyWide(across, ly);
            uint term[LIMBS] = across;
            for (int ex = 0; ex <= 3; ++ex) {
                if (MOMENT_LEVEL != 4 && ex + ey + ez > MOMENT_LEVEL) break;
                if (ex > 0) multiplyWide(term, lx);
                const int limbs = termLimbs(ex + ey + ez, false);
                addWideInto(share, at, term, limbs);
                at += uint(limbs);
            }
        }
    }
}
#endif

// A run of `label` (0: none), whose box's least corner is box.xyz, of
// the invocation that takes replica `slot` of hot regions.
Run startRun(uint label, ivec4 box, uint slot, int first) {
    Run run;
    run.label = label;
    run.first = first;
    run.record = box.w < 0 ? replicaOf(uint(-1 - box.w), slot) : recordOf(label);
    run.share = box.w == -1;
#if DIMENSIONS == 3
    run.origin = box.xyz;
#else
    run.origin = box.xy;
#endif
    for (int e = 0; e < 4; ++e) {
        run.powers[e] = 0u;
        run.weighted[e] = uvec3(0u);
    }
    run.perimeter = uvec3(0u);
#ifdef TERMS_WINDOWS
    run.euler = 0;
    run.crofton = uvec3(0u);
#endif
    run.sum = uvec2(0u);
    run.squares = uvec3(0u);
    run.least = 0xffffffffu;
    run.most = 0u;
    return run;
}

// The run's sums into its region's totals; `at` is on the run's line (its
// walk-axis coordinate unused).
void flush(Run run, PixelCoord at) {
    if (run.label == 0u) return;
    const uint record = run.record;
    // The run's fixed coordinates, local to its box: lx, and in 3-D ly.
    const uint lx = uint(at.x - run.origin.x);
#if DIMENSIONS == 3
    const uint ly = uint(at.y - run.origin.y);
    const int zMax = 3;
#else
    const uint ly = 0u;
    const int zMax = 0;
#endif
#ifdef GATHER_MOMENTS
    const BoxPowers powers = boxPowers(run);
    const uint momentAt = (run.share ? 0u : record) + uint(MOMENTS_AT);
#if DIMENSIONS == 3
    if (run.share && groupRow) addRowRun(powers, lx, ly);
    else addVolumeRunMoments(run.share, momentAt, powers, lx, ly);
#else
    // TermRequest::exponents' order: y, then x. The walk axis' exponent
    // picks the run's power sum, lx^ex scales it.
    uint termAt = momentAt;
    for (int ey = 0; ey <= 3; ++ey)
        for (int ex = 0; ex <= 3; ++ex) {
            if (MOMENT_LEVEL != 4 && ex + ey > MOMENT_LEVEL) continue;
            const int limbs = termLimbs(ex + ey, false);
            addScaled(run.share, termAt, limbs, uvec3(runPowers(powers, ey), 0u), lx, ex, 0u, 0);
            termAt += uint(limbs);
        }
#endif
#endif
#ifdef GATHER_WEIGHTED
    uint weightedAt = record + uint(WEIGHTED_AT);
    for (int ez = 0; ez <= zMax; ++ez)
        for (int ey = 0; ey <= 3; ++ey)
            for (int ex = 0; ex <= 3; ++ex) {
                if (WEIGHTED_LEVEL != 4 && ex + ey + ez > WEIGHTED_LEVEL) continue;
                const int limbs = termLimbs(ex + ey + ez, true);
#if DIMENSIONS == 3
                addScaled(false, weightedAt, limbs, run.weighted[ez], lx, ex, ly, ey);
#else
                addScaled(false, weightedAt, limbs, run.weighted[ey], lx, ex, 0u, 0);
#endif
                weightedAt += uint(limbs);
            }
#endif
#ifdef GATHER_SUMS
    addScaled(false, record + uint(SUM_AT), SUM_LIMBS, uvec3(run.sum, 0u), 0u, 0, 0u, 0);
    addScaled(false, record + uint(SQUARES_AT), SQUARES_LIMBS, run.squares, 0u, 0, 0u, 0);
#endif
#ifdef GATHER_EXTREMA
    atomicMax(totals[record + uint(EXTREMA_AT)], ~run.least);
    atomicMax(totals[record + uint(EXTREMA_AT + 1)], run.most);
#endif
#ifdef GATHER_PERIMETER
    for (int c = 0; c < 3; ++c)
        if (run.perimeter[c] != 0u) atomicAdd(totals[record + uint(PERIMETER_AT + c)], run.perimeter[c]);
#endif
#ifdef TERMS_WINDOWS
#ifdef GATHER_EULER
    addSigned64(record + uint(EULER_AT), run.euler);
#endif
#ifdef GATHER_CROFTON
    for (int c = 0; c < 5; ++c) {
        const uint n = (run.crofton[c >> 1] >> uint(16 * (c & 1))) & 0xffffu;
        if (n != 0u) atomicAdd(totals[record + uint(CROFTON_AT + c)], n);
    }
#endif
#endif
}

#ifdef TERMS_WINDOWS
// Whether p + (dx, dy) is in p's region, of `inside` as windowPerimeterClass
// reads it.
uint insideAt(uint inside, int dx, int dy) { return (inside >> uint(5 * (dy + 2) + dx + 2)) & 1u; }

// The windows that count at element p, of `inside` (|dx|, |dy| <= 1 read),
// into its run: the window with far corner p + (cx, cy) where none of its
// bits below p's (2 cx + cy) is in the region.
void addWindows(inout Run run, uint inside) {
    for (int c = 0; c < 4; ++c) {
        const int cx = c >> 1, cy = c & 1;
        const uint config = insideAt(inside, cx, cy) | insideAt(inside, cx, cy - 1) << 1u |
                            insideAt(inside, cx - 1, cy) << 2u | insideAt(inside, cx - 1, cy - 1) << 3u;
        if ((config & ((1u << uint(c)) - 1u)) != 0u) continue;
#ifdef GATHER_EULER
        run.euler += eulerTimesPacked(config);
#endif
#ifdef GATHER_CROFTON
        const int k = croftonClass(config);
        if (k >= 0) run.crofton += uvec3(equal(ivec3(k >> 1), ivec3(0, 1, 2))) << uint(16 * (k & 1));
#endif
    }
}
#endif

// The segment from `line` on, of the invocation that takes replica `slot`
// of hot regions.
void walk(PixelCoord line, uint slot) {
    const int w0 = line[WALK_AXIS];
    const int w1 = min(w0 + MEASURE_SEGMENT, imageSize[WALK_AXIS]);
    Run run = startRun(0u, ivec4(0), slot, w0);
    uint skipped = 0u;  // the region measured alone met last: no box read for it again
#if defined(GATHER_PERIMETER) && defined(FOREGROUND_CONNECTED)
    // Labels of a binary labeling at 8-connectivity: two 8-adjacent
    // foreground elements are of one region, so every element the classes
    // read (p's 3x3 neighbours, and the 4-neighbours of those in p's region)
    // is in p's region exactly where it is foreground. The walk keeps rows
    // y-2 .. y+2 as one word of those bits (windowPerimeterClass's), shifted
    // a row a step, and the labels of column x at y .. y+3: no label of the
    // 5x5 window is compared with the region's, and 5 registers hold what
    // the rows' 25 labels held.
    const int x = line.x;
    uint fg = foregroundBits(x, w0 - 2) << 5u | foregroundBits(x, w0 - 1) << 10u | foregroundBits(x, w0) << 15u |
              foregroundBits(x, w0 + 1) << 20u;
    uint here = 0u, next = labelAt(ivec2(x, w0)), next2 = labelAt(ivec2(x, w0 + 1));
    uint ahead = labelAt(ivec2(x, w0 + 2));
#elif defined(GATHER_PERIMETER)
    // Rows y-2 .. y+2 once the step at y has shifted them in, and the label
    // of column x at y+3.
    const int x = line.x;
    Row r0, r1 = rowAt(x, w0 - 2), r2 = rowAt(x, w0 - 1), r3 = rowAt(x, w0), r4 = rowAt(x, w0 + 1);
    uint ahead = labelAt(ivec2(x, w0 + 2));
#endif
    for (int w = w0; w < w1; ++w) {
        PixelCoord p = line;
        p[WALK_AXIS] = w;
#if defined(GATHER_PERIMETER) && defined(FOREGROUND_CONNECTED)
        here = next;
        next = next2;
        next2 = ahead;
        ahead = labelAt(ivec2(x, w + 3));
        // Row y+2's columns other than x as measure_terms reads them below:
        // 0 where elements y+1 .. y+3 of column x are background.
        uint front = uint(next2 != 0u) << 2u;
        if (w + 2 < imageSize.y && (next | next2 | ahead) != 0u)
            front |= uint(labelAt(ivec2(x - 2, w + 2)) != 0u) | uint(labelAt(ivec2(x - 1, w + 2)) != 0u) << 1u |
                     uint(labelAt(ivec2(x + 1, w + 2)) != 0u) << 3u | uint(labelAt(ivec2(x + 2, w + 2)) != 0u) << 4u;
        fg = fg >> 5u | front << 20u;
        const uint label = here;
#elif defined(GATHER_PERIMETER)
        r0 = r1;
        r1 = r2;
        r2 = r3;
        r3 = r4;
        r4 = Row(0u, 0u, ahead, 0u, 0u);
        ahead = labelAt(ivec2(x, w + 3));
        // Row y+2's columns other than x are in the windows of elements
        // y .. y+4. Elements y and y+4 read them only to tell whether
        // (x-1, y+1), (x+1, y+1), (x-1, y+3) and (x+1, y+3) are border
        // elements, which those of their region are anyway where (x, y+1)
        // and (x, y+3) are background. So where elements y+1 .. y+3 are
        // background, no element measured reads them: they stay 0.
        if (w + 2 < imageSize.y && (r3.c2 | r4.c2 | ahead) != 0u) {
            r4.c0 = labelAt(ivec2(x - 2, w + 2));
            r4.c1 = labelAt(ivec2(x - 1, w + 2));
            r4.c3 = labelAt(ivec2(x + 1, w + 2));
            r4.c4 = labelAt(ivec2(x + 2, w + 2));
        }
        const uint label = r2.c2;
#else
        const uint label = imageLoad(labelImage, p).r;
#endif
        if (!inBatch(label) || label == skipped) continue;
        if (label != run.label) {
            const ivec4 box = boxOf(label);
            if (box.w > 0) {  // measured alone
                skipped = label;
                continue;
            }
            flush(run, line);
            run = startRun(label, box, slot, w);
        }
#ifdef GATHER_MOMENTS
        const uint j = uint(w - run.first);
        const uint j2 = j * j;
        run.powers[0] += 1u;
        run.powers[1] += j;
        run.powers[2] += j2;
        run.powers[3] += j2 * j;
#endif
#ifdef GATHER_INTENSITY
        const uint value = sampleAt(p);
#endif
#ifdef GATHER_SUMS
        run.sum = add64(run.sum, uvec2(value, 0u));
        run.squares = add96(run.squares, multiply64(uvec2(value, 0u), value));
#endif
#ifdef GATHER_EXTREMA
        run.least = min(run.least, value);
        run.most = max(run.most, value);
#endif
#ifdef GATHER_WEIGHTED
        // lw < 2^15: lw^2 fits 32 bits, lw^3 takes a (low, high) pair.
        const uint lw = uint(w - run.origin[WALK_AXIS]);
        const uvec2 power[4] = uvec2[4](uvec2(1u, 0u), uvec2(lw, 0u), uvec2(lw * lw, 0u), product64(lw * lw, lw));
        for (int e = 0; e < 4; ++e) run.weighted[e] = add96(run.weighted[e], multiply64(power[e], value));
#endif
#if defined(GATHER_PERIMETER) && defined(FOREGROUND_CONNECTED)
        // As below, from the foreground's bits.
        const bool border = (fg & kEdgeBits) != kEdgeBits;
#ifdef TERMS_WINDOWS
        const uint kEight = kEdgeBits | kCornerBits;
        const bool edge = (fg & kEight) != kEight;
#else
        const bool edge = border;
#endif
        if (edge) {
            if (border) {
                const int c = windowPerimeterClass(fg);
                run.perimeter += uvec3(equal(ivec3(c), ivec3(0, 1, 2)));
            }
#ifdef TERMS_WINDOWS
            addWindows(run, fg);
#endif
        }
#elif defined(GATHER_PERIMETER)
        // A border element (a 4-neighbour outside the region); with the
        // windows, one with any of its 8 neighbours outside.
        const bool border = r2.c1 != label || r2.c3 != label || r1.c2 != label || r3.c2 != label;
#ifdef TERMS_WINDOWS
        const bool edge = border || r1.c1 != label || r1.c3 != label || r3.c1 != label || r3.c3 != label;
#else
        const bool edge = border;
#endif
        if (edge) {
            const uint inside = insideBits(r0, label) | insideBits(r1, label) << 5u | insideBits(r2, label) << 10u |
                                insideBits(r3, label) << 15u | insideBits(r4, label) << 20u;
            if (border) {
                const int c = windowPerimeterClass(inside);
                run.perimeter += uvec3(equal(ivec3(c), ivec3(0, 1, 2)));  // not perimeter[c]: indexed at run time
            }
#ifdef TERMS_WINDOWS
            addWindows(run, inside);
#endif
        }
#endif
    }
    flush(run, line);
}

#ifdef GATHER_MOMENTS
// The moment term holding word k of the record's moments (0: the first
// word of the first term): the end of its limbs, a word past its last.
uint momentTermEnd(uint k) {
    uint at = 0u;
    for (int ez = 0; ez <= (DIMENSIONS == 3 ? 3 : 0); ++ez)
        for (int ey = 0; ey <= 3; ++ey)
            for (int ex = 0; ex <= 3; ++ex) {
                if (MOMENT_LEVEL != 4 && ex + ey + ez > MOMENT_LEVEL) continue;
                at += uint(termLimbs(ex + ey + ez, false));
                if (k < at) return at;
            }
    return at;
}
#endif

void main() {
    PixelCoord line;
    uint slot;  // neighbouring segments take different replicas
    const bool walks = thisPillar(line, slot);
#ifdef GATHER_MOMENTS
    const uint lane = gl_LocalInvocationID.x;
    for (uint k = lane; k < uint(RECORD_WORDS); k += uint(MEASURE_GROUP)) groupShare[k] = 0u;
#if DIMENSIONS == 3
    for (uint k = lane; k < uint(16 * LIMBS); k += uint(MEASURE_GROUP)) rowSums[k] = 0u;
    if (lane == 0u) rowLy = 0u;
    {
        // The group's lines one row y: its first and last invocations' rows alike.
        const uint groupFirst = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * uint(MEASURE_GROUP);
        const uint groupLast = min(groupFirst + uint(MEASURE_GROUP), segments) - 1u;
        groupRow = groupFirst < segments && groupFirst / walkColumns == groupLast / walkColumns;
    }
#endif
    memoryBarrierShared();
    barrier();
#endif
    if (walks) walk(line, slot);
#ifdef GATHER_MOMENTS
    memoryBarrierShared();
    barrier();  // the group's runs flushed
#if DIMENSIONS == 3
    if (rowLy != 0u) {
        // rowSums times ly^ey into the share's terms, a term an invocation.
        const uint ly = rowLy - 1u;
        uint at = uint(MOMENTS_AT), t = 0u;
        for (int ez = 0; ez <= 3; ++ez)
            for (int ey = 0; ey <= 3; ++ey)
                for (int ex = 0; ex <= 3; ++ex) {
                    if (MOMENT_LEVEL != 4 && ex + ey + ez > MOMENT_LEVEL) continue;
                    const int limbs = termLimbs(ex + ey + ez, false);
                    if (t % uint(MEASURE_GROUP) == lane) {
                        uint term[LIMBS];
                        for (int k = 0; k < LIMBS; ++k) term[k] = rowSums[uint(ez * 4 + ex) * uint(LIMBS) + uint(k)];
                        for (int i = 0; i < ey; ++i) multiplyWide(term, ly);
                        addWideInto(true, at, term, limbs);
                    }
                    at += uint(limbs);
                    ++t;
                }
        memoryBarrierShared();
        barrier();
    }
#endif
    // The share into one replica of hot region 0, a word an invocation: a
    // word whose add wraps carries into the words above it in its term.
    // A group no run of the region crossed adds nothing.
    const uint replica = replicaOf(0u, gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) + uint(MOMENTS_AT);
    const uint words = momentTermEnd(0xffffffffu);
    for (uint k = lane; k < words; k += uint(MEASURE_GROUP)) {
        const uint v = groupShare[uint(MOMENTS_AT) + k];
        if (v == 0u) continue;
        const uint before = atomicAdd(totals[replica + k], v);
        if (before + v >= before) continue;
        const uint end = momentTermEnd(k);
        for (uint j = k + 1u; j < end; ++j)
            if (atomicAdd(totals[replica + j], 1u) != 0xffffffffu) break;
    }
#endif
}

// measure_windows: the 2x2 (2x2x2) windows of every region, counted by
// Crofton class and summed into 4 (8) times its Euler number, added into
// `totals` (measure_common.glsl); the windows and their classes are
// measure_classes.glsl's. An invocation walks MEASURE_SEGMENT windows
// along the last axis (measure_common.glsl's thisPillar). Regions measured
// alone (measure_small.comp) are skipped. A window takes its back half
// from the window before it and loads its front one (2 labels, 4 in 3-D).
// With FOREGROUND_CONNECTED (labels of a labeling that joined every pair
// of adjacent foreground elements: binary, 8- or 26-connectivity) a
// window's foreground is one region's, and its labels are not sorted out.

#include "measure_classes.glsl"

layout(local_size_x = MEASURE_GROUP) in;

// The shares of the two regions met last, added up here and flushed into
// `totals` when a third one takes a slot or the segment ends: a region's
// border windows take one atomic add per segment, not one per window. A
// hot region's shares go into one of its replicas, chosen by segment, as
// measure_terms' runs do: a noisy image's largest region has border
// windows in nearly every segment, whose flushes would otherwise all add
// to the same word.
// Slot 0 holds the region met last. A slot's Crofton counts are bytes of
// a pair of words (classes 0..3 in x, 4 in y; a segment's MEASURE_SEGMENT
// windows count at most that many each), added to by shifts rather than
// by an index, which would put them in local memory.
uint slotLabel[2];
uint slotRecord[2];  // where the slot's shares go: its region's record or a replica of it
int slotEuler[2];
uvec2 slotCrofton[2];

void clearSlot(int s) {
    slotLabel[s] = 0u;
    slotEuler[s] = 0;
    slotCrofton[s] = uvec2(0u);
}

void flushSlot(int s) {
    if (slotLabel[s] == 0u) return;
    const uint record = slotRecord[s];
#ifdef GATHER_EULER
    addSigned64(record + uint(EULER_AT), slotEuler[s]);
#endif
#ifdef GATHER_CROFTON
    for (int c = 0; c < 5; ++c) {
        const uint count = c < 4 ? (slotCrofton[s].x >> uint(8 * c)) & 0xffu : slotCrofton[s].y;
        if (count != 0u) atomicAdd(totals[record + uint(CROFTON_AT + c)], count);
    }
#endif
    clearSlot(s);
}

void swapSlots() {
    const uint label = slotLabel[0];
    slotLabel[0] = slotLabel[1];
    slotLabel[1] = label;
    const uint record = slotRecord[0];
    slotRecord[0] = slotRecord[1];
    slotRecord[1] = record;
    const int euler = slotEuler[0];
    slotEuler[0] = slotEuler[1];
    slotEuler[1] = euler;
    const uvec2 crofton = slotCrofton[0];
    slotCrofton[0] = slotCrofton[1];
    slotCrofton[1] = crofton;
}

// Slot 0 for `label` (in neither slot), freed by flushing the region met
// least recently; its shares go to totals[record].
void takeSlot(uint label, uint record) {
    flushSlot(1);
    slotLabel[1] = label;
    slotRecord[1] = record;
    swapSlots();
}

// The label at position `at` of the window (selects over the positions).
uint labelAtBit(uint v[WINDOW], int at) {
    uint label = v[0];
    for (int j = 1; j < WINDOW; ++j) label = at == j ? v[j] : label;
    return label;
}

void main() {
    PixelCoord corner;
    uint index;
    if (!thisPillar(corner, index)) return;
    const int w0 = corner[WALK_AXIS];
    const int w1 = min(w0 + MEASURE_SEGMENT, imageSize[WALK_AXIS] + 1);
    clearSlot(0);
    clearSlot(1);
    uint skipped = 0u;  // the region measured alone met last: no box read for it again
    // The front half of the window before the first.
    PixelCoord before = corner;
    before[WALK_AXIS] = w0 - 1;
    uvec4 front = windowFront(before);
    for (int w = w0; w < w1; ++w) {
        PixelCoord p = corner;
        p[WALK_AXIS] = w;
        uint v[WINDOW];
        putFront(v, front, true);
        front = windowFront(p);
        putFront(v, front, false);
        // Each region of the batch in the window once, at its first element:
        // positions taken lowest first, a region's config (its elements'
        // bits) cleared from those left, so no array is indexed at run time.
#ifdef FOREGROUND_CONNECTED
        // Labels of a labeling that joined every pair of adjacent foreground
        // elements: a window's foreground is one region's, its
        // configuration the foreground's bits.
        uint config = 0u;
        for (int j = 0; j < WINDOW; ++j) config |= v[j] != 0u ? 1u << uint(j) : 0u;
        if (config == 0u || config == FULL_WINDOW) continue;  // background, or inside the region
        {
            const uint label = labelAtBit(v, findLSB(config));
            if (!inBatch(label)) continue;
#else
        uint left = 0u;
        for (int i = 0; i < WINDOW; ++i) left |= inBatch(v[i]) ? 1u << uint(i) : 0u;
        while (left != 0u) {
            const uint label = labelAtBit(v, findLSB(left));
            uint config = 0u;
            for (int j = 0; j < WINDOW; ++j) config |= v[j] == label ? 1u << uint(j) : 0u;
            left &= ~config;
            if (config == FULL_WINDOW) break;  // inside the region: no Crofton or Euler share
#endif
            if (label == skipped) continue;
            // A region in a slot is known not to be measured alone: no box read.
            const bool held = label == slotLabel[0] || label == slotLabel[1];
            ivec4 box = ivec4(0);
            if (!held) {
                box = boxOf(label);
                if (box.w > 0) {  // measured alone
                    skipped = label;
                    continue;
                }
            }
#ifdef GATHER_CROFTON
            const int c = croftonClass(config);
#else
            const int c = -1;
#endif
#ifdef GATHER_EULER
            const int euler = eulerTimes(config);
#else
            const int euler = 0;
#endif
            if (c < 0 && euler == 0) continue;
            if (!held) takeSlot(label, box.w < 0 ? replicaOf(uint(-1 - box.w), index) : recordOf(label));
            else if (slotLabel[0] != label) swapSlots();
            slotEuler[0] += euler;
#ifdef GATHER_CROFTON
            if (c >= 0) slotCrofton[0] += c < 4 ? uvec2(1u << uint(8 * c), 0u) : uvec2(0u, 1u);
#endif
        }
    }
    flushSlot(0);
    flushSlot(1);
}

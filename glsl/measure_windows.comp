// measure_windows: the 2x2 (2x2x2) windows of every region, counted by
// Crofton class and summed into 4 (8) times its Euler number, added into
// `totals` (measure_common.glsl); the windows and their classes are
// measure_classes.glsl's. An invocation walks MEASURE_SEGMENT windows
// along the last axis (measure_common.glsl's thisPillar). Regions measured
// alone (measure_small.comp) are skipped. A window takes its back half
// from the window before it and loads its front one (2 labels, 4 in 3-D).

#include "measure_classes.glsl"

layout(local_size_x = MEASURE_GROUP) in;

// The shares of the two regions met last, added up here and flushed into
// `totals` when a third one takes a slot or the segment ends: a region's
// border windows take one atomic add per segment, not one per window.
// Slot 0 holds the region met last.
uint slotLabel[2];
int slotEuler[2];
uint slotCrofton[2 * 5];

void clearSlot(int s) {
    slotLabel[s] = 0u;
    slotEuler[s] = 0;
    for (int c = 0; c < 5; ++c) slotCrofton[s * 5 + c] = 0u;
}

void flushSlot(int s) {
    if (slotLabel[s] == 0u) return;
    const uint record = recordOf(slotLabel[s]);
#ifdef GATHER_EULER
    addSigned64(record + uint(EULER_AT), slotEuler[s]);
#endif
#ifdef GATHER_CROFTON
    for (int c = 0; c < 5; ++c)
        if (slotCrofton[s * 5 + c] != 0u) atomicAdd(totals[record + uint(CROFTON_AT + c)], slotCrofton[s * 5 + c]);
#endif
    clearSlot(s);
}

void swapSlots() {
    const uint label = slotLabel[0];
    slotLabel[0] = slotLabel[1];
    slotLabel[1] = label;
    const int euler = slotEuler[0];
    slotEuler[0] = slotEuler[1];
    slotEuler[1] = euler;
    for (int c = 0; c < 5; ++c) {
        const uint count = slotCrofton[c];
        slotCrofton[c] = slotCrofton[5 + c];
        slotCrofton[5 + c] = count;
    }
}

// Slot 0 for `label`: found, or freed by flushing the region met least
// recently.
void takeSlot(uint label) {
    if (slotLabel[0] == label) return;
    if (slotLabel[1] != label) {
        flushSlot(1);
        slotLabel[1] = label;
    }
    swapSlots();
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
        for (int i = 0; i < WINDOW; ++i) {
            const uint label = v[i];
            if (!inBatch(label) || label == skipped) continue;
            // A region in a slot is known not to be measured alone: no box read.
            if (label != slotLabel[0] && label != slotLabel[1] && measuredAlone(label)) {
                skipped = label;
                continue;
            }
            bool earlier = false;
            for (int j = 0; j < i; ++j) earlier = earlier || v[j] == label;
            if (earlier) continue;
            uint config = 0u;
            for (int j = i; j < WINDOW; ++j) config |= v[j] == label ? 1u << uint(j) : 0u;
            if (config == FULL_WINDOW) break;  // inside the region: no Crofton or Euler share
#ifdef GATHER_CROFTON
            const int c = kCroftonClass[config];
#else
            const int c = -1;
#endif
#ifdef GATHER_EULER
            const int euler = eulerTimes(config);
#else
            const int euler = 0;
#endif
            if (c < 0 && euler == 0) continue;
            takeSlot(label);
            slotEuler[0] += euler;
#ifdef GATHER_CROFTON
            if (c >= 0) slotCrofton[c] += 1u;
#endif
        }
    }
    flushSlot(0);
    flushSlot(1);
}

// measure_windows: the 2x2 (2x2x2) windows of every region, counted by
// Crofton class and summed into 4 (8) times its Euler number, added into
// `totals` (measure_common.glsl). The windows are those of the cpu
// engine's accumulator (cpu/src/measure.cpp): one per grid vertex, its far
// corner (x, y, z) anywhere in 0..width, 0..height (0..depth), elements
// outside the image empty. A window's configuration, for one region, has a
// bit for each of its elements in that region:
//
//        x-1   x
//   y-1 [ 8 ][ 2 ]     slice z; slice z - 1 the same bits times 16
//   y   [ 4 ][ 1 ]
//
// An invocation walks MEASURE_SEGMENT windows of one row.

layout(local_size_x = MEASURE_GROUP) in;

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

#if DIMENSIONS == 3
#define WINDOW 8
#define FULL_WINDOW 255u
#else
#define WINDOW 4
#define FULL_WINDOW 15u
#endif

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
    const int x0 = int(gl_GlobalInvocationID.x) * MEASURE_SEGMENT;
    if (x0 > imageSize.x) return;
    const int x1 = min(x0 + MEASURE_SEGMENT, imageSize.x + 1);
#if DIMENSIONS == 3
    const ivec3 corner = ivec3(0, gl_GlobalInvocationID.y, gl_GlobalInvocationID.z);
#else
    const ivec2 corner = ivec2(0, gl_GlobalInvocationID.y);
#endif
    clearSlot(0);
    clearSlot(1);
    for (int x = x0; x < x1; ++x) {
        PixelCoord p = corner;
        p.x = x;
        uint v[WINDOW];
        PixelCoord up = p, left = p, upLeft = p;
        up.y -= 1;
        left.x -= 1;
        upLeft.xy -= ivec2(1);
        v[0] = labelAt(p);
        v[1] = labelAt(up);
        v[2] = labelAt(left);
        v[3] = labelAt(upLeft);
#if DIMENSIONS == 3
        const ivec3 back = ivec3(0, 0, 1);
        v[4] = labelAt(p - back);
        v[5] = labelAt(up - back);
        v[6] = labelAt(left - back);
        v[7] = labelAt(upLeft - back);
#endif
        for (int i = 0; i < WINDOW; ++i) {
            const uint label = v[i];
            if (!inBatch(label)) continue;
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

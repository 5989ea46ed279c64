// final_labels, for a volume on the node grid (DIMENSIONS 3): the sibling
// of final_labels.comp (local_merge_volume_grid.comp says for which
// volumes), a file of its own because its table has z fields and a thread
// takes nodes of several slices. Every voxel takes its component's number
// (compute_common.glsl, labelOfNode), background voxels 0, and the component
// table is summed on the way: boxes, voxel counts and exact coordinate sums,
// z included. One work group per label patch of LABEL_PATCH_W x
// LABEL_PATCH_H x LABEL_PATCH_D nodes: each thread labels LABEL_PATCH_D /
// LABEL_SLICES_PER_PASS nodes (threads of a node line write consecutive
// voxels) and keeps labels and masks in shared memory; then runs of
// TABLE_RUN nodes of one node line are added up in registers, meet in a
// small hash table in shared memory keyed by label, and each label of the
// label patch goes to the global table with one atomic per field (a label
// that finds no slot within TABLE_PROBES goes there directly).
//
// The front of a component is its first voxel's z, written once by its root;
// the other minimums are atomicMax of the inverted coordinate (zero is "none
// yet"). Sums are 64 bits as in 2-D: a low word and a high word that counts
// its wrap-arounds.
layout(local_size_x = LABEL_PATCH_W, local_size_y = LABEL_PATCH_H, local_size_z = LABEL_SLICES_PER_PASS) in;

layout(binding = NODE_INFO_IMAGE, r8ui) readonly uniform uimage3D nodeInfo;
layout(binding = LABELS_IMAGE, r32ui) writeonly uniform uimage3D labels;
layout(binding = TABLE_IMAGE, r32ui) coherent uniform uimage2DArray table;

const int kSlots = TABLE_SLOTS;
const int kThreads = LABEL_PATCH_W * LABEL_PATCH_H * LABEL_SLICES_PER_PASS;
const int kPasses = LABEL_PATCH_D / LABEL_SLICES_PER_PASS;
const int kPatchNodes = LABEL_PATCH_W * LABEL_PATCH_H * LABEL_PATCH_D;
const int kRuns = kPatchNodes / TABLE_RUN;  // runs lie within a node line: LABEL_PATCH_W % TABLE_RUN == 0
shared uint patchLabels[kPatchNodes];
shared uint patchMasks[kPatchNodes];
shared uint slotLabel[kSlots];
shared uint slotMinX[kSlots], slotMinY[kSlots], slotMaxX[kSlots], slotMaxY[kSlots], slotMaxZ[kSlots];
shared uint slotArea[kSlots], slotSumX[kSlots], slotSumY[kSlots], slotSumZ[kSlots];

// A label's sums over part of a label patch; within a label patch every sum
// fits 32 bits (compute_constants.hpp). No minimum z: the root writes it.
struct Stats {
    uint minX, minY, maxX, maxY, maxZ, area, sumX, sumY, sumZ;
};

Stats noStats() { return Stats(kNone, kNone, 0u, 0u, 0u, 0u, 0u, 0u, 0u); }

void addNode(inout Stats s, ivec3 n, uint mask) {
    for (uint bits = mask; bits != 0u; bits &= bits - 1u) {
        uvec3 p = uvec3(pixelOfNode(n, findLSB(bits)));
        s.minX = min(s.minX, p.x);
        s.minY = min(s.minY, p.y);
        s.maxX = max(s.maxX, p.x);
        s.maxY = max(s.maxY, p.y);
        s.maxZ = max(s.maxZ, p.z);
        s.area += 1u;
        s.sumX += p.x;
        s.sumY += p.y;
        s.sumZ += p.z;
    }
}

ivec3 entry(uint label, int field) {
    uint i = label - 1u;
    return ivec3(int(i % uint(TABLE_WIDTH)), int(i / uint(TABLE_WIDTH)), field);
}

void addWide(uint label, int low, uint value) {
    uint old = imageAtomicAdd(table, entry(label, low), value);
    if (old + value < old) imageAtomicAdd(table, entry(label, low + 1), 1u);
}

void addToTable(uint label, Stats s) {
    imageAtomicMax(table, entry(label, FIELD_MIN_X), ~s.minX);
    imageAtomicMax(table, entry(label, FIELD_MIN_Y), ~s.minY);
    imageAtomicMax(table, entry(label, FIELD_MAX_X), s.maxX);
    imageAtomicMax(table, entry(label, FIELD_MAX_Y), s.maxY);
    imageAtomicMax(table, entry(label, FIELD_MAX_Z), s.maxZ);
    imageAtomicAdd(table, entry(label, FIELD_AREA), s.area);
    addWide(label, FIELD_SUM_X, s.sumX);
    addWide(label, FIELD_SUM_Y, s.sumY);
    addWide(label, FIELD_SUM_Z, s.sumZ);
}

uint slotOf(uint label) {
    uint slot = (label * 2654435761u) >> (32u - uint(TABLE_SLOT_BITS));
    for (int probe = 0; probe < TABLE_PROBES; ++probe) {
        uint held = atomicCompSwap(slotLabel[slot], 0u, label);
        if (held == 0u || held == label) return slot;
        slot = (slot + 1u) & uint(kSlots - 1);
    }
    return kNone;
}

void flush(uint label, Stats s) {
    if (label == 0u) return;
    uint slot = slotOf(label);
    if (slot == kNone) {
        addToTable(label, s);
        return;
    }
    atomicMin(slotMinX[slot], s.minX);
    atomicMin(slotMinY[slot], s.minY);
    atomicMax(slotMaxX[slot], s.maxX);
    atomicMax(slotMaxY[slot], s.maxY);
    atomicMax(slotMaxZ[slot], s.maxZ);
    atomicAdd(slotArea[slot], s.area);
    atomicAdd(slotSumX[slot], s.sumX);
    atomicAdd(slotSumY[slot], s.sumY);
    atomicAdd(slotSumZ[slot], s.sumZ);
}

void main() {
    const int t = int(gl_LocalInvocationIndex);
    for (int slot = t; slot < kSlots; slot += kThreads) {
        slotLabel[slot] = 0u;
        slotMinX[slot] = kNone;
        slotMinY[slot] = kNone;
        slotMaxX[slot] = 0u;
        slotMaxY[slot] = 0u;
        slotMaxZ[slot] = 0u;
        slotArea[slot] = 0u;
        slotSumX[slot] = 0u;
        slotSumY[slot] = 0u;
        slotSumZ[slot] = 0u;
    }
    barrier();

    const ivec3 origin = ivec3(gl_WorkGroupID) * ivec3(LABEL_PATCH_W, LABEL_PATCH_H, LABEL_PATCH_D);
    for (int k = 0; k < kPasses; ++k) {
        ivec3 local = ivec3(gl_LocalInvocationID) + ivec3(0, 0, k * LABEL_SLICES_PER_PASS);
        ivec3 n = origin + local;
        bool inside = insideGrid(n);
        uint mask = inside ? imageLoad(nodeInfo, n).r & kMaskBits : 0u;
        uint parent = mask != 0u ? loadParent(n) : 0u;
        uint label = mask != 0u ? labelOfNode(n, mask, parent) : 0u;
        if (mask != 0u && (parent & kRankFlag) != 0u)
            imageStore(table, entry(label, FIELD_MIN_Z), uvec4(firstPixel(n, mask).z));
        if (inside) {
            for (int i = 0; i < kNodePixels; ++i) {
                ivec3 p = pixelOfNode(n, i);
                if (insideImage(p)) imageStore(labels, p, uvec4((mask & (1u << uint(i))) != 0u ? label : 0u));
            }
        }
        int index = (local.z * LABEL_PATCH_H + local.y) * LABEL_PATCH_W + local.x;
        patchLabels[index] = label;
        patchMasks[index] = mask;
    }
    barrier();
    for (int r = t; r < kRuns; r += kThreads) {
        uint runLabel = 0u;
        Stats run = noStats();
        for (int k = 0; k < TABLE_RUN; ++k) {
            int i = r * TABLE_RUN + k;
            uint label = patchLabels[i];
            if (label == 0u) continue;
            if (label != runLabel) {
                flush(runLabel, run);
                runLabel = label;
                run = noStats();
            }
            ivec3 local = ivec3(i % LABEL_PATCH_W, (i / LABEL_PATCH_W) % LABEL_PATCH_H,
                                i / (LABEL_PATCH_W * LABEL_PATCH_H));
            addNode(run, origin + local, patchMasks[i]);
        }
        flush(runLabel, run);
    }
    barrier();

    for (int slot = t; slot < kSlots; slot += kThreads) {
        uint label = slotLabel[slot];
        if (label != 0u)
            addToTable(label, Stats(slotMinX[slot], slotMinY[slot], slotMaxX[slot], slotMaxY[slot], slotMaxZ[slot],
                                    slotArea[slot], slotSumX[slot], slotSumY[slot], slotSumZ[slot]));
    }
}

// The component table's sums over one label patch, for the final_labels
// stages (final_labels.comp, of an image and of a volume on the node grid,
// and final_labels_volume.comp), which take this file with #include after
// declaring kThreads (their work group's threads) and kSlotBits (the hash
// table's 2^kSlotBits slots); kNone is 0xFFFFFFFFu.
//
// Each thread adds up the pixels (voxels) of consecutive nodes of one label
// in registers (a Stats), then flushes them into a small hash table in
// shared memory keyed by label; at the end each label of the label patch
// goes to the global table with one atomic per field. A component of 10^8
// pixels thus costs one atomic per label patch, not one per pixel. A label
// that finds no slot within TABLE_PROBES goes to the global table directly:
// only label patches with many small components get there, and their
// labels differ.
//
// The global table: an R32UI 2-D array, one layer per field, entry i at
// (i % TABLE_WIDTH, i / TABLE_WIDTH) for label i + 1 (compute_constants.hpp,
// TableField). Zero is every field's starting value, so a minimum is
// atomicMax of the inverted coordinate; a component's minimum along the
// last axis (y of an image, z of a volume) is its first pixel's, written
// once by its root and not summed here. Sums are 64 bits without 64-bit
// atomics: a low word, and a high word that counts the low word's
// wrap-arounds (each add that wraps adds 1 to it). Within a label patch
// every sum fits 32 bits (compute_constants.hpp, kLabelPatch,
// kVolumeLabelPatch, kBundleLabelPatch).
layout(binding = TABLE_IMAGE, r32ui) coherent uniform uimage2DArray table;

const int kSlots = 1 << kSlotBits;
shared uint slotLabel[kSlots];
#if DIMENSIONS == 3
shared uint slotMinX[kSlots], slotMinY[kSlots], slotMaxX[kSlots], slotMaxY[kSlots], slotMaxZ[kSlots];
shared uint slotArea[kSlots], slotSumX[kSlots], slotSumY[kSlots], slotSumZ[kSlots];

// A label's sums over part of a label patch. No minimum z: the root writes it.
struct Stats {
    uint minX, minY, maxX, maxY, maxZ, area, sumX, sumY, sumZ;
};

Stats noStats() { return Stats(kNone, kNone, 0u, 0u, 0u, 0u, 0u, 0u, 0u); }
#else
shared uint slotMinX[kSlots], slotMaxX[kSlots], slotMaxY[kSlots];
shared uint slotArea[kSlots], slotSumX[kSlots], slotSumY[kSlots];

// A label's sums over part of a label patch. No minimum y: the root writes it.
struct Stats {
    uint minX, maxX, maxY, area, sumX, sumY;
};

Stats noStats() { return Stats(kNone, 0u, 0u, 0u, 0u, 0u); }
#endif

// Pixel (voxel) p added to s.
#if DIMENSIONS == 3
void addPixel(inout Stats s, uvec3 p) {
#else
void addPixel(inout Stats s, uvec2 p) {
#endif
    s.minX = min(s.minX, p.x);
#if DIMENSIONS == 3
    s.minY = min(s.minY, p.y);
#endif
    s.maxX = max(s.maxX, p.x);
    s.maxY = max(s.maxY, p.y);
#if DIMENSIONS == 3
    s.maxZ = max(s.maxZ, p.z);
#endif
    s.area += 1u;
    s.sumX += p.x;
    s.sumY += p.y;
#if DIMENSIONS == 3
    s.sumZ += p.z;
#endif
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
    imageAtomicMax(table, entry(label, FIELD_MIN_X), ~s.minX);  // zero is "none yet"
#if DIMENSIONS == 3
    imageAtomicMax(table, entry(label, FIELD_MIN_Y), ~s.minY);
#endif
    imageAtomicMax(table, entry(label, FIELD_MAX_X), s.maxX);
    imageAtomicMax(table, entry(label, FIELD_MAX_Y), s.maxY);
#if DIMENSIONS == 3
    imageAtomicMax(table, entry(label, FIELD_MAX_Z), s.maxZ);
#endif
    imageAtomicAdd(table, entry(label, FIELD_AREA), s.area);
    addWide(label, FIELD_SUM_X, s.sumX);
    addWide(label, FIELD_SUM_Y, s.sumY);
#if DIMENSIONS == 3
    addWide(label, FIELD_SUM_Z, s.sumZ);
#endif
}

// Every slot empty; the work group passes a barrier() before its first flush.
void clearSlots() {
    for (int slot = int(gl_LocalInvocationIndex); slot < kSlots; slot += kThreads) {
        slotLabel[slot] = 0u;
        slotMinX[slot] = kNone;
#if DIMENSIONS == 3
        slotMinY[slot] = kNone;
#endif
        slotMaxX[slot] = 0u;
        slotMaxY[slot] = 0u;
#if DIMENSIONS == 3
        slotMaxZ[slot] = 0u;
#endif
        slotArea[slot] = 0u;
        slotSumX[slot] = 0u;
        slotSumY[slot] = 0u;
#if DIMENSIONS == 3
        slotSumZ[slot] = 0u;
#endif
    }
}

// The label's slot (taken for it where it had none), or kNone.
uint slotOfLabel(uint label) {
    uint slot = (label * 2654435761u) >> uint(32 - kSlotBits);
    for (int probe = 0; probe < TABLE_PROBES; ++probe) {
        uint held = atomicCompSwap(slotLabel[slot], 0u, label);
        if (held == 0u || held == label) return slot;
        slot = (slot + 1u) & uint(kSlots - 1);
    }
    return kNone;
}

// Label `label`'s sums s (none for label 0) into its slot, or into the
// global table where it finds none.
void flush(uint label, Stats s) {
    if (label == 0u) return;
    uint slot = slotOfLabel(label);
    if (slot == kNone) {
        addToTable(label, s);
        return;
    }
    atomicMin(slotMinX[slot], s.minX);
#if DIMENSIONS == 3
    atomicMin(slotMinY[slot], s.minY);
#endif
    atomicMax(slotMaxX[slot], s.maxX);
    atomicMax(slotMaxY[slot], s.maxY);
#if DIMENSIONS == 3
    atomicMax(slotMaxZ[slot], s.maxZ);
#endif
    atomicAdd(slotArea[slot], s.area);
    atomicAdd(slotSumX[slot], s.sumX);
    atomicAdd(slotSumY[slot], s.sumY);
#if DIMENSIONS == 3
    atomicAdd(slotSumZ[slot], s.sumZ);
#endif
}

// Every label of the label patch into the global table; the work group
// passes a barrier() after its last flush.
void addSlotsToTable() {
    for (int slot = int(gl_LocalInvocationIndex); slot < kSlots; slot += kThreads) {
        uint label = slotLabel[slot];
        if (label == 0u) continue;
#if DIMENSIONS == 3
        addToTable(label, Stats(slotMinX[slot], slotMinY[slot], slotMaxX[slot], slotMaxY[slot], slotMaxZ[slot],
                                slotArea[slot], slotSumX[slot], slotSumY[slot], slotSumZ[slot]));
#else
        addToTable(label, Stats(slotMinX[slot], slotMaxX[slot], slotMaxY[slot], slotArea[slot], slotSumX[slot],
                                slotSumY[slot]));
#endif
    }
}

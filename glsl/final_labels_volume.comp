// final_labels, for a binary volume: the sibling of final_labels.comp over
// the bundle nodes of volume_nodes.glsl (the CUDA engine's
// final_labels_volume.cu). Every voxel takes its component's number,
// background 0, and the component table is summed on the way: boxes, voxel
// counts and exact coordinate sums, z included. One work group per label
// patch of LABEL_PATCH_WORDS x LABEL_PATCH_BUNDLES_Y x LABEL_PATCH_BUNDLES_Z
// bundle words:
//   1. each thread numbers the nodes of its word: a root (kRankFlag in its
//      entry, count_roots) holds its rank, and its number is its first
//      voxel's line offset plus the rank plus one; any other node's entry
//      is its root's key (count_roots pointed every entry at its root), one
//      load from the rank. The numbers go to shared memory, and each
//      node's box and sums (a few bit operations per line of the bundle)
//      are added up in registers over consecutive nodes of one number, then
//      in a small hash table in shared memory keyed by number;
//   2. the work group writes its words' voxels, 32 threads to a word, a
//      thread per x, so that 32 neighbouring threads write 32 neighbouring
//      voxels of one line; and each number of the label patch goes to the
//      global table with one atomic per field (a number that finds no slot
//      within TABLE_PROBES goes there directly).
//
// The front of a component is its first voxel's z, written once by its root;
// the other minimums are atomicMax of the inverted coordinate (zero is "none
// yet"). Sums are 64 bits without 64-bit atomics: a low word and a high word
// that counts its wrap-arounds (each add that wraps adds 1 to it). The hash
// table and the global table are final_labels_volume_grid.comp's.
layout(local_size_x = LABEL_PATCH_THREADS) in;

layout(binding = LABELS_IMAGE, r32ui) writeonly uniform uimage3D labels;
layout(binding = TABLE_IMAGE, r32ui) coherent uniform uimage2DArray table;
layout(binding = LINE_OFFSETS_BUFFER, std430) readonly buffer LineOffsets { uint lineOffsets[]; };

const uint kNone = 0xFFFFFFFFu;
const int kLabelWords = LABEL_PATCH_WORDS;
const int kLabelBundlesY = LABEL_PATCH_BUNDLES_Y;
const int kThreads = LABEL_PATCH_THREADS;
// Run r of thread t's word at r * kNumbersStride + t: padded, so that both
// the threads' writes (one r, every t) and the voxel writes' reads (one t,
// any r) spread over the banks.
const int kNumbersStride = kThreads + 1;
shared uint sNumbers[kRunsPerWord * kNumbersStride];
shared uint sLines[kLines * kThreads];  // line l of thread t's word at l * kThreads + t
shared uint sForeground[kThreads];

const int kSlots = 1 << LABEL_PATCH_SLOT_BITS;
shared uint slotLabel[kSlots];
shared uint slotMinX[kSlots], slotMinY[kSlots], slotMaxX[kSlots], slotMaxY[kSlots], slotMaxZ[kSlots];
shared uint slotArea[kSlots], slotSumX[kSlots], slotSumY[kSlots], slotSumZ[kSlots];

// Thread t's bundle word in the label patch, words fastest.
ivec3 labelWordOf(int t) {
    return ivec3(t % kLabelWords, t / kLabelWords % kLabelBundlesY, t / (kLabelWords * kLabelBundlesY));
}

// A number's sums over part of a label patch; within a label patch every
// sum fits 32 bits (compute_constants.hpp, kBundleLabelPatch). No minimum
// z: the root writes it.
struct Stats {
    uint minX, minY, maxX, maxY, maxZ, area, sumX, sumY, sumZ;
};

Stats noStats() { return Stats(kNone, kNone, 0u, 0u, 0u, 0u, 0u, 0u, 0u); }

// The sum of the positions of the set bits: bit k of a position adds 2^k
// for each set bit whose position has it.
uint positionSum(uint bits) {
    return uint(bitCount(bits & 0xAAAAAAAAu)) + (uint(bitCount(bits & 0xCCCCCCCCu)) << 1u) +
           (uint(bitCount(bits & 0xF0F0F0F0u)) << 2u) + (uint(bitCount(bits & 0xFF00FF00u)) << 3u) +
           (uint(bitCount(bits & 0xFFFF0000u)) << 4u);
}

// The voxels of the node with bits `run` of bundle word (wx, by, bz) added to s.
void addNode(inout Stats s, uint lines[kLines], uint run, uint wx, uint by, uint bz) {
    const uint x0 = wx * uint(kWordBits);
    for (int l = 0; l < kLines; ++l) {
        uint voxels = lines[l] & run;
        if (voxels == 0u) continue;
        uint y = by * uint(kBundleHeight) + uint(l % kBundleHeight);
        uint z = bz * uint(kBundleDepth) + uint(l / kBundleHeight);
        uint count = uint(bitCount(voxels));
        s.minX = min(s.minX, x0 + uint(lowestBit(voxels)));
        s.maxX = max(s.maxX, x0 + uint(highestBit(voxels)));
        s.minY = min(s.minY, y);
        s.maxY = max(s.maxY, y);
        s.maxZ = max(s.maxZ, z);
        s.area += count;
        s.sumX += count * x0 + positionSum(voxels);
        s.sumY += count * y;
        s.sumZ += count * z;
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

uint slotOfLabel(uint label) {
    uint slot = (label * 2654435761u) >> (32u - uint(LABEL_PATCH_SLOT_BITS));
    for (int probe = 0; probe < TABLE_PROBES; ++probe) {
        uint held = atomicCompSwap(slotLabel[slot], 0u, label);
        if (held == 0u || held == label) return slot;
        slot = (slot + 1u) & uint(kSlots - 1);
    }
    return kNone;
}

void flush(uint label, Stats s) {
    if (label == 0u) return;
    uint slot = slotOfLabel(label);
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

// The number of a node whose parents entry is not a root's: count_roots
// left every root's entry its rank and every other entry its root's key, so
// the walk ends after one step (it would end too at the first entry with
// kRankFlag of a tree left unflattened, the key before it the root's).
uint numberThroughRoot(uint key) {
    for (;;) {
        uint parent = loadParent(slotOfKey(key));
        if ((parent & kRankFlag) != 0u) return lineOffsets[lineOfKey(key)] + (parent & ~kRankFlag) + 1u;
        key = parent;
    }
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
    const uvec3 origin = gl_WorkGroupID * uvec3(LABEL_PATCH_WORDS, LABEL_PATCH_BUNDLES_Y, LABEL_PATCH_BUNDLES_Z);
    const uvec3 own = origin + uvec3(labelWordOf(t));  // (wx, by, bz)
    const bool inside = own.x < wordsX && own.y < bundlesY && own.z < bundlesZ;
    uint lines[kLines];
    for (int l = 0; l < kLines; ++l) lines[l] = 0u;
    if (inside) loadBundleLines(own.x, own.y, own.z, lines);
    const uint p = linesOf(lines, (1u << uint(kLines)) - 1u);
    for (int l = 0; l < kLines; ++l) sLines[l * kThreads + t] = lines[l];
    sForeground[t] = p;
    barrier();

    // 1. This word's nodes' numbers, and their sums.
    {
        const uint word = bundleWord(own.x, own.y, own.z);
        uint runLabel = 0u;
        Stats sums = noStats();
        int r = 0;
        for (uint starts = runStarts(p); starts != 0u; starts &= starts - 1u, ++r) {
            const uint run = runFrom(p, lowestBit(starts));
            const uint parent = loadParent(slotOf(word, r));
            uint number;
            if ((parent & kRankFlag) != 0u) {
                ivec2 first = firstVoxelOf(lines, run);
                uint y = own.y * uint(kBundleHeight) + uint(first.x % kBundleHeight);
                uint z = own.z * uint(kBundleDepth) + uint(first.x / kBundleHeight);
                number = lineOffsets[z * volumeHeight() + y] + (parent & ~kRankFlag) + 1u;
                imageStore(table, entry(number, FIELD_MIN_Z), uvec4(z));
            } else {
                number = numberThroughRoot(parent);
            }
            sNumbers[r * kNumbersStride + t] = number;
            if (number != runLabel) {
                flush(runLabel, sums);
                runLabel = number;
                sums = noStats();
            }
            addNode(sums, lines, run, own.x, own.y, own.z);
        }
        flush(runLabel, sums);
    }
    barrier();

    // 2. The label patch's voxels, a word at a time per 32 threads, and its
    // numbers into the global table.
    const int lane = t % 32;
    for (int i = t / 32; i < kThreads; i += kThreads / 32) {
        const uvec3 at = origin + uvec3(labelWordOf(i));
        const uint x = at.x * uint(kWordBits) + uint(lane);
        if (at.x >= wordsX || at.y >= bundlesY || at.z >= bundlesZ || x >= volumeWidth()) continue;
        const uint pi = sForeground[i];
        const uint number = ((pi >> uint(lane)) & 1u) != 0u ? sNumbers[runAt(pi, lane) * kNumbersStride + i] : 0u;
        for (int l = 0; l < kLines; ++l) {
            uint y = at.y * uint(kBundleHeight) + uint(l % kBundleHeight);
            uint z = at.z * uint(kBundleDepth) + uint(l / kBundleHeight);
            if (y >= volumeHeight() || z >= volumeDepth()) continue;
            uint label = ((sLines[l * kThreads + i] >> uint(lane)) & 1u) != 0u ? number : 0u;
            imageStore(labels, ivec3(int(x), int(y), int(z)), uvec4(label));
        }
    }
    for (int slot = t; slot < kSlots; slot += kThreads) {
        uint label = slotLabel[slot];
        if (label != 0u)
            addToTable(label, Stats(slotMinX[slot], slotMinY[slot], slotMaxX[slot], slotMaxY[slot], slotMaxZ[slot],
                                    slotArea[slot], slotSumX[slot], slotSumY[slot], slotSumZ[slot]));
    }
}

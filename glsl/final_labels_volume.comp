// final_labels, for a binary volume: the sibling of final_labels.comp over
// the bundle nodes of volume_nodes.glsl (the CUDA engine's
// final_labels_volume.cu). A body of its own: a node's sums come from bit
// operations on its run in each line (popcounts, positionSum), not voxel by
// voxel, and 32 threads write a word's voxels. Every voxel takes its
// component's number, background 0, and the component table is summed on the
// way: boxes, voxel counts and exact coordinate sums, z included. One work
// group per label patch of LABEL_PATCH_WORDS x LABEL_PATCH_BUNDLES_Y x
// LABEL_PATCH_BUNDLES_Z bundle words:
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
//      global table with one atomic per field.
// The hash table and the global table are label_table.glsl's.
layout(local_size_x = LABEL_PATCH_THREADS) in;

layout(binding = LABELS_IMAGE, r32ui) writeonly uniform uimage3D labels;
layout(binding = LINE_OFFSETS_BUFFER, std430) readonly buffer LineOffsets { uint lineOffsets[]; };

const uint kNone = 0xFFFFFFFFu;
const int kLabelWords = LABEL_PATCH_WORDS;
const int kLabelBundlesY = LABEL_PATCH_BUNDLES_Y;
const int kThreads = LABEL_PATCH_THREADS;
const int kSlotBits = LABEL_PATCH_SLOT_BITS;
#include "label_table.glsl"

// Run r of thread t's word at r * kNumbersStride + t: padded, so that both
// the threads' writes (one r, every t) and the voxel writes' reads (one t,
// any r) spread over the banks.
const int kNumbersStride = kThreads + 1;
shared uint sNumbers[kRunsPerWord * kNumbersStride];
shared uint sLines[kLines * kThreads];  // line l of thread t's word at l * kThreads + t
shared uint sForeground[kThreads];

// Thread t's bundle word in the label patch, words fastest.
ivec3 labelWordOf(int t) {
    return ivec3(t % kLabelWords, t / kLabelWords % kLabelBundlesY, t / (kLabelWords * kLabelBundlesY));
}

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
    clearSlots();
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
    addSlotsToTable();
}

// final_labels: every pixel takes its component's number
// (compute_common.glsl, labelOfNode), background pixels 0; on the way the
// component table is summed: boxes, areas and coordinate sums (z included
// for a volume on the node grid, DIMENSIONS 3; final_labels_volume.comp
// labels bundle nodes). One work group per label patch of LABEL_PATCH_W x
// LABEL_PATCH_H (x LABEL_PATCH_D) nodes. First each thread labels a column
// of nodes (neighbouring threads write neighbouring pixels) and keeps the
// labels in shared memory; then each thread walks a run of TABLE_RUN nodes
// of one line and adds up consecutive nodes of one label in registers; runs
// meet in the label patch's hash table, and each label of the label patch
// goes to the global table with one atomic per field (label_table.glsl).

layout(binding = NODE_INFO_IMAGE, NODE_INFO_FORMAT) readonly uniform UImageND nodeInfo;
layout(binding = LABELS_IMAGE, r32ui) writeonly uniform UImageND labels;

#if DIMENSIONS == 3
layout(local_size_x = LABEL_PATCH_W, local_size_y = LABEL_PATCH_H, local_size_z = LABEL_SLICES_PER_PASS) in;
const int kThreads = LABEL_PATCH_W * LABEL_PATCH_H * LABEL_SLICES_PER_PASS;
const int kPasses = LABEL_PATCH_D / LABEL_SLICES_PER_PASS;  // nodes per thread, one per LABEL_SLICES_PER_PASS slices
const ivec3 kLabelPatch = ivec3(LABEL_PATCH_W, LABEL_PATCH_H, LABEL_PATCH_D);
// The table field the root writes: a component's first voxel has its least z.
const int kFirstLineField = FIELD_MIN_Z;

ivec3 labelPatchOrigin() { return ivec3(gl_WorkGroupID) * kLabelPatch; }
ivec3 localNode(int k) { return ivec3(gl_LocalInvocationID) + ivec3(0, 0, k * LABEL_SLICES_PER_PASS); }
int localIndexOf(ivec3 local) { return (local.z * LABEL_PATCH_H + local.y) * LABEL_PATCH_W + local.x; }
ivec3 localOfIndex(int i) {
    return ivec3(i % LABEL_PATCH_W, (i / LABEL_PATCH_W) % LABEL_PATCH_H, i / (LABEL_PATCH_W * LABEL_PATCH_H));
}
#else
layout(local_size_x = LABEL_PATCH_W, local_size_y = LABEL_LINES_PER_PASS) in;
const int kThreads = LABEL_PATCH_W * LABEL_LINES_PER_PASS;
const int kPasses = LABEL_PATCH_H / LABEL_LINES_PER_PASS;  // nodes per thread, one per LABEL_LINES_PER_PASS lines
const ivec2 kLabelPatch = ivec2(LABEL_PATCH_W, LABEL_PATCH_H);
// The table field the root writes: a component's first pixel has its least y.
const int kFirstLineField = FIELD_MIN_Y;

ivec2 labelPatchOrigin() { return ivec2(gl_WorkGroupID.xy) * kLabelPatch; }
ivec2 localNode(int k) { return ivec2(gl_LocalInvocationID.x, int(gl_LocalInvocationID.y) + k * LABEL_LINES_PER_PASS); }
int localIndexOf(ivec2 local) { return local.y * LABEL_PATCH_W + local.x; }
ivec2 localOfIndex(int i) { return ivec2(i % LABEL_PATCH_W, i / LABEL_PATCH_W); }
#endif

const int kSlotBits = TABLE_SLOT_BITS;
#include "label_table.glsl"

const int kPatchNodes = kThreads * kPasses;
const int kRuns = kPatchNodes / TABLE_RUN;  // runs lie within a node line: LABEL_PATCH_W % TABLE_RUN == 0

#if DIMENSIONS == 3
// Labels and masks apart: a 2x2x2 node's 8 mask bits leave a word 24 bits
// for its label, and a volume has up to 2^27 such nodes.
shared uint patchLabels[kPatchNodes];
shared uint patchMasks[kPatchNodes];
void storeNode(int i, uint label, uint mask) {
    patchLabels[i] = label;
    patchMasks[i] = mask;
}
uint labelAt(int i) { return patchLabels[i]; }
uint maskAt(int i) { return patchMasks[i]; }

// The node's foreground voxels added to s.
void addNode(inout Stats s, ivec3 n, uint mask) {
    for (uint bits = mask; bits != 0u; bits &= bits - 1u) addPixel(s, uvec3(pixelOfNode(n, findLSB(bits))));
}
#else
// Per node of the label patch, its label and its foreground mask in one word,
// (label - 1) << kNodePixels | mask, 0 for background: labels count nodes,
// so (label - 1) << kNodePixels stays below 2^32 (compute_common.glsl:
// sides up to 32768), and the label patch's shared memory stays within 32
// KiB.
shared uint patchNodes[kPatchNodes];
void storeNode(int i, uint label, uint mask) {
    patchNodes[i] = mask == 0u ? 0u : ((label - 1u) << uint(kNodePixels)) | mask;
}
uint labelAt(int i) { return patchNodes[i] == 0u ? 0u : (patchNodes[i] >> uint(kNodePixels)) + 1u; }
uint maskAt(int i) { return patchNodes[i] & ((1u << uint(kNodePixels)) - 1u); }

// The node's foreground pixels added to s. Within a label patch every sum
// fits 32 bits: LABEL_PATCH_W * LABEL_PATCH_H * 4 pixels of coordinates below 2^15.
void addNode(inout Stats s, ivec2 n, uint mask) {
    for (int i = 0; i < kNodePixels; ++i)
        if ((mask & (1u << uint(i))) != 0u) addPixel(s, uvec2(pixelOfNode(n, i)));
}
#endif

// Run r of the label patch (TABLE_RUN consecutive nodes of a node line),
// its labels' sums flushed into the hash table.
void sumRun(int r, NodeCoord origin) {
    uint runLabel = 0u;
    Stats run = noStats();
    for (int k = 0; k < TABLE_RUN; ++k) {
        int i = r * TABLE_RUN + k;
        uint label = labelAt(i);
        if (label == 0u) continue;
        if (label != runLabel) {
            flush(runLabel, run);
            runLabel = label;
            run = noStats();
        }
        addNode(run, origin + localOfIndex(i), maskAt(i));
    }
    flush(runLabel, run);
}

void main() {
    const int t = int(gl_LocalInvocationIndex);
    clearSlots();
    barrier();

    const NodeCoord origin = labelPatchOrigin();
    for (int k = 0; k < kPasses; ++k) {
        NodeCoord local = localNode(k);
        NodeCoord n = origin + local;
        bool inside = insideGrid(n);
        uint mask = inside ? imageLoad(nodeInfo, n).r & kMaskBits : 0u;
        uint parent = mask != 0u ? loadParent(n) : 0u;
        uint label = mask != 0u ? labelOfNode(n, mask, parent) : 0u;
        // A component's first line is its root's: the root, its first pixel,
        // writes it once, and no label patch needs an atomic for it.
        if (mask != 0u && (parent & kRankFlag) != 0u)
            imageStore(table, entry(label, kFirstLineField), uvec4(firstPixel(n, mask)[DIMENSIONS - 1]));
        if (inside) {
            for (int i = 0; i < kNodePixels; ++i) {
                NodeCoord p = pixelOfNode(n, i);
                if (insideImage(p)) imageStore(labels, p, uvec4((mask & (1u << uint(i))) != 0u ? label : 0u));
            }
        }
        storeNode(localIndexOf(local), label, mask);
    }
    barrier();
    // An image's label patch has a run for every thread; a volume's fewer.
    if (kRuns == kThreads) {
        sumRun(t, origin);
    } else {
        for (int r = t; r < kRuns; r += kThreads) sumRun(r, origin);
    }
    barrier();
    addSlotsToTable();
}

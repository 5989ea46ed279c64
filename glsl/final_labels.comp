// final_labels: every pixel takes its component's number (compute_common.glsl,
// labelOfNode), background pixels 0; on the way the component table is
// summed: boxes, areas and coordinate sums. One work group per label patch
// of LABEL_PATCH_W x LABEL_PATCH_H nodes. First each thread labels a column
// of nodes (neighbouring threads write neighbouring pixels) and keeps the
// labels in shared memory; then each thread walks a run of TABLE_RUN nodes
// of one line and adds up consecutive nodes of one label in registers; runs
// meet in the label patch's hash table, and each label of the label patch
// goes to the global table with one atomic per field (label_table.glsl).
layout(local_size_x = LABEL_PATCH_W, local_size_y = LABEL_LINES_PER_PASS) in;

layout(binding = NODE_INFO_IMAGE, r8ui) readonly uniform uimage2D nodeInfo;
layout(binding = LABELS_IMAGE, r32ui) writeonly uniform uimage2D labels;

const int kThreads = LABEL_PATCH_W * LABEL_LINES_PER_PASS;
const int kSlotBits = TABLE_SLOT_BITS;
#include "label_table.glsl"

const int kPasses = LABEL_PATCH_H / LABEL_LINES_PER_PASS;
// Per node of the label patch, its label and its foreground mask in one word,
// (label - 1) << kNodePixels | mask, 0 for background: labels count nodes,
// so (label - 1) << kNodePixels stays below 2^32 (compute_common.glsl:
// sides up to 32768).
shared uint patchNodes[LABEL_PATCH_W * LABEL_PATCH_H];
uint packNode(uint label, uint mask) { return mask == 0u ? 0u : ((label - 1u) << uint(kNodePixels)) | mask; }
uint labelOfPacked(uint node) { return node == 0u ? 0u : (node >> uint(kNodePixels)) + 1u; }
uint maskOfPacked(uint node) { return node & ((1u << uint(kNodePixels)) - 1u); }

// The node's foreground pixels added to s. Within a label patch every sum
// fits 32 bits: LABEL_PATCH_W * LABEL_PATCH_H * 4 pixels of coordinates below 2^15.
void addNode(inout Stats s, ivec2 n, uint mask) {
    for (int i = 0; i < kNodePixels; ++i) {
        if ((mask & (1u << uint(i))) == 0u) continue;
        uvec2 p = uvec2(pixelOfNode(n, i));
        s.minX = min(s.minX, p.x);
        s.maxX = max(s.maxX, p.x);
        s.maxY = max(s.maxY, p.y);
        s.area += 1u;
        s.sumX += p.x;
        s.sumY += p.y;
    }
}

void main() {
    const int t = int(gl_LocalInvocationIndex);
    clearSlots();
    barrier();

    ivec2 origin = ivec2(gl_WorkGroupID.xy) * ivec2(LABEL_PATCH_W, LABEL_PATCH_H);
    for (int k = 0; k < kPasses; ++k) {
        ivec2 local = ivec2(gl_LocalInvocationID.x, int(gl_LocalInvocationID.y) + k * LABEL_LINES_PER_PASS);
        ivec2 n = origin + local;
        uint mask = insideGrid(n) ? imageLoad(nodeInfo, n).r & kMaskBits : 0u;
        uint parent = mask != 0u ? loadParent(n) : 0u;
        uint label = mask != 0u ? labelOfNode(n, mask, parent) : 0u;
        // A component's top line is its root's: the root, its first pixel,
        // writes it once, and no label patch needs an atomic for it.
        if (mask != 0u && (parent & kRankFlag) != 0u)
            imageStore(table, entry(label, FIELD_MIN_Y), uvec4(firstPixel(n, mask).y));
        for (int i = 0; i < kNodePixels; ++i) {
            ivec2 p = pixelOfNode(n, i);
            if (insideImage(p)) imageStore(labels, p, uvec4((mask & (1u << uint(i))) != 0u ? label : 0u));
        }
        patchNodes[local.y * LABEL_PATCH_W + local.x] = packNode(label, mask);
    }
    barrier();
    uint runLabel = 0u;
    Stats run = noStats();
    for (int k = 0; k < TABLE_RUN; ++k) {
        int i = t * TABLE_RUN + k;  // runs lie within a line: LABEL_PATCH_W % TABLE_RUN == 0
        uint node = patchNodes[i];
        uint label = labelOfPacked(node);
        if (label == 0u) continue;
        if (label != runLabel) {
            flush(runLabel, run);
            runLabel = label;
            run = noStats();
        }
        addNode(run, origin + ivec2(i % LABEL_PATCH_W, i / LABEL_PATCH_W), maskOfPacked(node));
    }
    flush(runLabel, run);
    barrier();
    addSlotsToTable();
}

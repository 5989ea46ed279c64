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
// TABLE_RUN nodes of one node line are added up in registers, meet in the
// label patch's hash table, and each label of the label patch goes to
// the global table with one atomic per field (label_table.glsl).
layout(local_size_x = LABEL_PATCH_W, local_size_y = LABEL_PATCH_H, local_size_z = LABEL_SLICES_PER_PASS) in;

layout(binding = NODE_INFO_IMAGE, r8ui) readonly uniform uimage3D nodeInfo;
layout(binding = LABELS_IMAGE, r32ui) writeonly uniform uimage3D labels;

const int kThreads = LABEL_PATCH_W * LABEL_PATCH_H * LABEL_SLICES_PER_PASS;
const int kSlotBits = TABLE_SLOT_BITS;
#include "label_table.glsl"

const int kPasses = LABEL_PATCH_D / LABEL_SLICES_PER_PASS;
const int kPatchNodes = LABEL_PATCH_W * LABEL_PATCH_H * LABEL_PATCH_D;
const int kRuns = kPatchNodes / TABLE_RUN;  // runs lie within a node line: LABEL_PATCH_W % TABLE_RUN == 0
shared uint patchLabels[kPatchNodes];
shared uint patchMasks[kPatchNodes];

// The node's foreground voxels added to s.
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

void main() {
    const int t = int(gl_LocalInvocationIndex);
    clearSlots();
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
    addSlotsToTable();
}

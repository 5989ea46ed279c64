// local_merge: the only stage that reads the whole input. One work group per
// patch of PATCH_W x PATCH_H nodes:
//   1. every node's foreground mask (one textureGather for a binary block,
//      one fetch for a pixel), each thread a column of kPasses nodes;
//   2. each thread takes a segment of kPasses consecutive nodes of one line
//      and joins the nodes its left links chain together into runs; every
//      node of a run points at the run's smallest key, with no atomics
//      (on 50 % noise about a third of a 2x2 block's links are left links);
//   3. union-find in shared memory over the links that are left: a run's
//      upper links, and its first node's left link into the segment before.
//      A link implied by two others is skipped (neighboursLinked), and so is
//      one whose neighbour reads the same parent as the run's last union;
//   4. every node leaves with its patch-local root in parents and its mask
//      in node_info.
// Links that leave the patch are merge_borders' work. Before all that the
// work groups zero the first clearCount entries of the component table, the
// ones the last labeling summed into, for final_labels.
layout(local_size_x = PATCH_W, local_size_y = PATCH_LINES_PER_PASS) in;

layout(binding = NODE_INFO_IMAGE, r8ui) writeonly uniform uimage2D nodeInfo;
layout(binding = TABLE_IMAGE, r32ui) writeonly uniform uimage2DArray table;
uniform uint clearCount;

// Nodes per thread, in a column (steps 1, 4) or a line segment (steps 2, 3).
const int kPasses = PATCH_H / PATCH_LINES_PER_PASS;
const int kSegmentsPerLine = PATCH_W / kPasses;
shared uint patchParents[PATCH_W * PATCH_H];  // keys, as in parents
shared uint patchMasks[PATCH_W * PATCH_H];

ivec2 patchOrigin() { return ivec2(gl_WorkGroupID.xy) * ivec2(PATCH_W, PATCH_H); }
ivec2 localNode(int k) {
    return ivec2(gl_LocalInvocationID.x, int(gl_LocalInvocationID.y) + k * PATCH_LINES_PER_PASS);
}
int localIndexOf(ivec2 local) { return local.y * PATCH_W + local.x; }
int localIndex(uint key) { return localIndexOf(nodeOfKey(key) - patchOrigin()); }

// The patch's forest in shared memory (union_find.glsl): a key's entry is
// its node's in the patch. Path halving's plain store keeps chains short
// while the patch's unions run.
int forestSlot(uint key) { return localIndex(key); }
uint forestLoad(int slot) { return patchParents[slot]; }
void forestHalve(int slot, uint grandparent) { patchParents[slot] = grandparent; }
uint forestLower(int slot, uint key) { return atomicMin(patchParents[slot], key); }

// Does node `local` (mask m) link to its in-patch backward neighbour d?
bool linksInPatch(ivec2 local, uint m, int d) {
    ivec2 b = local + kBackward[d];
    if (b.x < 0 || b.y < 0 || b.x >= PATCH_W) return false;
    uint neighbourMask = patchMasks[localIndexOf(b)];
    if (neighbourMask == 0u) return false;
#if NODE_W * NODE_H > 1
    return masksLink(m, neighbourMask, d);
#else
    ivec2 p = patchOrigin() + local;
    return pixelLinks(p, pixelValue(p), d);
#endif
}

#if CONNECTIVITY == 8 && (NODE_H == 2 || defined(CRITERION_SEGMENTS))
// Are backward neighbours a and b of node `local` (both linked to it, so both
// in the patch and foreground) linked to each other? Only the pairs that touch
// are asked: U with UL (UL is U's left neighbour), UR with U (U is UR's left
// neighbour), L with U (U is L's upper-right neighbour), L with UL (UL is L's
// upper neighbour). Such a link has both ends before this node in raster
// order and inside the patch, so local_merge unites it (or a path that
// implies it) itself: this node need not. Equal segment values are
// transitive, so for segments two neighbours linked to this node always are.
bool neighboursLinked(ivec2 local, int a, int b) {
#if NODE_H == 2
    ivec2 first = local + kBackward[a];
    // From a's point of view b is its neighbour e.
    int e = (a == 2 && b == 1) ? 0 : (a == 3 && b == 2) ? 0 : (a == 0 && b == 2) ? 3 : 2;
    return masksLink(patchMasks[localIndexOf(first)], patchMasks[localIndexOf(local + kBackward[b])], e);
#else
    return true;
#endif
}
#endif

// Step 2: the runs of this thread's segment. A node joins the run of the
// node before it when its left link connects them; each node of a run gets
// the run's smallest key as its parent (a plain store: nothing else writes
// these texels before the barrier). Returns bit j set where node j joined
// the run of node j - 1.
uint joinRuns(ivec2 first) {
    uint keys[kPasses];
    bool joined[kPasses];  // node j is in the run of node j - 1
    uint smallest[kPasses];  // the smallest key of node j's run up to j
    smallest[0] = kNone;
    for (int j = 0; j < kPasses; ++j) {
        ivec2 local = first + ivec2(j, 0);
        uint mask = patchMasks[localIndexOf(local)];
        keys[j] = mask != 0u ? ownKey(patchOrigin() + local, mask) : kNone;
        joined[j] = j > 0 && mask != 0u && keys[j - 1] != kNone && linksInPatch(local, mask, 0);
        smallest[j] = joined[j] ? min(smallest[j - 1], keys[j]) : keys[j];
    }
    uint parent = kNone;
    uint joinedBits = 0u;
    for (int j = kPasses - 1; j >= 0; --j) {
        if (j == kPasses - 1 || !joined[j + 1]) parent = smallest[j];
        patchParents[localIndexOf(first + ivec2(j, 0))] = keys[j] != kNone ? parent : kNone;
        if (joined[j]) joinedBits |= 1u << uint(j);
    }
    return joinedBits;
}

// Step 3: the unions of this thread's segment (joinedBits: joinRuns').
void uniteSegment(ivec2 first, uint joinedBits) {
    uint runParent = kNone;  // the run's smallest key (joinRuns)
    uint lastTarget = kNone; // what the run's last union read at its neighbour
    for (int j = 0; j < kPasses; ++j) {
        ivec2 local = first + ivec2(j, 0);
        uint mask = patchMasks[localIndexOf(local)];
        if (mask == 0u) continue;
        // Past the segment's first node a left link is exactly what joined
        // the node to the run before it: nothing to unite.
        bool link[4];
        link[0] = j == 0 && linksInPatch(local, mask, 0);
        if ((joinedBits & (1u << uint(j))) == 0u) {
            runParent = patchParents[localIndexOf(local)];
            lastTarget = kNone;
        }
        for (int d = 1; d < 4; ++d) link[d] = linksInPatch(local, mask, d);
#if CONNECTIVITY == 8 && (NODE_H == 2 || defined(CRITERION_SEGMENTS))
        // A link to a neighbour that is itself linked to one this node
        // unites with adds nothing (see neighboursLinked).
        if (link[2]) {
            if (link[1] && neighboursLinked(local, 2, 1)) link[1] = false;
            if (link[3] && neighboursLinked(local, 3, 2)) link[3] = false;
            if (link[0] && neighboursLinked(local, 0, 2)) link[0] = false;
        } else if (link[0] && link[1] && neighboursLinked(local, 0, 1)) {
            link[1] = false;
        }
#endif
        // Left first, then the upper neighbours from left to right: two
        // neighbours that read the same parent are one tree (parents only
        // point into their tree), so the run unites with it once.
        for (int d = 0; d < 4; ++d) {
            if (!link[d]) continue;
            uint target = patchParents[localIndexOf(local + kBackward[d])];
            if (target == lastTarget) continue;
            unite(runParent, target);
            lastTarget = target;
        }
    }
}

// Entries i, i + stride, ... of the table below clearCount, each group its own.
void clearTable() {
    const uint threads = uint(PATCH_W * PATCH_LINES_PER_PASS);
    const uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * threads;
    uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * threads + gl_LocalInvocationIndex;
    for (; i < clearCount; i += stride) {
        ivec2 entry = ivec2(int(i % uint(TABLE_WIDTH)), int(i / uint(TABLE_WIDTH)));
        for (int field = 0; field < TABLE_FIELDS; ++field) imageStore(table, ivec3(entry, field), uvec4(0u));
    }
}

void main() {
    clearTable();
    for (int k = 0; k < kPasses; ++k) {
        ivec2 local = localNode(k);
        ivec2 n = patchOrigin() + local;
        patchMasks[localIndexOf(local)] = insideGrid(n) ? nodeMask(n) : 0u;
    }
    barrier();
    const int t = int(gl_LocalInvocationIndex);
    const ivec2 segment = ivec2((t % kSegmentsPerLine) * kPasses, t / kSegmentsPerLine);
    const uint joinedBits = joinRuns(segment);
    barrier();
    uniteSegment(segment, joinedBits);
    barrier();
    for (int k = 0; k < kPasses; ++k) {
        ivec2 local = localNode(k);
        ivec2 n = patchOrigin() + local;
        if (!insideGrid(n)) continue;
        uint mask = patchMasks[localIndexOf(local)];
        storeParent(n, mask != 0u ? rootHalving(ownKey(n, mask)) : kNone);
        imageStore(nodeInfo, n, uvec4(mask));
    }
}

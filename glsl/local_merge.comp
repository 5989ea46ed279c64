// local_merge: the only stage that reads the whole input. One work group per
// patch of PATCH_W x PATCH_H nodes:
//   1. every node's foreground mask (one textureGather for a binary block,
//      one fetch for a pixel), each thread the kPasses nodes of its line
//      segment (step 2's), a byte each in one word;
//   2. each thread takes a segment of kPasses consecutive nodes of one line
//      and joins the nodes its left links chain together into runs; every
//      node of a run points at the run's smallest key, with no atomics
//      (on 50 % noise about a third of a 2x2 block's links are left links);
//   3. union-find in shared memory over the links that are left: a run's
//      upper links, and its first node's left link into the segment before.
//      A link implied by two others is skipped (neighboursLinked), and so is
//      one whose neighbour reads the same parent as the run's last union;
//   4. each run's root is found once, by the thread of its segment, and
//      every node leaves with it (as a key of the image) in parents and its
//      mask in node_info.
// Links that leave the patch are merge_borders' work. Before all that the
// work groups zero the first clearCount entries of the component table, the
// ones the last labeling summed into, for final_labels. The CUDA engine's
// cuda/src/local_merge.cu is the same stage.
//
// Keys in shared memory are the patch's own (localKey): a node's first pixel
// line in the patch, then its column. They order like the image's keys, so
// the smallest local key of a tree is its smallest key, and a key's slot is
// a shift and a mask away, in every step of every walk.
//
// Each thread unites its links where it finds them. The CUDA engine packs a
// warp's links into a queue first and unites them with every lane
// (warp_links.cuh); in GLSL the same queue, per work group between barriers
// or per subgroup (KHR_shader_subgroup_ballot), ran this stage slower on
// every family than uniting in place.
layout(local_size_x = PATCH_W, local_size_y = PATCH_LINES_PER_PASS) in;

layout(binding = NODE_INFO_IMAGE, NODE_INFO_FORMAT) writeonly uniform uimage2D nodeInfo;

#if PATCH_W != 32 || PATCH_H / PATCH_LINES_PER_PASS != 4
#error "local_merge.comp: a local key's column is its low 5 bits; a thread's four masks fill a word"
#endif
const int kSideBits = 5;
const int kThreads = PATCH_W * PATCH_LINES_PER_PASS;
#include "clear_table.glsl"
// Nodes per thread, in a line segment (steps 1, 2, 3) or a column (step 4).
const int kPasses = PATCH_H / PATCH_LINES_PER_PASS;
const int kSegmentsPerLine = PATCH_W / kPasses;
shared uint patchParents[PATCH_W * PATCH_H];  // local keys, a node's at its slot
// Masks a byte each, node i's in byte i % 4 of word i / 4 (step 1 writes a
// segment's four at once): the patch's shared memory stays small, and more
// work groups fit an SM.
shared uint patchMaskWords[PATCH_W * PATCH_H / 4];
uint maskAt(int i) { return (patchMaskWords[i >> 2] >> uint((i & 3) * 8)) & 0xFFu; }

ivec2 patchOrigin() { return ivec2(gl_WorkGroupID.xy) * ivec2(PATCH_W, PATCH_H); }
ivec2 localNode(int k) {
    return ivec2(gl_LocalInvocationID.x, int(gl_LocalInvocationID.y) + k * PATCH_LINES_PER_PASS);
}
int localIndexOf(ivec2 local) { return local.y * PATCH_W + local.x; }

// A node's key inside the patch: (line << kSideBits) | column, where line is
// its first foreground pixel's line in the patch.
uint localKey(ivec2 local, uint mask) {
#if NODE_H == 2
    int line = local.y * 2 + ((mask & 3u) == 0u ? 1 : 0);
#else
    int line = local.y;
#endif
    return (uint(line) << uint(kSideBits)) | uint(local.x);
}
int slotOfLocalKey(uint key) {
#if NODE_H == 2
    return int(((key >> uint(kSideBits + 1)) << uint(kSideBits)) | (key & uint(PATCH_W - 1)));
#else
    return int(key);
#endif
}
// The image's key of the node of local key `key`.
uint imageKey(uint key) {
    int i = slotOfLocalKey(key);
    return ownKey(patchOrigin() + ivec2(i & (PATCH_W - 1), i >> kSideBits), maskAt(i));
}

// The patch's forest in shared memory (union_find.glsl). Other threads'
// unions and halvings change parents under a walk; a halving lowers a
// parent with an atomicMin, so that step 4's roots, stored the same way,
// are never overwritten by a larger ancestor.
int forestSlot(uint key) { return slotOfLocalKey(key); }
uint forestLoad(int slot) { return patchParents[slot]; }
void forestHalve(int slot, uint grandparent) { atomicMin(patchParents[slot], grandparent); }
uint forestLower(int slot, uint key) { return atomicMin(patchParents[slot], key); }

// Does node `local` (mask m) link to its in-patch backward neighbour d?
bool linksInPatch(ivec2 local, uint m, int d) {
    ivec2 b = local + kBackward[d];
    if (b.x < 0 || b.y < 0 || b.x >= PATCH_W) return false;
    uint neighbourMask = maskAt(localIndexOf(b));
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
    return masksLink(maskAt(localIndexOf(first)), maskAt(localIndexOf(local + kBackward[b])), e);
#else
    return true;
#endif
}
#endif

// Step 2: the runs of this thread's segment. A node joins the run of the
// node before it when its left link connects them; each node of a run gets
// the run's smallest key as its parent (a plain store: nothing else writes
// these entries before the barrier), also kept in runKeys. Returns bit j set
// where node j joined the run of node j - 1.
uint joinRuns(ivec2 first, out uint runKeys[kPasses]) {
    uint keys[kPasses];
    bool joined[kPasses];  // node j is in the run of node j - 1
    uint smallest[kPasses];  // the smallest key of node j's run up to j
    for (int j = 0; j < kPasses; ++j) {
        ivec2 local = first + ivec2(j, 0);
        uint mask = maskAt(localIndexOf(local));
        keys[j] = mask != 0u ? localKey(local, mask) : kNone;
        joined[j] = j > 0 && mask != 0u && keys[j - 1] != kNone && linksInPatch(local, mask, 0);
        smallest[j] = joined[j] ? min(smallest[j - 1], keys[j]) : keys[j];
    }
    uint parent = kNone;
    uint joinedBits = 0u;
    for (int j = kPasses - 1; j >= 0; --j) {
        if (j == kPasses - 1 || !joined[j + 1]) parent = smallest[j];
        runKeys[j] = keys[j] != kNone ? parent : kNone;
        patchParents[localIndexOf(first + ivec2(j, 0))] = runKeys[j];
        if (joined[j]) joinedBits |= 1u << uint(j);
    }
    return joinedBits;
}

// Step 3: the unions of node j of this thread's segment (joinedBits,
// runKeys: joinRuns'). A run unites from the key joinRuns gave it, a node of
// its tree, without reading it back; runParent and lastTarget carry the run
// from node to node.
void uniteNode(ivec2 first, int j, uint joinedBits, uint runKeys[kPasses], inout uint runParent,
               inout uint lastTarget) {
    ivec2 local = first + ivec2(j, 0);
    uint mask = maskAt(localIndexOf(local));
    if (mask == 0u) return;
    // Past the segment's first node a left link is exactly what joined
    // the node to the run before it: nothing to unite.
    bool link[4];
    link[0] = j == 0 && linksInPatch(local, mask, 0);
    if ((joinedBits & (1u << uint(j))) == 0u) {
        runParent = runKeys[j];
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

// Step 4, first half: the root of each run of this thread's segment,
// walked to once and stored in every node of the run. The unions are over:
// the root is the smallest key of its tree, so the atomicMin leaves it in
// the node whatever a halving writes there.
void storeRunRoots(ivec2 first, uint joinedBits, uint runKeys[kPasses]) {
    uint root = kNone;
    for (int j = 0; j < kPasses; ++j) {
        if (runKeys[j] == kNone) continue;
        if ((joinedBits & (1u << uint(j))) == 0u) root = rootHalving(runKeys[j]);
        atomicMin(patchParents[localIndexOf(first + ivec2(j, 0))], root);
    }
}

void main() {
    clearTable();
    const int t = int(gl_LocalInvocationIndex);
    const ivec2 segment = ivec2((t % kSegmentsPerLine) * kPasses, t / kSegmentsPerLine);
    uint maskWord = 0u;
    for (int j = 0; j < kPasses; ++j) {
        ivec2 n = patchOrigin() + segment + ivec2(j, 0);
        maskWord |= (insideGrid(n) ? nodeMask(n) : 0u) << uint(8 * j);
    }
    patchMaskWords[t] = maskWord;
    barrier();
    uint runKeys[kPasses];
    const uint joinedBits = joinRuns(segment, runKeys);
    barrier();
    uint runParent = kNone, lastTarget = kNone;
    for (int j = 0; j < kPasses; ++j) uniteNode(segment, j, joinedBits, runKeys, runParent, lastTarget);
    barrier();
    storeRunRoots(segment, joinedBits, runKeys);
    barrier();
    for (int k = 0; k < kPasses; ++k) {
        ivec2 local = localNode(k);
        ivec2 n = patchOrigin() + local;
        if (!insideGrid(n)) continue;
        int i = localIndexOf(local);
        uint mask = maskAt(i);
        storeParent(n, mask != 0u ? imageKey(patchParents[i]) : kNone);
        imageStore(nodeInfo, n, uvec4(mask));
    }
}

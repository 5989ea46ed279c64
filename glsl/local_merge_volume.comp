// local_merge, for a binary volume: the sibling of local_merge.comp over the
// bundle nodes of volume_nodes.glsl (the CUDA engine's
// local_merge_volume.cu), and the only stage that reads the input. A body
// of its own: a bundle node is a run of up to 32 voxels along x, found and
// linked by bit operations on its word's lines, not a block of at most 8
// voxels fetched one by one. One work group per patch, one thread per
// bundle word:
//   1. the word's lines, a bit per voxel by the criterion (criterion.glsl),
//      into bits, and their OR (the bundle's foreground) into foreground;
//   2. its nodes, the runs of the OR: found by bit operations, no atomics;
//      each starts as its own parent, known by its first voxel's local key;
//   3. the links to the nodes of the bundle words before it in the patch
//      (the relations, and the word before in its own bundle), as lock-free
//      unions in shared memory keeping the smaller key: each thread finds
//      its links and queues them, and the whole work group unites the queue
//      (link_queue.glsl; queueLinks, uniteQueued);
//   4. every node leaves with its patch-local root, as a volume key, in
//      parents.
// Links that leave the patch are merge_borders' work. Before all that the
// work groups zero the first clearCount entries of the component table (z
// fields included), the ones the last labelings summed into, for
// final_labels.
layout(local_size_x = PATCH_THREADS) in;

const int kThreads = kPatchThreads;
#include "clear_table.glsl"
shared uint sLines[kLines * kThreads];             // line l of thread t's word at l * kThreads + t
shared uint sForeground[kThreads];                 // each word's OR of its lines
shared uint sParents[kRunsPerWord * kThreads];     // local keys: run r of thread t at r * kThreads + t

// The link queue's links: two slots, u | v << 16; a word is its thread.
const int kQueueLinks = PATCH_LINKS;
#define LINK_SLOT int
#define LINK uint
#define LINK_WORD int
#include "link_queue.glsl"

// The patch's union-find in shared memory: parents hold local keys (a root
// its own), a key's node is its thread's run (one load of that thread's
// foreground); run r of thread t at r * kThreads + t, so that threads of a
// warp reach their r-th nodes in consecutive banks. Other threads' unions
// change parents under the walk; a stale parent is still an ancestor.
int patchSlotOf(uint key) {
    int t = threadOfLocalKey(key);
    return runAt(sForeground[t], xOfLocalKey(key) % kWordBits) * kThreads + t;
}
int slotIn(int thread, int bit) { return runAt(sForeground[thread], bit) * kThreads + thread; }
int wordBefore(int thread) { return thread - 1; }
int wordAfter(int thread) { return thread + 1; }

// The forest of union_find.glsl on these slots, path halving's store plain.
int forestSlot(uint key) { return patchSlotOf(key); }
uint forestLoad(int slot) { return sParents[slot]; }
void forestHalve(int slot, uint grandparent) { sParents[slot] = grandparent; }
uint forestLower(int slot, uint key) { return atomicMin(sParents[slot], key); }

uint linkParent(int slot) { return sParents[slot]; }
uint packLink(int u, int v) { return uint(u) | (uint(v) << 16u); }
void uniteLink(uint link) {
    uint a = sParents[link & 0xFFFFu], b = sParents[link >> 16u];
    if (a != b) unite(a, b);
}

// One relation of this thread's word U: V's thread (this one where V
// leaves the patch: no faces).
Faces facesOf(int relation, int t, int w, int by, int bz, uint lines[kLines], uint p) {
    Relation rel = kRelations[relation];
    int vby = by + rel.dy, vbz = bz + rel.dz;
    bool inPatch = p != 0u && vby >= 0 && vby < kPatchBundlesY && vbz >= 0;
    const int tv = inPatch ? patchThreadOf(w, vby, vbz) : t;
    Faces f = facesTo(tv);
    if (relation == 0 && w > 0 && (p & 1u) != 0u && (sForeground[t - 1] >> 31u) != 0u) f.edges |= kBeforeEdge;
    for (int k = 0; k < kMostTerms; ++k) {
        if (k >= rel.terms) continue;
        FaceTerm term = rel.term[k];
        uint fu = linesOf(lines, term.uLines), fv = 0u, before = 0u, after = 0u;
        for (int l = 0; l < kLines; ++l) {
            if (!inPatch || ((term.vLines >> uint(l)) & 1u) == 0u) continue;
            fv |= sLines[l * kThreads + tv];
            if (w > 0) before |= sLines[l * kThreads + tv - 1];
            if (w + 1 < kPatchWords) after |= sLines[l * kThreads + tv + 1];
        }
        addTerm(f, k, fu, fv, term.across);
        // One step across the word's edges, to the words beside V's.
        if (term.across && (fu & 1u) != 0u && (before >> 31u) != 0u) f.edges |= 1u << uint(2 * k);
        if (term.across && (fu >> 31u) != 0u && (after & 1u) != 0u) f.edges |= 2u << uint(2 * k);
    }
    return f;
}

// The 32 voxels of word wx of line (y, z), a bit each by the criterion;
// past the width, 0. A word inside the width takes a loop of constant
// length, which compilers unroll into 32 independent fetches.
uint inputLineWord(uint wx, uint y, uint z) {
    const int x0 = int(wx) * kWordBits;
    uint word = 0u;
    if (x0 + kWordBits <= imageSize.x) {
        for (int i = 0; i < kWordBits; ++i)
            if (isForegroundValue(pixelValue(ivec3(x0 + i, int(y), int(z))))) word |= 1u << uint(i);
        return word;
    }
    for (int i = 0; x0 + i < imageSize.x; ++i)
        if (isForegroundValue(pixelValue(ivec3(x0 + i, int(y), int(z))))) word |= 1u << uint(i);
    return word;
}

void main() {
    clearTable();
    const PatchPlace at = patchPlace();
    const int t = at.t, w = at.w, by = at.by, bz = at.bz;
    const uint wx = at.wx, gby = at.gby, gbz = at.gbz;
    const bool inside = at.inside;

    // 1. The lines, their bits and their OR.
    uint lines[kLines];
    uint p = 0u;
    for (int l = 0; l < kLines; ++l) {
        uint y = gby * uint(kBundleHeight) + uint(l % kBundleHeight);
        uint z = gbz * uint(kBundleDepth) + uint(l / kBundleHeight);
        bool inVolume = inside && y < volumeHeight() && z < volumeDepth();
        lines[l] = inVolume ? inputLineWord(wx, y, z) : 0u;
        if (inVolume) bits[lineWord(wx, y, z)] = lines[l];
        sLines[l * kThreads + t] = lines[l];
        p |= lines[l];
    }
    sForeground[t] = p;
#if CONNECTIVITY != 6
    if (inside) foreground[bundleWord(wx, gby, gbz)] = p;
#endif

    // 2. The nodes, each its own parent.
    {
        int r = 0;
        for (uint starts = runStarts(p); starts != 0u; starts &= starts - 1u, ++r) {
            ivec2 first = firstVoxelOf(lines, runFrom(p, lowestBit(starts)));
            sParents[r * kThreads + t] =
                localKey(w * kWordBits + first.y, by * kBundleHeight + first.x % kBundleHeight,
                         bz * kBundleDepth + first.x / kBundleHeight);
        }
    }
    if (t == 0) startLinkQueue();
    barrier();

    // 3. The links inside the patch, a relation a round (or more where the
    // queue fills up), united by the whole work group.
    int round = 0;
    for (int relation = 0; relation < kRelationCount; ++relation) {
        Faces f = facesOf(relation, t, w, by, bz, lines, p);
        bool finished = false;
        for (bool again = true; again; ++round) {
            if (!finished) finished = queueLinks(round, relation, t, f);
            again = uniteQueued(round, finished);
        }
    }

    // 4. Every node's patch-local root, as a volume key.
    if (!inside) return;
    const uvec3 group = gl_WorkGroupID;  // the patch
    const uint x0 = group.x * uint(kPatchX), y0 = group.y * uint(kPatchY), z0 = group.z * uint(kPatchZ);
    const uint word = bundleWord(wx, gby, gbz);
    const int runs = popCount(runStarts(p));
    for (int r = 0; r < runs; ++r) {
        uint root = rootHalving(sParents[r * kThreads + t]);
        storeParent(slotOf(word, r), keyOf(x0 + uint(xOfLocalKey(root)), y0 + uint(yOfLocalKey(root)),
                                           z0 + uint(zOfLocalKey(root))));
    }
}

// local_merge, for a volume on the node grid (DIMENSIONS 3): the sibling of
// local_merge.comp for the volumes local_merge_volume.comp's bundle nodes
// do not take (segments, threshold and delta, and binary volumes too narrow
// for them: ComputeResources::reserve), and the only stage that reads the
// whole input. A file of its own rather than local_merge.comp with a third
// axis: a 3-D texture has no gather, a node has 13 backward neighbours
// (LINK_VOXELS), and a thread takes a column of slices, not a line segment
// whose left links chain into runs. One work group per patch of
// PATCH_W x PATCH_H x PATCH_D nodes; a thread takes the nodes of its (x, y)
// in every PATCH_SLICES_PER_PASS-th slice of the patch:
//   1. each node's foreground mask (a fetch per voxel; the threads of a node
//      line read consecutive voxels);
//   2. union-find in shared memory over the links to its backward
//      neighbours inside the patch (compute_common.glsl, kBackward), but
//      those another link implies (neighboursLinked);
//   3. every node leaves with its patch-local root in parents and its mask
//      in node_info.
// Links that leave the patch are merge_borders' work. Before all that the
// work groups zero the first clearCount entries of the component table (z
// fields included), the ones the last labelings summed into, for
// final_labels.
layout(local_size_x = PATCH_W, local_size_y = PATCH_H, local_size_z = PATCH_SLICES_PER_PASS) in;

layout(binding = NODE_INFO_IMAGE, NODE_INFO_FORMAT) writeonly uniform uimage3D nodeInfo;

const int kThreads = PATCH_W * PATCH_H * PATCH_SLICES_PER_PASS;
#include "clear_table.glsl"
const int kPasses = PATCH_D / PATCH_SLICES_PER_PASS;  // nodes per thread
const int kPatchNodes = PATCH_W * PATCH_H * PATCH_D;
shared uint patchParents[kPatchNodes];  // keys, as in parents
// Masks a byte each: node i in byte i / kThreads of word i % kThreads, so
// that the nodes of thread t (i = t + k * kThreads) are the bytes of word t
// alone, written at once.
shared uint patchMasks[kThreads * ((kPasses + 3) / 4)];

uint maskAt(int i) {
    return (patchMasks[i % kThreads + kThreads * (i / (4 * kThreads))] >> (8 * ((i / kThreads) & 3))) & 0xFFu;
}

ivec3 patchOrigin() { return ivec3(gl_WorkGroupID) * ivec3(PATCH_W, PATCH_H, PATCH_D); }
int localIndexOf(ivec3 local) { return (local.z * PATCH_H + local.y) * PATCH_W + local.x; }
int localIndex(uint key) { return localIndexOf(nodeOfKey(key) - patchOrigin()); }

// The patch's forest in shared memory (union_find.glsl), as in
// local_merge.comp.
int forestSlot(uint key) { return localIndex(key); }
uint forestLoad(int slot) { return patchParents[slot]; }
void forestHalve(int slot, uint grandparent) { patchParents[slot] = grandparent; }
uint forestLower(int slot, uint key) { return atomicMin(patchParents[slot], key); }

// Does node `local` (mask m) link to its in-patch backward neighbour d?
bool linksInPatch(ivec3 local, uint m, int d) {
    ivec3 b = local + kBackward[d];
    if (!directionLinks(d) || any(lessThan(b, ivec3(0))) || b.x >= PATCH_W || b.y >= PATCH_H) return false;
    uint neighbourMask = maskAt(localIndexOf(b));
    if (neighbourMask == 0u) return false;
#if NODE_W * NODE_H * NODE_D > 1
    return masksLink(m, neighbourMask, d);
#else
    ivec3 p = patchOrigin() + local;
    return pixelLinks(p, pixelValue(p), d);
#endif
}

// kBackward's index of backward offset o.
int backwardIndex(ivec3 o) { return o.z == 0 ? (o.y == 0 ? 0 : 2 + o.x) : 4 + (o.y + 1) * 3 + (o.x + 1); }

#if NODE_W * NODE_H * NODE_D > 1 || defined(CRITERION_SEGMENTS)
// Links imply links: two backward neighbours of a node that both link to it
// and to each other are one tree once either link is united, so the other
// link can be skipped. Equal segment values are transitive, so two segment
// voxels linked to one are linked when they are neighbours; the other
// criteria between single voxels are not. (merge_borders unites every link:
// merge_borders_volume_grid.comp says why.)
#define LINKS_IMPLY 1

// Backward neighbours i and j of a node (foreground masks maskI, maskJ),
// both linked to it: are they linked to each other?
bool backwardNeighboursLinked(int i, int j, uint maskI, uint maskJ) {
    ivec3 o = kBackward[j] - kBackward[i];
    if (any(greaterThan(abs(o), ivec3(1)))) return false;
    // The later of the two links back to the other by direction d.
    bool jFirst = o.z < 0 || (o.z == 0 && (o.y < 0 || (o.y == 0 && o.x < 0)));
    int d = backwardIndex(jFirst ? o : -o);
    if (!directionLinks(d)) return false;
#if NODE_W * NODE_H * NODE_D > 1
    return jFirst ? masksLink(maskI, maskJ, d) : masksLink(maskJ, maskI, d);
#else
    return true;
#endif
}
#endif

#ifdef LINKS_IMPLY
// Are backward neighbours i and j of node `local` (both linked to it, so
// both in the patch and foreground) linked to each other? Such a link has
// both ends before this node and inside the patch, so local_merge unites it,
// or a path that implies it, itself: by induction over raster order, a link
// skipped for it is implied.
bool neighboursLinked(ivec3 local, int i, int j) {
    return backwardNeighboursLinked(i, j, maskAt(localIndexOf(local + kBackward[i])),
                                    maskAt(localIndexOf(local + kBackward[j])));
}
#endif

// Node `local`'s unions with its linked backward neighbours in the patch,
// but those implied by another (neighboursLinked) or whose neighbour reads
// the parent the last union read.
void uniteNode(ivec3 local, uint key, uint mask) {
    uint linked = 0u;  // bit d: linked to neighbour d
    uint lastTarget = kNone;
    for (int d = 0; d < kBackwardCount; ++d) {
        if (!linksInPatch(local, mask, d)) continue;
#ifdef LINKS_IMPLY
        bool implied = false;
        for (uint earlier = linked; earlier != 0u && !implied; earlier &= earlier - 1u)
            implied = neighboursLinked(local, findLSB(earlier), d);
        linked |= 1u << uint(d);
        if (implied) continue;
#endif
        uint target = patchParents[localIndexOf(local + kBackward[d])];
        if (target == lastTarget) continue;
        unite(key, target);
        lastTarget = target;
    }
}

// The thread's k-th node, in patch coordinates.
ivec3 localNode(int k) { return ivec3(gl_LocalInvocationID) + ivec3(0, 0, k * PATCH_SLICES_PER_PASS); }

void main() {
    clearTable();
    const int t = int(gl_LocalInvocationIndex);
    uint masks[kPasses];
    uint maskWords[(kPasses + 3) / 4];
    for (int w = 0; w < (kPasses + 3) / 4; ++w) maskWords[w] = 0u;
    for (int k = 0; k < kPasses; ++k) {
        const ivec3 n = patchOrigin() + localNode(k);
        masks[k] = insideGrid(n) ? nodeMask(n) : 0u;
        patchParents[t + k * kThreads] = masks[k] != 0u ? ownKey(n, masks[k]) : kNone;
        maskWords[k / 4] |= masks[k] << (8 * (k & 3));
    }
    for (int w = 0; w < (kPasses + 3) / 4; ++w) patchMasks[t + w * kThreads] = maskWords[w];
    barrier();
    for (int k = 0; k < kPasses; ++k)
        if (masks[k] != 0u) uniteNode(localNode(k), ownKey(patchOrigin() + localNode(k), masks[k]), masks[k]);
    barrier();
    for (int k = 0; k < kPasses; ++k) {
        const ivec3 n = patchOrigin() + localNode(k);
        if (!insideGrid(n)) continue;
        storeParent(n, masks[k] != 0u ? rootHalving(ownKey(n, masks[k])) : kNone);
        imageStore(nodeInfo, n, uvec4(masks[k]));
    }
}

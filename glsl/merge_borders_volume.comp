// merge_borders, for a volume (DIMENSIONS 3): the sibling of
// merge_borders.comp. Joins the trees of the links that leave a patch: one
// work group per patch walks the nodes on the faces its backward links leave
// by (its front slice, then the ring of each slice behind it: x first or
// last, y first or last), and each of their links to a node of another patch
// is one global union (compute_common.glsl, unite), but those another link
// of the node implies (LINKS_IMPLY): where a large component crosses a face,
// the nine neighbours of a node in the slice before mostly link to one
// another, and one union of theirs serves. Binary blocks link by their masks
// in node_info; voxels (segments, threshold) by the criterion on the input.
layout(local_size_x = BORDER_THREADS) in;

layout(binding = NODE_INFO_IMAGE, r8ui) readonly uniform uimage3D nodeInfo;

const int kFrontNodes = PATCH_W * PATCH_H;
const int kRingNodes = 2 * PATCH_W + 2 * (PATCH_H - 2);
const int kBorderNodes = kFrontNodes + (PATCH_D - 1) * kRingNodes;

// Border node i of the patch, in the patch's coordinates.
ivec3 borderNode(int i) {
    if (i < kFrontNodes) return ivec3(i % PATCH_W, i / PATCH_W, 0);
    int j = i - kFrontNodes, z = 1 + j / kRingNodes, r = j % kRingNodes;
    if (r < PATCH_W) return ivec3(r, 0, z);
    if (r < 2 * PATCH_W) return ivec3(r - PATCH_W, PATCH_H - 1, z);
    r -= 2 * PATCH_W;
    return r < PATCH_H - 2 ? ivec3(0, 1 + r, z) : ivec3(PATCH_W - 1, 1 + r - (PATCH_H - 2), z);
}

// The directions d (bit d) whose backward neighbour lies in the patch.
uint inPatchDirections(ivec3 local) {
    uint directions = 0u;
    for (int d = 0; d < kBackwardCount; ++d) {
        ivec3 m = local + kBackward[d];
        if (m.x >= 0 && m.y >= 0 && m.z >= 0 && m.x < PATCH_W && m.y < PATCH_H) directions |= 1u << uint(d);
    }
    return directions;
}

void main() {
    const ivec3 origin = ivec3(gl_WorkGroupID) * ivec3(PATCH_W, PATCH_H, PATCH_D);
    for (int i = int(gl_LocalInvocationID.x); i < kBorderNodes; i += BORDER_THREADS) {
        const ivec3 local = borderNode(i);
        const ivec3 n = origin + local;
        if (!insideGrid(n)) continue;
        uint mask = imageLoad(nodeInfo, n).r & kMaskBits;
        if (mask == 0u) continue;
        // Bit d: linked to backward neighbour d, in the patch or not.
        uint linked = 0u;
#if NODE_W * NODE_H * NODE_D > 1
        uint neighbourMasks[13];
#endif
        for (int d = 0; d < kBackwardCount; ++d) {
            ivec3 b = n + kBackward[d];
            if (!directionLinks(d) || !insideGrid(b)) continue;
#if NODE_W * NODE_H * NODE_D > 1
            neighbourMasks[d] = imageLoad(nodeInfo, b).r & kMaskBits;
            if (masksLink(mask, neighbourMasks[d], d)) linked |= 1u << uint(d);
#else
            if (pixelLinks(n, pixelValue(n), d)) linked |= 1u << uint(d);
#endif
        }
        const uint inPatch = inPatchDirections(local);
        // The links known to join their trees by the time this node's
        // unions are done: local_merge's (united or implied there), and its
        // links out before d, each united or implied in turn.
        uint joined = linked & inPatch;
        for (uint leaving = linked & ~inPatch; leaving != 0u; leaving &= leaving - 1u) {
            const int d = findLSB(leaving);
#ifdef LINKS_IMPLY
            bool implied = false;
            for (uint earlier = joined; earlier != 0u && !implied; earlier &= earlier - 1u) {
                const int e = findLSB(earlier);
#if NODE_W * NODE_H * NODE_D > 1
                implied = backwardNeighboursLinked(e, d, neighbourMasks[e], neighbourMasks[d]);
#else
                implied = backwardNeighboursLinked(e, d, 0u, 0u);
#endif
            }
            joined |= 1u << uint(d);
            if (implied) continue;
#endif
            // Equal reads are one tree already (parents only point into their tree).
            uint parent = loadParent(n), target = loadParent(n + kBackward[d]);
            if (parent != target) unite(parent, target);
        }
    }
}

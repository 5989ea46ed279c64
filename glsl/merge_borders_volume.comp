// merge_borders, for a volume (DIMENSIONS 3): the sibling of
// merge_borders.comp. Joins the trees of the links that leave a patch: one
// work group per patch walks the nodes on the faces its backward links leave
// by (its front slice, then the ring of each slice behind it: x first or
// last, y first or last), and each of their links to a node of another patch
// is one global union (compute_common.glsl, unite). Binary blocks link by
// their masks in node_info; voxels (segments, threshold) by the criterion on
// the input.
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

bool outsidePatch(ivec3 local, int d) {
    ivec3 m = local + kBackward[d];
    return m.x < 0 || m.y < 0 || m.z < 0 || m.x >= PATCH_W || m.y >= PATCH_H;
}

// Does node n (patch coordinates `local`, foreground mask `mask`) link to its
// backward neighbour d, a node of another patch?
bool linksOut(ivec3 n, ivec3 local, uint mask, int d) {
    ivec3 b = n + kBackward[d];
    if (!directionLinks(d) || !outsidePatch(local, d) || !insideGrid(b)) return false;
#if NODE_W * NODE_H * NODE_D > 1
    return masksLink(mask, imageLoad(nodeInfo, b).r & kMaskBits, d);
#else
    return pixelLinks(n, pixelValue(n), d);
#endif
}

void main() {
    const ivec3 origin = ivec3(gl_WorkGroupID) * ivec3(PATCH_W, PATCH_H, PATCH_D);
    for (int i = int(gl_LocalInvocationID.x); i < kBorderNodes; i += BORDER_THREADS) {
        const ivec3 local = borderNode(i);
        const ivec3 n = origin + local;
        if (!insideGrid(n)) continue;
        uint mask = imageLoad(nodeInfo, n).r & kMaskBits;
        if (mask == 0u) continue;
        for (int d = 0; d < kBackwardCount; ++d) {
            if (!linksOut(n, local, mask, d)) continue;
            // Equal reads are one tree already (parents only point into their tree).
            uint parent = loadParent(n), target = loadParent(n + kBackward[d]);
            if (parent != target) unite(parent, target);
        }
    }
}

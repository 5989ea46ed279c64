// merge_borders, for a volume (DIMENSIONS 3): the sibling of
// merge_borders.comp. Joins the trees of the links that leave a patch: one
// work group per patch, one thread per node, and the nodes on the faces
// their backward links leave by (x first or last, y first or last, z first)
// each make one global union (compute_common.glsl, unite) per link to a node
// of another patch. Binary blocks link by their masks in node_info; voxels
// (segments, threshold) by the criterion on the input.
layout(local_size_x = PATCH_W, local_size_y = PATCH_H, local_size_z = PATCH_D) in;

layout(binding = NODE_INFO_IMAGE, r8ui) readonly uniform uimage3D nodeInfo;

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
    const ivec3 local = ivec3(gl_LocalInvocationID);
    const bool border = local.x == 0 || local.x == PATCH_W - 1 || local.y == 0 || local.y == PATCH_H - 1 ||
                        local.z == 0;
    const ivec3 n = ivec3(gl_WorkGroupID) * ivec3(PATCH_W, PATCH_H, PATCH_D) + local;
    if (!border || !insideGrid(n)) return;
    uint mask = imageLoad(nodeInfo, n).r & kMaskBits;
    if (mask == 0u) return;
    for (int d = 0; d < kBackwardCount; ++d) {
        if (!linksOut(n, local, mask, d)) continue;
        // Equal reads are one tree already (parents only point into their tree).
        uint parent = loadParent(n), target = loadParent(n + kBackward[d]);
        if (parent != target) unite(parent, target);
    }
}

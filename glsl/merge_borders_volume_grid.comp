// merge_borders, for a volume on the node grid (DIMENSIONS 3): the sibling
// of merge_borders.comp (local_merge_volume_grid.comp says for which
// volumes), a file of its own because a patch's faces hold about half of its
// nodes, not a thin border. Joins the trees of the links that leave a patch: one
// work group per patch, one thread per node, and the nodes on the faces
// their backward links leave by (x first or last, y first or last, z first)
// each make one global union (union_find.glsl, unite) per link to a node
// of another patch. Binary blocks link by their masks in node_info; voxels
// (segments, threshold) by the criterion on the input.
//
// Every link is united, even where another link of the node implies it:
// each union halves the paths it walks, and those repeated walks are what
// keep the trees shallow for the unions after them and for count_roots and
// final_labels. Skipping implied links left fewer unions that each walked
// far longer paths, and the stage ran slower.
layout(local_size_x = PATCH_W, local_size_y = PATCH_H, local_size_z = PATCH_D) in;

layout(binding = NODE_INFO_IMAGE, NODE_INFO_FORMAT) readonly uniform uimage3D nodeInfo;

void main() {
    const ivec3 origin = ivec3(gl_WorkGroupID) * ivec3(PATCH_W, PATCH_H, PATCH_D);
    const ivec3 local = ivec3(gl_LocalInvocationID);
    if (local.x != 0 && local.x != PATCH_W - 1 && local.y != 0 && local.y != PATCH_H - 1 && local.z != 0) return;
    const ivec3 n = origin + local;
    if (!insideGrid(n)) return;
    uint mask = imageLoad(nodeInfo, n).r & kMaskBits;
    if (mask == 0u) return;
    for (int d = 0; d < kBackwardCount; ++d) {
        ivec3 b = n + kBackward[d];
        ivec3 m = local + kBackward[d];
        if (!directionLinks(d) || !insideGrid(b)) continue;
        // Links inside the patch are local_merge's.
        if (m.x >= 0 && m.y >= 0 && m.z >= 0 && m.x < PATCH_W && m.y < PATCH_H) continue;
#if NODE_W * NODE_H * NODE_D > 1
        if (!masksLink(mask, imageLoad(nodeInfo, b).r & kMaskBits, d)) continue;
#else
        if (!pixelLinks(n, pixelValue(n), d)) continue;
#endif
        // Equal reads are one tree already (parents only point into their tree).
        uint parent = loadParent(n), target = loadParent(b);
        if (parent != target) unite(parent, target);
    }
}

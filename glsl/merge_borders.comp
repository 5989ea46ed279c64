// merge_borders: joins the trees of the links that leave a patch. One work
// group per patch walks the patch's border nodes (its top row, its left and
// right columns); each link of theirs to a node of another patch is one global
// union (union_find.glsl, unite), unless the border node before it shows
// the union implied (redundantLink). Binary blocks link by their masks in
// node_info; pixels (segments, threshold) by the criterion on the input.
layout(local_size_x = BORDER_THREADS) in;

layout(binding = NODE_INFO_IMAGE, NODE_INFO_FORMAT) readonly uniform uimage2D nodeInfo;

const int kBorderNodes = PATCH_W + 2 * (PATCH_H - 1);

// Border node i of the patch, in the patch's coordinates, and the border node
// before it along the same side (x or y one less), or (-1, -1) for the first.
ivec2 borderNode(int i) {
    if (i < PATCH_W) return ivec2(i, 0);                                   // top row
    if (i < PATCH_W + PATCH_H - 1) return ivec2(0, i - PATCH_W + 1);         // left column
    return ivec2(PATCH_W - 1, i - (PATCH_W + PATCH_H - 1) + 1);              // right column
}
ivec2 previousOnBorder(ivec2 local, int i) {
    if (i == 0) return ivec2(-1);
    return i < PATCH_W ? local - ivec2(1, 0) : local - ivec2(0, 1);
}

bool outsidePatch(ivec2 local, int d) {
    ivec2 m = local + kBackward[d];
    return m.x < 0 || m.y < 0 || m.x >= PATCH_W;
}

// Does node n (patch coordinates `local`, foreground mask `mask`) link to its
// backward neighbour d, a node of another patch?
bool linksOut(ivec2 n, ivec2 local, uint mask, int d) {
    ivec2 b = n + kBackward[d];
    if (!outsidePatch(local, d) || !insideGrid(b)) return false;
#if NODE_W * NODE_H > 1
    return masksLink(mask, imageLoad(nodeInfo, b).r & kMaskBits, d);
#else
    return pixelLinks(n, pixelValue(n), d);
#endif
}

// Is node n's link to a node whose parent reads `target` implied by the
// border node before it? That node must read the same parent as n (one
// tree) and link out to a node that reads `target` too. Parents only point
// into their tree, so equal reads are one tree however they interleave with
// other unions; along the border, by induction, every link skipped is
// implied by links that are united.
bool redundantLink(ivec2 origin, ivec2 local, int i, uint parent, uint target) {
    ivec2 before = previousOnBorder(local, i);
    if (before.x < 0) return false;
    ivec2 p = origin + before;
    if (!insideGrid(p)) return false;
    uint mask = imageLoad(nodeInfo, p).r & kMaskBits;
    if (mask == 0u || loadParent(p) != parent) return false;
    for (int d = 0; d < 4; ++d)
        if (linksOut(p, before, mask, d) && loadParent(p + kBackward[d]) == target) return true;
    return false;
}

void main() {
    ivec2 origin = ivec2(gl_WorkGroupID.xy) * ivec2(PATCH_W, PATCH_H);
    for (int i = int(gl_LocalInvocationID.x); i < kBorderNodes; i += BORDER_THREADS) {
        ivec2 local = borderNode(i);
        ivec2 n = origin + local;
        if (!insideGrid(n)) continue;
        uint mask = imageLoad(nodeInfo, n).r & kMaskBits;
        if (mask == 0u) continue;
        for (int d = 0; d < 4; ++d) {
            if (!linksOut(n, local, mask, d)) continue;
            uint parent = loadParent(n);
            uint target = loadParent(n + kBackward[d]);
            if (redundantLink(origin, local, i, parent, target)) continue;
            unite(parent, target);
        }
    }
}

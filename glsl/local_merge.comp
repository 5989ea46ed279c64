// local_merge: the only stage that reads the whole input. One work group per
// tile of TILE_W x TILE_H nodes: every node's foreground mask (one
// textureGather for a binary block, one fetch for a pixel), then union-find
// in shared memory over the links inside the tile (at 8-connectivity a link
// that two earlier links imply is skipped: neighboursLinked); every node leaves with its
// tile-local root in parents and its mask in node_info. Links that leave the
// tile are merge_borders' work.
layout(local_size_x = TILE_W, local_size_y = TILE_ROWS_PER_PASS) in;

layout(binding = NODE_INFO_IMAGE, r8ui) writeonly uniform uimage2D nodeInfo;

const int kPasses = TILE_H / TILE_ROWS_PER_PASS;  // node rows per thread
shared uint tileParents[TILE_W * TILE_H];          // keys, as in parents
shared uint tileMasks[TILE_W * TILE_H];

ivec2 tileOrigin() { return ivec2(gl_WorkGroupID.xy) * ivec2(TILE_W, TILE_H); }
ivec2 localNode(int k) { return ivec2(gl_LocalInvocationID.x, int(gl_LocalInvocationID.y) + k * TILE_ROWS_PER_PASS); }
int localIndexOf(ivec2 local) { return local.y * TILE_W + local.x; }
int localIndex(uint key) { return localIndexOf(nodeOfKey(key) - tileOrigin()); }

// Path halving: each step points the node at its grandparent, so chains
// stay short while the tile's unions run. A plain store is safe: a node that
// is not a root never becomes one again, and a grandparent is an ancestor
// with a smaller key; a union racing on the same texel retries on its own.
uint localRoot(uint key) {
    for (;;) {
        uint parent = tileParents[localIndex(key)];
        if (parent == key) return key;
        uint grandparent = tileParents[localIndex(parent)];
        if (grandparent == parent) return parent;
        tileParents[localIndex(key)] = grandparent;
        key = grandparent;
    }
}

// unite() of compute_common.glsl, on the tile's shared copy.
void uniteLocal(uint a, uint b) {
    for (;;) {
        a = localRoot(a);
        b = localRoot(b);
        if (a == b) return;
        if (a < b) {
            uint old = atomicMin(tileParents[localIndex(b)], a);
            if (old == b) return;
            b = old;
        } else {
            uint old = atomicMin(tileParents[localIndex(a)], b);
            if (old == a) return;
            a = old;
        }
    }
}

// Does node `local` (mask m) link to its in-tile backward neighbour d?
bool linksInTile(ivec2 local, uint m, int d) {
    ivec2 b = local + kBackward[d];
    if (b.x < 0 || b.y < 0 || b.x >= TILE_W) return false;
    uint neighbourMask = tileMasks[localIndexOf(b)];
    if (neighbourMask == 0u) return false;
#if NODE_W * NODE_H > 1
    return masksLink(m, neighbourMask, d);
#else
    ivec2 p = tileOrigin() + local;
    return pixelLinks(p, pixelValue(p), d);
#endif
}

#if CONNECTIVITY == 8 && (NODE_H == 2 || defined(CRITERION_SEGMENTS))
// Are backward neighbours a and b of node `local` (both linked to it, so both
// in the tile and foreground) linked to each other? Only the pairs that touch
// are asked: U with UL (UL is U's left neighbour), UR with U (U is UR's left
// neighbour), L with U (U is L's upper-right neighbour), L with UL (UL is L's
// upper neighbour). Such a link has both ends before this node in raster
// order and inside the tile, so local_merge unites it (or a path that
// implies it) itself: this node need not. Equal segment values are
// transitive, so for segments two neighbours linked to this node always are.
bool neighboursLinked(ivec2 local, int a, int b) {
#if NODE_H == 2
    ivec2 first = local + kBackward[a];
    // From a's point of view b is its neighbour e.
    int e = (a == 2 && b == 1) ? 0 : (a == 3 && b == 2) ? 0 : (a == 0 && b == 2) ? 3 : 2;
    return masksLink(tileMasks[localIndexOf(first)], tileMasks[localIndexOf(local + kBackward[b])], e);
#else
    return true;
#endif
}
#endif

void main() {
    for (int k = 0; k < kPasses; ++k) {
        ivec2 local = localNode(k);
        ivec2 n = tileOrigin() + local;
        uint mask = insideGrid(n) ? nodeMask(n) : 0u;
        tileMasks[localIndexOf(local)] = mask;
        tileParents[localIndexOf(local)] = mask != 0u ? ownKey(n, mask) : kNone;
    }
    barrier();
    for (int k = 0; k < kPasses; ++k) {
        ivec2 local = localNode(k);
        uint mask = tileMasks[localIndexOf(local)];
        if (mask == 0u) continue;
        uint key = ownKey(tileOrigin() + local, mask);
#if CONNECTIVITY == 8 && (NODE_H == 2 || defined(CRITERION_SEGMENTS))
        bool link[4];
        for (int d = 0; d < 4; ++d) link[d] = linksInTile(local, mask, d);
        // A link to a neighbour that is itself linked to one this node
        // unites with adds nothing (see neighboursLinked).
        if (link[2]) {
            if (link[1] && neighboursLinked(local, 2, 1)) link[1] = false;
            if (link[3] && neighboursLinked(local, 3, 2)) link[3] = false;
            if (link[0] && neighboursLinked(local, 0, 2)) link[0] = false;
        } else if (link[0] && link[1] && neighboursLinked(local, 0, 1)) {
            link[1] = false;
        }
        for (int d = 0; d < 4; ++d)
            if (link[d]) uniteLocal(key, tileParents[localIndexOf(local + kBackward[d])]);
#else
        for (int d = 0; d < 4; ++d)
            if (linksInTile(local, mask, d)) uniteLocal(key, tileParents[localIndexOf(local + kBackward[d])]);
#endif
    }
    barrier();
    for (int k = 0; k < kPasses; ++k) {
        ivec2 local = localNode(k);
        ivec2 n = tileOrigin() + local;
        if (!insideGrid(n)) continue;
        uint mask = tileMasks[localIndexOf(local)];
        imageStore(parents, n, uvec4(mask != 0u ? localRoot(ownKey(n, mask)) : kNone));
        imageStore(nodeInfo, n, uvec4(mask));
    }
}

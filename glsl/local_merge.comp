// local_merge: the only stage that reads the whole input. One work group per
// tile of TILE_W x TILE_H nodes: every node's foreground mask (one
// textureGather for a binary block, one fetch for a pixel), then union-find
// in shared memory over the links inside the tile; every node leaves with its
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
        for (int d = 0; d < 4; ++d)
            if (linksInTile(local, mask, d)) uniteLocal(key, tileParents[localIndexOf(local + kBackward[d])]);
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

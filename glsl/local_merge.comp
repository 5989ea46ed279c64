// local_merge: the only stage that reads the input. One work group per tile
// of TILE_W x TILE_H nodes; per node the criterion gives its foreground mask
// and backward links (compute_common.glsl), the links inside the tile are
// joined in shared memory, and every node leaves with its tile-local root in
// parents and its mask and links in node_info. Links that leave the tile are
// merge_borders' work.
layout(local_size_x = TILE_W, local_size_y = TILE_ROWS_PER_PASS) in;

layout(binding = NODE_INFO_IMAGE, r8ui) writeonly uniform uimage2D nodeInfo;

const int kPasses = TILE_H / TILE_ROWS_PER_PASS;  // node rows per thread
shared uint tileParents[TILE_W * TILE_H];          // keys, as in parents

ivec2 tileOrigin() { return ivec2(gl_WorkGroupID.xy) * ivec2(TILE_W, TILE_H); }
int localIndex(uint key) {
    ivec2 local = nodeOfKey(key) - tileOrigin();
    return local.y * TILE_W + local.x;
}

uint localRoot(uint key) {
    for (;;) {
        uint parent = tileParents[localIndex(key)];
        if (parent == key) return key;
        key = parent;
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

void main() {
    uint masks[kPasses], links[kPasses], keys[kPasses];
    for (int k = 0; k < kPasses; ++k) {
        ivec2 local = ivec2(gl_LocalInvocationID.x, int(gl_LocalInvocationID.y) + k * TILE_ROWS_PER_PASS);
        ivec2 n = tileOrigin() + local;
        masks[k] = 0u;
        links[k] = 0u;
        keys[k] = kNone;
        if (insideGrid(n)) {
            vec4 values[kNodePixels];
            masks[k] = foregroundOf(n, values);
            if (masks[k] != 0u) {
                links[k] = backwardLinks(n, masks[k], values);
                keys[k] = ownKey(n, masks[k]);
            }
        }
        tileParents[local.y * TILE_W + local.x] = keys[k];
    }
    barrier();
    for (int k = 0; k < kPasses; ++k) {
        ivec2 local = ivec2(gl_LocalInvocationID.x, int(gl_LocalInvocationID.y) + k * TILE_ROWS_PER_PASS);
        for (int d = 0; d < 4; ++d) {
            ivec2 m = local + kBackward[d];
            bool inTile = all(greaterThanEqual(m, ivec2(0))) && m.x < TILE_W;
            if ((links[k] & (1u << uint(d))) != 0u && inTile) uniteLocal(keys[k], tileParents[m.y * TILE_W + m.x]);
        }
    }
    barrier();
    for (int k = 0; k < kPasses; ++k) {
        ivec2 local = ivec2(gl_LocalInvocationID.x, int(gl_LocalInvocationID.y) + k * TILE_ROWS_PER_PASS);
        ivec2 n = tileOrigin() + local;
        if (!insideGrid(n)) continue;
        imageStore(parents, n, uvec4(masks[k] != 0u ? localRoot(keys[k]) : kNone));
        imageStore(nodeInfo, n, uvec4(masks[k] | (links[k] << kLinkShift)));
    }
}

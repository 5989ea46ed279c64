// scan_roots, up-sweep, level 0: for each block of kScanBlock texels of a
// row of the scan grid (common.glsl's scanTexelOfId), the mask of its roots
// (bit i: texel i), so that the down-sweep's last level numbers a root with
// two fetches (rootLabelOf). Texel v of the scan grid is node
// (v.x mod gridSize.x, v.y): a block reads consecutive nodes of one row, two
// at a time by textureGather where the context has it (GATHER_IDS), each
// pair's node row below unused; a pair that wraps to the row's start (the
// scan grid's next node grid) or passes the grid is fetched a node at a
// time.
uniform sampler2D ids;
uniform ivec2 scanSize;
out uvec4 fragCount;

// The bits of the ID of the first pixel of node n's pixel row h (the
// node's place in the scan grid's h-th node grid). A node is a root at
// that place where its ID is one of the NODE_W IDs from there down (a
// pixel further right encodes one less): its own, with its first pixel in
// that row. No other node holds one of them, and the background's 0 is
// below them all, so one subtraction tells it.
uint rowIdBits(ivec2 n, int h) { return floatBitsToUint(encodeId(n * kNode + ivec2(0, h))); }
bool isRootOf(uint rowBits, float id) { return rowBits - floatBitsToUint(id) < uint(NODE_W); }
bool rootInScanTexel(ivec2 v) {
    ivec2 n = ivec2(v.x % gridSize.x, v.y);
    return isRootOf(rowIdBits(n, v.x / gridSize.x), texelFetch(ids, n, 0).r);
}

void main() {
    ivec2 o = ivec2(gl_FragCoord.xy);
    int first = o.x * kScanBlock, count = min(kScanBlock, scanSize.x - first);
    uint mask = 0u;
#ifdef GATHER_IDS
    vec2 texel = 1.0 / vec2(textureSize(ids, 0));
    for (int i = 0; i + 1 < count; i += 2) {
        int x = first + i;
        ivec2 n = ivec2(x % gridSize.x, o.y);
        if (n.x + 1 < gridSize.x) {
            // Texels n and n + (1, 0) are the gather's w and z.
            vec4 pair = textureGather(ids, (vec2(n) + 1.0) * texel);
            uint rowBits = rowIdBits(n, x / gridSize.x);
            if (isRootOf(rowBits, pair.w)) mask |= 1u << uint(i);
            if (isRootOf(rowBits - uint(NODE_W), pair.z)) mask |= 2u << uint(i);
        } else {
            if (rootInScanTexel(ivec2(x, o.y))) mask |= 1u << uint(i);
            if (rootInScanTexel(ivec2(x + 1, o.y))) mask |= 2u << uint(i);
        }
    }
    if (count % 2 == 1 && rootInScanTexel(ivec2(first + count - 1, o.y))) mask |= 1u << uint(count - 1);
#else
    for (int i = 0; i < count; ++i)
        if (rootInScanTexel(ivec2(first + i, o.y))) mask |= 1u << uint(i);
#endif
    fragCount = uvec4(mask);
}

// route_roots, second: numbers the routed roots: a root's label is 1 + the number of routed roots
// with a larger ID, i.e. roots earlier in raster order (IDs are inverted).
uniform sampler2D routed;  // the routing block, side x side texels
uniform int side;
uniform int routedCount;
out uvec4 fragLabel;

void main() {
    ivec2 o = ivec2(gl_FragCoord.xy);
    if (o.y * side + o.x >= routedCount) { fragLabel = uvec4(0u); return; }
    float id = texelFetch(routed, o, 0).r;
    uint rank = 0u;
    for (int j = 0; j < routedCount; ++j)
        if (texelFetch(routed, ivec2(j % side, j / side), 0).r > id) ++rank;
    fragLabel = uvec4(rank + 1u);
}

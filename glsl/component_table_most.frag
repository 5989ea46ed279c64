// component_table by slots (Tuning::rasterTable slots), step 2: texel t of
// the MOST_SIDE x MOST_SIDE target takes the most roots first in any of the
// segments t, t + MOST_SIDE^2, t + 2 MOST_SIDE^2, ... (their masks' bits,
// component_table_firsts.frag); the host reads the target back and takes
// its most as the slots a segment needs. A fragment per texel reads its
// segments, so no segment needs a point of its own.
uniform usampler2D firsts;  // component_table_firsts.frag's masks
out vec4 fragColor;

void main() {
    const int kStride = MOST_SIDE * MOST_SIDE;
    ivec2 size = textureSize(firsts, 0);
    int t = int(gl_FragCoord.y) * MOST_SIDE + int(gl_FragCoord.x);
    // Segment s at (s mod size.x, s / size.x), stepped by kStride without
    // a division a step.
    ivec2 s = ivec2(t % size.x, t / size.x), stride = ivec2(kStride % size.x, kStride / size.x);
    uint most = 0u;
    while (s.y < size.y) {
        most = max(most, onesIn(texelFetch(firsts, s, 0).r));
        s += stride;
        if (s.x >= size.x) s += ivec2(-size.x, 1);
    }
    fragColor = vec4(float(most));
}

// Vertical runs by log-step pointer jumping (O'Connell §4, Fig. 4.3).
// Pass 0 gives every foreground pixel the ID of its north neighbour when they
// are connected, else its own ID (this is where IDs are encoded). Each later
// pass replaces a pointer by the pointer it points to, doubling the distance
// covered, so after ceil(log2(h)) passes every pixel holds the ID of the top
// of its run, the run's root (the largest ID in the run).
uniform sampler2D ids;
uniform int passIndex;
out vec4 fragColor;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    if (passIndex == 0) {
        float id = 0.0;
        if (isForeground(p)) id = areConnected(p, p + ivec2(0, -1)) ? encodeId(p + ivec2(0, -1)) : encodeId(p);
        fragColor = vec4(id);
    } else {
        float id = texelFetch(ids, p, 0).r;
        fragColor = vec4(id == 0.0 ? 0.0 : texelFetch(ids, decodeId(id), 0).r);
    }
}

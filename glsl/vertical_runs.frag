// Vertical runs by log-step pointer jumping (O'Connell §4, Fig. 4.3).
// Pass 0 encodes IDs: every foreground pixel points at the highest pixel it
// reaches by walking up to kHops connected pixels north. Each later pass
// follows the pointers of the previous pass kHops times, so the distance
// covered grows kHops-fold per pass (the paper's single hop doubles it):
// after ceil(log_kHops(h)) passes every pixel holds the ID of the top of its
// run, the run's root (the largest ID in the run). Extra fetches are cheap
// next to a pass.
const int kHops = 16;
uniform sampler2D ids;
uniform int passIndex;
out vec4 fragColor;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    if (passIndex == 0) {
        if (!isForeground(p)) { fragColor = vec4(0.0); return; }
        ivec2 top = p;
        for (int hop = 0; hop < kHops && areConnected(top, top + ivec2(0, -1)); ++hop) top.y -= 1;
        fragColor = vec4(encodeId(top));
    } else {
        float id = texelFetch(ids, p, 0).r;
        for (int hop = 0; hop < kHops && id != 0.0; ++hop) {
            float next = texelFetch(ids, decodeId(id), 0).r;
            if (next == id) break;
            id = next;
        }
        fragColor = vec4(id);
    }
}

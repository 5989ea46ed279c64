// resolve_links' link step after resolve_links_values.frag (Tuning::
// rasterResolve fragment): one vertex per square of linkGroup × linkGroup
// nodes sends the value that pass found, if any, to the root it named
// (GL_MAX keeps the largest arriving): one fetch a node. A square of
// several nodes (Tuning::rasterResolveGroup) sends its largest value and
// leaves its other links to the next round.
uniform sampler2D linkValues;  // (value, root ID), or 0
uniform int linkGroup;
flat out float scatterValue;

void main() {
    int squaresAcross = (gridSize.x + linkGroup - 1) / linkGroup;
    ivec2 first = ivec2(gl_VertexID % squaresAcross, gl_VertexID / squaresAcross) * linkGroup;
    vec2 link = vec2(0.0);
    for (int dy = 0; dy < linkGroup; ++dy)
        for (int dx = 0; dx < linkGroup; ++dx) {
            ivec2 n = first + ivec2(dx, dy);
            if (!insideGrid(n)) continue;
            vec2 candidate = texelFetch(linkValues, n, 0).rg;
            if (candidate.x > link.x) link = candidate;
        }
    scatterValue = link.x;
    gl_Position = link.x == 0.0 ? kClipped : pixelPosition(nodeOfId(link.y), gridSize, 0.0);
}

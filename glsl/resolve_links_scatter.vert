// resolve_links' link step after resolve_links_values.frag (Tuning::
// rasterResolve fragment): one vertex per node sends the value that pass
// found, if any, to the root it named (GL_MAX keeps the largest arriving):
// one fetch a vertex.
uniform sampler2D linkValues;  // (value, root ID), or 0
flat out float scatterValue;

void main() {
    vec2 link = texelFetch(linkValues, nodeOfVertex(0), 0).rg;
    scatterValue = link.x;
    gl_Position = link.x == 0.0 ? kClipped : pixelPosition(nodeOfId(link.y), gridSize, 0.0);
}

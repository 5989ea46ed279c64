// component_table.vert by runs (Tuning::rasterTable runs): the first node
// of each run of one root along a row segment, not the first of each root
// in the segment, sends the point, so a vertex reads two texels instead of
// walking its segment (component_table_runs.frag sums the run). A root
// that leaves and comes back in a segment sends a point per run: more
// points, far fewer fetches.
uniform sampler2D ids;          // every node's root ID
uniform ivec2 tableSize;
uniform int tableSpread;        // copies of the table (tablePointPosition)
flat out ivec2 scatterNode;
flat out float scatterRoot;

void main() {
    ivec2 n = nodeOfVertex(0);
    float root = texelFetch(ids, n, 0).r;
    gl_Position = kClipped;
    if (root == 0.0) return;
    if (n.x % kSegment != 0 && texelFetch(ids, n - ivec2(1, 0), 0).r == root) return;
    scatterNode = n;
    scatterRoot = root;
    uint label = rootLabelOf(root);
    gl_Position = tablePointPosition(label, n, tableSize, tableSpread);
}

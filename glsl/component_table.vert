// The component table by scattering into it (O'Connell §7, Figs. 7.1-7.3,
// with area and centroid sums beside the boxes). The first node of each
// component in a row segment of kSegment nodes sends a point to the
// component's table entry (label - 1); component_table.frag sums the
// segment there. Culled or not, every vertex writes its outputs, so they
// are kept small: the segment's work is the fragment's.
uniform sampler2D ids;          // every node's root ID
uniform ivec2 tableSize;
uniform int tableSpread;        // copies of the table (tablePointPosition)
flat out ivec2 scatterNode;
flat out float scatterRoot;

void main() {
    ivec2 n = nodeOfVertex(0);
    float root = texelFetch(ids, n, 0).r;
    gl_Position = kClipped;
    if (!firstOfRootInSegment(ids, n, root)) return;
    scatterNode = n;
    scatterRoot = root;
    uint label = rootLabelOf(root);
    gl_Position = tablePointPosition(label, n, tableSize, tableSpread);
}

// The vertex of column processing's point steps (column_processing_gather.vert,
// column_processing_scatter.vert and column_processing_points.vert, which
// take this file with #include): one vertex per group of columnGroup nodes
// (consecutive rows) of a column of every block, drawn as a point at the
// root it scatters to, or clipped.
uniform sampler2D columns;   // run tops, and the labels of processed columns
uniform int blockWidth;
uniform int columnInBlock;
// Nodes per vertex (Tuning::rasterColumnGroup). A vertex draws one point,
// so a group of several nodes serves one of the roots its nodes would have
// raised; resolve_links links what the others leave.
uniform int columnGroup;
// Nodes per vertex of the scatter back (Tuning::rasterScatterGroup; the
// column group unless set): the scatter back's draw reads every column's
// labels once all are gathered, so its groups may be larger than the
// gathers' without lengthening their chain of draws.
uniform int scatterGroup;
flat out float scatterValue;

#ifdef COLUMN_ACCUMULATORS
// With Tuning::rasterColumnDraws 1 there is no update column: `columns` is
// the roots of the column parity a draw reads (column c - 1's for the gather
// into column c), which still holds the vertical runs in the other parity's
// columns; every column's labels stay where its gather raised them, so a
// node's label is two fetches, its run's top and that top's value. The
// scatter back of every column reads both parities (`columns` the even
// columns' roots, oddColumns the odd columns').
#ifdef ALL_COLUMNS
uniform sampler2D oddColumns;
#endif
float labelIn(sampler2D roots, ivec2 m) {
    float runTop = texelFetch(roots, m, 0).r;
    return runTop == 0.0 ? 0.0 : texelFetch(roots, nodeOfId(runTop), 0).r;
}
float labelOf(ivec2 m) {
#ifdef ALL_COLUMNS
    if (m.x % blockWidth % 2 == 1) return labelIn(oddColumns, m);
#endif
    return labelIn(columns, m);
}
#else
// The label of a processed node: update column wrote it.
float labelOf(ivec2 m) { return texelFetch(columns, m, 0).r; }
#endif

// Groups of `group` nodes in a column, and vertices of one column of every
// block.
int columnGroups(int group) { return (gridSize.y + group - 1) / group; }
int columnVertices(int group) { return (gridSize.x + blockWidth - 1) / blockWidth * columnGroups(group); }

// The first node n of `vertex`'s group of `group` nodes in column `column`
// of every block; false past the grid. The vertex starts clipped, with
// nothing to scatter.
bool columnGroupStart(int vertex, int column, int group, out ivec2 n) {
    int block = vertex / columnGroups(group);
    n = ivec2(block * blockWidth + column, vertex % columnGroups(group) * group);
    gl_Position = kClipped;
    scatterValue = 0.0;
    return n.x < gridSize.x;
}

// Rows of the group of `group` nodes that starts at n.
int groupRows(ivec2 n, int group) { return min(group, gridSize.y - n.y); }

// The largest label of n's connected neighbours in the column to its left;
// 0 where none.
float largestLeft(ivec2 n, uint bits) {
    float best = 0.0;
    if (linksTo(bits, kLeft)) best = labelOf(n + kNeighbours[kLeft]);
#if CONNECTIVITY == 8
    if (linksTo(bits, kUpLeft)) best = max(best, labelOf(n + kNeighbours[kUpLeft]));
    if (linksTo(bits, kDownLeft)) best = max(best, labelOf(n + kNeighbours[kDownLeft]));
#endif
    return best;
}

// Gather neighbour (O'Connell §5, Fig. 5.2): node n takes the largest label
// of its connected neighbours in the column to its left (already processed)
// and scatters it to the root of its own vertical run, at NDC depth `depth`;
// GL_MAX blending keeps the largest. The paper ran right to left because its
// largest IDs were bottom-right; ours are top-left, so columns run left to
// right. A group of several nodes raises the one run top offered the
// largest label.
void gatherNeighbour(ivec2 first, float depth) {
    float value = 0.0;
    float target = 0.0;
    for (int i = 0; i < groupRows(first, columnGroup); ++i) {
        ivec2 n = first + ivec2(0, i);
        float best = largestLeft(n, nodeBits(n));
        if (best <= value) continue;
        float runTop = texelFetch(columns, n, 0).r;
        if (best <= runTop) continue;  // cannot raise the root: a root's value is at least its own ID
        value = best;
        target = runTop;
    }
    if (value == 0.0) return;
    // Along a long run beside another (a large region's columns), every
    // group would send the same value to the same root, one blend after
    // another into that texel. A group draws nothing where the group above
    // lies in the run it raises (its first node has that run top, so every
    // node between does) and that group's last node links left to a label
    // as large: the group above offers that root as much or more, and its
    // point, or one further up, raises it as far. Four fetches, not the
    // group above's whole offer, which costs more than the points it saves.
    if (first.y >= columnGroup) {
        ivec2 above = first - ivec2(0, 1);
        if (texelFetch(columns, first - ivec2(0, columnGroup), 0).r == target && linksTo(nodeBits(above), kLeft) &&
            labelOf(above + kNeighbours[kLeft]) >= value)
            return;
    }
    scatterValue = value;
    gl_Position = pixelPosition(nodeOfId(target), gridSize, depth);
}

// Scatter back (O'Connell §5, Figs. 5.4-5.6): node n scatters its label to
// the root of its connected left neighbour with the smallest label below
// its own, at depth 1.0: the depth buffer marks the roots that changed, for
// post_column_processing, since those columns are not visited again. With
// 8-connectivity up to three neighbours qualify; one vertex per node serves
// the smallest and leaves the others to the exactness loop (resolve_links),
// which costs less on GPUs where vertex throughput bounds these draws. A
// group of several nodes raises the smallest such root of any of its nodes.
void scatterBack(ivec2 first) {
#if CONNECTIVITY == 8
    const uint kLeftLinks = (1u << uint(kLeft)) | (1u << uint(kUpLeft)) | (1u << uint(kDownLeft));
#else
    const uint kLeftLinks = 1u << uint(kLeft);
#endif
    float value = 0.0;
    float target = 0.0;
    for (int i = 0; i < groupRows(first, scatterGroup); ++i) {
        ivec2 n = first + ivec2(0, i);
        uint bits = nodeBits(n);
        if ((bits & kLeftLinks) == 0u) continue;
        float label = labelOf(n);
        float smallest = label;
        if (linksTo(bits, kLeft)) smallest = min(smallest, labelOf(n + kNeighbours[kLeft]));
#if CONNECTIVITY == 8
        if (linksTo(bits, kUpLeft)) smallest = min(smallest, labelOf(n + kNeighbours[kUpLeft]));
        if (linksTo(bits, kDownLeft)) smallest = min(smallest, labelOf(n + kNeighbours[kDownLeft]));
#endif
        if (smallest >= label || (value != 0.0 && smallest >= target)) continue;
        value = label;
        target = smallest;
    }
    if (value == 0.0) return;
    scatterValue = value;
    gl_Position = pixelPosition(nodeOfId(target), gridSize, 1.0);
}

// The exactness loop's link step (resolve_links). Labels are compressed:
// every node holds its root's ID.
//
// By default one vertex per square of linkGroup × linkGroup nodes of the
// grid links a root to the largest connected label (common.glsl,
// linkToLargestNeighbour). It finds the links the paper's column processing
// loses (its Fig. 5.8). A vertex draws one point, so a square of several
// nodes (Tuning::rasterResolveGroup) raises the root offered the largest
// label and leaves its other links to the next round: every square with a
// link still raises a root each round.
//
// With TILE_BORDERS (after tile_labels) connected nodes of one tile always
// hold one label, so only links across the tiles' borders are left: a
// vertex per node of each tile's right column and bottom row, which sees
// every connection across a border from one of its two nodes. Its node's
// root rises to the largest connected label, or, where none is larger, the
// root of the smallest rises to its node's label: each connected pair of
// different labels drawn from one side raises a root. Between rounds only
// the roots tile_labels marked follow their chains, so a node's label is
// the root its own points to (a node of a tile points to its tile
// component's root, which points to the root of the labeling, itself where
// it is one).
uniform sampler2D ids;
uniform int linkGroup;
flat out float scatterValue;

#ifdef TILE_BORDERS
const int kTileWidth = TILE_WIDTH, kTileRows = TILE_ROWS;
const int kBorderNodes = kTileRows + kTileWidth - 1;

float labelOf(ivec2 n) { return texelFetch(ids, nodeOfId(texelFetch(ids, n, 0).r), 0).r; }

void main() {
    int tilesAcross = (gridSize.x + kTileWidth - 1) / kTileWidth;
    int tile = gl_VertexID / kBorderNodes, k = gl_VertexID % kBorderNodes;
    ivec2 n = ivec2(tile % tilesAcross * kTileWidth, tile / tilesAcross * kTileRows) +
              (k < kTileRows ? ivec2(kTileWidth - 1, k) : ivec2(k - kTileRows, kTileRows - 1));
    gl_Position = kClipped;
    scatterValue = 0.0;
    if (!insideGrid(n)) return;
    uint bits = nodeBits(n);
    if ((bits & kLinkBits) == 0u) return;
    float label = labelOf(n);
    float largest = label, smallest = label;
    for (int i = 0; i < kNeighbourCount; ++i)
        if (linksTo(bits, i)) {
            float other = labelOf(n + kNeighbours[i]);
            largest = max(largest, other);
            smallest = min(smallest, other);
        }
    if (largest > label) {
        scatterValue = largest;
        gl_Position = pixelPosition(nodeOfId(label), gridSize, 0.0);
    } else if (smallest < label) {
        scatterValue = label;
        gl_Position = pixelPosition(nodeOfId(smallest), gridSize, 0.0);
    }
}
#else
void main() {
    int squaresAcross = (gridSize.x + linkGroup - 1) / linkGroup;
    ivec2 first = ivec2(gl_VertexID % squaresAcross, gl_VertexID / squaresAcross) * linkGroup;
    gl_Position = kClipped;
    scatterValue = 0.0;
    for (int dy = 0; dy < linkGroup; ++dy)
        for (int dx = 0; dx < linkGroup; ++dx) {
            float value;
            vec4 position = linkToLargestNeighbour(ids, first + ivec2(dx, dy), value);
            if (value > scatterValue) {
                scatterValue = value;
                gl_Position = position;
            }
        }
}
#endif

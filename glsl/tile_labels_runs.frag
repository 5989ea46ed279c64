// tile_labels' runs: a fragment per kRunRows rows of a tile finds, for each
// run of its rows, its component within the tile and that component's first
// node, and writes the node's place in the tile as the run's entry.
//
// A component that does not leave the row is the run itself. Another is
// filled from one of its runs over the tile's link masks, a 32-bit mask a
// row: sweeps down and up the rows in turn, each row grown along its right
// links in five doubling steps each way, until a sweep adds nothing.
// Its first node: in its top row, the leftmost node with a pixel in the
// block's first pixel row, else the leftmost node. Every run of the
// fragment's rows the fill reaches takes that node, so a component is
// filled once per group of kRunRows rows it crosses.
#include "tile_labels.glsl"

// Row k's target j is output k * kRunTargets + j.
layout(location = 0) out uvec4 fragRuns0;
layout(location = 1) out uvec4 fragRuns1;
#if RUN_OUTPUTS > 2
layout(location = 2) out uvec4 fragRuns2;
layout(location = 3) out uvec4 fragRuns3;
#endif
#if RUN_OUTPUTS > 4
layout(location = 4) out uvec4 fragRuns4;
layout(location = 5) out uvec4 fragRuns5;
layout(location = 6) out uvec4 fragRuns6;
layout(location = 7) out uvec4 fragRuns7;
#endif

// Row x grown along the links `right` (bit i: node i links to node i + 1)
// as far as they reach, both ways.
uint fillRow(uint x, uint right) {
    uint l1 = right, l2 = l1 & (l1 >> 1), l4 = l2 & (l2 >> 2), l8 = l4 & (l4 >> 4), l16 = l8 & (l8 >> 8);
    x |= (x & l1) << 1;
    x |= (x & l2) << 2;
    x |= (x & l4) << 4;
    x |= (x & l8) << 8;
    x |= (x & l16) << 16;
    x |= (x >> 1) & l1;
    x |= (x >> 2) & l2;
    x |= (x >> 4) & l4;
    x |= (x >> 8) & l8;
    x |= (x >> 16) & l16;
    return x;
}

// A tile row's links: right, down, and at 8-connectivity down-right and
// down-left (only what the connectivity has, so a fill holds fewer).
#if CONNECTIVITY == 8
#define Links uvec4
#define linksOfRow(v) (v)
#else
#define Links uvec2
#define linksOfRow(v) ((v).xy)
#endif

// The nodes of the row below `nodes` (of a row with links `links`) reach,
// and those of the row above `nodes` (of the row below that one) reach.
uint downFrom(uint nodes, Links links) {
    uint reached = nodes & links.y;
#if CONNECTIVITY == 8
    reached |= ((nodes & links.z) << 1) | ((nodes & links.w) >> 1);
#endif
    return reached;
}
uint upFrom(uint nodes, Links links) {
    uint reached = nodes & links.y;
#if CONNECTIVITY == 8
    reached |= ((nodes >> 1) & links.z) | ((nodes << 1) & links.w);
#endif
    return reached;
}

// The first node of the nodes `nodes` of tile row `row` (firsts: that row's
// nodes with a pixel in the block's first pixel row), as its place.
uint firstPlace(int row, uint nodes, uint firsts) {
    uint withFirsts = nodes & firsts;
    return uint(row * kTileWidth + lowestBit(withFirsts != 0u ? withFirsts : nodes));
}

void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);  // (tile column, group of kRunRows node rows)
    int firstRow = t.y * kRunRows;
    int top = firstRow / kTileRows * kTileRows, firstOwn = firstRow - top;
    Links links[kTileRows];
    for (int r = 0; r < kTileRows; ++r)
        links[r] = linksOfRow(top + r < gridSize.y ? texelFetch(tileLinks, ivec2(t.x, top + r), 0) : uvec4(0u));
    // The fragment's rows: their runs, right links and first-row pixels,
    // links down within the tile and into them from above.
    uint starts[kRunRows], left[kRunRows], rights[kRunRows], firsts[kRunRows], down[kRunRows], fromAbove[kRunRows];
    for (int k = 0; k < kRunRows; ++k) {
        ivec2 p = ivec2(t.x, firstRow + k);
        bool inside = p.y < gridSize.y;
        uvec4 rowLinks = inside ? texelFetch(tileLinks, p, 0) : uvec4(0u);
        uvec2 rowNodes = inside ? texelFetch(tileNodes, p, 0).xy : uvec2(0u);
        starts[k] = left[k] = runStarts(rowNodes.y, rowLinks.x);
        rights[k] = rowLinks.x;
        firsts[k] = rowNodes.x;
        down[k] = firstOwn + k < kTileRows - 1 ? rowLinks.y | rowLinks.z | rowLinks.w : 0u;
        fromAbove[k] = inside && firstOwn + k > 0 ? downFrom(~0u, linksOfRow(texelFetch(tileLinks, p - ivec2(0, 1), 0)))
                                                  : 0u;
    }
    const int kRowWords = 4 * kRunTargets;
    uint words[kRunRows * kRowWords];
    for (int w = 0; w < kRunRows * kRowWords; ++w) words[w] = 0u;
    for (int k = 0; k < kRunRows; ++k) {
        int own = firstOwn + k;
        while (left[k] != 0u) {
            uint run = fillRow(left[k] & (~left[k] + 1u), rights[k]);
            uint reached[kRunRows];
            for (int j = 0; j < kRunRows; ++j) reached[j] = j == k ? run : 0u;
            uint first = firstPlace(own, run, firsts[k]);
            if ((run & (down[k] | fromAbove[k])) != 0u) {
                uint fill[kTileRows];
                for (int r = 0; r < kTileRows; ++r) fill[r] = r == own ? run : 0u;
                // A sweep leaves the fill closed under its direction's links
                // and the rows' own; where the next sweep adds nothing, it is
                // closed under both, and complete. (The first sweep follows
                // no other.)
                for (int sweep = 0;; ++sweep) {
                    bool grown = false;
                    if (sweep % 2 == 0) {
                        for (int r = 1; r < kTileRows; ++r) {
                            uint x = fill[r] | downFrom(fill[r - 1], links[r - 1]);
                            if (x != fill[r]) {
                                fill[r] = fillRow(x, links[r].x);
                                grown = true;
                            }
                        }
                    } else {
                        for (int r = kTileRows - 2; r >= 0; --r) {
                            uint x = fill[r] | upFrom(fill[r + 1], links[r]);
                            if (x != fill[r]) {
                                fill[r] = fillRow(x, links[r].x);
                                grown = true;
                            }
                        }
                    }
                    if (!grown && sweep > 0) break;
                }
                int row = 0;
                uint nodes = 0u;
                for (int r = kTileRows - 1; r >= 0; --r) {
                    if (fill[r] != 0u) {
                        row = r;
                        nodes = fill[r];
                    }
                    for (int j = 0; j < kRunRows; ++j)
                        if (r == firstOwn + j) reached[j] = fill[r];
                }
                first = firstPlace(row, nodes, texelFetch(tileNodes, ivec2(t.x, top + row), 0).x);
            }
            // The runs of the fragment's rows the fill reached take its first
            // node.
            for (int j = 0; j < kRunRows; ++j) {
                for (uint runs = starts[j] & reached[j]; runs != 0u; runs &= runs - 1u) {
                    int e = int(onesIn(starts[j] & ((runs & (~runs + 1u)) - 1u)));
                    for (int w = 0; w < kRowWords; ++w)
                        if (w == e / kEntriesPerWord) words[j * kRowWords + w] |= first << uint(kEntryBits * (e % kEntriesPerWord));
                }
                left[j] &= ~reached[j];
            }
        }
    }
    fragRuns0 = uvec4(words[0], words[1], words[2], words[3]);
    fragRuns1 = uvec4(words[4], words[5], words[6], words[7]);
#if RUN_OUTPUTS > 2
    fragRuns2 = uvec4(words[8], words[9], words[10], words[11]);
    fragRuns3 = uvec4(words[12], words[13], words[14], words[15]);
#endif
#if RUN_OUTPUTS > 4
    fragRuns4 = uvec4(words[16], words[17], words[18], words[19]);
    fragRuns5 = uvec4(words[20], words[21], words[22], words[23]);
    fragRuns6 = uvec4(words[24], words[25], words[26], words[27]);
    fragRuns7 = uvec4(words[28], words[29], words[30], words[31]);
#endif
}

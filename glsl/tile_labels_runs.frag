// tile_labels' runs: a fragment per kRunRows rows of a tile finds, for each
// run of its rows whose component leaves the run's row, that component
// within the tile and its first node, and writes the node's place in the
// tile as the run's entry.
//
// The tile's lead component (tile_labels_lead.frag, where the tiles have
// one) is filled already. Another is filled from one of its runs over the
// tile's link masks, a 32-bit mask a row (fillComponent). Its first node:
// in its top row, the leftmost node with a pixel in the block's first pixel
// row, else the leftmost node. Every run of the fragment's rows the fill
// reaches takes that node, so such a component is filled once per group of
// kRunRows rows it crosses. A component that does not leave its row is the
// run itself, which tile_labels.frag reads from the row's masks: it takes
// no fill and no entry here.
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

#if LEAD_TEXELS > 0
uniform usampler2D tileLead;  // tile_labels_lead.frag's
#endif

const int kRowWords = 4 * kRunTargets;

// `first` into the entries of the runs of the fragment's row j whose first
// nodes are `runs`.
void setEntries(inout uint words[kRunRows * kRowWords], int j, uint runs, uint first) {
    for (int w = 0; w < kRowWords; ++w)
        for (int e = 0; e < kEntriesPerWord; ++e)
            if ((runs & (1u << uint(w * kEntriesPerWord + e))) != 0u)
                words[j * kRowWords + w] |= first << uint(kEntryBits * e);
}

void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);  // (tile column, group of kRunRows node rows)
    int firstRow = t.y * kRunRows;
    int top = firstRow / kTileRows * kTileRows, firstOwn = firstRow - top;
    Links links[kTileRows];
    for (int r = 0; r < kTileRows; ++r)
        links[r] = linksOfRow(top + r < gridSize.y ? texelFetch(tileLinks, ivec2(t.x, top + r), 0) : uvec4(0u));
    // The fragment's rows: their runs' first nodes, and those of the runs
    // whose component leaves the row (left to fill).
    uint starts[kRunRows], left[kRunRows];
    for (int k = 0; k < kRunRows; ++k) {
        ivec2 p = ivec2(t.x, firstRow + k);
        bool inside = p.y < gridSize.y;
        uvec4 rowLinks = inside ? texelFetch(tileLinks, p, 0) : uvec4(0u);
        uint foreground = inside ? texelFetch(tileNodes, p, 0).y : 0u;
        uvec4 aboveLinks = inside && firstOwn + k > 0 ? texelFetch(tileLinks, p - ivec2(0, 1), 0) : uvec4(0u);
        starts[k] = runStarts(foreground, rowLinks.x);
        left[k] = starts[k] & fillRow(crossingNodes(firstOwn + k, rowLinks, aboveLinks), rowLinks.x);
    }
    uint words[kRunRows * kRowWords];
    for (int w = 0; w < kRunRows * kRowWords; ++w) words[w] = 0u;
#if LEAD_TEXELS > 0
    // The tile's lead component (tile_labels_lead.frag) and its first node:
    // its runs here take that node without a fill.
    uint lead[kTileRows];
    int tile = top / kTileRows;
    for (int i = 0; i < kLeadTexels; ++i) {
        uvec4 masks = texelFetch(tileLead, ivec2(t.x, tile * kLeadTexels + i), 0);
        for (int c = 0; c < 4; ++c) lead[4 * i + c] = masks[c];
    }
    int leadRow = kTileRows;
    uint leadNodes = 0u;
    for (int r = kTileRows - 1; r >= 0; --r)
        if (lead[r] != 0u) {
            leadRow = r;
            leadNodes = lead[r];
        }
    if (leadRow < kTileRows) {
        uint first = firstPlace(leadRow, leadNodes, texelFetch(tileNodes, ivec2(t.x, top + leadRow), 0).x);
        uint runs[kRunRows];
        for (int j = 0; j < kRunRows; ++j) {
            uint reached = 0u;
            for (int r = 0; r < kTileRows; ++r)
                if (r == firstOwn + j) reached = lead[r];
            runs[j] = starts[j] & reached;
            left[j] &= ~reached;
        }
        for (int j = 0; j < kRunRows; ++j) setEntries(words, j, runs[j], first);
    }
#endif
    // A fill from the first run left, of the first row with one left, until
    // none is: the rows are chosen by a loop of constant length, so that
    // no array is indexed by a value known only at run time.
    for (;;) {
        int own = kTileRows;
        uint seed = 0u;
        for (int j = kRunRows - 1; j >= 0; --j)
            if (left[j] != 0u) {
                own = firstOwn + j;
                seed = left[j] & (~left[j] + 1u);
            }
        if (own == kTileRows) break;
        uint fill[kTileRows];
        for (int r = 0; r < kTileRows; ++r) fill[r] = r == own ? fillRow(seed, links[r].x) : 0u;
        fillComponent(fill, links);
        int row = 0;
        uint nodes = 0u;
        uint reached[kRunRows];
        for (int j = 0; j < kRunRows; ++j) reached[j] = 0u;
        for (int r = kTileRows - 1; r >= 0; --r) {
            if (fill[r] != 0u) {
                row = r;
                nodes = fill[r];
            }
            for (int j = 0; j < kRunRows; ++j)
                if (r == firstOwn + j) reached[j] = fill[r];
        }
        uint first = firstPlace(row, nodes, texelFetch(tileNodes, ivec2(t.x, top + row), 0).x);
        // The runs of the fragment's rows the fill reached take its first
        // node, each in the entry of its first node's column.
        uint runs[kRunRows];
        for (int j = 0; j < kRunRows; ++j) {
            runs[j] = starts[j] & reached[j];
            left[j] &= ~reached[j];
        }
        for (int j = 0; j < kRunRows; ++j) setEntries(words, j, runs[j], first);
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

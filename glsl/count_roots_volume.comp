// count_roots, for a binary volume: the sibling of count_roots.comp over the
// bundle nodes of volume_nodes.glsl (the CUDA engine's
// count_roots_volume.cu). A body of its own: a word holds up to 16 nodes,
// its runs, each of whose first voxel lies in one of the bundle's lines,
// not one node a grid cell. rowThreads threads per bundle row (a bundle's
// lines, the whole width), COUNT_ROOTS_THREADS / rowThreads rows per work
// group, each thread a run of consecutive words. A root is a node whose
// parent is its own key; its first voxel lies in one of the bundle's lines,
// and within a line roots order like their words and runs (runs are
// disjoint along x). Each root's rank among the roots of its line replaces
// its key (kRankFlag | rank); lineCounts gets every line's count, which
// scan_lines.comp turns into line offsets (the roots in the lines before
// each line, and the count after the last). So a component's number is its
// first voxel's line offset plus its rank plus one.
layout(local_size_x = COUNT_ROOTS_THREADS) in;

layout(binding = LINE_COUNTS_BUFFER, std430) writeonly buffer LineCounts { uint lineCounts[]; };

// A power of two from 32 to COUNT_ROOTS_THREADS (compute_constants.hpp,
// countRootsRowThreads).
uniform int rowThreads;
// Roots per line of a bundle, and their scan along a bundle row.
const int kRowScanThreads = COUNT_ROOTS_THREADS;
#include "line_counts.glsl"

// The roots of word wx of bundle row (by, bz) with `lines`: bit r is set
// where node r is a root, and bits 2r and 2r + 1 of firstLines hold its
// first voxel's line.
uint rootsOf(uint wx, uint by, uint bz, uint lines[kLines], out uint firstLines) {
    uint p = linesOf(lines, (1u << uint(kLines)) - 1u);
    uint word = bundleWord(wx, by, bz);
    uint roots = 0u;
    firstLines = 0u;
    int r = 0;
    for (uint starts = runStarts(p); starts != 0u; starts &= starts - 1u, ++r) {
        ivec2 v = firstVoxelOf(lines, runFrom(p, lowestBit(starts)));
        uint key = keyOf(wx * uint(kWordBits) + uint(v.y), by * uint(kBundleHeight) + uint(v.x % kBundleHeight),
                         bz * uint(kBundleDepth) + uint(v.x / kBundleHeight));
        if (loadParent(slotOf(word, r)) != key) continue;
        roots |= 1u << uint(r);
        firstLines |= uint(v.x) << uint(2 * r);
    }
    return roots;
}

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int lane = t % rowThreads;
    const int rows = COUNT_ROOTS_THREADS / rowThreads;
    const uint by = gl_WorkGroupID.x * uint(rows) + uint(t / rowThreads), bz = gl_WorkGroupID.y;
    const bool inVolume = by < bundlesY;
    const uint run = (wordsX + uint(rowThreads) - 1u) / uint(rowThreads);
    const uint first = inVolume ? uint(lane) * run : 0u;
    const uint end = inVolume ? min(first + run, wordsX) : 0u;

    // Roots per line of the thread's words.
    uvec2 own = uvec2(0u);
    for (uint wx = first; wx < end; ++wx) {
        uint lines[kLines];
        loadBundleLines(wx, by, bz, lines);
        uint firstLines;
        for (uint roots = rootsOf(wx, by, bz, lines, firstLines); roots != 0u; roots &= roots - 1u)
            addCount(own, (firstLines >> uint(2 * lowestBit(roots))) & 3u, 1u);
    }
    uvec2 ranks = scanRow(own, rowThreads) - own;
    uvec2 total = rowTotal(rowThreads);

    // Each root's rank in its line, in place of its key.
    for (uint wx = first; wx < end; ++wx) {
        uint lines[kLines];
        loadBundleLines(wx, by, bz, lines);
        uint word = bundleWord(wx, by, bz);
        uint firstLines;
        for (uint roots = rootsOf(wx, by, bz, lines, firstLines); roots != 0u; roots &= roots - 1u) {
            int r = lowestBit(roots);
            uint line = (firstLines >> uint(2 * r)) & 3u;
            storeParent(slotOf(word, r), kRankFlag | countOf(ranks, line));
            addCount(ranks, line, 1u);
        }
    }
    if (inVolume && lane < kLines) {
        uint y = by * uint(kBundleHeight) + uint(lane % kBundleHeight);
        uint z = bz * uint(kBundleDepth) + uint(lane / kBundleHeight);
        if (y < volumeHeight() && z < volumeDepth()) lineCounts[z * volumeHeight() + y] = countOf(total, uint(lane));
    }
}

// count_roots: numbers the roots of one node line, of an image or of a
// volume on the node grid (DIMENSIONS 3; count_roots_volume.comp numbers
// bundle nodes). A root is a foreground node whose parents entry is its own
// key; its first pixel lies in one of the node line's pixel lines (NODE_H of
// an image's, NODE_H x NODE_D of a volume's, slot (dz, dy)), and within a
// pixel line roots order like their nodes. Each root's rank among the roots
// of its pixel line replaces its key (kRankFlag | rank); lineCounts gets the
// count of every pixel line (line z * height + y of a volume). Each thread
// takes a run of consecutive nodes (at most 32), so the work group scans
// once per line.
//
// An image's last work group to finish then numbers the lines (scanLines):
// every line's offset, the roots in the lines above it, and the component
// count. Each group writes its counts before it counts itself done on
// groupsDone, so the last one reads them all; it sets groupsDone back to 0
// for the next labeling. One dispatch fewer than a scan of its own (at
// 1920x1080 a dispatch's start and drain are a tenth of the labeling). A
// volume's up to 2^30 lines are too many for one work group: scan_lines.comp
// numbers them.
//
// On the way it shortens the trees: a node whose parent lies in another patch
// (a patch-local root that merge_borders linked away) is pointed straight at
// its root, so final_labels walks two or three steps.
// Work groups of LINE_THREADS (countRootsThreads, compute_constants.hpp),
// declared in group_scan.glsl as GROUP_SCAN_THREADS for an image.

layout(binding = NODE_INFO_IMAGE, NODE_INFO_FORMAT) readonly uniform UImageND nodeInfo;

#if DIMENSIONS == 3
layout(local_size_x = LINE_THREADS) in;
layout(binding = LINE_COUNTS_BUFFER, std430) writeonly buffer LineCounts { uint lineCounts[]; };

// A node line's y and z in the node grid.
#define NodeLine ivec2
NodeLine nodeLine() { return ivec2(gl_WorkGroupID.xy); }
// Pixel lines per node line, their counts packed two to a word, and their
// scan over the work group (a row of LINE_THREADS).
const int kSlots = NODE_H * NODE_D;
#define Counts uvec2
const int kRowScanThreads = LINE_THREADS;
#include "line_counts.glsl"

// The slot of pixel line (p.y, p.z) in node line `line`.
int slotOfPixel(NodeLine line, ivec3 p) { return (p.z - line.y * NODE_D) * NODE_H + (p.y - line.x * NODE_H); }

uvec2 scanCounts(uvec2 own) { return scanRow(own, LINE_THREADS); }
uvec2 scannedCounts() { return rowTotal(LINE_THREADS); }

// Slot t's count, total's, into lineCounts where its pixel line is in the
// volume.
void storeLineCount(NodeLine line, int t, uvec2 total) {
    ivec2 pixelLine = line * ivec2(NODE_H, NODE_D) + ivec2(t % NODE_H, t / NODE_H);
    if (pixelLine.x < imageSize.y && pixelLine.y < imageSize.z)
        lineCounts[pixelLine.y * imageSize.y + pixelLine.x] = countOf(total, uint(t));
}
#else
layout(binding = LINE_COUNTS_BUFFER, std430) coherent buffer LineCounts { uint lineCounts[]; };
layout(binding = LINE_OFFSETS_BUFFER, std430) writeonly buffer LineOffsets { uint lineOffsets[]; };
layout(binding = GROUPS_DONE_BUFFER, std430) coherent buffer GroupsDone { uint groupsDone; };

shared bool lastGroup;

#define NodeLine int
NodeLine nodeLine() { return int(gl_WorkGroupID.x); }
// Roots per pixel line of the node line, packed: the upper line's count in
// the low 16 bits, the lower line's in the high 16 (a line holds at most
// 32768).
const int kSlots = NODE_H;
#define Counts uint
uint countOf(uint counts, uint slot) { return (counts >> (16u * slot)) & 0xFFFFu; }
void addCount(inout uint counts, uint slot, uint count) { counts |= count << (16u * slot); }

int slotOfPixel(NodeLine y, ivec2 p) { return p.y - y * NODE_H; }

uint scanCounts(uint own) { return scanGroup(own); }
uint scannedCounts() { return scannedTotal(); }

void storeLineCount(NodeLine y, int t, uint total) {
    if (y * NODE_H + t < imageSize.y) lineCounts[y * NODE_H + t] = countOf(total, uint(t));
}

// lineOffsets[y] = the roots whose first pixel is in a line above y;
// lineOffsets[height] = the component count. Each thread sums a run of
// consecutive lines, the work group scans those sums, and each thread writes
// its lines' offsets.
void scanLines() {
    const int t = int(gl_LocalInvocationID.x);
    const int lines = (imageSize.y + LINE_THREADS - 1) / LINE_THREADS;
    const int first = t * lines;
    const int end = min(first + lines, imageSize.y);
    uint own = 0u;
    for (int line = first; line < end; ++line) own += lineCounts[line];
    uint offset = scanGroup(own);
    if (t == LINE_THREADS - 1) lineOffsets[imageSize.y] = offset;
    offset -= own;
    for (int line = first; line < end; ++line) {
        lineOffsets[line] = offset;
        offset += lineCounts[line];
    }
}
#endif

NodeCoord patchOf(NodeCoord n) { return n / kPatch; }

void main() {
    const NodeLine line = nodeLine();
    const int t = int(gl_LocalInvocationID.x);
    const int run = (gridSize.x + LINE_THREADS - 1) / LINE_THREADS;  // <= 32: sides are at most 32768
    const int first = t * run;
    const int end = min(first + run, gridSize.x);

    // Which nodes of the run are roots, and in which pixel line.
    uint roots[kSlots];
    for (int s = 0; s < kSlots; ++s) roots[s] = 0u;
    for (int x = first; x < end; ++x) {
        NodeCoord n = NodeCoord(x, line);
        uint mask = imageLoad(nodeInfo, n).r & kMaskBits;
        if (mask == 0u) continue;
        NodeCoord p = firstPixel(n, mask);
        uint parent = loadParent(n);
        if (parent == keyOf(p)) {
            roots[slotOfPixel(line, p)] |= 1u << uint(x - first);
        } else if (patchOf(nodeOfKey(parent)) != patchOf(n)) {
            uint root = rootOf(parent);
            if (root != parent) storeParent(n, root);
        }
    }
    Counts own = Counts(0u);
    for (int s = 0; s < kSlots; ++s) addCount(own, uint(s), uint(bitCount(roots[s])));
    Counts before = scanCounts(own) - own;

    for (int s = 0; s < kSlots; ++s) {
        uint rank = countOf(before, uint(s));
        for (uint bits = roots[s]; bits != 0u; bits &= bits - 1u) {
            storeParent(NodeCoord(first + findLSB(bits), line), kRankFlag | rank);
            ++rank;
        }
    }
    Counts total = scannedCounts();
    if (t < kSlots) storeLineCount(line, t, total);

#if DIMENSIONS == 2
    memoryBarrierBuffer();
    barrier();
    if (t == 0) lastGroup = atomicAdd(groupsDone, 1u) == gl_NumWorkGroups.x - 1u;
    barrier();
    if (!lastGroup) return;
    memoryBarrierBuffer();
    if (t == 0) groupsDone = 0u;
    scanLines();
#endif
}

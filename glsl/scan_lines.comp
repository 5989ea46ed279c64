// scan_lines: a volume's line offsets from count_roots' line counts:
// lineOffsets[line] = the roots whose first voxel lies in a line before it,
// lineOffsets[lineCount] = the component count. An image's at most 32768
// lines are numbered by count_roots' last work group on its own; a volume
// has up to 2^30, too many for one work group, so they are scanned in
// blocks of kBlock lines, one dispatch per phase:
//   0  a work group per block: each line's offset within the block, and the
//      block's sum into blockSums;
//   1  one work group: the blocks' sums become their offsets (in place), and
//      the total is the count;
//   2  a work group per block: its offset added to its lines'.
// Work groups are numbered over x then y (blocks may outnumber the 65535 a
// dispatch allows along x).
// Work groups of GROUP_SCAN_THREADS, declared in group_scan.glsl.

layout(binding = LINE_COUNTS_BUFFER, std430) readonly buffer LineCounts { uint lineCounts[]; };
layout(binding = LINE_OFFSETS_BUFFER, std430) buffer LineOffsets { uint lineOffsets[]; };
layout(binding = BLOCK_SUMS_BUFFER, std430) buffer BlockSums { uint blockSums[]; };

uniform uint lineCount;
uniform int phase;

const uint kLinesPerThread = uint(SCAN_LINES_PER_THREAD);
const uint kBlock = uint(GROUP_SCAN_THREADS) * kLinesPerThread;

// Each thread a run of kLinesPerThread consecutive lines of the block.
void offsetsInBlock(uint block) {
    const uint first = block * kBlock + gl_LocalInvocationIndex * kLinesPerThread;
    uint counts[SCAN_LINES_PER_THREAD];
    uint own = 0u;
    for (uint i = 0u; i < kLinesPerThread; ++i) {
        counts[i] = first + i < lineCount ? lineCounts[first + i] : 0u;
        own += counts[i];
    }
    uint offset = scanGroup(own) - own;
    for (uint i = 0u; i < kLinesPerThread; ++i) {
        if (first + i < lineCount) lineOffsets[first + i] = offset;
        offset += counts[i];
    }
    if (gl_LocalInvocationIndex == 0u) blockSums[block] = scannedTotal();
}

// Each thread a run of consecutive blocks.
void offsetsOfBlocks(uint blocks) {
    const uint run = (blocks + uint(GROUP_SCAN_THREADS) - 1u) / uint(GROUP_SCAN_THREADS);
    const uint first = gl_LocalInvocationIndex * run;
    const uint end = min(first + run, blocks);
    uint own = 0u;
    for (uint b = first; b < end; ++b) own += blockSums[b];
    uint offset = scanGroup(own);
    if (gl_LocalInvocationIndex == uint(GROUP_SCAN_THREADS - 1)) lineOffsets[lineCount] = offset;
    offset -= own;
    for (uint b = first; b < end; ++b) {
        uint sum = blockSums[b];
        blockSums[b] = offset;
        offset += sum;
    }
}

void main() {
    const uint blocks = (lineCount + kBlock - 1u) / kBlock;
    const uint block = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (phase == 1) {
        offsetsOfBlocks(blocks);
    } else if (block < blocks) {
        if (phase == 0) {
            offsetsInBlock(block);
        } else {
            const uint add = blockSums[block];
            const uint end = min((block + 1u) * kBlock, lineCount);
            if (add != 0u)
                for (uint line = block * kBlock + gl_LocalInvocationIndex; line < end; line += uint(GROUP_SCAN_THREADS))
                    lineOffsets[line] += add;
        }
    }
}

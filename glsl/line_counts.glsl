// A volume's roots per line, for count_roots of a volume on the node grid
// (count_roots.comp, DIMENSIONS 3) and over bundle nodes
// (count_roots_volume.comp): the counts of a node line's or a bundle's up to
// four lines, packed two to a word (16 bits each: a line holds at most 2^15
// roots), and their scan along a row of threads. The stage files take this
// file with #include after declaring kRowScanThreads (their work group's
// threads).
uint countOf(uvec2 counts, uint line) { return ((line < 2u ? counts.x : counts.y) >> (16u * (line & 1u))) & 0xFFFFu; }
// `count` more roots in `line`, in the packed counts (no array indexed by a
// variable, which would leave registers for memory).
void addCount(inout uvec2 counts, uint line, uint count) {
    uint more = count << (16u * (line & 1u));
    if (line < 2u) counts.x += more;
    else counts.y += more;
}

shared uvec2 rowScanPartial[kRowScanThreads];

// The inclusive sum of `own` over the threads of this row up to this one,
// rows of rowThreads (a power of two) consecutive threads (Hillis & Steele,
// every row at once); every thread of the work group calls it.
uvec2 scanRow(uvec2 own, int rowThreads) {
    const int t = int(gl_LocalInvocationID.x);
    const int lane = t % rowThreads;
    rowScanPartial[t] = own;
    barrier();
    for (int step = 1; step < rowThreads; step <<= 1) {
        uvec2 add = lane >= step ? rowScanPartial[t - step] : uvec2(0u);
        barrier();
        rowScanPartial[t] += add;
        barrier();
    }
    return rowScanPartial[t];
}
// After scanRow: the sum over this thread's row.
uvec2 rowTotal(int rowThreads) {
    const int t = int(gl_LocalInvocationID.x);
    return rowScanPartial[t - t % rowThreads + rowThreads - 1];
}

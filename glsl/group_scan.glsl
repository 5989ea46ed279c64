// The work group's prefix sum, for the stages that define GROUP_SCAN_THREADS
// (their work group size, a power of two): count_roots.comp ranks a node
// line's roots with it, scan_lines.comp a volume's lines. The program
// builder puts this file between union_find.glsl and the stage file of every
// compute program; elsewhere it declares nothing, not even its shared
// memory. It declares the work group's size, as the subgroup counts need
// before their first use.
#ifdef GROUP_SCAN_THREADS
layout(local_size_x = GROUP_SCAN_THREADS) in;
shared uint groupScanPartial[GROUP_SCAN_THREADS];

// The inclusive sum of `own` over the threads up to this one (Hillis &
// Steele); every thread of the work group calls it.
uint hillisSteele(uint own) {
    const int t = int(gl_LocalInvocationIndex);
    groupScanPartial[t] = own;
    barrier();
    for (int step = 1; step < GROUP_SCAN_THREADS; step <<= 1) {
        uint add = t >= step ? groupScanPartial[t - step] : 0u;
        barrier();
        groupScanPartial[t] += add;
        barrier();
    }
    return groupScanPartial[t];
}

// scanGroup: the same sum, by whichever scan the context runs;
// scannedTotal() is then the sum over the work group. Before another call,
// the work group passes a barrier() (the shared sums are reused).
#ifdef GL_KHR_shader_subgroup_arithmetic
// Where subgroups add up in one step: each subgroup scans itself, the first
// scans the subgroups' sums, two barriers in all (Hillis & Steele takes two
// a step). Needs no more subgroups than a subgroup has invocations.
bool subgroupScans() { return gl_NumSubgroups <= gl_SubgroupSize; }
uint scanGroup(uint own) {
    if (!subgroupScans()) return hillisSteele(own);
    uint inclusive = subgroupInclusiveAdd(own);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) groupScanPartial[gl_SubgroupID] = inclusive;
    barrier();
    if (gl_SubgroupID == 0u) {
        uint sum = gl_SubgroupInvocationID < gl_NumSubgroups ? groupScanPartial[gl_SubgroupInvocationID] : 0u;
        sum = subgroupInclusiveAdd(sum);
        if (gl_SubgroupInvocationID < gl_NumSubgroups) groupScanPartial[gl_SubgroupInvocationID] = sum;
    }
    barrier();
    return inclusive + (gl_SubgroupID > 0u ? groupScanPartial[gl_SubgroupID - 1u] : 0u);
}
uint scannedTotal() {
    return groupScanPartial[subgroupScans() ? gl_NumSubgroups - 1u : uint(GROUP_SCAN_THREADS - 1)];
}
#else
uint scanGroup(uint own) { return hillisSteele(own); }
uint scannedTotal() { return groupScanPartial[GROUP_SCAN_THREADS - 1]; }
#endif
#endif

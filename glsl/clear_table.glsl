// The component table's first clearCount entries zeroed, every field, for
// the next final_labels to sum into: the entries the last labelings summed
// into, cleared by local_merge's work groups (local_merge.comp,
// local_merge_volume_grid.comp, local_merge_volume.comp) on their way
// rather than by a dispatch of its own. The stage files take this file with
// #include after declaring kThreads (their work group's threads).
layout(binding = TABLE_IMAGE, r32ui) writeonly uniform uimage2DArray table;
uniform uint clearCount;

// Entries i, i + stride, ... of the table below clearCount, each group its
// own; an image's dispatch is one slice of work groups deep.
void clearTable() {
    const uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z * uint(kThreads);
    uint group = (gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y) * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    for (uint i = group * uint(kThreads) + gl_LocalInvocationIndex; i < clearCount; i += stride) {
        ivec2 entry = ivec2(int(i % uint(TABLE_WIDTH)), int(i / uint(TABLE_WIDTH)));
        for (int field = 0; field < TABLE_FIELDS; ++field) imageStore(table, ivec3(entry, field), uvec4(0u));
    }
}

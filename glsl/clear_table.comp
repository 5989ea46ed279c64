// clear_table: the starting values of component_table's sums for the first
// `count` labels: boxes empty (minimum x at the largest value), areas and
// sums 0. The top row needs none: final_labels writes it from the root.
layout(local_size_x = CLEAR_THREADS) in;  // a 2-D grid of groups: counts past 65535 groups

layout(binding = TABLE_IMAGE, r32ui) writeonly uniform uimage2DArray table;
uniform uint count;

void main() {
    uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * uint(CLEAR_THREADS) + gl_LocalInvocationID.x;
    if (i >= count) return;
    ivec2 entry = ivec2(int(i % uint(TABLE_WIDTH)), int(i / uint(TABLE_WIDTH)));
    for (int field = 0; field < TABLE_FIELDS; ++field)
        if (field != FIELD_MIN_Y) imageStore(table, ivec3(entry, field), uvec4(field == FIELD_MIN_X ? kNone : 0u));
}

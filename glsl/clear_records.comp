// clear_records: the first `clearQuads` four-word quads of a buffer set to
// zero: the records before the measuring passes add into them, and the
// boxes before region_rows.comp writes their corners (their w stays 0).
// A driver's buffer clear can run at host-upload rates on large buffers;
// this runs at the GPU's store rate. The work groups stride over the
// quads, so a dispatch of at most 65535 groups clears any size. Built with
// measure_common.glsl, as every measuring pass is.

layout(local_size_x = MEASURE_GROUP) in;

layout(std430, binding = CLEAR_BUFFER) writeonly buffer Cleared { uvec4 cleared[]; };
uniform uint clearQuads;

void main() {
    const uint stride = gl_NumWorkGroups.x * uint(MEASURE_GROUP);
    for (uint i = gl_GlobalInvocationID.x; i < clearQuads; i += stride) cleared[i] = uvec4(0u);
}

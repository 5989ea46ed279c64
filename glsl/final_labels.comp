// final_labels: every pixel takes its node's number (compute_common.glsl,
// labelOfNode); background pixels take 0.
layout(local_size_x = LABEL_GROUP_W, local_size_y = LABEL_GROUP_H) in;

layout(binding = NODE_INFO_IMAGE, r8ui) readonly uniform uimage2D nodeInfo;
layout(binding = LABELS_IMAGE, r32ui) writeonly uniform uimage2D labels;

void main() {
    ivec2 n = ivec2(gl_GlobalInvocationID.xy);
    if (!insideGrid(n)) return;
    uint mask = imageLoad(nodeInfo, n).r & kMaskBits;
    uint label = mask != 0u ? labelOfNode(n, mask, imageLoad(parents, n).r) : 0u;
    for (int i = 0; i < kNodePixels; ++i) {
        ivec2 p = pixelOfNode(n, i);
        if (insideImage(p)) imageStore(labels, p, uvec4((mask & (1u << uint(i))) != 0u ? label : 0u));
    }
}

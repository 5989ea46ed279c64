// Post-column processing (O'Connell §6). Each node follows its chain of
// pointers to the root it now leads to (Fig. 6.3). Drawn twice:
//   marked roots: at depth 1.0 with GL_EQUAL, so only the roots that
//                 scatter-back marked run (the paper's root update);
//   every node:   Fig. 6.5 made one hop; following the whole chain leaves
//                 every node at a true root. merge_block_borders and
//                 resolve_links compress with this draw after each link round.
uniform sampler2D ids;
out vec4 fragColor;

void main() {
    ivec2 n = ivec2(gl_FragCoord.xy);
    fragColor = vec4(rootOf(ids, texelFetch(ids, n, 0).r));
}

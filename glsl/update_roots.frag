// Post-column processing (O'Connell §6). Each node follows its chain of
// pointers to the root it now leads to (Fig. 6.3).
//   update_roots:    drawn at depth 1.0 with GL_EQUAL, so only the roots that
//                    scatter-back marked run (the paper's root update);
//   update_children: drawn over every node (Fig. 6.5 made one hop; following
//                    the whole chain leaves every node at a true root), and
//                    the compression step of every later merge.
uniform sampler2D ids;
out vec4 fragColor;

void main() {
    ivec2 n = ivec2(gl_FragCoord.xy);
    fragColor = vec4(rootOf(ids, texelFetch(ids, n, 0).r));
}

// Post-column processing (O'Connell §6). Each node follows its chain of
// pointers to the root it now leads to (Fig. 6.3). Drawn twice:
//   marked roots: at depth 1.0 with GL_EQUAL, so only the roots that
//                 scatter-back marked run (the paper's root update);
//   every node:   Fig. 6.5 made one hop; following the whole chain leaves
//                 every node at a true root. merge_block_borders and
//                 resolve_links compress with this draw after each link round.
// With EVEN_COLUMNS (column processing with Tuning::rasterColumnDraws 1),
// every node's pointer is the larger of `ids` (the odd columns' roots, with
// the marked roots updated) and `evenColumns` (the even columns' roots):
// each holds the vertical runs where the other's gathers raised run tops,
// and the marked roots' updates only grow.
// With TILE_ROOTS (resolve_links after tile_labels, once its rounds are
// done) every node holds a marked root, its tile root, and every marked
// root the root of its labeling (each round's compression followed the
// marked roots' chains to their ends): a node's label is its tile root's
// value, two fetches and no walk.
uniform sampler2D ids;
#ifdef EVEN_COLUMNS
uniform sampler2D evenColumns;
#endif
layout(location = 0) out vec4 fragColor;
#ifdef TWO_TARGETS
// The same labels into resolve_links' next link target.
layout(location = 1) out vec4 fragCopy;
#endif

#ifdef EVEN_COLUMNS
float pointer(ivec2 n) { return max(texelFetch(ids, n, 0).r, texelFetch(evenColumns, n, 0).r); }
#endif

void main() {
    ivec2 n = ivec2(gl_FragCoord.xy);
#ifdef EVEN_COLUMNS
    // rootOf (common.glsl) over `pointer`.
    float id = pointer(n);
    for (int step = 0; step < (1 << 20) && id != 0.0; ++step) {
        float next = pointer(nodeOfId(id));
        if (next == id) break;
        id = next;
    }
    fragColor = vec4(id);
#elif defined(TILE_ROOTS)
    float id = texelFetch(ids, n, 0).r;
    fragColor = vec4(id == 0.0 ? 0.0 : texelFetch(ids, nodeOfId(id), 0).r);
#else
    fragColor = vec4(rootOf(ids, texelFetch(ids, n, 0).r));
#endif
#ifdef TWO_TARGETS
    fragCopy = fragColor;
#endif
}

// count_roots' first dispatch, for a binary volume over bundle nodes: every
// node's parents entry becomes its root, so that final_labels finds a
// number two loads away instead of walking the trees merge_borders left.
// The sibling of the CUDA engine's flatten in count_roots_volume.cu
// (flattenNodesKernel, whose walks only read). Threads take bundle words in
// turn and walk to the root halving the path (union_find.glsl, rootHalving):
// each entry passed points at its grandparent, so that the walks of the
// many nodes of one long path (a thin curve makes one) share their steps. Every store is an ancestor's key, into a tree no union
// changes any more, so a walk that reads an entry before or after another
// thread wrote it reaches the same root. A halving store may land on an
// entry after its own thread wrote the root there: final_labels then walks
// a step or two more. No root's entry changes (count_roots ranks them
// next), and nothing is added atomically.
layout(local_size_x = COUNT_ROOTS_THREADS) in;

void main() {
    const uint words = wordsX * bundlesY * bundlesZ;
    const uint stride = gl_NumWorkGroups.x * uint(COUNT_ROOTS_THREADS);
    for (uint word = gl_GlobalInvocationID.x; word < words; word += stride) {
        const uint p = foreground[word];
        int r = 0;
        for (uint starts = runStarts(p); starts != 0u; starts &= starts - 1u, ++r) {
            const uint slot = slotOf(word, r);
            const uint parent = loadParent(slot);
            const uint root = rootHalving(parent);
            if (root != parent) storeParent(slot, root);
        }
    }
}

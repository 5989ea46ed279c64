// count_roots' first dispatch, for a binary volume over bundle nodes: every
// node's parents entry becomes its root, so that final_labels finds a
// number two loads away instead of walking the trees merge_borders left
// (a single long path, as a thin curve makes, would be walked by each of
// its nodes). The sibling of the CUDA engine's flatten in
// count_roots_volume.cu. Threads take bundle words in turn; a thread writes
// only its words' entries, and only with their roots: a walk that reads an
// entry already written reaches the same root sooner, one that reads it
// before does too. No root's entry changes (count_roots ranks them next),
// and nothing is added atomically.
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
            uint root = parent;
            for (;;) {
                uint next = loadParent(slotOfKey(root));
                if (next == root) break;
                root = next;
            }
            if (root != parent) storeParent(slot, root);
        }
    }
}

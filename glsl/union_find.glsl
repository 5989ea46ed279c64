// The lock-free union-find of every compute stage, written once (the CUDA
// engine's cuda/src/union_find.cuh, KeyForest, function by function). The
// program builder puts this file between the common file and the stage
// file of every compute program. A program has at most one forest of keys:
// the global one in `parents` (compute_common.glsl, volume_nodes.glsl) or a
// patch's in shared memory (local_merge's stage files, whose work groups
// never walk the global one). The file that owns the forest defines
// FOREST_SLOT, the type that addresses an entry, before this file, and
// these four functions anywhere in the program:
//
//   FOREST_SLOT forestSlot(uint key)                    a key's entry
//   uint forestLoad(FOREST_SLOT slot)                   its parent
//   void forestHalve(FOREST_SLOT slot, uint grandparent)  path halving's store
//   uint forestLower(FOREST_SLOT slot, uint key)        atomicMin, the old value
//
// Invariant: a key's parent is a key of the same component no larger than
// its own, and a root holds its own key, so a root is its tree's smallest
// key, the component's first pixel (voxel) in raster order. A stale read of
// a parent is still an ancestor, so every walk ends; path halving's plain
// store is safe because a node that is not a root never becomes one again,
// and a grandparent is an ancestor with a smaller key. Only before
// count_roots: its rank flags must never be copied into another node.
#ifdef FOREST_SLOT
FOREST_SLOT forestSlot(uint key);
uint forestLoad(FOREST_SLOT slot);
void forestHalve(FOREST_SLOT slot, uint grandparent);
uint forestLower(FOREST_SLOT slot, uint key);

// The root of a key's node, halving the path on the way.
uint rootHalving(uint key) {
    for (;;) {
        FOREST_SLOT slot = forestSlot(key);
        uint parent = forestLoad(slot);
        if (parent == key) return key;
        uint grandparent = forestLoad(forestSlot(parent));
        if (grandparent == parent) return parent;
        forestHalve(slot, grandparent);
        key = grandparent;
    }
}

// Joins the trees of keys a and b (Playne & Hawick's lock-free union,
// keeping the smaller key): the larger root is pointed at the smaller; a
// lost race returns the value that won, and the walk goes on from there.
void unite(uint a, uint b) {
    for (;;) {
        a = rootHalving(a);
        b = rootHalving(b);
        if (a == b) return;
        if (a > b) {
            uint t = a;
            a = b;
            b = t;
        }
        uint old = forestLower(forestSlot(b), a);
        if (old == b) return;
        b = old;
    }
}
#endif

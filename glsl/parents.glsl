// The parents store of the compute stages (compute_common.glsl says why a
// buffer, and why reads through the caches are safe): storeParent,
// loadParent and atomicMinParent of an entry `ParentRef`, in the buffer at
// parentIndex(ref) or, past a storage block (PARENTS_IN_IMAGE), in an R32UI
// PARENTS_IMAGE_TYPE at parentTexel(ref); and the global forest over them.
// A node of the node grid (compute_common.glsl) and a bundle node's slot
// (volume_nodes.glsl) are the two kinds of entry; their common files define
// these names and entryOfKey(key), the entry of a key's node, and take this
// file with #include. PARENTS_READONLY and PARENTS_WRITEONLY declare only
// what a stage that only reads or only writes them uses.
#if defined(PARENTS_READONLY)
#define PARENTS_ACCESS readonly
#elif defined(PARENTS_WRITEONLY)
#define PARENTS_ACCESS writeonly
#else
#define PARENTS_ACCESS
#endif
#ifdef PARENTS_IN_IMAGE
layout(binding = PARENTS_IMAGE, r32ui) PARENTS_ACCESS uniform PARENTS_IMAGE_TYPE parents;
#ifndef PARENTS_READONLY
void storeParent(ParentRef n, uint parent) { imageStore(parents, parentTexel(n), uvec4(parent)); }
#endif
#ifndef PARENTS_WRITEONLY
uint loadParent(ParentRef n) { return imageLoad(parents, parentTexel(n)).r; }
#endif
#if !defined(PARENTS_READONLY) && !defined(PARENTS_WRITEONLY)
uint atomicMinParent(ParentRef n, uint key) { return imageAtomicMin(parents, parentTexel(n), key); }
#endif
#else
layout(binding = PARENTS_BUFFER, std430) PARENTS_ACCESS buffer Parents { uint parents[]; };
#ifndef PARENTS_READONLY
void storeParent(ParentRef n, uint parent) { parents[parentIndex(n)] = parent; }
#endif
#ifndef PARENTS_WRITEONLY
uint loadParent(ParentRef n) { return parents[parentIndex(n)]; }
#endif
#if !defined(PARENTS_READONLY) && !defined(PARENTS_WRITEONLY)
uint atomicMinParent(ParentRef n, uint key) { return atomicMin(parents[parentIndex(n)], key); }
#endif
#endif

// The forest of union_find.glsl: the global one, a key's entry its node's,
// for the stages that unite and walk it; local_merge (PARENTS_WRITEONLY)
// unites in its patch's copy in shared memory, whose entries its stage file
// defines.
#if defined(PARENTS_WRITEONLY)
#define FOREST_SLOT int
#elif !defined(PARENTS_READONLY)
#define FOREST_SLOT ParentRef
ParentRef forestSlot(uint key) { return entryOfKey(key); }
uint forestLoad(ParentRef n) { return loadParent(n); }
void forestHalve(ParentRef n, uint grandparent) { storeParent(n, grandparent); }
uint forestLower(ParentRef n, uint key) { return atomicMinParent(n, key); }
#endif

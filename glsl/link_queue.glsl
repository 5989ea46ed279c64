// The work group's link queue of a binary volume's local_merge and
// merge_borders (local_merge_volume.comp, merge_borders_volume.comp), which
// take this file with #include after declaring kThreads (their work
// group's threads) and kQueueLinks (the queue's room), and defining
// LINK_SLOT, the type of a node's slot, and LINK, the type of a queued link.
// They define these three functions anywhere in the program:
//
//   uint linkParent(LINK_SLOT slot)          the node's parent
//   LINK packLink(LINK_SLOT u, LINK_SLOT v)  the link between two nodes
//   void uniteLink(LINK link)                the union of its two trees
//
// Finding links is bit operations, the same few steps in every thread;
// uniting walks trees whose depths vary, so a thread that united its own
// links would leave the others of its warp idle through each walk. The
// CUDA engine packs a warp's links into a queue with a ballot and unites
// them with every lane (warp_links.cuh, WarpLinks). GLSL has no warp:
// ARB_shader_ballot's subgroups are 32 invocations on NVIDIA but 8 or 16 on
// llvmpipe, and nothing ties a subgroup to neighbouring invocations. The
// same idea at the work group's scale runs on every OpenGL 4.3 context: a
// round of link finding appends every link to a queue in shared memory (an
// atomicAdd on a shared count), a barrier, and every thread unites every
// kThreads-th link of the queue. A round is one relation; a thread that
// finds the queue full keeps its place and goes on in another round of the
// same relation, so no link is united outside the queue, whatever the
// volume. Barriers sit in uniform control flow: every thread runs every
// round, and whether another round follows is read by all from shared
// memory after a barrier.
uint linkParent(LINK_SLOT slot);
LINK packLink(LINK_SLOT u, LINK_SLOT v);
void uniteLink(LINK link);

shared LINK sQueue[kQueueLinks];
shared uint sQueued[2], sUnfinished[2];  // per round parity: links offered, threads not done

// The first round's counts, by one thread before a barrier.
void startLinkQueue() {
    sQueued[0] = 0u;
    sUnfinished[0] = 0u;
}

// A link whose nodes read one parent (one tree), or the two parents the
// thread's last queued link read (united by then), is not queued.
// offerLink returns false when the queue had no room: the caller keeps the
// link for the next round.
uint lastA = kNoKey, lastB = kNoKey;
bool offerLink(int round, LINK_SLOT u, LINK_SLOT v) {
    uint a = linkParent(u), b = linkParent(v);
    if (a == b || (a == lastA && b == lastB)) return true;
    uint at = atomicAdd(sQueued[round & 1], 1u);
    if (at >= uint(kQueueLinks)) return false;
    sQueue[at] = packLink(u, v);
    lastA = a;
    lastB = b;
    return true;
}

// Ends a round, in every thread: the queue united by the whole work group.
// Returns whether any thread has links left, the same in every thread.
bool uniteQueued(int round, bool finished) {
    const int parity = round & 1;
    if (!finished) atomicAdd(sUnfinished[parity], 1u);
    barrier();
    const uint queued = min(sQueued[parity], uint(kQueueLinks));
    const bool again = sUnfinished[parity] != 0u;
    // The next round's counts: last read before this round's first barrier.
    if (gl_LocalInvocationIndex == 0u) {
        sQueued[1 - parity] = 0u;
        sUnfinished[1 - parity] = 0u;
    }
    for (uint i = gl_LocalInvocationIndex; i < queued; i += uint(kThreads)) uniteLink(sQueue[i]);
    barrier();
    return again;
}

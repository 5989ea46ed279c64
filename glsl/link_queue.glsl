// The work group's link queue of a binary volume's local_merge and
// merge_borders, and the links of a relation offered to it (Faces,
// queueLinks): local_merge_volume.comp and merge_borders_volume.comp, which
// take this file with #include after declaring kThreads (their work
// group's threads) and kQueueLinks (the queue's room), and defining
// LINK_SLOT, the type of a node's slot, LINK, the type of a queued link,
// and LINK_WORD, the type that names a bundle word. They define these
// functions anywhere in the program:
//
//   uint linkParent(LINK_SLOT slot)           the node's parent
//   LINK packLink(LINK_SLOT u, LINK_SLOT v)   the link between two nodes
//   void uniteLink(LINK link)                 the union of its two trees
//   LINK_SLOT slotIn(LINK_WORD w, int bit)    the slot of the node of w at bit
//   LINK_WORD wordBefore(LINK_WORD w)         the word before w in its bundle line
//   LINK_WORD wordAfter(LINK_WORD w)          the word after it
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
LINK_SLOT slotIn(LINK_WORD w, int bit);
LINK_WORD wordBefore(LINK_WORD w);
LINK_WORD wordAfter(LINK_WORD w);

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

// One relation of a thread's word U (the word before in its bundle with it,
// for the first), as the stage file's facesOf finds it: V's word, the faces
// of its terms, where they ask for unions, and what is left to offer.
struct Faces {
    LINK_WORD v;                   // V's word
    uint fu[kMostTerms], fv[kMostTerms];
    uvec2 asked[kMostTerms];       // termLinks
    uint asking;                   // the positions whose links are left to offer
    uint edges;                    // bit 2k (2k + 1): term k's link across the low (high) word edge, to the
                                   // word before (after) V's; bit 2 kMostTerms: U's word before in its bundle
};
const uint kBeforeEdge = 1u << uint(2 * kMostTerms);

// Faces to V's word v, with nothing to offer yet.
Faces facesTo(LINK_WORD v) {
    Faces f;
    f.v = v;
    for (int k = 0; k < kMostTerms; ++k) {
        f.fu[k] = 0u;
        f.fv[k] = 0u;
        f.asked[k] = uvec2(0u);
    }
    f.asking = 0u;
    f.edges = 0u;
    return f;
}

// Term k's faces, U's fu and V's fv, and the links they ask for.
void addTerm(inout Faces f, int k, uint fu, uint fv, bool across) {
    f.fu[k] = fu;
    f.fv[k] = fv;
    f.asked[k] = termLinks(fu, fv, across);
    f.asking |= f.asked[k].x | f.asked[k].y;
}

// Offers the links left in f, U's word u, in forEachLinkInWord's order: the
// asking positions from the lowest, every term at each, then the word
// edges. Returns false when the queue filled up; f keeps what is left (a
// position is dropped only when all its links are queued, so a few may be
// offered twice, which unites nothing twice). One exit, at the end: f is
// written back once, with what this round queued taken out (returning from
// inside the loops lost links on one driver).
bool queueLinks(int round, int relation, LINK_WORD u, inout Faces f) {
    Relation rel = kRelations[relation];
    bool room = true;
    if ((f.edges & kBeforeEdge) != 0u) {
        room = offerLink(round, slotIn(u, 0), slotIn(wordBefore(u), 31));
        if (room) f.edges &= ~kBeforeEdge;
    }
    while (room && f.asking != 0u) {
        int x = lowestBit(f.asking);
        for (int k = 0; k < kMostTerms; ++k) {
            bool across = rel.term[k].across;
            if (room && ((f.asked[k].x >> uint(x)) & 1u) != 0u)
                room = offerLink(round, slotIn(u, x), slotIn(f.v, partnerOf(f.fv[k], x, across)));
            if (room && ((f.asked[k].y >> uint(x)) & 1u) != 0u)
                room = offerLink(round, slotIn(u, partnerOf(f.fu[k], x, across)), slotIn(f.v, x));
        }
        if (room) f.asking &= f.asking - 1u;
    }
    while (room && f.edges != 0u) {
        bool low = (lowestBit(f.edges) & 1) == 0;
        room = offerLink(round, slotIn(u, low ? 0 : 31), slotIn(low ? wordBefore(f.v) : wordAfter(f.v), low ? 31 : 0));
        if (room) f.edges &= f.edges - 1u;
    }
    return room;
}

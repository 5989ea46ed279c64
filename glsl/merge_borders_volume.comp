// merge_borders, for a binary volume: the sibling of merge_borders.comp over
// the bundle nodes of volume_nodes.glsl (the CUDA engine's
// merge_borders_volume.cu). A body of its own: a bundle word's links leave
// the patch by its relations' words and a word's runs, not by a border of
// blocks. One work group per patch of
// local_merge_volume.comp, one thread per bundle word; each unites, in the
// global forest (union_find.glsl, unite), the links of its word that
// local_merge left because they leave the patch: to the bundles of its
// relations outside the patch, to the words beside theirs across the
// patch's x faces, and to the word before it in its own bundle across the
// patch's low x face. A patch with no foreground word on a face returns at
// once. As in local_merge, the threads find links and queue them in shared
// memory, a relation a round, and the whole work group unites the queue
// (link_queue.glsl). The union is complete when its thread finishes, so one
// dispatch merges every face.
layout(local_size_x = PATCH_THREADS) in;

const int kThreads = kPatchThreads;
shared uint sOnFace;  // any word on a face with foreground

// The link queue's links: two node slots; a word is its index and its
// foreground.
const int kQueueLinks = BORDER_LINKS;
#define LINK_SLOT uint
#define LINK uvec2
#define LINK_WORD uvec2
#include "link_queue.glsl"

uint linkParent(uint slot) { return loadParent(slot); }
uvec2 packLink(uint u, uint v) { return uvec2(u, v); }
void uniteLink(uvec2 link) {
    uint a = loadParent(link.x), b = loadParent(link.y);
    if (a != b) unite(a, b);
}

// The node slot holding position `bit` of bundle word w.x with foreground w.y.
uint slotIn(uvec2 w, int bit) { return slotOf(w.x, runAt(w.y, bit)); }
uvec2 wordBefore(uvec2 w) { return uvec2(w.x - 1u, foreground[w.x - 1u]); }
uvec2 wordAfter(uvec2 w) { return uvec2(w.x + 1u, foreground[w.x + 1u]); }

// One relation of this thread's word U where V, or the words beside V's,
// lie outside the patch: V's word and its foreground (0 where V is in the
// patch).
Faces facesOf(int relation, int w, int by, int bz, uint wx, uint gby, uint gbz, uint word, bool lowX,
              uint lines[kLines], uint p) {
    Relation rel = kRelations[relation];
    int vby = by + rel.dy, vbz = bz + rel.dz;  // in the patch's bundles
    int gvby = int(gby) + rel.dy, gvbz = int(gbz) + rel.dz;
    bool inVolume = p != 0u && gvby >= 0 && gvby < int(bundlesY) && gvbz >= 0;
    bool vOutside = inVolume && (vby < 0 || vby >= kPatchBundlesY || vbz < 0);
    bool beforeOutside = inVolume && wx > 0u && (vOutside || w == 0);
    bool afterOutside = inVolume && wx + 1u < wordsX && (vOutside || w == kPatchWords - 1);
    const uint vWord = inVolume ? bundleWord(wx, uint(gvby), uint(gvbz)) : 0u;
    Faces f = facesTo(uvec2(vWord, vOutside ? foreground[vWord] : 0u));
    uint v[kLines];
    for (int l = 0; l < kLines; ++l) v[l] = 0u;
    if (vOutside) loadBundleLines(wx, uint(gvby), uint(gvbz), v);
    // The word before in the same bundle, across the patch's low x face.
    if (relation == 0 && lowX && (p & 1u) != 0u && (foreground[word - 1u] >> 31u) != 0u) f.edges |= kBeforeEdge;
    for (int k = 0; k < kMostTerms; ++k) {
        if (k >= rel.terms) continue;
        FaceTerm term = rel.term[k];
        addTerm(f, k, linesOf(lines, term.uLines), linesOf(v, term.vLines), term.across);
        if (!term.across) continue;
        // One step across the word's edges, to the words beside V's.
        uint b[kLines], a[kLines];
        if (beforeOutside && (f.fu[k] & 1u) != 0u) {
            loadBundleLines(wx - 1u, uint(gvby), uint(gvbz), b);
            if ((linesOf(b, term.vLines) >> 31u) != 0u) f.edges |= 1u << uint(2 * k);
        }
        if (afterOutside && (f.fu[k] >> 31u) != 0u) {
            loadBundleLines(wx + 1u, uint(gvby), uint(gvbz), a);
            if ((linesOf(a, term.vLines) & 1u) != 0u) f.edges |= 2u << uint(2 * k);
        }
    }
    return f;
}

void main() {
    const PatchPlace at = patchPlace();
    const int t = at.t, w = at.w, by = at.by, bz = at.bz;
    const uint wx = at.wx, gby = at.gby, gbz = at.gbz;
    const bool inside = at.inside;
    // Only the patch's faces have links out: its first and last word, its
    // first and last bundle row, its first bundle slice.
    const bool lowX = w == 0 && wx > 0u, highX = w == kPatchWords - 1 && wx + 1u < wordsX;
    const bool onFace = inside && (lowX || highX || by == 0 || by == kPatchBundlesY - 1 || bz == 0);
    const uint word = onFace ? bundleWord(wx, gby, gbz) : 0u;
    const uint p = onFace ? foreground[word] : 0u;
    if (t == 0) {
        sOnFace = 0u;
        startLinkQueue();
    }
    barrier();
    if (p != 0u) atomicOr(sOnFace, 1u);
    barrier();
    if (sOnFace == 0u) return;  // the whole work group

    uint lines[kLines];
    for (int l = 0; l < kLines; ++l) lines[l] = 0u;
    if (p != 0u) loadBundleLines(wx, gby, gbz, lines);

    int round = 0;
    for (int relation = 0; relation < kRelationCount; ++relation) {
        Faces f = facesOf(relation, w, by, bz, wx, gby, gbz, word, lowX, lines, p);
        bool finished = false;
        for (bool again = true; again; ++round) {
            if (!finished) finished = queueLinks(round, relation, uvec2(word, p), f);
            again = uniteQueued(round, finished);
        }
    }
}

#pragma once
// The union-find of the cpu engine and of tiles, written once: a forest of
// keys in which every parent comes earlier than its child, a find that
// halves the path, and a union that links the later root under the earlier.
// The root of a tree is then its earliest key: the first run (cpu engine) or
// part (tiles) of a component in raster order, which is what both number
// components by. What differs from use to use is where the entries live
// and what comes earlier, an Entries policy:
//
//   using Key;           a node's key
//   parent(k)            k's parent; k itself at a root
//   halve(k, g)          k's parent becomes g, its grandparent (a policy may
//                        keep the old parent where its entry cannot hold g)
//   link(r, to)          root r becomes a child of root `to`, which comes earlier
//   earlier(a, b)        whether key a comes before key b
//
// No atomics: each tree has one writer at a time. The cpu engine's stripes
// are scanned each by one thread, and merged in rounds whose borders join
// disjoint groups of stripes; tiles merge their borders on one thread.

namespace glccl::detail {

template <class Entries>
struct KeyForest {
    using Key = typename Entries::Key;
    Entries entries;

    // The root of key's tree, halving the path on the way: each visited key
    // is pointed at its grandparent, so that the trees stay shallow for the
    // finds after it. Nothing is stored where a key already hangs under
    // its root.
    Key find(Key key) const {
        for (;;) {
            const Key parent = entries.parent(key);
            if (parent == key) return key;
            const Key grandparent = entries.parent(parent);
            if (grandparent == parent) return parent;
            entries.halve(key, grandparent);
            key = grandparent;
        }
    }

    // Joins the trees of roots a and b and returns the root of the whole:
    // the earlier of the two, the later becoming its child.
    Key linkRoots(Key a, Key b) const {
        if (entries.earlier(b, a)) {
            entries.link(a, b);
            return b;
        }
        if (entries.earlier(a, b)) entries.link(b, a);
        return a;
    }

    // Joins the trees of keys a and b; returns the root of the whole.
    Key unite(Key a, Key b) const { return linkRoots(find(a), find(b)); }
};

}  // namespace glccl::detail

#pragma once
#include "download_table.hpp"
#include "raster_pass.hpp"

namespace glccl::raster {

// component_table (component_table[_runs|_slots].vert, component_table.frag, O'Connell §7): boxes, areas
// and coordinate sums scattered into the compact table, entry k - 1 for
// label k. Boxes keep maxima (GL_MAX), sums add (GL_FUNC_ADD): one draw where
// blending can differ per draw buffer (OpenGL 4.0), two masked draws of the
// same program in a 3.3 context.
class ComponentTablePass {
public:
    static constexpr const char* kStage = "component_table";
    ComponentTablePass();
    // How the points are found (Tuning::rasterTable).
    enum class Points {
        // A point per root and row segment, from a vertex per node that
        // walks its segment (component_table.vert).
        Segments,
        // A point per run of one root along a row segment, from a vertex
        // per node that reads two texels (component_table_runs.vert).
        Runs,
        // A point per root and segment, a segment a block of nodes
        // (slotSegmentWidth), from a vertex per segment and slot:
        // a fragment pass marks each segment's first nodes of their roots
        // in `firsts` (component_table_firsts.frag), a vertex per segment
        // sends their count to `most` (component_table_most.frag), and the
        // most is the slots per segment (component_table_slots.vert). The
        // host reads it back before the draw the first time; after that,
        // the draw takes the most the last call read, and slotsSufficed()
        // reads this call's once the table is downloaded (the GPU done
        // with it, no wait of its own), so that labeling frame after frame
        // does not stop the GPU for it.
        Slots,
    };
    // Where the points go (Tuning::rasterTableSpread): with count > 1, not
    // into the table but into `count` copies of its first `rows` rows in
    // `targets`, a point's copy chosen by its segment, so that a
    // component crossing many segments blends a count-th of its points
    // into each copy of its entry; a fragment pass then folds the copies
    // into the table (component_table_fold.frag), or with `foldInDownload`
    // download_table's words pass reads the copies and folds them itself
    // (a pass fewer). `rows` are the entries' rows whatever the count: the
    // table's first `rows` rows are the ones drawn and cleared.
    struct Copies {
        const TableTargets& targets;
        int rows = 0, count = 1;
        bool foldInDownload = false;
    };
    // `firsts` (R32UI, a texel per block segment) and `most` (R32F,
    // kMostSide x kMostSide) are used by Slots only. With `digits`
    // (Tuning::rasterTableSums digits), the sums absolute and split into
    // digits over the sums target and digits->targets() digit targets
    // (component_table.frag, TABLE_DIGITS), every entry exact; without,
    // sums relative to the root and the roots.
    // With Slots and `localByFragments` (Tuning::rasterTableLocal) where
    // scan_roots numbered the roots, a component inside
    // one segment takes no point: a fragment pass over the entries finds
    // each entry's root from its label and sums it over the root's segment
    // (component_table.frag, TABLE_LOCAL), and `firsts` keeps only the
    // roots that leave their segment.
    void run(const PassContext& context, const LabeledGrid& grid, const TableTargets& table, Points points,
             bool localByFragments, const gl::RenderTarget& firsts, const gl::RenderTarget& most,
             const Copies& copies, const SumDigits* digits = nullptr);
    // After a Slots run() that drew with the last call's slots, once its
    // table is read: whether they were as many as this call's segments
    // need (if not, run() again draws with this call's, now read). True
    // after any other run().
    bool slotsSufficed();

private:
    // Slots: the roots first in each segment counted into `most`.
    // With `crossingOnly`, only the roots that leave their segment.
    void countFirsts(const PassContext& context, const gl::RenderTarget& firsts, const gl::RenderTarget& most,
                     bool crossingOnly);
    // The most roots first in one segment, at least 1, read from `most`.
    static int readMost(const gl::RenderTarget& most);

    // Slots: the slots the last draw took; whether they were the last
    // call's (to be checked by slotsSufficed()) rather than this one's;
    // whether slotsSufficed() found them too few and read this call's.
    int slotsDrawn_ = 0;
    bool slotsGuessed_ = false, slotsRead_ = false;
    const gl::RenderTarget* mostToCheck_ = nullptr;

    bool perDrawBufferBlend_ = false;  // glBlendEquationi: OpenGL 4.0
    bool es_ = false;                  // OpenGL ES: draw buffers select the targets
};

}  // namespace glccl::raster

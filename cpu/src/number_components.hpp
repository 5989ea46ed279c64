#pragma once
// Stage "number": every run's entry becomes its code (engine.hpp): each
// stripe, on its own thread, ranks its global roots in raster order (a
// root's rank among the roots is its component's rank by first element,
// since runs are numbered in raster order and every union keeps the smaller
// root) and gives every other run its root's code. Then, on the calling
// thread, the labels before each stripe (a sum over the stripes) and the
// label of each external root.

#include <cstring>
#include <string>

#include "engine.hpp"

namespace glccl::cpu::detail {

// The codes go to the end of the stripe's stretch, so that final can write
// labels forwards over them (engine.hpp). Run k's code is its parent's, and
// the parent is a smaller run, whose code is already known.
inline void codeStripe(const EngineContext& ctx, Stripe& stripe) {
    std::uint32_t* entries = stripe.entries;
    const std::uint32_t runs = stripe.runCount;
    const std::size_t elements = std::size_t(stripe.endRow - stripe.firstRow) * std::size_t(ctx.geometry.width);
    std::uint32_t* codes = entries + (elements - runs);
    std::uint32_t roots = 0;
    if (2 * std::size_t(runs) <= elements) {
        // Apart: each entry read once, each code written once; selects
        // rather than branches (roots come in no order a predictor learns).
        for (std::uint32_t k = 0; k < runs; ++k) {
            const std::uint32_t parent = entries[k];
            const bool root = parent == k;
            roots += root;
            // A root reads code 0 (or, as run 0, what lies there): masked off.
            const std::uint32_t own = (parent & kExternal) | std::uint32_t(root);
            const std::uint32_t ownMask = 0u - std::uint32_t(own != 0);
            const std::uint32_t inherited = codes[parent & ~ownMask];
            const std::uint32_t rootMask = 0u - std::uint32_t(root);
            codes[k] = (inherited & ~ownMask) | (parent & ownMask & ~rootMask) | (roots & rootMask);
        }
    } else {
        // Overlapping (runs of one or two elements): coded in place, then moved.
        for (std::uint32_t k = 0; k < runs; ++k) {
            const std::uint32_t parent = entries[k];
            if (!(parent & kExternal)) entries[k] = parent == k ? ++roots : entries[parent];
        }
        std::memmove(codes, entries, std::size_t(runs) * sizeof(std::uint32_t));
    }
    stripe.rootCount = roots;
    stripe.codes = codes;
}

// "the image WxH" / "the volume WxHxD".
inline std::string describeInput(const Geometry& g, int dimensions) {
    std::string text = std::string(dimensions == 3 ? "the volume " : "the image ") + std::to_string(g.width) + "x" +
                       std::to_string(g.height);
    if (dimensions == 3) text += "x" + std::to_string(g.depth);
    return text;
}

inline void numberComponents(const EngineContext& ctx, int dimensions) {
    const std::size_t stripes = ctx.stripePlan->stripes();
    ctx.parallel(stripes, [&](std::size_t s, WorkerScratch&) { codeStripe(ctx, ctx.stripe(s)); });

    std::uint64_t labels = 0;
    for (std::size_t s = 0; s < stripes; ++s) {
        ctx.stripe(s).firstLabel = labels;
        labels += ctx.stripe(s).rootCount;
    }
    if (labels > UINT32_MAX) {
        throw Error(std::string(ctx.entry) + describeInput(ctx.geometry, dimensions) +
                    " has more components than 32-bit labels can number");
    }
    for (std::size_t s = 0; s < stripes; ++s) {
        Stripe& stripe = ctx.stripe(s);
        stripe.externalLabel.resize(stripe.external.size());
        for (std::size_t j = 0; j < stripe.external.size(); ++j) {
            const Stripe& home = ctx.stripe(stripeOf(stripe.external[j]));
            stripe.externalLabel[j] = std::uint32_t(home.firstLabel + home.codes[runOf(stripe.external[j])]);
        }
    }
    ctx.table->resize(std::size_t(labels));
}

}  // namespace glccl::cpu::detail

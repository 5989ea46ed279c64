#pragma once
// Stage "number": every run's entry becomes its code (engine.hpp): each
// stripe, on its own thread, ranks its global roots in raster order (a
// root's rank among the roots is its component's rank by first element,
// since runs are numbered in raster order and every union keeps the smaller
// root) and gives every other run its root's code. Then, on the calling
// thread, the labels before each stripe (a sum over the stripes) and the
// label of each external root.

#include <string>

#include "engine.hpp"

namespace glccl::cpu::detail {

inline void codeStripe(Stripe& stripe) {
    std::uint32_t* entries = stripe.entries;
    std::uint32_t roots = 0;
    for (std::uint32_t k = 0; k < stripe.runCount; ++k) {
        const std::uint32_t parent = entries[k];
        if (parent & kExternal) continue;
        // A parent is a smaller run, whose entry is already its code.
        entries[k] = parent == k ? ++roots : entries[parent];
    }
    stripe.rootCount = roots;
}

// "the image WxH" / "the volume WxHxD".
inline std::string describeInput(const Geometry& g, int dimensions) {
    std::string text = std::string(dimensions == 3 ? "the volume " : "the image ") + std::to_string(g.width) + "x" +
                       std::to_string(g.height);
    if (dimensions == 3) text += "x" + std::to_string(g.depth);
    return text;
}

inline void numberComponents(const EngineContext& ctx, int dimensions) {
    const std::size_t stripes = ctx.plan.stripes();
    ctx.parallel(stripes, [&](std::size_t s, WorkerScratch&) { codeStripe(ctx.stripe(s)); });

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
            stripe.externalLabel[j] = std::uint32_t(home.firstLabel + home.entries[runOf(stripe.external[j])]);
        }
    }
    ctx.table->resize(std::size_t(labels));
}

}  // namespace glccl::cpu::detail

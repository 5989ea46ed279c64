#pragma once
// The cpu engine's stages in order, for one criterion rule. Instantiated once
// per rule by the engine_*.cpp files.

#include <chrono>

#include "engine.hpp"
#include "merge_stripes.hpp"
#include "number_components.hpp"
#include "scan_stripes.hpp"
#include "small_helpers.hpp"
#include "write_labels.hpp"

namespace glccl::cpu::detail {

// The share of a call each stage takes, in order, for the progress
// fraction: scan and final read every element, number visits every run,
// merge only the stripes' borders.
struct StageShare {
    const char* name;
    double from, to;
    bool rows;  // its threads report the rows they have done
};
constexpr StageShare kScan{"scan", 0.0, 0.5, true};
constexpr StageShare kMerge{"merge", 0.5, 0.52, false};
constexpr StageShare kNumber{"number", 0.52, 0.6, false};
constexpr StageShare kFinal{"final", 0.6, 1.0, true};

template <class Stage>
void timeStage(const EngineContext& ctx, const StageShare& share, Stage&& stage) {
    const char* name = share.name;
    if (ctx.progress) ctx.progress->beginStage(name, share.from, share.to, share.rows ? ctx.geometry.rows : 0);
    const auto start = std::chrono::steady_clock::now();
    stage();
    if (ctx.progress) ctx.progress->endStage();
    if (ctx.timings) {
        const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
        addStageTime(*ctx.timings, name, elapsed.count());
    }
}

// scan -> merge -> number -> final; returns the component count.
template <class Rule>
std::uint32_t runStages(const Rule& rule, const EngineContext& ctx, int dimensions) {
    timeStage(ctx, kScan, [&] { scanStripes(rule, ctx); });
    timeStage(ctx, kMerge, [&] { mergeStripes(ctx); });
    timeStage(ctx, kNumber, [&] { numberComponents(ctx, dimensions); });
    timeStage(ctx, kFinal, [&] { writeLabels(rule, ctx); });
    return std::uint32_t(ctx.table->size());
}

// The engine for each criterion, on samples of `sampleBits` bits (and, for
// threshold, `channels` channels): one file each, compiled side by side.
std::uint32_t labelBinary(const EngineContext& ctx, int dimensions, int sampleBits, std::uint64_t level);
std::uint32_t labelSegments(const EngineContext& ctx, int dimensions, int sampleBits);
std::uint32_t labelThreshold(const EngineContext& ctx, int dimensions, int sampleBits, int channels,
                             std::uint64_t threshold);
std::uint32_t labelDelta(const EngineContext& ctx, int dimensions, int sampleBits, std::uint64_t delta);
// Any criterion under a neighbourhood other than the named connectivities
// (NeighbourhoodRule; ctx.geometry made from that neighbourhood).
std::uint32_t labelNeighbourhood(const EngineContext& ctx, int dimensions, int sampleBits, int channels,
                                 const Criterion& criterion, bool joinsAlongX);

}  // namespace glccl::cpu::detail

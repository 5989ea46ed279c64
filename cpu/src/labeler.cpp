#include "glccl/cpu_labeler.hpp"

#include <sched.h>

#include <algorithm>
#include <string>
#include <thread>

#include "glccl/error.hpp"
#include "labeler_detail.hpp"
#include "stages.hpp"

namespace glccl::cpu {

namespace {

constexpr const char* kEntry = "glccl::cpu::Labeler::label(): ";

thread_local std::uint64_t stripeLimit = detail::kMaxStripeElements;

// Labels of this many bytes and more are written with non-temporal stores:
// beyond what the caches hold, reading each line before overwriting it
// doubles the traffic of the final pass.
constexpr std::uint64_t kStreamLabelBytes = std::uint64_t(64) << 20;
thread_local bool alwaysStream = false;

std::string describe(const ImageView& image) {
    std::string text = std::to_string(image.width) + "x" + std::to_string(image.height);
    if (image.dimensions == 3) text += "x" + std::to_string(image.depth);
    return text;
}

// The reference's refusals (reference.cpp's validate), in its order, and the
// pointers a view may lack.
void validate(const ImageView& image, const Neighbourhood& neighbourhood, const Criterion& criterion,
              const std::uint32_t* labels) {
    const auto where = [] { return std::string(kEntry); };  // built on the way out only
    const std::string misfit = whyNeighbourhoodDoesNotFit(neighbourhood, image.shape());
    if (!misfit.empty()) throw Error(where() + misfit);
    if (image.width <= 0 || image.height <= 0 || image.depth <= 0) {
        throw Error(where() + "the " + std::string(image.dimensions == 3 ? "volume" : "image") + " is empty (" +
                    describe(image) + ")");
    }
    if (image.channels != 1 && image.channels != 4) {
        throw Error(where() + "the image has " + std::to_string(image.channels) + " channels; expected 1 or 4");
    }
    if (!Image::isSampleBits(image.sampleBits)) {
        throw Error(where() + "the image has " + std::to_string(image.sampleBits) +
                    "-bit samples; expected 8, 16, 32 or 64");
    }
    if (image.dimensions == 2 && image.depth != 1) {
        throw Error(where() + "a 2-D image has depth 1, this one " + std::to_string(image.depth));
    }
    if (criterion.kind != Criterion::Kind::Binary && criterion.kind != Criterion::Kind::Segments &&
        criterion.kind != Criterion::Kind::Threshold && criterion.kind != Criterion::Kind::Delta) {
        throw Error(where() + "unknown criterion kind " + std::to_string(int(criterion.kind)));
    }
    if (criterion.kind != Criterion::Kind::Threshold && image.channels != 1) {
        throw Error(where() + "criterion '" + criterion.toString() +
                    "' needs a 1-channel image but this one has 4 channels (convert it to gray first)");
    }
    const std::string problem = criterion.problemForSampleBits(image.sampleBits);
    if (!problem.empty()) throw Error(where() + problem);
    if (image.pixels == nullptr) throw Error(where() + "the image's pixels are null");
    if (labels == nullptr) throw Error(where() + "the labels are null");
}

bool isBinaryRule(const Criterion& criterion) { return criterion.kind == Criterion::Kind::Binary; }

}  // namespace

int defaultThreads() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int count = CPU_COUNT(&set);
        if (count > 0) return count;
    }
    return int(std::max(1u, std::thread::hardware_concurrency()));
}

int threadsFor(std::uint64_t elements, int threads) {
    const std::uint64_t useful = std::max<std::uint64_t>(1, elements / kMinElementsPerThread);
    return int(std::max<std::uint64_t>(1, std::min<std::uint64_t>(std::uint64_t(std::max(threads, 1)), useful)));
}

std::uint64_t scratchBytes(const Shape& shape, int channels, int sampleBits, Connectivity connectivity,
                           const Criterion& criterion, int threads) {
    (void)channels;
    (void)sampleBits;
    if (shape.count() == 0 || !whyConnectivityDoesNotFit(connectivity, shape).empty()) return 0;
    if (threads <= 0) threads = defaultThreads();
    threads = threadsFor(shape.count(), threads);
    const detail::Geometry g = detail::makeGeometry(shape, connectivity);
    detail::StripePlan plan;
    detail::planStripes(g, threads, detail::kMaxStripeElements, plan);
    const auto maxRuns = std::uint64_t(detail::maxRunsPerRow(g.width, isBinaryRule(criterion)));
    const auto words = std::uint64_t((g.width + 63) / 64);
    const auto back = std::uint64_t(g.backRows);
    const std::uint64_t stripes = plan.stripes();
    // Each worker: five rows of runs (first and last, 4 bytes each, and
    // their words: 20 bytes each), the ring of first runs, the positions of
    // a row's touching pairs and a row of labels (4 bytes each).
    const auto width = std::uint64_t(g.width);
    const std::uint64_t worker = 5 * ((maxRuns + detail::kSlack) * 8 + words * 20) + (back + 1) * 4 +
                                 (maxRuns + detail::kSlack) * 4 + (width + detail::kSlack) * 4 +
                                 sizeof(detail::WorkerScratch);
    // Each stripe after the first: the links of its first `back` rows, each
    // row to at most four rows of earlier stripes and each such row reached
    // from at most four, and between two rows at most as many links as both
    // have runs; their row groups; the first runs of its last rows.
    const std::uint64_t links = 8 * back * maxRuns;
    const std::uint64_t perStripe = links * sizeof(detail::BorderLink) + 4 * back * sizeof(detail::BorderRow) + back * 4;
    // Each union across a border joins two trees of the runs of its rows
    // (`back` rows on either side) and re-parents one root: its node,
    // label and part of the table.
    const std::uint64_t externals = 2 * back * maxRuns;
    const std::uint64_t perExternal = sizeof(detail::Node) + sizeof(std::uint32_t) + sizeof(Component);
    return std::min<std::uint64_t>(std::uint64_t(threads), stripes) * worker + stripes * sizeof(detail::Stripe) +
           (stripes - 1) * (perStripe + externals * perExternal);
}

struct Labeler::State {
    detail::ThreadPool pool;
    int threads;
    detail::StripePlan plan;
    std::vector<detail::Stripe> stripes;
    std::vector<detail::WorkerScratch> workers;

    explicit State(int threads) : pool(threads), threads(threads) {}
};

Labeler::Labeler(int threads) : state_(std::make_unique<State>(threads > 0 ? threads : defaultThreads())) {}
Labeler::~Labeler() = default;
Labeler::Labeler(Labeler&&) noexcept = default;
Labeler& Labeler::operator=(Labeler&&) noexcept = default;

int Labeler::threads() const { return state_->threads; }

std::uint32_t Labeler::label(const ImageView& image, Connectivity connectivity, const Criterion& criterion,
                             std::uint32_t* labels, std::vector<Component>& table, const Options& options) {
    return label(image, Neighbourhood(connectivity), criterion, labels, table, options);
}

std::uint32_t Labeler::label(const ImageView& image, const Neighbourhood& neighbourhood, const Criterion& criterion,
                             std::uint32_t* labels, std::vector<Component>& table, const Options& options) {
    validate(image, neighbourhood, criterion, labels);
#if defined(GLCCL_CPU_NEEDS_POPCNT)
    if (!__builtin_cpu_supports("popcnt"))
        throw Error(std::string(kEntry) + "this processor lacks POPCNT, which this build of the cpu engine needs "
                                          "(build with -DGLCCL_CPU_POPCNT=OFF)");
#endif
    State& state = *state_;
    const int threads = threadsFor(image.shape().count(), options.threads > 0 ? options.threads : state.threads);
    state.pool.grow(threads);

    detail::EngineContext ctx;
    ctx.pixels = image.pixels;
    ctx.elementBytes = std::size_t(image.channels) * std::size_t(image.sampleBits / 8);
    // A named connectivity takes the rules of its criterion as they are;
    // another neighbourhood wraps them (NeighbourhoodRule), its runs joined
    // along x only where it joins x neighbours.
    const bool named = neighbourhood.isNamed();
    const bool joinsAlongX = neighbourhood.joins(-1, 0, 0);
    ctx.geometry = named ? detail::makeGeometry(image.shape(), neighbourhood.named())
                         : detail::makeGeometry(image.shape(), neighbourhood);
    detail::planStripes(ctx.geometry, threads, stripeLimit, state.plan);
    ctx.stripePlan = &state.plan;
    ctx.labels = labels;
    ctx.pool = &state.pool;
    ctx.threads = threads;
    ctx.table = &table;
    ctx.cancelled = &options.cancelled;
    ctx.timings = options.timings;
    ctx.progress = options.progress;
    ctx.entry = kEntry;
    ctx.streamLabels = alwaysStream || image.shape().count() * sizeof(std::uint32_t) >= kStreamLabelBytes;

    const std::size_t stripeCount = state.plan.stripes();
    state.stripes.resize(stripeCount);
    for (std::size_t s = 0; s < stripeCount; ++s) {
        detail::Stripe& stripe = state.stripes[s];
        stripe.firstRow = state.plan.firstRow[s];
        stripe.endRow = state.plan.firstRow[s + 1];
        stripe.entries = ctx.labelRow(stripe.firstRow);
        stripe.runCount = stripe.rootCount = 0;
        stripe.external.clear();
        stripe.borderLinks.clear();
        stripe.borderRows.clear();
    }
    if (state.workers.size() < std::size_t(threads)) state.workers.resize(std::size_t(threads));
    const std::int64_t maxRuns = detail::maxRunsPerRow(ctx.geometry.width, isBinaryRule(criterion) && joinsAlongX);
    for (detail::WorkerScratch& worker : state.workers)
        worker.reserve(maxRuns, ctx.geometry.width, ctx.geometry.backRows);
    ctx.stripes = &state.stripes;
    ctx.workers = &state.workers;

    const int dimensions = image.dimensions;
    if (options.foreground) {
        std::vector<std::uint64_t>& bits = *options.foreground;
        if (named && criterion.kind == Criterion::Kind::Binary && dimensions == 2) {
            ctx.foregroundStride = std::size_t((ctx.geometry.width + 63) / 64) + 1;
            bits.resize(ctx.foregroundStride * std::size_t(image.height));
            ctx.foreground = bits.data();
        } else {
            bits.clear();
        }
    }
    if (options.runLabels && options.runStarts) {
        // Sized by writeLabels, once the scan has counted the runs.
        if (ctx.foreground) {
            ctx.runLabels = options.runLabels;
            ctx.runStarts = options.runStarts;
        } else {
            options.runLabels->clear();
            options.runStarts->clear();
        }
    }
    if (!named)
        return detail::labelNeighbourhood(ctx, dimensions, image.sampleBits, image.channels, criterion, joinsAlongX);
    switch (criterion.kind) {
        case Criterion::Kind::Binary:
            return detail::labelBinary(ctx, dimensions, image.sampleBits, std::uint64_t(criterion.level));
        case Criterion::Kind::Segments: return detail::labelSegments(ctx, dimensions, image.sampleBits);
        case Criterion::Kind::Threshold:
            return detail::labelThreshold(ctx, dimensions, image.sampleBits, image.channels,
                                          std::uint64_t(criterion.threshold));
        case Criterion::Kind::Delta:
            return detail::labelDelta(ctx, dimensions, image.sampleBits, std::uint64_t(criterion.delta));
    }
    return 0;
}

std::uint32_t label(const ImageView& image, Connectivity connectivity, const Criterion& criterion,
                    std::uint32_t* labels, std::vector<Component>& table, const Options& options) {
    Labeler labeler(options.threads);
    return labeler.label(image, connectivity, criterion, labels, table, options);
}

std::uint32_t label(const ImageView& image, const Neighbourhood& neighbourhood, const Criterion& criterion,
                    std::uint32_t* labels, std::vector<Component>& table, const Options& options) {
    Labeler labeler(options.threads);
    return labeler.label(image, neighbourhood, criterion, labels, table, options);
}

namespace detail {

ScopedStripeLimit::ScopedStripeLimit(std::uint64_t elements) : previous_(stripeLimit) {
    stripeLimit = std::max<std::uint64_t>(1, std::min(elements, kMaxStripeElements));
}

ScopedStripeLimit::~ScopedStripeLimit() { stripeLimit = previous_; }

ScopedStreamedLabels::ScopedStreamedLabels() : previous_(alwaysStream) { alwaysStream = true; }

ScopedStreamedLabels::~ScopedStreamedLabels() { alwaysStream = previous_; }

}  // namespace detail

}  // namespace glccl::cpu

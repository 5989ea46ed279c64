#include "pipeline.hpp"

#include <algorithm>
#include <string>

namespace glccl::cuda {
namespace {

std::size_t checkedPixelCount(const CudaCheck& check, int width, int height, int channels, Criterion criterion) {
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    if (width < 1 || height < 1) check.fail("the image is " + size + "; width and height must be at least 1");
    const std::uint64_t pixels = std::uint64_t(width) * std::uint64_t(height);
    if (pixels > kMaxPixels) {
        check.fail("the image is " + size + " = " + std::to_string(pixels) + " pixels; the CUDA path labels at most " +
                   std::to_string(kMaxPixels) + " (32-bit pixel indices)");
    }
    if (channels != 1 && channels != 4) {
        check.fail("the image has " + std::to_string(channels) + " channels; expected 1 or 4");
    }
    if (criterion.kind != Criterion::Kind::Threshold && channels != 1) {
        check.fail("criterion " + criterion.toString() + " needs a 1-channel image, this one has " +
                   std::to_string(channels) + " channels (use threshold:T for color)");
    }
    if (criterion.kind == Criterion::Kind::Threshold && (criterion.threshold < 0 || criterion.threshold > 255)) {
        check.fail("threshold " + std::to_string(criterion.threshold) + " is outside 0..255");
    }
    return std::size_t(pixels);
}

PixelRule pixelRule(Connectivity connectivity, Criterion criterion) {
    PixelRule rule;
    rule.connectivity = connectivity == Connectivity::Four ? 4 : 8;
    switch (criterion.kind) {
        case Criterion::Kind::Binary: rule.kind = PixelRuleKind::Binary; break;
        case Criterion::Kind::Segments: rule.kind = PixelRuleKind::Segments; break;
        case Criterion::Kind::Threshold: rule.kind = PixelRuleKind::Threshold; break;
    }
    rule.threshold = criterion.threshold;
    return rule;
}

}  // namespace

LabelPipeline::LabelPipeline(const CudaCheck& check, int width, int height, int channels, Connectivity connectivity,
                             Criterion criterion)
    : check_(check),
      width_(width),
      height_(height),
      channels_(channels),
      pixelCount_(checkedPixelCount(check, width, height, channels, criterion)),
      rule_(pixelRule(connectivity, criterion)),
      stream_(check),
      input_(pixelCount_ * std::size_t(channels), check),
      labels_(pixelCount_, check) {}

LabelPipeline::~LabelPipeline() { cudaStreamSynchronize(stream_.get()); }

// The whole algorithm (Stava & Benes Fig. 35.6, then the output contract).
std::vector<Component> LabelPipeline::run(StageTimings* timings) {
    StageTimer timer(timings != nullptr, stream_.get(), check_);
    if (channels_ == 1) {
        findComponents(d_input(), timer);
    } else {
        findComponents(reinterpret_cast<const uchar4*>(d_input()), timer);
    }
    const std::uint32_t count = numberComponents(timer);
    std::vector<Component> table = computeTable(count, timer);
    if (timings != nullptr) *timings = timer.collect();
    return table;
}

// Kernel 1, then the merging scheme level by level (kernel 2, with kernel 3
// before each level but the first), then kernel 4: afterwards every
// foreground pixel holds its component's first pixel.
template <typename Pixel>
void LabelPipeline::findComponents(const Pixel* d_image, StageTimer& timer) {
    timer.begin("solve_tiles");
    solveTiles(d_image, labels_.get(), width_, height_, rule_, stream(), check_);
    timer.end();

    const std::int64_t side = std::max(width_, height_);
    for (std::int64_t subBlock = kTileSize; subBlock < side; subBlock *= kMergeFactor) {
        if (subBlock > kTileSize) {
            timer.begin("flatten_borders");
            flattenBorders(labels_.get(), width_, height_, int(subBlock), stream(), check_);
            timer.end();
        }
        timer.begin("merge_tiles");
        mergeTiles(d_image, labels_.get(), width_, height_, rule_, int(subBlock), stream(), check_);
        timer.end();
    }

    timer.begin("flatten_labels");
    flattenLabels(labels_.get(), pixelCount_, stream(), check_);
    timer.end();
}

// Canonical labels in place; returns the component count (the one value the
// host must see before it can size the table).
std::uint32_t LabelPipeline::numberComponents(StageTimer& timer) {
    DeviceBuffer<std::uint32_t> rank(pixelCount_ + 1, check_);
    // At least one byte: CUB takes a null scratch pointer as a size query.
    const std::size_t scratchBytes = std::max<std::size_t>(relabelScratchBytes(pixelCount_, check_), 1);
    DeviceBuffer<unsigned char> scratch(scratchBytes, check_);

    timer.begin("relabel");
    relabel(labels_.get(), rank.get(), pixelCount_, scratch.get(), scratchBytes, stream(), check_);
    timer.end();

    std::uint32_t count = 0;
    check_(cudaMemcpyAsync(&count, rank.get() + pixelCount_, sizeof count, cudaMemcpyDeviceToHost, stream()),
           "cudaMemcpyAsync (component count)");
    check_(cudaStreamSynchronize(stream()), "cudaStreamSynchronize (component count)");
    return count;
}

std::vector<Component> LabelPipeline::computeTable(std::uint32_t count, StageTimer& timer) {
    std::vector<Component> table(count);
    if (count == 0) return table;

    // Bounds as four arrays of count (left, top, right, bottom), sums as
    // three (area, sumX, sumY).
    const std::size_t n = count;
    DeviceBuffer<std::uint32_t> bounds(4 * n, check_);
    DeviceBuffer<unsigned long long> sums(3 * n, check_);
    const DeviceComponentTable device{bounds.get(),     bounds.get() + n,     bounds.get() + 2 * n,
                                      bounds.get() + 3 * n, sums.get(), sums.get() + n, sums.get() + 2 * n};

    timer.begin("component_stats");
    check_(cudaMemsetAsync(device.left, 0xFF, 2 * n * sizeof(std::uint32_t), stream()), "cudaMemsetAsync");
    check_(cudaMemsetAsync(device.right, 0, 2 * n * sizeof(std::uint32_t), stream()), "cudaMemsetAsync");
    check_(cudaMemsetAsync(device.area, 0, sums.bytes(), stream()), "cudaMemsetAsync");
    componentStats(labels_.get(), width_, height_, device, stream(), check_);
    timer.end();

    std::vector<std::uint32_t> hostBounds(4 * n);
    std::vector<unsigned long long> hostSums(3 * n);
    check_(cudaMemcpyAsync(hostBounds.data(), bounds.get(), bounds.bytes(), cudaMemcpyDeviceToHost, stream()),
           "cudaMemcpyAsync (component bounds)");
    check_(cudaMemcpyAsync(hostSums.data(), sums.get(), sums.bytes(), cudaMemcpyDeviceToHost, stream()),
           "cudaMemcpyAsync (component sums)");
    check_(cudaStreamSynchronize(stream()), "cudaStreamSynchronize (component table)");

    for (std::size_t i = 0; i < n; ++i) {
        Component& c = table[i];
        c.left = hostBounds[i];
        c.top = hostBounds[n + i];
        c.width = hostBounds[2 * n + i] - c.left + 1;
        c.height = hostBounds[3 * n + i] - c.top + 1;
        c.area = hostSums[i];
        // The CPU reference's division, bit for bit: exact integer sums
        // (below 2^53) converted to double, then one division.
        c.centroidX = double(hostSums[n + i]) / double(c.area);
        c.centroidY = double(hostSums[2 * n + i]) / double(c.area);
    }
    return table;
}

std::vector<std::uint32_t> LabelPipeline::downloadLabels() const {
    std::vector<std::uint32_t> labels(pixelCount_);
    check_(cudaMemcpyAsync(labels.data(), labels_.get(), labels_.bytes(), cudaMemcpyDeviceToHost, stream()),
           "cudaMemcpyAsync (labels)");
    check_(cudaStreamSynchronize(stream()), "cudaStreamSynchronize (labels)");
    return labels;
}

}  // namespace glccl::cuda

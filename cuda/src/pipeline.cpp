#include "pipeline.hpp"

#include <algorithm>
#include <string>


namespace glccl::cuda {
namespace {

// The criterion's numbers are in 0..2^32 - 1 (Criterion::parse,
// problemForSampleBits, checked before).
PixelRule pixelRule(Connectivity connectivity, const Criterion& criterion, int sampleBits, int channels) {
    PixelRule rule;
    rule.connectivity = neighbourCount(connectivity);
    switch (criterion.kind) {
        case Criterion::Kind::Binary:
            rule.kind = PixelRuleKind::Binary;
            rule.level = std::uint32_t(criterion.level);
            break;
        case Criterion::Kind::Segments: rule.kind = PixelRuleKind::Segments; break;
        case Criterion::Kind::Threshold:
            rule.kind = PixelRuleKind::Threshold;
            rule.largestDifference = std::uint32_t(criterion.threshold);
            break;
        case Criterion::Kind::Delta:
            rule.kind = PixelRuleKind::Delta;
            rule.largestDifference = std::uint32_t(criterion.delta);
            break;
    }
    rule.sampleBits = sampleBits;
    rule.channels = channels;
    return rule;
}

// At most one component per pixel: binary images make at most one per two
// pixels (a 4-connected checkerboard), but the other criteria can make
// every pixel a component of its own.
std::size_t mostComponents(std::size_t pixelCount) { return pixelCount; }

}  // namespace

// The samples and criteria the cuda kernels read, as the engine declares
// them (capabilities()), in the words of a host or device image.
std::string whySamplesAreRefused(int sampleBits, int channels, const Criterion& criterion, bool volume) {
    static const EngineCapabilities declared = capabilities();
    const std::string what = volume ? "volume" : "image";
    // "8-, 16- or 32-bit", as the router words it.
    auto listed = [](const std::vector<int>& bits) {
        std::string text;
        for (std::size_t i = 0; i < bits.size(); ++i)
            text += (i == 0 ? "" : i + 1 == bits.size() ? " or " : ", ") + std::to_string(bits[i]) + "-";
        return text + "bit";
    };
    if (!declared.takesSampleBits(sampleBits)) {
        return "the " + what + " has " + std::to_string(sampleBits) + "-bit samples; the cuda backend labels " +
               listed(declared.sampleBits) + " samples";
    }
    const bool threshold = criterion.kind == Criterion::Kind::Threshold;
    const std::vector<int>& taken = threshold ? declared.thresholdChannels : declared.channels;
    if (std::find(taken.begin(), taken.end(), channels) == taken.end()) {
        return "criterion " + criterion.toString() + " needs 1-channel samples, this " + what + " has " +
               std::to_string(channels) + " channels (use threshold:T for color)";
    }
    if (channels > 1 && !declared.takesColorSampleBits(sampleBits)) {
        return "the " + what + " has " + std::to_string(channels) + " channels of " + std::to_string(sampleBits) +
               "-bit samples; the cuda backend labels color of " + listed(declared.colorSampleBits) +
               " samples: use the cpu backend";
    }
    if (criterion.kind == Criterion::Kind::Delta && !declared.delta) {
        return "the cuda backend does not label '" + criterion.toString() +
               "' (neighbours within a difference): use the compute, raster or cpu backend";
    }
    if (criterion.kind == Criterion::Kind::Binary && criterion.level != 0 && !declared.binaryLevel) {
        return "the cuda backend labels binary as nonzero only, not '" + criterion.toString() +
               "': use the compute, raster or cpu backend";
    }
    return criterion.problemForSampleBits(sampleBits);
}

BlockGrid blockGridOf(int width, int height, int images, const PixelRule& rule) {
    BlockGrid grid;
    grid.width = width;
    grid.height = height;
    grid.images = images;
    // Binary blocks always hold pixels that touch; the other criteria could
    // put two components in one block.
    if (rule.kind == PixelRuleKind::Binary) {
        grid.nodeWidth = 2;
        grid.nodeHeight = rule.connectivity == 8 ? 2 : 1;
    } else {
        grid.nodeWidth = 1;
        grid.nodeHeight = 1;
    }
    grid.gridWidth = (width + grid.nodeWidth - 1) / grid.nodeWidth;
    grid.gridHeight = (height + grid.nodeHeight - 1) / grid.nodeHeight;
    while ((std::int64_t(1) << grid.keyLineBits) < std::int64_t(width)) ++grid.keyLineBits;
    return grid;
}

bool blockGridFits(const BlockGrid& grid) {
    constexpr std::uint64_t kMaxBlocksYZ = 65535;  // CUDA's limit on gridDim.y and gridDim.z
    if (grid.width < 1 || grid.height < 1 || grid.images < 1) return false;
    if (grid.gridWidth > kLineThreads * 32) return false;                                    // count_roots' runs
    if ((std::uint64_t(grid.height) << grid.keyLineBits) > (std::uint64_t(1) << 31)) return false;  // keys
    if ((std::uint64_t(grid.gridHeight) + kLabelThreadsY - 1) / kLabelThreadsY > kMaxBlocksYZ) return false;
    return std::uint64_t(grid.images) <= kMaxBlocksYZ;
}

std::size_t checkedPixelCount(const CudaCheck& check, const Shape& shape, int channels) {
    // Messages are built only on failure: this runs on every frame.
    const bool volume = shape.dimensions == 3;
    auto size = [&] {
        return std::to_string(shape.width) + "x" + std::to_string(shape.height) +
               (volume ? "x" + std::to_string(shape.depth) : std::string());
    };
    const char* what = volume ? "the volume" : "the image";
    const char* elements = volume ? " voxels" : " pixels";
    if (shape.width < 1 || shape.height < 1 || shape.depth < 1) {
        check.fail(std::string(what) + " is " + size() +
                   (volume ? "; width, height and depth must be at least 1" : "; width and height must be at least 1"));
    }
    const std::uint64_t pixels = shape.count();
    if (pixels > kMaxPixels) {
        check.fail(std::string(what) + " is " + size() + " = " + std::to_string(pixels) + elements +
                   "; the CUDA path labels at most " + std::to_string(kMaxPixels) + " (32-bit indices)" +
                   (volume ? ": cut larger volumes into bricks (the tiles layer)" : ""));
    }
    if (channels != 1 && channels != 4) {
        check.fail(std::string(what) + " has " + std::to_string(channels) + " channels; expected 1 or 4");
    }
    return std::size_t(pixels);
}

std::size_t checkedPixelCount(const CudaCheck& check, int width, int height, int channels) {
    return checkedPixelCount(check, Shape::image(width, height), channels);
}

LabelRequest checkedRequest(const CudaCheck& check, int width, int height, int channels, int sampleBits,
                            Connectivity connectivity, const Criterion& criterion) {
    return checkedRequest(check, Shape::image(width, height), channels, sampleBits, connectivity, criterion);
}

LabelRequest checkedRequest(const CudaCheck& check, const Shape& shape, int channels, int sampleBits,
                            Connectivity connectivity, const Criterion& criterion) {
    checkedPixelCount(check, shape, channels);
    // The image kernels join 4 or 8 neighbours in one slice, the volume
    // kernels 6, 18 or 26: anything else would be a silently wrong answer.
    const std::string misfit = whyConnectivityDoesNotFit(connectivity, shape);
    if (!misfit.empty()) check.fail(misfit);
    const std::string refused = whySamplesAreRefused(sampleBits, channels, criterion, shape.dimensions == 3);
    if (!refused.empty()) check.fail(refused);
    LabelRequest request;
    request.width = int(shape.width);
    request.height = int(shape.height);
    request.depth = int(shape.depth);
    request.dimensions = shape.dimensions;
    request.channels = channels;
    request.sampleBits = sampleBits;
    request.rule = pixelRule(connectivity, criterion, sampleBits, channels);
    return request;
}

LabelPipeline::~LabelPipeline() { synchronize(); }

void LabelPipeline::synchronize() const {
    if (stream_.get() != nullptr) cudaStreamSynchronize(stream_.get());
}

template <typename T>
void LabelPipeline::allocate(DeviceBuffer<T>& buffer, std::size_t count, const CudaCheck& check) {
    buffer = {};  // the old and the new buffer need not fit at once
    buffer = DeviceBuffer<T>(count, check);
    ++counts_.deviceAllocations;
}

void LabelPipeline::reserve(const CudaCheck& check, std::size_t pixelCount) {
    if (stream_.get() == nullptr) {
        check(cudaGetDevice(&device_), "cudaGetDevice");
        stream_ = Stream(check);
        countReady_ = Event(check, cudaEventDisableTiming);
        countHost_ = PinnedBuffer<std::uint32_t>(1, check);
        ++counts_.hostAllocations;
    }
    if (pixelCount == pixelCount_) return;

    // Nothing queued may still use the buffers that are about to go.
    check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize (before reallocating)");
    pixelCount_ = 0;
    input_ = {};
    inputElementBytes_ = 0;
    labels_ = {};
    tableOverflow_ = {};
    parents_ = {};
    masks_ = {};
    volumeWords_ = {};
    allocate(rank_, pixelCount + 1, check);
    // At least one byte: CUB takes a null scratch pointer as a size query.
    allocate(scanScratch_, std::max<std::size_t>(RelabelPass::scratchBytes(pixelCount, check), 1), check);
    pixelCount_ = pixelCount;
}

void LabelPipeline::reserveBlocks(const CudaCheck& check) {
    // At most one node per pixel (single-pixel nodes).
    if (parents_.count() < pixelCount_) allocate(parents_, pixelCount_, check);
    if (masks_.count() < pixelCount_) allocate(masks_, pixelCount_, check);
}

void LabelPipeline::reserveLines(const CudaCheck& check, int height, int images) {
    const std::size_t n = std::size_t(images);
    const std::size_t lines = std::size_t(height) * n;
    const bool grow = lineCounts_.count() < lines || lineOffsets_.count() < lines + n || groupsDone_.count() < n ||
                      deviceCounts_.count() < n || countHost_.count() < n;
    if (!grow) return;
    // Nothing queued may still use the buffers that are about to go.
    check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize (before reallocating)");
    if (lineCounts_.count() < lines) allocate(lineCounts_, lines, check);
    if (lineOffsets_.count() < lines + n) allocate(lineOffsets_, lines + n, check);
    if (deviceCounts_.count() < n) allocate(deviceCounts_, n, check);
    if (groupsDone_.count() < n) {
        allocate(groupsDone_, n, check);
        // count_roots leaves them zero for the next labeling.
        check(cudaMemsetAsync(groupsDone_.get(), 0, groupsDone_.bytes(), stream()), "cudaMemsetAsync (groups done)");
    }
    if (countHost_.count() < n) {
        countHost_ = {};
        countHost_ = PinnedBuffer<std::uint32_t>(n, check);
        ++counts_.hostAllocations;
    }
}

std::uint8_t* LabelPipeline::inputBuffer(const CudaCheck& check, std::size_t elementBytes) {
    if (elementBytes > inputElementBytes_) {
        allocate(input_, pixelCount_ * elementBytes, check);
        inputElementBytes_ = elementBytes;
    }
    return input_.get();
}

std::uint32_t* LabelPipeline::labelBuffer(const CudaCheck& check) {
    if (labels_.get() == nullptr) allocate(labels_, pixelCount_, check);
    return labels_.get();
}

void LabelPipeline::reserveTable(const CudaCheck& check, std::size_t components, int dimensions) {
    const std::size_t bytes = std::min(components, mostComponents(pixelCount_)) * tableBytesPerComponent(dimensions);
    if (bytes <= tableHost_.bytes()) return;
    tableHost_ = {};
    tableHost_ = PinnedBuffer<unsigned char>(bytes, check);
    ++counts_.hostAllocations;
}

// The whole algorithm up to the labels and counts: the block kernels where
// they take the image, else Stava & Benes Fig. 35.6 and the output
// contract's numbering, image by image; componentTable() does the rest.
void LabelPipeline::findLabels(const CudaCheck& check, const LabelRequest& request, const void* d_samples,
                               std::uint32_t* d_labels, bool timed, std::uint32_t* d_counts, bool countsToHost) {
    reserve(check, request.pixelCount());
    reserveLines(check, request.height, request.images);
    current_ = request;
    currentLabels_ = d_labels;
    volumeNodes_.reset();
    queuedTable_ = -1;
    timer_.start(timed, stream(), check);

    bool labeled = false;
    if (request.dimensions == 3 && request.channels == 1 && request.images == 1 &&
        request.rule.kind == PixelRuleKind::Binary) {
        labeled = findVolumeLabels(check, d_samples, d_labels);
        if (labeled && d_counts != nullptr) {
            check(cudaMemcpyAsync(d_counts, deviceCounts_.get(), sizeof(std::uint32_t), cudaMemcpyDeviceToDevice,
                                  stream()),
                  "cudaMemcpyAsync (component count to the caller)");
        }
    }
    if (request.dimensions == 2) {
        const BlockGrid grid = blockGridOf(request.width, request.height, request.images, request.rule);
        if (blockGridFits(grid)) {
            reserveBlocks(check);
            findBlockLabels(check, grid, d_samples, d_labels, d_counts);
            labeled = true;
        }
    }
    if (!labeled) {
        const std::size_t pixels = request.imagePixelCount();
        const std::size_t imageBytes = pixels * request.rule.bytesPerElement();
        for (int i = 0; i < request.images; ++i) {
            std::uint32_t* labels = d_labels + std::size_t(i) * pixels;
            findComponents(check, static_cast<const unsigned char*>(d_samples) + std::size_t(i) * imageBytes, labels);
            numberComponents(check, labels, deviceCounts_.get() + i);
        }
        if (d_counts != nullptr) {
            check(cudaMemcpyAsync(d_counts, deviceCounts_.get(), std::size_t(request.images) * sizeof(std::uint32_t),
                                  cudaMemcpyDeviceToDevice, stream()),
                  "cudaMemcpyAsync (component counts to the caller)");
        }
    }
    if (countsToHost) downloadCounts(check);
}

void LabelPipeline::downloadCounts(const CudaCheck& check) {
    check(cudaMemcpyAsync(countHost_.get(), deviceCounts_.get(), std::size_t(current_.images) * sizeof(std::uint32_t),
                          cudaMemcpyDeviceToHost, stream()),
          "cudaMemcpyAsync (component counts)");
    check(cudaEventRecord(countReady_.get(), stream()), "cudaEventRecord (component counts)");
}

const std::uint32_t* LabelPipeline::hostCounts(const CudaCheck& check) {
    check(cudaEventSynchronize(countReady_.get()), "cudaEventSynchronize (component counts)");
    return countHost_.get();
}

// The compute engine's passes: patches in shared memory, their borders,
// the roots numbered line by line, every pixel its number.
void LabelPipeline::findBlockLabels(const CudaCheck& check, const BlockGrid& grid, const void* d_samples,
                                    std::uint32_t* d_labels, std::uint32_t* d_callerCounts) {
    const PassContext context{stream(), check, timer_};
    localMerge_.run(context, d_samples, parents_.get(), masks_.get(), grid, current_.rule);
    mergeBorders_.run(context, d_samples, parents_.get(), masks_.get(), grid, current_.rule);
    countRoots_.run(context, parents_.get(), masks_.get(), lineCounts_.get(), lineOffsets_.get(), groupsDone_.get(),
                    deviceCounts_.get(), d_callerCounts, grid);
    finalLabels_.run(context, parents_.get(), masks_.get(), lineOffsets_.get(), d_labels, grid);
}

// A binary volume's nodes (volume_nodes.cuh): patches in shared memory, the
// links between them, the roots numbered line by line, every voxel its
// number. The four passes of findBlockLabels, apart because a volume's
// nodes are runs of bundle words, not cells of a grid of blocks, and live
// in buffers of their own (VolumeNodes).
bool LabelPipeline::findVolumeLabels(const CudaCheck& check, const void* d_samples, std::uint32_t* d_labels) {
    const volume::NodeGrid grid = volume::NodeGrid::of(std::uint32_t(current_.width), std::uint32_t(current_.height),
                                                       std::uint32_t(current_.depth), current_.rule.connectivity);
    // Narrow volumes (a few voxels wide) have more node slots than voxels:
    // Stava & Benes' kernels take them.
    if (grid.slots() > pixelCount_) return false;
    reserveBlocks(check);
    const std::size_t lines = std::size_t(grid.height) * grid.depth;
    reserveLines(check, int(std::min<std::size_t>(lines + 1, std::size_t(INT32_MAX))), 1);
    const bool ownForeground = grid.connectivity != 6;  // at 6 a bundle is a line: its bits are its foreground
    const std::size_t words =
        grid.lineWords() + (ownForeground ? grid.bundleWords() : 0) + (grid.bundleWords() + 1) / 2;
    if (volumeWords_.count() < words) allocate(volumeWords_, words, check);
    const std::size_t scratch = CountRootsPass::volumeScratchBytes(lines, check);
    if (scanScratch_.bytes() < scratch) allocate(scanScratch_, scratch, check);

    VolumeNodes nodes;
    nodes.grid = grid;
    nodes.bits = volumeWords_.get();
    nodes.foreground = ownForeground ? nodes.bits + grid.lineWords() : nodes.bits;
    nodes.roots = reinterpret_cast<std::uint16_t*>(nodes.bits + grid.lineWords() +
                                                   (ownForeground ? grid.bundleWords() : 0));
    nodes.parents = parents_.get();
    nodes.lineCounts = lineCounts_.get();
    nodes.lineOffsets = lineOffsets_.get();

    const PassContext context{stream(), check, timer_};
    localMerge_.run(context, d_samples, nodes, current_.rule);  // patches in shared memory
    mergeBorders_.run(context, nodes);                          // and the links between them
    countRoots_.run(context, nodes, deviceCounts_.get(), scanScratch_.get(), scanScratch_.bytes());
    finalLabels_.run(context, nodes, d_labels);                 // every voxel's number
    volumeNodes_ = nodes;                                       // for the table
    return true;
}

// Kernel 1, then the merging scheme level by level (kernel 2, with kernel 3
// before each level but the first), then kernel 4: afterwards every
// foreground pixel of the image at d_labels holds its component's first
// pixel.
void LabelPipeline::findComponents(const CudaCheck& check, const void* d_samples, std::uint32_t* d_labels) {
    const PassContext context{stream(), check, timer_};
    const int width = current_.width;
    const int height = current_.height;
    if (current_.dimensions == 3) {
        // Volume patches in shared memory, every face between them in one
        // merge, every voxel to its root.
        const int depth = current_.depth;
        solvePatches_.run(context, d_samples, d_labels, width, height, depth, current_.rule);
        mergePatches_.run(context, d_samples, d_labels, width, height, depth, current_.rule);
        flattenLabels_.run(context, d_labels, current_.imagePixelCount());
        return;
    }
    solvePatches_.run(context, d_samples, d_labels, width, height, current_.rule);  // patches in shared memory

    const std::int64_t side = std::max(width, height);
    for (std::int64_t subBlock = kPatchSide; subBlock < side; subBlock *= kMergeFactor) {
        // Trees shortened along the borders the level merges across.
        if (subBlock > kPatchSide) flattenBorders_.run(context, d_labels, width, height, int(subBlock));
        mergePatches_.run(context, d_samples, d_labels, width, height, current_.rule, int(subBlock));
    }

    flattenLabels_.run(context, d_labels, current_.imagePixelCount());  // every pixel to its root
}

// Canonical labels in place, and the component count into d_count.
void LabelPipeline::numberComponents(const CudaCheck& check, std::uint32_t* d_labels, std::uint32_t* d_count) {
    const std::size_t pixelCount = current_.imagePixelCount();
    const PassContext context{stream(), check, timer_};
    relabel_.run(context, d_labels, rank_.get(), pixelCount, scanScratch_.get(), scanScratch_.bytes());
    check(cudaMemcpyAsync(d_count, rank_.get() + pixelCount, sizeof(std::uint32_t), cudaMemcpyDeviceToDevice,
                          stream()),
          "cudaMemcpyAsync (component count)");
}

// Where the device table goes: the rank array, which relabel no longer
// needs, when it is large enough; otherwise a buffer kept for the next time.
unsigned char* LabelPipeline::tableStorage(const CudaCheck& check, std::size_t bytes) {
    if (bytes <= rank_.bytes()) return reinterpret_cast<unsigned char*>(rank_.get());
    if (bytes > tableOverflow_.bytes()) {
        // Grown by half again, so a count that creeps up does not allocate
        // on every frame; never past what the image can hold.
        const std::size_t most = mostComponents(pixelCount_) * tableBytesPerComponent(current_.dimensions);
        allocate(tableOverflow_, std::min(std::max(bytes, tableOverflow_.bytes() / 2 * 3), most), check);
    }
    return tableOverflow_.get();
}

void LabelPipeline::queueComponentTable(const CudaCheck& check, int image) {
    const std::size_t n = hostCounts(check)[image];
    const std::uint32_t* labels = currentLabels_ + std::size_t(image) * current_.imagePixelCount();
    const int dimensions = current_.dimensions;
    const std::size_t rowBytes = tableBytesPerComponent(dimensions);
    queuedTable_ = image;
    if (n > 0) {
        const std::size_t bytes = n * rowBytes;
        unsigned char* storage = tableStorage(check, bytes);
        const PassContext context{stream(), check, timer_};
        if (volumeNodes_) {
            componentStats_.run(context, *volumeNodes_, storage, n);
        } else {
            componentStats_.run(context, labels, current_.width, current_.height, current_.depth, dimensions,
                                storage, n);
        }

        // Doubled when it grows, so that counts creeping up frame by frame
        // pin memory a few times, not on every frame.
        if (bytes > tableHost_.bytes()) {
            reserveTable(check, std::max(n, 2 * tableHost_.bytes() / rowBytes), dimensions);
        }
        check(cudaMemcpyAsync(tableHost_.get(), storage, bytes, cudaMemcpyDeviceToHost, stream()),
              "cudaMemcpyAsync (component table)");
    }
}

const std::vector<Component>& LabelPipeline::componentTable(const CudaCheck& check, StageTimings* timings,
                                                           int image) {
    if (queuedTable_ != image) queueComponentTable(check, image);
    queuedTable_ = -1;
    check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize (component table)");
    const std::size_t n = hostCounts(check)[image];
    const int dimensions = current_.dimensions;

    // Capacity is kept from call to call: a table no longer than an earlier
    // one is written in place.
    table_.resize(n);
    if (n > 0) {
        const DeviceComponentTable host = tableAt(tableHost_.get(), n, dimensions);
        decoder_.forRanges(n, kTableGrain, tableThreads(n), [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) {
                Component& c = table_[i];
                c.left = host.left[i];
                c.top = host.top[i];
                c.width = host.right[i] - c.left + 1;
                c.height = host.bottom[i] - c.top + 1;
                c.area = host.area[i];
                // The CPU reference's division, bit for bit: exact integer
                // sums (below 2^53) converted to double, then one division.
                c.centroidX = double(host.sumX[i]) / double(c.area);
                c.centroidY = double(host.sumY[i]) / double(c.area);
                if (dimensions == 3) {
                    c.front = host.front[i];
                    c.depth = host.back[i] - c.front + 1;
                    c.centroidZ = double(host.sumZ[i]) / double(c.area);
                } else {
                    // A 2-D component: the caller's storage may hold a volume's row.
                    c.front = 0;
                    c.depth = 1;
                    c.centroidZ = 0.0;
                }
            }
        });
    }
    if (timings != nullptr) timer_.collect(*timings);
    return table_;
}

}  // namespace glccl::cuda

#pragma once
// The CUDA labeling pipeline: owns the device memory, the page-locked table
// buffer and the stream, keeps them from one labeling to the next, and runs
// the passes of passes.hpp in order (findLabels() and componentTable() list
// them). Where the pixels come from and where the labels go (a host image, a
// GL texture, a caller's device array) is the entries' business
// (image_labeler.cpp, texture_labeler.cpp).
//
// Two sets of kernels find the labels, chosen per call (findLabels()): the
// block kernels (local_merge, merge_borders, count_roots, final_labels),
// which label 2-D images and batches of them in one launch sequence, and
// their volume siblings (*_volume.cu) binary volumes; Stava & Benes'
// kernels (solve_patches, merge_patches, flatten_borders, flatten_labels,
// relabel) what those do not take: images whose keys do not fit 31 bits or
// whose node lines are too long for count_roots, volumes under segments,
// threshold or delta, and binary volumes a few voxels wide. Every kernel
// that reads samples is built per sample type and criterion
// (criterion.cuh). Both leave the canonical
// labels and each image's count on the device; componentTable() builds the
// table.
//
// Memory, after reserve() for a pixel count P (bytes):
//   parents + masks       5 P: one key and one mask per node, room for the
//                         single-pixel nodes of the criteria but binary (a
//                         binary volume's node slots take the parents: at
//                         most P / 2 of them, P / 8 at 26)
//   volume words          a binary volume's bits, bundle foreground and
//                         root bits: about P / 8 + P / 32 + P / 64
//   lines                 8 (height + 1) per image, grown when needed
//   rank + scan scratch   4 (P + 1) + CUB's scratch; the component table is
//                         built in the rank array once relabel is done with
//                         it (40 bytes per component: P / 10 components fit)
//   own input / labels    P * bytes per element (channels x sampleBits / 8:
//                         8 P for 64-bit samples) and 4 P, made only for
//                         entries that need them (a caller's packed device
//                         array is used in place)
//   table overflow        40 bytes per component past P / 10, made when an
//                         image has that many, then kept (a volume's table:
//                         56 bytes per component, P / 14 in the rank array)
//   page-locked table     40 (56) bytes per component, grown when a table needs it
// Per labeling of a reserved size: no allocation, one 4-byte and one table
// download, two waits (the count, the table).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"
#include "device_memory.hpp"
#include "glccl/cuda_labeler.hpp"
#include "glccl/types.hpp"
#include "parallel_copy.hpp"
#include "passes.hpp"
#include "stage_timer.hpp"

namespace glccl::cuda {

// One labeling's image (or volume) shape and rule, validated.
struct LabelRequest {
    int width = 0;
    int height = 0;
    int depth = 1;       // slices: 1 for an image
    int dimensions = 2;  // 2 for an image, 3 for a volume
    int channels = 1;
    int sampleBits = 8;  // 8, 16, 32 or 64
    int images = 1;      // a batch: images of width x height, packed one after another
    PixelRule rule;      // the criterion, connectivity and samples as the kernels take them
    std::size_t imagePixelCount() const { return std::size_t(width) * std::size_t(height) * std::size_t(depth); }
    std::size_t pixelCount() const { return imagePixelCount() * std::size_t(images); }
};

// Width x height for a pixel count; throws glccl::Error (message starting
// with check.entry()) for sizes below 1 or above kMaxPixels pixels and for
// channels other than 1 and 4. Makes no CUDA call.
std::size_t checkedPixelCount(const CudaCheck& check, int width, int height, int channels);

// The voxel count of an image or volume of `shape`; the same refusals as
// checkedPixelCount, in the words of the shape's dimensions.
std::size_t checkedPixelCount(const CudaCheck& check, const Shape& shape, int channels);

// Why the cuda kernels do not take samples of `sampleBits` bits and
// `channels` channels under `criterion` ("" when they do), read from
// capabilities(): 8-, 16-, 32- or 64-bit samples, 1 channel (4 for
// threshold, of 8, 16 or 32 bits), every criterion, its number within the
// samples' range. The only place in this library that applies the rule.
std::string whySamplesAreRefused(int sampleBits, int channels, const Criterion& criterion, bool volume);

// Throws glccl::Error (message starting with check.entry()) for sizes below
// 1 or above kMaxPixels pixels, channels other than 1 and 4, a connectivity
// that does not fit the shape (4/8 for images, 6/18/26 for volumes), and
// samples or a criterion whySamplesAreRefused() refuses. Makes no CUDA call.
LabelRequest checkedRequest(const CudaCheck& check, const Shape& shape, int channels, int sampleBits,
                            Connectivity connectivity, const Criterion& criterion);
LabelRequest checkedRequest(const CudaCheck& check, int width, int height, int channels, int sampleBits,
                            Connectivity connectivity, const Criterion& criterion);

// Components that a reserve() makes page-locked room for up front: tables up
// to this size download without allocating (2.5 MiB of page-locked memory).
constexpr std::size_t kReservedTableComponents = std::size_t(1) << 16;

class LabelPipeline {
public:
    LabelPipeline() = default;  // no CUDA call until reserve()
    // Waits for the stream first: no kernel or copy still uses the memory
    // when it is freed (errors are ignored; see device_memory.hpp).
    ~LabelPipeline();
    LabelPipeline(const LabelPipeline&) = delete;
    LabelPipeline& operator=(const LabelPipeline&) = delete;

    // Fits the work buffers to images of `pixelCount` pixels: allocates when
    // the count differs from the reserved one (freeing the old buffers,
    // the pipeline's own input and labels included), otherwise does nothing.
    // Creates the stream on the first call, on the current device.
    void reserve(const CudaCheck& check, std::size_t pixelCount);

    // The pipeline's own input (reserved pixels x elementBytes) and label
    // buffers, made on first request at the reserved size; the input grows
    // when more bytes per element are asked for.
    std::uint8_t* inputBuffer(const CudaCheck& check, std::size_t elementBytes);
    std::uint32_t* labelBuffer(const CudaCheck& check);

    // Page-locked room for a table of `components` rows of an image's (2) or
    // a volume's (3) table.
    void reserveTable(const CudaCheck& check, std::size_t components, int dimensions = 2);

    // Room for the line counts of batches of `images` images of `height`
    // lines, and their counts (device and page-locked); grown, never shrunk.
    void reserveLines(const CudaCheck& check, int height, int images);

    // Parents and masks for the block kernels at the reserved pixel count
    // (made by the first labeling that needs them otherwise).
    void reserveBlocks(const CudaCheck& check);

    cudaStream_t stream() const { return stream_.get(); }
    int device() const { return device_; }
    ResourceCounts& counts() { return counts_; }
    const ResourceCounts& counts() const { return counts_; }

    // Labels the request's samples at d_samples (rows and slices packed,
    // request.rule.bytesPerElement() bytes per element, aligned to a
    // sample, or to 4 samples for color) into d_labels (packed, one uint32
    // per pixel), queued on
    // stream() after whatever is queued there: when the stream gets past it,
    // d_labels holds the canonical labels. Reserves the request's pixel
    // count; waits for nothing. timed: record per-kernel events. A batch
    // (request.images > 1) is packed images in and packed labels out, each
    // numbered 1..n_i. The counts (one per image) are kept in the
    // pipeline's own device memory and also written to d_counts when it is
    // given (device memory); countsToHost queues their download for
    // componentTable() and hostCounts().
    void findLabels(const CudaCheck& check, const LabelRequest& request, const void* d_samples,
                    std::uint32_t* d_labels, bool timed, std::uint32_t* d_counts = nullptr,
                    bool countsToHost = true);

    // After findLabels() with countsToHost: waits for the counts and returns
    // them (one per image), valid until the next findLabels().
    const std::uint32_t* hostCounts(const CudaCheck& check);

    // After findLabels() with countsToHost: waits for the component count,
    // computes and downloads the table of image `image` of the batch, and
    // waits for the stream, so that everything queued before returns done.
    // The table is kept here (label i + 1 at index i) and valid until the
    // next findLabels() or componentTable(); timings, if given, receive the
    // per-kernel device times of both steps.
    const std::vector<Component>& componentTable(const CudaCheck& check, StageTimings* timings, int image = 0);

    // componentTable()'s first half: waits for the component count, then
    // queues the table's kernel and its download without waiting for them,
    // so that the host can move the labels meanwhile; componentTable() for
    // the same image then waits and decodes.
    void queueComponentTable(const CudaCheck& check, int image = 0);

    // The table of the last componentTable().
    const std::vector<Component>& table() const { return table_; }

    // The request of the last findLabels().
    const LabelRequest& request() const { return current_; }

    // Queues the download of the last findLabels()'s counts, as findLabels()
    // does with countsToHost.
    void downloadCounts(const CudaCheck& check);

    // Waits for the stream and hands over the per-kernel device times of the
    // last findLabels().
    void collectTimings(StageTimings& timings) { timer_.collect(timings); }

    // Waits for the stream; for destructors (errors ignored).
    void synchronize() const;

private:
    void findComponents(const CudaCheck& check, const void* d_samples, std::uint32_t* d_labels);
    void findBlockLabels(const CudaCheck& check, const BlockGrid& grid, const void* d_samples,
                         std::uint32_t* d_labels, std::uint32_t* d_callerCounts);
    // The volume kernels (binary volumes) where their nodes fit the block
    // buffers; false otherwise, and nothing is queued.
    bool findVolumeLabels(const CudaCheck& check, const void* d_samples, std::uint32_t* d_labels);
    void numberComponents(const CudaCheck& check, std::uint32_t* d_labels, std::uint32_t* d_count);
    void numberComponents(const CudaCheck& check);
    unsigned char* tableStorage(const CudaCheck& check, std::size_t bytes);

    template <typename T>
    void allocate(DeviceBuffer<T>& buffer, std::size_t count, const CudaCheck& check);

    // Declared first, destroyed last: the buffers go before their stream.
    Stream stream_;
    int device_ = -1;
    Event countReady_;  // the component counts have reached countHost_
    std::size_t pixelCount_ = 0;
    std::size_t inputElementBytes_ = 0;
    DeviceBuffer<std::uint8_t> input_;
    DeviceBuffer<std::uint32_t> labels_;
    DeviceBuffer<std::uint32_t> rank_;  // pixelCount_ + 1 entries, then the table
    DeviceBuffer<std::uint32_t> parents_;  // block kernels: pixelCount_ nodes at most
    DeviceBuffer<std::uint8_t> masks_;
    DeviceBuffer<std::uint32_t> volumeWords_;  // volume kernels: bits, foreground, roots
    DeviceBuffer<std::uint32_t> lineCounts_;   // height per image
    DeviceBuffer<std::uint32_t> lineOffsets_;  // height + 1 per image
    DeviceBuffer<std::uint32_t> groupsDone_;   // one per image, zero between labelings
    DeviceBuffer<std::uint32_t> deviceCounts_;  // one per image
    DeviceBuffer<unsigned char> scanScratch_;
    DeviceBuffer<unsigned char> tableOverflow_;
    PinnedBuffer<std::uint32_t> countHost_;
    PinnedBuffer<unsigned char> tableHost_;
    StageTimer timer_;
    SolvePatchesPass solvePatches_;
    MergePatchesPass mergePatches_;
    FlattenBordersPass flattenBorders_;
    FlattenLabelsPass flattenLabels_;
    RelabelPass relabel_;
    LocalMergePass localMerge_;
    MergeBordersPass mergeBorders_;
    CountRootsPass countRoots_;
    FinalLabelsPass finalLabels_;
    ComponentStatsPass componentStats_;
    std::vector<Component> table_;
    CopyThreads decoder_;  // decodes large tables (componentTable)
    ResourceCounts counts_;

    // The labeling between findLabels() and componentTable().
    LabelRequest current_;
    std::uint32_t* currentLabels_ = nullptr;
    std::optional<VolumeNodes> volumeNodes_;  // a binary volume's nodes (findVolumeLabels)
    int queuedTable_ = -1;                    // the image whose table queueComponentTable() queued
};

}  // namespace glccl::cuda

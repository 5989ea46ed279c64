// ImageLabeler: the CUDA path on host images (through page-locked staging)
// and on images already in device memory (in place where the layout allows),
// with its buffers kept from one call to the next.

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "glccl/cuda_labeler.hpp"
#include "glccl/region_properties.hpp"
#include "host_staging.hpp"
#include "measure_terms.hpp"
#include "pipeline.hpp"

namespace glccl::cuda {
namespace {

bool aligned(const void* pointer, std::size_t alignment) {
    return reinterpret_cast<std::uintptr_t>(pointer) % alignment == 0;
}

// Throws unless `pointer` is device (or managed) memory of `device`: a host
// pointer would fault in the first kernel, far from the mistake.
void requireDeviceMemory(const CudaCheck& check, const void* pointer, const char* what, int device) {
    cudaPointerAttributes attributes{};
    check(cudaPointerGetAttributes(&attributes, pointer), "cudaPointerGetAttributes");
    const bool onDevice = attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
    if (!onDevice) {
        check.fail(std::string(what) + " is not CUDA device memory (" +
                   (attributes.type == cudaMemoryTypeHost ? "page-locked host memory" : "host memory") +
                   "); label host images with label()");
    }
    if (attributes.type == cudaMemoryTypeDevice && attributes.device != device) {
        check.fail(std::string(what) + " is on CUDA device " + std::to_string(attributes.device) +
                   ", this labeler works on device " + std::to_string(device));
    }
}

// A host image's or volume's request: samples the kernels take (checked
// first, in the image's words), a buffer of the size its fields call for, a
// dimensions field that matches the depth, then checkedRequest().
LabelRequest checkedHostRequest(const CudaCheck& check, const ImageView& image, std::size_t bytes,
                                Connectivity connectivity, Criterion criterion) {
    const bool volume = image.dimensions == 3;
    const std::string what = volume ? "the volume" : "the image";
    if (image.dimensions != 2 && !volume) {
        check.fail(what + " has dimensions " + std::to_string(image.dimensions) + "; expected 2 or 3");
    }
    if (!volume && image.depth != 1) {
        check.fail("the image has dimensions 2 and depth " + std::to_string(image.depth) +
                   "; a 2-D image has depth 1 (a volume has dimensions 3)");
    }
    // The samples first: a sample width the kernels do not read says so,
    // rather than that the byte count is off.
    const std::string refused = whySamplesAreRefused(image.sampleBits, image.channels, criterion, volume);
    if (!refused.empty()) check.fail(refused);
    const std::size_t expectedBytes = Image::byteCount(image.shape(), image.channels, image.sampleBits);
    if (bytes != expectedBytes) {
        const std::string size = std::to_string(image.width) + "x" + std::to_string(image.height) +
                                 (volume ? "x" + std::to_string(image.depth) : std::string());
        check.fail(what + " is " + size + "x" + std::to_string(image.channels) + " but holds " +
                   std::to_string(bytes) + " bytes");
    }
    return checkedRequest(check, image.shape(), image.channels, image.sampleBits, connectivity, criterion);
}

// Copies `depth` slices of `height` rows of rowBytes bytes between pitched
// device arrays: one 3-D copy when both slice pitches are whole rows (what
// views of a packed array have), otherwise one 2-D copy per slice.
void copySlices(const CudaCheck& check, void* dst, std::size_t dstRow, std::size_t dstSlice, const void* src,
                std::size_t srcRow, std::size_t srcSlice, std::size_t rowBytes, int height, int depth,
                cudaStream_t stream, const char* what) {
    if (srcSlice % srcRow == 0 && dstSlice % dstRow == 0) {
        cudaMemcpy3DParms copy{};
        copy.srcPtr = cudaPitchedPtr{const_cast<void*>(src), srcRow, rowBytes, srcSlice / srcRow};
        copy.dstPtr = cudaPitchedPtr{dst, dstRow, rowBytes, dstSlice / dstRow};
        copy.extent = cudaExtent{rowBytes, std::size_t(height), std::size_t(depth)};
        copy.kind = cudaMemcpyDeviceToDevice;
        check(cudaMemcpy3DAsync(&copy, stream), (std::string("cudaMemcpy3DAsync (") + what + ")").c_str());
        return;
    }
    for (int z = 0; z < depth; ++z) {
        check(cudaMemcpy2DAsync(static_cast<char*>(dst) + std::size_t(z) * dstSlice, dstRow,
                                static_cast<const char*>(src) + std::size_t(z) * srcSlice, srcRow, rowBytes,
                                std::size_t(height), cudaMemcpyDeviceToDevice, stream),
              (std::string("cudaMemcpy2DAsync (") + what + ")").c_str());
    }
}

}  // namespace

// What ImageLabeler and labelImage() share; each passes the CudaCheck that
// names its entry.
class ImageLabelerCore {
public:
    ~ImageLabelerCore() { pipeline_.synchronize(); }

    void reserve(const CudaCheck& check, int width, int height, int channels) {
        const std::size_t pixelCount = checkedPixelCount(check, width, height, channels);
        pipeline_.reserve(check, pixelCount);
        pipeline_.inputBuffer(check, std::size_t(channels));
        pipeline_.labelBuffer(check);
        pipeline_.reserveTable(check, kReservedTableComponents);
        pipeline_.reserveBlocks(check);
        pipeline_.reserveLines(check, height, 1);
        // The labels are the larger transfer for 8-bit samples (4 bytes
        // against 1 or 4); deeper samples grow the chunks when they come.
        staging_.reserve(check, pixelCount * sizeof(std::uint32_t), pipeline_.counts());
    }

    void label(const CudaCheck& check, const Image& image, Connectivity connectivity, Criterion criterion,
               Labeling& result, StageTimings* timings) {
        const LabelRequest request = checkedHostRequest(check, image, image.pixels.size(), connectivity, criterion);
        const std::size_t count = request.pixelCount();
        std::vector<std::uint32_t>& labels = result.labels;
        if (labels.size() == count) {
            // Overwritten in place.
            auto* out = reinterpret_cast<unsigned char*>(labels.data());
            labelHost(check, image.pixels.data(), request, true, labels.data(),
                      [&, out](const unsigned char* piece, std::size_t bytes, std::size_t offset) {
                          staging_.copy(out + offset, piece, bytes);
                      },
                      timings);
        } else {
            // Appended piece by piece: resize() would zero-fill what the
            // download then overwrites.
            labels.clear();
            labels.reserve(count);
            labelHost(check, image.pixels.data(), request, true, nullptr,
                      [&labels](const unsigned char* piece, std::size_t bytes, std::size_t) {
                          const auto* first = reinterpret_cast<const std::uint32_t*>(piece);
                          labels.insert(labels.end(), first, first + bytes / sizeof(std::uint32_t));
                      },
                      timings);
        }
        result.width = image.width;
        result.height = image.height;
        result.depth = image.depth;
        result.dimensions = image.dimensions;
        result.components = pipeline_.table();
    }

    const std::vector<Component>& label(const CudaCheck& check, const ImageView& view, Connectivity connectivity,
                                        Criterion criterion, std::uint32_t* labels, StageTimings* timings) {
        if (view.pixels == nullptr) check.fail("the pixels are null");
        const LabelRequest request = checkedHostRequest(check, view, view.byteCount(), connectivity, criterion);
        auto* out = reinterpret_cast<unsigned char*>(labels);
        return labelHost(check, view.pixels, request, labels != nullptr, labels,
                         [&, out](const unsigned char* piece, std::size_t bytes, std::size_t offset) {
                             staging_.copy(out + offset, piece, bytes);
                         },
                         timings);
    }

    const std::vector<Component>& label(const CudaCheck& check, const std::uint8_t* pixels, int width, int height,
                                        int channels, Connectivity connectivity, Criterion criterion,
                                        std::uint32_t* labels, StageTimings* timings) {
        const LabelRequest request = checkedRequest(check, width, height, channels, 8, connectivity, criterion);
        if (pixels == nullptr) check.fail("pixels is null");
        auto* out = reinterpret_cast<unsigned char*>(labels);
        return labelHost(check, pixels, request, labels != nullptr, labels,
                         [&, out](const unsigned char* piece, std::size_t bytes, std::size_t offset) {
                             staging_.copy(out + offset, piece, bytes);
                         },
                         timings);
    }

    // One image, a batch or a volume in device memory, labeled on the
    // pipeline's stream between the caller's stream and its return: the
    // table of image 0 when `table` (waited for), else nothing waited for.
    const std::vector<Component>* labelDevice(const CudaCheck& check, const DeviceVolume& voxels,
                                              const DeviceVolumeLabels& labels, Connectivity connectivity,
                                              Criterion criterion, cudaStream_t callerStream,
                                              std::uint32_t* d_counts, bool table, StageTimings* timings) {
        hostLabels_ = false;
        const bool volume = dimensionsOf(connectivity) == 3;
        if (voxels.depth < 1) {
            check.fail("voxels.depth is " + std::to_string(voxels.depth) + "; expected at least 1 (" +
                       (volume ? "slices" : "images") + ")");
        }
        // A 2-D connectivity labels each slice as an image of its own.
        const Shape shape = volume ? Shape::volume(voxels.width, voxels.height, voxels.depth)
                                   : Shape::image(voxels.width, voxels.height);
        LabelRequest request =
            checkedRequest(check, shape, voxels.channels, voxels.sampleBits, connectivity, criterion);
        if (!volume) request.images = voxels.depth;
        if (request.pixelCount() > kMaxPixels) {
            check.fail("the batch holds " + std::to_string(request.pixelCount()) +
                       " pixels; the CUDA path labels at most " + std::to_string(kMaxPixels) +
                       " in one call (32-bit indices): label it in parts");
        }
        const char* what = volume ? "voxels" : "pixels";
        // An element's bytes, and the alignment its loads need (a sample;
        // four for color: uchar4, ushort4, uint4).
        const std::size_t elementBytes = request.rule.bytesPerElement();
        const std::size_t voxelRow = std::size_t(voxels.width) * elementBytes;
        const std::size_t labelRow = std::size_t(voxels.width) * sizeof(std::uint32_t);
        const std::size_t voxelSlice = voxelRow * std::size_t(voxels.height);
        const std::size_t labelSlice = labelRow * std::size_t(voxels.height);
        // A single slice has no slice pitch to speak of: 0 reads as packed.
        const std::size_t voxelSlicePitch =
            voxels.slicePitch == 0 && voxels.depth == 1 ? voxels.rowPitch * std::size_t(voxels.height)
                                                        : voxels.slicePitch;
        const std::size_t labelSlicePitch =
            labels.slicePitch == 0 && voxels.depth == 1 ? labels.rowPitch * std::size_t(voxels.height)
                                                        : labels.slicePitch;
        if (voxels.data == nullptr) check.fail(std::string(what) + ".data is null");
        if (labels.data == nullptr) check.fail("labels.data is null");
        if (voxels.rowPitch < voxelRow || voxelSlicePitch < voxels.rowPitch * std::size_t(voxels.height)) {
            check.fail(std::string(what) + ".rowPitch is " + std::to_string(voxels.rowPitch) + " and " + what +
                       ".slicePitch " + std::to_string(voxels.slicePitch) + " bytes; a row of " +
                       std::to_string(voxels.width) + " " + what + " of " + std::to_string(voxels.channels) +
                       " channel(s) of " + std::to_string(voxels.sampleBits) +
                       "-bit samples needs a row pitch of at least " + std::to_string(voxelRow) +
                       ", a slice a pitch of at least height x rowPitch");
        }
        if (labels.rowPitch < labelRow || labels.rowPitch % sizeof(std::uint32_t) != 0 ||
            labelSlicePitch < labels.rowPitch * std::size_t(voxels.height) ||
            labelSlicePitch % sizeof(std::uint32_t) != 0 || !aligned(labels.data, sizeof(std::uint32_t))) {
            check.fail("labels.rowPitch is " + std::to_string(labels.rowPitch) + " and labels.slicePitch " +
                       std::to_string(labels.slicePitch) + " bytes; each must be a multiple of 4, the row pitch at "
                       "least " + std::to_string(labelRow) + ", the slice pitch at least height x rowPitch, with "
                       "labels.data 4-byte aligned");
        }

        pipeline_.reserve(check, request.pixelCount());
        requireDeviceMemory(check, voxels.data, (std::string(what) + ".data").c_str(), pipeline_.device());
        requireDeviceMemory(check, labels.data, "labels.data", pipeline_.device());
        if (d_counts != nullptr) requireDeviceMemory(check, d_counts, "counts", pipeline_.device());
        const cudaStream_t stream = pipeline_.stream();

        // Start after what the caller has queued on its stream (the pixels
        // are probably being written there).
        if (callerReady_.get() == nullptr) callerReady_ = Event(check, cudaEventDisableTiming);
        if (done_.get() == nullptr) done_ = Event(check, cudaEventDisableTiming);
        check(cudaEventRecord(callerReady_.get(), callerStream), "cudaEventRecord (caller's stream)");
        check(cudaStreamWaitEvent(stream, callerReady_.get(), 0), "cudaStreamWaitEvent (caller's stream)");

        // Packed rows and slices are what the kernels index; other layouts
        // are packed into the pipeline's own buffers first.
        const void* d_voxels = voxels.data;
        if (voxels.rowPitch != voxelRow || (voxels.depth > 1 && voxelSlicePitch != voxelSlice) ||
            !aligned(voxels.data, elementBytes)) {
            std::uint8_t* d_input = pipeline_.inputBuffer(check, elementBytes);
            copySlices(check, d_input, voxelRow, voxelSlice, voxels.data, voxels.rowPitch, voxelSlicePitch,
                       voxelRow, voxels.height, voxels.depth, stream, what);
            d_voxels = d_input;
        }
        const bool labelsInPlace = labels.rowPitch == labelRow && (voxels.depth == 1 || labelSlicePitch == labelSlice);
        std::uint32_t* d_labels = labelsInPlace ? labels.data : pipeline_.labelBuffer(check);

        pipeline_.findLabels(check, request, d_voxels, d_labels, timings != nullptr, d_counts, table);
        countsOnHost_ = table;
        if (!labelsInPlace) {
            copySlices(check, labels.data, labels.rowPitch, labelSlicePitch, d_labels, labelRow, labelSlice,
                       labelRow, voxels.height, voxels.depth, stream, "labels");
        }
        if (table) {
            // Waits for the stream: the labels are written when it returns.
            return &pipeline_.componentTable(check, timings);
        }
        // The caller's later work waits for ours, on the device.
        check(cudaEventRecord(done_.get(), stream), "cudaEventRecord (labels done)");
        check(cudaStreamWaitEvent(callerStream, done_.get(), 0), "cudaStreamWaitEvent (labels done)");
        if (timings != nullptr) pipeline_.collectTimings(*timings);
        return nullptr;
    }

    // The counts of the last labelDevice (waits for them).
    const std::vector<std::uint32_t>& componentCounts(const CudaCheck& check) {
        const LabelRequest& request = pipeline_.request();
        if (request.width == 0) check.fail("nothing has been labeled yet");
        if (!countsOnHost_) {
            pipeline_.downloadCounts(check);
            countsOnHost_ = true;
        }
        const std::uint32_t* host = pipeline_.hostCounts(check);
        counts_.assign(host, host + request.images);
        return counts_;
    }

    // The table of image `image` of the last labelDevice (waits for it).
    const std::vector<Component>& tableOf(const CudaCheck& check, int image) {
        const LabelRequest& request = pipeline_.request();
        if (request.width == 0) check.fail("nothing has been labeled yet");
        if (image < 0 || image >= request.images) {
            check.fail("image " + std::to_string(image) + " is outside the last batch of " +
                       std::to_string(request.images) + " image(s)");
        }
        if (!countsOnHost_) {
            pipeline_.downloadCounts(check);
            countsOnHost_ = true;
        }
        return pipeline_.componentTable(check, nullptr, image);
    }

    ResourceCounts counts() const { return pipeline_.counts(); }
    const std::vector<Component>& table() const { return pipeline_.table(); }

    // The terms of the last host labeling, from its labels in the pipeline's buffer.
    RegionTotals measureTerms(const CudaCheck& check, const TermRequest& request, const IntensitySamples* intensity) {
        if (!hostLabels_) {
            check.fail(pipeline_.request().width == 0
                           ? "nothing has been labeled yet"
                           : "the last call labeled device memory; gather its terms with glccl::cuda::gatherTerms()");
        }
        const LabelRequest& last = pipeline_.request();
        const Shape shape = last.dimensions == 3 ? Shape::volume(last.width, last.height, last.depth)
                                                 : Shape::image(last.width, last.height);
        return measure::gatherTerms(check, pipeline_.labelBuffer(check), shape, pipeline_.table(), request, intensity,
                                    pipeline_.stream(), false, &staging_, &pipeline_.counts());
    }

private:
    // Upload, label, table, and (if wanted) the download of the labels:
    // into `direct` by the device when that is page-locked memory, otherwise
    // handed to consume(piece, bytes, offset) in order.
    template <class Consume>
    const std::vector<Component>& labelHost(const CudaCheck& check, const std::uint8_t* pixels,
                                            const LabelRequest& request, bool wantLabels, std::uint32_t* direct,
                                            Consume&& consume, StageTimings* timings) {
        hostLabels_ = false;
        const std::size_t pixelCount = request.pixelCount();
        pipeline_.reserve(check, pixelCount);
        const std::size_t elementBytes = request.rule.bytesPerElement();
        std::uint8_t* d_input = pipeline_.inputBuffer(check, elementBytes);
        std::uint32_t* d_labels = pipeline_.labelBuffer(check);
        const cudaStream_t stream = pipeline_.stream();

        staging_.upload(check, pixels, d_input, pixelCount * elementBytes, stream, pipeline_.counts());
        pipeline_.findLabels(check, request, d_input, d_labels, timings != nullptr);
        if (!wantLabels) {
            const std::vector<Component>& table = pipeline_.componentTable(check, timings);
            hostLabels_ = true;
            return table;
        }
        // The labels leave on a stream of their own while the table's kernel
        // and download run on the pipeline's: the host copies labels out
        // instead of waiting for the table.
        if (labelsStream_.get() == nullptr) {
            labelsStream_ = Stream(check);
            labelsReady_ = Event(check, cudaEventDisableTiming);
        }
        check(cudaEventRecord(labelsReady_.get(), stream), "cudaEventRecord (labels ready)");
        check(cudaStreamWaitEvent(labelsStream_.get(), labelsReady_.get(), 0), "cudaStreamWaitEvent (labels ready)");
        pipeline_.queueComponentTable(check);
        staging_.download(check, d_labels, pixelCount * sizeof(std::uint32_t), labelsStream_.get(), direct,
                          pipeline_.counts(), std::forward<Consume>(consume));
        const std::vector<Component>& table = pipeline_.componentTable(check, timings);
        hostLabels_ = true;
        return table;
    }

    // Declared first, destroyed last.
    LabelPipeline pipeline_;
    HostStaging staging_;
    Stream labelsStream_;  // host labels' downloads (labelHost)
    Event labelsReady_;    // the pipeline's stream is past findLabels()
    Event callerReady_;  // the caller's stream reached labelDevice()
    Event done_;         // the pipeline's stream is past a labelDevice()
    bool countsOnHost_ = false;              // the last labeling's counts were downloaded
    bool hostLabels_ = false;                // the last call labeled a host image: its labels are in labelBuffer()
    std::vector<std::uint32_t> counts_;      // componentCounts()
};

struct ImageLabeler::Impl {
    ImageLabelerCore core;
};

ImageLabeler::ImageLabeler() : impl_(std::make_unique<Impl>()) {}
ImageLabeler::~ImageLabeler() = default;
ImageLabeler::ImageLabeler(ImageLabeler&&) noexcept = default;
ImageLabeler& ImageLabeler::operator=(ImageLabeler&&) noexcept = default;

void ImageLabeler::reserve(int width, int height, int channels) {
    const CudaCheck check("glccl::cuda::ImageLabeler::reserve");
    impl_->core.reserve(check, width, height, channels);
}

void ImageLabeler::label(const Image& image, Connectivity connectivity, Criterion criterion, Labeling& result,
                         StageTimings* timings) {
    const CudaCheck check("glccl::cuda::ImageLabeler::label");
    impl_->core.label(check, image, connectivity, criterion, result, timings);
}

const std::vector<Component>& ImageLabeler::label(const std::uint8_t* pixels, int width, int height, int channels,
                                                  Connectivity connectivity, Criterion criterion,
                                                  std::uint32_t* labels, StageTimings* timings) {
    const CudaCheck check("glccl::cuda::ImageLabeler::label");
    return impl_->core.label(check, pixels, width, height, channels, connectivity, criterion, labels, timings);
}

const std::vector<Component>& ImageLabeler::label(const ImageView& image, Connectivity connectivity,
                                                  Criterion criterion, std::uint32_t* labels, StageTimings* timings) {
    const CudaCheck check("glccl::cuda::ImageLabeler::label");
    return impl_->core.label(check, image, connectivity, criterion, labels, timings);
}

const std::vector<Component>& ImageLabeler::labelDevice(const DeviceVolume& voxels, const DeviceVolumeLabels& labels,
                                                        Connectivity connectivity, Criterion criterion,
                                                        CUstream_st* stream, StageTimings* timings) {
    const CudaCheck check("glccl::cuda::ImageLabeler::labelDevice");
    if (dimensionsOf(connectivity) == 2 && voxels.depth != 1) {
        check.fail("voxels.depth is " + std::to_string(voxels.depth) + " with " + std::to_string(neighbourCount(connectivity)) +
                   "-connectivity; a 2-D image has depth 1 (label batches with labelDeviceAsync)");
    }
    return *impl_->core.labelDevice(check, voxels, labels, connectivity, criterion, stream, nullptr, true, timings);
}

void ImageLabeler::labelDeviceAsync(const DeviceVolume& voxels, const DeviceVolumeLabels& labels,
                                    Connectivity connectivity, Criterion criterion, CUstream_st* stream,
                                    std::uint32_t* counts, StageTimings* timings) {
    const CudaCheck check("glccl::cuda::ImageLabeler::labelDeviceAsync");
    impl_->core.labelDevice(check, voxels, labels, connectivity, criterion, stream, counts, false, timings);
}

const std::vector<Component>& ImageLabeler::tableOf(int image) {
    const CudaCheck check("glccl::cuda::ImageLabeler::tableOf");
    return impl_->core.tableOf(check, image);
}

const std::vector<std::uint32_t>& ImageLabeler::componentCounts() {
    const CudaCheck check("glccl::cuda::ImageLabeler::componentCounts");
    return impl_->core.componentCounts(check);
}

const std::vector<Component>& ImageLabeler::table() const { return impl_->core.table(); }

RegionTotals ImageLabeler::measureTerms(const TermRequest& request, const IntensitySamples* intensity) {
    const CudaCheck check("glccl::cuda::ImageLabeler::measureTerms");
    return impl_->core.measureTerms(check, request, intensity);
}

ResourceCounts ImageLabeler::resourceCounts() const { return impl_->core.counts(); }

Labeling labelImage(const Image& image, Connectivity connectivity, Criterion criterion, StageTimings* timings) {
    const CudaCheck check("glccl::cuda::labelImage");
    ImageLabelerCore core;
    Labeling labeling;
    core.label(check, image, connectivity, criterion, labeling, timings);
    return labeling;
}

std::vector<Component> labelDeviceVolume(const DeviceVolume& voxels, const DeviceVolumeLabels& labels,
                                         Connectivity connectivity, Criterion criterion, CUstream_st* stream,
                                         StageTimings* timings) {
    const CudaCheck check("glccl::cuda::labelDeviceVolume");
    if (dimensionsOf(connectivity) != 3) {
        check.fail("connectivity " + std::to_string(neighbourCount(connectivity)) + " is not a volume's (6, 18 or 26)");
    }
    ImageLabelerCore core;
    return *core.labelDevice(check, voxels, labels, connectivity, criterion, stream, nullptr, true, timings);
}

}  // namespace glccl::cuda

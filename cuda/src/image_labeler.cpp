// ImageLabeler: the CUDA path on host images (through page-locked staging)
// and on images already in device memory (in place where the layout allows),
// with its buffers kept from one call to the next.

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "glccl/cuda_labeler.hpp"
#include "host_staging.hpp"
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

}  // namespace

// What ImageLabeler and labelImage() share; each passes the CudaCheck that
// names its entry.
class ImageLabelerCore {
public:
    ~ImageLabelerCore() { pipeline_.synchronize(); }

    void reserve(const CudaCheck& check, int width, int height, int channels) {
        const std::size_t pixelCount = checkedPixelCount(check, width, height, channels);
        pipeline_.reserve(check, pixelCount);
        pipeline_.inputBuffer(check, channels);
        pipeline_.labelBuffer(check);
        pipeline_.reserveTable(check, kReservedTableComponents);
        // The labels are the larger transfer (4 bytes against 1 or 4).
        staging_.reserve(check, pixelCount * sizeof(std::uint32_t), pipeline_.counts());
    }

    void label(const CudaCheck& check, const Image& image, Connectivity connectivity, Criterion criterion,
               Labeling& result, StageTimings* timings) {
        if (image.dimensions == 3)
            check.fail("the input is a volume; the cuda backend labels 2-D images only for now");
        // Checked first: the byte count below is the 8-bit one, and a
        // 16-bit image could pass it while being read as bytes.
        if (image.sampleBits != 8) {
            check.fail("the image has " + std::to_string(image.sampleBits) +
                       "-bit samples; the cuda backend labels 8-bit images (1 channel, or 4 for threshold): "
                       "use the compute, raster or cpu backend");
        }
        const std::size_t expectedBytes = std::size_t(image.width > 0 ? image.width : 0) *
                                          std::size_t(image.height > 0 ? image.height : 0) *
                                          std::size_t(image.channels > 0 ? image.channels : 0);
        if (image.pixels.size() != expectedBytes) {
            check.fail("the image is " + std::to_string(image.width) + "x" + std::to_string(image.height) + "x" +
                       std::to_string(image.channels) + " but holds " + std::to_string(image.pixels.size()) +
                       " bytes");
        }
        const LabelRequest request =
            checkedRequest(check, image.width, image.height, image.channels, connectivity, criterion);
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
        result.components = pipeline_.table();
    }

    const std::vector<Component>& label(const CudaCheck& check, const std::uint8_t* pixels, int width, int height,
                                        int channels, Connectivity connectivity, Criterion criterion,
                                        std::uint32_t* labels, StageTimings* timings) {
        const LabelRequest request = checkedRequest(check, width, height, channels, connectivity, criterion);
        if (pixels == nullptr) check.fail("pixels is null");
        auto* out = reinterpret_cast<unsigned char*>(labels);
        return labelHost(check, pixels, request, labels != nullptr, labels,
                         [&, out](const unsigned char* piece, std::size_t bytes, std::size_t offset) {
                             staging_.copy(out + offset, piece, bytes);
                         },
                         timings);
    }

    const std::vector<Component>& labelDevice(const CudaCheck& check, const DevicePixels& pixels,
                                              const DeviceLabels& labels, Connectivity connectivity,
                                              Criterion criterion, cudaStream_t callerStream,
                                              StageTimings* timings) {
        const LabelRequest request =
            checkedRequest(check, pixels.width, pixels.height, pixels.channels, connectivity, criterion);
        const std::size_t pixelRow = std::size_t(pixels.width) * std::size_t(pixels.channels);
        const std::size_t labelRow = std::size_t(pixels.width) * sizeof(std::uint32_t);
        if (pixels.data == nullptr) check.fail("pixels.data is null");
        if (labels.data == nullptr) check.fail("labels.data is null");
        if (pixels.pitch < pixelRow) {
            check.fail("pixels.pitch is " + std::to_string(pixels.pitch) + " bytes; a row of " +
                       std::to_string(pixels.width) + " pixels of " + std::to_string(pixels.channels) +
                       " channel(s) needs " + std::to_string(pixelRow));
        }
        if (labels.pitch < labelRow || labels.pitch % sizeof(std::uint32_t) != 0 ||
            !aligned(labels.data, sizeof(std::uint32_t))) {
            check.fail("labels.pitch is " + std::to_string(labels.pitch) +
                       " bytes; expected a multiple of 4 of at least " + std::to_string(labelRow) +
                       ", with labels.data 4-byte aligned");
        }

        pipeline_.reserve(check, request.pixelCount());
        requireDeviceMemory(check, pixels.data, "pixels.data", pipeline_.device());
        requireDeviceMemory(check, labels.data, "labels.data", pipeline_.device());
        const cudaStream_t stream = pipeline_.stream();

        // Start after what the caller has queued on its stream (the pixels
        // are probably being written there).
        if (callerReady_.get() == nullptr) callerReady_ = Event(check, cudaEventDisableTiming);
        check(cudaEventRecord(callerReady_.get(), callerStream), "cudaEventRecord (caller's stream)");
        check(cudaStreamWaitEvent(stream, callerReady_.get(), 0), "cudaStreamWaitEvent (caller's stream)");

        // Packed rows are what the kernels index; other pitches are packed
        // into the pipeline's own buffers first.
        const void* d_pixels = pixels.data;
        if (pixels.pitch != pixelRow || !aligned(pixels.data, std::size_t(pixels.channels))) {
            std::uint8_t* d_input = pipeline_.inputBuffer(check, pixels.channels);
            check(cudaMemcpy2DAsync(d_input, pixelRow, pixels.data, pixels.pitch, pixelRow,
                                    std::size_t(pixels.height), cudaMemcpyDeviceToDevice, stream),
                  "cudaMemcpy2DAsync (pixels)");
            d_pixels = d_input;
        }
        const bool labelsInPlace = labels.pitch == labelRow;
        std::uint32_t* d_labels = labelsInPlace ? labels.data : pipeline_.labelBuffer(check);

        pipeline_.findLabels(check, request, static_cast<const std::uint8_t*>(d_pixels), d_labels,
                             timings != nullptr);
        if (!labelsInPlace) {
            check(cudaMemcpy2DAsync(labels.data, labels.pitch, d_labels, labelRow, labelRow,
                                    std::size_t(pixels.height), cudaMemcpyDeviceToDevice, stream),
                  "cudaMemcpy2DAsync (labels)");
        }
        // Waits for the stream: the labels are written when it returns.
        return pipeline_.componentTable(check, timings);
    }

    ResourceCounts counts() const { return pipeline_.counts(); }
    const std::vector<Component>& table() const { return pipeline_.table(); }

private:
    // Upload, label, table, and (if wanted) the download of the labels:
    // into `direct` by the device when that is page-locked memory, otherwise
    // handed to consume(piece, bytes, offset) in order.
    template <class Consume>
    const std::vector<Component>& labelHost(const CudaCheck& check, const std::uint8_t* pixels,
                                            const LabelRequest& request, bool wantLabels, std::uint32_t* direct,
                                            Consume&& consume, StageTimings* timings) {
        const std::size_t pixelCount = request.pixelCount();
        pipeline_.reserve(check, pixelCount);
        std::uint8_t* d_input = pipeline_.inputBuffer(check, request.channels);
        std::uint32_t* d_labels = pipeline_.labelBuffer(check);
        const cudaStream_t stream = pipeline_.stream();

        staging_.upload(check, pixels, d_input, pixelCount * std::size_t(request.channels), stream,
                        pipeline_.counts());
        pipeline_.findLabels(check, request, d_input, d_labels, timings != nullptr);
        const std::vector<Component>& table = pipeline_.componentTable(check, timings);
        if (wantLabels) {
            staging_.download(check, d_labels, pixelCount * sizeof(std::uint32_t), stream, direct,
                              pipeline_.counts(), std::forward<Consume>(consume));
        }
        return table;
    }

    // Declared first, destroyed last.
    LabelPipeline pipeline_;
    HostStaging staging_;
    Event callerReady_;  // the caller's stream reached labelDevice()
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

const std::vector<Component>& ImageLabeler::labelDevice(const DevicePixels& pixels, const DeviceLabels& labels,
                                                        Connectivity connectivity, Criterion criterion,
                                                        CUstream_st* stream, StageTimings* timings) {
    const CudaCheck check("glccl::cuda::ImageLabeler::labelDevice");
    return impl_->core.labelDevice(check, pixels, labels, connectivity, criterion, stream, timings);
}

const std::vector<Component>& ImageLabeler::table() const { return impl_->core.table(); }

ResourceCounts ImageLabeler::resourceCounts() const { return impl_->core.counts(); }

Labeling labelImage(const Image& image, Connectivity connectivity, Criterion criterion, StageTimings* timings) {
    const CudaCheck check("glccl::cuda::labelImage");
    ImageLabelerCore core;
    Labeling labeling;
    core.label(check, image, connectivity, criterion, labeling, timings);
    return labeling;
}

}  // namespace glccl::cuda

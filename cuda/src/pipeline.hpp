#pragma once
// The CUDA labeling pipeline: validates sizes, owns the device memory and the
// stream, and runs the passes of passes.hpp in order (run() lists them).
// Where the input comes from (a host image, a GL texture) is the caller's
// business: it fills d_input() on stream() before run().

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"
#include "device_memory.hpp"
#include "glccl/types.hpp"
#include "passes.hpp"
#include "stage_timer.hpp"

namespace glccl::cuda {

class LabelPipeline {
public:
    // Throws glccl::Error (message starting with check.entry()) for sizes
    // below 1 or above kMaxPixels pixels, channels other than 1 and 4,
    // binary/segments on 4 channels, a threshold outside 0..255, or a failed
    // allocation. `check` must outlive the pipeline.
    LabelPipeline(const CudaCheck& check, int width, int height, int channels, Connectivity connectivity,
                  Criterion criterion);
    // Waits for the stream first: no kernel or copy still uses the memory
    // when it is freed (errors are ignored; see device_memory.hpp).
    ~LabelPipeline();
    LabelPipeline(const LabelPipeline&) = delete;
    LabelPipeline& operator=(const LabelPipeline&) = delete;

    // width x height x channels bytes, rows tightly packed, row 0 first.
    std::uint8_t* d_input() const { return input_.get(); }
    cudaStream_t stream() const { return stream_.get(); }

    // Labels d_input(): afterwards d_labels() holds the canonical labels.
    // Returns the component table; fills timings (if given) per kernel.
    std::vector<Component> run(StageTimings* timings);

    const std::uint32_t* d_labels() const { return labels_.get(); }
    std::vector<std::uint32_t> downloadLabels() const;

private:
    template <typename Pixel>
    void findComponents(const Pixel* d_image, StageTimer& timer);
    std::uint32_t numberComponents(StageTimer& timer);
    std::vector<Component> computeTable(std::uint32_t count, StageTimer& timer);

    const CudaCheck& check_;
    int width_;
    int height_;
    int channels_;
    std::size_t pixelCount_;
    PixelRule rule_;
    Stream stream_;
    DeviceBuffer<std::uint8_t> input_;
    DeviceBuffer<std::uint32_t> labels_;
};

}  // namespace glccl::cuda

#pragma once
// Device time per stage, measured with CUDA events around each launch and
// summed per stage name (mergeTiles runs once per level). Does nothing when
// the caller asked for no timings, so the common path records no events.

#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"
#include "device_memory.hpp"
#include "glccl/types.hpp"

namespace glccl::cuda {

class StageTimer {
public:
    StageTimer(bool enabled, cudaStream_t stream, const CudaCheck& check);

    // Brackets the launches of one stage: begin("mergeTiles"); ...; end();
    void begin(const char* stage);
    void end();

    // Waits for the stream and returns one entry per stage, in first-seen
    // order. Their sum is the device time of the kernels, without host
    // transfers and without the host's wait for the component count between
    // relabel and componentStats.
    StageTimings collect();

private:
    struct Interval {
        std::string stage;
        Event start, stop;
    };
    bool enabled_;
    cudaStream_t stream_;
    const CudaCheck& check_;
    std::vector<std::unique_ptr<Interval>> intervals_;
};

}  // namespace glccl::cuda

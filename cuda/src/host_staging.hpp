#pragma once
// Copies between host memory the caller owns and the device, at the bus's
// speed where the memory allows it:
//   - page-locked memory (cudaMallocHost, cudaHostRegister) is copied
//     directly, asynchronously;
//   - pageable memory (a std::vector, a numpy array) goes through two
//     page-locked chunks of our own, so that the host's copy of one chunk
//     overlaps the DMA of the other:
//
//       host:  memcpy 0 | memcpy 1 | memcpy 2 | memcpy 3 |            upload
//       bus:             |   DMA 0  |   DMA 1  |   DMA 2  |   DMA 3
//
//     (the driver's own path for pageable memory stages too, but blocks the
//     calling thread per copy and zero-fills nothing for us to skip). The
//     host's copies of large transfers are split over several threads
//     (parallel_copy.hpp, shared with the GL transfers): one core copies
//     far slower than the bus moves data.
// A transfer moves in chunks of pipelinedBandBytes() (the Tuning's
// transferBandBytes, or a few smaller ones for a small transfer, as the GL
// transfers cut their bands). The chunks' memory is made at the size the
// first transfer needs and kept (grown, never shrunk): a batch of images
// allocates it once.

#include <cstddef>
#include <algorithm>
#include <cstring>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"
#include "device_memory.hpp"
#include "glccl/cuda_labeler.hpp"
// The engine's copy helper, header-only so that this library, which the
// engine links, can share its one source.
#include "parallel_copy.hpp"

namespace glccl::cuda {

// True when `host` is page-locked (or managed) memory the device can copy
// from directly.
bool isPageLocked(const void* host);

class HostStaging {
public:
    // Queues the upload of `bytes` from `host` to d_destination on stream.
    // Pageable memory has been read when it returns; page-locked memory is
    // read by the device later, so it must stay as it is until the stream
    // gets past the upload (the labelers wait for their stream before they
    // return).
    void upload(const CudaCheck& check, const void* host, void* d_destination, std::size_t bytes,
                cudaStream_t stream, ResourceCounts& counts);

    // Makes the chunks now, for transfers of up to `bytes`.
    void reserve(const CudaCheck& check, std::size_t bytes, ResourceCounts& counts) {
        ensureChunks(check, bytes, counts);
    }

    // Downloads `bytes` from d_source (after the work queued on stream) and
    // hands them over in order to consume(piece, size, offset); returns when
    // all of them have been consumed. A page-locked `direct` target (may be
    // null) is written by the device instead, and consume is not called.
    template <class Consume>
    void download(const CudaCheck& check, const void* d_source, std::size_t bytes, cudaStream_t stream,
                  void* direct, ResourceCounts& counts, Consume&& consume);

    // download() into `bytes` of host memory at `out`: copied by the device
    // where `out` is page-locked, else through the chunks by the copy threads.
    void downloadTo(const CudaCheck& check, const void* d_source, std::size_t bytes, cudaStream_t stream, void* out,
                    ResourceCounts& counts) {
        auto* target = static_cast<unsigned char*>(out);
        download(check, d_source, bytes, stream, out, counts,
                 [&](const unsigned char* piece, std::size_t size, std::size_t offset) {
                     copy(target + offset, piece, size);
                 });
    }

    // A host-to-host copy with the staging's copy threads (Tuning::copyThreads;
    // one memcpy below kParallelCopyBytes), for consumers of download().
    void copy(void* destination, const void* source, std::size_t bytes);

private:
    // The chunk size of a transfer of `bytes`, with chunks at least that
    // large made.
    std::size_t ensureChunks(const CudaCheck& check, std::size_t bytes, ResourceCounts& counts);

    PinnedBuffer<unsigned char> chunks_[2];
    Event chunkDone_[2];  // the last copy into or out of the chunk has finished
    CopyThreads copier_;
};

template <class Consume>
void HostStaging::download(const CudaCheck& check, const void* d_source, std::size_t bytes, cudaStream_t stream,
                           void* direct, ResourceCounts& counts, Consume&& consume) {
    if (bytes == 0) return;
    if (direct != nullptr && isPageLocked(direct)) {
        check(cudaMemcpyAsync(direct, d_source, bytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync (download)");
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (download)");
        return;
    }
    const std::size_t chunk = ensureChunks(check, bytes, counts);
    const auto* source = static_cast<const unsigned char*>(d_source);
    const std::size_t chunkCount = (bytes + chunk - 1) / chunk;
    auto queue = [&](std::size_t i) {
        const std::size_t offset = i * chunk;
        const std::size_t size = std::min(chunk, bytes - offset);
        check(cudaMemcpyAsync(chunks_[i % 2].get(), source + offset, size, cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync (download chunk)");
        check(cudaEventRecord(chunkDone_[i % 2].get(), stream), "cudaEventRecord (download chunk)");
    };
    // Chunk i + 1 travels while the host consumes chunk i.
    queue(0);
    for (std::size_t i = 0; i < chunkCount; ++i) {
        if (i + 1 < chunkCount) queue(i + 1);
        check(cudaEventSynchronize(chunkDone_[i % 2].get()), "cudaEventSynchronize (download chunk)");
        const std::size_t offset = i * chunk;
        consume(static_cast<const unsigned char*>(chunks_[i % 2].get()), std::min(chunk, bytes - offset), offset);
    }
}

}  // namespace glccl::cuda

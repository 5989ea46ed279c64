#include "host_staging.hpp"

#include <algorithm>

namespace glccl::cuda {

bool isPageLocked(const void* host) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, host) != cudaSuccess) {
        cudaGetLastError();  // an unknown pointer is simply not page-locked
        return false;
    }
    return attributes.type == cudaMemoryTypeHost || attributes.type == cudaMemoryTypeManaged;
}

std::size_t HostStaging::ensureChunks(const CudaCheck& check, std::size_t bytes, ResourceCounts& counts) {
    // A chunk of whole granules holds whole labels (download consumers take
    // labels), and a slightly larger image does not pin the chunks anew.
    const std::size_t band = pipelinedBandBytes(bytes, tuning().transferBandBytes);
    const std::size_t chunk = std::max(kBandGranule, band / kBandGranule * kBandGranule);
    const std::size_t capacity = (std::min(bytes, chunk) + kBandGranule - 1) / kBandGranule * kBandGranule;
    if (capacity <= chunks_[0].bytes()) return chunk;
    for (int i = 0; i < 2; ++i) {
        // A chunk may still be the source or target of a queued copy.
        if (chunkDone_[i].get() != nullptr) {
            check(cudaEventSynchronize(chunkDone_[i].get()), "cudaEventSynchronize (staging)");
        } else {
            chunkDone_[i] = Event(check, cudaEventDisableTiming);
        }
        chunks_[i] = {};
        chunks_[i] = PinnedBuffer<unsigned char>(capacity, check);
        ++counts.hostAllocations;
    }
    return chunk;
}

void HostStaging::copy(void* destination, const void* source, std::size_t bytes) {
    copier_.copy(destination, source, bytes, copyThreads(tuning()));
}

void HostStaging::upload(const CudaCheck& check, const void* host, void* d_destination, std::size_t bytes,
                         cudaStream_t stream, ResourceCounts& counts) {
    if (bytes == 0) return;
    if (isPageLocked(host)) {
        check(cudaMemcpyAsync(d_destination, host, bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync (upload)");
        return;
    }
    const std::size_t chunk = ensureChunks(check, bytes, counts);
    const auto* source = static_cast<const unsigned char*>(host);
    auto* destination = static_cast<unsigned char*>(d_destination);
    for (std::size_t offset = 0, i = 0; offset < bytes; offset += chunk, ++i) {
        const std::size_t size = std::min(chunk, bytes - offset);
        // The chunk's previous upload must have left it before we refill it.
        check(cudaEventSynchronize(chunkDone_[i % 2].get()), "cudaEventSynchronize (upload chunk)");
        copy(chunks_[i % 2].get(), source + offset, size);
        check(cudaMemcpyAsync(destination + offset, chunks_[i % 2].get(), size, cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (upload chunk)");
        check(cudaEventRecord(chunkDone_[i % 2].get(), stream), "cudaEventRecord (upload chunk)");
    }
}

}  // namespace glccl::cuda

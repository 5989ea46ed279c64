#pragma once
// The library's tuning knobs: how whole-texture transfers move pixels, how
// many threads copy on the host, where the compute engine keeps its parents,
// and whether the CUDA engine synchronises after each kernel. None of them
// changes a result, only how it is reached; the defaults are the fastest
// measured choice, so most programs never set any. Where variants lost to
// the default everywhere they were measured, they left the library with
// their knob (docs/benchmarks.md has the current figures).
//
// One Tuning holds for the whole process (setTuning, tuning): these are
// process-level choices, read by every labeler and by the copy threads. The
// copy threads and the band size are shared by the engine's transfers and
// the CUDA engine's staging, which is why the Tuning lives below both.
//
//   glccl::Tuning tuning = glccl::tuning();
//   tuning.transfer = glccl::Tuning::Transfer::Plain;
//   tuning.copyThreads = 4;
//   glccl::setTuning(tuning);
//
// The library reads one environment variable, a debug switch:
// GLCCL_CUDA_SYNC=1 makes the default of cudaSyncEachKernel true (read once,
// the first time a Tuning is made). It reads no other.
//
// Lives in the host library, the one below both the engine and the CUDA
// library (which the engine links), so that both read the same Tuning.

#include <cstddef>
#include <string>

namespace glccl {

struct Tuning {
    // Whole-texture transfers between host memory and a texture.
    enum class Transfer {
        Auto,   // bands where they pay (buffer storage, a hardware renderer,
                // at least 1 MiB; downloads with glGetTextureSubImage, OpenGL
                // 4.5), one plain call elsewhere
        Plain,  // one glTexSubImage2D / glGetTexImage on host memory
        Bands,  // pipelined bands through persistently mapped pixel buffers
                // wherever the context has buffer storage (and, to download,
                // glGetTextureSubImage), even for small transfers and
                // software renderers (tests use it)
    };
    // Where the compute engine keeps the parents of its nodes.
    enum class ComputeParents {
        Auto,    // the faster storage buffer where it fits, else an image
        Buffer,  // the storage buffer; an image too large for it is an error
        Image,   // an R32UI image (tests use it: llvmpipe's storage blocks
                 // hold every image the tests label)
    };

    static constexpr std::size_t kDefaultTransferBandBytes = std::size_t(32) << 20;
    static constexpr int kDefaultTransferBuffers = 3;
    static constexpr int kMaxTransferBuffers = 8;
    static constexpr int kMaxCopyThreads = 64;

    // Transfers: auto (default), plain or bands.
    Transfer transfer = Transfer::Auto;
    // Bytes per band, at least 1 (a band holds at least one row); default
    // 32 MiB. The pixel buffers hold this much each, never the whole image.
    std::size_t transferBandBytes = kDefaultTransferBandBytes;
    // Pixel buffers per direction, 2..8; default 3.
    int transferBuffers = kDefaultTransferBuffers;
    // Threads of the large host copies (transfer bands, CUDA staging) and of
    // the decoding of large component tables: 1..64, or 0 (default) for the
    // machine's hardware threads, at most 16 (memory bandwidth, not cores,
    // bounds a copy past that).
    int copyThreads = 0;
    // The compute engine's parents: auto (default), buffer or image.
    ComputeParents computeParents = ComputeParents::Auto;
    // Release builds of the CUDA engine synchronise after each kernel and
    // check it, so that an asynchronous fault is reported by the kernel that
    // caused it (builds without NDEBUG always do). Default: whether the
    // environment has GLCCL_CUDA_SYNC=1.
    bool cudaSyncEachKernel = debugSyncRequested();

    // Sets one knob from text, as a command line gives it: name is a field
    // above ("transfer", "transferBandBytes", ...), value one of the values
    // it lists ("bands"; a byte count such as "16777216", "64K", "32M" or
    // "1G"; "auto" for copyThreads 0; "0" or "1" for cudaSyncEachKernel).
    // Throws glccl::Error("glccl::Tuning::set(): transfer is 'fast';
    // expected auto, plain or bands") for an unknown name or a malformed or
    // out-of-range value, leaving the Tuning as it was.
    void set(const std::string& name, const std::string& value);

    // "transfer=auto transferBandBytes=33554432 ...": every knob, in the form
    // set() takes.
    std::string describe() const;

    // Whether GLCCL_CUDA_SYNC is 1 in the environment, read once per
    // process: the library's one read of the environment.
    static bool debugSyncRequested();
};

// Makes `tuning` the process's Tuning, for every call that starts after
// this one returns. Throws glccl::Error("glccl::setTuning(): ...") where a
// value is out of range (transferBandBytes 0, transferBuffers outside 2..8,
// copyThreads outside 0..64), leaving the current Tuning. Thread-safe.
void setTuning(const Tuning& tuning);

// A copy of the process's Tuning: the defaults until setTuning is called.
// Thread-safe; costs one uncontended lock.
Tuning tuning();

}  // namespace glccl

#pragma once
// The transfer floor of glccl bench: the time that moving an image to the GPU
// and its labels back takes at the machine's page-locked copy bandwidth. No
// labeling call that starts and ends in host memory can be faster than the
// floor plus its device time, so wall / (device + floor) says how much of
// what a user waits for is overhead of glccl's own.
//
// The bandwidths are measured once per bench run, in the same run as the
// labelings they are compared with (a machine's bus speed depends on its
// slot, its NUMA node and what else is running):
//   cuda  page-locked host memory (cudaMallocHost) and cudaMemcpy each way,
//         timed by CUDA events: the bus at its best
//   gl    where CUDA cannot run, the fastest route GL has: a persistently
//         mapped pixel-unpack buffer into glTexSubImage2D, and glGetTexImage
//         into a GL_STREAM_READ pixel-pack buffer, each timed to glFinish

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace glccl {
class OffscreenLabeler;
}

namespace glccl::bench {

struct TransferBandwidth {
    double hostToDeviceGBps = 0.0;  // GB = 1e9 bytes
    double deviceToHostGBps = 0.0;
    int tries = 0;                  // timed copies each way; the best is kept
    std::size_t bytes = 0;          // size of each copy
    std::string method;             // how it was measured, e.g. "CUDA page-locked cudaMemcpy, 256 MiB"

    // Milliseconds to copy `upBytes` host to device and `downBytes` back.
    double floorMilliseconds(double upBytes, double downBytes) const {
        return (upBytes / hostToDeviceGBps + downBytes / deviceToHostGBps) * 1e-6;
    }
};

#ifdef GLCCL_HAVE_CUDA
// cudaMallocHost and cudaMalloc buffers of `bytes`, one untimed copy each
// way, then the best of `tries` timed copies each way, on the current CUDA
// device. Throws glccl::Error naming the CUDA call and its error. Frees what
// it allocated before it returns or throws.
TransferBandwidth measureCudaTransferBandwidth(std::size_t bytes, int tries);

// The least a frame through CUDA-GL interop costs here, per frame in ms:
// `inputTexture` (GL_R8 or GL_RGBA8, width x height, `channels`) and an
// R32UI texture of its size registered once, then per frame: both mapped,
// the input copied out and 32-bit labels copied in (the cuda backend's data
// movement, without its labeling), the stream synchronized, both unmapped,
// glFinish. The cuda backend's frame cannot cost less. Throws glccl::Error
// naming the CUDA call that failed; frees and unregisters what it made.
std::vector<double> measureCudaInteropFrames(unsigned inputTexture, int width, int height, int channels,
                                             int frames);
#endif

// In the GL context current on this thread (OpenGL 4.4 or
// GL_ARB_buffer_storage for the persistent mapping): an RGBA8 texture of
// about `bytes`, no wider or taller than maxTextureSize, one untimed copy each
// way, then the best of `tries` timed copies each way. Leaves the pixel
// pack/unpack buffer bindings, the 2-D texture binding of the active unit and
// the pixel-store parameters it sets as it found them. Throws glccl::Error
// when the context lacks buffer storage or a GL error occurs.
TransferBandwidth measureGlTransferBandwidth(std::size_t bytes, int tries, int maxTextureSize);

// The page-locked copy bandwidth of this machine, copies of `bytes` each
// way, the best of `tries`: by CUDA where it is built and a device runs,
// else in `offscreen`'s context (made current here; null where there is no
// GL context); nullopt, with the reasons in *why, where neither can measure.
std::optional<TransferBandwidth> transferBandwidth(OffscreenLabeler* offscreen, std::size_t bytes, int tries,
                                                  std::string* why);

}  // namespace glccl::bench

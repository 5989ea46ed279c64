#include "transfer_floor.hpp"

#include "gl.hpp"  // the engine's GL loader, before any other GL header

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>

#include "gl_error.hpp"
#include "gl_objects.hpp"
#include "glccl/error.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/texture.hpp"
#include "glccl/types.hpp"
#ifdef GLCCL_HAVE_CUDA
#include "glccl/cuda_labeler.hpp"
#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>
#endif

namespace glccl::bench {

namespace {

constexpr double kMebibyte = 1024.0 * 1024.0;

double gigabytesPerSecond(std::size_t bytes, double milliseconds) {
    return milliseconds > 0.0 ? double(bytes) / (milliseconds * 1e6) : 0.0;
}

std::string mebibytes(std::size_t bytes) { return std::to_string(std::size_t(double(bytes) / kMebibyte + 0.5)) + " MiB"; }

}  // namespace

#ifdef GLCCL_HAVE_CUDA

namespace {

void check(cudaError_t status, const char* call) {
    if (status != cudaSuccess)
        throw Error(std::string("glccl bench: transfer floor: ") + call + ": " + cudaGetErrorName(status) + " (" +
                    cudaGetErrorString(status) + ")");
}

struct PinnedFree {
    void operator()(void* p) const { cudaFreeHost(p); }
};
struct DeviceFree {
    void operator()(void* p) const { cudaFree(p); }
};
struct EventDestroy {
    void operator()(CUevent_st* e) const { cudaEventDestroy(e); }
};
using Event = std::unique_ptr<CUevent_st, EventDestroy>;

Event makeEvent() {
    cudaEvent_t event = nullptr;
    check(cudaEventCreate(&event), "cudaEventCreate");
    return Event(event);
}

}  // namespace

TransferBandwidth measureCudaTransferBandwidth(std::size_t bytes, int tries) {
    void* raw = nullptr;
    check(cudaMallocHost(&raw, bytes), "cudaMallocHost");
    const std::unique_ptr<void, PinnedFree> host(raw);
    check(cudaMalloc(&raw, bytes), "cudaMalloc");
    const std::unique_ptr<void, DeviceFree> device(raw);
    const Event start = makeEvent(), stop = makeEvent();

    // Events on the default stream around one synchronous copy: the copy's
    // own time on the bus, without the host's call overhead.
    const auto bestMilliseconds = [&](void* to, const void* from, cudaMemcpyKind kind) {
        check(cudaMemcpy(to, from, bytes, kind), "cudaMemcpy");  // untimed: first use of the mappings
        float best = 0.0f;
        for (int i = 0; i < tries; ++i) {
            check(cudaEventRecord(start.get()), "cudaEventRecord");
            check(cudaMemcpy(to, from, bytes, kind), "cudaMemcpy");
            check(cudaEventRecord(stop.get()), "cudaEventRecord");
            check(cudaEventSynchronize(stop.get()), "cudaEventSynchronize");
            float milliseconds = 0.0f;
            check(cudaEventElapsedTime(&milliseconds, start.get(), stop.get()), "cudaEventElapsedTime");
            if (i == 0 || milliseconds < best) best = milliseconds;
        }
        return double(best);
    };

    TransferBandwidth bandwidth;
    bandwidth.hostToDeviceGBps = gigabytesPerSecond(bytes, bestMilliseconds(device.get(), host.get(), cudaMemcpyHostToDevice));
    bandwidth.deviceToHostGBps = gigabytesPerSecond(bytes, bestMilliseconds(host.get(), device.get(), cudaMemcpyDeviceToHost));
    bandwidth.tries = tries;
    bandwidth.bytes = bytes;
    bandwidth.method = "CUDA cudaMemcpy from and to page-locked memory, " + mebibytes(bytes);
    return bandwidth;
}

std::vector<double> measureCudaInteropFrames(unsigned inputTexture, int width, int height, int channels,
                                             int frames) {
    const std::size_t inputRow = std::size_t(width) * std::size_t(channels);
    const std::size_t labelRow = std::size_t(width) * 4;
    void* raw = nullptr;
    check(cudaMalloc(&raw, labelRow * std::size_t(height)), "cudaMalloc");
    const std::unique_ptr<void, DeviceFree> device(raw);
    // The labels' texture, R32UI like the cuda backend's (its pixels are
    // never read).
    const ImageTexture labels(Image(width, height, 1, 32));

    struct Unregister {
        void operator()(cudaGraphicsResource* r) const { cudaGraphicsUnregisterResource(r); }
    };
    const auto registered = [](GLuint texture, unsigned flags) {
        cudaGraphicsResource* resource = nullptr;
        check(cudaGraphicsGLRegisterImage(&resource, texture, GL_TEXTURE_2D, flags), "cudaGraphicsGLRegisterImage");
        return std::unique_ptr<cudaGraphicsResource, Unregister>(resource);
    };
    const auto input = registered(inputTexture, cudaGraphicsRegisterFlagsReadOnly);
    const auto output = registered(labels.id(), cudaGraphicsRegisterFlagsWriteDiscard);
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    struct StreamDestroy {
        void operator()(CUstream_st* s) const { cudaStreamDestroy(s); }
    };
    const std::unique_ptr<CUstream_st, StreamDestroy> owned(stream);

    std::vector<double> times;
    glFinish();
    for (int frame = -1; frame < frames; ++frame) {  // frame -1: untimed
        const auto start = std::chrono::steady_clock::now();
        cudaGraphicsResource* both[2] = {input.get(), output.get()};
        check(cudaGraphicsMapResources(2, both, stream), "cudaGraphicsMapResources");
        cudaArray_t in = nullptr, out = nullptr;
        check(cudaGraphicsSubResourceGetMappedArray(&in, input.get(), 0, 0), "cudaGraphicsSubResourceGetMappedArray");
        check(cudaGraphicsSubResourceGetMappedArray(&out, output.get(), 0, 0), "cudaGraphicsSubResourceGetMappedArray");
        check(cudaMemcpy2DFromArrayAsync(device.get(), inputRow, in, 0, 0, inputRow, std::size_t(height),
                                         cudaMemcpyDeviceToDevice, stream),
              "cudaMemcpy2DFromArrayAsync");
        check(cudaMemcpy2DToArrayAsync(out, 0, 0, device.get(), labelRow, labelRow, std::size_t(height),
                                       cudaMemcpyDeviceToDevice, stream),
              "cudaMemcpy2DToArrayAsync");
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        check(cudaGraphicsUnmapResources(2, both, stream), "cudaGraphicsUnmapResources");
        glFinish();
        if (frame >= 0)
            times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    return times;
}

#endif  // GLCCL_HAVE_CUDA

namespace {

// The GL state the measurement changes, saved on construction and restored
// on destruction, so that the context is left as it was found.
class SavedTransferState {
public:
    SavedTransferState() {
        glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &unpackBuffer_);
        glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &packBuffer_);
        glGetIntegerv(GL_TEXTURE_BINDING_2D, &texture_);
        for (std::size_t i = 0; i < kStore.size(); ++i) glGetIntegerv(kStore[i], &store_[i]);
    }
    ~SavedTransferState() {
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, GLuint(unpackBuffer_));
        glBindBuffer(GL_PIXEL_PACK_BUFFER, GLuint(packBuffer_));
        glBindTexture(GL_TEXTURE_2D, GLuint(texture_));
        for (std::size_t i = 0; i < kStore.size(); ++i) glPixelStorei(kStore[i], store_[i]);
    }
    SavedTransferState(const SavedTransferState&) = delete;
    SavedTransferState& operator=(const SavedTransferState&) = delete;

    // Tightly packed rows of 4-byte pixels, whatever the host had set.
    static void setTightRows() {
        for (const GLenum parameter : kStore)
            glPixelStorei(parameter, parameter == GL_PACK_ALIGNMENT || parameter == GL_UNPACK_ALIGNMENT ? 4 : 0);
    }

private:
    static constexpr std::array<GLenum, 8> kStore = {GL_UNPACK_ALIGNMENT, GL_UNPACK_ROW_LENGTH, GL_UNPACK_SKIP_ROWS,
                                                     GL_UNPACK_SKIP_PIXELS, GL_PACK_ALIGNMENT, GL_PACK_ROW_LENGTH,
                                                     GL_PACK_SKIP_ROWS, GL_PACK_SKIP_PIXELS};
    GLint unpackBuffer_ = 0, packBuffer_ = 0, texture_ = 0;
    std::array<GLint, 8> store_{};
};

double millisecondsToFinish(const std::chrono::steady_clock::time_point& start) {
    glFinish();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TransferBandwidth measureGlTransferBandwidth(std::size_t bytes, int tries, int maxTextureSize) {
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    if ((major < 4 || (major == 4 && minor < 4)) && !gl::hasExtension("GL_ARB_buffer_storage"))
        throw Error("glccl bench: transfer floor: the GL context (" + std::to_string(major) + "." +
                    std::to_string(minor) + ") has no buffer storage (OpenGL 4.4 or GL_ARB_buffer_storage)");

    // An RGBA8 texture of about `bytes`: rows 8192 pixels wide (or as wide as
    // the context allows), as many rows as fit.
    const int width = std::max(1, std::min(8192, maxTextureSize));
    const int height = int(std::max<std::size_t>(1, std::min<std::size_t>(bytes / (4 * std::size_t(width)),
                                                                         std::size_t(maxTextureSize))));
    const std::size_t size = std::size_t(width) * std::size_t(height) * 4;

    const SavedTransferState saved;
    SavedTransferState::setTightRows();
    const ImageTexture texture(Image(width, height, 4, 8));
    const gl::Buffer unpack = gl::Buffer::create();
    const gl::Buffer pack = gl::Buffer::create();

    // The upload's source stays mapped, as a program that streams images
    // through it would keep it: the copy into the texture is then the bus's
    // work alone. Coherent, so no flush or barrier is needed after writing.
    constexpr GLbitfield kPersistent = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, unpack.id());
    glBufferStorage(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(size), nullptr, kPersistent);
    void* mapped = glMapBufferRange(GL_PIXEL_UNPACK_BUFFER, 0, GLsizeiptr(size), kPersistent);
    if (mapped == nullptr) {
        checkGlError("glccl bench: transfer floor: glMapBufferRange");
        throw Error("glccl bench: transfer floor: glMapBufferRange returned no mapping");
    }
    // Every page written once, so that no copy reads a page the OS has yet to
    // provide.
    std::memset(mapped, 0x5a, size);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, pack.id());
    glBufferData(GL_PIXEL_PACK_BUFFER, GLsizeiptr(size), nullptr, GL_STREAM_READ);
    glBindTexture(GL_TEXTURE_2D, texture.id());
    checkGlError("glccl bench: transfer floor: buffers of " + mebibytes(size));

    const auto bestMilliseconds = [&](auto copy) {
        glFinish();
        copy();  // untimed: the driver's first use of both buffers
        glFinish();
        double best = 0.0;
        for (int i = 0; i < tries; ++i) {
            const auto start = std::chrono::steady_clock::now();
            copy();
            const double milliseconds = millisecondsToFinish(start);
            if (i == 0 || milliseconds < best) best = milliseconds;
        }
        return best;
    };
    const double up = bestMilliseconds(
        [&] { glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr); });
    const double down = bestMilliseconds([&] { glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr); });
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, unpack.id());
    glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
    checkGlError("glccl bench: transfer floor: copies of " + mebibytes(size));

    TransferBandwidth bandwidth;
    bandwidth.hostToDeviceGBps = gigabytesPerSecond(size, up);
    bandwidth.deviceToHostGBps = gigabytesPerSecond(size, down);
    bandwidth.tries = tries;
    bandwidth.bytes = size;
    bandwidth.method = "GL persistently mapped pixel-unpack buffer to texture, texture to pixel-pack buffer, " +
                       mebibytes(size);
    return bandwidth;
}

std::optional<TransferBandwidth> transferBandwidth(OffscreenLabeler* offscreen, std::size_t bytes, int tries,
                                                  std::string* why) {
    std::string reasons;
#ifdef GLCCL_HAVE_CUDA
    // CUDA's page-locked copies are the bus at its best; a GL driver's pixel
    // buffers reach it at most.
    std::string whyNoCuda;
    if (cuda::available(&whyNoCuda)) {
        try {
            return measureCudaTransferBandwidth(bytes, tries);
        } catch (const Error& error) {
            reasons = error.what();
        }
    } else {
        reasons = "CUDA: " + whyNoCuda;
    }
#endif
    if (offscreen) {
        try {
            offscreen->makeCurrent();
            return measureGlTransferBandwidth(bytes, tries, offscreen->context().info().maxTextureSize);
        } catch (const Error& error) {
            reasons += (reasons.empty() ? "" : "; ") + std::string(error.what());
        }
    }
    if (why) *why = reasons;
    return std::nullopt;
}

}  // namespace glccl::bench

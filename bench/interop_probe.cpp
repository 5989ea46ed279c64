// glccl_interop_probe: what one frame of CUDA-GL interop costs, three ways,
// on a GL_R8 input texture and a GL_R32UI label texture of one size.
//
//   glccl_interop_probe [--size WxH] [--frames N]
//
//   map        both textures registered with CUDA once, mapped and unmapped
//              every frame; the input copied out of its array, labels into
//              the label texture's array (the cuda backend's frame now)
//   buffers    two GL buffers registered once and mapped every frame; GL
//              packs the input texture into one and unpacks the labels out
//              of the other
//   external   two device allocations of CUDA's (cuMemCreate), exported as
//              file descriptors and imported into GL as buffer storage
//              (GL_EXT_memory_object_fd): nothing is mapped; GL packs the
//              input into one, a fence orders CUDA after it, GL unpacks the
//              labels after CUDA's stream is synchronized
//   external-finish  the same, with glFinish instead of the fence
//   cuda-alone the frame's CUDA part with no GL work in the frame
//
// Each frame copies the input into a device buffer (as the labeling reads
// it) and fills the labels with the frame's number (as the labeling writes
// them), synchronizes CUDA's stream, and ends with glFinish: the labeling's
// own work is left out, what is left is what interop adds to a frame. After
// the frames, the label texture and the copied input are read back and
// checked. Prints "interop,VARIANT,median_ms,min_ms,max_ms,checked" lines.

#include "gl.hpp"  // the engine's GL entry points, before any other GL header

#include <cuda.h>
#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/texture.hpp"
#include "gl_objects.hpp"

// In namespace glccl, whose GL entry points (gl.hpp) then hide the ones
// cuda_gl_interop.h declares through GL/gl.h.
namespace glccl {
namespace {

using Clock = std::chrono::steady_clock;

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(status));
}
void checkDriver(CUresult status, const char* what) {
    if (status != CUDA_SUCCESS) throw Error(std::string(what) + ": CUresult " + std::to_string(int(status)));
}
void checkGl(const char* what) {
    const GLenum error = glGetError();
    if (error != GL_NO_ERROR) throw Error(std::string(what) + ": GL error " + std::to_string(error));
}

template <class Function>
Function driverEntry(const char* name) {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    check(cudaGetDriverEntryPointByVersion(name, &function, 12000, cudaEnableDefault, &found), name);
#else
    check(cudaGetDriverEntryPoint(name, &function, cudaEnableDefault, &found), name);
#endif
    if (function == nullptr || found != cudaDriverEntryPointSuccess) throw Error(std::string("no driver entry ") + name);
    return reinterpret_cast<Function>(function);
}

// GL_EXT_memory_object(_fd): no core functions, so not among the engine's
// entry points; this probe, their only user, finds them itself once the
// context is current and lists the extension.
constexpr GLenum kHandleTypeOpaqueFd = 0x9586;  // GL_HANDLE_TYPE_OPAQUE_FD_EXT
void(APIENTRY* glCreateMemoryObjectsEXT)(GLsizei, GLuint*) = nullptr;
void(APIENTRY* glDeleteMemoryObjectsEXT)(GLsizei, const GLuint*) = nullptr;
void(APIENTRY* glImportMemoryFdEXT)(GLuint, GLuint64, GLenum, GLint) = nullptr;
void(APIENTRY* glBufferStorageMemEXT)(GLenum, GLsizeiptr, GLuint, GLuint64) = nullptr;

// True when the context lists GL_EXT_memory_object_fd and gives its functions.
bool loadMemoryObjects() {
    if (!gl::hasExtension("GL_EXT_memory_object_fd")) return false;
    auto find = [](auto& function, const char* name) {
        function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(gl::procAddress(name));
        return function != nullptr;
    };
    return find(glCreateMemoryObjectsEXT, "glCreateMemoryObjectsEXT") &&
           find(glDeleteMemoryObjectsEXT, "glDeleteMemoryObjectsEXT") &&
           find(glImportMemoryFdEXT, "glImportMemoryFdEXT") && find(glBufferStorageMemEXT, "glBufferStorageMemEXT");
}

// GL_EXT_memory_object: memory CUDA exported, imported as the storage of
// buffers. Only this probe imports memory, so its wrapper lives here, on the
// engine's owner template.
struct MemoryObjectTraits {
    static GLuint create() {
        GLuint id = 0;
        glCreateMemoryObjectsEXT(1, &id);
        return id;
    }
    static void destroy(GLuint id) { glDeleteMemoryObjectsEXT(1, &id); }
};
using MemoryObject = gl::Object<MemoryObjectTraits>;

// Device memory of CUDA's, seen by GL as a buffer.
struct Shared {
    CUdeviceptr pointer = 0;
    std::size_t bytes = 0;
    CUmemGenericAllocationHandle handle = 0;
    MemoryObject memory;
    gl::Buffer buffer;
};

// A buffer with immutable storage of `bytes` (bound once, so that the name
// is an object before its storage is given).
gl::Buffer storageBuffer(std::size_t bytes) {
    gl::Buffer buffer = gl::Buffer::create();
    glBindBuffer(GL_COPY_WRITE_BUFFER, buffer.id());
    glBufferStorage(GL_COPY_WRITE_BUFFER, GLsizeiptr(bytes), nullptr, 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    return buffer;
}

Shared makeShared(std::size_t want) {
    static auto granularityOf = driverEntry<decltype(&cuMemGetAllocationGranularity)>("cuMemGetAllocationGranularity");
    static auto create = driverEntry<decltype(&cuMemCreate)>("cuMemCreate");
    static auto reserve = driverEntry<decltype(&cuMemAddressReserve)>("cuMemAddressReserve");
    static auto map = driverEntry<decltype(&cuMemMap)>("cuMemMap");
    static auto setAccess = driverEntry<decltype(&cuMemSetAccess)>("cuMemSetAccess");
    static auto exportHandle = driverEntry<decltype(&cuMemExportToShareableHandle)>("cuMemExportToShareableHandle");
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    CUmemAllocationProp properties{};
    properties.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    properties.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    properties.location.id = device;
    properties.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    std::size_t granularity = 0;
    checkDriver(granularityOf(&granularity, &properties, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "granularity");
    Shared shared;
    shared.bytes = (want + granularity - 1) / granularity * granularity;
    checkDriver(create(&shared.handle, shared.bytes, &properties, 0), "cuMemCreate");
    checkDriver(reserve(&shared.pointer, shared.bytes, 0, 0, 0), "cuMemAddressReserve");
    checkDriver(map(shared.pointer, shared.bytes, 0, shared.handle, 0), "cuMemMap");
    CUmemAccessDesc access{};
    access.location = properties.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    checkDriver(setAccess(shared.pointer, shared.bytes, &access, 1), "cuMemSetAccess");
    int fd = -1;
    checkDriver(exportHandle(&fd, shared.handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), "export");
    shared.memory = MemoryObject::create();
    glImportMemoryFdEXT(shared.memory.id(), shared.bytes, kHandleTypeOpaqueFd, fd);  // GL owns fd now
    checkGl("glImportMemoryFdEXT");
    shared.buffer = gl::Buffer::create();
    glBindBuffer(GL_COPY_WRITE_BUFFER, shared.buffer.id());
    glBufferStorageMemEXT(GL_COPY_WRITE_BUFFER, GLsizeiptr(shared.bytes), shared.memory.id(), 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    checkGl("glBufferStorageMemEXT");
    return shared;
}

void freeShared(Shared& shared) {
    static auto unmap = driverEntry<decltype(&cuMemUnmap)>("cuMemUnmap");
    static auto addressFree = driverEntry<decltype(&cuMemAddressFree)>("cuMemAddressFree");
    static auto release = driverEntry<decltype(&cuMemRelease)>("cuMemRelease");
    glFinish();
    shared.buffer.reset();
    shared.memory.reset();
    unmap(shared.pointer, shared.bytes);
    addressFree(shared.pointer, shared.bytes);
    release(shared.handle);
}

struct Setup {
    int width = 1920, height = 1080;
    std::size_t inputBytes() const { return std::size_t(width) * height; }
    std::size_t labelBytes() const { return std::size_t(width) * height * 4; }
};

void report(const char* variant, std::vector<double> times, bool checked) {
    std::sort(times.begin(), times.end());
    std::printf("interop,%s,%.4f,%.4f,%.4f,%s\n", variant, times[times.size() / 2], times.front(), times.back(),
                checked ? "checked" : "WRONG");
    std::fflush(stdout);
}

// The label texture holds `value` everywhere, and `copied` the input.
bool verify(const Setup& s, GLuint labels, std::uint32_t value, const void* copied, const Image& image) {
    std::vector<std::uint32_t> back(s.inputBytes());
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glGetTextureImage(labels, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, GLsizei(back.size() * 4), back.data());
    std::vector<unsigned char> input(s.inputBytes());
    check(cudaMemcpy(input.data(), copied, input.size(), cudaMemcpyDeviceToHost), "verify");
    const bool labelsOk = std::all_of(back.begin(), back.end(), [&](std::uint32_t v) { return v == value; });
    return labelsOk && std::memcmp(input.data(), image.pixels.data(), input.size()) == 0;
}

int run(int argc, char** argv) {
    Setup s;
    int frames = 500;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--size" && i + 1 < argc) std::sscanf(argv[++i], "%dx%d", &s.width, &s.height);
        else if (arg == "--frames" && i + 1 < argc) frames = std::max(1, std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: glccl_interop_probe [--size WxH] [--frames N]\n");
            return 2;
        }
    }
    OffscreenLabeler offscreen;  // the context, and the engine's entry points found
    offscreen.makeCurrent();
    const bool memoryObjects = loadMemoryObjects();
    std::printf("# %s, %s; %dx%d, %d frames; GL_EXT_memory_object_fd %s\n", offscreen.context().info().renderer.c_str(),
                offscreen.context().info().version.c_str(), s.width, s.height, frames,
                memoryObjects ? "listed" : "not listed");
    const Image image = generateFamily("noise50", s.width, s.height, 1);
    const ImageTexture input(image);
    const ImageTexture labels(Image(s.width, s.height, 1, 32));
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    void* device = nullptr;
    check(cudaMalloc(&device, s.labelBytes()), "cudaMalloc");
    const std::size_t labelRow = std::size_t(s.width) * 4, inputRow = std::size_t(s.width);
    std::uint32_t value = 0;
    auto timeFrames = [&](const std::function<void()>& frame) {
        std::vector<double> times;
        glFinish();
        for (int f = -3; f < frames; ++f) {
            ++value;
            const auto start = Clock::now();
            frame();
            glFinish();
            if (f >= 0) times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        }
        return times;
    };
    auto fill = [&](void* labelsOut) {
        // cudaMemsetD32 equivalent through the runtime: memset works per
        // byte, so the value is a byte repeated.
        const std::uint32_t byte = value & 0xFF;
        check(cudaMemsetAsync(labelsOut, int(byte), s.labelBytes(), stream), "memset");
        return byte * 0x01010101u;
    };
    std::uint32_t expected = 0;

    {  // map
        cudaGraphicsResource* resources[2] = {};
        check(cudaGraphicsGLRegisterImage(&resources[0], input.id(), GL_TEXTURE_2D, cudaGraphicsRegisterFlagsReadOnly),
              "register input");
        check(cudaGraphicsGLRegisterImage(&resources[1], labels.id(), GL_TEXTURE_2D,
                                          cudaGraphicsRegisterFlagsWriteDiscard),
              "register labels");
        const auto times = timeFrames([&] {
            check(cudaGraphicsMapResources(2, resources, stream), "map");
            cudaArray_t in = nullptr, out = nullptr;
            check(cudaGraphicsSubResourceGetMappedArray(&in, resources[0], 0, 0), "array");
            check(cudaGraphicsSubResourceGetMappedArray(&out, resources[1], 0, 0), "array");
            check(cudaMemcpy2DFromArrayAsync(device, inputRow, in, 0, 0, inputRow, s.height, cudaMemcpyDeviceToDevice,
                                             stream),
                  "from array");
            expected = fill(static_cast<char*>(device) + 0);  // labels written after the input was read
            check(cudaMemcpy2DToArrayAsync(out, 0, 0, device, labelRow, labelRow, s.height, cudaMemcpyDeviceToDevice,
                                           stream),
                  "to array");
            check(cudaStreamSynchronize(stream), "sync");
            check(cudaGraphicsUnmapResources(2, resources, stream), "unmap");
        });
        // The device buffer now holds the labels; the input copy is checked
        // by the other variants.
        std::vector<std::uint32_t> back(s.inputBytes());
        glGetTextureImage(labels.id(), 0, GL_RED_INTEGER, GL_UNSIGNED_INT, GLsizei(back.size() * 4), back.data());
        report("map", times, std::all_of(back.begin(), back.end(), [&](std::uint32_t v) { return v == expected; }));
        cudaGraphicsUnregisterResource(resources[0]);
        cudaGraphicsUnregisterResource(resources[1]);
    }
    void* copied = nullptr;
    check(cudaMalloc(&copied, s.inputBytes()), "cudaMalloc");

    {  // buffers
        const gl::Buffer buffers[2] = {storageBuffer(s.inputBytes()), storageBuffer(s.labelBytes())};
        cudaGraphicsResource* resources[2] = {};
        check(cudaGraphicsGLRegisterBuffer(&resources[0], buffers[0].id(), cudaGraphicsRegisterFlagsReadOnly), "reg");
        check(cudaGraphicsGLRegisterBuffer(&resources[1], buffers[1].id(), cudaGraphicsRegisterFlagsWriteDiscard),
              "reg");
        const auto times = timeFrames([&] {
            glBindBuffer(GL_PIXEL_PACK_BUFFER, buffers[0].id());
            glPixelStorei(GL_PACK_ALIGNMENT, 1);
            glGetTextureImage(input.id(), 0, GL_RED, GL_UNSIGNED_BYTE, GLsizei(s.inputBytes()), nullptr);
            glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
            check(cudaGraphicsMapResources(2, resources, stream), "map");
            void* in = nullptr;
            void* out = nullptr;
            std::size_t size = 0;
            check(cudaGraphicsResourceGetMappedPointer(&in, &size, resources[0]), "pointer");
            check(cudaGraphicsResourceGetMappedPointer(&out, &size, resources[1]), "pointer");
            check(cudaMemcpyAsync(copied, in, s.inputBytes(), cudaMemcpyDeviceToDevice, stream), "copy");
            expected = fill(out);
            check(cudaStreamSynchronize(stream), "sync");
            check(cudaGraphicsUnmapResources(2, resources, stream), "unmap");
            glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffers[1].id());
            glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
            glTextureSubImage2D(labels.id(), 0, 0, 0, s.width, s.height, GL_RED_INTEGER, GL_UNSIGNED_INT, nullptr);
            glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        });
        report("buffers", times, verify(s, labels.id(), expected, copied, image));
        cudaGraphicsUnregisterResource(resources[0]);
        cudaGraphicsUnregisterResource(resources[1]);
    }

    if (!memoryObjects) {
        std::printf("interop,external,,,,GL_EXT_memory_object_fd missing\n");
        return 0;
    }
    for (const bool useFence : {true, false}) {
        Shared in = makeShared(s.inputBytes());
        Shared out = makeShared(s.labelBytes());
        std::vector<double> packWait, cudaPart, unpack;
        const auto times = timeFrames([&] {
            auto t0 = Clock::now();
            glBindBuffer(GL_PIXEL_PACK_BUFFER, in.buffer.id());
            glPixelStorei(GL_PACK_ALIGNMENT, 1);
            glGetTextureImage(input.id(), 0, GL_RED, GL_UNSIGNED_BYTE, GLsizei(s.inputBytes()), nullptr);
            glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
            if (useFence) {
                gl::Fence::insert().wait("the input's pack");
            } else {
                glFinish();
            }
            auto t1 = Clock::now();
            check(cudaMemcpyAsync(copied, reinterpret_cast<void*>(in.pointer), s.inputBytes(),
                                  cudaMemcpyDeviceToDevice, stream),
                  "copy");
            expected = fill(reinterpret_cast<void*>(out.pointer));
            check(cudaStreamSynchronize(stream), "sync");
            auto t2 = Clock::now();
            glBindBuffer(GL_PIXEL_UNPACK_BUFFER, out.buffer.id());
            glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
            glTextureSubImage2D(labels.id(), 0, 0, 0, s.width, s.height, GL_RED_INTEGER, GL_UNSIGNED_INT, nullptr);
            glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
            glFinish();
            auto t3 = Clock::now();
            auto ms = [](Clock::time_point a, Clock::time_point b) {
                return std::chrono::duration<double, std::milli>(b - a).count();
            };
            packWait.push_back(ms(t0, t1));
            cudaPart.push_back(ms(t1, t2));
            unpack.push_back(ms(t2, t3));
        });
        const bool ok = verify(s, labels.id(), expected, copied, image);
        report(useFence ? "external" : "external-finish", times, ok);
        report(useFence ? "external:pack+wait" : "external-finish:pack+finish", packWait, ok);
        report(useFence ? "external:cuda" : "external-finish:cuda", cudaPart, ok);
        report(useFence ? "external:unpack+finish" : "external-finish:unpack+finish", unpack, ok);
        freeShared(in);
        freeShared(out);
    }
    {  // cuda-alone: the CUDA part of a frame with no GL work in it
        const auto times = timeFrames([&] {
            check(cudaMemcpyAsync(copied, device, s.inputBytes(), cudaMemcpyDeviceToDevice, stream), "copy");
            fill(device);
            check(cudaStreamSynchronize(stream), "sync");
        });
        report("cuda-alone", times, true);
    }
    cudaFree(copied);
    cudaFree(device);
    cudaStreamDestroy(stream);
    return 0;
}

}  // namespace
}  // namespace glccl

int main(int argc, char** argv) {
    try {
        return glccl::run(argc, argv);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "glccl_interop_probe: %s\n", error.what());
        return 1;
    }
}

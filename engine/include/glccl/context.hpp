#pragma once
// OpenGL contexts for glccl: a headless EGL context for programs without a
// window, and the loading of GL entry points in any current context.

#include <memory>
#include <string>
#include <vector>

#include "glccl/context_info.hpp"

namespace glccl {

// One EGL device, as EGL_EXT_device_enumeration lists it.
struct HeadlessDevice {
    int index = 0;          // in eglQueryDevicesEXT's order: HeadlessContext::Options::device
    std::string name;       // EGL_RENDERER_EXT, else the DRM node, else "Mesa software rasterizer" or ""
    int cudaDevice = -1;    // EGL_CUDA_DEVICE_NV (NVIDIA), -1 where the device does not say
    bool software = false;  // EGL_MESA_device_software (llvmpipe)
};

// The EGL devices of this machine, in the order HeadlessContext::Options::
// device counts them. NVIDIA's order may differ from CUDA's: cudaDevice says
// which CUDA device each is, where the driver tells it. Empty where EGL has
// no device enumeration (EGL_EXT_device_enumeration); `why`, if given, then
// says so. Never throws. Cost: one eglQueryDevicesEXT and a few string
// queries; no display is initialised.
std::vector<HeadlessDevice> headlessDevices(std::string* why = nullptr);
int headlessDeviceCount();

// Finds the GL entry points, once per process: glccl links no GL library
// and opens the system's (libOpenGL.so.0, else libGL.so.1) the first time a
// context is used. Call with a context current before using glccl in a
// context the host made (Labeler does so itself). Throws glccl::Error when
// there is no OpenGL library, no context is current, or core entry points
// are missing. It loads glccl's own pointers only: a host that calls GL
// itself loads its own (GLEW, glad, ...).
void loadGlFunctions();

// Describes the current context; requires loadGlFunctions() first.
ContextInfo currentContextInfo();

// Makes no EGL context current on this thread (nothing where EGL was never
// opened): EGL refuses to make a context current on one thread while it is
// current on another.
void releaseCurrentContext();

// An OpenGL core-profile (or, with Options::es, OpenGL ES) context with no surface, through EGL: the EGL device
// platform first (finds NVIDIA GPUs on headless machines), then Mesa's
// surfaceless platform (llvmpipe where there is no GPU); or, when
// Options::device names one, that EGL device alone. Made current on
// construction, on the constructing thread. On an NVIDIA GPU it also
// retains the GPU's primary CUDA context for the process, through the
// driver's libcuda.so.1 where it is installed: a headless GPU with only GL
// work drops to its idle clock between bursts, and labels at a fraction of
// its speed. Not copyable or movable.
// Throws glccl::Error ("glccl::HeadlessContext: ...") when no display gives
// the context, or for a device index EGL does not list (the message lists
// the devices there are).
class HeadlessContext {
public:
    using Options = HeadlessContextOptions;  // glccl/context_info.hpp

    HeadlessContext();
    explicit HeadlessContext(const Options& options);
    ~HeadlessContext();
    HeadlessContext(const HeadlessContext&) = delete;
    HeadlessContext& operator=(const HeadlessContext&) = delete;

    void makeCurrent();
    const ContextInfo& info() const;
    // Where the context runs, for logs: "EGL device 1", with ", CUDA device
    // 0" where the driver says which, or "Mesa surfaceless".
    const std::string& platform() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace glccl

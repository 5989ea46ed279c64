#include "glccl/context.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "egl.hpp"
#include "gl.hpp"
#include "gl_error.hpp"
#include "glccl/error.hpp"

namespace glccl {

namespace {

const char* eglErrorName(EGLint code) {
    switch (code) {
        case EGL_SUCCESS: return "EGL_SUCCESS";
        case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
        case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
        case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
        case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
        case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
        case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
        case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
        case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
        case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
        case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
        case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
        case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
        case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
        case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
        default: return "unknown EGL error";
    }
}

std::string eglFailure(const char* call) {
    return std::string(call) + " failed: " + eglErrorName(eglGetError());
}

template <typename Fn>
Fn eglProc(const char* name) {
    return reinterpret_cast<Fn>(eglGetProcAddress(name));
}

// EGL displays are per device and per process: two contexts on one device
// share one EGLDisplay, and eglTerminate would end it for both. Count users.
std::map<EGLDisplay, int>& displayUsers() {
    static std::map<EGLDisplay, int> users;
    return users;
}

void releaseDisplay(EGLDisplay display) {
    if (--displayUsers()[display] == 0) {
        displayUsers().erase(display);
        eglTerminate(display);
    }
}

bool hasExtension(const char* list, const std::string& name) {
    if (!list) return false;
    const std::string all = std::string(" ") + list + " ";
    return all.find(" " + name + " ") != std::string::npos;
}

// The EGL devices in eglQueryDevicesEXT's order; none, and `why`, where EGL
// cannot enumerate devices or open displays on them.
struct EglDevices {
    std::vector<EGLDeviceEXT> handles;
    std::string why;
};

EglDevices listEglDevices() {
    EglDevices list;
    if (!loadEgl(&list.why)) {
        list.why = "no EGL library (" + list.why + ")";
        return list;
    }
    const char* clientExtensions = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!hasExtension(clientExtensions, "EGL_EXT_device_enumeration") &&
        !hasExtension(clientExtensions, "EGL_EXT_device_base")) {
        list.why = "this EGL has no device enumeration (EGL_EXT_device_enumeration)";
        return list;
    }
    if (!hasExtension(clientExtensions, "EGL_EXT_platform_device")) {
        list.why = "this EGL cannot open a display on a device (no EGL_EXT_platform_device)";
        return list;
    }
    auto queryDevices = eglProc<PFNEGLQUERYDEVICESEXTPROC>("eglQueryDevicesEXT");
    EGLint count = 0;
    if (!queryDevices || !queryDevices(0, nullptr, &count)) {
        list.why = queryDevices ? eglFailure("eglQueryDevicesEXT") : "EGL has no eglQueryDevicesEXT";
        return list;
    }
    list.handles.resize(std::size_t(count > 0 ? count : 0));
    if (count > 0 && !queryDevices(count, list.handles.data(), &count)) {
        list.handles.clear();
        list.why = eglFailure("eglQueryDevicesEXT");
        return list;
    }
    list.handles.resize(std::size_t(count));
    if (count == 0) list.why = "EGL lists no devices";
    return list;
}

HeadlessDevice describeEglDevice(EGLDeviceEXT handle, int index) {
    HeadlessDevice device;
    device.index = index;
    auto queryString = eglProc<PFNEGLQUERYDEVICESTRINGEXTPROC>("eglQueryDeviceStringEXT");
    auto queryAttribute = eglProc<PFNEGLQUERYDEVICEATTRIBEXTPROC>("eglQueryDeviceAttribEXT");
    const char* extensions = queryString ? queryString(handle, EGL_EXTENSIONS) : nullptr;
    device.software = hasExtension(extensions, "EGL_MESA_device_software");
    if (hasExtension(extensions, "EGL_NV_device_cuda") && queryAttribute) {
        EGLAttrib ordinal = -1;
        if (queryAttribute(handle, EGL_CUDA_DEVICE_NV, &ordinal)) device.cudaDevice = int(ordinal);
    }
    const char* name = nullptr;
    if (queryString && hasExtension(extensions, "EGL_EXT_device_query_name")) name = queryString(handle, EGL_RENDERER_EXT);
    if (!name && queryString && hasExtension(extensions, "EGL_EXT_device_drm_render_node"))
        name = queryString(handle, EGL_DRM_RENDER_NODE_FILE_EXT);
    if (!name && queryString && hasExtension(extensions, "EGL_EXT_device_drm"))
        name = queryString(handle, EGL_DRM_DEVICE_FILE_EXT);
    eglGetError();  // a string the device does not have leaves EGL_BAD_PARAMETER behind
    device.name = name ? name : device.software ? "Mesa software rasterizer" : "";
    return device;
}

std::string describeDeviceList(const std::vector<HeadlessDevice>& devices) {
    std::string text;
    for (const HeadlessDevice& device : devices) {
        text += (text.empty() ? "" : ", ") + std::to_string(device.index);
        std::string details = device.name;
        if (device.cudaDevice >= 0) details += (details.empty() ? "" : ", ") + std::string("CUDA device ") +
                                              std::to_string(device.cudaDevice);
        if (!details.empty()) text += " (" + details + ")";
    }
    return text;
}

// On NVIDIA's driver a headless GPU that runs only GL work drops to its idle
// clock between bursts of work (a labeling waits on the host between its
// stages, a tiled run between its tiles), and labels at a fraction of its
// speed; while a CUDA context exists on it, it stays at its compute clock.
// So a context of glccl's on a CUDA device retains that device's primary
// CUDA context for the process, through the driver's library opened at run
// time (a build without CUDA does it too). Anything missing or failing
// leaves the clock to the driver.
void holdComputeClock(int cudaDevice) {
    using Init = int (*)(unsigned);
    using DeviceGet = int (*)(int*, int);
    using RetainPrimary = int (*)(void**, int);
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!driver) return;
    const auto init = reinterpret_cast<Init>(dlsym(driver, "cuInit"));
    const auto deviceGet = reinterpret_cast<DeviceGet>(dlsym(driver, "cuDeviceGet"));
    const auto retainPrimary = reinterpret_cast<RetainPrimary>(dlsym(driver, "cuDevicePrimaryCtxRetain"));
    int device = 0;
    void* context = nullptr;
    if (init && deviceGet && retainPrimary && init(0) == 0 && deviceGet(&device, cudaDevice) == 0)
        (void)retainPrimary(&context, device);
}

}  // namespace

std::vector<HeadlessDevice> headlessDevices(std::string* why) {
    const EglDevices list = listEglDevices();
    if (why) *why = list.why;
    std::vector<HeadlessDevice> devices;
    for (std::size_t i = 0; i < list.handles.size(); ++i) devices.push_back(describeEglDevice(list.handles[i], int(i)));
    return devices;
}

int headlessDeviceCount() { return int(listEglDevices().handles.size()); }

ContextInfo currentContextInfo() {
    ContextInfo info;
    auto text = [](GLenum name) {
        const auto* s = reinterpret_cast<const char*>(glGetString(name));
        return std::string(s ? s : "");
    };
    info.vendor = text(GL_VENDOR);
    info.renderer = text(GL_RENDERER);
    info.version = text(GL_VERSION);
    glGetIntegerv(GL_MAJOR_VERSION, &info.major);
    glGetIntegerv(GL_MINOR_VERSION, &info.minor);
    info.es = info.version.rfind("OpenGL ES", 0) == 0;
    GLint mask = 0;
    if (!info.es && (info.major > 3 || (info.major == 3 && info.minor >= 2))) glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &mask);
    info.coreProfile = (mask & GL_CONTEXT_CORE_PROFILE_BIT) != 0;
    info.floatTargets = !info.es || gl::hasExtension("GL_EXT_color_buffer_float");
    info.floatBlend = !info.es || gl::hasExtension("GL_EXT_float_blend");
    const int version = info.major * 10 + info.minor;
    info.imageAtomics = info.es ? version >= 32 || (version == 31 && gl::hasExtension("GL_OES_shader_image_atomic"))
                                : version >= 42;
    if (info.es ? version >= 31 : version >= 43) {
        GLint invocations = 0, sizeX = 0, sizeY = 0, shared = 0;
        glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &invocations);
        glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, 0, &sizeX);
        glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, 1, &sizeY);
        glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &shared);
        info.computeGroupThreads = std::min({invocations, sizeX, sizeY});
        info.computeSharedBytes = shared;
    }
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &info.maxTextureSize);
    glGetIntegerv(GL_MAX_3D_TEXTURE_SIZE, &info.max3DTextureSize);
    return info;
}

struct HeadlessContext::Impl {
    EGLDisplay display = EGL_NO_DISPLAY;
    EGLContext context = EGL_NO_CONTEXT;
    std::string platform;
    int eglDevice = -1, cudaDevice = -1;
    ContextInfo info;

    ~Impl() {
        if (display != EGL_NO_DISPLAY) {
            if (context != EGL_NO_CONTEXT) {
                if (eglGetCurrentContext() == context)
                    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
                eglDestroyContext(display, context);
            }
            releaseDisplay(display);
        }
    }

    // Options::device < 0: tries every EGL device, then Mesa surfaceless,
    // and keeps the first display that initialises and gives a context of
    // the requested version. Otherwise that EGL device or an error.
    void open(const Options& options) {
        std::string failures;
        std::string why = gl::runtimeMissing();
        if (why.empty() && !loadEgl(&why)) why = "no EGL library was found on this machine (" + why + ")";
        if (!why.empty()) throw Error("glccl::HeadlessContext: " + why);
        const char* clientExtensions = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
        auto getPlatformDisplay = eglProc<PFNEGLGETPLATFORMDISPLAYEXTPROC>("eglGetPlatformDisplayEXT");
        if (!getPlatformDisplay) throw Error("glccl::HeadlessContext: EGL has no eglGetPlatformDisplayEXT");
        const std::string version = std::string(options.es ? "ES " : "") + std::to_string(options.major) + "." +
                                    std::to_string(options.minor);
        const char* kind = options.es ? " context" : " core context";

        const EglDevices list = listEglDevices();
        if (options.device >= 0) {
            const std::string asked = "glccl::HeadlessContext: EGL device " + std::to_string(options.device) + " was asked for";
            if (list.handles.empty()) throw Error(asked + ", but " + list.why);
            if (std::size_t(options.device) >= list.handles.size()) {
                const std::vector<HeadlessDevice> devices = headlessDevices();
                throw Error(asked + ", but EGL lists " + std::to_string(devices.size()) +
                            (devices.size() == 1 ? " device: " : " devices: ") + describeDeviceList(devices));
            }
            const HeadlessDevice device = describeEglDevice(list.handles[std::size_t(options.device)], options.device);
            EGLDisplay candidate = getPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, list.handles[std::size_t(options.device)], nullptr);
            if (candidate == EGL_NO_DISPLAY) failures = eglFailure("eglGetPlatformDisplayEXT") + "; ";
            else if (tryDisplay(candidate, options, device, failures)) return;
            throw Error("glccl::HeadlessContext: EGL device " + std::to_string(options.device) +
                        (device.name.empty() ? "" : " (" + device.name + ")") + " gives no OpenGL " + version + kind +
                        ": " + failures.substr(0, failures.size() - 2));
        }
        for (std::size_t i = 0; i < list.handles.size(); ++i) {
            EGLDisplay candidate = getPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, list.handles[i], nullptr);
            if (tryDisplay(candidate, options, describeEglDevice(list.handles[i], int(i)), failures)) return;
        }
        if (hasExtension(clientExtensions, "EGL_MESA_platform_surfaceless")) {
            EGLDisplay candidate = getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
            if (tryDisplay(candidate, options, std::nullopt, failures)) return;
        }
        throw Error("glccl::HeadlessContext: no EGL display gives an OpenGL " + version + kind +
                    (failures.empty() ? "" : ": " + failures.substr(0, failures.size() - 2)));
    }

    // `device`: the EGL device the display is on; none for Mesa surfaceless.
    bool tryDisplay(EGLDisplay candidate, const Options& options, const std::optional<HeadlessDevice>& device,
                    std::string& failures) {
        if (candidate == EGL_NO_DISPLAY) return false;
        const std::string label = device ? "EGL device " + std::to_string(device->index) : "Mesa surfaceless";
        const char* name = label.c_str();
        EGLint major = 0, minor = 0;
        if (!eglInitialize(candidate, &major, &minor)) {
            failures += std::string(name) + ": " + eglFailure("eglInitialize") + "; ";
            return false;
        }
        ++displayUsers()[candidate];
        const char* extensions = eglQueryString(candidate, EGL_EXTENSIONS);
        if (!hasExtension(extensions, "EGL_KHR_surfaceless_context") ||
            !eglBindAPI(options.es ? EGL_OPENGL_ES_API : EGL_OPENGL_API)) {
            failures += std::string(name) + (options.es ? ": no surfaceless OpenGL ES; " : ": no surfaceless OpenGL; ");
            releaseDisplay(candidate);
            return false;
        }
        const EGLint configAttributes[] = {EGL_RENDERABLE_TYPE, options.es ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_BIT,
                                           EGL_NONE};
        EGLConfig config = nullptr;
        EGLint configCount = 0;
        if (!eglChooseConfig(candidate, configAttributes, &config, 1, &configCount) || configCount == 0) {
            if (!hasExtension(extensions, "EGL_KHR_no_config_context")) {
                failures += std::string(name) + ": no OpenGL config; ";
                releaseDisplay(candidate);
                return false;
            }
            config = EGL_NO_CONFIG_KHR;
        }
        // ES has no profiles: the profile attribute is desktop's only.
        const EGLint desktopAttributes[] = {EGL_CONTEXT_MAJOR_VERSION, options.major,
                                            EGL_CONTEXT_MINOR_VERSION, options.minor,
                                            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                            EGL_CONTEXT_OPENGL_DEBUG, options.debug ? EGL_TRUE : EGL_FALSE,
                                            EGL_NONE};
        const EGLint esAttributes[] = {EGL_CONTEXT_MAJOR_VERSION, options.major,
                                       EGL_CONTEXT_MINOR_VERSION, options.minor,
                                       EGL_CONTEXT_OPENGL_DEBUG, options.debug ? EGL_TRUE : EGL_FALSE,
                                       EGL_NONE};
        const EGLint* contextAttributes = options.es ? esAttributes : desktopAttributes;
        EGLContext created = eglCreateContext(candidate, config, EGL_NO_CONTEXT, contextAttributes);
        if (created == EGL_NO_CONTEXT) {
            failures += std::string(name) + ": " + eglFailure("eglCreateContext") + "; ";
            releaseDisplay(candidate);
            return false;
        }
        if (!eglMakeCurrent(candidate, EGL_NO_SURFACE, EGL_NO_SURFACE, created)) {
            failures += std::string(name) + ": " + eglFailure("eglMakeCurrent") + "; ";
            eglDestroyContext(candidate, created);
            releaseDisplay(candidate);
            return false;
        }
        display = candidate;
        context = created;
        platform = label;
        if (device && device->cudaDevice >= 0) platform += ", CUDA device " + std::to_string(device->cudaDevice);
        eglDevice = device ? device->index : -1;
        cudaDevice = device ? device->cudaDevice : -1;
        return true;
    }
};

HeadlessContext::HeadlessContext() : HeadlessContext(Options{}) {}

HeadlessContext::HeadlessContext(const Options& options) : impl_(std::make_unique<Impl>()) {
    impl_->open(options);
    loadGlFunctions();
    impl_->info = currentContextInfo();
    impl_->info.eglDevice = impl_->eglDevice;
    impl_->info.cudaDevice = impl_->cudaDevice;
    if (options.debug) installDebugMessageHandler();
    if (impl_->cudaDevice >= 0) holdComputeClock(impl_->cudaDevice);
}

HeadlessContext::~HeadlessContext() = default;

void HeadlessContext::makeCurrent() {
    if (!eglMakeCurrent(impl_->display, EGL_NO_SURFACE, EGL_NO_SURFACE, impl_->context))
        throw Error("glccl::HeadlessContext::makeCurrent(): " + eglFailure("eglMakeCurrent"));
}

const ContextInfo& HeadlessContext::info() const { return impl_->info; }
const std::string& HeadlessContext::platform() const { return impl_->platform; }

}  // namespace glccl

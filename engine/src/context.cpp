#include "glccl/context.hpp"

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <map>
#include <string>
#include <vector>

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

}  // namespace

void loadGlFunctions() {
    glewExperimental = GL_TRUE;
    const GLenum status = glewInit();
    // Debian's GLEW is a GLX build: under EGL it reports the missing GLX
    // display after loading every GL entry point (see the header).
    if (status == GLEW_ERROR_NO_GL_VERSION)
        throw Error("glccl::loadGlFunctions(): no OpenGL context is current on this thread");
    if (status != GLEW_OK && status != GLEW_ERROR_NO_GLX_DISPLAY) {
        throw Error(std::string("glccl::loadGlFunctions(): glewInit failed: ") +
                    reinterpret_cast<const char*>(glewGetErrorString(status)));
    }
    // glewInit's probing can leave GL_INVALID_ENUM behind in core profiles.
    while (glGetError() != GL_NO_ERROR) {
    }
    if (!glCreateShader || !glBindFramebuffer || !glBeginQuery || !glDrawArraysInstanced ||
        !glGetString(GL_VERSION)) {
        throw Error("glccl::loadGlFunctions(): no current OpenGL context, or its core entry points are missing");
    }
}

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
    GLint mask = 0;
    if (info.major > 3 || (info.major == 3 && info.minor >= 2)) glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &mask);
    info.coreProfile = (mask & GL_CONTEXT_CORE_PROFILE_BIT) != 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &info.maxTextureSize);
    return info;
}

struct HeadlessContext::Impl {
    EGLDisplay display = EGL_NO_DISPLAY;
    EGLContext context = EGL_NO_CONTEXT;
    std::string platform;
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

    // Tries every EGL device, then Mesa surfaceless; keeps the first display
    // that initialises and gives a context of the requested version.
    void open(const Options& options) {
        std::string failures;
        const char* clientExtensions = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
        auto getPlatformDisplay = eglProc<PFNEGLGETPLATFORMDISPLAYEXTPROC>("eglGetPlatformDisplayEXT");
        if (!getPlatformDisplay) throw Error("glccl::HeadlessContext: EGL has no eglGetPlatformDisplayEXT");

        if (hasExtension(clientExtensions, "EGL_EXT_platform_device")) {
            auto queryDevices = eglProc<PFNEGLQUERYDEVICESEXTPROC>("eglQueryDevicesEXT");
            EGLint count = 0;
            if (queryDevices && queryDevices(0, nullptr, &count) && count > 0) {
                std::vector<EGLDeviceEXT> devices(count);
                queryDevices(count, devices.data(), &count);
                for (EGLint i = 0; i < count; ++i) {
                    EGLDisplay candidate = getPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
                    if (tryDisplay(candidate, options, "EGL device", failures)) return;
                }
            }
        }
        if (hasExtension(clientExtensions, "EGL_MESA_platform_surfaceless")) {
            EGLDisplay candidate = getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
            if (tryDisplay(candidate, options, "Mesa surfaceless", failures)) return;
        }
        throw Error("glccl::HeadlessContext: no EGL display gives an OpenGL " + std::to_string(options.major) + "." +
                    std::to_string(options.minor) + " core context" + (failures.empty() ? "" : ": " + failures));
    }

    bool tryDisplay(EGLDisplay candidate, const Options& options, const char* name, std::string& failures) {
        if (candidate == EGL_NO_DISPLAY) return false;
        EGLint major = 0, minor = 0;
        if (!eglInitialize(candidate, &major, &minor)) {
            failures += std::string(name) + ": " + eglFailure("eglInitialize") + "; ";
            return false;
        }
        ++displayUsers()[candidate];
        const char* extensions = eglQueryString(candidate, EGL_EXTENSIONS);
        if (!hasExtension(extensions, "EGL_KHR_surfaceless_context") || !eglBindAPI(EGL_OPENGL_API)) {
            failures += std::string(name) + ": no surfaceless OpenGL; ";
            releaseDisplay(candidate);
            return false;
        }
        const EGLint configAttributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
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
        const EGLint contextAttributes[] = {EGL_CONTEXT_MAJOR_VERSION, options.major,
                                            EGL_CONTEXT_MINOR_VERSION, options.minor,
                                            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                            EGL_CONTEXT_OPENGL_DEBUG, options.debug ? EGL_TRUE : EGL_FALSE,
                                            EGL_NONE};
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
        platform = name;
        return true;
    }
};

HeadlessContext::HeadlessContext() : HeadlessContext(Options{}) {}

HeadlessContext::HeadlessContext(const Options& options) : impl_(std::make_unique<Impl>()) {
    impl_->open(options);
    loadGlFunctions();
    impl_->info = currentContextInfo();
    if (options.debug) installDebugMessageHandler();
}

HeadlessContext::~HeadlessContext() = default;

void HeadlessContext::makeCurrent() {
    if (!eglMakeCurrent(impl_->display, EGL_NO_SURFACE, EGL_NO_SURFACE, impl_->context))
        throw Error("glccl::HeadlessContext::makeCurrent(): " + eglFailure("eglMakeCurrent"));
}

const ContextInfo& HeadlessContext::info() const { return impl_->info; }
const std::string& HeadlessContext::platform() const { return impl_->platform; }

}  // namespace glccl

// OpenGL and EGL found at run time. glccl links no GL library: the cpu
// engine and everything around it start on a machine that has none, and the
// GL engines open the system's libraries the first time a context is used.
// Under libglvnd (every current Linux driver) libOpenGL.so.0 exports each
// core function as a dispatcher into the driver of whichever context is
// current, EGL or GLX, so one set of pointers serves every context.
// Under Emscripten the context is WebGL2 and its functions are Emscripten's
// bindings, found by name; there is no EGL and no desktop-only function.

#ifdef __EMSCRIPTEN__
#include <emscripten/html5_webgl.h>
#else
#include <dlfcn.h>
#endif

#include <mutex>
#include <string>

#include "egl.hpp"
#include "gl.hpp"
#include "glccl/context.hpp"
#include "glccl/error.hpp"

namespace glccl {

#define GLCCL_DEFINE_ENTRY_POINT(type, name) type name = nullptr;
inline namespace gl_functions {
GLCCL_GL_ENTRY_POINTS(GLCCL_DEFINE_ENTRY_POINT)
}  // namespace gl_functions
GLCCL_EGL_ENTRY_POINTS(GLCCL_DEFINE_ENTRY_POINT)
#undef GLCCL_DEFINE_ENTRY_POINT

namespace {

#ifdef __EMSCRIPTEN__
bool glRuntimeFound() { return true; }

void* findGlFunction(const char* name) { return emscripten_webgl_get_proc_address(name); }
#else
// A library opened once for the life of the process (never closed: drivers
// do not survive being unloaded), or why it could not be.
struct Library {
    void* handle = nullptr;
    std::string why;
};

Library openFirst(std::initializer_list<const char*> names) {
    Library library;
    for (const char* name : names) {
        library.handle = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
        if (library.handle) return library;
        const char* error = dlerror();
        library.why += (library.why.empty() ? "" : "; ") + std::string(error ? error : name);
    }
    return library;
}

const Library& eglLibrary() {
    static const Library library = openFirst({"libEGL.so.1"});
    return library;
}

// The GL functions: libOpenGL.so.0 (libglvnd's core profile library), else
// a libGL.so.1 that exports them itself.
const Library& glLibrary() {
    static const Library library = openFirst({"libOpenGL.so.0", "libGL.so.1"});
    return library;
}

using GetProcAddress = void* (*)(const char*);

// glXGetProcAddressARB, for contexts made through GLX; null where there is no GLX.
GetProcAddress glxGetProcAddress() {
    static const GetProcAddress address = [] {
        const Library glx = openFirst({"libGLX.so.0", "libGL.so.1"});
        return glx.handle ? reinterpret_cast<GetProcAddress>(dlsym(glx.handle, "glXGetProcAddressARB")) : nullptr;
    }();
    return address;
}

void* findGlFunction(const char* name) {
    if (void* found = glLibrary().handle ? dlsym(glLibrary().handle, name) : nullptr) return found;
    const bool eglCurrent = loadEgl() && eglGetCurrentContext() != EGL_NO_CONTEXT;
    if (eglCurrent) {
        if (void* found = reinterpret_cast<void*>(eglGetProcAddress(name))) return found;
    }
    if (GetProcAddress glx = glxGetProcAddress()) {
        if (void* found = glx(name)) return found;
    }
    return !eglCurrent && loadEgl() ? reinterpret_cast<void*>(eglGetProcAddress(name)) : nullptr;
}

bool glRuntimeFound() { return glLibrary().handle != nullptr; }
#endif

}  // namespace

bool loadEgl(std::string* why) {
#ifdef __EMSCRIPTEN__
    if (why) *why = "a browser has no EGL";
    return false;
#else
    static std::once_flag once;
    static bool loaded = false;
    std::call_once(once, [] {
        void* handle = eglLibrary().handle;
        if (!handle) return;
        bool all = true;
#define GLCCL_LOAD_EGL(type, name)                                   \
    name = reinterpret_cast<type>(dlsym(handle, #name));             \
    all = all && name != nullptr;
        GLCCL_EGL_ENTRY_POINTS(GLCCL_LOAD_EGL)
#undef GLCCL_LOAD_EGL
        loaded = all;
    });
    if (!loaded && why) {
        *why = eglLibrary().handle ? "libEGL.so.1 lacks EGL 1.4's functions" : eglLibrary().why;
    }
    return loaded;
#endif
}


void loadGlFunctions() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (!glRuntimeFound()) return;
#define GLCCL_LOAD_GL(type, name) name = reinterpret_cast<type>(findGlFunction(#name));
        GLCCL_GL_ENTRY_POINTS(GLCCL_LOAD_GL)
#undef GLCCL_LOAD_GL
    });
    const std::string missing = gl::runtimeMissing();
    if (!missing.empty()) throw Error("glccl::loadGlFunctions(): " + missing);
    if (!glGetString || !glCreateShader || !glBindFramebuffer || !glBeginQuery || !glDrawArraysInstanced)
        throw Error("glccl::loadGlFunctions(): the OpenGL library lacks core entry points glccl needs");
#ifdef __EMSCRIPTEN__
    // Emscripten's bindings call into a WebGL context that must exist.
    if (emscripten_webgl_get_current_context() == 0)
        throw Error("glccl::loadGlFunctions(): no WebGL context is current on this thread");
#endif
    if (glGetString(GL_VERSION) == nullptr)
        throw Error("glccl::loadGlFunctions(): no OpenGL context is current on this thread");
    // A context made elsewhere may hold an error from the host's own calls;
    // glccl's checks start from none.
    while (glGetError() != GL_NO_ERROR) {
    }
}

void releaseCurrentContext() {
    if (!loadEgl()) return;
    EGLDisplay display = eglGetCurrentDisplay();
    if (display != EGL_NO_DISPLAY) eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

namespace gl {

void* procAddress(const char* name) { return findGlFunction(name); }

std::string runtimeMissing() {
#ifdef __EMSCRIPTEN__
    return {};
#else
    if (glLibrary().handle) return {};
    return "no OpenGL runtime was found on this machine (" + glLibrary().why + "); the cpu engine runs without one";
#endif
}

}  // namespace gl

}  // namespace glccl

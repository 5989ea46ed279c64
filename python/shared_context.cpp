// One headless GL context per process. It is created on first use and
// deliberately never destroyed: NVIDIA's EGL tears itself down at process
// exit before static destructors run, so a destructor that released the
// context then would crash the interpreter on exit.

#include "shared_context.hpp"

#include "interruptible.hpp"

#include <EGL/egl.h>

#include <mutex>

#include "glccl/backend.hpp"
#include "glccl/error.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/route.hpp"

namespace glccl::python {

namespace {

struct Shared {
    std::mutex mutex;
    OffscreenLabeler* offscreen = nullptr;  // leaked on purpose (see top)
};

Shared& shared() {
    static Shared* instance = new Shared;  // leaked: no destructor at exit
    return *instance;
}

// Releases the context from this thread: EGL refuses to make a context
// current on one thread while it is current on another.
void releaseCurrentContext() {
    EGLDisplay display = eglGetCurrentDisplay();
    if (display != EGL_NO_DISPLAY) eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

// Leaves no context current on this thread when the scope ends, errors included.
struct ReleaseOnExit {
    ~ReleaseOnExit() { releaseCurrentContext(); }
};

// The labeler, created on the first call. Where no headless context can be
// made (no EGL at all) it labels on the host (cpu, and auto for it) and
// says why the GL backends cannot run. Call with the mutex held.
OffscreenLabeler& offscreenLocked(Shared& s) {
    if (!s.offscreen) {
        ReleaseOnExit release;
        s.offscreen = new OffscreenLabeler({}, OffscreenLabeler::NoContext::LabelOnHost);
    }
    return *s.offscreen;
}

}  // namespace

Backend labelHostImage(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                       std::vector<Component>& components, const std::string& where) {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    OffscreenLabeler& offscreen = offscreenLocked(s);
    ReleaseOnExit release;
    // A labeling in pieces stops when its call is abandoned (Ctrl-C).
    offscreen.setTiledProgress([](const TiledProgress&) { return !callAbandoned(); });
    try {
        offscreen.label(image, options, labels, components);
    } catch (const Error& error) {
        throw Error(where + ": " + error.what());
    }
    return offscreen.backend();
}

std::vector<BackendRow> backendRows() {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    OffscreenLabeler& offscreen = offscreenLocked(s);
    const ContextInfo* context = offscreen.hasContext() ? &offscreen.context().info() : nullptr;
    std::vector<BackendRow> rows{{backendName(Backend::Auto), ""}};
    for (Backend b : concreteBackends())
        rows.push_back({backendName(b), capabilitiesOf(b, context, offscreen.whyNoContext()).whyNotHere});
    return rows;
}

}  // namespace glccl::python

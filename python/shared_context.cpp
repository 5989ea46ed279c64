// One headless GL context per process. It is created on first use and
// deliberately never destroyed: NVIDIA's EGL tears itself down at process
// exit before static destructors run, so a destructor that released the
// context then would crash the interpreter on exit.

#include "shared_context.hpp"

#include "interruptible.hpp"

#include <EGL/egl.h>
#include <pthread.h>

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
    // This process was forked from one that had made the context: the copy
    // of it here belongs to the parent's driver, whose threads the child
    // lacks, and a GL call could wait for ever. The child labels on the host.
    bool forkedFromContext = false;
};

Shared*& sharedInstance() {
    static Shared* instance = nullptr;
    return instance;
}

constexpr const char* kForkedWhy =
    "this process was forked from one that had made glccl's GL context, which a child cannot use; label "
    "with backend='cpu' here, or start processes with multiprocessing's 'spawn' or 'forkserver' method";

// Leaked: no destructor at exit. A child forked from the process gets a
// Shared of its own: the parent's mutex may be held for ever in its copy,
// and its context is not the child's to use.
Shared& shared() {
    static std::once_flag once;
    std::call_once(once, [] {
        sharedInstance() = new Shared;
        pthread_atfork(nullptr, nullptr, [] {
            const Shared* parent = sharedInstance();
            auto* child = new Shared;
            child->forkedFromContext = parent->offscreen != nullptr || parent->forkedFromContext;
            sharedInstance() = child;
        });
    });
    return *sharedInstance();
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
// made (no EGL at all), or in a child forked from a process that had made
// one, it labels on the host (cpu, and auto for it) and says why the GL
// backends cannot run. Call with the mutex held.
OffscreenLabeler& offscreenLocked(Shared& s) {
    if (!s.offscreen && s.forkedFromContext) s.offscreen = OffscreenLabeler::hostOnly(kForkedWhy).release();
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

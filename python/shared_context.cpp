// One headless GL context per process. It is created on first use and
// deliberately never destroyed: NVIDIA's EGL tears itself down at process
// exit before static destructors run, so a destructor that released the
// context then would crash the interpreter on exit.

#include "shared_context.hpp"

#include <EGL/egl.h>

#include <algorithm>
#include <mutex>
#include <utility>

#include "glccl/backend.hpp"
#include "glccl/error.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/reference.hpp"

namespace glccl::python {

namespace {

struct Shared {
    std::mutex mutex;
    OffscreenLabeler* offscreen = nullptr;  // leaked on purpose (see top)
    bool tried = false;
    std::string whyNoContext;
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

// The labeler, created on the first call; nullptr with whyNoContext set when
// no headless context can be made (no EGL at all). Call with the mutex held.
OffscreenLabeler* offscreenLocked(Shared& s) {
    if (!s.tried) {
        s.tried = true;
        ReleaseOnExit release;
        try {
            s.offscreen = new OffscreenLabeler();
        } catch (const Error& error) {
            s.whyNoContext = std::string("no headless GL context: ") + error.what();
        }
    }
    return s.offscreen;
}

// The reference labeler into `labels` and `components`.
void labelOnHost(const ImageView& view, const LabelOptions& options, std::uint32_t* labels,
                 std::vector<Component>& components) {
    Image image;
    image.width = view.width;
    image.height = view.height;
    image.channels = view.channels;
    image.sampleBits = view.sampleBits;
    image.pixels.assign(view.pixels, view.pixels + view.byteCount());
    Labeling fresh = labelReference(image, options.connectivity, options.criterion);
    std::copy(fresh.labels.begin(), fresh.labels.end(), labels);
    components = std::move(fresh.components);
}

}  // namespace

Backend labelHostImage(const ImageView& image, const LabelOptions& options, std::uint32_t* labels,
                       std::vector<Component>& components, const std::string& where) {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    OffscreenLabeler* offscreen = offscreenLocked(s);
    if (!offscreen) {
        if (options.backend != Backend::Auto && options.backend != Backend::Cpu)
            throw Error(where + ": backend " + backendName(options.backend) + " cannot run: " + s.whyNoContext);
        labelOnHost(image, options, labels, components);
        return Backend::Cpu;
    }
    if (resolveBackend(options.backend, offscreen->context().info()) == Backend::Cpu) {
        labelOnHost(image, options, labels, components);
        return Backend::Cpu;
    }
    ReleaseOnExit release;
    offscreen->label(image, options, labels, components);
    return offscreen->backend();
}

std::vector<BackendRow> backendRows() {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    OffscreenLabeler* offscreen = offscreenLocked(s);
    std::vector<Backend> all{Backend::Auto};
    for (Backend b : concreteBackends()) all.push_back(b);
    std::vector<BackendRow> rows;
    for (Backend b : all) {
        std::string whyNot;
        if (offscreen) whyNot = whyUnavailable(b, offscreen->context().info());
        else if (b != Backend::Auto && b != Backend::Cpu) whyNot = s.whyNoContext;
        rows.push_back({backendName(b), whyNot});
    }
    return rows;
}

}  // namespace glccl::python

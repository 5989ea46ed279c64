// One Session per process and GL context (desktop, and ES where asked for).
// Each is created on first use and deliberately never destroyed: NVIDIA's
// EGL tears itself down at process exit before static destructors run, so a
// destructor that released a Session's context then would crash the
// interpreter on exit.

#include "shared_context.hpp"

#include "interruptible.hpp"

#include <pthread.h>

#include <mutex>

#include "glccl/backend.hpp"
#include "glccl/context.hpp"
#include "glccl/error.hpp"
#include "glccl/route.hpp"
#include "glccl/session.hpp"

namespace glccl::python {

namespace {

struct Shared {
    std::mutex mutex;
    Session* session = nullptr;    // desktop context; leaked on purpose (see top)
    Session* esSession = nullptr;  // OpenGL ES context; leaked too
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
            const auto madeContext = [](const Session* session) { return session && session->hasContext(); };
            child->forkedFromContext =
                madeContext(parent->session) || madeContext(parent->esSession) || parent->forkedFromContext;
            sharedInstance() = child;
        });
    });
    return *sharedInstance();
}

// Leaves no context current on this thread when the scope ends, errors included.
struct ReleaseOnExit {
    ~ReleaseOnExit() { releaseCurrentContext(); }
};

// The Session of `gl`, created on its first call. In a child forked from a
// process that had made a GL context it never makes one: it labels with the
// engines that need none, and says why the GL backends cannot run. Call with
// the mutex held.
Session& sessionLocked(Shared& s, GlContext gl) {
    Session*& session = gl == GlContext::Es ? s.esSession : s.session;
    if (!session) {
        Session::Options options;
        if (gl == GlContext::Es) {
            // 3.0 is what the raster engine needs; EGL gives the newest ES
            // that keeps 3.0's features.
            options.context.es = true;
            options.context.major = 3;
            options.context.minor = 0;
        }
        if (s.forkedFromContext) options.noContext = kForkedWhy;
        session = new Session(options);
    }
    return *session;
}

// A GL engine's route in pieces goes to the tiles, whose workers make
// desktop contexts of their own: in the ES Session it is refused rather
// than labeled in a context the call did not ask for.
void checkOnePiece(GlContext gl, const Route& route) {
    if (gl != GlContext::Es || !piecesMakeDesktopContexts(route)) return;
    throw Error(std::string("gl='es' labels in one piece, and this image goes to the ") + backendName(route.backend) +
                " backend in pieces (past one call's texture size or memory), whose GL workers make desktop "
                "contexts: label it with gl='desktop'");
}

}  // namespace

Backend labelHostImage(const ImageView& image, const LabelOptions& options, GlContext gl, std::uint32_t* labels,
                       std::vector<Component>& components, const std::string& where) {
    return labelHostImage(image, options, gl, labels, components, where, nullptr);
}

Backend labelHostImage(const ImageView& image, const LabelOptions& options, GlContext gl, std::uint32_t* labels,
                       std::vector<Component>& components, const std::string& where,
                       const std::function<void(Session&, const Route&)>& then) {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    Session& session = sessionLocked(s, gl);
    ReleaseOnExit release;
    // A labeling stops when its call is abandoned (Ctrl-C): in pieces
    // between rounds of tiles, the cpu engine between its stripes.
    LabelOptions stoppable = options;
    stoppable.cancelled = [] { return callAbandoned(); };
    try {
        const Route route = session.route(image, stoppable);
        checkOnePiece(gl, route);
        session.label(image, route, stoppable, labels, components);
        if (then) then(session, route);
    } catch (const Error& error) {
        throw Error(where + ": " + userMessage(error.what()));
    }
    return session.backend();
}

std::vector<BackendReport> backendReports(GlContext gl) {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    Session& session = sessionLocked(s, gl);
    ReleaseOnExit release;
    return describeBackends(session);
}

bool cudaRuns() { return capabilitiesOf(Backend::Cuda, nullptr).whyNotHere.empty(); }

}  // namespace glccl::python

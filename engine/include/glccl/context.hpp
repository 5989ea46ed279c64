#pragma once
// OpenGL contexts for glccl: a headless EGL context for programs without a
// window, and the loading of GL entry points in any current context.

#include <memory>
#include <string>

namespace glccl {

// What the current context is.
struct ContextInfo {
    std::string vendor, renderer, version;
    int major = 0, minor = 0;
    bool coreProfile = false;
    int maxTextureSize = 0;
};

// Loads the GL entry points for the context current on this thread (GLEW).
// Call once per context before using glccl in a context the host made.
// Throws glccl::Error when no context is current or loading fails.
//
// Debian's GLEW is built for GLX. Under an EGL context glewInit() returns
// GLEW_ERROR_NO_GLX_DISPLAY although every GL entry point was loaded (GLEW
// only failed to query GLX extensions). That one code is accepted, and only
// after checking that the core entry points glccl needs are present; every
// other GLEW error is reported.
void loadGlFunctions();

// Describes the current context; requires loadGlFunctions() first.
ContextInfo currentContextInfo();

// An OpenGL core-profile context with no surface, through EGL: the EGL device
// platform first (finds NVIDIA GPUs on headless machines), then Mesa's
// surfaceless platform (llvmpipe where there is no GPU). Made current on
// construction, on the constructing thread. Not copyable or movable.
class HeadlessContext {
public:
    struct Options {
        int major = 4;       // requested core-profile version
        int minor = 5;
        bool debug = false;  // a debug context (KHR_debug messages become errors)
    };

    HeadlessContext();
    explicit HeadlessContext(const Options& options);
    ~HeadlessContext();
    HeadlessContext(const HeadlessContext&) = delete;
    HeadlessContext& operator=(const HeadlessContext&) = delete;

    void makeCurrent();
    const ContextInfo& info() const;
    // "EGL device" or "Mesa surfaceless", for logs.
    const std::string& platform() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace glccl

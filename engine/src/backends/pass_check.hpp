#pragma once
// The per-pass GL error check every GL engine's passes share.

namespace glccl::backends {

// glFinish and glGetError after every pass, so that an error names its
// stage: on in debug builds, off in release builds (a pipeline's options
// can switch it).
#ifdef NDEBUG
constexpr bool kCheckEachPass = false;
#else
constexpr bool kCheckEachPass = true;
#endif

// With `enabled`: waits for the pass and throws glccl::Error naming the
// engine's stage and the GL error, if any.
void checkPass(bool enabled, const char* engine, const char* stage);

}  // namespace glccl::backends

#pragma once
// EGL for the headless context, resolved at run time from libEGL.so.1 as
// gl.hpp's entry points are: the header gives types and numbers only.
#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <string>

// Every EGL 1.x function glccl calls (extensions come through
// eglGetProcAddress where they are used).
#define GLCCL_EGL_ENTRY_POINTS(X)                        \
    X(PFNEGLBINDAPIPROC, eglBindAPI)                     \
    X(PFNEGLCHOOSECONFIGPROC, eglChooseConfig)           \
    X(PFNEGLCREATECONTEXTPROC, eglCreateContext)         \
    X(PFNEGLDESTROYCONTEXTPROC, eglDestroyContext)       \
    X(PFNEGLGETCURRENTCONTEXTPROC, eglGetCurrentContext) \
    X(PFNEGLGETCURRENTDISPLAYPROC, eglGetCurrentDisplay) \
    X(PFNEGLGETERRORPROC, eglGetError)                   \
    X(PFNEGLGETPROCADDRESSPROC, eglGetProcAddress)       \
    X(PFNEGLINITIALIZEPROC, eglInitialize)               \
    X(PFNEGLMAKECURRENTPROC, eglMakeCurrent)             \
    X(PFNEGLQUERYSTRINGPROC, eglQueryString)             \
    X(PFNEGLTERMINATEPROC, eglTerminate)

namespace glccl {

#define GLCCL_DECLARE_EGL_ENTRY_POINT(type, name) extern type name;
GLCCL_EGL_ENTRY_POINTS(GLCCL_DECLARE_EGL_ENTRY_POINT)
#undef GLCCL_DECLARE_EGL_ENTRY_POINT

// Opens libEGL.so.1 and resolves the functions above, once per process.
// False, with `why` saying what the loader said, where there is no EGL.
bool loadEgl(std::string* why = nullptr);

}  // namespace glccl

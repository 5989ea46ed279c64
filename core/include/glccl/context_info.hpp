#pragma once
// What the router knows of a GL context, GL-free: the context a GL engine
// labels in (ContextInfo, glccl/context.hpp's currentContextInfo()) and the
// headless context asked of a place (HeadlessContext, glccl/context.hpp).

#include <string>

namespace glccl {

// What the current context is.
struct ContextInfo {
    std::string vendor, renderer, version;
    int major = 0, minor = 0;  // of OpenGL, or of OpenGL ES where `es`
    bool coreProfile = false;
    bool es = false;  // an OpenGL ES context (GL_VERSION "OpenGL ES ...")
    // Float color targets and blending on them, which the raster engine
    // renders its IDs and table into: core in desktop OpenGL 3.0, in ES the
    // extensions EXT_color_buffer_float and EXT_float_blend (WebGL2 offers
    // both on most browsers).
    bool floatTargets = false;
    bool floatBlend = false;
    // imageAtomicMin on r32ui images, which the compute engine's forests
    // take: core in desktop OpenGL 4.2 and OpenGL ES 3.2, in ES 3.1 the
    // extension OES_shader_image_atomic.
    bool imageAtomics = false;
    // Where compute shaders run (desktop 4.3, ES 3.1): the largest work
    // group (GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, the smallest of its
    // GL_MAX_COMPUTE_WORK_GROUP_SIZE x and y) and its shared memory
    // (GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, bytes); 0 elsewhere. Desktop 4.3
    // guarantees 1024 and 32 KiB, which the compute engine's passes take;
    // ES 3.1 only 128 and 16 KiB.
    int computeGroupThreads = 0;
    int computeSharedBytes = 0;
    int maxTextureSize = 0;
    int max3DTextureSize = 0;  // GL_MAX_3D_TEXTURE_SIZE: the largest side of a volume
    // Filled by HeadlessContext only (-1 elsewhere): the EGL device it runs
    // on (an index into headlessDevices()) and that device's CUDA ordinal
    // where the driver tells it (EGL_NV_device_cuda).
    int eglDevice = -1;
    int cudaDevice = -1;
};

// The headless context asked for (HeadlessContext::Options).
struct HeadlessContextOptions {
    int major = 4;       // requested core-profile version (OpenGL ES version where `es`)
    int minor = 5;
    // An OpenGL ES context (EGL_OPENGL_ES_API) instead of desktop core
    // profile: what phones and WebGL2 offer, for the raster engine.
    bool es = false;
    bool debug = false;  // a debug context (KHR_debug messages become errors)
    // -1: the first EGL device that gives a context, else Mesa
    // surfaceless. 0, 1, ...: that device of headlessDevices() only, with
    // no fallback (an error where EGL lists no such device).
    int device = -1;
};

}  // namespace glccl

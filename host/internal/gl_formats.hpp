#pragma once
// The numbers of the GL internal formats that glccl's textures have, as the
// OpenGL registry assigns them, for the code that describes a texture
// without calling GL (the router, the engines' declarations): it needs no
// GL header, and a build without OpenGL has none. Where a GL header came
// first, its definitions stand (they are the same numbers).

#ifndef GL_RGB8
#define GL_RGB8 0x8051
#endif
#ifndef GL_RGBA8
#define GL_RGBA8 0x8058
#endif
#ifndef GL_RGBA16
#define GL_RGBA16 0x805B
#endif
#ifndef GL_R8
#define GL_R8 0x8229
#endif
#ifndef GL_R16
#define GL_R16 0x822A
#endif
#ifndef GL_R32F
#define GL_R32F 0x822E
#endif
#ifndef GL_R8UI
#define GL_R8UI 0x8232
#endif
#ifndef GL_R16UI
#define GL_R16UI 0x8234
#endif
#ifndef GL_R32UI
#define GL_R32UI 0x8236
#endif
#ifndef GL_RG32UI
#define GL_RG32UI 0x823C
#endif

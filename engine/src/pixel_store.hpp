#pragma once
// Every pixel-store parameter (glPixelStorei), pack and unpack, with the GL's
// initial value. A host's row length or skipped rows would shift every
// upload and download that does not set them itself, so both state guards
// (state_guard.hpp, gl_objects.hpp) save all of them and set their own.

#include <array>

#include "gl.hpp"

namespace glccl::gl {

struct PixelStore {
    GLenum name;
    GLint initial;
};

inline constexpr std::array<PixelStore, 16> kPixelStores = {{
    {GL_PACK_SWAP_BYTES, GL_FALSE},   {GL_PACK_LSB_FIRST, GL_FALSE},  {GL_PACK_ROW_LENGTH, 0},
    {GL_PACK_IMAGE_HEIGHT, 0},        {GL_PACK_SKIP_ROWS, 0},         {GL_PACK_SKIP_PIXELS, 0},
    {GL_PACK_SKIP_IMAGES, 0},         {GL_PACK_ALIGNMENT, 4},         {GL_UNPACK_SWAP_BYTES, GL_FALSE},
    {GL_UNPACK_LSB_FIRST, GL_FALSE},  {GL_UNPACK_ROW_LENGTH, 0},      {GL_UNPACK_IMAGE_HEIGHT, 0},
    {GL_UNPACK_SKIP_ROWS, 0},         {GL_UNPACK_SKIP_PIXELS, 0},     {GL_UNPACK_SKIP_IMAGES, 0},
    {GL_UNPACK_ALIGNMENT, 4},
}};

}  // namespace glccl::gl

#pragma once
// The one check of a read() rectangle, shared by the ImageSources.

#include <cstdint>

#include "glccl/image_source.hpp"

namespace glccl::detail {

// Whether the rectangle is nonempty and inside the source (a volume's rows
// are its lines, z * height + y).
bool insideSource(const ImageSource& source, std::uint32_t x0, std::uint32_t y0, std::uint32_t width,
                  std::uint32_t height);

// Throws glccl::Error ("WHERE the rectangle WxH at (x0, y0) is not inside
// the WxH image") unless the rectangle is nonempty and inside the source.
void checkSourceRectangle(const char* where, const ImageSource& source, std::uint32_t x0, std::uint32_t y0,
                          std::uint32_t width, std::uint32_t height);

}  // namespace glccl::detail

#pragma once
// A PNG encoder without compression, for images too large for
// stb_image_write: its encoder keeps sizes in `int` and overflows past 2 GiB.
// The file is about as large as the pixels, but any PNG reader reads it.

#include <cstddef>
#include <cstdint>
#include <functional>

#include "glccl/types.hpp"

namespace glccl::detail {

// Receives the encoded bytes in order; may throw to abort the encoding.
using ByteSink = std::function<void(const std::uint8_t* data, std::size_t size)>;

// Encodes a valid 1- or 4-channel image (gray or RGBA, 8 bits) as a PNG with
// filter type 0 and stored deflate blocks, streaming it through `sink` in
// chunks of at most about 1 MiB. Memory use does not grow with the image.
void encodePngStored(const Image& image, const ByteSink& sink);

}  // namespace glccl::detail

#pragma once
// Reading images (stb_image, hardened) and writing results.

#include <cstdint>
#include <string>

#include "glccl/types.hpp"

namespace glccl {

// Largest width or height accepted by readImage (also STBI_MAX_DIMENSIONS),
// and the largest pixel count.
constexpr int kMaxImageDimension = 32768;
constexpr std::uint64_t kMaxImagePixels = std::uint64_t(32768) * 32768;

enum class ChannelMode {
    Gray,     // 1 channel; color is reduced to luma as stb does (like OpenCV's IMREAD_GRAYSCALE)
    Natural,  // 1 channel for gray / gray+alpha files, 4 (RGBA, alpha 255 if absent) for color
};

// PNG, BMP, TGA, PGM/PPM, JPEG. Checks dimensions with stbi_info before
// decoding. Throws glccl::Error: unreadable file, unsupported format (GIF,
// HDR, PSD, PIC are disabled), corrupt data, zero or oversized dimensions.
Image readImage(const std::string& path, ChannelMode mode = ChannelMode::Natural);

// Refuses to overwrite an existing file unless overwrite is true; throws
// glccl::Error when the file exists or cannot be written.
void writePng(const std::string& path, const Image& image, bool overwrite);
// Labels as a colored PNG: background black, each label a distinct stable color.
Image colorizeLabels(const Labeling& labeling);
void writeStatsCsv(const std::string& path, const Labeling& labeling, bool overwrite);    // label,left,top,...

// NumPy .npy files (format 1.0, C order), as numpy.load reads them. The
// writers refuse to overwrite as writePng does.
//   labels: dtype '<u4', shape (height, width)
//   images: dtype '|u1', shape (height, width) for 1 channel, else
//           (height, width, channels)
void writeLabelsNpy(const std::string& path, const Labeling& labeling, bool overwrite);
void writeImageNpy(const std::string& path, const Image& image, bool overwrite);
// Reads what writeLabelsNpy writes: the labels, width and height of the
// returned Labeling; its table is left empty (computeComponents gives it for
// canonical labels). Throws glccl::Error: unreadable file, not an .npy file,
// another dtype than '<u4', Fortran order, a shape other than (height,
// width) with sides 1..kMaxImageDimension, or a data size that does not
// match.
Labeling readLabelsNpy(const std::string& path);

// A stable, well-spread color for a label (label 0 is black).
void labelColor(std::uint32_t label, std::uint8_t rgb[3]);

}  // namespace glccl

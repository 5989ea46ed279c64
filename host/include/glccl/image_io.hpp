#pragma once
// Reading images (libpng, libjpeg-turbo, libtiff, and hand-written PGM/PPM
// and NumPy .npy parsers) and writing results (PNG through libpng, TIFF
// through libtiff, .npy, CSV). Every writer fills a temporary file beside
// its target and gives it the target's name only once complete.

#include <cstddef>
#include <cstdint>
#include <string>

#include "glccl/types.hpp"

namespace glccl {

// Largest width or height readImage accepts, and the largest pixel count.
constexpr int kMaxImageDimension = 32768;
constexpr std::uint64_t kMaxImagePixels = std::uint64_t(32768) * 32768;

enum class ChannelMode {
    // 1 channel; a color file becomes luma as OpenCV's IMREAD_GRAYSCALE makes
    // it (docs/formats.md gives the formula per format).
    Gray,
    // 1 channel for gray / gray+alpha files, 4 (RGBA, opaque alpha when the
    // file has none) for color files.
    Natural,
};

// Which axis of a 3-D .npy array holds channels. None, scikit-image's and
// scipy's convention: a 3-D array is a volume (depth, height, width). Last (Python's
// channel_axis=-1, the command line's --channel-axis -1): a 3-D array is a
// 2-D image (height, width, 1|3|4), and a 2-D array is refused. PNG, JPEG,
// TIFF and PNM files say their channels themselves and ignore it.
enum class NpyChannelAxis { None, Last };

// The slices of a TIFF or BigTIFF file: its full-resolution pages (a
// reduced-resolution page, a thumbnail or pyramid level, is no slice). More
// than one: readImage reads the file as a volume. Reads the page headers
// only. Throws glccl::Error ("glccl::countTiffSlices(): 'PATH': why") for a
// file libtiff cannot open.
std::size_t countTiffSlices(const std::string& path);

// Reads a PNG, JPEG, TIFF (classic and BigTIFF), binary PGM/PPM (P5/P6) or
// NumPy .npy image, chosen by the file's first bytes, at the sampleBits of its
// samples: 8-bit files give sampleBits 8; 16-bit PNG, TIFF and PGM/PPM and uint16
// .npy give sampleBits 16; 32-bit TIFF and int32, uint32 and float32 .npy give
// sampleBits 32; int64, uint64 and float64 .npy give sampleBits 64 (.npy in
// either byte order). Nothing is reduced: a value the Image cannot hold exactly is an
// error. Throws glccl::Error ("glccl::readImage(): 'PATH': why") for an
// unreadable, truncated or corrupt file, an unsupported format or variant, a
// size of 0 or beyond kMaxImageDimension, or a claimed size the file's data
// or the machine's memory cannot hold (refused before it is allocated).
// Thread-safe (each call has its own decoder state). Cost: one pass over the
// file; memory: the Image plus a strip, row or chunk of the decoder.
Image readImage(const std::string& path, ChannelMode mode = ChannelMode::Natural,
                NpyChannelAxis channelAxis = NpyChannelAxis::None);

// The same decoders on `size` bytes at `data`; `name` stands for the file in
// messages ("glccl::readImageFromMemory(): 'NAME': why").
Image readImageFromMemory(const void* data, std::size_t size, const std::string& name,
                          ChannelMode mode = ChannelMode::Natural, NpyChannelAxis channelAxis = NpyChannelAxis::None);

// A PNG of `image`: gray (1 channel) or RGBA (4), 8 or 16 bits per sample,
// compressed by libpng at any size. Refuses to overwrite an existing file
// unless overwrite is true; throws glccl::Error when the file exists, cannot
// be written, or the image is invalid or 32-bit (PNG holds at most 16 bits).
void writePng(const std::string& path, const Image& image, bool overwrite);
// Labels as a colored picture: background black, each label a distinct
// stable color. Of a volume: its middle slices xy (z = depth / 2), xz
// (y = height / 2) and zy (x = width / 2) side by side, 4 gray columns apart.
Image colorizeLabels(const Labeling& labeling);
// The table as CSV: label,left,top,width,height,area,centroid_x,centroid_y;
// of a volume label,left,top,front,width,height,depth,area,centroid_x,
// centroid_y,centroid_z.
void writeStatsCsv(const std::string& path, const Labeling& labeling, bool overwrite);
// Its header line and one row of it, for writers that place the rows
// themselves (tiles, MPI); a volume's adds front, depth and centroid_z.
extern const char kStatsCsvHeader[];
void appendStatsCsvRow(std::string& text, std::uint64_t label, const Component& component);
extern const char kVolumeStatsCsvHeader[];
void appendVolumeStatsCsvRow(std::string& text, std::uint64_t label, const Component& component);

// The label array as an image other programs open (napari, Fiji, QuPath):
//   Png16:  a 16-bit gray PNG; labels above 65535 are an error, never wrapped
//   Tiff32: a 32-bit unsigned gray TIFF (BigTIFF past 2 GiB), Deflate-compressed;
//           of a volume a stack, a page a slice (Fiji, napari)
//   Auto:   Png16 when the largest label is at most 65535, else Tiff32;
//           Tiff32 for a volume (Png16 is refused for one)
enum class LabelImageFormat { Auto, Png16, Tiff32 };
// The format Auto stands for with these labels, or `requested` itself;
// throws glccl::Error for Png16 when a label exceeds 65535 (before anything
// is written).
LabelImageFormat resolveLabelImageFormat(const Labeling& labeling, LabelImageFormat requested);
// Writes the labels in `format` (Auto resolved as above) to `path`, all or
// nothing, refusing to overwrite unless overwrite is true.
void writeLabelImage(const std::string& path, const Labeling& labeling, LabelImageFormat format, bool overwrite);

// NumPy .npy files (format 1.0, C order), as numpy.load reads them. The
// writers refuse to overwrite as writePng does.
//   labels: dtype '<u4', shape (height, width), or (depth, height, width)
//           for a volume
//   images: dtype '|u1', '<u2', '<u4' or '<u8' by sampleBits, shape (height, width) for
//           1 channel, else (height, width, channels)
void writeLabelsNpy(const std::string& path, const Labeling& labeling, bool overwrite);
void writeImageNpy(const std::string& path, const Image& image, bool overwrite);
// Reads what writeLabelsNpy writes: the labels and shape of the returned
// Labeling; its table is left empty (computeComponents gives it for
// canonical labels). Throws glccl::Error: unreadable file, not an .npy file,
// another dtype than '<u4', Fortran order, a shape other than (height,
// width) or (depth, height, width) with sides 1..kMaxImageDimension (a
// volume at most kMaxImagePixels), or a data size that does not match.
Labeling readLabelsNpy(const std::string& path);

// A stable, well-spread color for a label (label 0 is black).
void labelColor(std::uint32_t label, std::uint8_t rgb[3]);

}  // namespace glccl

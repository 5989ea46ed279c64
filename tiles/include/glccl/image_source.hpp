#pragma once
// Where tiled labeling reads pixels from: any rectangle of an image that need
// not be whole in host memory: an image in memory, a memory-mapped .npy, a
// TIFF/BigTIFF decoded strip by strip or tile by tile (libtiff). read() of a
// rectangle and, for a file larger than memory, release() of the rows
// already labeled.

#include <cstdint>
#include <memory>
#include <string>

#include "glccl/image_io.hpp"
#include "glccl/tile_plan.hpp"
#include "glccl/types.hpp"

namespace glccl {

class ImageSource {
public:
    virtual ~ImageSource() = default;
    virtual std::uint32_t width() const = 0;
    virtual std::uint32_t height() const = 0;
    virtual int channels() const = 0;  // 1, or 4 (RGBA) for the threshold criterion
    virtual int sampleBits() const = 0;     // bits of a sample: 8, 16, 32 or 64 (glccl::Image::sampleBits)
    // A volume's slices and dimensions 3; an image's 1 and 2.
    virtual std::uint32_t depth() const { return 1; }
    virtual int dimensions() const { return 2; }
    // Copies the rectangle into `pixels`: width x height pixels, rows
    // packed, channels() samples of sampleBits() bits each (an Image's
    // layout). Called from several threads at once: implementations are
    // thread-safe. Throws glccl::Error for a rectangle outside the image or a
    // value an Image cannot hold exactly.
    virtual void readInto(std::uint32_t x0, std::uint32_t y0, std::uint32_t width, std::uint32_t height,
                          std::uint8_t* pixels) const = 0;
    // The same into `out`, sized to the rectangle; its storage is reused, so
    // a buffer read into tile after tile is allocated (and its pages first
    // touched) once.
    void read(std::uint32_t x0, std::uint32_t y0, std::uint32_t width, std::uint32_t height, Image& out) const;
    // The pixels of a tile, or the voxels of a brick of a volume (an Image of
    // the brick's Shape::volume, each slice read into place as a rectangle
    // of lines), into `out` as read() does. Thread-safe as readInto().
    void readBrick(const TileRect& brick, Image& out) const;
    // Lines [y0, y1) (rows; z * height + y in a volume) will not be read again: a mapped file gives their pages
    // back, so a pass over the image keeps only a band resident.
    virtual void release(std::uint32_t y0, std::uint32_t y1) const { (void)y0, (void)y1; }
    // Lines [y0, y1) will be read soon: a mapped file starts reading their
    // pages from disk in the background, in file order, so that the reads of
    // tiles and bricks (a piece of each line, which the kernel's own
    // read-ahead does not foresee) find them in memory.
    virtual void prefetch(std::uint32_t y0, std::uint32_t y1) const { (void)y0, (void)y1; }
    // Host memory (bytes) the source itself holds while a band of `rows`
    // rows is read, before its release(): decoded strips or tiles of a TIFF,
    // the mapped pages of an .npy (resident in the process while mapped);
    // 0 for an image in memory. For the memory model that sizes tiles.
    virtual std::uint64_t bandBytes(std::uint32_t rows) const { (void)rows; return 0; }
    // "uint8 .npy (memory-mapped)", "image in memory", for summaries.
    virtual std::string describe() const = 0;
};

// An image already in host memory (not copied: it must outlive the source).
class ImageMemorySource : public ImageSource {
public:
    // An image or a volume.
    explicit ImageMemorySource(const Image& image);
    // Pixels the caller owns (OffscreenLabeler's images past one call).
    explicit ImageMemorySource(const ImageView& image);
    std::uint32_t width() const override;
    std::uint32_t height() const override;
    std::uint32_t depth() const override;
    int dimensions() const override;
    int channels() const override;
    int sampleBits() const override;
    // A rectangle of an image, or of the lines of a volume (z * height + y).
    void readInto(std::uint32_t x0, std::uint32_t y0, std::uint32_t width, std::uint32_t height,
                  std::uint8_t* pixels) const override;
    std::string describe() const override { return "image in memory"; }

private:
    ImageView image_;
};

// A NumPy .npy file read through a memory map: only the rows being labeled
// are resident. The files and values glccl::readImage takes, at the same
// depths, so tiled and one-piece labeling see the same pixels: bool, int8
// and uint8 (sampleBits 8), int16 and uint16 (16), int32, uint32 and float32
// (32), int64, uint64 and float64 (64), values whole and in 0..2^bits-1
// (never rounded), either byte order, C or Fortran order; shape
// (height, width), or (height, width, 1|3|4) for the threshold criterion
// with `channelAxis` Last (3 channels read as RGBA with an opaque alpha); a
// 3-D array without it is a volume (depth, height, width), read with
// `volumes` Read (binary and segments, C or Fortran order, the source's
// lines z * height + y) and refused otherwise. Sides up to 2^31 - 1,
// beyond readImage's 32768. Throws glccl::Error ("glccl::NpyImageSource:
// 'PATH' ...") for anything else, a bad value when its rows are read.
enum class NpyVolumes { Refuse, Read };
class NpyImageSource : public ImageSource {
public:
    NpyImageSource(const std::string& path, ChannelMode mode, NpyChannelAxis channelAxis = NpyChannelAxis::None,
                   NpyVolumes volumes = NpyVolumes::Refuse);
    ~NpyImageSource() override;
    NpyImageSource(const NpyImageSource&) = delete;
    NpyImageSource& operator=(const NpyImageSource&) = delete;

    std::uint32_t width() const override;
    std::uint32_t height() const override;
    std::uint32_t depth() const override;
    int dimensions() const override;
    int channels() const override;
    int sampleBits() const override;
    // A rectangle of an image, or of the lines of a volume (z * height + y).
    void readInto(std::uint32_t x0, std::uint32_t y0, std::uint32_t width, std::uint32_t height,
                  std::uint8_t* pixels) const override;
    void release(std::uint32_t y0, std::uint32_t y1) const override;
    void prefetch(std::uint32_t y0, std::uint32_t y1) const override;
    std::uint64_t bandBytes(std::uint32_t rows) const override;
    std::string describe() const override;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// A TIFF or BigTIFF file, read strip by strip or tile by tile through
// libtiff: only the strips or tiles under the rows being labeled are
// decoded and held (each once, shared by the tiles that need it, dropped on
// release()), so host memory is bounded by a band, not the image. A file of
// several full-resolution pages is a stack, a volume of a page a slice (its
// lines z * height + y, as a 3-D .npy's): a layer of bricks reads its range
// of pages. The files and samples glccl::readImage takes (8- and 16-bit
// gray, 32-bit gray, RGB/RGBA read as readImage reads them in `mode`;
// uncompressed, LZW, Deflate, PackBits, ZSTD; a stack's pages of one size
// and type), with sides up to 2^31 - 1, a stack of up to 2^32 - 1 rows in
// all, and strips or tiles of at most 256 MiB decoded each
// (detail::kMaxStrileBytes). The pages are found in one walk over the
// file's directories, each header checked as it is reached. Thread-safe: up
// to one libtiff handle per reading thread. Throws glccl::Error
// ("glccl::TiffImageSource: 'PATH': TIFF: ...") for a file readImage would
// refuse (truncated, corrupt, unsupported, pages that differ) and for
// strips too large; a strip or tile that fails to decode fails the read()
// that needs it.
class TiffImageSource : public ImageSource {
public:
    TiffImageSource(const std::string& path, ChannelMode mode);
    ~TiffImageSource() override;
    TiffImageSource(const TiffImageSource&) = delete;
    TiffImageSource& operator=(const TiffImageSource&) = delete;

    std::uint32_t width() const override;
    std::uint32_t height() const override;
    std::uint32_t depth() const override;  // pages: 1 for an image
    int dimensions() const override;       // 3 for a stack
    int channels() const override;
    int sampleBits() const override;
    // A rectangle of an image, or of the lines of a stack (z * height + y).
    void readInto(std::uint32_t x0, std::uint32_t y0, std::uint32_t width, std::uint32_t height,
                  std::uint8_t* pixels) const override;
    void release(std::uint32_t y0, std::uint32_t y1) const override;
    std::uint64_t bandBytes(std::uint32_t rows) const override;
    std::string describe() const override;  // "tiled BigTIFF (256x256 tiles, none), read strip by strip..."

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Is `path` a TIFF or BigTIFF file (by its first bytes)?
bool isTiffFile(const std::string& path);

// The sides of a .npy image from its header alone (nothing mapped or read),
// for deciding whether an input needs tiles. Throws glccl::Error as
// NpyImageSource does for a file that is not a .npy image.
struct NpyShape {
    std::uint64_t width = 0, height = 0, channels = 1;
    int sampleBits = 8;
    std::uint64_t depth = 1;  // slices of a volume (NpyVolumes::Read)
    int dimensions = 2;
};
NpyShape peekNpyShape(const std::string& path, NpyChannelAxis channelAxis = NpyChannelAxis::None,
                      NpyVolumes volumes = NpyVolumes::Refuse);

// Is `path` a NumPy file (by its magic bytes)?
bool isNpyFile(const std::string& path);

// The source for an input file: a memory-mapped NpyImageSource for .npy (a
// 3-D array without a named channel axis read as a volume), a
// TiffImageSource for TIFF and BigTIFF (a stack read as a volume), else the
// whole image read by glccl::readImage into memory (held by the returned
// source).
std::unique_ptr<ImageSource> openImageSource(const std::string& path, ChannelMode mode,
                                             NpyChannelAxis channelAxis = NpyChannelAxis::None);

}  // namespace glccl

#include "glccl/image_source.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "glccl/error.hpp"
#include "npy_format.hpp"
#include "source_rectangle.hpp"
#include "small_helpers.hpp"

namespace glccl {

namespace {


std::string sizeText(std::uint64_t width, std::uint64_t height) {
    return std::to_string(width) + "x" + std::to_string(height);
}

using detail::NpyDtype;
using detail::NpyHeader;
using detail::NpyKind;
using detail::kNpyMagic;
using detail::kNpyMagicSize;

// The header of the .npy file open at `descriptor` (host/src/npy_format.hpp),
// read by offset: the descriptor's position is left alone.
NpyHeader readNpyHeader(int descriptor, const std::string& path, const std::string& where) {
    return detail::readNpyHeader(
        [descriptor](void* out, std::size_t size, std::uint64_t offset) {
            const ssize_t got = ::pread(descriptor, out, size, off_t(offset));
            return got < 0 ? std::size_t(0) : std::size_t(got);
        },
        [&](const std::string& why) { return Error(where + inQuotes(path) + " " + why); });
}

}  // namespace

// What an .npy image header says, checked. Outside the unnamed namespace, as
// the type of a member of NpyImageSource::Impl (external linkage).
struct NpyLayout {
    NpyHeader header;
    const NpyDtype* dtype = nullptr;
    std::uint64_t width = 0, height = 0, planes = 1;
    std::uint64_t depth = 1;  // slices of a volume
    bool volume = false;
    bool fortran = false;
    std::uint64_t lines() const { return height * depth; }
    std::string size() const {
        return sizeText(width, height) + (volume ? "x" + std::to_string(depth) : "");
    }
};

namespace {

NpyLayout checkedLayout(int descriptor, const std::string& path, const std::string& where,
                        NpyChannelAxis channelAxis, NpyVolumes volumes) {
    const auto fail = [&](const std::string& why) { return Error(where + inQuotes(path) + " " + why); };
    NpyLayout layout;
    layout.header = readNpyHeader(descriptor, path, where);
    const NpyHeader& npy = layout.header;
    layout.dtype = detail::findNpyImageDtype(npy.descr);
    if (layout.dtype == nullptr)
        throw fail("holds " + (npy.descr.empty() ? std::string("no dtype") : npy.descr) +
                   "; .npy images are bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32 or "
                   "float64 (either byte order)");
    std::vector<std::uint64_t> sides;
    if (!detail::parseNpySides(npy.shape, sides)) sides.clear();
    // Sides fit an int (glccl::Image) and their product 63 bits.
    constexpr std::uint64_t kMaxSide = 0x7FFFFFFF;
    if (sides.size() == 3 && channelAxis == NpyChannelAxis::None && volumes == NpyVolumes::Read) {
        layout.volume = true;
        layout.depth = sides[0];
        layout.height = sides[1];
        layout.width = sides[2];
        if (layout.width == 0 || layout.lines() == 0) throw fail("has no voxels (" + layout.size() + ")");
        // The source's lines (z * height + y) are counted in 32 bits.
        if (layout.width > kMaxSide || layout.lines() > 0xFFFFFFFFu)
            throw fail("is " + layout.size() + "; bricks take volumes of width and height x depth up to " +
                       std::to_string(kMaxSide) + " and 2^32 - 1");
    } else {
        const std::string shapeProblem =
            detail::npyImageShapeProblem(sides, npy.shape, channelAxis, volumes == NpyVolumes::Read);
        if (!shapeProblem.empty()) throw fail("holds an array of " + shapeProblem);
        layout.height = sides[0];
        layout.width = sides[1];
        layout.planes = sides.size() == 3 ? sides[2] : 1;
        if (layout.width == 0 || layout.height == 0) throw fail("has no pixels (" + sizeText(layout.width, layout.height) + ")");
        if (layout.width > kMaxSide || layout.height > kMaxSide)
            throw fail("is " + sizeText(layout.width, layout.height) + "; tiled labeling takes sides up to " +
                       std::to_string(kMaxSide));
    }
    if (npy.fortranOrder != "False" && npy.fortranOrder != "True") throw fail("has no fortran_order in its header");
    layout.fortran = npy.fortranOrder == "True";
    return layout;
}

class FileDescriptor {
public:
    FileDescriptor(const std::string& path, const std::string& where) {
        errno = 0;
        descriptor_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (descriptor_ < 0) throw Error(where + "cannot open " + inQuotes(path) + ": " + std::strerror(errno));
    }
    ~FileDescriptor() {
        if (descriptor_ >= 0) ::close(descriptor_);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return descriptor_; }

private:
    int descriptor_ = -1;
};

// An image read whole into memory by glccl::readImage (PNG, JPEG, PGM/PPM).
class OwnedImageSource : public ImageSource {
public:
    explicit OwnedImageSource(Image image) : image_(std::move(image)), view_(image_) {}
    std::uint32_t width() const override { return view_.width(); }
    std::uint32_t height() const override { return view_.height(); }
    std::uint32_t depth() const override { return view_.depth(); }
    int dimensions() const override { return view_.dimensions(); }
    int channels() const override { return view_.channels(); }
    int sampleBits() const override { return view_.sampleBits(); }
    void readInto(std::uint32_t x0, std::uint32_t y0, std::uint32_t width, std::uint32_t height,
                  std::uint8_t* pixels) const override {
        view_.readInto(x0, y0, width, height, pixels);
    }
    std::string describe() const override { return "image file read into memory"; }

private:
    Image image_;
    ImageMemorySource view_;
};

}  // namespace

bool detail::insideSource(const ImageSource& source, std::uint32_t x0, std::uint32_t y0, std::uint32_t width,
                          std::uint32_t height) {
    const std::uint64_t lines = std::uint64_t(source.height()) * source.depth();
    return width != 0 && height != 0 && x0 < source.width() && y0 < lines && width <= source.width() - x0 &&
           height <= lines - y0;
}

void detail::checkSourceRectangle(const char* where, const ImageSource& source, std::uint32_t x0, std::uint32_t y0,
                                  std::uint32_t width, std::uint32_t height) {
    const std::uint64_t lines = std::uint64_t(source.height()) * source.depth();
    if (!insideSource(source, x0, y0, width, height))
        throw Error(std::string(where) + "the rectangle " + sizeText(width, height) + " at (" + std::to_string(x0) +
                    ", " + std::to_string(y0) + ") is not inside the " + sizeText(source.width(), lines) +
                    (source.dimensions() == 3 ? " lines of the volume" : " image"));
}

// ---------------------------------------------------------------- memory

ImageMemorySource::ImageMemorySource(const ImageView& image) : image_(image) {
    const bool consistent = image.width > 0 && image.height > 0 && image.depth > 0 && image.pixels != nullptr &&
                            (image.dimensions == 3 || image.depth == 1) &&
                            (image.channels == 1 || image.channels == 4) &&
                            Image::isSampleBits(image.sampleBits);
    if (!consistent)
        throw Error("glccl::ImageMemorySource: the image is " + std::to_string(image.width) + "x" +
                    std::to_string(image.height) + "x" + std::to_string(image.channels) + " of " +
                    std::to_string(image.sampleBits) + " bits; expected a nonempty 1- or 4-channel image of 8, 16, "
                    "32 or 64 bits");
}

ImageMemorySource::ImageMemorySource(const Image& image) : image_(image) {
    if (!image.isConsistent())
        throw Error("glccl::ImageMemorySource: the image is " + std::to_string(image.width) + "x" +
                    std::to_string(image.height) + "x" + std::to_string(image.channels) + " of " +
                    std::to_string(image.sampleBits) + " bits with " + std::to_string(image.pixels.size()) +
                    " bytes; expected a nonempty 1- or 4-channel image of 8, 16, 32 or 64 bits");
}

std::uint32_t ImageMemorySource::width() const { return std::uint32_t(image_.width); }
std::uint32_t ImageMemorySource::height() const { return std::uint32_t(image_.height); }
std::uint32_t ImageMemorySource::depth() const { return std::uint32_t(image_.depth); }
int ImageMemorySource::dimensions() const { return image_.dimensions; }
int ImageMemorySource::channels() const { return image_.channels; }
int ImageMemorySource::sampleBits() const { return image_.sampleBits; }

namespace {

// `out` as an image or volume of `shape`, its pixel storage reused: every
// byte is overwritten by the read that follows.
void reshape(Image& out, const Shape& shape, int channels, int sampleBits) {
    out.width = int(shape.width);
    out.height = int(shape.height);
    out.depth = int(shape.depth);
    out.dimensions = shape.dimensions;
    out.channels = channels;
    out.sampleBits = sampleBits;
    out.pixels.resize(Image::byteCount(shape, channels, sampleBits));
}

}  // namespace

void ImageSource::read(std::uint32_t x0, std::uint32_t y0, std::uint32_t width, std::uint32_t height,
                       Image& out) const {
    // A rectangle outside the source is refused by readInto(), in the
    // source's own words, before `out` is sized for it.
    if (!detail::insideSource(*this, x0, y0, width, height)) return readInto(x0, y0, width, height, nullptr);
    reshape(out, Shape::image(width, height), channels(), sampleBits());
    readInto(x0, y0, width, height, out.pixels.data());
}

void ImageSource::readBrick(const TileRect& brick, Image& out) const {
    if (dimensions() != 3) {
        if (brick.z0 != 0 || brick.depth != 1)
            throw Error("glccl::ImageSource::readBrick(): " + describe() + " is a 2-D image, not a volume with a brick "
                        "at z " + std::to_string(brick.z0) + " of depth " + std::to_string(brick.depth));
        read(brick.x0, brick.y0, brick.width, brick.height, out);
        return;
    }
    if (brick.depth == 0 || brick.z0 >= depth() || brick.depth > depth() - brick.z0 || brick.height > height() ||
        brick.y0 > height() - brick.height)
        throw Error("glccl::ImageSource::readBrick(): the brick of " + std::to_string(brick.height) + " rows at y " +
                    std::to_string(brick.y0) + " and " + std::to_string(brick.depth) + " slices at z " +
                    std::to_string(brick.z0) + " is not inside the " + std::to_string(width()) + "x" +
                    std::to_string(height()) + "x" + std::to_string(depth()) + " volume");
    reshape(out, Shape::volume(brick.width, brick.height, brick.depth), channels(), sampleBits());
    const std::size_t sliceBytes = out.pixels.size() / brick.depth;
    for (std::uint32_t z = 0; z < brick.depth; ++z)
        readInto(brick.x0, (brick.z0 + z) * height() + brick.y0, brick.width, brick.height,
                 out.pixels.data() + z * sliceBytes);
}

void ImageMemorySource::readInto(std::uint32_t x0, std::uint32_t y0, std::uint32_t width, std::uint32_t height,
                                 std::uint8_t* pixels) const {
    detail::checkSourceRectangle("glccl::ImageMemorySource::read(): ", *this, x0, y0, width, height);
    const std::size_t pixelBytes = std::size_t(image_.channels) * std::size_t(image_.sampleBits / 8);
    const std::size_t rowBytes = std::size_t(width) * pixelBytes;
    for (std::uint32_t y = 0; y < height; ++y)
        std::memcpy(pixels + std::size_t(y) * rowBytes,
                    image_.pixels + ((std::size_t(y0) + y) * std::size_t(image_.width) + x0) * pixelBytes,
                    rowBytes);
}

// ---------------------------------------------------------------- .npy

struct NpyImageSource::Impl {
    std::string path;
    NpyLayout layout;
    int channels = 1;
    const std::uint8_t* map = nullptr;
    std::size_t mapBytes = 0;
    std::size_t pageBytes = 4096;

    ~Impl() {
        if (map != nullptr) ::munmap(const_cast<std::uint8_t*>(map), mapBytes);
    }

    // Element i (C or Fortran index) as a sample, or an error naming it when
    // it is no unsigned integer of the dtype's sampleBits (as glccl::readImage
    // refuses it). `line` is the source's line: y of an image, z * height + y
    // of a volume, whose position the message gives as [z, y, x].
    std::uint64_t sampleAt(std::uint64_t i, std::uint64_t line, std::uint64_t x, std::uint64_t c) const {
        const std::uint8_t* p = map + layout.header.dataOffset + i * layout.dtype->size;
        std::uint64_t value = 0;
        const bool exact = detail::npyElementValue(p, *layout.dtype, value);
        if (!exact) {
            const std::string position =
                layout.volume ? std::to_string(line / layout.height) + ", " + std::to_string(line % layout.height)
                              : std::to_string(line);
            throw Error("glccl::NpyImageSource: " + inQuotes(path) + " holds the value " +
                        detail::npyElementText(p, *layout.dtype) + " at [" + position +
                        ", " + std::to_string(x) + (layout.planes > 1 ? ", " + std::to_string(c) : "") +
                        "], which is not an unsigned integer in 0.." +
                        std::to_string(Image::largestSample(layout.dtype->sampleBits)) +
                        " (signed, fractional and non-finite values are never rounded)");
        }
        return value;
    }
};

NpyImageSource::NpyImageSource(const std::string& path, ChannelMode mode, NpyChannelAxis channelAxis,
                               NpyVolumes volumes)
    : impl_(std::make_unique<Impl>()) {
    const std::string where = "glccl::NpyImageSource: ";
    const auto fail = [&](const std::string& why) { return Error(where + inQuotes(path) + " " + why); };
    impl_->path = path;
    const FileDescriptor file(path, where);
    impl_->layout = checkedLayout(file.get(), path, where, channelAxis, volumes);
    const NpyLayout& layout = impl_->layout;
    if (layout.planes > 1 && mode == ChannelMode::Gray)
        throw fail("holds " + std::to_string(layout.planes) +
                   " channels; binary and segments take a (height, width) array");
    impl_->channels = layout.planes == 1 ? 1 : 4;

    // The whole file must be the header and exactly the promised elements.
    struct stat status {};
    if (::fstat(file.get(), &status) != 0) throw fail(std::string("cannot be sized: ") + std::strerror(errno));
    const std::uint64_t fileSize = std::uint64_t(status.st_size);
    const std::uint64_t expected =
        layout.header.dataOffset + layout.width * layout.lines() * layout.planes * layout.dtype->size;
    if (fileSize < expected)
        throw fail("is truncated: its header promises " + layout.size() + " (" +
                   std::to_string(expected) + " bytes) but the file has " + std::to_string(fileSize) + " bytes");
    if (fileSize > expected) throw fail("has bytes after its " + layout.size() + " elements");

    // Read-only and shared: pages come from the page cache on first touch and
    // can be given back (release) without writing anything.
    void* map = ::mmap(nullptr, std::size_t(fileSize), PROT_READ, MAP_SHARED, file.get(), 0);
    if (map == MAP_FAILED) throw fail(std::string("cannot be mapped: ") + std::strerror(errno));
    impl_->map = static_cast<const std::uint8_t*>(map);
    impl_->mapBytes = std::size_t(fileSize);
    const long page = ::sysconf(_SC_PAGESIZE);
    if (page > 0) impl_->pageBytes = std::size_t(page);
}

NpyImageSource::~NpyImageSource() = default;

std::uint32_t NpyImageSource::width() const { return std::uint32_t(impl_->layout.width); }
std::uint32_t NpyImageSource::height() const { return std::uint32_t(impl_->layout.height); }
std::uint32_t NpyImageSource::depth() const { return std::uint32_t(impl_->layout.depth); }
int NpyImageSource::dimensions() const { return impl_->layout.volume ? 3 : 2; }
int NpyImageSource::channels() const { return impl_->channels; }
int NpyImageSource::sampleBits() const { return impl_->layout.dtype->sampleBits; }

std::string NpyImageSource::describe() const {
    const NpyDtype& dtype = *impl_->layout.dtype;
    return detail::npyTypeName(dtype) + (dtype.bigEndian ? " (big-endian)" : "") +
           (impl_->layout.volume ? " .npy volume" : " .npy") + ", memory-mapped" +
           (impl_->layout.fortran ? ", Fortran order" : "");
}

void NpyImageSource::readInto(std::uint32_t x0, std::uint32_t y0, std::uint32_t width, std::uint32_t height,
                              std::uint8_t* pixels) const {
    detail::checkSourceRectangle("glccl::NpyImageSource::read(): ", *this, x0, y0, width, height);
    const Impl& impl = *impl_;
    const NpyLayout& layout = impl.layout;
    const NpyDtype& dtype = *layout.dtype;
    const std::uint64_t planes = layout.planes;

    // Little-endian unsigned gray samples in C order are the Image's own
    // bytes: rows are copied as they lie. Bool is 0 or 1 in a byte.
    if (planes == 1 && !layout.fortran && !dtype.bigEndian &&
        (dtype.kind == NpyKind::Unsigned || dtype.kind == NpyKind::Bool)) {
        const std::size_t rowBytes = std::size_t(width) * dtype.size;
        for (std::uint32_t y = 0; y < height; ++y)
            std::memcpy(pixels + std::size_t(y) * rowBytes,
                        impl.map + layout.header.dataOffset + ((std::uint64_t(y0) + y) * layout.width + x0) * dtype.size,
                        rowBytes);
        return;
    }
    // Samples as an Image holds them: little-endian, sampleBits / 8 bytes.
    const std::size_t sampleBytes = std::size_t(dtype.sampleBits / 8);
    const auto store = [&](std::size_t pixel, std::uint64_t c, std::uint64_t value) {
        std::uint8_t* p = pixels + (pixel * std::size_t(impl.channels) + std::size_t(c)) * sampleBytes;
        for (std::size_t b = 0; b < sampleBytes; ++b) p[b] = std::uint8_t(value >> (8 * b));
    };
    const std::uint64_t imageWidth = layout.width, imageHeight = layout.height;
    for (std::uint32_t y = 0; y < height; ++y) {
        const std::uint64_t row = std::uint64_t(y0) + y;
        for (std::uint32_t x = 0; x < width; ++x) {
            const std::uint64_t column = std::uint64_t(x0) + x;
            const std::size_t pixel = std::size_t(y) * width + x;
            for (std::uint64_t c = 0; c < planes; ++c) {
                // A volume's Fortran order runs z fastest: (z, y, x) at
                // z + depth * (y + height * x), where the line is z * height + y.
                const std::uint64_t i =
                    !layout.fortran ? (row * imageWidth + column) * planes + c
                    : layout.volume ? row / imageHeight + layout.depth * (row % imageHeight + imageHeight * column)
                                    : row + imageHeight * (column + imageWidth * c);
                store(pixel, c, impl.sampleAt(i, row, column, c));
            }
            if (planes == 3) store(pixel, 3, Image::largestSample(dtype.sampleBits));  // opaque: never separates pixels
        }
    }
}

namespace {

// The bytes of the mapped file that hold lines [y0, y1) of a C-order array:
// whole pages inside them (`inner`: a page shared with the lines around is
// left out) or every page they touch.
std::pair<std::uint64_t, std::uint64_t> linePages(const NpyLayout& layout, std::uint64_t pageBytes, std::uint32_t y0,
                                                  std::uint32_t y1, bool inner) {
    const std::uint64_t rowBytes = layout.width * layout.planes * layout.dtype->size;
    const std::uint64_t begin = layout.header.dataOffset + std::uint64_t(y0) * rowBytes;
    const std::uint64_t end = layout.header.dataOffset + std::uint64_t(y1) * rowBytes;
    if (inner) return {(begin + pageBytes - 1) / pageBytes * pageBytes, end / pageBytes * pageBytes};
    return {begin / pageBytes * pageBytes, (end + pageBytes - 1) / pageBytes * pageBytes};
}

}  // namespace

void NpyImageSource::release(std::uint32_t y0, std::uint32_t y1) const {
    const Impl& impl = *impl_;
    // Rows are contiguous only in C order; a Fortran-order file keeps what
    // it has touched mapped (the kernel still reclaims clean pages under
    // pressure).
    if (impl.layout.fortran || y1 <= y0) return;
    // Whole pages inside the rows only: a page shared with the next band
    // stays mapped.
    const auto [begin, end] = linePages(impl.layout, impl.pageBytes, y0, y1, true);
    if (end > begin)
        ::madvise(const_cast<std::uint8_t*>(impl.map) + begin, std::size_t(end - begin), MADV_DONTNEED);
}

void NpyImageSource::prefetch(std::uint32_t y0, std::uint32_t y1) const {
    const Impl& impl = *impl_;
    if (impl.layout.fortran || y1 <= y0) return;  // a Fortran-order band is scattered over the file
    const auto [begin, end] = linePages(impl.layout, impl.pageBytes, y0, y1, false);
    // A hint: where the kernel declines it, the reads fault the pages in as before.
    if (end > begin)
        ::madvise(const_cast<std::uint8_t*>(impl.map) + begin, std::size_t(end - begin), MADV_WILLNEED);
}

std::uint64_t NpyImageSource::bandBytes(std::uint32_t rows) const {
    const Impl& impl = *impl_;
    // A Fortran-order file keeps every page it has touched mapped.
    if (impl.layout.fortran) return impl.mapBytes;
    // The rows' pages and a page shared at either end.
    const std::uint64_t rowBytes = impl.layout.width * impl.layout.planes * impl.layout.dtype->size;
    return std::min<std::uint64_t>(impl.mapBytes, std::uint64_t(rows) * rowBytes + 2 * impl.pageBytes);
}

NpyShape peekNpyShape(const std::string& path, NpyChannelAxis channelAxis, NpyVolumes volumes) {
    const std::string where = "glccl::peekNpyShape(): ";
    const FileDescriptor file(path, where);
    const NpyLayout layout = checkedLayout(file.get(), path, where, channelAxis, volumes);
    return {layout.width, layout.height, layout.planes, layout.dtype->sampleBits, layout.depth, layout.volume ? 3 : 2};
}

bool isNpyFile(const std::string& path) {
    const int descriptor = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return false;
    char magic[kNpyMagicSize] = {};
    const bool npy = ::pread(descriptor, magic, kNpyMagicSize, 0) == ssize_t(kNpyMagicSize) &&
                     std::memcmp(magic, kNpyMagic, kNpyMagicSize) == 0;
    ::close(descriptor);
    return npy;
}

std::unique_ptr<ImageSource> openImageSource(const std::string& path, ChannelMode mode, NpyChannelAxis channelAxis) {
    if (isNpyFile(path)) return std::make_unique<NpyImageSource>(path, mode, channelAxis, NpyVolumes::Read);
    if (isTiffFile(path)) return std::make_unique<TiffImageSource>(path, mode);
    return std::make_unique<OwnedImageSource>(readImage(path, mode, channelAxis));
}

}  // namespace glccl

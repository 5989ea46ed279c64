// TIFF and BigTIFF input for tiled labeling, out of core: rectangles are cut
// from decoded strips or tiles of the file (host/src/read_tiff.cpp's
// TiffStrileReader, libtiff), each decoded once and kept until the rows it
// covers are released:
//
//      file strips (or tiles)          tiles being labeled (one band)
//      +---------------------+         +-------+-------+-------+
//      |      strip k        |  --->   | tile  | tile  | tile  |   each tile copies
//      |      strip k+1      |  --->   |       |       |       |   its columns out of
//      +---------------------+         +-------+-------+-------+   the cached strips
//
// So a strip is decoded once however many tiles cross it, and host memory
// holds one band of decoded strips (plus the strips that straddle its lower
// edge), never the image. A stack is a volume whose lines are z * height + y:
// a layer of bricks reads a range of pages, and holds their strips.

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/image_source.hpp"
#include "image_decoders.hpp"
#include "source_rectangle.hpp"

namespace glccl {

// One decoded strip or tile. Its mutex makes the first reader decode it and
// the others wait for it. Outside the unnamed namespace, as a member's type
// of TiffImageSource::Impl (external linkage).
struct DecodedStrile {
    std::mutex mutex;
    bool ready = false;
    Image pixels;
};

namespace {

// A strip or tile by page, strile row and strile column: ordered as the
// lines they cover, so the ones above a line come first.
using StrileKey = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;

}  // namespace

struct TiffImageSource::Impl {
    std::uint32_t width = 0, height = 0, pages = 1;
    int channels = 1, sampleBits = 8;
    std::vector<std::uint32_t> strileWidths, strileHeights;  // per page
    std::uint64_t pageBytes = 0;  // the decoded striles of the largest page, rounded up to whole striles
    std::string layout;           // the reader's describe()

    // Readers not in use; a thread that finds none opens one (so there are
    // at most as many as threads that read at once).
    mutable std::mutex readersMutex;
    mutable std::vector<std::unique_ptr<detail::TiffStrileReader>> idleReaders;
    std::unique_ptr<detail::TiffStrileReader> first;  // the walk's reader: others are made from it

    mutable std::mutex cacheMutex;
    mutable std::map<StrileKey, std::shared_ptr<DecodedStrile>> cache;

    std::unique_ptr<detail::TiffStrileReader> takeReader() const {
        const std::lock_guard<std::mutex> lock(readersMutex);
        if (!idleReaders.empty()) {
            std::unique_ptr<detail::TiffStrileReader> reader = std::move(idleReaders.back());
            idleReaders.pop_back();
            return reader;
        }
        return first->another();
    }

    void giveBack(std::unique_ptr<detail::TiffStrileReader> reader) const {
        const std::lock_guard<std::mutex> lock(readersMutex);
        idleReaders.push_back(std::move(reader));
    }

    std::shared_ptr<DecodedStrile> decoded(std::uint32_t page, std::uint32_t row, std::uint32_t column) const {
        std::shared_ptr<DecodedStrile> strile;
        {
            const std::lock_guard<std::mutex> lock(cacheMutex);
            std::shared_ptr<DecodedStrile>& slot = cache[StrileKey(page, row, column)];
            if (!slot) slot = std::make_shared<DecodedStrile>();
            strile = slot;
        }
        const std::lock_guard<std::mutex> lock(strile->mutex);
        if (!strile->ready) {
            std::unique_ptr<detail::TiffStrileReader> reader = takeReader();
            // A strip that fails to decode fails this read (and its reader
            // is dropped: libtiff's state after an error is not trusted).
            reader->read(page, column * strileWidths[page], row * strileHeights[page], strile->pixels);
            giveBack(std::move(reader));
            strile->ready = true;
        }
        return strile;
    }

    // Rows [y0, y1) of page `page` and columns [x0, x1) into `out`, whose
    // rows are `outWidth` pixels apart.
    void readPage(std::uint32_t page, std::uint32_t x0, std::uint32_t x1, std::uint32_t y0, std::uint32_t y1,
                  std::uint8_t* out, std::uint32_t outWidth) const {
        const std::size_t pixelBytes = std::size_t(channels) * std::size_t(sampleBits / 8);
        const std::uint32_t strileWidth = strileWidths[page], strileHeight = strileHeights[page];
        for (std::uint32_t row = y0 / strileHeight; row <= (y1 - 1) / strileHeight; ++row) {
            for (std::uint32_t column = x0 / strileWidth; column <= (x1 - 1) / strileWidth; ++column) {
                const std::shared_ptr<DecodedStrile> strile = decoded(page, row, column);
                const Image& pixels = strile->pixels;
                // The part of the strile inside the rectangle, in page coordinates.
                const std::uint32_t left = column * strileWidth, top = row * strileHeight;
                const std::uint32_t fromX = std::max(x0, left), toX = std::min(x1, left + std::uint32_t(pixels.width));
                const std::uint32_t fromY = std::max(y0, top), toY = std::min(y1, top + std::uint32_t(pixels.height));
                const std::size_t bytes = std::size_t(toX - fromX) * pixelBytes;
                for (std::uint32_t y = fromY; y < toY; ++y)
                    std::memcpy(out + (std::size_t(y - y0) * outWidth + (fromX - x0)) * pixelBytes,
                                pixels.pixels.data() +
                                    (std::size_t(y - top) * std::size_t(pixels.width) + (fromX - left)) * pixelBytes,
                                bytes);
            }
        }
    }
};

TiffImageSource::TiffImageSource(const std::string& path, ChannelMode mode) : impl_(std::make_unique<Impl>()) {
    Impl& impl = *impl_;
    impl.first = std::make_unique<detail::TiffStrileReader>("glccl::TiffImageSource: ", path, mode);
    const detail::TiffStrileReader& reader = *impl.first;
    impl.width = reader.width();
    impl.height = reader.height();
    impl.pages = reader.pages();
    impl.channels = reader.channels();
    impl.sampleBits = reader.sampleBits();
    impl.layout = reader.describe();
    const std::uint64_t pixelBytes = std::uint64_t(impl.channels) * std::uint64_t(impl.sampleBits / 8);
    for (std::uint32_t page = 0; page < impl.pages; ++page) {
        const std::uint64_t strileWidth = reader.strileWidth(page), strileHeight = reader.strileHeight(page);
        impl.strileWidths.push_back(std::uint32_t(strileWidth));
        impl.strileHeights.push_back(std::uint32_t(strileHeight));
        const std::uint64_t rows = (impl.height + strileHeight - 1) / strileHeight * strileHeight;
        const std::uint64_t columns = (impl.width + strileWidth - 1) / strileWidth * strileWidth;
        impl.pageBytes = std::max(impl.pageBytes, rows * columns * pixelBytes);
    }
}

TiffImageSource::~TiffImageSource() = default;

std::uint32_t TiffImageSource::width() const { return impl_->width; }
std::uint32_t TiffImageSource::height() const { return impl_->height; }
std::uint32_t TiffImageSource::depth() const { return impl_->pages; }
int TiffImageSource::dimensions() const { return impl_->pages > 1 ? 3 : 2; }
int TiffImageSource::channels() const { return impl_->channels; }
int TiffImageSource::sampleBits() const { return impl_->sampleBits; }

std::string TiffImageSource::describe() const {
    return impl_->layout + ", read " + (impl_->layout.rfind("tiled", 0) == 0 ? "tile by tile" : "strip by strip");
}

void TiffImageSource::readInto(std::uint32_t x0, std::uint32_t y0, std::uint32_t width, std::uint32_t height,
                               std::uint8_t* out) const {
    detail::checkSourceRectangle("glccl::TiffImageSource::read(): ", *this, x0, y0, width, height);
    const Impl& impl = *impl_;
    const std::size_t pixelBytes = std::size_t(impl.channels) * std::size_t(impl.sampleBits / 8);
    // The lines of a stack, page by page.
    const std::uint64_t end = std::uint64_t(y0) + height;
    for (std::uint64_t line = y0; line < end;) {
        const std::uint32_t page = std::uint32_t(line / impl.height);
        const std::uint32_t top = std::uint32_t(line % impl.height);
        const std::uint32_t rows = std::uint32_t(std::min<std::uint64_t>(impl.height - top, end - line));
        impl.readPage(page, x0, x0 + width, top, top + rows, out + std::size_t(line - y0) * width * pixelBytes, width);
        line += rows;
    }
}

void TiffImageSource::release(std::uint32_t, std::uint32_t y1) const {
    // Lines are released from the top: every strile that ends by line y1 goes.
    const Impl& impl = *impl_;
    const std::lock_guard<std::mutex> lock(impl.cacheMutex);
    for (auto it = impl.cache.begin(); it != impl.cache.end();) {
        const auto [page, row, column] = it->first;
        const std::uint64_t bottom = std::uint64_t(page) * impl.height +
                                     std::min<std::uint64_t>((std::uint64_t(row) + 1) * impl.strileHeights[page],
                                                             impl.height);
        if (bottom > y1) break;
        it = impl.cache.erase(it);
    }
}

std::uint64_t TiffImageSource::bandBytes(std::uint32_t rows) const {
    const Impl& impl = *impl_;
    if (impl.pages > 1) {
        // The pages a band of lines touches, and the one that straddles its
        // lower edge, each decoded whole.
        return ((std::uint64_t(rows) + impl.height - 1) / impl.height + 1) * impl.pageBytes;
    }
    // The band's striles, and those of the strile row that straddles its
    // lower edge (kept for the next band), each as wide as the image.
    const std::uint64_t strileHeight = impl.strileHeights.front(), strileWidth = impl.strileWidths.front();
    const std::uint64_t heldRows = (std::uint64_t(rows) + 2 * strileHeight - 1) / strileHeight * strileHeight;
    const std::uint64_t heldColumns = (std::uint64_t(impl.width) + strileWidth - 1) / strileWidth * strileWidth;
    return heldRows * heldColumns * std::uint64_t(impl.channels) * std::uint64_t(impl.sampleBits / 8);
}

bool isTiffFile(const std::string& path) {
    const int descriptor = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return false;
    unsigned char magic[4] = {};
    const bool read = ::pread(descriptor, magic, 4, 0) == 4;
    ::close(descriptor);
    if (!read) return false;
    const bool little = magic[0] == 'I' && magic[1] == 'I' && magic[3] == 0 && (magic[2] == 42 || magic[2] == 43);
    const bool big = magic[0] == 'M' && magic[1] == 'M' && magic[2] == 0 && (magic[3] == 42 || magic[3] == 43);
    return little || big;
}

}  // namespace glccl

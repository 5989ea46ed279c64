#include "png_stored.hpp"

#include <array>
#include <vector>

namespace glccl::detail {

namespace {

constexpr std::size_t kMaxStoredBlock = 65535;        // LEN of a stored deflate block is 16 bits
constexpr std::size_t kIdatChunkBytes = std::size_t(1) << 20;

std::array<std::uint32_t, 256> makeCrcTable() {
    std::array<std::uint32_t, 256> table{};
    for (std::uint32_t n = 0; n < 256; ++n) {
        std::uint32_t c = n;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[n] = c;
    }
    return table;
}

std::uint32_t crc32(std::uint32_t crc, const std::uint8_t* data, std::size_t size) {
    static const std::array<std::uint32_t, 256> table = makeCrcTable();
    crc = ~crc;
    for (std::size_t i = 0; i < size; ++i) crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

class Adler32 {
public:
    void update(const std::uint8_t* data, std::size_t size) {
        constexpr std::uint32_t kModulus = 65521;
        // 5552 bytes is the most that can be summed before b could overflow 32 bits.
        constexpr std::size_t kMaxRun = 5552;
        while (size > 0) {
            const std::size_t run = size < kMaxRun ? size : kMaxRun;
            for (std::size_t i = 0; i < run; ++i) {
                a_ += data[i];
                b_ += a_;
            }
            a_ %= kModulus;
            b_ %= kModulus;
            data += run;
            size -= run;
        }
    }
    std::uint32_t value() const { return (b_ << 16) | a_; }

private:
    std::uint32_t a_ = 1, b_ = 0;
};

void putBigEndian32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    out.push_back(std::uint8_t(v >> 24));
    out.push_back(std::uint8_t(v >> 16));
    out.push_back(std::uint8_t(v >> 8));
    out.push_back(std::uint8_t(v));
}

// Emits chunks (length, type, data, CRC over type and data) through the sink.
void writeChunk(const ByteSink& sink, const char type[4], const std::uint8_t* data, std::size_t size) {
    std::vector<std::uint8_t> header;
    putBigEndian32(header, std::uint32_t(size));
    header.insert(header.end(), type, type + 4);
    sink(header.data(), header.size());
    if (size > 0) sink(data, size);
    std::uint32_t crc = crc32(0, header.data() + 4, 4);
    crc = crc32(crc, data, size);
    std::vector<std::uint8_t> trailer;
    putBigEndian32(trailer, crc);
    sink(trailer.data(), trailer.size());
}

// The zlib stream of the IDAT chunks, built incrementally: scanline bytes go
// into stored blocks, blocks into a buffer flushed as one IDAT per MiB.
class StoredZlibStream {
public:
    StoredZlibStream(const ByteSink& sink, std::uint64_t totalBytes) : sink_(sink), remaining_(totalBytes) {
        idat_.reserve(kIdatChunkBytes + kMaxStoredBlock + 16);
        block_.reserve(kMaxStoredBlock);
        idat_.push_back(0x78);  // deflate, 32K window
        idat_.push_back(0x01);  // no preset dictionary, fastest level; 0x7801 is a multiple of 31
    }

    void append(const std::uint8_t* data, std::size_t size) {
        adler_.update(data, size);
        while (size > 0) {
            const std::size_t room = kMaxStoredBlock - block_.size();
            const std::size_t take = size < room ? size : room;
            block_.insert(block_.end(), data, data + take);
            data += take;
            size -= take;
            remaining_ -= take;
            if (block_.size() == kMaxStoredBlock || remaining_ == 0) emitBlock();
        }
    }

    void finish() {
        putBigEndian32(idat_, adler_.value());
        writeChunk(sink_, "IDAT", idat_.data(), idat_.size());
        idat_.clear();
    }

private:
    void emitBlock() {
        const std::uint16_t length = std::uint16_t(block_.size());
        idat_.push_back(remaining_ == 0 ? 1 : 0);  // BFINAL on the last block, BTYPE 00 (stored)
        idat_.push_back(std::uint8_t(length));
        idat_.push_back(std::uint8_t(length >> 8));
        idat_.push_back(std::uint8_t(~length));
        idat_.push_back(std::uint8_t(~length >> 8));
        idat_.insert(idat_.end(), block_.begin(), block_.end());
        block_.clear();
        if (idat_.size() >= kIdatChunkBytes) {
            writeChunk(sink_, "IDAT", idat_.data(), idat_.size());
            idat_.clear();
        }
    }

    const ByteSink& sink_;
    std::uint64_t remaining_;
    Adler32 adler_;
    std::vector<std::uint8_t> block_;
    std::vector<std::uint8_t> idat_;
};

}  // namespace

void encodePngStored(const Image& image, const ByteSink& sink) {
    static const std::uint8_t kSignature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    sink(kSignature, sizeof kSignature);

    std::vector<std::uint8_t> header;
    putBigEndian32(header, std::uint32_t(image.width));
    putBigEndian32(header, std::uint32_t(image.height));
    header.push_back(8);                               // bit depth
    header.push_back(image.channels == 1 ? 0 : 6);     // color type: gray or RGBA
    header.push_back(0);                               // deflate
    header.push_back(0);                               // adaptive filtering (every row uses filter 0)
    header.push_back(0);                               // no interlace
    writeChunk(sink, "IHDR", header.data(), header.size());

    const std::size_t rowBytes = std::size_t(image.width) * std::size_t(image.channels);
    StoredZlibStream stream(sink, std::uint64_t(rowBytes + 1) * std::uint64_t(image.height));
    const std::uint8_t kFilterNone = 0;
    for (int y = 0; y < image.height; ++y) {
        stream.append(&kFilterNone, 1);
        stream.append(image.pixels.data() + std::size_t(y) * rowBytes, rowBytes);
    }
    stream.finish();
    writeChunk(sink, "IEND", nullptr, 0);
}

}  // namespace glccl::detail

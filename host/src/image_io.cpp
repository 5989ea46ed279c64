#include "glccl/image_io.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "glccl/error.hpp"
#include "png_stored.hpp"

static_assert(glccl::kMaxImageDimension == 32768, "STBI_MAX_DIMENSIONS below must equal kMaxImageDimension");

// stb_image is hardened here, in the only translation unit that includes it:
// the decoders with a record of CVEs (GIF, HDR, PSD, PIC) are compiled out,
// dimensions are capped at the library's own limit, and the functions are
// static so that the shared libstb Debian also ships can never be the one
// called.
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_MAX_DIMENSIONS 32768
#define STBI_NO_GIF
#define STBI_NO_BMP
#define STBI_NO_TGA
#define STBI_NO_HDR
#define STBI_NO_PSD
#define STBI_NO_PIC
#define STBI_NO_LINEAR
// stb asserts on some malformed inputs as well as on its own invariants; a
// corrupt file must end in an error, never in abort() of a debug build.
#define STBI_ASSERT(x) ((void)0)
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#define STBI_WRITE_NO_STDIO
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wtype-limits"
#endif
#include <stb_image.h>
#include <stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace glccl {

namespace {

constexpr const char* kSupportedFormats = "PNG, JPEG and binary PGM/PPM (P5/P6)";

std::string inQuotes(const std::string& path) { return "'" + path + "'"; }

std::string sizeText(std::uint64_t width, std::uint64_t height) {
    return std::to_string(width) + "x" + std::to_string(height);
}

// ---------------------------------------------------------------- reading

struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

struct StbFree {
    void operator()(stbi_uc* data) const { stbi_image_free(data); }
};

// What the first bytes say the file is, for messages: stb only says
// "unknown image type", which does not tell a GIF from a corrupt PNG.
enum class Signature { Png, Jpeg, Bmp, Tga, Pnm, AsciiPnm, Gif, Psd, Hdr, Pic, Unknown };

Signature sniff(const std::uint8_t* head, std::size_t size) {
    auto startsWith = [&](std::string_view magic) {
        return size >= magic.size() && std::memcmp(head, magic.data(), magic.size()) == 0;
    };
    if (startsWith("\x89PNG\r\n\x1a\n")) return Signature::Png;
    if (startsWith("\xFF\xD8\xFF")) return Signature::Jpeg;
    if (startsWith("BM")) return Signature::Bmp;
    if (startsWith("P5") || startsWith("P6")) return Signature::Pnm;
    if (startsWith("P1") || startsWith("P2") || startsWith("P3") || startsWith("P4")) return Signature::AsciiPnm;
    if (startsWith("GIF87a") || startsWith("GIF89a")) return Signature::Gif;
    if (startsWith("8BPS")) return Signature::Psd;
    if (startsWith("#?RADIANCE") || startsWith("#?RGBE")) return Signature::Hdr;
    if (startsWith("\x53\x80\xF6\x34")) return Signature::Pic;
    return Signature::Unknown;
}

const char* formatName(Signature signature) {
    switch (signature) {
        case Signature::Png: return "PNG";
        case Signature::Jpeg: return "JPEG";
        case Signature::Bmp: return "BMP";
        case Signature::Tga: return "TGA";
        case Signature::Pnm: return "PGM/PPM";
        case Signature::AsciiPnm: return "ASCII or 1-bit PBM/PGM/PPM";
        case Signature::Gif: return "GIF";
        case Signature::Psd: return "PSD";
        case Signature::Hdr: return "Radiance HDR";
        case Signature::Pic: return "Softimage PIC";
        case Signature::Unknown: break;
    }
    return "unknown";
}

// BMP and TGA are refused too: stb's decoders for them filled truncated
// files from uninitialised memory and decoded 18- to 377-byte headers into
// gigabytes, and neither format carries anything PNG does not.
bool isUnsupported(Signature signature) {
    switch (signature) {
        case Signature::Bmp:
        case Signature::Tga:
        case Signature::AsciiPnm:
        case Signature::Gif:
        case Signature::Psd:
        case Signature::Hdr:
        case Signature::Pic: return true;
        default: return false;
    }
}

std::uint32_t bigEndian32(const std::uint8_t* p) {
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | p[3];
}

// The header of a binary PGM/PPM, parsed as stb parses it, for two checks
// stb lacks: numbers too long for an int (stb's parser overflows, which is
// undefined behaviour, even in stbi_info), and pixel data shorter than the
// header promises.
struct PnmHeader {
    std::uint64_t width = 0, height = 0, maxValue = 0;
    std::uint64_t dataOffset = 0;
    bool numberTooLong = false;
    bool complete = false;  // the header ended inside the bytes parsed
};

PnmHeader parsePnmHeader(const std::vector<std::uint8_t>& head) {
    PnmHeader header;
    std::size_t i = 2;
    auto isSpace = [](std::uint8_t c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
    auto skipSpaceAndComments = [&] {
        for (;;) {
            while (i < head.size() && isSpace(head[i])) ++i;
            if (i >= head.size() || head[i] != '#') return;
            while (i < head.size() && head[i] != '\n' && head[i] != '\r') ++i;
        }
    };
    auto number = [&] {
        std::uint64_t value = 0;
        int digits = 0;
        while (i < head.size() && head[i] >= '0' && head[i] <= '9') {
            if (++digits > 9) header.numberTooLong = true;
            if (digits <= 9) value = value * 10 + std::uint64_t(head[i] - '0');
            ++i;
        }
        return value;
    };
    skipSpaceAndComments();
    header.width = number();
    skipSpaceAndComments();
    header.height = number();
    skipSpaceAndComments();
    header.maxValue = number();
    header.dataOffset = i + 1;  // one whitespace byte separates the header from the data
    header.complete = i < head.size();
    return header;
}

// stb_image 2.27 writes past its Huffman tables when a JPEG defines more
// than 256 codes in one table (fixed in stb 2.28). The marker segments are
// walked here the way stb walks them (same resynchronisation, entropy-coded
// data skipped) and every DHT is checked before stb sees it.
// Returns an empty string when the tables are sound or the walk ends early
// (stb then reports the corruption itself).
std::string jpegHuffmanProblem(std::FILE* file) {
    auto byte = [file]() { return std::getc(file); };
    if (byte() != 0xFF || byte() != 0xD8) return {};
    int pendingMarker = -1;
    for (;;) {
        int marker = pendingMarker;
        pendingMarker = -1;
        if (marker < 0) {
            // Like stb, skip any padding between segments up to the next 0xFF.
            int c = byte();
            while (c >= 0 && c != 0xFF) c = byte();
            do {
                marker = byte();
            } while (marker == 0xFF);
        }
        if (marker < 0 || marker == 0xD9) return {};                        // end of file or EOI
        if ((marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) continue;  // no payload

        const int high = byte(), low = byte();
        if (high < 0 || low < 0) return {};
        int remaining = ((high << 8) | low) - 2;
        if (remaining < 0) return {};
        if (marker == 0xC4) {
            while (remaining >= 17) {
                byte();  // table class and destination
                int codes = 0;
                for (int i = 0; i < 16; ++i) codes += std::max(byte(), 0);
                if (codes > 256) {
                    return "a Huffman table defines " + std::to_string(codes) + " codes but a JPEG allows 256";
                }
                remaining -= 17;
                for (int i = 0; i < codes && remaining > 0; ++i, --remaining) byte();
            }
        }
        for (; remaining > 0; --remaining) {
            if (byte() < 0) return {};
        }

        if (marker == 0xDA) {
            // Entropy-coded data follows a start of scan up to the next
            // marker: 0xFF and a byte other than 0x00 (a stuffed 0xFF) or a
            // restart marker.
            int c = byte();
            while (pendingMarker < 0) {
                if (c < 0) return {};
                if (c != 0xFF) {
                    c = byte();
                    continue;
                }
                const int next = byte();
                if (next < 0) return {};
                if (next == 0xFF) continue;  // fill bytes before a marker
                if (next == 0x00 || (next >= 0xD0 && next <= 0xD7)) {
                    c = byte();
                } else {
                    pendingMarker = next;
                }
            }
        }
    }
}

// PNG keeps its size at a fixed place; reading it lets an oversized PNG be
// reported with its size even though stbi_info refuses it without one.
bool pngSize(const std::vector<std::uint8_t>& head, std::uint64_t& width, std::uint64_t& height) {
    if (head.size() < 24 || std::memcmp(head.data() + 12, "IHDR", 4) != 0) return false;
    width = bigEndian32(head.data() + 16);
    height = bigEndian32(head.data() + 20);
    return true;
}

// Binary PGM/PPM is decoded here rather than by stb_image 2.27, which reads
// 16-bit samples in host byte order (the format is big-endian) and leaves
// the pixels of a short file uninitialised. The result matches stb's
// conventions: 16-bit samples keep their high byte, color becomes RGBA or
// stb's integer luma.
Image decodePnm(std::FILE* file, const PnmHeader& header, bool color, int channels, const std::string& what) {
    const int width = int(header.width), height = int(header.height);
    const std::size_t fileChannels = color ? 3 : 1;
    const std::size_t bytesPerSample = header.maxValue > 255 ? 2 : 1;
    std::vector<std::uint8_t> row(std::size_t(width) * fileChannels * bytesPerSample);
    if (std::fseek(file, long(header.dataOffset), SEEK_SET) != 0) {
        throw Error("glccl::readImage(): cannot seek in " + what + ": " + std::strerror(errno));
    }
    Image image(width, height, channels);
    std::uint8_t* out = image.pixels.data();
    for (int y = 0; y < height; ++y) {
        if (std::fread(row.data(), 1, row.size(), file) != row.size()) {
            throw Error("glccl::readImage(): cannot read the pixels of " + what);
        }
        for (int x = 0; x < width; ++x) {
            std::uint8_t sample[3];
            for (std::size_t c = 0; c < fileChannels; ++c) {
                sample[c] = row[(std::size_t(x) * fileChannels + c) * bytesPerSample];
            }
            if (!color) {
                *out++ = sample[0];
            } else if (channels == 1) {
                *out++ = std::uint8_t((sample[0] * 77 + sample[1] * 150 + sample[2] * 29) >> 8);
            } else {
                *out++ = sample[0];
                *out++ = sample[1];
                *out++ = sample[2];
                *out++ = 255;
            }
        }
    }
    return image;
}

// stb_image refuses a PNG whose decoded pixels, in the file's own channel
// count, exceed 2^30 bytes (stbi__parse_png_file); palette images count as 4.
constexpr std::uint64_t kStbPngMaxDecodedBytes = std::uint64_t(1) << 30;

std::uint64_t pngChannels(const std::vector<std::uint8_t>& head) {
    switch (head.size() > 25 ? head[25] : 0) {
        case 2: return 3;   // RGB
        case 3: return 4;   // palette, expanded
        case 4: return 2;   // gray + alpha
        case 6: return 4;   // RGBA
        default: return 1;  // gray
    }
}

// A NumPy .npy image (defined with the other .npy code below).
Image readNpyImage(const std::string& path, ChannelMode mode, const std::string& where);

std::string dimensionProblem(std::uint64_t width, std::uint64_t height) {
    if (width == 0 || height == 0) return "has no pixels (" + sizeText(width, height) + ")";
    if (width > std::uint64_t(kMaxImageDimension) || height > std::uint64_t(kMaxImageDimension)) {
        return "is " + sizeText(width, height) + " but the largest accepted side is " +
               std::to_string(kMaxImageDimension);
    }
    if (width * height > kMaxImagePixels) {
        return "is " + sizeText(width, height) + " = " + std::to_string(width * height) +
               " pixels but at most " + std::to_string(kMaxImagePixels) + " are accepted";
    }
    return {};
}

}  // namespace

Image readImage(const std::string& path, ChannelMode mode) {
    const std::string where = "glccl::readImage(): ";

    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw Error(where + inQuotes(path) + " is a directory, not an image");
    errno = 0;
    FilePtr file(std::fopen(path.c_str(), "rb"));
    if (!file) throw Error(where + "cannot open " + inQuotes(path) + ": " + std::strerror(errno));
    const std::uintmax_t fileSize = std::filesystem::file_size(path, ec);
    if (ec) throw Error(where + "cannot read the size of " + inQuotes(path) + ": " + ec.message());
    if (fileSize == 0) throw Error(where + inQuotes(path) + " is empty");

    // Enough for any signature and for PGM/PPM headers with a few comments.
    constexpr std::size_t kHeadBytes = 4096;
    std::vector<std::uint8_t> head(std::size_t(std::min<std::uintmax_t>(fileSize, kHeadBytes)));
    if (std::fread(head.data(), 1, head.size(), file.get()) != head.size()) {
        throw Error(where + "cannot read " + inQuotes(path) + ": " + std::strerror(errno));
    }
    std::rewind(file.get());

    if (head.size() >= 6 && std::memcmp(head.data(), "\x93NUMPY", 6) == 0) {
        file.reset();
        return readNpyImage(path, mode, where);
    }
    Signature signature = sniff(head.data(), head.size());
    // TGA has no signature; its name is all that tells one from noise.
    const std::string extension = std::filesystem::path(path).extension().string();
    if (signature == Signature::Unknown && (extension == ".tga" || extension == ".TGA")) signature = Signature::Tga;
    if (isUnsupported(signature)) {
        throw Error(where + inQuotes(path) + " is a " + formatName(signature) +
                    " file, which is not supported; supported formats are " + kSupportedFormats);
    }

    PnmHeader pnm;
    if (signature == Signature::Pnm) {
        pnm = parsePnmHeader(head);
        if (pnm.numberTooLong) {
            throw Error(where + inQuotes(path) + " has a PGM/PPM header number longer than 9 digits");
        }
        if (!pnm.complete && head.size() == kHeadBytes) {
            throw Error(where + inQuotes(path) + " has a PGM/PPM header longer than " + std::to_string(kHeadBytes) +
                        " bytes");
        }
    }

    if (signature == Signature::Jpeg) {
        const std::string problem = jpegHuffmanProblem(file.get());
        std::rewind(file.get());
        if (!problem.empty()) throw Error(where + inQuotes(path) + " is a corrupt JPEG: " + problem);
    }

    int width = 0, height = 0, fileChannels = 0;
    if (!stbi_info_from_file(file.get(), &width, &height, &fileChannels)) {
        const std::string reason = stbi_failure_reason() ? stbi_failure_reason() : "no reason given";
        std::uint64_t pngWidth = 0, pngHeight = 0;
        const bool knownSize = signature == Signature::Png && pngSize(head, pngWidth, pngHeight);
        if (knownSize) {
            const std::string problem = dimensionProblem(pngWidth, pngHeight);
            if (!problem.empty()) throw Error(where + inQuotes(path) + " " + problem);
        }
        if (knownSize && pngWidth * pngHeight * pngChannels(head) > kStbPngMaxDecodedBytes) {
            throw Error(where + inQuotes(path) + " is " + sizeText(pngWidth, pngHeight) + " with " +
                        std::to_string(pngChannels(head)) + " channels, more than the PNG decoder accepts (" +
                        std::to_string(kStbPngMaxDecodedBytes) + " bytes of pixels)");
        }
        if (signature == Signature::Unknown) {
            throw Error(where + inQuotes(path) + " is not an image in a supported format (" + kSupportedFormats +
                        "; stb_image: " + reason + ")");
        }
        throw Error(where + inQuotes(path) + " looks like a " + formatName(signature) +
                    " file but its header is corrupt or unsupported (stb_image: " + reason + ")");
    }
    const std::string problem = dimensionProblem(std::uint64_t(std::max(width, 0)), std::uint64_t(std::max(height, 0)));
    if (!problem.empty()) throw Error(where + inQuotes(path) + " " + problem);

    // Natural keeps gray files gray and gives color files RGBA; alpha of
    // gray+alpha files is dropped because labels are computed on one channel.
    const int channels = (mode == ChannelMode::Gray || fileChannels <= 2) ? 1 : 4;

    if (signature == Signature::Pnm) {
        const std::uint64_t bytesPerSample = pnm.maxValue > 255 ? 2 : 1;
        const std::uint64_t samples = pnm.width * pnm.height * (head[1] == '6' ? 3 : 1);
        const std::uint64_t needed = pnm.dataOffset + samples * bytesPerSample;
        if (pnm.width != std::uint64_t(width) || pnm.height != std::uint64_t(height)) {
            throw Error(where + inQuotes(path) + " has a PGM/PPM header that cannot be parsed consistently");
        }
        if (fileSize < needed) {
            throw Error(where + inQuotes(path) + " is truncated: its header promises " + sizeText(pnm.width, pnm.height) +
                        " pixels (" + std::to_string(needed) + " bytes) but the file has " +
                        std::to_string(fileSize) + " bytes");
        }
        return decodePnm(file.get(), pnm, head[1] == '6', channels, where + inQuotes(path));
    }

    int decodedWidth = 0, decodedHeight = 0, decodedChannels = 0;
    std::unique_ptr<stbi_uc, StbFree> data(
        stbi_load_from_file(file.get(), &decodedWidth, &decodedHeight, &decodedChannels, channels));
    if (!data) {
        const std::string reason = stbi_failure_reason() ? stbi_failure_reason() : "no reason given";
        throw Error(where + "cannot decode " + inQuotes(path) + " (" + formatName(signature) + ", " +
                    sizeText(std::uint64_t(width), std::uint64_t(height)) + "): stb_image: " + reason);
    }
    if (decodedWidth != width || decodedHeight != height) {
        throw Error(where + inQuotes(path) + " decoded as " +
                    sizeText(std::uint64_t(decodedWidth), std::uint64_t(decodedHeight)) + " but its header says " +
                    sizeText(std::uint64_t(width), std::uint64_t(height)));
    }

    Image image(width, height, channels);
    std::memcpy(image.pixels.data(), data.get(), image.pixels.size());
    return image;
}

// ---------------------------------------------------------------- writing

namespace {

// A file being written all or nothing: the bytes go to a temporary file
// beside the target (same folder, so same file system), and only a complete,
// flushed file takes the target's name: by rename() when overwriting is
// allowed, else by link(), which refuses an existing target atomically. A
// failed or interrupted write leaves the target as it was (an interrupted
// process may leave its hidden temporary file, never a truncated target).
class OutputFile {
public:
    OutputFile(std::string where, const std::string& path, bool overwrite)
        : where_(std::move(where)), path_(path), overwrite_(overwrite) {
        if (!overwrite && ::access(path.c_str(), F_OK) == 0)
            throw Error(where_ + inQuotes(path) + " already exists; use --force (overwrite = true) to replace it");
        const std::filesystem::path target(path);
        const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : ".";
        // A fresh name per attempt; O_EXCL never reuses a file, and the mode
        // 0666 lets the umask decide the permissions, as for any new file.
        static std::atomic<unsigned> serial{0};
        int descriptor = -1;
        for (int attempt = 0; attempt < 100 && descriptor < 0; ++attempt) {
            temporary_ = (folder / ("." + target.filename().string() + ".glccl-" + std::to_string(::getpid()) + "-" +
                                    std::to_string(serial++)))
                             .string();
            errno = 0;
            descriptor = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (descriptor < 0 && errno != EEXIST) break;
        }
        if (descriptor < 0) throw Error(where_ + "cannot create " + inQuotes(path) + ": " + std::strerror(errno));
        file_ = ::fdopen(descriptor, "wb");
        if (file_ == nullptr) {
            const int error = errno;
            ::close(descriptor);
            std::remove(temporary_.c_str());
            throw Error(where_ + "cannot create " + inQuotes(path) + ": " + std::strerror(error));
        }
    }
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    ~OutputFile() {
        if (file_ == nullptr) return;
        std::fclose(file_);
        std::remove(temporary_.c_str());
    }

    void write(const void* data, std::size_t size) {
        if (size == 0) return;
        errno = 0;
        if (std::fwrite(data, 1, size, file_) != size) {
            throw Error(where_ + "cannot write " + inQuotes(path_) + ": " + std::strerror(errno));
        }
    }
    void write(std::string_view text) { write(text.data(), text.size()); }

    void close() {
        std::FILE* file = file_;
        file_ = nullptr;
        // The last buffered bytes reach the disk only now: a full disk is
        // often reported by fflush or fclose, not by fwrite.
        errno = 0;
        const bool flushed = std::fflush(file) == 0;
        int error = errno;
        const bool closed = std::fclose(file) == 0;
        if (flushed && !closed) error = errno;
        if (!flushed || !closed) {
            std::remove(temporary_.c_str());
            throw Error(where_ + "cannot finish writing " + inQuotes(path_) + ": " + std::strerror(error));
        }
        errno = 0;
        const bool named = overwrite_ ? ::rename(temporary_.c_str(), path_.c_str()) == 0
                                      : ::link(temporary_.c_str(), path_.c_str()) == 0;
        error = errno;
        if (!overwrite_ || !named) std::remove(temporary_.c_str());
        if (!named && !overwrite_ && error == EEXIST)
            throw Error(where_ + inQuotes(path_) + " already exists; use --force (overwrite = true) to replace it");
        if (!named) throw Error(where_ + "cannot finish writing " + inQuotes(path_) + ": " + std::strerror(error));
    }

private:
    std::string where_;
    std::string path_;
    std::string temporary_;
    bool overwrite_ = false;
    std::FILE* file_ = nullptr;
};

void checkImage(const std::string& where, const Image& image) {
    if (image.width <= 0 || image.height <= 0 || (image.channels != 1 && image.channels != 4) ||
        image.pixels.size() != std::size_t(image.width) * std::size_t(image.height) * std::size_t(image.channels)) {
        throw Error(where + "invalid image: " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                    "x" + std::to_string(image.channels) + " with " + std::to_string(image.pixels.size()) + " bytes");
    }
}

void checkLabeling(const std::string& where, const Labeling& labeling) {
    if (labeling.width <= 0 || labeling.height <= 0 ||
        labeling.labels.size() != std::size_t(labeling.width) * std::size_t(labeling.height)) {
        throw Error(where + "invalid labeling: " + std::to_string(labeling.width) + "x" +
                    std::to_string(labeling.height) + " with " + std::to_string(labeling.labels.size()) + " labels");
    }
}

// stb_image_write builds the whole PNG in memory with `int` sizes and grows
// its output buffer by doubling; below this many filtered bytes even
// incompressible data stays far from 2^31. Larger images are written
// uncompressed by detail::encodePngStored.
constexpr std::uint64_t kStbPngMaxBytes = std::uint64_t(768) << 20;

struct PngSink {
    OutputFile* file;
    bool failed = false;
    std::string error;
};

void writeToPngSink(void* context, void* data, int size) {
    // stb is C and must not be unwound through: remember the failure instead.
    auto* sink = static_cast<PngSink*>(context);
    if (sink->failed) return;
    try {
        sink->file->write(data, std::size_t(size));
    } catch (const Error& e) {
        sink->failed = true;
        sink->error = e.what();
    }
}

}  // namespace

void writePng(const std::string& path, const Image& image, bool overwrite) {
    const std::string where = "glccl::writePng(): ";
    checkImage(where, image);
    OutputFile file(where, path, overwrite);

    const std::uint64_t rowBytes = std::uint64_t(image.width) * std::uint64_t(image.channels);
    if ((rowBytes + 1) * std::uint64_t(image.height) <= kStbPngMaxBytes) {
        PngSink sink{&file, false, {}};
        const int ok = stbi_write_png_to_func(writeToPngSink, &sink, image.width, image.height, image.channels,
                                              image.pixels.data(), int(rowBytes));
        if (sink.failed) throw Error(sink.error);
        if (!ok) throw Error(where + "cannot encode " + inQuotes(path) + ": out of memory");
    } else {
        detail::encodePngStored(image, [&](const std::uint8_t* data, std::size_t size) { file.write(data, size); });
    }
    file.close();
}

void labelColor(std::uint32_t label, std::uint8_t rgb[3]) {
    if (label == 0) {
        rgb[0] = rgb[1] = rgb[2] = 0;
        return;
    }
    // Hue steps by the golden ratio of a turn, so consecutive labels (which
    // are usually neighbours in the image) get far-apart hues; saturation and
    // value vary with a hash so that labels with close hues still differ.
    // Integer arithmetic only: the colors are the same on every platform.
    const std::uint64_t hue = std::uint32_t(label * 0x9E3779B9u);
    std::uint32_t hash = label * 0x85EBCA6Bu;
    hash ^= hash >> 13;
    hash *= 0xC2B2AE35u;
    hash ^= hash >> 16;
    const std::uint32_t saturation = 150 + (hash & 0xFF) * 105 / 255;        // 150..255
    const std::uint32_t value = 190 + ((hash >> 8) & 0xFF) * 65 / 255;       // 190..255: never dark
    const std::uint64_t scaled = hue * 6;                                    // sector in the top bits
    const std::uint32_t sector = std::uint32_t(scaled >> 32);                // 0..5
    const std::uint32_t fraction = std::uint32_t((scaled >> 24) & 0xFF);     // 0..255 within the sector
    const std::uint8_t v = std::uint8_t(value);
    const std::uint8_t p = std::uint8_t(value * (255 - saturation) / 255);
    const std::uint8_t q = std::uint8_t(value * (255 - saturation * fraction / 255) / 255);
    const std::uint8_t t = std::uint8_t(value * (255 - saturation * (255 - fraction) / 255) / 255);
    const std::uint8_t table[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
    rgb[0] = table[sector][0];
    rgb[1] = table[sector][1];
    rgb[2] = table[sector][2];
}

Image colorizeLabels(const Labeling& labeling) {
    checkLabeling("glccl::colorizeLabels(): ", labeling);
    Image image(labeling.width, labeling.height, 4);
    std::uint32_t lastLabel = 0;
    std::uint8_t color[3] = {0, 0, 0};
    std::uint8_t* out = image.pixels.data();
    for (std::uint32_t label : labeling.labels) {
        if (label != lastLabel) {
            labelColor(label, color);
            lastLabel = label;
        }
        out[0] = color[0];
        out[1] = color[1];
        out[2] = color[2];
        out[3] = 255;
        out += 4;
    }
    return image;
}

namespace {

// NPY 1.0 (numpy.lib.format): magic, version, little-endian header length,
// then a Python dict literal padded with spaces and ended by '\n' so that the
// data starts on a 64-byte boundary. Numbers are little-endian.
constexpr char kNpyMagic[] = "\x93NUMPY";
constexpr std::size_t kNpyMagicSize = 6;

void writeNpyHeader(OutputFile& file, const std::string& descr, const std::string& shape) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    constexpr std::size_t kPreamble = kNpyMagicSize + 4;
    const std::size_t unpadded = kPreamble + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header.push_back('\n');
    const std::uint16_t headerLength = std::uint16_t(header.size());
    const char preamble[kPreamble] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0, char(headerLength & 0xFF),
                                      char(headerLength >> 8)};
    file.write(preamble, kPreamble);
    file.write(header);
}

bool hostIsLittleEndian() {
    const std::uint16_t probe = 1;
    return *reinterpret_cast<const std::uint8_t*>(&probe) == 1;
}

// The value after 'key': in the header dict, up to the next ',' outside
// parentheses (or the closing brace); "" when the key is missing.
std::string npyHeaderValue(const std::string& header, const std::string& key) {
    const std::size_t at = header.find("'" + key + "'");
    if (at == std::string::npos) return {};
    std::size_t start = header.find(':', at);
    if (start == std::string::npos) return {};
    ++start;
    int depth = 0;
    std::size_t end = start;
    for (; end < header.size(); ++end) {
        const char c = header[end];
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if ((c == ',' && depth == 0) || c == '}') break;
    }
    std::string value = header.substr(start, end - start);
    const auto first = value.find_first_not_of(' ');
    const auto last = value.find_last_not_of(' ');
    return first == std::string::npos ? std::string() : value.substr(first, last - first + 1);
}

// "(A, B, ...)" -> {A, B, ...}; false when it is not a tuple of integers.
bool parseNpySides(const std::string& text, std::vector<std::uint64_t>& sides) {
    if (text.size() < 2 || text.front() != '(' || text.back() != ')') return false;
    sides.clear();
    std::size_t at = 1;
    while (at < text.size() - 1) {
        while (at < text.size() - 1 && (text[at] == ' ' || text[at] == ',')) ++at;
        if (at >= text.size() - 1) break;
        std::uint64_t side = 0;
        const auto result = std::from_chars(text.data() + at, text.data() + text.size() - 1, side);
        if (result.ec != std::errc()) return false;
        sides.push_back(side);
        at = std::size_t(result.ptr - text.data());
    }
    return true;
}

// "(H, W)" -> {H, W}; false for any other shape.
bool parseNpyShape(const std::string& text, std::uint64_t& height, std::uint64_t& width) {
    std::vector<std::uint64_t> sides;
    if (!parseNpySides(text, sides) || sides.size() != 2) return false;
    height = sides[0];
    width = sides[1];
    return true;
}

// An opened .npy file, positioned at its data, with its header's fields.
struct NpyFile {
    FilePtr file;
    std::string descr, fortranOrder, shape;
    std::uint64_t dataOffset = 0;
};

// Reads the preamble and header of a NumPy .npy file (format 1 or 2);
// `fail` makes the error for a reason.
template <class Fail>
NpyFile openNpy(const std::string& path, const std::string& where, const Fail& fail) {
    NpyFile npy;
    errno = 0;
    npy.file.reset(std::fopen(path.c_str(), "rb"));
    if (!npy.file) throw Error(where + "cannot open " + inQuotes(path) + ": " + std::strerror(errno));
    unsigned char preamble[kNpyMagicSize + 2];
    if (std::fread(preamble, 1, sizeof preamble, npy.file.get()) != sizeof preamble ||
        std::memcmp(preamble, kNpyMagic, kNpyMagicSize) != 0)
        throw fail("is not a NumPy .npy file");
    const unsigned version = preamble[kNpyMagicSize];
    if (version != 1 && version != 2) throw fail("has NPY format version " + std::to_string(version) + "; 1 or 2 are read");
    unsigned char length[4] = {0, 0, 0, 0};
    const std::size_t lengthBytes = version == 1 ? 2 : 4;
    if (std::fread(length, 1, lengthBytes, npy.file.get()) != lengthBytes) throw fail("ends inside its header");
    const std::uint32_t headerLength =
        std::uint32_t(length[0]) | std::uint32_t(length[1]) << 8 | std::uint32_t(length[2]) << 16 |
        std::uint32_t(length[3]) << 24;
    if (headerLength > (1u << 16)) throw fail("has a header of " + std::to_string(headerLength) + " bytes");
    std::string header(headerLength, '\0');
    if (std::fread(header.data(), 1, headerLength, npy.file.get()) != headerLength) throw fail("ends inside its header");
    npy.descr = npyHeaderValue(header, "descr");
    npy.fortranOrder = npyHeaderValue(header, "fortran_order");
    npy.shape = npyHeaderValue(header, "shape");
    npy.dataOffset = sizeof preamble + lengthBytes + headerLength;
    return npy;
}

}  // namespace

void writeLabelsNpy(const std::string& path, const Labeling& labeling, bool overwrite) {
    const std::string where = "glccl::writeLabelsNpy(): ";
    checkLabeling(where, labeling);
    OutputFile file(where, path, overwrite);
    writeNpyHeader(file, "<u4", "(" + std::to_string(labeling.height) + ", " + std::to_string(labeling.width) + ")");
    if (hostIsLittleEndian()) {
        file.write(labeling.labels.data(), labeling.labels.size() * sizeof(std::uint32_t));
    } else {
        std::vector<std::uint8_t> row(std::size_t(labeling.width) * 4);
        for (int y = 0; y < labeling.height; ++y) {
            for (int x = 0; x < labeling.width; ++x) {
                const std::uint32_t v = labeling.at(x, y);
                for (int b = 0; b < 4; ++b) row[std::size_t(x) * 4 + b] = std::uint8_t(v >> (8 * b));
            }
            file.write(row.data(), row.size());
        }
    }
    file.close();
}

void writeImageNpy(const std::string& path, const Image& image, bool overwrite) {
    const std::string where = "glccl::writeImageNpy(): ";
    checkImage(where, image);
    OutputFile file(where, path, overwrite);
    std::string shape = "(" + std::to_string(image.height) + ", " + std::to_string(image.width);
    shape += image.channels == 1 ? ")" : ", " + std::to_string(image.channels) + ")";
    writeNpyHeader(file, "|u1", shape);
    file.write(image.pixels.data(), image.pixels.size());
    file.close();
}

Labeling readLabelsNpy(const std::string& path) {
    const std::string where = "glccl::readLabelsNpy(): ";
    const auto fail = [&](const std::string& why) { return Error(where + inQuotes(path) + " " + why); };
    NpyFile npy = openNpy(path, where, fail);
    std::FILE* file = npy.file.get();
    const std::string& descr = npy.descr;
    if (descr != "'<u4'") throw fail("holds " + (descr.empty() ? std::string("no dtype") : descr) + ", not '<u4' labels");
    if (npy.fortranOrder != "False") throw fail("is in Fortran order; C order is read");
    std::uint64_t height = 0, width = 0;
    const std::string& shape = npy.shape;
    if (!parseNpyShape(shape, height, width) || width < 1 || height < 1 || width > std::uint64_t(kMaxImageDimension) ||
        height > std::uint64_t(kMaxImageDimension))
        throw fail("has shape " + shape + "; labels have shape (height, width), each 1.." +
                   std::to_string(kMaxImageDimension));

    Labeling labeling;
    labeling.width = int(width);
    labeling.height = int(height);
    labeling.labels.resize(std::size_t(width * height));
    const std::size_t bytes = labeling.labels.size() * sizeof(std::uint32_t);
    if (std::fread(labeling.labels.data(), 1, bytes, file) != bytes)
        throw fail("ends before its " + sizeText(width, height) + " labels");
    if (std::fgetc(file) != EOF) throw fail("has bytes after its " + sizeText(width, height) + " labels");
    if (!hostIsLittleEndian())
        for (std::uint32_t& label : labeling.labels)
            label = (label >> 24) | ((label >> 8) & 0xFF00u) | ((label << 8) & 0xFF0000u) | (label << 24);
    return labeling;
}

namespace {

// The dtypes an .npy image may hold: every value must be an integer in
// 0..255, the depth the engine takes today; a larger value is an error,
// never a silent reduction.
struct NpyDtype {
    const char* descr;
    std::size_t size;
};
constexpr NpyDtype kNpyImageDtypes[] = {{"'|u1'", 1}, {"'|b1'", 1}, {"'<u2'", 2}, {"'<i4'", 4}, {"'<u4'", 4}, {"'<f4'", 4}};

}  // namespace

namespace {

Image readNpyImage(const std::string& path, ChannelMode mode, const std::string& where) {
    const auto fail = [&](const std::string& why) { return Error(where + inQuotes(path) + " " + why); };
    NpyFile npy = openNpy(path, where, fail);
    const NpyDtype* dtype = nullptr;
    for (const NpyDtype& d : kNpyImageDtypes)
        if (npy.descr == d.descr) dtype = &d;
    if (dtype == nullptr)
        throw fail("holds " + (npy.descr.empty() ? std::string("no dtype") : npy.descr) +
                   "; .npy images are uint8, bool, uint16, int32, uint32 or float32 (little-endian)");
    std::vector<std::uint64_t> sides;
    if (!parseNpySides(npy.shape, sides) || sides.size() < 2 || sides.size() > 3 ||
        (sides.size() == 3 && sides[2] != 1 && sides[2] != 3 && sides[2] != 4))
        throw fail("has shape " + npy.shape + "; images are (height, width) or (height, width, 1|3|4)");
    const std::uint64_t height = sides[0], width = sides[1], planes = sides.size() == 3 ? sides[2] : 1;
    const std::string problem = dimensionProblem(width, height);
    if (!problem.empty()) throw fail(problem);
    if (planes > 1 && mode == ChannelMode::Gray)
        throw fail("holds " + std::to_string(planes) + " channels; binary and segments take a (height, width) array");
    if (npy.fortranOrder != "False" && npy.fortranOrder != "True") throw fail("has no fortran_order in its header");
    const bool fortran = npy.fortranOrder == "True";

    // The whole file must be the header and exactly the promised elements,
    // checked before anything is allocated for them.
    const std::uint64_t elements = width * height * planes;
    std::error_code ec;
    const std::uint64_t fileSize = std::filesystem::file_size(path, ec);
    if (ec) throw fail("cannot be sized: " + ec.message());
    const std::uint64_t expected = npy.dataOffset + elements * dtype->size;
    if (fileSize < expected)
        throw fail("is truncated: its header promises " + sizeText(width, height) + " (" + std::to_string(expected) +
                   " bytes) but the file has " + std::to_string(fileSize) + " bytes");
    if (fileSize > expected) throw fail("has bytes after its " + sizeText(width, height) + " elements");
    std::vector<std::uint8_t> raw(std::size_t(elements * dtype->size));
    if (std::fread(raw.data(), 1, raw.size(), npy.file.get()) != raw.size()) throw fail("cannot be read");

    auto valueAt = [&](std::uint64_t i) -> double {
        const std::uint8_t* p = raw.data() + i * dtype->size;
        switch (dtype->size) {
            case 1: return *p;
            case 2: return double(std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8);
            default: {
                const std::uint32_t bits =
                    std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
                if (npy.descr == "'<f4'") {
                    float f;
                    std::memcpy(&f, &bits, 4);
                    return f;
                }
                if (npy.descr == "'<i4'") return double(std::int32_t(bits));
                return bits;
            }
        }
    };
    Image image(int(width), int(height), planes == 1 ? 1 : 4);
    for (std::uint64_t y = 0; y < height; ++y)
        for (std::uint64_t x = 0; x < width; ++x) {
            for (std::uint64_t c = 0; c < planes; ++c) {
                const std::uint64_t i = fortran ? y + height * (x + width * c) : (y * width + x) * planes + c;
                const double value = valueAt(i);
                if (!(value >= 0.0 && value <= 255.0) || value != double(std::uint64_t(value)))
                    throw fail("holds " + std::to_string(value) + " at [" + std::to_string(y) + ", " +
                               std::to_string(x) + "]: values must be integers in 0..255 (16-bit labeling is not "
                               "supported yet)");
                image.at(int(x), int(y), int(c)) = std::uint8_t(value);
            }
            if (planes == 3) image.at(int(x), int(y), 3) = 255;  // opaque: never separates pixels
        }
    return image;
}

}  // namespace

void writeStatsCsv(const std::string& path, const Labeling& labeling, bool overwrite) {
    const std::string where = "glccl::writeStatsCsv(): ";
    OutputFile file(where, path, overwrite);
    std::string text = "label,left,top,width,height,area,centroid_x,centroid_y\n";

    // Shortest fixed notation that reads back to the same double.
    auto appendDouble = [&text](double value) {
        char buffer[64];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
        text.append(buffer, result.ptr);
    };
    for (std::size_t i = 0; i < labeling.components.size(); ++i) {
        const Component& c = labeling.components[i];
        text += std::to_string(i + 1) + ',' + std::to_string(c.left) + ',' + std::to_string(c.top) + ',' +
                std::to_string(c.width) + ',' + std::to_string(c.height) + ',' + std::to_string(c.area) + ',';
        appendDouble(c.centroidX);
        text += ',';
        appendDouble(c.centroidY);
        text += '\n';
        if (text.size() >= (std::size_t(1) << 20)) {
            file.write(text);
            text.clear();
        }
    }
    file.write(text);
    file.close();
}

}  // namespace glccl

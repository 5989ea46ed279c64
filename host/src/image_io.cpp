#include "glccl/image_io.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "byte_source.hpp"
#include "glccl/error.hpp"
#include "image_decoders.hpp"
#include "output_file.hpp"

namespace glccl {

namespace {

constexpr const char* kSupportedFormats = "PNG, JPEG, TIFF, binary PGM/PPM (P5/P6) and NumPy .npy";

std::string sizeText(std::uint64_t width, std::uint64_t height) {
    return std::to_string(width) + "x" + std::to_string(height);
}

// What the first bytes say the file is. Formats glccl does not read are
// named too, so that the refusal says what the file is.
enum class Signature { Png, Jpeg, Tiff, Pnm, Npy, Bmp, Tga, AsciiPnm, Gif, Psd, Hdr, Pic, Webp, Unknown };

Signature sniff(const std::uint8_t* head, std::size_t size, const std::string& name) {
    auto startsWith = [&](std::string_view magic) {
        return size >= magic.size() && std::memcmp(head, magic.data(), magic.size()) == 0;
    };
    if (startsWith("\x89PNG\r\n\x1a\n")) return Signature::Png;
    // SOI and the first marker; encoders may pad with 0xFF fill bytes, which
    // libjpeg skips, so only the SOI and one more 0xFF are required.
    if (startsWith("\xFF\xD8\xFF")) return Signature::Jpeg;
    if (startsWith(std::string_view("II*\0", 4)) || startsWith(std::string_view("MM\0*", 4)) ||
        startsWith(std::string_view("II+\0", 4)) || startsWith(std::string_view("MM\0+", 4)))
        return Signature::Tiff;
    if (startsWith("P5") || startsWith("P6")) return Signature::Pnm;
    if (startsWith("\x93NUMPY")) return Signature::Npy;
    if (startsWith("BM")) return Signature::Bmp;
    if (startsWith("P1") || startsWith("P2") || startsWith("P3") || startsWith("P4")) return Signature::AsciiPnm;
    if (startsWith("GIF87a") || startsWith("GIF89a")) return Signature::Gif;
    if (startsWith("8BPS")) return Signature::Psd;
    if (startsWith("#?RADIANCE") || startsWith("#?RGBE")) return Signature::Hdr;
    if (startsWith("\x53\x80\xF6\x34")) return Signature::Pic;
    if (startsWith("RIFF") && size >= 12 && std::memcmp(head + 8, "WEBP", 4) == 0) return Signature::Webp;
    // TGA has no signature; its name is all that tells one from noise.
    const std::string extension = std::filesystem::path(name).extension().string();
    if (extension == ".tga" || extension == ".TGA") return Signature::Tga;
    return Signature::Unknown;
}

const char* formatName(Signature signature) {
    switch (signature) {
        case Signature::Png: return "PNG";
        case Signature::Jpeg: return "JPEG";
        case Signature::Tiff: return "TIFF";
        case Signature::Pnm: return "PGM/PPM";
        case Signature::Npy: return ".npy";
        case Signature::Bmp: return "BMP";
        case Signature::Tga: return "TGA";
        case Signature::AsciiPnm: return "ASCII or 1-bit PBM/PGM/PPM";
        case Signature::Gif: return "GIF";
        case Signature::Psd: return "PSD";
        case Signature::Hdr: return "Radiance HDR";
        case Signature::Pic: return "Softimage PIC";
        case Signature::Webp: return "WebP";
        case Signature::Unknown: break;
    }
    return "unknown";
}

Image decode(const std::string& where, detail::ByteSource& source, ChannelMode mode, NpyChannelAxis channelAxis) {
    const detail::ReadContext context{where, source, mode, channelAxis};
    if (source.size() == 0) throw context.fail("the file is empty");
    std::uint8_t head[16] = {};
    const std::size_t headSize = source.read(head, sizeof head);
    const Signature signature = sniff(head, headSize, source.name());
    switch (signature) {
        case Signature::Png: return detail::decodePng(context);
        case Signature::Jpeg: return detail::decodeJpeg(context);
        case Signature::Tiff: return detail::decodeTiff(context);
        case Signature::Pnm: return detail::decodePnm(context);
        case Signature::Npy: return detail::decodeNpy(context);
        case Signature::Unknown:
            throw context.fail(std::string("not an image in a supported format (") + kSupportedFormats + ")");
        default:
            throw context.fail(std::string("a ") + formatName(signature) +
                               " file, which is not supported; supported formats are " + kSupportedFormats);
    }
}


}  // namespace

namespace detail {

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

void checkClaimedSize(const ReadContext& context, const char* format, std::uint64_t width, std::uint64_t height,
                      int channels, int sampleBits) {
    const std::string problem = dimensionProblem(width, height);
    if (!problem.empty()) throw context.fail(std::string(format) + ": the image " + problem);
    const std::uint64_t bytes = width * height * std::uint64_t(channels) * std::uint64_t(sampleBits / 8);
    const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGE_SIZE);
    const std::uint64_t memory = pages > 0 && pageSize > 0 ? std::uint64_t(pages) * std::uint64_t(pageSize) : 0;
    if (memory != 0 && bytes > memory)
        throw context.fail(std::string(format) + ": the " + sizeText(width, height) + " image needs " +
                           std::to_string(bytes) + " bytes of memory but this machine has " + std::to_string(memory));
}

std::string volumeProblem(std::uint64_t width, std::uint64_t height, std::uint64_t depth) {
    const std::string size = std::to_string(width) + "x" + std::to_string(height) + "x" + std::to_string(depth);
    if (width == 0 || height == 0 || depth == 0) return "has no voxels (" + size + ")";
    const std::uint64_t largest = std::uint64_t(kMaxImageDimension);
    if (width > largest || height > largest || depth > largest)
        return "is " + size + " but the largest accepted side is " + std::to_string(kMaxImageDimension);
    // Each factor is at most 2^15: the product does not overflow.
    if (width * height * depth > kMaxImagePixels)
        return "is " + size + " = " + std::to_string(width * height * depth) + " voxels but at most " +
               std::to_string(kMaxImagePixels) + " are accepted";
    return {};
}

void checkClaimedVolumeSize(const ReadContext& context, const char* format, std::uint64_t width,
                            std::uint64_t height, std::uint64_t depth, int sampleBits) {
    const std::string problem = volumeProblem(width, height, depth);
    if (!problem.empty()) throw context.fail(std::string(format) + ": the volume " + problem);
    const std::uint64_t bytes = width * height * depth * std::uint64_t(sampleBits / 8);
    const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGE_SIZE);
    const std::uint64_t memory = pages > 0 && pageSize > 0 ? std::uint64_t(pages) * std::uint64_t(pageSize) : 0;
    if (memory != 0 && bytes > memory)
        throw context.fail(std::string(format) + ": the " + std::to_string(width) + "x" + std::to_string(height) +
                           "x" + std::to_string(depth) + " volume needs " + std::to_string(bytes) +
                           " bytes of memory but this machine has " + std::to_string(memory));
}

void checkExpansion(const ReadContext& context, const char* format, std::uint64_t decodedBytes,
                    std::uint64_t encodedBytes, std::uint64_t largestRatio, const char* coder) {
    // 64 KiB of slack for the coder's own framing and tiny files.
    if (decodedBytes > largestRatio * encodedBytes + 65536)
        throw context.fail(std::string(format) + ": truncated or forged: its header claims " +
                           std::to_string(decodedBytes) + " bytes of pixels, more than its " +
                           std::to_string(encodedBytes) + " bytes of " + coder + " data can hold (at most " +
                           std::to_string(largestRatio) + " to 1)");
}

}  // namespace detail

std::size_t countTiffSlices(const std::string& path) {
    const std::string where = "glccl::countTiffSlices(): ";
    detail::ByteSource source(where, path);
    return detail::countTiffSlices(detail::ReadContext{where, source, ChannelMode::Gray});
}

Image readImage(const std::string& path, ChannelMode mode, NpyChannelAxis channelAxis) {
    const std::string where = "glccl::readImage(): ";
    detail::ByteSource source(where, path);
    return decode(where, source, mode, channelAxis);
}

Image readImageFromMemory(const void* data, std::size_t size, const std::string& name, ChannelMode mode,
                          NpyChannelAxis channelAxis) {
    detail::ByteSource source(data, size, name);
    return decode("glccl::readImageFromMemory(): ", source, mode, channelAxis);
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

namespace {

// The gap between the three views of a volume, and its colour: mid gray,
// apart from the black background and from the bright label colours.
constexpr int kViewGap = 4;
constexpr std::uint8_t kGapGray = 96;

// The three orthogonal middle slices of a volume, side by side:
//
//   +---------+   +---------+   +----+
//   | xy      |   | xz      |   | zy |     xy at z = depth / 2 (x right, y down)
//   | W x H   |   | W x D   |   | D  |     xz at y = height / 2 (x right, z down)
//   |         |   +---------+   | x  |     zy at x = width / 2 (z right, y down)
//   +---------+                 | H  |
//                               +----+
//
// the xy and zy views share their rows (y), the xy and xz views their
// columns (x), as a viewer's orthogonal views do.
Image colorizeVolume(const Labeling& labeling) {
    const int width = labeling.width, height = labeling.height, depth = labeling.depth;
    Image image(width + kViewGap + width + kViewGap + depth, std::max(height, depth), 4);
    for (std::size_t i = 0; i < std::size_t(image.width) * std::size_t(image.height); ++i) {
        for (int c = 0; c < 3; ++c) image.pixels[i * 4 + std::size_t(c)] = kGapGray;
        image.pixels[i * 4 + 3] = 255;
    }
    const auto paint = [&](int x, int y, std::uint32_t label) {
        std::uint8_t* out = image.pixels.data() + (std::size_t(y) * std::size_t(image.width) + std::size_t(x)) * 4;
        labelColor(label, out);
    };
    const int middleZ = depth / 2, middleY = height / 2, middleX = width / 2;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) paint(x, y, labeling.at(x, y, middleZ));
    for (int z = 0; z < depth; ++z)
        for (int x = 0; x < width; ++x) paint(width + kViewGap + x, z, labeling.at(x, middleY, z));
    for (int y = 0; y < height; ++y)
        for (int z = 0; z < depth; ++z) paint(2 * (width + kViewGap) + z, y, labeling.at(middleX, y, z));
    return image;
}

}  // namespace

Image colorizeLabels(const Labeling& labeling) {
    detail::checkLabeling("glccl::colorizeLabels(): ", labeling);
    if (labeling.dimensions == 3) return colorizeVolume(labeling);
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

// Shortest fixed notation that reads back to the same double.
void appendDouble(std::string& text, double value) {
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
    text.append(buffer, result.ptr);
}

}  // namespace

const char kStatsCsvHeader[] = "label,left,top,width,height,area,centroid_x,centroid_y\n";
const char kVolumeStatsCsvHeader[] =
    "label,left,top,front,width,height,depth,area,centroid_x,centroid_y,centroid_z\n";

void appendStatsCsvRow(std::string& text, std::uint64_t label, const Component& c) {
    text += std::to_string(label) + ',' + std::to_string(c.left) + ',' + std::to_string(c.top) + ',' +
            std::to_string(c.width) + ',' + std::to_string(c.height) + ',' + std::to_string(c.area) + ',';
    appendDouble(text, c.centroidX);
    text += ',';
    appendDouble(text, c.centroidY);
    text += '\n';
}

void appendVolumeStatsCsvRow(std::string& text, std::uint64_t label, const Component& c) {
    text += std::to_string(label) + ',' + std::to_string(c.left) + ',' + std::to_string(c.top) + ',' +
            std::to_string(c.front) + ',' + std::to_string(c.width) + ',' + std::to_string(c.height) + ',' +
            std::to_string(c.depth) + ',' + std::to_string(c.area) + ',';
    appendDouble(text, c.centroidX);
    text += ',';
    appendDouble(text, c.centroidY);
    text += ',';
    appendDouble(text, c.centroidZ);
    text += '\n';
}

void writeStatsCsv(const std::string& path, const Labeling& labeling, bool overwrite) {
    const std::string where = "glccl::writeStatsCsv(): ";
    detail::OutputFile file(where, path, overwrite);
    const bool volume = labeling.dimensions == 3;
    std::string text = volume ? kVolumeStatsCsvHeader : kStatsCsvHeader;
    for (std::size_t i = 0; i < labeling.components.size(); ++i) {
        if (volume)
            appendVolumeStatsCsvRow(text, i + 1, labeling.components[i]);
        else
            appendStatsCsvRow(text, i + 1, labeling.components[i]);
        if (text.size() >= (std::size_t(1) << 20)) {
            file.write(text);
            text.clear();
        }
    }
    file.write(text);
    file.close();
}

}  // namespace glccl

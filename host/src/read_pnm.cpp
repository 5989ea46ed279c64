// Binary PGM and PPM (Netpbm P5 and P6), parsed here: the format is a short
// text header and raw samples, 8-bit (maxval up to 255) or 16-bit
// big-endian (maxval 256..65535). Samples keep their values (they are not
// rescaled to the full range: a segment map stays a segment map); a sample
// above maxval is an error. ASCII and 1-bit variants (P1-P4) are refused by
// readImage before this parser.

#include <algorithm>
#include <vector>

#include "image_decoders.hpp"

namespace glccl::detail {

namespace {

// Enough for any header with a few comments.
constexpr std::size_t kHeaderBytes = 4096;

struct PnmHeader {
    std::uint64_t width = 0, height = 0, maxValue = 0;
    std::size_t dataOffset = 0;
};

PnmHeader parseHeader(const ReadContext& context, const std::vector<std::uint8_t>& head) {
    PnmHeader header;
    std::size_t i = 2;
    const auto isSpace = [](std::uint8_t c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
    const auto endOfHeader = [&]() -> Error {
        if (head.size() == kHeaderBytes)
            return context.fail("PGM/PPM: its header is longer than " + std::to_string(kHeaderBytes) + " bytes");
        return context.fail("PGM/PPM: truncated: the file ends inside its header");
    };
    const auto number = [&](const char* what) {
        // Whitespace and comments ('#' to the end of the line) come before each number.
        for (;;) {
            while (i < head.size() && isSpace(head[i])) ++i;
            if (i >= head.size()) throw endOfHeader();
            if (head[i] != '#') break;
            while (i < head.size() && head[i] != '\n' && head[i] != '\r') ++i;
        }
        if (head[i] < '0' || head[i] > '9')
            throw context.fail(std::string("PGM/PPM: corrupt header: the ") + what + " is not a number");
        std::uint64_t value = 0;
        int digits = 0;
        while (i < head.size() && head[i] >= '0' && head[i] <= '9') {
            if (++digits > 9)
                throw context.fail(std::string("PGM/PPM: corrupt header: the ") + what + " is longer than 9 digits");
            value = value * 10 + std::uint64_t(head[i++] - '0');
        }
        if (i >= head.size()) throw endOfHeader();
        return value;
    };
    header.width = number("width");
    header.height = number("height");
    header.maxValue = number("maxval");
    // Exactly one whitespace byte separates the header from the samples.
    if (!isSpace(head[i])) throw context.fail("PGM/PPM: corrupt header: no whitespace after maxval");
    header.dataOffset = i + 1;
    return header;
}

}  // namespace

Image decodePnm(const ReadContext& context) {
    ByteSource& source = context.source;
    std::vector<std::uint8_t> head(std::size_t(std::min<std::uint64_t>(source.size(), kHeaderBytes)));
    if (!source.seek(0) || source.read(head.data(), head.size()) != head.size())
        throw context.fail("PGM/PPM: cannot read the file");
    const bool color = head[1] == '6';
    const PnmHeader header = parseHeader(context, head);
    const std::string problem = dimensionProblem(header.width, header.height);
    if (!problem.empty()) throw context.fail("PGM/PPM: the image " + problem);
    if (header.maxValue < 1 || header.maxValue > 65535)
        throw context.fail("PGM/PPM: maxval " + std::to_string(header.maxValue) + " is outside 1..65535");

    const std::size_t fileChannels = color ? 3 : 1;
    const std::size_t bytesPerSample = header.maxValue > 255 ? 2 : 1;
    const std::uint64_t needed =
        header.dataOffset + header.width * header.height * fileChannels * bytesPerSample;
    if (source.size() < needed)
        throw context.fail("PGM/PPM: truncated: its header promises " + std::to_string(header.width) + "x" +
                           std::to_string(header.height) + " pixels (" + std::to_string(needed) +
                           " bytes) but the file has " + std::to_string(source.size()) + " bytes");
    const int channels = color && context.mode == ChannelMode::Natural ? 4 : 1;
    const int sampleBits = int(bytesPerSample) * 8;
    checkClaimedSize(context, "PGM/PPM", header.width, header.height, channels, sampleBits);

    Image image(int(header.width), int(header.height), channels, sampleBits);
    std::vector<std::uint8_t> row(std::size_t(header.width) * fileChannels * bytesPerSample);
    source.seek(header.dataOffset);
    const std::uint32_t opaque = image.maxValue();
    for (std::uint64_t y = 0; y < header.height; ++y) {
        if (source.read(row.data(), row.size()) != row.size())
            throw context.fail("PGM/PPM: cannot read row " + std::to_string(y));
        for (std::uint64_t x = 0; x < header.width; ++x) {
            std::uint32_t sample[3] = {0, 0, 0};
            for (std::size_t c = 0; c < fileChannels; ++c) {
                const std::uint8_t* p = row.data() + (x * fileChannels + c) * bytesPerSample;
                sample[c] = bytesPerSample == 2 ? (std::uint32_t(p[0]) << 8) | p[1] : p[0];  // big-endian
                if (sample[c] > header.maxValue)
                    throw context.fail("PGM/PPM: corrupt: sample " + std::to_string(sample[c]) + " at (" +
                                       std::to_string(x) + ", " + std::to_string(y) + ") is above maxval " +
                                       std::to_string(header.maxValue));
            }
            const std::size_t i = std::size_t(y * header.width + x);
            if (!color) {
                image.setSample(i, 0, sample[0]);
            } else if (channels == 1) {
                image.setSample(i, 0, lumaOf(sample[0], sample[1], sample[2]));
            } else {
                for (int c = 0; c < 3; ++c) image.setSample(i, c, sample[c]);
                image.setSample(i, 3, opaque);
            }
        }
    }
    return image;
}

}  // namespace glccl::detail

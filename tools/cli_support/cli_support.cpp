#include "cli_support.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>
#include <tuple>

#include "byte_size_text.hpp"
#include "glccl/image_io.hpp"
#include "glccl/labeler.hpp"
#include "glccl/output_transaction.hpp"

namespace glccl::tools {

const TuningVariable kTuningVariables[26] = {
    {"GLCCL_TRANSFER", "transfer"},
    {"GLCCL_TRANSFER_BAND_BYTES", "transferBandBytes"},
    {"GLCCL_TRANSFER_BUFFERS", "transferBuffers"},
    {"GLCCL_COPY_THREADS", "copyThreads"},
    {"GLCCL_COMPUTE_PARENTS", "computeParents"},
    {"GLCCL_RASTER_LOCAL", "rasterLocal"},
    {"GLCCL_RASTER_BLOCK_WIDTH", "rasterBlockWidth"},
    {"GLCCL_RASTER_RESOLVE", "rasterResolve"},
    {"GLCCL_RASTER_TABLE", "rasterTable"},
    {"GLCCL_RASTER_TABLE_LOCAL", "rasterTableLocal"},
    {"GLCCL_RASTER_COLUMN_DRAWS", "rasterColumnDraws"},
    {"GLCCL_RASTER_NUMBERING", "rasterNumbering"},
    {"GLCCL_RASTER_BORDER_ROUNDS", "rasterBorderRounds"},
    {"GLCCL_RASTER_COLUMN_GROUP", "rasterColumnGroup"},
    {"GLCCL_RASTER_SCATTER_GROUP", "rasterScatterGroup"},
    {"GLCCL_RASTER_RESOLVE_GROUP", "rasterResolveGroup"},
    {"GLCCL_RASTER_RESOLVE_CHECK", "rasterResolveCheck"},
    {"GLCCL_RASTER_RESOLVE_AHEAD", "rasterResolveAhead"},
    {"GLCCL_RASTER_TABLE_READS", "rasterTableReads"},
    {"GLCCL_RASTER_RUN_HOPS", "rasterRunHops"},
    {"GLCCL_RASTER_TILE_ROWS", "rasterTileRows"},
    {"GLCCL_RASTER_BITS_SPREAD", "rasterBitsSpread"},
    {"GLCCL_RASTER_TABLE_SPREAD", "rasterTableSpread"},
    {"GLCCL_RASTER_TABLE_SUMS", "rasterTableSums"},
    {"GLCCL_RASTER_TABLE_PACK", "rasterTablePack"},
    {"GLCCL_SHADER_DIR", "shaderDir"},
};

Tuning tuningFromEnvironment(Tuning tuning) {
    static const std::string kPrefix = "glccl::Tuning::set(): ";
    for (const TuningVariable& entry : kTuningVariables) {
        const char* value = std::getenv(entry.variable);
        if (value == nullptr || *value == '\0') continue;
        try {
            tuning.set(entry.knob, value);
        } catch (const Error& error) {
            // "transfer is 'fast'; expected ..." told by the variable's name.
            std::string message = error.what();
            if (message.rfind(kPrefix, 0) == 0) message.erase(0, kPrefix.size());
            if (message.rfind(entry.knob, 0) == 0) message.replace(0, std::strlen(entry.knob), entry.variable);
            throw Error(message);
        }
    }
    return tuning;
}

std::vector<std::string> unknownTuningVariables(const char* const* environment) {
    static constexpr std::string_view kFamilies[] = {"GLCCL_RASTER_", "GLCCL_TRANSFER", "GLCCL_COPY_", "GLCCL_COMPUTE_",
                                                     "GLCCL_SHADER_"};
    static constexpr std::string_view kScriptSuffix = "_SIZES";
    std::vector<std::string> known;
    for (const TuningVariable& entry : kTuningVariables) known.push_back(entry.variable);
    std::vector<std::string> unknown;
    for (; environment != nullptr && *environment != nullptr; ++environment) {
        const std::string_view entry(*environment);
        const std::string name(entry.substr(0, entry.find('=')));
        if (std::find(known.begin(), known.end(), name) != known.end()) continue;
        const bool family = std::any_of(std::begin(kFamilies), std::end(kFamilies),
                                        [&](std::string_view prefix) { return name.rfind(prefix, 0) == 0; });
        const bool script = name.size() >= kScriptSuffix.size() &&
                            name.compare(name.size() - kScriptSuffix.size(), kScriptSuffix.size(), kScriptSuffix) == 0;
        if (family && !script) unknown.push_back(name + " is not a tuning variable and is ignored" + didYouMean(name, known));
    }
    return unknown;
}

void applyTuningEnvironment(const char* program, bool notes) {
    if (notes)
        for (const std::string& note : unknownTuningVariables(environ)) std::cerr << program << ": note: " << note << '\n';
    setTuning(tuningFromEnvironment(tuning()));
}

std::pair<std::string, std::optional<std::string>> ArgumentCursor::splitOption(const std::string& arg) {
    const auto equals = arg.find('=');
    if (arg.rfind("--", 0) != 0 || equals == std::string::npos) return {arg, std::nullopt};
    return {arg.substr(0, equals), arg.substr(equals + 1)};
}

std::string ArgumentCursor::valueOf(const std::string& option, std::optional<std::string> inlineValue) {
    std::string value;
    if (inlineValue) {
        value = *inlineValue;
    } else if (!done()) {
        value = take();
    }
    if (value.empty()) throw UsageError("option " + option + " needs a value");
    return value;
}

bool isHelpFlag(std::string_view arg) { return arg == "--help" || arg == "-h"; }

std::string inputMessage(const std::string& input, const std::string& message) {
    std::string text = userMessage(message);
    const std::string quoted = "'" + input + "': ";
    if (text.rfind(quoted, 0) == 0) text.erase(0, quoted.size());
    return text;
}

namespace {

// Edits that turn `a` into `b`: insertions, deletions, substitutions and
// swaps of two neighbouring letters (optimal string alignment).
std::size_t editDistance(const std::string& a, const std::string& b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

}  // namespace

std::string didYouMean(const std::string& given, const std::vector<std::string>& known) {
    const std::string name = ArgumentCursor::splitOption(given).first;
    const std::size_t letters = name.size() - std::min(name.find_first_not_of('-'), name.size());
    std::string best;
    std::size_t bestDistance = 3;  // at most two edits, and fewer than a third of the letters
    std::vector<std::string> extending;
    for (const std::string& candidate : known) {
        const std::size_t distance = editDistance(name, candidate);
        if (distance < bestDistance && distance * 3 <= letters) {
            best = candidate;
            bestDistance = distance;
        }
        if (letters >= 3 && candidate.size() > name.size() && candidate.rfind(name, 0) == 0)
            extending.push_back(candidate);
    }
    if (best.empty() && extending.size() == 1) best = extending.front();
    return best.empty() ? "" : "; did you mean '" + best + "'?";
}

UsageError unknownOption(const std::string& arg, const std::string& command, const std::vector<std::string>& known) {
    return UsageError("unknown option '" + arg + "' for " + command + didYouMean(arg, known) + " (see glccl " +
                      command + " --help)");
}

const std::vector<std::string>& labelOptions() {
    static const std::vector<std::string> options = {
        "--backend", "--threads", "--connectivity", "--channel-axis", "--criterion", "--min-size", "--keep-largest",
        "--labels", "--stats", "--color", "--label-image", "--out-dir", "--force", "--json", "--timing", "--table",
        "--progress", "--quiet", "--tile", "--memory-limit", "--devices", "--label-type", "--properties",
        "--intensity", "--spacing", "--gl", "--help"};
    return options;
}

bool hasHelpFlag(const std::vector<std::string>& args) {
    return std::any_of(args.begin(), args.end(), [](const std::string& arg) { return isHelpFlag(arg); });
}

NpyChannelAxis parseChannelAxis(const std::string& text) {
    if (text == "-1" || text == "2") return NpyChannelAxis::Last;
    throw Error("'" + text + "' is not a channel axis; expected -1 or 2 (the last axis of a 3-D .npy: (height, "
                "width, 1|3|4)); without the option a 3-D .npy is a volume");
}

std::vector<std::string> splitList(const std::string& option, const std::string& text) {
    if (text.empty()) throw UsageError(option + ": the list '" + text + "' is empty");
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = std::min(text.find(',', start), text.size());
        if (comma == start)  // "a,,b", ",a", "a,": an item left out is a typo, not a shorter list
            throw UsageError(option + ": the list '" + text + "' has an empty item (two commas together, or one at an "
                             "end)");
        items.push_back(text.substr(start, comma - start));
        start = comma + 1;
    }
    return items;
}

int parseInteger(const std::string& option, const std::string& text, int min, int max) {
    const bool digits =
        !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    errno = 0;
    const long value = digits ? std::strtol(text.c_str(), nullptr, 10) : 0;
    if (!digits || errno == ERANGE || value < min || value > max)
        throw UsageError(option + ": '" + text + "' is not an integer in " + std::to_string(min) + ".." +
                         std::to_string(max));
    return int(value);
}

std::pair<int, int> parseSize(const std::string& option, const std::string& text, bool allowSquare, int largest) {
    const auto cross = text.find('x');
    if (cross == std::string::npos) {
        if (!allowSquare) throw UsageError(option + ": '" + text + "' is not a size WIDTHxHEIGHT (e.g. 1024x768)");
        const int side = parseInteger(option, text, 1, largest);
        return {side, side};
    }
    return {parseInteger(option, text.substr(0, cross), 1, largest),
            parseInteger(option, text.substr(cross + 1), 1, largest)};
}

TileSize parseTileSize(const std::string& option, const std::string& text) {
    const auto crosses = std::count(text.begin(), text.end(), 'x');
    if (crosses > 2)
        throw UsageError(option + ": '" + text + "' is not a tile size; expected WxH, N (a square) or WxHxD (the "
                         "bricks of a volume), e.g. 4096x4096 or 256x256x256");
    TileSize tile;
    if (crosses < 2) {
        const auto [width, height] = parseSize(option, text, true);
        tile.width = std::uint32_t(width);
        tile.height = std::uint32_t(height);
        return tile;
    }
    const std::size_t first = text.find('x'), second = text.find('x', first + 1);
    tile.width = std::uint32_t(parseInteger(option, text.substr(0, first), 1, INT32_MAX));
    tile.height = std::uint32_t(parseInteger(option, text.substr(first + 1, second - first - 1), 1, INT32_MAX));
    tile.depth = std::uint32_t(parseInteger(option, text.substr(second + 1), 1, INT32_MAX));
    return tile;
}

std::uint64_t parseMemorySize(const std::string& option, const std::string& text) {
    std::uint64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [rest, error] = std::from_chars(text.data(), end, value);
    std::uint64_t unit = 1;
    const std::string suffix(rest, end);
    if (suffix == "K" || suffix == "k") unit = std::uint64_t(1) << 10;
    else if (suffix == "M" || suffix == "m") unit = std::uint64_t(1) << 20;
    else if (suffix == "G" || suffix == "g") unit = std::uint64_t(1) << 30;
    else if (suffix == "T" || suffix == "t") unit = std::uint64_t(1) << 40;
    else if (!suffix.empty()) unit = 0;
    if (error != std::errc() || rest == text.data() || unit == 0 || value == 0 || value > UINT64_MAX / unit)
        throw UsageError(option + ": '" + text + "' is not a memory size; expected bytes or a number with K, M, G "
                         "or T, e.g. 8G");
    return value * unit;
}

std::vector<int> parseDevices(const std::string& option, const std::string& text) {
    std::vector<int> devices;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        const std::string entry = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (entry.empty())
            throw UsageError(option + ": '" + text + "' has an empty entry; expected device numbers separated by "
                             "commas, e.g. 0,1");
        devices.push_back(parseInteger(option, entry, 0, 1023));
        if (comma == std::string::npos) return devices;
        start = comma + 1;
    }
}

std::string GeneratedInput::name() const { return family + "@" + std::to_string(width) + "x" + std::to_string(height); }

GeneratedInput parseGeneratedInput(const std::string& option, const std::string& text) {
    const auto at = text.find('@');
    if (at == std::string::npos || at == 0)
        throw UsageError(option + ": '" + text + "' is not FAMILY@WIDTHxHEIGHT (e.g. noise50@1024x768)");
    GeneratedInput input;
    input.family = text.substr(0, at);
    std::tie(input.width, input.height) = parseSize(option, text.substr(at + 1), false);
    return input;
}

std::string parentDirectory(const std::string& path) {
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

void checkOutputPath(const std::string& path, bool force) {
    // Said before "exists; use --force": --force replaces regular files only.
    const std::string kind = notReplaceableKind(path);
    if (!kind.empty()) throw Error("output '" + path + "' is " + kind + "; only a regular file is replaced");
    struct stat info {};
    std::string folder = parentDirectory(path);
    if (stat(path.c_str(), &info) == 0) {
        if (!force) throw Error("output '" + path + "' exists; use --force to overwrite it");
        if (access(path.c_str(), W_OK) != 0) throw Error("output '" + path + "' is not writable");
        // Replaced by a temporary beside the file (the file a link names),
        // renamed over it: its folder must take new files too.
        std::error_code error;
        const std::filesystem::path target = std::filesystem::canonical(path, error);
        if (!error) folder = target.parent_path().string();
        if (access(folder.c_str(), W_OK) != 0)
            throw Error("cannot replace '" + path + "': folder '" + folder + "' is not writable (the new file is "
                        "written beside the old one, then takes its name)");
        return;
    }
    if (stat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
        throw Error("cannot write '" + path + "': folder '" + folder + "' does not exist");
    if (access(folder.c_str(), W_OK) != 0)
        throw Error("cannot write '" + path + "': folder '" + folder + "' is not writable");
}

void checkOutputs(const std::vector<NamedOutput>& outputs, const std::vector<std::string>& inputs, bool force) {
    std::vector<std::pair<FileIdentity, const NamedOutput*>> seen;
    for (const NamedOutput& output : outputs) {
        FileIdentity identity;
        try {
            identity = fileIdentity(output.path);
        } catch (const Error&) {
            checkOutputPath(output.path, force);  // says which folder is missing
            throw;
        }
        for (const std::string& input : inputs)
            if (sameFile(output.path, input))
                throw UsageError(output.option + " '" + output.path + "' is the input '" + input +
                                 "'; write the output elsewhere");
        for (const auto& [other, earlier] : seen)
            if (other == identity)
                throw UsageError(earlier->option + " '" + earlier->path + "' and " + output.option + " '" +
                                 output.path + "' are one file");
        seen.emplace_back(identity, &output);
    }
    for (const NamedOutput& output : outputs) checkOutputPath(output.path, force);
}

void checkOutputExtension(const std::string& option, const std::string& path,
                          const std::vector<std::string>& extensions, const std::string& what) {
    std::string lower = path;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    for (const std::string& extension : extensions)
        if (lower.size() > extension.size() && lower.compare(lower.size() - extension.size(), extension.size(), extension) == 0 &&
            lower[lower.size() - extension.size() - 1] != '/')
            return;
    std::string list;
    for (std::size_t i = 0; i < extensions.size(); ++i)
        list += (i == 0 ? "" : i + 1 == extensions.size() ? " or " : ", ") + extensions[i];
    throw UsageError(option + " '" + path + "': " + what + " written as " + extensions.front() +
                     "; give a name ending in " + list);
}

void pauseBeforeCommitForTests() {
    const char* seconds = std::getenv("GLCCL_TEST_PAUSE_BEFORE_COMMIT");
    if (seconds == nullptr || *seconds == '\0') return;
    std::cerr << "glccl: test hook: pausing before the commit" << std::endl;
    const double wait = std::strtod(seconds, nullptr);
    if (wait > 0.0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
}

void installCommitPauseForTests() {
    const char* seconds = std::getenv("GLCCL_TEST_PAUSE_IN_COMMIT");
    if (seconds == nullptr || *seconds == '\0') return;
    const double wait = std::strtod(seconds, nullptr);
    setCommitPauseForTests([wait] {
        std::cerr << "glccl: test hook: pausing in the commit" << std::endl;
        if (wait > 0.0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    });
}

void printOutputNotes(const std::string& program, const std::vector<std::string>& notes) {
    for (const std::string& note : notes) std::cerr << program << ": note: " << note << '\n';
}

void checkInputFile(const std::string& path) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0 || S_ISREG(info.st_mode) || S_ISDIR(info.st_mode)) return;
    throw Error("input '" + path + "' is " + notReplaceableKind(path) +
                "; images and volumes are read from regular files (copy it to one first)");
}

namespace {

std::uint32_t bigEndian(const unsigned char* p, int bytes) {
    std::uint32_t value = 0;
    for (int i = 0; i < bytes; ++i) value = value << 8 | p[i];
    return value;
}

std::string decodeDescription(std::uint64_t width, std::uint64_t height, int channels, int bits) {
    return std::to_string(width) + "x" + std::to_string(height) + ", " + std::to_string(channels) +
           (channels == 1 ? " channel of " : " channels of ") + std::to_string(bits) + " bits";
}

}  // namespace

std::optional<WholeDecode> wholeDecodeSize(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) return std::nullopt;
    unsigned char head[26] = {};
    const std::size_t got = std::fread(head, 1, sizeof head, file);
    std::optional<WholeDecode> result;
    static const unsigned char kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (got == sizeof head && std::memcmp(head, kPng, 8) == 0 && std::memcmp(head + 12, "IHDR", 4) == 0) {
        // IHDR: width, height, bit depth, colour type (PNG spec 11.2.2).
        const std::uint64_t width = bigEndian(head + 16, 4), height = bigEndian(head + 20, 4);
        const int bits = head[24], colorType = head[25];
        const int channels = colorType == 0 ? 1 : colorType == 2 ? 3 : colorType == 3 ? 3 : colorType == 4 ? 2 : 4;
        const int sampleBytes = bits > 8 ? 2 : 1;
        result = WholeDecode{width * height * std::uint64_t(channels * sampleBytes),
                             decodeDescription(width, height, channels, colorType == 3 ? 8 : bits)};
    } else if (got >= 2 && head[0] == 0xFF && head[1] == 0xD8) {
        // JPEG: the first start-of-frame marker (SOF0..SOF15 but DHT, JPG,
        // DAC) holds precision, height, width and components.
        std::fseek(file, 2, SEEK_SET);
        unsigned char marker[4];
        while (std::fread(marker, 1, 4, file) == 4 && marker[0] == 0xFF) {
            const int type = marker[1];
            const long length = long(bigEndian(marker + 2, 2));
            if (type >= 0xC0 && type <= 0xCF && type != 0xC4 && type != 0xC8 && type != 0xCC) {
                unsigned char frame[6];
                if (std::fread(frame, 1, 6, file) != 6) break;
                const int bits = frame[0], channels = frame[5];
                const std::uint64_t height = bigEndian(frame + 1, 2), width = bigEndian(frame + 3, 2);
                result = WholeDecode{width * height * std::uint64_t(channels) * (bits > 8 ? 2 : 1),
                                     decodeDescription(width, height, channels, bits)};
                break;
            }
            if (length < 2 || std::fseek(file, length - 2, SEEK_CUR) != 0) break;
        }
    }
    std::fclose(file);
    return result;
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> tiffSize(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) return std::nullopt;
    const auto read = [&](std::uint64_t offset, unsigned char* out, std::size_t count) {
        return std::fseek(file, long(offset), SEEK_SET) == 0 && std::fread(out, 1, count, file) == count;
    };
    std::optional<std::pair<std::uint64_t, std::uint64_t>> result;
    unsigned char head[16] = {};
    if (read(0, head, 16) && (head[0] == 'I' || head[0] == 'M') && head[1] == head[0]) {
        const bool little = head[0] == 'I';
        const auto number = [&](const unsigned char* p, int bytes) {
            std::uint64_t value = 0;
            for (int i = 0; i < bytes; ++i) value |= std::uint64_t(p[little ? i : bytes - 1 - i]) << (8 * i);
            return value;
        };
        // TIFF 6.0 (42) and BigTIFF (43): where the first directory starts,
        // how wide its entry count and entries are.
        const std::uint64_t version = number(head + 2, 2);
        const bool big = version == 43;
        const std::uint64_t directory = big ? number(head + 8, 8) : number(head + 4, 4);
        const int countBytes = big ? 8 : 2, entryBytes = big ? 20 : 12;
        unsigned char count[8] = {};
        if ((version == 42 || big) && read(directory, count, std::size_t(countBytes))) {
            const std::uint64_t entries = std::min<std::uint64_t>(number(count, countBytes), 4096);
            std::uint64_t width = 0, height = 0;
            for (std::uint64_t i = 0; i < entries; ++i) {
                unsigned char entry[20] = {};
                if (!read(directory + std::uint64_t(countBytes) + i * std::uint64_t(entryBytes), entry,
                          std::size_t(entryBytes)))
                    break;
                const std::uint64_t tag = number(entry, 2), type = number(entry + 2, 2);
                const unsigned char* value = entry + (big ? 12 : 8);
                const std::uint64_t v = type == 3 ? number(value, 2) : type == 4 ? number(value, 4)
                                      : type == 16 ? number(value, 8) : 0;
                if (tag == 256) width = v;
                if (tag == 257) height = v;
            }
            if (width > 0 && height > 0) result = std::make_pair(width, height);
        }
    }
    std::fclose(file);
    return result;
}

void checkDecodeFitsMemoryLimit(const std::string& path, std::uint64_t memoryLimit) {
    if (memoryLimit == 0) return;
    const std::optional<WholeDecode> decode = wholeDecodeSize(path);
    if (!decode || decode->bytes <= memoryLimit) return;
    throw UsageError("'" + path + "' is " + decode->description + ": decoded whole, its samples take " +
                     exactSize(decode->bytes) + ", more than --memory-limit " + exactSize(memoryLimit) +
                     "; PNG and JPEG files are decoded whole (tiles stream .npy and TIFF files): convert it to "
                     ".npy or TIFF, or raise the limit");
}

std::string exactSize(std::uint64_t bytes) {
    const std::string whole = detail::wholeUnitSize(bytes);
    if (!whole.empty()) return whole;
    if (bytes >= (std::uint64_t(1) << 20)) return formatted("%.1f", double(bytes) / double(1 << 20)) + " MiB";
    return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

std::string raiseTinyTiles(std::uint32_t& tileWidth, std::uint32_t& tileHeight, std::uint32_t& tileDepth,
                           std::uint64_t width, std::uint64_t height, std::uint64_t depth) {
    if (tileWidth == 0 || tileHeight == 0) return "";  // chosen by the planner
    const bool volume = depth > 1 || tileDepth > 0;
    const std::uint32_t side = volume ? kMinBrickSide : kMinTileSide;
    const std::uint64_t tileZ = volume && tileDepth > 0 ? tileDepth : 1;
    const auto pieces = [](std::uint64_t extent, std::uint64_t tile) { return (extent + tile - 1) / tile; };
    const std::uint64_t count = pieces(width, tileWidth) * pieces(height, tileHeight) * pieces(depth, tileZ);
    const bool small = tileWidth < side || tileHeight < side || (volume && tileDepth > 0 && tileDepth < side);
    if (!small || count <= kMaxTinyTiles) return "";
    const std::string given = std::to_string(tileWidth) + "x" + std::to_string(tileHeight) +
                              (volume && tileDepth > 0 ? "x" + std::to_string(tileDepth) : "");
    tileWidth = std::max(tileWidth, side);
    tileHeight = std::max(tileHeight, side);
    if (volume && tileDepth > 0) tileDepth = std::max(tileDepth, side);
    const std::string raised = std::to_string(tileWidth) + "x" + std::to_string(tileHeight) +
                               (volume && tileDepth > 0 ? "x" + std::to_string(tileDepth) : "");
    return "--tile " + given + " cuts the input into " + std::to_string(count) + " pieces, too small to make progress; " +
           "raised to " + raised + " (at least " + std::to_string(side) + " a side past " +
           std::to_string(kMaxTinyTiles) + " pieces)";
}

namespace {

// What an existing `path` that is not a folder is, for "'x' is ..., not a
// folder".
std::string kindOf(const std::string& path) {
    const std::string kind = notReplaceableKind(path);
    return kind.empty() ? "a regular file" : kind;
}

}  // namespace

void checkOutputFolder(const std::string& path) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) {
        if (lstat(path.c_str(), &info) == 0) throw Error("'" + path + "' is " + kindOf(path) + ", not a folder");
        throw Error("folder '" + path + "' does not exist");
    }
    if (!S_ISDIR(info.st_mode)) throw Error("'" + path + "' is " + kindOf(path) + ", not a folder");
    if (access(path.c_str(), W_OK) != 0) throw Error("folder '" + path + "' is not writable");
}

void checkFolderCanBeMade(const std::string& path) {
    struct stat info {};
    if (lstat(path.c_str(), &info) == 0) {
        checkOutputFolder(path);
        return;
    }
    // The nearest ancestor that exists must be a folder new ones can go into
    // ("." at the latest, "/" for an absolute path).
    for (std::filesystem::path ancestor = std::filesystem::path(path).parent_path();;
         ancestor = ancestor.parent_path()) {
        const std::string name = ancestor.empty() ? "." : ancestor.string();
        if (lstat(name.c_str(), &info) != 0) {
            if (ancestor.empty() || ancestor == ancestor.root_path())
                throw Error("cannot make folder '" + path + "': no folder above it exists");
            continue;
        }
        if (stat(name.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
            throw Error("cannot make folder '" + path + "': '" + name + "' is " + kindOf(name) + ", not a folder");
        if (access(name.c_str(), W_OK) != 0)
            throw Error("cannot make folder '" + path + "': folder '" + name + "' is not writable");
        return;
    }
}

void makeFolders(const std::string& path) {
    std::error_code error;
    std::filesystem::create_directories(path, error);
    if (error) throw Error("cannot make folder '" + path + "': " + error.message());
}

std::string formatted(const char* format, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

void printAlignedTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                       const std::vector<std::size_t>& leftAligned) {
    std::vector<std::size_t> widths;
    for (const auto& row : rows) {
        if (widths.size() < row.size()) widths.resize(row.size(), 0);
        for (std::size_t column = 0; column < row.size(); ++column)
            widths[column] = std::max(widths[column], row[column].size());
    }
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t column = 0; column < row.size(); ++column) {
            if (column > 0) line += "  ";
            const std::string padding(widths[column] - row[column].size(), ' ');
            const bool left = std::find(leftAligned.begin(), leftAligned.end(), column) != leftAligned.end();
            line += left ? row[column] + padding : padding + row[column];
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out << line << '\n';
    }
}

ProgressLine::ProgressLine() : terminal_(isatty(STDERR_FILENO) == 1) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::update(const std::string& text, bool step) {
    if (terminal_) {
        std::fprintf(stderr, "\r%s\033[K", text.c_str());
        shown_ = true;
    } else if (step) {
        std::fprintf(stderr, "%s\n", text.c_str());
    }
    std::fflush(stderr);
}

void ProgressLine::clear() {
    if (!shown_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
}

bool isLongStep(const Image& image) { return std::uint64_t(image.width) * std::uint64_t(image.height) >= (1u << 20); }

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (const char c : text) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

namespace {

// Length of the UTF-8 sequence starting at text[at], or 0 when it is not a
// well-formed one (overlong forms, surrogates and values past U+10FFFF are not).
std::size_t utf8SequenceLength(std::string_view text, std::size_t at) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(at);
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else {
        return 0;
    }
    if (at + length > text.size()) return 0;
    if (byte(at + 1) < low || byte(at + 1) > high) return 0;
    for (std::size_t i = 2; i < length; ++i)
        if (byte(at + i) < 0x80 || byte(at + i) > 0xBF) return 0;
    return length;
}

}  // namespace

std::string jsonString(std::string_view text) {
    std::string out = "\"";
    for (std::size_t at = 0; at < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[at]);
        if (c >= 0x80) {
            const std::size_t length = utf8SequenceLength(text, at);
            if (length == 0) {
                out += "\\ufffd";
                ++at;
            } else {
                out.append(text.substr(at, length));
                at += length;
            }
            continue;
        }
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                    out += escaped;
                } else {
                    out += char(c);
                }
        }
        ++at;
    }
    return out + '"';
}

std::string jsonNumber(double value) {
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

JsonWriter& JsonWriter::key(std::string_view name) {
    beforeValue();
    text_ += jsonString(name);
    text_ += ':';
    afterKey_ = true;
    return *this;
}

JsonWriter& JsonWriter::string(std::string_view text) {
    beforeValue();
    text_ += jsonString(text);
    return *this;
}

JsonWriter& JsonWriter::number(double value) {
    beforeValue();
    text_ += jsonNumber(value);
    return *this;
}

JsonWriter& JsonWriter::integer(std::uint64_t value) {
    beforeValue();
    text_ += std::to_string(value);
    return *this;
}

JsonWriter& JsonWriter::null() {
    beforeValue();
    text_ += "null";
    return *this;
}

std::string JsonWriter::take() { return std::exchange(text_, std::string()); }

Connectivity connectivityFor(const LabelCommand& command, const Shape& shape) {
    if (command.connectivityGiven) return command.connectivity;
    return shape.dimensions == 3 ? Connectivity::TwentySix : Connectivity::Eight;
}

void writeComponentJson(JsonWriter& json, std::uint64_t label, const Component& c, bool volume) {
    json.beginObject();
    json.key("label").integer(label);
    json.key("left").integer(c.left);
    json.key("top").integer(c.top);
    if (volume) json.key("front").integer(c.front);
    json.key("width").integer(c.width);
    json.key("height").integer(c.height);
    if (volume) json.key("depth").integer(c.depth);
    json.key("area").integer(c.area);
    json.key("centroid_x").number(c.centroidX);
    json.key("centroid_y").number(c.centroidY);
    if (volume) json.key("centroid_z").number(c.centroidZ);
    json.endObject();
}

std::vector<std::string> componentTableHeader(bool volume) {
    if (volume)
        return {"label", "left", "top", "front", "width", "height", "depth", "area", "centroid_x", "centroid_y",
                "centroid_z"};
    return {"label", "left", "top", "width", "height", "area", "centroid_x", "centroid_y"};
}

std::vector<std::string> componentTableRow(std::uint64_t label, const Component& c, bool volume) {
    if (volume)
        return {std::to_string(label),    std::to_string(c.left),       std::to_string(c.top),
                std::to_string(c.front),  std::to_string(c.width),      std::to_string(c.height),
                std::to_string(c.depth),  std::to_string(c.area),       formatted("%.2f", c.centroidX),
                formatted("%.2f", c.centroidY), formatted("%.2f", c.centroidZ)};
    return {std::to_string(label), std::to_string(c.left), std::to_string(c.top), std::to_string(c.width),
            std::to_string(c.height), std::to_string(c.area), formatted("%.2f", c.centroidX),
            formatted("%.2f", c.centroidY)};
}

JsonWriter& JsonWriter::open(char bracket) {
    beforeValue();
    text_ += bracket;
    hasMembers_.push_back(false);
    return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
    text_ += bracket;
    hasMembers_.pop_back();
    return *this;
}

// A value after a key follows its colon; any other value or key is a new
// member, after a comma unless it is the first.
void JsonWriter::beforeValue() {
    if (afterKey_) {
        afterKey_ = false;
        return;
    }
    if (hasMembers_.empty()) return;
    if (hasMembers_.back()) text_ += ',';
    hasMembers_.back() = true;
}

bool hasImageExtension(const std::string& path) {
    const auto dot = path.find_last_of('.');
    const auto slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return false;
    std::string extension = path.substr(dot);
    for (char& c : extension) c = char(std::tolower(static_cast<unsigned char>(c)));
    for (const char* supported : {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".pgm", ".ppm"})
        if (extension == supported) return true;
    return false;
}

std::string fileStem(const std::string& path) {
    const auto slash = path.find_last_of('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    const auto dot = name.find_last_of('.');
    if (dot != std::string::npos && dot > 0) name.erase(dot);
    return name;
}

// ---------------------------------------------------------------- glccl label

namespace {

bool hasOutDir(ArgumentCursor cursor) {
    while (!cursor.done()) {
        const std::string arg = cursor.take();
        if (ArgumentCursor::splitOption(arg).first == "--out-dir") return true;
    }
    return false;
}

std::string lowerExtension(const std::string& path) {
    const auto dot = path.find_last_of('.');
    const auto slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
    std::string extension = path.substr(dot);
    for (char& c : extension) c = char(std::tolower(static_cast<unsigned char>(c)));
    return extension;
}

}  // namespace

LabelImageFormat labelImageFormatOf(const std::string& option, const std::string& path) {
    const std::string extension = lowerExtension(path);
    if (extension == ".png") return LabelImageFormat::Png16;
    if (extension == ".tif" || extension == ".tiff") return LabelImageFormat::Tiff32;
    throw UsageError(option + " '" + path + "': the name must end in .png (a 16-bit PNG, labels up to 65535) or "
                     ".tif/.tiff (a 32-bit TIFF)");
}

// --labels, --stats, --color and --label-image take a path, or, once
// --out-dir is given anywhere on the line, no value at all: "--out-dir out
// --labels a.png" must not read a.png as the labels' path. So --out-dir is
// looked for first.
LabelCommand parseLabelCommand(ArgumentCursor& cursor) {
    LabelCommand options;
    const bool switches = hasOutDir(cursor);
    while (!cursor.done()) {
        const std::string arg = cursor.take();
        // Named variables, not a structured binding: the lambda below captures
        // them (C++17 does not let lambdas capture structured bindings).
        const auto split = ArgumentCursor::splitOption(arg);
        const std::string name = split.first;
        const std::optional<std::string> inlineValue = split.second;
        const auto output = [&](std::string& path, bool& wanted) {
            // A second one would silently win over the first.
            if (!path.empty() || wanted) throw UsageError("option " + name + " is given twice");
            if (!switches) {
                if (!inlineValue && cursor.done())
                    throw UsageError("option " + name + " needs a value: a file for one INPUT, or no value "
                                     "together with --out-dir DIR");
                path = cursor.valueOf(name, inlineValue);
            } else if (inlineValue) {
                throw UsageError("option " + name + " takes no value with --out-dir: the file names come from "
                                 "the inputs (see glccl label --help)");
            } else {
                wanted = true;
            }
        };
        if (name == "--backend") {
            options.backend = parseOptionValue(name, cursor.valueOf(name, inlineValue), parseBackend);
        } else if (name == "--threads") {
            options.threads = parseInteger(name, cursor.valueOf(name, inlineValue), 1, kMostThreads);
        } else if (name == "--connectivity") {
            options.connectivity = parseOptionValue(name, cursor.valueOf(name, inlineValue), parseConnectivity);
            options.connectivityGiven = true;
        } else if (name == "--channel-axis") {
            options.channelAxis = parseOptionValue(name, cursor.valueOf(name, inlineValue), parseChannelAxis);
        } else if (name == "--criterion") {
            options.criterion = parseOptionValue(name, cursor.valueOf(name, inlineValue), Criterion::parse);
        } else if (name == "--labels") {
            output(options.paths.labels, options.writeLabels);
            if (!switches) checkOutputExtension(name, options.paths.labels, {".npy"}, "the labels are");
        } else if (name == "--stats") {
            output(options.paths.stats, options.writeStats);
            if (!switches) checkOutputExtension(name, options.paths.stats, {".csv"}, "the component table is");
        } else if (name == "--color") {
            output(options.paths.color, options.writeColor);
            if (!switches) checkOutputExtension(name, options.paths.color, {".png"}, "the colored labels are");
        } else if (name == "--label-image") {
            output(options.paths.labelImage, options.writeLabelImage);
            if (!switches) labelImageFormatOf(name, options.paths.labelImage);
        } else if (name == "--out-dir") {
            if (!options.outDir.empty()) throw UsageError("option --out-dir is given twice");
            options.outDir = cursor.valueOf(name, inlineValue);
        } else if (name == "--force" && !inlineValue) {
            options.force = true;
        } else if (name == "--json" && !inlineValue) {
            options.json = true;
        } else if (name == "--timing" && !inlineValue) {
            options.timing = true;
        } else if (name == "--table" && !inlineValue) {
            options.table = true;
        } else if (name == "--progress" && !inlineValue) {
            options.progress = true;
        } else if (name == "--quiet" && !inlineValue) {
            options.quiet = true;
        } else if (arg.size() > 1 && arg[0] == '-') {
            throw unknownOption(arg, "label", labelOptions());
        } else {
            options.arguments.push_back(arg);
        }
    }
    if (options.arguments.empty()) throw UsageError("label needs an INPUT image (see glccl label --help)");
    if (switches && !options.writeLabels && !options.writeStats && !options.writeColor && !options.writeLabelImage)
        throw UsageError(
            "--out-dir needs at least one of --labels, --stats, --color, --label-image (given without a value)");
    return options;
}

}  // namespace glccl::tools

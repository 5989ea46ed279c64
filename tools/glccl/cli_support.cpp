#include "cli_support.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <tuple>

#include "glccl/image_io.hpp"

namespace glccl::tools {

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

bool hasHelpFlag(const std::vector<std::string>& args) {
    return std::any_of(args.begin(), args.end(), [](const std::string& arg) { return isHelpFlag(arg); });
}

std::vector<std::string> splitList(const std::string& option, const std::string& text) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = std::min(text.find(',', start), text.size());
        if (comma > start) items.push_back(text.substr(start, comma - start));
        start = comma + 1;
    }
    if (items.empty()) throw UsageError(option + ": the list '" + text + "' is empty");
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

std::pair<int, int> parseSize(const std::string& option, const std::string& text, bool allowSquare) {
    const auto cross = text.find('x');
    if (cross == std::string::npos) {
        if (!allowSquare) throw UsageError(option + ": '" + text + "' is not a size WIDTHxHEIGHT (e.g. 1024x768)");
        const int side = parseInteger(option, text, 1, kMaxImageDimension);
        return {side, side};
    }
    return {parseInteger(option, text.substr(0, cross), 1, kMaxImageDimension),
            parseInteger(option, text.substr(cross + 1), 1, kMaxImageDimension)};
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
    struct stat info {};
    if (stat(path.c_str(), &info) == 0) {
        if (S_ISDIR(info.st_mode)) throw Error("output '" + path + "' is a directory");
        if (!force) throw Error("output '" + path + "' exists; use --force to overwrite it");
        if (access(path.c_str(), W_OK) != 0) throw Error("output '" + path + "' is not writable");
        return;
    }
    const std::string folder = parentDirectory(path);
    if (stat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
        throw Error("cannot write '" + path + "': folder '" + folder + "' does not exist");
    if (access(folder.c_str(), W_OK) != 0)
        throw Error("cannot write '" + path + "': folder '" + folder + "' is not writable");
}

void checkOutputFolder(const std::string& path) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) throw Error("folder '" + path + "' does not exist");
    if (access(path.c_str(), W_OK) != 0) throw Error("folder '" + path + "' is not writable");
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

}  // namespace glccl::tools

// The glccl command line: label an image file with one of the backends and
// write the labels, the component table and a colored picture.
//
//   glccl label INPUT [--backend cpu|raster|cuda] [--connectivity 4|8]
//                     [--criterion binary|segments|threshold:T]
//                     [--labels OUT.npy] [--stats OUT.csv] [--color OUT.png] [--force]
//
// Exit status: 0 success, 1 runtime error (unreadable input, existing or
// unwritable output, backend unavailable), 2 usage error.

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <iterator>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "glccl/types.hpp"

#ifndef GLCCL_VERSION
#define GLCCL_VERSION "0.1.0"
#endif

namespace glccl::tools {
namespace {

constexpr std::size_t kTableRows = 10;

const char kGeneralHelp[] =
    "usage: glccl <command> [options]\n"
    "\n"
    "Connected-component labeling of 2-D images on the GPU (OpenGL/GLSL, CUDA)\n"
    "with a CPU reference.\n"
    "\n"
    "commands:\n"
    "  label INPUT [options]   label an image file, print the component table\n"
    "  validate [INPUT...]     check the GPU backends against the CPU reference\n"
    "  bench [IMAGE...]        time the backends on generated images and files\n"
    "  help [COMMAND]          show this help or the help of COMMAND\n"
    "\n"
    "  glccl --help            show this help\n"
    "  glccl --version         show the version\n"
    "\n"
    "Run 'glccl COMMAND --help' for the options of a command.\n";

const char kLabelHelp[] =
    "usage: glccl label INPUT [options]\n"
    "\n"
    "Labels the connected components of INPUT (PNG, JPEG, BMP, TGA, binary PGM/PPM;\n"
    "up to 32768 pixels per side), prints a summary line and the first rows of the\n"
    "component table, and writes the requested outputs.\n"
    "\n"
    "options:\n"
    "  --backend cpu|raster|cuda     labeling backend (default cpu)\n"
    "                                  cpu     union-find reference on the CPU\n"
    "                                  raster  GLSL pipeline in a headless GL context\n"
    "                                  cuda    tiled union-find on a CUDA device\n"
    "  --connectivity 4|8            pixel neighbourhood (default 8)\n"
    "  --criterion C                 which neighbours belong together (default binary)\n"
    "                                  binary       nonzero is foreground (color is read as luma)\n"
    "                                  segments     8-bit segment ids, 0 is background,\n"
    "                                               neighbours connect when equal\n"
    "                                  threshold:T  every pixel is foreground; neighbours connect\n"
    "                                               when each channel differs by at most T (0..255)\n"
    "  --labels OUT.npy              write the labels: uint32 array of shape (height, width)\n"
    "  --stats OUT.csv               write the component table as CSV\n"
    "  --color OUT.png               write the labels as a colored PNG (background black)\n"
    "  --force                       overwrite existing output files\n"
    "  -h, --help                    show this help\n"
    "\n"
    "Labels are 0 for background and 1..N in raster order of each component's\n"
    "first pixel (the numbering of OpenCV's SAUF and scikit-image's label).\n"
    "\n"
    "examples:\n"
    "  glccl label mask.png --color labels.png --stats stats.csv\n"
    "  glccl label mask.png --connectivity 4 --labels labels.npy\n"
    "  glccl label photo.jpg --criterion threshold:12 --color regions.png\n";

struct LabelOptions {
    std::string input;
    Backend backend = Backend::Cpu;
    Connectivity connectivity = Connectivity::Eight;
    Criterion criterion = Criterion::binary();
    std::string labelsPath;
    std::string statsPath;
    std::string colorPath;
    bool force = false;
};

LabelOptions parseLabelOptions(ArgumentCursor& cursor) {
    LabelOptions options;
    bool haveInput = false;
    while (!cursor.done()) {
        const std::string arg = cursor.take();
        auto [name, inlineValue] = ArgumentCursor::splitOption(arg);
        if (name == "--backend") {
            options.backend = parseOptionValue(name, cursor.valueOf(name, inlineValue), parseBackend);
        } else if (name == "--connectivity") {
            options.connectivity = parseOptionValue(name, cursor.valueOf(name, inlineValue), parseConnectivity);
        } else if (name == "--criterion") {
            options.criterion = parseOptionValue(name, cursor.valueOf(name, inlineValue), Criterion::parse);
        } else if (name == "--labels") {
            options.labelsPath = cursor.valueOf(name, inlineValue);
        } else if (name == "--stats") {
            options.statsPath = cursor.valueOf(name, inlineValue);
        } else if (name == "--color") {
            options.colorPath = cursor.valueOf(name, inlineValue);
        } else if (name == "--force" && !inlineValue) {
            options.force = true;
        } else if (arg.size() > 1 && arg[0] == '-') {
            throw UsageError("unknown option '" + arg + "' for label (see glccl label --help)");
        } else if (haveInput) {
            throw UsageError("label takes one INPUT, got '" + options.input + "' and '" + arg + "'");
        } else {
            options.input = arg;
            haveInput = true;
        }
    }
    if (!haveInput) throw UsageError("label needs an INPUT image (see glccl label --help)");
    return options;
}

// Checks every output before any labeling work, so that a run either writes
// all requested files or none: nothing exists unless --force, the folder
// exists and is writable, and no two outputs share a path.
void checkOutputs(const LabelOptions& options) {
    const std::pair<const char*, const std::string*> outputs[] = {
        {"--labels", &options.labelsPath}, {"--stats", &options.statsPath}, {"--color", &options.colorPath}};
    for (std::size_t i = 0; i < std::size(outputs); ++i) {
        const auto& [option, path] = outputs[i];
        if (path->empty()) continue;
        for (std::size_t j = i + 1; j < std::size(outputs); ++j) {
            if (*outputs[j].second == *path)
                throw UsageError(std::string(option) + " and " + outputs[j].first + " both name '" + *path + "'");
        }
        checkOutputPath(*path, options.force);
    }
}

// The first rows of the component table, columns right-aligned to their
// widest cell.
void printComponentTable(const Labeling& labeling) {
    const std::vector<std::string> header = {"label", "left", "top", "width", "height", "area", "centroid_x",
                                             "centroid_y"};
    std::vector<std::vector<std::string>> rows = {header};
    const std::size_t shown = std::min(labeling.count(), kTableRows);
    for (std::size_t i = 0; i < shown; ++i) {
        const Component& c = labeling.components[i];
        rows.push_back({std::to_string(i + 1), std::to_string(c.left), std::to_string(c.top), std::to_string(c.width),
                        std::to_string(c.height), std::to_string(c.area), formatted("%.2f", c.centroidX),
                        formatted("%.2f", c.centroidY)});
    }
    std::vector<std::size_t> widths(header.size(), 0);
    for (const auto& row : rows)
        for (std::size_t column = 0; column < row.size(); ++column)
            widths[column] = std::max(widths[column], row[column].size());
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t column = 0; column < row.size(); ++column) {
            if (column > 0) line += "  ";
            line += std::string(widths[column] - row[column].size(), ' ') + row[column];
        }
        std::cout << line << '\n';
    }
    if (labeling.count() > shown) std::cout << "... (" << labeling.count() - shown << " more)\n";
}

// Writes the requested outputs. checkOutputs() has caught the usual
// problems; should a write still fail (disk full, a file system that refuses
// the name), the outputs this run already wrote are removed again so that a
// failed run leaves no partial set of results.
void writeOutputs(const LabelOptions& options, const Labeling& labeling) {
    std::vector<std::string> written;
    try {
        if (!options.labelsPath.empty()) {
            writeLabelsNpy(options.labelsPath, labeling, options.force);
            written.push_back(options.labelsPath);
        }
        if (!options.statsPath.empty()) {
            writeStatsCsv(options.statsPath, labeling, options.force);
            written.push_back(options.statsPath);
        }
        if (!options.colorPath.empty()) {
            writePng(options.colorPath, colorizeLabels(labeling), options.force);
            written.push_back(options.colorPath);
        }
    } catch (...) {
        for (const std::string& path : written) std::remove(path.c_str());
        throw;
    }
}

int runLabel(ArgumentCursor& cursor) {
    const LabelOptions options = parseLabelOptions(cursor);
    checkOutputs(options);

    // Binary and segment criteria look at one value per pixel: color files are
    // reduced to luma on reading, as OpenCV's IMREAD_GRAYSCALE does. The
    // threshold criterion compares whole colors, so it keeps the channels.
    const ChannelMode mode =
        options.criterion.kind == Criterion::Kind::Threshold ? ChannelMode::Natural : ChannelMode::Gray;
    const Image image = readImage(options.input, mode);
    const BackendRun run = runBackend(options.backend, image, options.connectivity, options.criterion);
    const Labeling& labeling = run.labeling;

    writeOutputs(options, labeling);

    std::cout << options.input << ": " << image.width << 'x' << image.height << ", " << labeling.count()
              << (labeling.count() == 1 ? " component, " : " components, ") << formatted("%.2f", run.milliseconds)
              << " ms (" << backendName(options.backend) << ", " << run.device << ")\n";
    if (labeling.count() > 0) printComponentTable(labeling);
    for (const std::string* path : {&options.labelsPath, &options.statsPath, &options.colorPath})
        if (!path->empty()) std::cout << "wrote " << *path << '\n';
    return 0;
}

bool isHelpFlag(std::string_view arg) { return arg == "--help" || arg == "-h"; }

int runHelp(ArgumentCursor& cursor) {
    if (cursor.done()) {
        std::cout << kGeneralHelp;
        return 0;
    }
    const std::string topic = cursor.take();
    if (topic == "label") {
        std::cout << kLabelHelp;
        return 0;
    }
    for (const Command& command : subcommands()) {
        if (topic == command.name) {
            std::cout << command.help;
            return 0;
        }
    }
    throw UsageError("no help for unknown command '" + topic + "'");
}

int dispatch(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << kGeneralHelp;
        return 2;
    }
    const std::string command = argv[1];
    ArgumentCursor cursor(argc, argv, 2);
    if (isHelpFlag(command)) {
        std::cout << kGeneralHelp;
        return 0;
    }
    if (command == "--version") {
        std::cout << "glccl " << GLCCL_VERSION << '\n';
        return 0;
    }
    if (command == "help") return runHelp(cursor);
    if (command == "label") {
        for (int i = 2; i < argc; ++i) {
            if (isHelpFlag(argv[i])) {
                std::cout << kLabelHelp;
                return 0;
            }
        }
        return runLabel(cursor);
    }
    for (const Command& subcommand : subcommands())
        if (command == subcommand.name) return subcommand.run(std::vector<std::string>(argv + 2, argv + argc));
    throw UsageError("unknown command '" + command + "' (see glccl --help)");
}

// Every message leaves with one "glccl: " in front; the backends already
// start theirs that way.
void reportError(const char* message) {
    std::string text = message;
    const std::string prefix = "glccl: ";
    if (text.rfind(prefix, 0) == 0) text.erase(0, prefix.size());
    std::cerr << prefix << text << '\n';
}

}  // namespace
}  // namespace glccl::tools

int main(int argc, char** argv) {
    using namespace glccl::tools;
    try {
        return dispatch(argc, argv);
    } catch (const UsageError& error) {
        reportError(error.what());
        return 2;
    } catch (const std::bad_alloc&) {
        reportError("out of memory");
        return 1;
    } catch (const std::exception& error) {
        // glccl::Error and anything a library below lets through.
        reportError(error.what());
        return 1;
    } catch (...) {
        reportError("unexpected error");
        return 1;
    }
}

// The glccl command line: label image files with one of the backends and
// write the labels, the component table and a colored picture.
//
//   glccl label INPUT... | FOLDER [--backend auto|compute|raster|cuda|cpu|reference] [--threads N]
//                     (INPUT an image, or a volume: a 3-D .npy or a TIFF stack)
//                     [--connectivity 4|8|6|18|26] [--channel-axis -1]
//                     [--criterion binary|binary:L|segments|threshold:T|delta:D]
//                     [--min-size N] [--keep-largest K]
//                     [--labels OUT.npy] [--stats OUT.csv] [--color OUT.png]
//                     [--label-image OUT.png|OUT.tif]
//                     [--properties LIST [--intensity IMAGE] [--spacing LIST]]
//                     [--out-dir DIR --labels --stats --color --label-image] [--force]
//                     [--json] [--timing] [--table] [--progress] [--quiet] [--gl desktop|es]
//
// Exit status: 0 success, 1 runtime error (unreadable input, existing or
// unwritable output, backend unavailable; in a batch: any input failed),
// 2 usage error.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
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
#include "measure_command.hpp"
#include "progress_line.hpp"
#include "tiled.hpp"
#include "glccl/backend.hpp"
#include "glccl/canonical.hpp"
#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "glccl/label_filters.hpp"
#include "glccl/measure_team.hpp"
#include "glccl/output_transaction.hpp"
#include "glccl/types.hpp"
#include "glccl/version.hpp"

namespace glccl::tools {
namespace {

constexpr std::size_t kTableRows = 10;

const char kGeneralHelp[] =
    "usage: glccl <command> [options]\n"
    "\n"
    "Connected-component labeling of 2-D images and 3-D volumes on the GPU\n"
    "(OpenGL/GLSL, CUDA)\n"
    "with a CPU reference.\n"
    "\n"
    "commands:\n"
    "  label INPUT... [options]  label image files or folders, print the component table\n"
    "  measure LABELS [options]  region properties (scikit-image's regionprops) of a\n"
    "                            label image made elsewhere\n"
    "  validate [INPUT...]       check the GPU backends against the CPU reference\n"
    "  bench [IMAGE...]          time the backends on generated images and files\n"
    "  generate FAMILY WxH OUT   write a generated test image\n"
    "  backends                  which backends run here, on what, and what to expect\n"
    "  help [COMMAND]            show this help or the help of COMMAND\n"
    "\n"
    "  glccl --help              show this help\n"
    "  glccl --version           show the version\n"
    "\n"
    "Run 'glccl COMMAND --help' or 'glccl help COMMAND' for the options of a command.\n"
    "\n"
    "environment (the library's tuning knobs, read once at start-up; none but\n"
    "GLCCL_SHADER_DIR changes a result): GLCCL_TRANSFER auto|plain|bands,\n"
    "GLCCL_TRANSFER_BAND_BYTES (e.g. 32M), GLCCL_TRANSFER_BUFFERS 2..8,\n"
    "GLCCL_COPY_THREADS auto|1..64, GLCCL_COMPUTE_PARENTS auto|buffer|image;\n"
    "the raster engine's variants: GLCCL_RASTER_LOCAL columns|tiles,\n"
    "GLCCL_RASTER_RESOLVE fragment|vertex,\n"
    "GLCCL_RASTER_TABLE segments|runs|slots, GLCCL_RASTER_TABLE_LOCAL auto|points|fragments,\n"
    "GLCCL_RASTER_COLUMN_DRAWS 1|2|3,\n"
    "GLCCL_RASTER_NUMBERING auto|scan, GLCCL_RASTER_BORDER_ROUNDS 0..64,\n"
    "GLCCL_RASTER_BLOCK_WIDTH auto|2..4096, GLCCL_RASTER_COLUMN_GROUP 1..32,\n"
    "GLCCL_RASTER_SCATTER_GROUP 0 (the column group)|1..32,\n"
    "GLCCL_RASTER_RESOLVE_GROUP 1..8, GLCCL_RASTER_RESOLVE_CHECK pass|draw,\n"
    "GLCCL_RASTER_RESOLVE_AHEAD 1..16, GLCCL_RASTER_TABLE_READS 1|3,\n"
    "GLCCL_RASTER_RUN_HOPS auto|2..1024, GLCCL_RASTER_TILE_ROWS auto|8|16,\n"
    "GLCCL_RASTER_BITS_SPREAD 1..64,\n"
    "GLCCL_RASTER_TABLE_SPREAD 1..64, GLCCL_RASTER_TABLE_SUMS bits|digits,\n"
    "GLCCL_RASTER_TABLE_PACK floats|words (another variable of these families, a\n"
    "misspelling most likely, is named on stderr and ignored);\n"
    "GLCCL_CUDA_SYNC=1 synchronises after each CUDA kernel. For work on the shaders,\n"
    "GLCCL_SHADER_DIR=FOLDER: its GLSL files replace the built-in ones of their names.\n";

const char kLabelHelp[] =
    "usage: glccl label INPUT [options]\n"
    "       glccl label INPUT... | FOLDER [--out-dir DIR [--labels] [--stats] [--color] [--label-image]]\n"
    "                                     [options]\n"
    "\n"
    "Labels the connected components of each INPUT (PNG, JPEG, TIFF, binary PGM/PPM,\n"
    ".npy; 8-, 16-, 32- or 64-bit samples, read without reduction: 64-bit from int64,\n"
    "uint64 and float64 .npy files), prints a summary\n"
    "line and the first rows of the component table, and writes the requested\n"
    "outputs. A volume is a 3-D .npy (depth, height, width) or a multi-page TIFF\n"
    "stack (a page a slice, all pages of one size and type): see \"volumes\"\n"
    "below. An image wider or taller than one call of the backend takes (the GL\n"
    "texture limit, 32768 on most GPUs) is labeled in tiles: see \"huge images\"\n"
    "below. A FOLDER stands for its files with an extension\n"
    ".png .jpg .jpeg .tif .tiff .pgm .ppm (any case), in name order, not its\n"
    "subfolders nor names starting with '.'; one with such a name that is no regular\n"
    "file (a FIFO, a dangling link) fails as it would named alone.\n"
    "\n"
    "options:\n"
    "  --backend B                   labeling backend (default auto); the summary line\n"
    "                                names the backend that ran and its device\n"
    "                                  auto     the fastest that runs here: the cpu engine\n"
    "                                           where it is predicted faster than the bus\n"
    "                                           to a GPU (small images, sparse ones) and\n"
    "                                           where no GPU engine runs (with a note where\n"
    "                                           there is no GL at all); else cuda, then\n"
    "                                           compute on a GPU\n"
    "                                  compute  GLSL compute shaders (OpenGL 4.3, ES 3.1)\n"
    "                                  raster   GLSL render passes (OpenGL 3.3)\n"
    "                                  cuda     union-find in CUDA (images go to CUDA\n"
    "                                           directly, without a texture)\n"
    "                                  cpu      the CPU engine: every core, no GL context\n"
    "                                  reference  the union-find oracle: one thread, slow\n"
    "  --gl desktop|es               the GL context of compute and raster: desktop, an\n"
    "                                OpenGL core profile context (default), or es, an\n"
    "                                OpenGL ES 3.0 or newer one (phones, WebGL2, embedded\n"
    "                                GPUs): raster runs there, compute where it is ES 3.1\n"
    "                                or newer with image atomics; 16-bit color needs\n"
    "                                EXT_texture_norm16 there. In one piece only: not with\n"
    "                                the tiles' options nor an image past one call\n"
    "  --threads N                   threads of the cpu engine (default: every core this\n"
    "                                process may run on); the labels are the same for\n"
    "                                every count\n"
    "  --connectivity 4|8|6|18|26    neighbourhood: 4 or 8 for 2-D images (default 8);\n"
    "                                6 (faces), 18 (and edges) or 26 (and corners) for\n"
    "                                volumes (default 26, as cc3d and scikit-image)\n"
    "  --channel-axis -1             a 3-D .npy is (height, width, 1|3|4): a 2-D image\n"
    "                                of those channels (Python's channel_axis=-1);\n"
    "                                without it a 3-D .npy is a volume (depth, height,\n"
    "                                width), as scikit-image and scipy read it\n"
    "  --criterion C                 which neighbours belong together (default binary)\n"
    "                                  binary       nonzero is foreground (color is read as luma)\n"
    "                                  binary:L     foreground where the value is above L\n"
    "                                  segments     the values are segment ids (8 to 64 bits),\n"
    "                                               0 is background, neighbours connect when equal\n"
    "                                  threshold:T  every pixel is foreground; neighbours connect\n"
    "                                               when each channel differs by at most T\n"
    "                                  delta:D      0 is background; nonzero neighbours connect when\n"
    "                                               they differ by at most D (cc3d's delta)\n"
    "                                L, T and D are in the units of the samples: 0..255 for\n"
    "                                8-bit, 0..65535 for 16-bit, 0..4294967295 for 32- and\n"
    "                                64-bit images\n"
    "  --min-size N                  drop the components of fewer than N elements (pixels,\n"
    "                                or voxels of a volume), as cc3d.dust and scikit-image's\n"
    "                                remove_small_objects do, and number the rest 1..m in\n"
    "                                raster order; every output and the summary describe\n"
    "                                the components kept (N 0 or 1 keeps all)\n"
    "  --keep-largest K              keep the K components with the most elements (equal\n"
    "                                counts: the lower label), numbered 1..m in raster order,\n"
    "                                as cc3d.largest_k; with --min-size, the K largest of\n"
    "                                those it keeps. Neither applies to labeling in tiles\n"
    "                                (\"huge images\"), whose labels are streamed to the\n"
    "                                file, never held whole: refused there\n"
    "\n"
    "outputs of one INPUT:\n"
    "  --labels OUT.npy              write the labels: uint32 array of shape (height, width),\n"
    "                                (depth, height, width) for a volume\n"
    "  --stats OUT.csv               write the component table as CSV (a volume's adds\n"
    "                                front, depth and centroid_z)\n"
    "  --color OUT.png               write the labels as a colored PNG (background black);\n"
    "                                of a volume, its middle xy, xz and zy slices side by side\n"
    "  --label-image OUT.png|OUT.tif\n"
    "                                write the labels as an image other programs open:\n"
    "                                .png a 16-bit PNG (past 65535 labels an error,\n"
    "                                found after labeling, before anything is written),\n"
    "                                .tif a 32-bit TIFF (a volume: a page a slice,\n"
    "                                as Fiji and napari open stacks; .png refused)\n"
    "outputs of several inputs (or a FOLDER, or one INPUT):\n"
    "  --out-dir DIR                 write into the existing folder DIR; then --labels,\n"
    "                                --stats, --color and --label-image take no value and\n"
    "                                write DIR/<stem>_labels.npy, <stem>_stats.csv,\n"
    "                                <stem>_color.png, and <stem>_labels.png (up to 65535\n"
    "                                labels) or <stem>_labels.tif (more)\n"
    "                                (<stem>: the input's file name without its extension)\n"
    "  --force                       overwrite existing output files\n"
    "\n"
    "measuring (scikit-image's regionprops of the components labeled; glccl measure\n"
    "measures a label image made elsewhere):\n"
    "  --properties LIST             --stats holds these region properties instead of the\n"
    "                                component table: regionprops_table's columns, named\n"
    "                                as it names them (label,area,bbox,centroid,\n"
    "                                orientation,perimeter,euler_number,intensity_mean,\n"
    "                                ...), a row a component kept; an unknown name is\n"
    "                                refused with the list of those measured\n"
    "  --intensity IMAGE             the intensity image of the intensity properties, of\n"
    "                                the INPUT's size: a .npy of any numeric dtype (the\n"
    "                                INPUT's shape, or that and a last axis of channels),\n"
    "                                or a PNG, JPEG, TIFF (a stack for a volume), PGM/PPM\n"
    "                                of unsigned samples (color as 3 channels, alpha left\n"
    "                                out); one INPUT\n"
    "  --spacing LIST                an element's size along each axis, in numpy's order\n"
    "                                (rows,columns; planes,rows,columns), e.g. 1.5,1\n"
    "                                (default 1 on every axis)\n"
    "\n"
    "reporting:\n"
    "  --timing                      after each summary, the GL context compute and raster\n"
    "                                labeled in, the time of every stage (the GPU's;\n"
    "                                the cpu engine's on the host clock; n/a where the\n"
    "                                driver does not time it, as llvmpipe's compute\n"
    "                                dispatches or an OpenGL ES context without\n"
    "                                EXT_disjoint_timer_query) and the wall time (the\n"
    "                                reference measures no stages)\n"
    "  --table                       with several inputs, print each component table too\n"
    "                                (one input: always printed); with --json, add the\n"
    "                                first 10 rows to each object\n"
    "  --json                        print one JSON array on stdout, one object per input,\n"
    "                                instead of the text (\"context\": the GL context of\n"
    "                                compute and raster, e.g. \"OpenGL ES 3.2 Mesa 22.3.6\")\n"
    "  --progress                    print '[i/n] INPUT' on stderr before each input, and a\n"
    "                                tiled run's tiles labeled and bands written (a line\n"
    "                                each when stderr is not a terminal); without it,\n"
    "                                shown only on a terminal, for several inputs or tiles\n"
    "  --quiet                       no progress line on a terminal (by default a labeling\n"
    "                                that runs past a second shows its stage and the\n"
    "                                percentage done on stderr while it runs)\n"
    "  -h, --help                    show this help\n"
    "\n"
    "Every output path is checked before anything is labeled: never an input or\n"
    "another output (by file identity), only regular files replaced. Outputs are\n"
    "written to hidden temporaries and committed together: a failed run (a full\n"
    "disk, ulimit -f), or one ended by Ctrl-C, SIGTERM, SIGHUP or SIGPIPE, leaves\n"
    "earlier files as they were (each input of a batch is one such set). A batch\n"
    "goes on past an input that fails (the error is printed on stderr), ends with\n"
    "the line 'N inputs, M labeled, F failed, total T s: reading R s, labeling L s,\n"
    "writing W s, other O s (P %)' and exits with status 1 if any failed (2 if an\n"
    "option does not fit an input: a connectivity of images for a volume).\n"
    "\n"
    "Labels are 0 for background and 1..N in raster order of each component's\n"
    "first pixel (the numbering of OpenCV's SAUF and scikit-image's label).\n"
    "\n"
    "volumes:\n"
    "  A volume's first voxel in raster order is the first by slice, then row, then\n"
    "  column: labels equal scipy.ndimage.label's and scikit-image's. The summary\n"
    "  line says WxHxD, --table and --json add front, depth and centroid_z. Every\n"
    "  criterion applies. Volumes are labeled by the engines that take them (the\n"
    "  router picks; the cpu reference takes every volume of one call). A 3-D .npy\n"
    "  or a TIFF stack past one call, past 32768 a side or 2^30 voxels, or past half\n"
    "  the memory in one piece, is labeled in bricks (see \"huge images\").\n"
    "\n"
    "examples:\n"
    "  glccl label mask.png --color labels.png --stats stats.csv\n"
    "  glccl label mask.png --connectivity 4 --labels labels.npy\n"
    "  glccl label photo.jpg --criterion threshold:12 --color regions.png\n"
    "  glccl label cells16.tif --criterion segments --label-image labels.tif\n"
    "  glccl label masks/ --backend raster --out-dir out --labels --stats\n"
    "  glccl label mask.png --backend raster --gl es --labels labels.npy\n"
    "  glccl label a.png b.png --json --timing --table > summary.json\n"
    "  glccl label volume.npy --connectivity 6 --labels labels.npy --color slices.png\n"
    "  glccl label stack.tif --criterion segments --label-image labels.tif --stats stats.csv\n"
    "  glccl label mask.png --stats props.csv --properties label,area,centroid,orientation\n";

// Which components `glccl label` keeps: --min-size N, --keep-largest K.
struct ComponentFilter {
    std::optional<std::uint64_t> minSize, keepLargest;

    bool given() const { return minSize || keepLargest; }
    // " --min-size N --keep-largest K", as given.
    std::string options() const {
        return (minSize ? " --min-size " + std::to_string(*minSize) : std::string()) +
               (keepLargest ? " --keep-largest " + std::to_string(*keepLargest) : std::string());
    }
};

// The N of --min-size N (`what` "elements") and --keep-largest K
// ("components"): a whole number, 0..2^64-1.
std::uint64_t parseComponentCount(const std::string& option, const std::string& text, const char* what) {
    const bool digits =
        !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    errno = 0;
    const unsigned long long value = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
    if (!digits || errno == ERANGE)
        throw UsageError(option + ": '" + text + "' is not a whole number of " + what + " (0.." +
                         std::to_string(std::numeric_limits<std::uint64_t>::max()) + ")");
    return value;
}

// Takes --min-size and --keep-largest out of `args` (those after "label"):
// the label and tiled parsers never see them.
ComponentFilter takeComponentFilter(std::vector<std::string>& args) {
    ComponentFilter filter;
    std::vector<std::string> rest;
    ArgumentCursor cursor(std::move(args));
    while (!cursor.done()) {
        const std::string arg = cursor.take();
        const auto [name, inlineValue] = ArgumentCursor::splitOption(arg);
        std::optional<std::uint64_t>* count =
            name == "--min-size" ? &filter.minSize : name == "--keep-largest" ? &filter.keepLargest : nullptr;
        if (count == nullptr) {
            rest.push_back(arg);
            continue;
        }
        if (*count) throw UsageError("option " + name + " is given twice");
        *count = parseComponentCount(name, cursor.valueOf(name, inlineValue),
                                     count == &filter.minSize ? "elements" : "components");
    }
    args = std::move(rest);
    return filter;
}

// The labeling with the components `filter` drops set to 0 and the others
// numbered 1..m in raster order (glccl/label_filters.hpp, in place), and
// its table computed again from those labels, so that every output
// describes the components kept.
void keepComponents(const ComponentFilter& filter, Labeling& labeling) {
    KeptLabels kept;
    kept.minSize = filter.minSize.value_or(0);
    kept.largest = filter.keepLargest.value_or(kept.largest);
    // The labels lie in raster order: one axis walks them in that order.
    const LabelArrayView labels = LabelArrayView::cOrdered(labeling.labels.data(), {labeling.labels.size()});
    const std::uint64_t count = filterLabels(labels, kept, labels);
    // Every component kept: the labels were canonical and are unchanged.
    if (count == labeling.count()) return;
    labeling.components = computeComponents(labeling.shape(), labeling.labels, std::uint32_t(count));
}

bool isFolder(const std::string& path) {
    std::error_code error;
    return std::filesystem::is_directory(path, error);
}

// The image files of `folder`: the entries with a supported extension, not
// hidden, sorted by name; not recursive. Subfolders are left out; any other
// entry that is no regular file (a FIFO, a device, a dangling link) is kept,
// so that it fails as it would named alone rather than go unseen.
std::vector<std::string> imagesInFolder(const std::string& folder) {
    std::vector<std::string> files;
    std::error_code error;
    for (std::filesystem::directory_iterator entry(folder, error), end; !error && entry != end;
         entry.increment(error)) {
        const std::string name = entry->path().filename().string();
        std::error_code typeError;
        if (name.empty() || name[0] == '.' || !hasImageExtension(name) || entry->is_directory(typeError))
            continue;
        files.push_back(folder.back() == '/' ? folder + name : folder + '/' + name);
    }
    if (error) throw Error("cannot list folder '" + folder + "': " + error.message());
    if (files.empty())
        throw Error("folder '" + folder + "' holds no image file (.png .jpg .jpeg .tif .tiff .pgm .ppm)");
    std::sort(files.begin(), files.end());
    return files;
}

// The inputs to label: files as given, folders replaced by their images.
std::vector<std::string> expandInputs(const std::vector<std::string>& arguments) {
    std::vector<std::string> inputs;
    for (const std::string& argument : arguments) {
        if (!isFolder(argument)) {
            inputs.push_back(argument);
            continue;
        }
        const std::vector<std::string> images = imagesInFolder(argument);
        inputs.insert(inputs.end(), images.begin(), images.end());
    }
    return inputs;
}

// The outputs of every input, checked before any labeling work so that a
// usage mistake or an existing file stops the run before it writes anything:
// nothing exists unless --force, the folders exist and are writable, and no
// two outputs share a path.
std::vector<OutputPaths> planOutputs(const LabelCommand& options, const std::vector<std::string>& inputs,
                                     bool batch, const MeasureRequest& measure) {
    std::vector<OutputPaths> plan;
    if (options.outDir.empty()) {
        const bool anyPath = !options.paths.labels.empty() || !options.paths.stats.empty() ||
                             !options.paths.color.empty() || !options.paths.labelImage.empty();
        if (batch && anyPath)
            throw UsageError("with several inputs or a folder, --labels, --stats and --color write into a folder, "
                             "as does --label-image: give --out-dir DIR and those options without a value");
        plan.assign(inputs.size(), options.paths);
    } else {
        try {
            checkOutputFolder(options.outDir);
        } catch (const Error& error) {
            throw Error(std::string("--out-dir: ") + error.what());
        }
        const std::string folder = options.outDir.back() == '/' ? options.outDir : options.outDir + '/';
        for (const std::string& input : inputs) {
            const std::string stem = folder + fileStem(input);
            plan.push_back({options.writeLabels ? stem + "_labels.npy" : "",
                            options.writeStats ? stem + "_stats.csv" : "",
                            options.writeColor ? stem + "_color.png" : "",
                            options.writeLabelImage ? stem + "_labels" : "", options.writeLabelImage});
        }
    }

    // Outputs are compared by file identity, not by spelling: "o.npy",
    // "./o.npy" and a link to it are one file.
    struct Owner {
        std::string input;
        const char* option;
        std::string path;
    };
    std::map<FileIdentity, Owner> owners;
    std::vector<NamedOutput> outputs;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        // An automatic label image may take either name: both are checked.
        const std::string autoPng = plan[i].labelImageAuto ? plan[i].labelImage + ".png" : "";
        const std::string autoTif = plan[i].labelImageAuto ? plan[i].labelImage + ".tif" : "";
        const std::string* labelImage = plan[i].labelImageAuto ? &autoPng : &plan[i].labelImage;
        const std::pair<const char*, const std::string*> named[] = {{"--labels", &plan[i].labels},
                                                                    {"--stats", &plan[i].stats},
                                                                    {"--color", &plan[i].color},
                                                                    {"--label-image", labelImage},
                                                                    {"--label-image", &autoTif}};
        for (const auto& [option, path] : named) {
            if (path->empty()) continue;
            FileIdentity identity;
            try {
                identity = fileIdentity(*path);
            } catch (const Error&) {
                checkOutputPath(*path, options.force);  // names the missing folder
                throw;
            }
            const auto [owner, added] = owners.try_emplace(identity, Owner{inputs[i], option, *path});
            if (added) {
                outputs.push_back({option, *path});
                continue;
            }
            if (owner->second.input == inputs[i] && owner->second.path == *path)
                throw UsageError(std::string(owner->second.option) + " and " + option + " both name '" + *path +
                                 "'");
            if (owner->second.input == inputs[i])
                throw UsageError(std::string(owner->second.option) + " '" + owner->second.path + "' and " + option +
                                 " '" + *path + "' are one file");
            throw UsageError("inputs '" + owner->second.input + "' and '" + inputs[i] + "' would both write '" +
                             *path + "' (same file name stem)");
        }
    }
    // Never over an input (the intensity image included), whatever --force says.
    std::vector<std::string> read = inputs;
    if (!measure.intensity.empty()) read.push_back(measure.intensity);
    checkOutputs(outputs, read, options.force);
    return plan;
}

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Where a run's wall time went: reading the inputs, labeling them (upload,
// labeling, download of labels and table) and writing the outputs; the rest
// of the total (the GL context, the output checks, printing) is "other".
struct PhaseSeconds {
    double reading = 0.0, labeling = 0.0, writing = 0.0;
};

// Adds the time from its construction to its destruction to `total`, also
// when the phase fails.
class PhaseTimer {
public:
    explicit PhaseTimer(double& total) : total_(total), start_(Clock::now()) {}
    ~PhaseTimer() { total_ += secondsSince(start_); }
    PhaseTimer(const PhaseTimer&) = delete;
    PhaseTimer& operator=(const PhaseTimer&) = delete;

private:
    double& total_;
    Clock::time_point start_;
};

// One labeled input, reported as soon as it is done. The labeling lives in
// the run the batch passes from input to input: its storage is reused, so a
// batch of images of one size allocates the labels once, and a long batch
// holds one image at a time.
struct LabeledInput {
    const std::string& input;
    Shape shape;                // of the image or volume read
    Connectivity connectivity;  // the one it was labeled with
    const BackendRun& run;
    std::size_t labeledComponents = 0;  // before --min-size and --keep-largest
    double measureMilliseconds = -1.0;  // measuring --properties (-1: none asked)
    PhaseSeconds seconds;                                      // this input's phases
    std::vector<std::pair<const char*, std::string>> written;  // output kind, path
};

// Writes the requested outputs as one transaction. planOutputs() has caught
// the usual problems; should a write still fail (disk full, a file system
// that refuses the name) or a signal end the run before the commit, every
// earlier file of this input's outputs stays as it was.
// With --properties, the CSV holds `properties` (the table measured)
// instead of the component table.
std::vector<std::pair<const char*, std::string>> writeOutputs(const OutputPaths& paths, const Labeling& labeling,
                                                             const std::optional<PropertyTable>& properties,
                                                             bool force) {
    // The label image's format first: a 16-bit PNG asked for labels past
    // 65535 fails the input before any of its outputs is written.
    std::string labelImagePath = paths.labelImage;
    LabelImageFormat labelImageFormat = LabelImageFormat::Auto;
    if (!paths.labelImage.empty()) {
        labelImageFormat = resolveLabelImageFormat(
            labeling, paths.labelImageAuto ? LabelImageFormat::Auto : labelImageFormatOf("--label-image", paths.labelImage));
        if (paths.labelImageAuto) labelImagePath += labelImageFormat == LabelImageFormat::Png16 ? ".png" : ".tif";
    }
    std::vector<std::pair<const char*, std::string>> written;
    OutputTransaction transaction;
    if (!paths.labels.empty()) {
        writeLabelsNpy(paths.labels, labeling, force);
        written.emplace_back("labels", paths.labels);
    }
    if (!paths.stats.empty()) {
        if (properties) writePropertyCsv(paths.stats, *properties, force);
        else writeStatsCsv(paths.stats, labeling, force);
        written.emplace_back("stats", paths.stats);
    }
    if (!paths.color.empty()) {
        writePng(paths.color, colorizeLabels(labeling), force);
        written.emplace_back("color", paths.color);
    }
    if (!labelImagePath.empty()) {
        writeLabelImage(labelImagePath, labeling, labelImageFormat, force);
        written.emplace_back("label_image", labelImagePath);
    }
    printOutputNotes("glccl", transaction.notes());
    pauseBeforeCommitForTests();
    transaction.commit();
    return written;
}

// The first rows of the component table, columns right-aligned to their
// widest cell.
void printComponentTable(const Labeling& labeling) {
    const bool volume = labeling.dimensions == 3;
    std::vector<std::vector<std::string>> rows = {componentTableHeader(volume)};
    const std::size_t shown = std::min(labeling.count(), kTableRows);
    for (std::size_t i = 0; i < shown; ++i) rows.push_back(componentTableRow(i + 1, labeling.components[i], volume));
    printAlignedTable(std::cout, rows, {});
    if (labeling.count() > shown) std::cout << "... (" << labeling.count() - shown << " more)\n";
}

void printTiming(const BackendRun& run) {
    const std::string wall = formatted("%.3f", run.milliseconds);
    if (!run.context.empty()) std::cout << "  context: " << run.context << '\n';
    const StageTimings& stages = run.stages;
    if (stages.empty()) {
        std::cout << "  per-stage times are not measured by the " << backendName(run.backend) << " backend; wall "
                  << wall << " ms\n";
        return;
    }
    // A leading empty column indents the table by its two-space separator.
    // The cpu engine's stages are wall times on the host; the others', the
    // device's.
    const char* unit = run.backend == Backend::Cpu ? "ms" : "gpu ms";
    std::vector<std::vector<std::string>> rows = {{"", "stage", unit}};
    double sum = 0.0;
    bool allMeasured = true;
    for (const StageTime& stage : stages) {
        rows.push_back({"", stage.stage, stage.measured ? formatted("%.3f", stage.milliseconds) : "n/a"});
        sum += stage.milliseconds;
        allMeasured = allMeasured && stage.measured;
    }
    rows.push_back({"", "sum of stages", allMeasured ? formatted("%.3f", sum) : "n/a"});
    rows.push_back({"", "wall", wall});
    printAlignedTable(std::cout, rows, {1});
    if (!allMeasured)
        std::cout << "  n/a: not measured (the driver did not time the stage: its timer query read next to nothing)\n";
}

void printText(const LabelCommand& options, const ComponentFilter& filter, const LabeledInput& result, bool batch) {
    const Labeling& labeling = result.run.labeling;
    const Shape& shape = result.shape;
    std::cout << result.input << ": " << shape.width << 'x' << shape.height
              << (shape.dimensions == 3 ? "x" + std::to_string(shape.depth) : std::string()) << ", " << labeling.count()
              << (labeling.count() == 1 ? " component" : " components")
              << (filter.given() ? " (of " + std::to_string(result.labeledComponents) + ";" + filter.options() + ")"
                                 : std::string())
              << ", " << formatted("%.2f", result.run.milliseconds)
              << " ms (" << backendName(result.run.backend) << ", " << result.run.device << ")"
              << (result.measureMilliseconds >= 0 ? ", properties measured in " + formatted("%.2f", result.measureMilliseconds) + " ms"
                                                  : std::string())
              << "\n";
    if (options.timing) printTiming(result.run);
    if (labeling.count() > 0 && (!batch || options.table)) printComponentTable(labeling);
    for (const auto& output : result.written) std::cout << "wrote " << output.second << '\n';
}

// One element of the --json array.
void writeJson(JsonWriter& json, const LabelCommand& options, const ComponentFilter& filter,
               const LabeledInput& result) {
    const Labeling& labeling = result.run.labeling;
    json.beginObject();
    json.key("input").string(result.input);
    const bool volume = result.shape.dimensions == 3;
    json.key("width").integer(std::uint64_t(result.shape.width));
    json.key("height").integer(std::uint64_t(result.shape.height));
    if (volume) json.key("depth").integer(std::uint64_t(result.shape.depth));
    json.key("components").integer(labeling.count());
    if (filter.given()) json.key("labeled_components").integer(result.labeledComponents);
    json.key("milliseconds").number(std::stod(formatted("%.3f", result.run.milliseconds)));
    if (result.measureMilliseconds >= 0)
        json.key("measure_milliseconds").number(std::stod(formatted("%.3f", result.measureMilliseconds)));
    json.key("backend").string(backendName(result.run.backend));
    json.key("device").string(result.run.device);
    // The GL context compute and raster labeled in (--gl); none elsewhere.
    if (!result.run.context.empty()) json.key("context").string(result.run.context);
    json.key("connectivity").integer(std::uint64_t(neighbourCount(result.connectivity)));
    json.key("criterion").string(options.criterion.toString());
    json.key("seconds").beginObject();
    json.key("reading").number(std::stod(formatted("%.6f", result.seconds.reading)));
    json.key("labeling").number(std::stod(formatted("%.6f", result.seconds.labeling)));
    json.key("writing").number(std::stod(formatted("%.6f", result.seconds.writing)));
    json.endObject();
    if (options.timing) {
        json.key("stages").beginObject();
        for (const StageTime& stage : result.run.stages) {
            json.key(stage.stage);
            if (stage.measured) json.number(std::stod(formatted("%.6f", stage.milliseconds)));
            else json.null();
        }
        json.endObject();
    }
    json.key("outputs").beginObject();
    for (const auto& [kind, path] : result.written) json.key(kind).string(path);
    json.endObject();
    if (options.table) {
        json.key("table").beginArray();
        for (std::size_t i = 0; i < std::min(labeling.count(), kTableRows); ++i) {
            writeComponentJson(json, i + 1, labeling.components[i], volume);
        }
        json.endArray();
    }
    json.endObject();
}

// Every message leaves with one "glccl: " in front, the tool's own prefix,
// and without the API entry the library's messages start with.
void reportError(const std::string& message) { std::cerr << "glccl: " << userMessage(message) << '\n'; }

// A GL engine's route in pieces goes to the tiles, whose workers make
// desktop contexts of their own: with --gl es, refused rather than labeled
// in a context the run did not ask for.
void checkOnePiece(GlApi api, const Route& route) {
    if (api != GlApi::Es || !piecesMakeDesktopContexts(route)) return;
    throw Error(std::string("--gl es labels in one piece, and this input goes to the ") + backendName(route.backend) +
                " backend in pieces (past one call's texture size or memory), whose GL workers make desktop "
                "contexts: label it without --gl es");
}

// The backends whose engines the run has made: the first labeling of each
// makes its engine (the GL context's shaders, cuda's buffers, the cpu
// engine's threads) on a one-element image first, so that this does not
// count in an input's time.
using WarmBackends = std::vector<Backend>;

void warmUp(LabelSession& session, const Route& route, const LabelOptions& options, const Image& like,
            WarmBackends& warm) {
    if (std::find(warm.begin(), warm.end(), route.backend) != warm.end()) return;
    warm.push_back(route.backend);
    const Image tiny(like.dimensions == 3 ? Shape::volume(1, 1, 1) : Shape::image(1, 1), like.channels,
                     like.sampleBits);
    LabelOptions tinyOptions = options;
    tinyOptions.progress = nullptr;
    tinyOptions.timings = false;
    Route whole = route;  // the engine itself, not pieces of one element
    whole.pieces = false;
    Labeling labeling;
    try {
        session.label(tiny, whole, tinyOptions, labeling);
    } catch (const Error&) {
        // An engine that refuses says why for the input, in its words.
    }
}

// Reads, labels and writes one input into `run`, whose labeling storage the
// batch reuses; the time of each phase is added to `total` as well. Each
// input is routed once and labeled by its route (LabelSession::label,
// Session::label), tiles past one call included: `fileRoute` where the
// route was chosen from the file's header (routeFile), else the image read.
LabeledInput labelInput(LabelSession& session, const LabelCommand& options, const ComponentFilter& filter,
                        const MeasureRequest& measure, const std::string& input, const OutputPaths& paths,
                        const std::optional<FileRoute>& fileRoute, WarmBackends& warm, BackendRun& run,
                        PhaseSeconds& total) {
    LabeledInput result{input, {}, options.connectivity, run, 0, -1.0, {}, {}};
    PhaseSeconds& seconds = result.seconds;
    // Added to the batch's totals however this input ends.
    struct AddToTotal {
        const PhaseSeconds& seconds;
        PhaseSeconds& total;
        ~AddToTotal() {
            total.reading += seconds.reading;
            total.labeling += seconds.labeling;
            total.writing += seconds.writing;
        }
    } addToTotal{seconds, total};

    // Binary and segment criteria look at one value per pixel: color files are
    // reduced to luma on reading, as OpenCV's IMREAD_GRAYSCALE does. The
    // threshold criterion compares whole colors, so it keeps the channels.
    const ChannelMode mode =
        options.criterion.kind == Criterion::Kind::Threshold ? ChannelMode::Natural : ChannelMode::Gray;
    Image image;
    std::optional<IntensityImage> intensity;
    {
        const PhaseTimer timer(seconds.reading);
        // Properties measured on the host (the cpu engine's labels, or
        // those kept and renumbered here): the measuring team starts while
        // the inputs are read.
        const bool cpuRoute =
            options.backend == Backend::Cpu || (fileRoute && fileRoute->route.backend == Backend::Cpu);
        if (measure.given() && (filter.given() || cpuRoute)) startMeasuringTeam(options.threads);
        checkInputFile(input);
        image = readImage(input, mode, options.channelAxis);
        if (!measure.intensity.empty()) {
            checkInputFile(measure.intensity);
            intensity = readIntensity(measure.intensity, image.shape());
        }
    }
    result.shape = image.shape();
    result.connectivity = connectivityFor(options, image.shape());
    // Said for the option, before any engine refuses it in its own words.
    const std::string misfit = whyConnectivityDoesNotFit(result.connectivity, image.shape());
    if (!misfit.empty()) throw UsageError("--connectivity: " + misfit);
    // The properties, before any labeling: each defined in these
    // dimensions, with the intensity and spacing they need.
    if (measure.given()) checkMeasurement(measure, image.shape().dimensions, intensity ? &*intensity : nullptr);
    LabelOptions labelOptions;
    labelOptions.backend = options.backend;
    labelOptions.connectivity = result.connectivity;
    labelOptions.criterion = options.criterion;
    labelOptions.timings = options.timing;
    labelOptions.threads = options.threads;
    {
        const PhaseTimer timer(seconds.labeling);
        // The file's route where it was chosen for the image read (the same
        // shape, channels and sample bits), else the image's.
        const bool routed = fileRoute && fileRoute->input.shape == image.shape() &&
                            fileRoute->input.channels == image.channels &&
                            fileRoute->input.sampleBits == image.sampleBits;
        const Route route = routed ? fileRoute->route : session.session().route(ImageView(image), labelOptions);
        checkOnePiece(session.glApi(), route);
        warmUp(session, route, labelOptions, image, warm);
        LabelProgressLine line(input, showProgressLine(options.quiet));
        labelOptions.progress = line.progress();
        // Into the labels and table of the last input: no allocation for an
        // input of the same size, no zero-fill of labels overwritten anyway.
        run.stages.clear();
        run.milliseconds = session.label(image, route, labelOptions, run.labeling,
                                         options.timing ? &run.stages : nullptr);
        run.backend = route.backend;
        result.labeledComponents = run.labeling.count();
        if (filter.given()) keepComponents(filter, run.labeling);
    }
    // The properties of the components kept, measured on their labels.
    std::optional<PropertyTable> properties;
    if (measure.given()) {
        const PhaseTimer timer(seconds.labeling);
        const IntensitySamples samples = intensity ? intensity->view() : IntensitySamples();
        const auto start = std::chrono::steady_clock::now();
        const MeasureOptions measuring = measureOptions(measure, options.threads, intensity ? &*intensity : nullptr);
        if (filter.given()) {
            // The labels kept were renumbered here: measured on the host.
            properties = measureLabeling(run.labeling, intensity ? &samples : nullptr, measuring);
        } else {
            // By the engine that labeled, on its GPU where it can.
            properties = measureByEngine(session.session(), run.labeling, intensity ? &samples : nullptr, measuring);
        }
        result.measureMilliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        intensity.reset();
    }
    if (run.device.empty() || options.timing) run.device = session.device(run.backend);
    run.context = session.context(run.backend);
    // The input is not needed for writing: its memory goes back first.
    image = Image();
    {
        const PhaseTimer timer(seconds.writing);
        result.written = writeOutputs(paths, run.labeling, properties, options.force);
    }
    return result;
}

// `tiledArgs`: the command's arguments as runTiledLabel takes them, for an
// INPUT that goes in pieces.
int runLabel(ArgumentCursor& cursor, const ComponentFilter& filter, const MeasureRequest& measure,
             const std::vector<std::string>& tiledArgs, GlApi api) {
    const auto batchStart = Clock::now();
    const LabelCommand options = parseLabelCommand(cursor);
    checkGlApiFits(api, options.backend);
    const std::vector<std::string> inputs = expandInputs(options.arguments);
    const bool batch = inputs.size() > 1 ||
                       std::any_of(options.arguments.begin(), options.arguments.end(), isFolder);
    LabelSession session(api);
    // One INPUT, an .npy or a TIFF, is routed from its header: in pieces,
    // the tiles read it from the file; otherwise it is read whole and
    // labeled by the same route (labelInput).
    std::optional<FileRoute> fileRoute;
    if (!batch) {
        // Looked at before any file is opened: a FIFO would block it.
        checkInputFile(inputs.front());
        fileRoute = routeFile(session.session(), inputs.front(), options);
        if (fileRoute && fileRoute->route.pieces) {
            checkOnePiece(api, fileRoute->route);
            return runTiledLabel(tiledArgs, session.session(), fileRoute->route);
        }
    }
    if (measure.given() && options.paths.stats.empty() && !options.writeStats)
        throw UsageError("--properties names the columns of --stats: give --stats OUT.csv (or --stats with --out-dir)");
    if (batch && !measure.intensity.empty())
        throw UsageError("--intensity is the intensity of one INPUT: give one INPUT, not several or a folder");
    const std::vector<OutputPaths> plan = planOutputs(options, inputs, batch, measure);

    // A backend that cannot run here (not built, no device, no GL context)
    // fails the whole run once, before any input, rather than every input
    // of a batch.
    const std::string why = session.whyUnavailable(options.backend);
    if (!why.empty()) throw Error(std::string("the ") + backendName(options.backend) + " backend cannot run here: " + why);
    // Where auto finds no GPU engine at all, it says so once, for the run:
    // the router asked of no input in particular.
    const InputDescription anyImage = InputDescription::host(Shape(), 1, 8);
    const std::string note = session.fallbackNote(options.backend, anyImage);
    if (!note.empty()) std::cerr << "glccl: " << note << '\n';
    std::optional<ProgressLine> progress;
    if (options.progress || (batch && isatty(STDERR_FILENO) == 1)) progress.emplace();
    // The --json array is printed element by element, so that a consumer
    // reading the pipe sees each input as it is done.
    bool anyJsonElement = false;
    if (options.json) std::cout << '[';

    std::size_t labeled = 0;
    bool misfit = false;  // an option that does not fit an input: exit status 2
    PhaseSeconds phases;
    BackendRun run;  // its labeling's storage goes from input to input
    WarmBackends warm;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const std::string& input = inputs[i];
        if (progress)
            progress->update("[" + std::to_string(i + 1) + "/" + std::to_string(inputs.size()) + "] " + input,
                             options.progress);
        try {
            const LabeledInput result =
                labelInput(session, options, filter, measure, input, plan[i], fileRoute, warm, run, phases);
            if (progress) progress->clear();
            ++labeled;
            if (options.json) {
                JsonWriter json;
                writeJson(json, options, filter, result);
                std::cout << (anyJsonElement ? ",\n" : "\n") << json.take();
                anyJsonElement = true;
            } else {
                printText(options, filter, result, batch);
            }
        } catch (const std::bad_alloc&) {
            if (progress) progress->clear();
            reportError(input + ": out of memory");
        } catch (const UsageError& error) {
            if (progress) progress->clear();
            reportError(input + ": " + error.what());
            misfit = true;
        } catch (const std::exception& error) {
            // glccl::Error from reading, labeling or writing this input; the
            // batch goes on with the next one.
            if (progress) progress->clear();
            reportError(input + ": " + inputMessage(input, error.what()));
        }
        std::cout.flush();
    }
    if (options.json) std::cout << "\n]\n";

    const std::size_t failed = inputs.size() - labeled;
    if (batch) {
        const double total = secondsSince(batchStart);
        const double other = std::max(0.0, total - phases.reading - phases.labeling - phases.writing);
        (options.json ? std::cerr : std::cout)
            << inputs.size() << (inputs.size() == 1 ? " input, " : " inputs, ") << labeled << " labeled, " << failed
            << " failed, total "
            << formatted("%.3f", total) << " s: reading " << formatted("%.3f", phases.reading) << " s, labeling "
            << formatted("%.3f", phases.labeling) << " s, writing " << formatted("%.3f", phases.writing)
            << " s, other " << formatted("%.3f", other) << " s ("
            << formatted("%.1f", total > 0.0 ? 100.0 * other / total : 0.0) << " %)\n";
    }
    return misfit ? 2 : failed == 0 ? 0 : 1;
}

int runHelp(ArgumentCursor& cursor) {
    if (cursor.done()) {
        std::cout << kGeneralHelp;
        return 0;
    }
    const std::string topic = cursor.take();
    if (topic == "label") {
        std::cout << kLabelHelp << kTiledLabelHelp;
        return 0;
    }
    std::vector<std::string> commands = {"label"};
    for (const Command& command : subcommands()) {
        if (topic == command.name) {
            std::cout << command.help;
            return 0;
        }
        commands.push_back(command.name);
    }
    throw UsageError("no help for unknown command '" + topic + "'" + didYouMean(topic, commands));
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
        std::cout << "glccl " << glccl::versionString() << '\n';
        return 0;
    }
    if (command == "help") return runHelp(cursor);
    if (command == "label") {
        for (int i = 2; i < argc; ++i) {
            if (isHelpFlag(argv[i])) {
                std::cout << kLabelHelp << kTiledLabelHelp;
                return 0;
            }
        }
        std::vector<std::string> args(argv + 2, argv + argc);
        const GlApi api = takeGlApi(args);
        const ComponentFilter filter = takeComponentFilter(args);
        const MeasureRequest measure = takeMeasureRequest(args);
        // Tiled options, or one INPUT whose route goes in pieces (runLabel):
        // tiled.cpp. Its parser gets the filter's and the measuring options
        // back, as --option=VALUE: it measures as the labels stream, and
        // refuses the filter in its words (tiles stream their labels, never
        // held whole).
        std::vector<std::string> tiledArgs = args;
        if (filter.minSize) tiledArgs.push_back("--min-size=" + std::to_string(*filter.minSize));
        if (filter.keepLargest) tiledArgs.push_back("--keep-largest=" + std::to_string(*filter.keepLargest));
        for (const std::string& option : measure.asArguments()) tiledArgs.push_back(option);
        if (asksForTiles(tiledArgs)) {
            if (api == GlApi::Es)
                throw UsageError("--gl es labels in one piece: the tiles' GL workers make desktop contexts "
                                 "(leave out --tile, --memory-limit, --devices and --label-type, or --gl es)");
            return runTiledLabel(tiledArgs);
        }
        ArgumentCursor labelCursor(std::move(args));
        return runLabel(labelCursor, filter, measure, tiledArgs, api);
    }
    for (const Command& subcommand : subcommands())
        if (command == subcommand.name) return subcommand.run(std::vector<std::string>(argv + 2, argv + argc));
    std::vector<std::string> commands = {"label", "help"};
    for (const Command& subcommand : subcommands()) commands.push_back(subcommand.name);
    throw UsageError("unknown command '" + command + "'" + didYouMean(command, commands) + " (see glccl --help)");
}

}  // namespace
}  // namespace glccl::tools

int main(int argc, char** argv) {
    using namespace glccl::tools;
    try {
        applyTuningEnvironment("glccl");
        // SIGINT, SIGTERM, SIGHUP and SIGPIPE leave no temporary and no
        // half-committed outputs; a file past ulimit -f is a write error.
        glccl::installOutputSignalHandlers();
        installCommitPauseForTests();
        const int status = dispatch(argc, argv);
        // What went to standard output (a table, help, a summary) must have
        // got there: a full disk or a file past ulimit -f is a failure, not
        // a success with half a table.
        std::cout.flush();
        if (!std::cout) {
            reportError("cannot write to standard output: what glccl printed there is incomplete");
            return 1;
        }
        return status;
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

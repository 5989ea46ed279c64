#pragma once
// What every glccl subcommand shares: the usage-error type, the argument
// cursor, option-value parsing, output-path checks and small formatting
// helpers. Conventions: a mistake in the command line throws UsageError
// (exit status 2), anything else throws glccl::Error (exit status 1); main()
// prints either as one line starting with "glccl: ".

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "glccl/backend.hpp"
#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "glccl/tuning.hpp"
#include "glccl/types.hpp"

namespace glccl::tools {

// Wall milliseconds from `start` to now, on the steady clock.
inline double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// A mistake in the command line itself; main() maps it to exit status 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Walks the arguments of one subcommand once. Options take their value
// either as the next argument ("--backend cpu") or after '=' ("--backend=cpu").
class ArgumentCursor {
public:
    explicit ArgumentCursor(std::vector<std::string> args) : args_(std::move(args)) {}
    ArgumentCursor(int argc, char** argv, int first) : args_(argv + first, argv + argc) {}

    bool done() const { return next_ >= args_.size(); }
    std::string take() { return args_[next_++]; }

    // Splits "--name=value" into name and an inline value.
    static std::pair<std::string, std::optional<std::string>> splitOption(const std::string& arg);

    // The value of `option`: the inline one, else the next argument; throws
    // UsageError when there is none or it is empty.
    std::string valueOf(const std::string& option, std::optional<std::string> inlineValue);

private:
    std::vector<std::string> args_;
    std::size_t next_ = 0;
};

// The environment variables the command-line programs (glccl, glccl-mpi,
// the device probes) map onto the library's Tuning at start-up, so that
// device scripts choose variants per run: GLCCL_TRANSFER,
// GLCCL_TRANSFER_BAND_BYTES, GLCCL_TRANSFER_BUFFERS, GLCCL_COPY_THREADS,
// GLCCL_COMPUTE_PARENTS, the raster engine's GLCCL_RASTER_* and
// GLCCL_SHADER_DIR, each setting the knob of the same meaning with the
// values Tuning::set takes. The library itself reads none of them.
struct TuningVariable {
    const char* variable;  // "GLCCL_TRANSFER"
    const char* knob;      // "transfer": a name Tuning::set takes
};
extern const TuningVariable kTuningVariables[26];

// `tuning` with every knob whose variable the environment sets (and is not
// empty); throws glccl::Error("GLCCL_TRANSFER is 'fast'; expected auto,
// plain or bands") for a malformed value.
Tuning tuningFromEnvironment(Tuning tuning);

// The names in `environment` (as `environ`: "NAME=value" entries, null
// last) that look like tuning variables and are none: of a tuning
// variable's family (GLCCL_RASTER_, GLCCL_TRANSFER, GLCCL_COPY_,
// GLCCL_COMPUTE_, GLCCL_SHADER_; the benchmark scripts' own GLCCL_*_SIZES
// aside), so most likely a misspelling that would otherwise go unnoticed:
// "GLCCL_RASTER_COLUMNS_DRAWS is not a tuning variable and is ignored;
// did you mean 'GLCCL_RASTER_COLUMN_DRAWS'?".
std::vector<std::string> unknownTuningVariables(const char* const* environment);

// setTuning(tuningFromEnvironment(tuning())): the programs' first step.
// With `notes`, prints "PROGRAM: note: " and each of
// unknownTuningVariables(environ) to stderr first (glccl-mpi: rank 0 only).
void applyTuningEnvironment(const char* program, bool notes = true);

bool isHelpFlag(std::string_view arg);
bool hasHelpFlag(const std::vector<std::string>& args);

// A library message as the command line prints it: glccl::userMessage.
using glccl::userMessage;

// The message of an error about `input`, after "INPUT: " and without the
// API entry: "'in.png': not an image" becomes "not an image", the path said
// once.
std::string inputMessage(const std::string& input, const std::string& message);

// "; did you mean '--criterion'?" for `given` (an option, its "=value"
// ignored, or a command) close to one of `known` (a letter or two off, or
// the start of only one of them), "" otherwise.
std::string didYouMean(const std::string& given, const std::vector<std::string>& known);

// The UsageError for an option `command` does not take: "unknown option
// '--critrion' for label; did you mean '--criterion'? (see glccl label
// --help)".
UsageError unknownOption(const std::string& arg, const std::string& command, const std::vector<std::string>& known);

// Every option of glccl label: those of one piece, of tiles
// (kTiledLabelHelp), --min-size and --keep-largest, and the measuring
// options (--properties, --intensity, --spacing).
const std::vector<std::string>& labelOptions();

// Parses an option's value with the library's own parser, so that the
// accepted forms are defined in one place; its message follows the
// option's name, without the library's API entry.
template <typename Parse>
auto parseOptionValue(const std::string& option, const std::string& text, Parse parse) {
    try {
        return parse(text);
    } catch (const Error& error) {
        throw UsageError(option + ": " + userMessage(error.what()));
    }
}

// The value of --channel-axis: "-1" or "2", the last axis of a 3-D .npy
// (Python's channel_axis); throws glccl::Error otherwise.
NpyChannelAxis parseChannelAxis(const std::string& text);

// "a,b,,c" -> {"a", "b", "c"}; throws UsageError naming `option` when the
// list holds nothing.
std::vector<std::string> splitList(const std::string& option, const std::string& text);

// A decimal integer in min..max; throws UsageError naming `option`.
int parseInteger(const std::string& option, const std::string& text, int min, int max);

// "WxH" (or "N" for NxN when `allowSquare`), each side 1..largest
// (kMaxImageDimension unless given); throws UsageError naming `option`.
std::pair<int, int> parseSize(const std::string& option, const std::string& text, bool allowSquare,
                              int largest = kMaxImageDimension);

// The --tile of glccl label and glccl-mpi: "WxH" or "N" (a square), each
// side 1..kMaxImageDimension, or "WxHxD", the bricks of a volume (each side
// 1..2^31 - 1; depth 0 for the others); throws UsageError naming `option`.
struct TileSize {
    std::uint32_t width = 0, height = 0, depth = 0;
};
TileSize parseTileSize(const std::string& option, const std::string& text);

// --memory-limit: "8G", "512M", "64K" (binary units, either case) or bytes
// ("1000"); throws UsageError naming `option` for anything else or 0.
std::uint64_t parseMemorySize(const std::string& option, const std::string& text);

// --devices: "0,1,1", device numbers 0..1023; an empty entry ("0,,1", "0,")
// is refused rather than skipped, since it is most likely a number left
// out. Throws UsageError naming `option`.
std::vector<int> parseDevices(const std::string& option, const std::string& text);

// "name@WxH" of a generated input, e.g. "noise50@1024x768".
struct GeneratedInput {
    std::string family;
    int width = 0, height = 0;
    std::string name() const;
};
GeneratedInput parseGeneratedInput(const std::string& option, const std::string& text);

std::string parentDirectory(const std::string& path);

// Checks before any work that `path` can be written: it is a regular file
// (or a link to one) or nothing yet, it does not exist unless `force` (and
// is then writable), and its folder exists and is writable. Throws
// glccl::Error saying which; a FIFO, device, folder or dangling link is
// refused with or without `force`, in a sentence naming what it is.
void checkOutputPath(const std::string& path, bool force);

// One output of a run: the option that names it ("--labels") and its path.
struct NamedOutput {
    std::string option;
    std::string path;
};

// Before any work: no output is one of `inputs` and no two outputs are one
// file, compared by file identity (device and inode, links and ".."
// resolved: glccl::fileIdentity), whatever --force says; then
// checkOutputPath for each. Throws UsageError for the first two, as
// "--color 'x/./in.png' is the input 'x/in.png'; write the output
// elsewhere" and "--labels 'o.npy' and --stats './o.npy' are one file".
void checkOutputs(const std::vector<NamedOutput>& outputs, const std::vector<std::string>& inputs, bool force);

// `path`'s extension (any case) is one of `extensions` ({".npy"}); throws
// UsageError otherwise: "--labels 'x.png': the labels are written as .npy;
// give a name ending in .npy", so that a file's name says what it holds.
// `what` is the subject and its verb ("the labels are").
void checkOutputExtension(const std::string& option, const std::string& path,
                          const std::vector<std::string>& extensions, const std::string& what);

// The test hook of the output transaction, read by the command-line tools
// only: with GLCCL_TEST_PAUSE_BEFORE_COMMIT=SECONDS in the environment,
// prints "glccl: test hook: pausing before the commit" on stderr and waits
// that long before the outputs of a run are committed, so that a test can
// send a signal at that point. Does nothing without the variable.
void pauseBeforeCommitForTests();

// The second test hook, read by the command-line tools only: with
// GLCCL_TEST_PAUSE_IN_COMMIT=SECONDS in the environment, every commit prints
// "glccl: test hook: pausing in the commit" on stderr and waits that long
// once it has begun (glccl::setCommitPauseForTests), so that a test can send
// a signal during a commit. Call once at start-up; does nothing without the
// variable.
void installCommitPauseForTests();

// Prints the notes of a committed (or failed) transaction on stderr, one
// "PROGRAM: note: ..." line each.
void printOutputNotes(const std::string& program, const std::vector<std::string>& notes);

// Throws glccl::Error when `path` exists and is neither a regular file nor
// a folder (a FIFO, a device, a socket): reading one could block forever or
// never end, and it has no size to check a header against.
void checkInputFile(const std::string& path);

// A PNG or JPEG file is decoded whole, whatever the tiles do: the bytes of
// its decoded samples (width x height x channels x bytes a sample), read
// from its header, with a description ("16384x16384, 1 channel of 8 bits");
// nullopt for any other file or an unreadable header (the reader says why).
struct WholeDecode {
    std::uint64_t bytes = 0;
    std::string description;
};
std::optional<WholeDecode> wholeDecodeSize(const std::string& path);

// The width and height of the first image of a TIFF or BigTIFF file, from
// its first directory; nullopt for any other file or a header that cannot
// be read (the reader says why).
std::optional<std::pair<std::uint64_t, std::uint64_t>> tiffSize(const std::string& path);

// Throws UsageError (a limit the input cannot be held to), before anything
// is allocated, when `path` is decoded whole (wholeDecodeSize) and its
// samples alone exceed `memoryLimit` bytes (0: no limit).
void checkDecodeFitsMemoryLimit(const std::string& path, std::uint64_t memoryLimit);

// A size in bytes exactly, in the largest binary unit that divides it:
// "1 KiB", "64 MiB", "1000 bytes".
std::string exactSize(std::uint64_t bytes);

// The smallest tile that --tile may ask for an image (a volume) that it cuts
// into more than kMaxTinyTiles pieces: kMinTileSide (kMinBrickSide) a side.
// Tiles of a few pixels cost far more in their borders and per-tile work
// than they save, so a run with 1x1 tiles would take minutes for what one
// piece does at once.
constexpr std::uint32_t kMinTileSide = 64, kMinBrickSide = 16;
constexpr std::uint64_t kMaxTinyTiles = 1024;

// Raises the tile sides of `width` x `height` (x `depth`) to the smallest
// above when they are below it and cut the image into more than
// kMaxTinyTiles pieces; returns the note to print, or "" when unchanged.
std::string raiseTinyTiles(std::uint32_t& tileWidth, std::uint32_t& tileHeight, std::uint32_t& tileDepth,
                           std::uint64_t width, std::uint64_t height, std::uint64_t depth);

// Throws glccl::Error unless `path` is an existing, writable folder; a
// path that is something else says what it is ("'out' is a regular file,
// not a folder").
void checkOutputFolder(const std::string& path);

// Throws glccl::Error unless `path` is a writable folder or can be made
// one: its nearest existing ancestor is a writable folder (makeFolders
// makes it when a file is first written there).
void checkFolderCanBeMade(const std::string& path);

// Makes `path` and the folders above it that do not exist yet; throws
// glccl::Error saying which could not be made.
void makeFolders(const std::string& path);

std::string formatted(const char* format, double value);

// Prints rows as columns separated by two spaces, each as wide as its widest
// cell; columns listed in leftAligned are left-aligned, the others right-aligned.
void printAlignedTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                       const std::vector<std::size_t>& leftAligned);

// A progress line on stderr. On a terminal it is rewritten in place and
// erased by clear(); elsewhere (a log file, a pipe) only the updates marked
// as steps are printed, one line each, so that logs stay short.
class ProgressLine {
public:
    ProgressLine();
    ~ProgressLine();
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    void update(const std::string& text, bool step);
    // Erases the line on a terminal; call before printing results on stdout.
    void clear();

private:
    bool terminal_ = false;
    bool shown_ = false;
};

// Whether work on `image` takes long enough to report as a progress step
// in a log (a million pixels or more).
bool isLongStep(const Image& image);

// A CSV field, quoted when it holds a comma, quote or line break (RFC 4180).
std::string csvField(const std::string& text);

// `text` as a JSON string literal, quotes included (RFC 8259): quote,
// backslash and control characters escaped; bytes that are not UTF-8 (a file
// name can hold any byte) become U+FFFD, so the document stays valid JSON.
std::string jsonString(std::string_view text);

// A finite double as the shortest JSON number that reads back to it.
std::string jsonNumber(double value);

// A small JSON writer that appends to a string: it places the commas and
// colons, the caller places the structure. Objects and arrays nest;
// key() comes before each member's value. Nothing is checked beyond that:
// a mismatched end is a bug in the caller.
class JsonWriter {
public:
    JsonWriter& beginObject() { return open('{'); }
    JsonWriter& endObject() { return close('}'); }
    JsonWriter& beginArray() { return open('['); }
    JsonWriter& endArray() { return close(']'); }
    JsonWriter& key(std::string_view name);
    JsonWriter& string(std::string_view text);
    JsonWriter& number(double value);
    JsonWriter& integer(std::uint64_t value);
    JsonWriter& null();

    // Takes the text written so far, leaving the writer's nesting as it is,
    // so that a long array can be printed element by element.
    std::string take();

private:
    JsonWriter& open(char bracket);
    JsonWriter& close(char bracket);
    void beforeValue();

    std::string text_;
    std::vector<bool> hasMembers_;  // per open object/array
    bool afterKey_ = false;
};

// One row of the component table as the JSON object of --json --table
// (the columns of the CSV): {"label": ..., "left": ..., ...}; a component
// of a volume adds front, depth and centroid_z.
void writeComponentJson(JsonWriter& json, std::uint64_t label, const Component& c, bool volume = false);

// The first lines of the component table glccl label prints (whole or in
// tiles): the header, and the row of `label`; a volume's add front, depth
// and centroid_z, as writeComponentJson does.
std::vector<std::string> componentTableHeader(bool volume);
std::vector<std::string> componentTableRow(std::uint64_t label, const Component& c, bool volume);

// Whether a folder input's file has the extension of a format glccl reads:
// .png .jpg .jpeg .tif .tiff .pgm .ppm (any case).
bool hasImageExtension(const std::string& path);

// The file name of `path` without its folder and its last extension:
// "data/cell.01.png" -> "cell.01".
std::string fileStem(const std::string& path);


// ---------------------------------------------------------------- glccl label

// The outputs of one input; an empty path is not written.
struct OutputPaths {
    std::string labels, stats, color;
    // The label image: a path ending in .png (16-bit PNG) or .tif/.tiff
    // (32-bit TIFF), or, with labelImageAuto, a path without extension to
    // which ".png" (labels up to 65535) or ".tif" (larger) is added once the
    // labels are known.
    std::string labelImage;
    bool labelImageAuto = false;
};

struct LabelCommand {
    std::vector<std::string> arguments;  // INPUT and FOLDER arguments as given
    Backend backend = Backend::Auto;
    int threads = 0;  // --threads: the cpu engine's (0: every core this process may run on)
    // --connectivity, or the default of each input: 8 for a 2-D image, 26
    // for a volume (connectivityFor).
    Connectivity connectivity = Connectivity::Eight;
    bool connectivityGiven = false;
    Criterion criterion = Criterion::binary();
    NpyChannelAxis channelAxis = NpyChannelAxis::None;  // of 3-D .npy inputs
    OutputPaths paths;                   // without --out-dir: the paths given
    std::string outDir;                  // with --out-dir: the folder, and which outputs
    bool writeLabels = false, writeStats = false, writeColor = false, writeLabelImage = false;
    bool force = false;
    bool json = false;
    bool timing = false;
    bool table = false;
    bool progress = false;
    bool quiet = false;  // no progress line on a terminal
};

// The connectivity `command` labels an input of `shape` with: the one
// given, else 8 for a 2-D image and 26 (faces, edges and corners, as cc3d
// and scikit-image default to) for a volume.
Connectivity connectivityFor(const LabelCommand& command, const Shape& shape);

// The options of `glccl label` (after the word "label"). Throws UsageError
// for a mistake in them; checks nothing on disk.
LabelCommand parseLabelCommand(ArgumentCursor& cursor);

// The label image format a path names: .png a 16-bit PNG, .tif or .tiff a
// 32-bit TIFF (any case); throws UsageError naming `option` otherwise.
LabelImageFormat labelImageFormatOf(const std::string& option, const std::string& path);

}  // namespace glccl::tools

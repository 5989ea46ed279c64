// glccl label, tiled: one INPUT labeled tile by tile, or a volume brick by
// brick (glccl::labelTiled), the labels streamed into an .npy file, the
// table into a CSV file.

#include "tiled.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>

#include "cli_support.hpp"
#include "measure_command.hpp"
#include "glccl/backend.hpp"
#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "glccl/measure_team.hpp"
#include "glccl/output_transaction.hpp"
#include "glccl/session.hpp"
#include "glccl/tiled.hpp"

namespace glccl::tools {

const char kTiledLabelHelp[] =
    "\n"
    "huge images (tiled labeling; one INPUT; docs/huge-images.md):\n"
    "  An INPUT .npy or TIFF (a TIFF stack is a volume) larger than one backend call\n"
    "  takes (a side past 32768, or past the GPU's texture size), or than half the\n"
    "  memory holds in one piece, is labeled in tiles or bricks (.npy memory-mapped,\n"
    "  TIFF read strip by strip or tile by tile), with the labels streamed into\n"
    "  --labels; so is any INPUT given one of these options. The output is the\n"
    "  one-piece labeling's, byte for byte.\n"
    "  --tile WxH                    tile size (default: the largest the backend and the\n"
    "                                memory limit allow, at most 16384 a side)\n"
    "  --tile WxHxD                  brick size of a volume (a 3-D .npy: depth, height,\n"
    "                                width; or a TIFF stack; default: at most 512 a side)\n"
    "  --memory-limit SIZE           host memory of the whole run, e.g. 8G, 512M (default:\n"
    "                                half the physical memory): tiles are sized so that it\n"
    "                                holds whatever the image holds; a limit no tiles hold\n"
    "                                is refused before the tiles are labeled\n"
    "  --devices LIST                one worker per entry, e.g. 0,1 (cuda: CUDA devices;\n"
    "                                GL backends: EGL devices, numbered as CUDA numbers\n"
    "                                them where the driver says, e.g. NVIDIA); 0,0 runs\n"
    "                                two workers on device 0 (default: one worker on the\n"
    "                                default device)\n"
    "  --label-type auto|uint32|uint64\n"
    "                                dtype of --labels (default auto: uint32 while the\n"
    "                                component count fits, else uint64); uint32 with more\n"
    "                                components is an error before anything is written\n"
    "  Tiled labeling writes --labels (.npy) and --stats (.csv); not --color,\n"
    "  --label-image or --out-dir. With --properties (and --intensity, --spacing),\n"
    "  --stats holds the region properties, measured band by band as the labels\n"
    "  are written: the columns glccl measure gives of the labels.\n";

namespace {

using Clock = std::chrono::steady_clock;

// The options only tiled labeling has: any of them asks for it.
bool isTiledOption(const std::string& name) {
    return name == "--tile" || name == "--memory-limit" || name == "--devices" || name == "--label-type";
}

// Options of glccl label that take a value, so that the value is not taken
// for an INPUT when looking for one.
bool takesValue(const std::string& name) {
    return isTiledOption(name) || name == "--backend" || name == "--threads" || name == "--connectivity" ||
           name == "--criterion" ||
           name == "--channel-axis" ||
           name == "--labels" || name == "--stats" || name == "--color" || name == "--label-image" ||
           name == "--out-dir" || name == "--properties" || name == "--intensity" || name == "--spacing";
}

struct TiledCommand {
    std::string input;
    TiledOptions options;
    MeasureRequest measure;
    NpyChannelAxis channelAxis = NpyChannelAxis::None;
    std::string labels, stats;
    bool force = false, json = false, timing = false, table = false, progress = false, quiet = false;
    bool automatic = false;  // chosen for the input's size, not by an option
    bool connectivityGiven = false;
};

TiledCommand parseTiledCommand(std::vector<std::string> args) {
    TiledCommand command;
    TiledOptions& options = command.options;
    command.measure = takeMeasureRequest(args);
    ArgumentCursor cursor(args);
    while (!cursor.done()) {
        const std::string arg = cursor.take();
        auto [name, inlineValue] = ArgumentCursor::splitOption(arg);
        if (name == "--backend") {
            options.label.backend = parseOptionValue(name, cursor.valueOf(name, inlineValue), parseBackend);
        } else if (name == "--threads") {
            options.label.threads = parseInteger(name, cursor.valueOf(name, inlineValue), 1, kMostThreads);
        } else if (name == "--connectivity") {
            options.label.connectivity = parseOptionValue(name, cursor.valueOf(name, inlineValue), parseConnectivity);
            command.connectivityGiven = true;
        } else if (name == "--channel-axis") {
            command.channelAxis = parseOptionValue(name, cursor.valueOf(name, inlineValue), parseChannelAxis);
        } else if (name == "--criterion") {
            options.label.criterion = parseOptionValue(name, cursor.valueOf(name, inlineValue), Criterion::parse);
        } else if (name == "--labels") {
            if (!command.labels.empty()) throw UsageError("option --labels is given twice");
            command.labels = cursor.valueOf(name, inlineValue);
            checkOutputExtension(name, command.labels, {".npy"}, "the labels are");
        } else if (name == "--stats") {
            if (!command.stats.empty()) throw UsageError("option --stats is given twice");
            command.stats = cursor.valueOf(name, inlineValue);
            checkOutputExtension(name, command.stats, {".csv"}, "the component table is");
        } else if (name == "--tile") {
            const TileSize tile = parseTileSize(name, cursor.valueOf(name, inlineValue));
            options.tileWidth = tile.width;
            options.tileHeight = tile.height;
            options.tileDepth = tile.depth;
        } else if (name == "--memory-limit") {
            options.memoryLimit = parseMemorySize(name, cursor.valueOf(name, inlineValue));
        } else if (name == "--devices") {
            options.devices = parseDevices(name, cursor.valueOf(name, inlineValue));
        } else if (name == "--label-type") {
            options.labelType = parseOptionValue(name, cursor.valueOf(name, inlineValue), parseLabelType);
        } else if (name == "--force" && !inlineValue) {
            command.force = true;
        } else if (name == "--json" && !inlineValue) {
            command.json = true;
        } else if (name == "--timing" && !inlineValue) {
            command.timing = true;
        } else if (name == "--table" && !inlineValue) {
            command.table = true;
        } else if (name == "--progress" && !inlineValue) {
            command.progress = true;
        } else if (name == "--quiet" && !inlineValue) {
            command.quiet = true;
        } else if (arg.size() > 1 && arg[0] == '-') {
            const auto& known = labelOptions();
            if (std::find(known.begin(), known.end(), name) == known.end()) throw unknownOption(arg, "label", known);
            throw UsageError("option " + name + " is not available for tiled labeling, which writes --labels (.npy) "
                             "and --stats (.csv) (see glccl label --help, \"huge images\")");
        } else if (command.input.empty()) {
            command.input = arg;
        } else {
            throw UsageError("tiled labeling takes one INPUT, not '" + command.input + "' and '" + arg + "'");
        }
    }
    if (command.input.empty()) throw UsageError("label needs an INPUT image (see glccl label --help)");
    if (!command.labels.empty() && command.labels == command.stats)
        throw UsageError("--labels and --stats both name '" + command.labels + "'");
    if (command.measure.given() && command.stats.empty())
        throw UsageError("--properties names the columns of --stats: give --stats OUT.csv");
    return command;
}

// The machine's memory as the command plans for it: physicalMemoryBytes(),
// or, for tests, GLCCL_TEST_PHYSICAL_MEMORY (a size: "512M"), read by the
// tools only, so that a test can show the planning on a small input.
std::uint64_t plannedPhysicalMemory() {
    const char* size = std::getenv("GLCCL_TEST_PHYSICAL_MEMORY");
    if (size == nullptr || *size == '\0') return physicalMemoryBytes();
    return parseMemorySize("GLCCL_TEST_PHYSICAL_MEMORY", size);
}

// Would labeling `shape` in one piece take more host memory than the
// default memory limit of tiled runs (half the physical memory)? One piece
// holds the input, its labels (4 bytes an element), the engine's own
// memory while it labels, counted as tiled runs count a worker's (12 bytes
// an element), and the table of as many components as the default
// connectivity (8, or 26 for a volume) lets it hold: a file past that is
// streamed in tiles or bricks, planned within the limit, rather than read
// whole.
bool exceedsDefaultMemory(const Shape& shape, int pixelBytes) {
    const std::uint64_t physical = plannedPhysicalMemory();
    const auto half = [](std::int64_t extent) { return (std::uint64_t(extent) + 1) / 2; };
    const std::uint64_t components =
        half(shape.width) * half(shape.height) * (shape.dimensions == 3 ? half(shape.depth) : 1);
    return physical != 0 &&
           shape.count() * std::uint64_t(pixelBytes + 4 + 12) + components * sizeof(Component) > physical / 2;
}

// An .npy or TIFF as routeFile() describes it, from its header (a TIFF's
// page headers and strip places; a stack's pages in one walk); `held`: the
// bytes of a pixel one piece holds as the memory is planned (a colour
// .npy's as 4 channels, a TIFF's as gray). Throws glccl::Error for a file
// the tiles do not read.
InputDescription describeFile(const std::string& path, const LabelCommand& command, ChannelMode mode, int& held) {
    if (isNpyFile(path)) {
        const NpyShape npy = peekNpyShape(path, command.channelAxis, NpyVolumes::Read);
        const Shape shape =
            npy.dimensions == 3
                ? Shape::volume(std::int64_t(npy.width), std::int64_t(npy.height), std::int64_t(npy.depth))
                : Shape::image(std::int64_t(npy.width), std::int64_t(npy.height));
        const int channels = npy.channels == 1 ? 1 : 4;
        held = channels * npy.sampleBits / 8;
        return InputDescription::host(shape, mode == ChannelMode::Gray ? 1 : channels, npy.sampleBits);
    }
    const TiffImageSource tiff(path, mode);
    const Shape shape = tiff.dimensions() == 3 ? Shape::volume(tiff.width(), tiff.height(), tiff.depth())
                                               : Shape::image(tiff.width(), tiff.height());
    held = tiff.sampleBits() / 8;
    return InputDescription::host(shape, tiff.channels(), tiff.sampleBits());
}

}  // namespace

std::optional<FileRoute> routeFile(Session& session, const std::string& path, const LabelCommand& command) {
    if (!isNpyFile(path) && !isTiffFile(path)) return std::nullopt;
    const ChannelMode mode = command.criterion.kind == Criterion::Kind::Threshold ? ChannelMode::Natural
                                                                                  : ChannelMode::Gray;
    InputDescription input;
    int held = 1;
    try {
        input = describeFile(path, command, mode, held);
    } catch (const Error&) {
        // A TIFF too large to read whole that the tiles cannot read either:
        // their reason is the real one, not the size.
        const std::optional<std::pair<std::uint64_t, std::uint64_t>> size = tiffSize(path);
        if (size && (std::max(size->first, size->second) > std::uint64_t(kMaxImageDimension) ||
                     size->first * size->second > kMaxImagePixels))
            throw;
        return std::nullopt;  // not an image the tiles read: the ordinary reader says why
    }
    const Shape& shape = input.shape;
    std::int64_t largest = 0;
    for (int axis = 0; axis < shape.dimensions; ++axis) largest = std::max(largest, shape.extent(axis));
    input.streamed = std::uint64_t(largest) > std::uint64_t(kMaxImageDimension) || shape.count() > kMaxImagePixels ||
                     exceedsDefaultMemory(shape, held);
    const bool small = shape.dimensions == 3 ? largest <= 2048 && shape.count() <= (std::uint64_t(1) << 31)
                                             : largest <= 16384;
    if (!input.streamed && small) return std::nullopt;
    LabelOptions options;
    options.backend = command.backend;
    options.connectivity = connectivityFor(command, shape);
    // A connectivity given for the other dimensions is refused by the
    // labeling that follows, in the words of the option: routed here with
    // the input's default.
    if (!whyConnectivityDoesNotFit(options.connectivity, shape).empty())
        options.connectivity = shape.dimensions == 3 ? Connectivity::TwentySix : Connectivity::Eight;
    options.criterion = command.criterion;
    options.threads = command.threads;
    try {
        return FileRoute{session.route(input, options), input};
    } catch (const Error&) {
        if (input.streamed) throw;
        return std::nullopt;  // the ordinary command says why the backend cannot run
    }
}

namespace {

// The tiled labeling's sink with --properties: the rows go on to the .npy
// sink (which keeps them only with --labels) and are measured as they pass,
// so that no labels file is needed to measure them, nor read back.
class MeasuringSink : public LabelSink {
public:
    MeasuringSink(NpyLabelSink& out, const Shape& shape, LabelType labelType, const IntensityImage* intensity,
                  TermRequest request, int threads, std::uint64_t sumsLimit, std::uint64_t processLimit)
        : out_(out), shape_(shape), labelType_(labelType), intensity_(intensity), request_(std::move(request)),
          threads_(threads), sumsLimit_(sumsLimit), processLimit_(processLimit) {}
    void begin(std::uint32_t width, std::uint32_t height, LabelType type, std::uint64_t count) override {
        begin(Shape::image(width, height), type, count);
    }
    void begin(const Shape& shape, LabelType type, std::uint64_t count) override {
        out_.begin(shape, type, count);
        measurement_.emplace(shape, int(labelBytes(type)), intensity_, request_, threads_, sumsLimit_, processLimit_);
    }
    void writeRows(std::uint32_t y0, std::uint32_t rows, const void* labels) override {
        out_.writeRows(y0, rows, labels);
        measurement_->add(labels, rows);
    }
    bool wantsLabels() const override { return true; }
    bool wantsTable() const override { return out_.wantsTable(); }
    void writeComponents(std::uint64_t firstLabel, const std::vector<Component>& components) override {
        out_.writeComponents(firstLabel, components);
    }
    void finish() override {
        totals_ = measurement_->finish();
        out_.finish();
    }
    std::string labelsFile() const override { return out_.labelsFile(); }
    std::uint64_t bufferBytes() const override {
        // Auto writes uint32 while the count fits.
        const int bytes = labelType_ == LabelType::Uint64 ? 8 : 4;
        return out_.bufferBytes() + StreamedMeasurement::heldBytes(shape_, bytes);
    }
    const RegionTotals& totals() const { return totals_; }

private:
    NpyLabelSink& out_;
    Shape shape_;
    LabelType labelType_;
    const IntensityImage* intensity_;
    TermRequest request_;
    int threads_;
    std::uint64_t sumsLimit_, processLimit_;
    std::optional<StreamedMeasurement> measurement_;
    RegionTotals totals_;
};

double mebibytes(std::uint64_t bytes) { return double(bytes) / double(1 << 20); }

// The process's peak resident memory so far (getrusage: Linux counts KiB).
std::uint64_t peakResidentBytes() {
    struct rusage usage {};
    return ::getrusage(RUSAGE_SELF, &usage) == 0 ? std::uint64_t(usage.ru_maxrss) * 1024 : 0;
}

// Labels the command's input in pieces, by `route` where the size decided
// it (automatic), else routed here as streamed.
int runTiled(const TiledCommand& command, Session& session, const std::optional<Route>& route) {
    const auto start = Clock::now();
    // Outputs are checked before any work, as the ordinary command does.
    std::vector<NamedOutput> outputs;
    if (!command.labels.empty()) outputs.push_back({"--labels", command.labels});
    if (!command.stats.empty()) outputs.push_back({"--stats", command.stats});
    // Never an input: the image, nor the intensity the properties read.
    std::vector<std::string> inputs = {command.input};
    if (!command.measure.intensity.empty()) inputs.push_back(command.measure.intensity);
    checkOutputs(outputs, inputs, command.force);
    // Both outputs are committed together after the last row, or neither.
    OutputTransaction transaction;
    const ChannelMode mode = command.options.label.criterion.kind == Criterion::Kind::Threshold ? ChannelMode::Natural
                                                                                                 : ChannelMode::Gray;
    // PNG and JPEG are decoded whole: the limit holds for decoding too.
    checkDecodeFitsMemoryLimit(command.input, command.options.memoryLimit);
    const std::unique_ptr<ImageSource> source = openImageSource(command.input, mode, command.channelAxis);
    TiledOptions options = command.options;
    // The default limit, half the memory, of the memory planned for.
    if (options.memoryLimit == 0 && std::getenv("GLCCL_TEST_PHYSICAL_MEMORY") != nullptr)
        options.memoryLimit = plannedPhysicalMemory() / 2;
    // A brick's depth given for an image would be dropped without a word.
    if (source->dimensions() == 2 && options.tileDepth > 1)
        throw UsageError(command.input + ": --tile: a WxHxD brick is for a volume; this is a 2-D image: give WxH");
    const std::string raised = raiseTinyTiles(options.tileWidth, options.tileHeight, options.tileDepth, source->width(),
                                              source->height(), source->depth());
    if (!raised.empty()) std::cerr << "glccl: note: " << raised << '\n';
    options.deviceTimings = command.timing;
    // A volume's default connectivity is 26, as the label path's (scipy's full structure).
    if (source->dimensions() == 3 && !command.connectivityGiven) options.label.connectivity = Connectivity::TwentySix;
    // A connectivity given for the other dimensions is the command line's mistake.
    const Shape shape = source->dimensions() == 3 ? Shape::volume(source->width(), source->height(), source->depth())
                                                  : Shape::image(source->width(), source->height());
    const std::string misfit = whyConnectivityDoesNotFit(options.label.connectivity, shape);
    if (!misfit.empty()) throw UsageError(command.input + ": --connectivity: " + misfit);
    // The properties, before any labeling: each defined in these
    // dimensions, with the intensity and spacing they need. An intensity
    // read whole is read before the memory in use is taken (below), so that
    // the tiles are planned around it.
    const MeasureRequest& measure = command.measure;
    // The pieces are measured on the host as they come: the measuring team
    // starts now.
    if (measure.given()) startMeasuringTeam(options.label.threads);
    std::optional<IntensityImage> intensity;
    if (!measure.intensity.empty()) {
        checkInputFile(measure.intensity);
        const std::uint64_t limit = options.memoryLimit != 0 ? options.memoryLimit : plannedPhysicalMemory() / 2;
        const std::uint64_t bytes = bytesReadWhole(measure.intensity);
        if (limit != 0 && bytes > limit)
            throw UsageError("--intensity '" + measure.intensity + "' takes " + exactSize(bytes) +
                             " read whole, more than the memory limit " + exactSize(limit) +
                             "; a C-ordered little-endian .npy is mapped instead, at any size (numpy: "
                             "numpy.save(path, numpy.ascontiguousarray(image)))");
        intensity = readIntensity(measure.intensity, shape);
    }
    std::optional<MeasureOptions> measuring;
    TermRequest request;
    if (measure.given()) {
        const IntensityImage* image = intensity ? &*intensity : nullptr;
        checkMeasurement(measure, shape.dimensions, image);
        measuring = measureOptions(measure, options.label.threads, image);
        request = termsFor(measure.properties, shape.dimensions, image ? image->channels : 0,
                           image ? image->kind : SampleKind::Unsigned, image ? 8 * image->bytes : 8);
        request.intensityChannelAxis = measuring->intensityChannelAxis;
    }
    const std::size_t kept = command.json && !command.table ? 0 : 10;
    // With --properties, --stats is the properties' table, written below.
    NpyLabelSink sink(command.labels, measuring ? std::string() : command.stats, command.force, kept);
    // The limit is the whole process's: what it holds already (code,
    // libraries, a decoded input) is taken off it. With --properties, the
    // regions' sums, which grow with their count, are kept within a third
    // of what that leaves (a measurement whose sums pass it stops with the
    // error that says so), and the tiles are planned in half of it: once
    // the tiles are gone, the sums' last merges and the table made from
    // them take about as much again as the sums.
    const std::uint64_t inUse = residentMemoryBytes();
    const std::uint64_t room = options.memoryLimit > inUse ? options.memoryLimit - inUse : 0;
    const bool measuredWithin = measuring && options.memoryLimit != 0;
    const std::uint64_t sumsLimit = measuredWithin ? std::max<std::uint64_t>(room / 3, 1) : 0;
    std::optional<MeasuringSink> measuringSink;
    if (measuring)
        measuringSink.emplace(sink, shape, options.labelType, intensity ? &*intensity : nullptr, request,
                              options.label.threads, sumsLimit, measuredWithin ? options.memoryLimit : 0);
    LabelSink& output = measuringSink ? static_cast<LabelSink&>(*measuringSink) : sink;
    // Where the run is: rewritten in place on a terminal; with --progress a
    // line a report in a log too.
    ProgressLine line;
    options.progress = [&](const TiledProgress& at) {
        if (command.quiet && !command.progress) return true;
        line.update(std::string("tiled: ") + at.phase + " " + std::to_string(at.done) + "/" + std::to_string(at.total) +
                        (std::string(at.phase) == "label" ? " tiles" : " bands"),
                    command.progress);
        return true;
    };
    options.memoryInUse = inUse + (measuredWithin ? room / 2 : 0);
    const TiledResult run = [&] {
        try {
            return route ? session.labelTiled(*source, *route, options, output)
                         : session.labelTiled(*source, options, output);
        } catch (const MemoryLimitError& error) {
            // No plan holds the limit: nothing ran.
            throw UsageError(std::string(error.what()) +
                             (measuredWithin ? " (with --properties, half of what the limit leaves, " +
                                                   exactSize(room / 2) + ", is kept for the regions' sums and their "
                                                   "table, and counted as held)"
                                             : ""));
        }
    }();
    if (measuringSink)
        writePropertyCsv(command.stats,
                         finalizeProperties(measuringSink->totals(), measuring->properties, options.label.threads),
                         command.force);
    line.clear();
    printOutputNotes("glccl", transaction.notes());
    pauseBeforeCommitForTests();
    transaction.commit();
    const double milliseconds = std::chrono::duration<double, std::milli>(Clock::now() - start).count();

    const TilePlan& plan = run.plan;
    const bool volume = plan.isVolume();
    const std::string tiles =
        volume ? std::to_string(plan.tilesX()) + "x" + std::to_string(plan.tilesY()) + "x" +
                     std::to_string(plan.tilesZ()) + " bricks of " + std::to_string(plan.tileWidth()) + "x" +
                     std::to_string(plan.tileHeight()) + "x" + std::to_string(plan.tileDepth())
               : std::to_string(plan.tilesX()) + "x" + std::to_string(plan.tilesY()) + " tiles of " +
                     std::to_string(plan.tileWidth()) + "x" + std::to_string(plan.tileHeight());
    if (command.json) {
        JsonWriter json;
        json.beginArray().beginObject();
        json.key("input").string(command.input);
        json.key("width").integer(plan.imageWidth());
        json.key("height").integer(plan.imageHeight());
        if (volume) json.key("depth").integer(plan.imageDepth());
        json.key("components").integer(run.count);
        json.key("milliseconds").number(std::stod(formatted("%.3f", milliseconds)));
        json.key("backend").string(backendName(run.backend));
        json.key("device").string(run.device);
        json.key("connectivity").integer(std::uint64_t(neighbourCount(options.label.connectivity)));
        json.key("criterion").string(command.options.label.criterion.toString());
        json.key("tiled").beginObject();
        json.key("tile_width").integer(plan.tileWidth());
        json.key("tile_height").integer(plan.tileHeight());
        json.key("tiles_x").integer(plan.tilesX());
        json.key("tiles_y").integer(plan.tilesY());
        if (volume) {
            json.key("tile_depth").integer(plan.tileDepth());
            json.key("tiles_z").integer(plan.tilesZ());
        }
        json.key("workers").integer(run.workers);
        json.key("label_type").string(labelTypeName(run.labelType));
        json.key("tiles_in_flight").integer(run.tilesInFlight);
        json.key("border_parts").integer(run.borderParts);
        json.key("automatic").integer(command.automatic ? 1 : 0);
        json.key("memory_planned_mib").number(std::stod(formatted("%.1f", mebibytes(run.memoryEstimate))));
        json.key("peak_rss_mib").number(std::stod(formatted("%.1f", mebibytes(peakResidentBytes()))));
        json.endObject();
        if (command.timing) {
            // A device time that was not measured (NaN) is null.
            const auto stage = [&json](const char* name, double milliseconds) {
                if (std::isnan(milliseconds)) json.key(name).null();
                else json.key(name).number(std::stod(formatted("%.3f", milliseconds)));
            };
            json.key("stages").beginObject();
            stage("label_tiles", run.labelMilliseconds);
            stage("number_components", run.numberMilliseconds);
            stage("relabel_tiles", run.writeMilliseconds);
            stage("merge_borders", run.mergeMilliseconds);
            stage("label_calls", run.labelCallMilliseconds);
            stage("relabel_calls", run.relabelCallMilliseconds);
            stage("write_sink", run.sinkMilliseconds);
            if (run.backend != Backend::Cpu) {
                stage("device", run.deviceMilliseconds);
                stage("device_busiest_worker", run.busiestDeviceMilliseconds);
                stage("relabel_device", run.relabelDeviceMilliseconds);
            }
            json.endObject();
        }
        json.key("outputs").beginObject();
        if (!command.labels.empty()) json.key("labels").string(command.labels);
        if (!command.stats.empty()) json.key("stats").string(command.stats);
        json.endObject();
        if (command.table) {
            json.key("table").beginArray();
            for (std::size_t i = 0; i < sink.firstComponents().size(); ++i) {
                writeComponentJson(json, i + 1, sink.firstComponents()[i], volume);
            }
            json.endArray();
        }
        json.endObject().endArray();
        std::cout << json.take() << '\n';
        for (const std::string& note : run.notes) std::cerr << "glccl: note: " << note << '\n';
        return 0;
    }

    for (const std::string& note : run.notes) std::cerr << "glccl: note: " << note << '\n';
    std::cout << command.input << ": " << plan.imageWidth() << 'x' << plan.imageHeight()
              << (volume ? "x" + std::to_string(plan.imageDepth()) : "") << ", " << run.count
              << (run.count == 1 ? " component, " : " components, ") << formatted("%.2f", milliseconds) << " ms ("
              << backendName(run.backend) << ", " << run.device << ")\n";
    std::cout << "  tiled" << (command.automatic ? " (larger than one " + std::string(backendName(run.backend)) +
                                                       " call takes)"
                                                 : "")
              << ": " << tiles << ", " << run.workers << (run.workers == 1 ? " worker" : " workers") << ", labels "
              << labelTypeName(run.labelType) << ", " << source->describe()
              << ", " << run.tilesInFlight << " in flight" << '\n';
    if (command.timing) {
        const auto device = [](double milliseconds) {
            return std::isnan(milliseconds) ? std::string("n/a") : formatted("%.3f", milliseconds);
        };
        std::vector<std::vector<std::string>> rows = {{"", "stage", "ms"}};
        rows.push_back({"", "label_tiles", formatted("%.3f", run.labelMilliseconds)});
        rows.push_back({"", "  label calls (sum over tiles)", formatted("%.3f", run.labelCallMilliseconds)});
        rows.push_back({"", "  merge_borders", formatted("%.3f", run.mergeMilliseconds)});
        if (run.backend != Backend::Cpu) {
            rows.push_back({"", "  device (sum over tiles)", device(run.deviceMilliseconds)});
            if (run.workers > 1)
                rows.push_back({"", "  device (busiest worker)", device(run.busiestDeviceMilliseconds)});
        }
        rows.push_back({"", "number_components", formatted("%.3f", run.numberMilliseconds)});
        rows.push_back({"", "relabel_tiles", formatted("%.3f", run.writeMilliseconds)});
        rows.push_back({"", "  label calls (sum over tiles)", formatted("%.3f", run.relabelCallMilliseconds)});
        rows.push_back({"", "  writing (the sink's)", formatted("%.3f", run.sinkMilliseconds)});
        if (run.backend != Backend::Cpu)
            rows.push_back({"", "  device (sum over tiles)", device(run.relabelDeviceMilliseconds)});
        rows.push_back({"", "wall", formatted("%.3f", milliseconds)});
        printAlignedTable(std::cout, rows, {1});
        std::cout << "  " << run.borderParts << " border parts; host memory planned for about "
                  << formatted("%.1f", mebibytes(run.memoryEstimate)) << " MiB, peak RSS "
                  << formatted("%.1f", mebibytes(peakResidentBytes())) << " MiB\n";
    }
    if (!sink.firstComponents().empty()) {
        std::vector<std::vector<std::string>> rows = {componentTableHeader(volume)};
        for (std::size_t i = 0; i < sink.firstComponents().size(); ++i)
            rows.push_back(componentTableRow(i + 1, sink.firstComponents()[i], volume));
        printAlignedTable(std::cout, rows, {});
        if (run.count > sink.firstComponents().size())
            std::cout << "... (" << run.count - sink.firstComponents().size() << " more)\n";
    }
    if (!command.labels.empty()) std::cout << "wrote " << command.labels << '\n';
    if (!command.stats.empty()) std::cout << "wrote " << command.stats << '\n';
    return 0;
}

}  // namespace

bool asksForTiles(const std::vector<std::string>& args) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto [name, inlineValue] = ArgumentCursor::splitOption(args[i]);
        if (isTiledOption(name)) return true;
        if (name.size() > 1 && name[0] == '-' && takesValue(name) && !inlineValue) ++i;
    }
    return false;
}

int runTiledLabel(const std::vector<std::string>& args) {
    // Looked at before any file is opened: a FIFO would block it.
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto [name, inlineValue] = ArgumentCursor::splitOption(args[i]);
        if (name.size() > 1 && name[0] == '-') {
            if (takesValue(name) && !inlineValue) ++i;
            continue;
        }
        checkInputFile(args[i]);
    }
    const TiledCommand command = parseTiledCommand(args);
    Session session;
    return runTiled(command, session, std::nullopt);
}

int runTiledLabel(const std::vector<std::string>& args, Session& session, const Route& route) {
    TiledCommand command = parseTiledCommand(args);
    command.automatic = true;
    return runTiled(command, session, route);
}

}  // namespace glccl::tools

// glccl-mpi: tiled labeling across MPI ranks (glccl/tiled_mpi.hpp).
//
//   mpirun -n P glccl-mpi label INPUT [--labels OUT.npy] [--stats OUT.csv] [options]
//
// Exit status: 0 success, 1 runtime error (on any rank), 2 usage error.

#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "cli_support.hpp"
#include "glccl/error.hpp"
#include "glccl/image_source.hpp"
#include "glccl/output_transaction.hpp"
#include "glccl/session.hpp"
#include "glccl/tiled_mpi.hpp"
#include "glccl/version.hpp"

namespace {

const char kHelp[] =
    "usage: mpirun -n P glccl-mpi label INPUT [options]\n"
    "\n"
    "Labels INPUT (an .npy of any size, memory-mapped by every rank; a TIFF read\n"
    "strip by strip, a stack of pages as a volume; or any other image glccl label\n"
    "reads) across P MPI ranks: each rank labels its block of tile rows\n"
    "with its own workers, block borders are merged up a binary tree of ranks, the\n"
    "components are numbered by an exclusive scan, and every rank writes its rows of\n"
    "--labels (MPI-IO). The output is glccl label's, byte for byte.\n"
    "\n"
    "options:\n"
    "  --backend B                   auto, compute, raster, cuda, cpu or reference (default\n"
    "                                auto)\n"
    "  --connectivity 4|8|6|18|26    neighbourhood (default 8, 26 for volumes): 4 or 8\n"
    "                                for 2-D images; 6, 18 and 26 for volumes\n"
    "  --channel-axis -1             a 3-D .npy is (height, width, 1|3|4), as with glccl\n"
    "                                label; without it, a volume (depth, height, width)\n"
    "                                labeled in bricks, each rank a slab of slices (so is\n"
    "                                a TIFF stack)\n"
    "  --criterion C                 binary, binary:L, segments, threshold:T or delta:D\n"
    "                                (default binary; see glccl label --help)\n"
    "  --labels OUT.npy              write the labels (uint32 or uint64, see --label-type)\n"
    "  --stats OUT.csv               write the component table\n"
    "  --force                       overwrite existing outputs\n"
    "  --tile WxH                    tile size (default: chosen by rank 0 for the backend)\n"
    "  --tile WxHxD                  brick size of a volume (a 3-D .npy or a TIFF stack;\n"
    "                                ranks take slabs)\n"
    "  --memory-limit SIZE           host memory per rank to plan for, e.g. 8G\n"
    "  --devices LIST                workers of each rank, e.g. 0,1 (default for cuda,\n"
    "                                compute and raster: one worker, on the GPU numbered\n"
    "                                by the rank's index on its machine, modulo the GPUs)\n"
    "  --label-type auto|uint32|uint64\n"
    "  --timing                      the slowest rank's time per phase\n"
    "  --json                        the summary as one JSON line (with --timing: the\n"
    "                                phases under \"stages\")\n"
    "  -h, --help                    show this help\n"
    "\n"
    "example (as root in a container add --allow-run-as-root):\n"
    "  mpirun -n 4 --oversubscribe glccl-mpi label huge.npy --backend cpu --labels labels.npy\n";

// A mistake in the command line (exit status 2), as glccl's.
using glccl::tools::UsageError;

struct Command {
    std::string input, labels, stats;
    glccl::TiledOptions options;
    glccl::NpyChannelAxis channelAxis = glccl::NpyChannelAxis::None;
    bool force = false, timing = false, json = false, devicesGiven = false, connectivityGiven = false;
};

Command parse(int argc, char** argv) {
    if (argc < 2 || std::string(argv[1]) != "label")
        throw UsageError("the command is 'label' (see glccl-mpi --help)");
    Command command;
    glccl::TiledOptions& options = command.options;
    for (int i = 2; i < argc; ++i) {
        std::string arg = argv[i], value;
        const std::size_t equals = arg.find('=');
        const bool inlineValue = arg.rfind("--", 0) == 0 && equals != std::string::npos;
        if (inlineValue) {
            value = arg.substr(equals + 1);
            arg = arg.substr(0, equals);
        }
        const auto next = [&]() -> std::string {
            if (inlineValue) return value;
            if (i + 1 >= argc) throw UsageError("option " + arg + " needs a value");
            return argv[++i];
        };
        try {
            if (arg == "--backend") options.label.backend = glccl::parseBackend(next());
            else if (arg == "--connectivity") {
                options.label.connectivity = glccl::parseConnectivity(next());
                command.connectivityGiven = true;
            }
            else if (arg == "--criterion") options.label.criterion = glccl::Criterion::parse(next());
            else if (arg == "--channel-axis") command.channelAxis = glccl::tools::parseChannelAxis(next());
            else if (arg == "--labels" || arg == "--stats") {
                std::string& path = arg == "--labels" ? command.labels : command.stats;
                // A second one would silently win over the first.
                if (!path.empty()) throw UsageError("option " + arg + " is given twice");
                path = next();
                if (arg == "--labels") glccl::tools::checkOutputExtension(arg, path, {".npy"}, "the labels are");
                else glccl::tools::checkOutputExtension(arg, path, {".csv"}, "the component table is");
            }
            else if (arg == "--force") command.force = true;
            else if (arg == "--timing") command.timing = true;
            else if (arg == "--json") command.json = true;
            else if (arg == "--label-type") options.labelType = glccl::parseLabelType(next());
            else if (arg == "--tile") {
                const glccl::tools::TileSize tile = glccl::tools::parseTileSize(arg, next());
                options.tileWidth = tile.width;
                options.tileHeight = tile.height;
                options.tileDepth = tile.depth;
            } else if (arg == "--memory-limit") {
                options.memoryLimit = glccl::tools::parseMemorySize(arg, next());
            } else if (arg == "--devices") {
                options.devices = glccl::tools::parseDevices(arg, next());
                command.devicesGiven = true;
            } else if (arg.size() > 1 && arg[0] == '-') {
                throw UsageError("unknown option '" + arg + "'" +
                                 glccl::tools::didYouMean(arg, {"--backend", "--connectivity", "--channel-axis",
                                                                "--criterion", "--labels", "--stats", "--force",
                                                                "--tile", "--memory-limit", "--devices",
                                                                "--label-type", "--timing", "--json", "--help"}) +
                                 " (see glccl-mpi --help)");
            } else if (command.input.empty()) {
                command.input = arg;
            } else {
                throw UsageError("one INPUT, not '" + command.input + "' and '" + arg + "'");
            }
        } catch (const glccl::Error& error) {
            throw UsageError(arg + ": " + glccl::tools::userMessage(error.what()));
        }
    }
    if (command.input.empty()) throw UsageError("label needs an INPUT (see glccl-mpi --help)");
    return command;
}

// The summary as glccl label --json writes its tiled runs, with the ranks and
// the MPI phases: one line on rank 0.
void printJson(const Command& command, const glccl::MpiTiledResult& result, double milliseconds) {
    const glccl::TilePlan& plan = result.local.plan;
    const auto rounded = [](double value) { return std::round(value * 1000.0) / 1000.0; };
    glccl::tools::JsonWriter json;
    json.beginArray().beginObject();
    json.key("input").string(command.input);
    json.key("width").integer(plan.imageWidth());
    json.key("height").integer(plan.imageHeight());
    if (plan.isVolume()) json.key("depth").integer(plan.imageDepth());
    json.key("components").integer(result.count);
    json.key("milliseconds").number(rounded(milliseconds));
    json.key("backend").string(glccl::backendName(result.local.backend));
    json.key("device").string(result.local.device);
    json.key("ranks").integer(std::uint64_t(result.ranks));
    json.key("tiled").beginObject();
    json.key("tile_width").integer(plan.tileWidth());
    json.key("tile_height").integer(plan.tileHeight());
    json.key("tiles_x").integer(plan.tilesX());
    json.key("tiles_y").integer(plan.tilesY());
    if (plan.isVolume()) {
        json.key("tile_depth").integer(plan.tileDepth());
        json.key("tiles_z").integer(plan.tilesZ());
    }
    json.key("workers").integer(result.local.workers);
    json.key("label_type").string(glccl::labelTypeName(result.labelType));
    json.endObject();
    if (command.timing) {
        json.key("stages").beginObject();
        json.key("label_tiles").number(rounded(result.labelMilliseconds));
        json.key("merge_blocks").number(rounded(result.mergeMilliseconds));
        json.key("number_components").number(rounded(result.numberMilliseconds));
        json.key("relabel_tiles").number(rounded(result.writeMilliseconds));
        if (result.local.backend != glccl::Backend::Cpu) {
            // Null where a stage was not measured (NaN).
            const std::pair<const char*, double> devices[] = {
                {"device", result.deviceMilliseconds}, {"device_busiest_worker", result.busiestDeviceMilliseconds}};
            for (const auto& [name, milliseconds] : devices) {
                if (std::isnan(milliseconds)) json.key(name).null();
                else json.key(name).number(rounded(milliseconds));
            }
        }
        json.endObject();
    }
    json.endObject().endArray();
    std::cout << json.take() << '\n';
}

int run(const Command& command, int rank) {
    glccl::TiledOptions options = command.options;
    options.deviceTimings = command.timing;
    // The GPU backends: by default the ranks of a machine take its GPUs in
    // turn (rank r of the machine on device r mod the device count; for the
    // GL backends an EGL device, see glccl::TiledOptions::devices).
    const glccl::Backend backend = options.label.backend;
    if (!command.devicesGiven &&
        (backend == glccl::Backend::Cuda || backend == glccl::Backend::Compute || backend == glccl::Backend::Raster)) {
        MPI_Comm local = MPI_COMM_NULL;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
        int localRank = 0;
        MPI_Comm_rank(local, &localRank);
        MPI_Comm_free(&local);
        const int count = glccl::tileDeviceCount(backend);
        if (count > 0) options.devices = {localRank % count};
    }
    const glccl::ChannelMode mode = options.label.criterion.kind == glccl::Criterion::Kind::Threshold
                                        ? glccl::ChannelMode::Natural
                                        : glccl::ChannelMode::Gray;
    // Every rank opens the input: a failure anywhere fails all.
    std::unique_ptr<glccl::ImageSource> source;
    std::string why;
    try {
        glccl::tools::checkInputFile(command.input);
        glccl::tools::checkDecodeFitsMemoryLimit(command.input, options.memoryLimit);
        source = glccl::openImageSource(command.input, mode, command.channelAxis);
    } catch (const std::exception& error) {
        why = error.what();
    }
    int failed = why.empty() ? 0 : 1, failures = 0, ranks = 1;
    MPI_Allreduce(&failed, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    // Where every rank fails (a missing file), rank 0 speaks for all.
    if (failed && (failures < ranks || rank == 0)) throw glccl::Error(why);
    if (failures > 0) throw glccl::OtherRankFailed("another rank failed");
    const std::string raised = glccl::tools::raiseTinyTiles(options.tileWidth, options.tileHeight, options.tileDepth,
                                                            source->width(), source->height(), source->depth());
    if (!raised.empty() && rank == 0) std::cerr << "glccl-mpi: note: " << raised << '\n';
    // A volume's default connectivity is 26, as glccl label's.
    if (source->dimensions() == 3 && !command.connectivityGiven)
        options.label.connectivity = glccl::Connectivity::TwentySix;

    // Rank 0 checks the outputs, once, before any rank writes: never over
    // the input or one another by any spelling of the path, only regular
    // files replaced. Every rank learns the verdict.
    std::string refusal;
    int usage = 0;
    if (rank == 0) {
        std::vector<glccl::tools::NamedOutput> outputs;
        if (!command.labels.empty()) outputs.push_back({"--labels", command.labels});
        if (!command.stats.empty()) outputs.push_back({"--stats", command.stats});
        try {
            glccl::tools::checkOutputs(outputs, {command.input}, command.force);
        } catch (const glccl::tools::UsageError& error) {
            refusal = error.what();
            usage = 1;
        } catch (const std::exception& error) {
            refusal = error.what();
        }
    }
    int verdict[2] = {refusal.empty() ? 0 : 1, usage};
    MPI_Bcast(verdict, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (verdict[0] != 0) {
        if (rank != 0) return verdict[1] != 0 ? 2 : 1;  // rank 0 speaks for all
        if (verdict[1] != 0) throw UsageError(refusal);
        throw glccl::Error(refusal);
    }

    const double start = MPI_Wtime();
    // Rank 0 holds the outputs until both are complete; they take their
    // names together, after the test hook's pause.
    glccl::OutputTransaction transaction;
    // Each rank routes the source once, streamed, on what it has.
    glccl::Session session;
    const auto route = [&] {
        const glccl::Shape shape =
            source->dimensions() == 3 ? glccl::Shape::volume(source->width(), source->height(), source->depth())
                                      : glccl::Shape::image(source->width(), source->height());
        glccl::InputDescription input = glccl::InputDescription::host(shape, source->channels(), source->sampleBits());
        input.streamed = true;
        return session.route(input, options.label);
    };
    glccl::MpiTiledResult result = glccl::labelTiledMpi(MPI_COMM_WORLD, *source, options, route, command.labels,
                                                              command.stats, command.force);
    if (rank == 0) {
        glccl::tools::printOutputNotes("glccl-mpi", transaction.notes());
        glccl::tools::pauseBeforeCommitForTests();
    }
    transaction.commit();
    const double milliseconds = (MPI_Wtime() - start) * 1000.0;
    if (rank != 0) return 0;
    // Rank 0 may have had no band of its own to label (fewer bands than
    // ranks): its device is then the one its route names.
    if (result.local.device.empty()) result.local.device = session.device(result.local.backend);
    const glccl::TilePlan& plan = result.local.plan;
    if (command.json) {
        printJson(command, result, milliseconds);
        return 0;
    }
    // The summary line of glccl label.
    const char* components = result.count == 1 ? "component" : "components";
    if (plan.isVolume()) {
        std::printf("%s: %ux%ux%u, %llu %s, %.2f ms (%s, %s)\n", command.input.c_str(), plan.imageWidth(),
                    plan.imageHeight(), plan.imageDepth(), static_cast<unsigned long long>(result.count), components,
                    milliseconds, glccl::backendName(result.local.backend), result.local.device.c_str());
        std::printf("  %d ranks, %ux%ux%u bricks of %ux%ux%u, %u worker(s) a rank, labels %s\n", result.ranks,
                    plan.tilesX(), plan.tilesY(), plan.tilesZ(), plan.tileWidth(), plan.tileHeight(), plan.tileDepth(),
                    result.local.workers, glccl::labelTypeName(result.labelType));
    } else {
        std::printf("%s: %ux%u, %llu %s, %.2f ms (%s, %s)\n", command.input.c_str(), plan.imageWidth(),
                    plan.imageHeight(), static_cast<unsigned long long>(result.count), components, milliseconds,
                    glccl::backendName(result.local.backend), result.local.device.c_str());
        std::printf("  %d ranks, %ux%u tiles of %ux%u, %u worker(s) a rank, labels %s\n", result.ranks, plan.tilesX(),
                    plan.tilesY(), plan.tileWidth(), plan.tileHeight(), result.local.workers,
                    glccl::labelTypeName(result.labelType));
    }
    if (command.timing) {
        std::printf("  phase (slowest rank)      ms\n");
        std::printf("  label_tiles         %10.3f\n", result.labelMilliseconds);
        std::printf("  merge_blocks        %10.3f\n", result.mergeMilliseconds);
        std::printf("  number_components   %10.3f\n", result.numberMilliseconds);
        std::printf("  relabel_tiles       %10.3f\n", result.writeMilliseconds);
        if (result.local.backend != glccl::Backend::Cpu)
            std::printf("  device (all tiles)  %10s\n",
                        std::isnan(result.deviceMilliseconds)
                            ? "n/a"
                            : glccl::tools::formatted("%.3f", result.deviceMilliseconds).c_str());
    }
    if (!command.labels.empty()) std::printf("wrote %s\n", command.labels.c_str());
    if (!command.stats.empty()) std::printf("wrote %s\n", command.stats.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::cout << kHelp;
            return 0;
        }
        if (arg == "--version") {
            std::cout << "glccl-mpi " << glccl::versionString() << '\n';
            return 0;
        }
    }
    // Workers are threads that make no MPI call: funneled is enough.
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int status = 0;
    try {
        glccl::tools::applyTuningEnvironment("glccl-mpi", rank == 0);
        // SIGINT, SIGTERM, SIGHUP and SIGPIPE leave no temporary of glccl's
        // writers; a file past ulimit -f is a write error.
        glccl::installOutputSignalHandlers();
        glccl::tools::installCommitPauseForTests();
        status = run(parse(argc, argv), rank);
    } catch (const UsageError& error) {
        if (rank == 0) std::cerr << "glccl-mpi: " << error.what() << '\n';
        status = 2;
    } catch (const glccl::OtherRankFailed&) {
        status = 1;
    } catch (const std::exception& error) {
        std::cerr << "glccl-mpi: rank " << rank << ": " << glccl::tools::userMessage(error.what()) << '\n';
        status = 1;
    }
    std::cout.flush();
    MPI_Finalize();
    return status;
}

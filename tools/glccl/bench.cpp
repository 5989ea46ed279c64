// glccl bench: times the backends on generated families and image files;
// glccl generate: writes one generated image for programs outside glccl.
//
// Three times per cell, and a fourth in --frames mode. The GPU time is the sum
// of the per-stage device times the Labeler reports (GL timer queries, CUDA
// events): the labeling itself, without host transfers (stages named
// download_*). The wall time is what a user of the public API waits for: one
// Session::label() call that uploads the image, labels it and
// downloads labels and table into a Labeling reused from repetition to
// repetition, as a batch of same-sized images reuses one. The transfer floor
// is the input's bytes up and the labels' bytes down at the page-locked copy
// bandwidth measured at the start of the run (bench/transfer_floor.hpp): wall /
// (device + floor) is then the share of the wait that is glccl's own. With
// --frames, one resident texture is labeled as a renderer labels its frames.
// A backend that reports no stages (cpu) is charged its wall time as GPU
// time. A device time the driver did not measure (a timer query that read
// 0 ns: llvmpipe's compute dispatches) is no time: the cell's GPU time, its
// throughput and the ratios built on it are "n/a" in the table and empty in
// the CSV. Medians, minima and maxima are over the timed repetitions; the
// warm-up runs before them (first-use allocation, shader compilation) are not
// counted.

#include <algorithm>
#include <array>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "frame_times.hpp"
#include "glccl/backend.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/output_transaction.hpp"
#include "glccl/image_io.hpp"
#include "glccl/npy_image_writer.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/region_properties.hpp"
#include "glccl/route.hpp"
#include "measure_command.hpp"
#include "transfer_floor.hpp"
#include "yardstick.hpp"

namespace glccl::tools {

const char kBenchHelp[] =
    "usage: glccl bench [IMAGE...] [options]\n"
    "\n"
    "Times the backends on generated images (every family at every size) and on\n"
    "IMAGE files, and prints a table: per backend, image and size the median,\n"
    "minimum and maximum GPU time, the throughput from the median, the median\n"
    "wall time, the transfer floor, and how the wall time compares with GPU time\n"
    "plus floor.\n"
    "  GPU time   the sum of the backend's per-stage device times (GL timer\n"
    "             queries, CUDA events), without the stages that download results\n"
    "             (download_*); a backend that measures no stages (cpu) is charged\n"
    "             its wall time. Taken on a texture already on the GPU (the driver\n"
    "             moves an upload there at its first use, which would count the\n"
    "             bus transfer in the first stage). Where the driver does not\n"
    "             time a stage (its timer query reads 0 ns, as llvmpipe's do for\n"
    "             compute dispatches), GPU time, Mpix/s and the ratios on it are\n"
    "             n/a, and empty in the CSV.\n"
    "  wall       upload, label, labels and table downloaded into buffers reused\n"
    "             across repetitions: one Session::label(image, options,\n"
    "             labeling) call into one Labeling per backend and image, as a\n"
    "             batch of images of one size labels them.\n"
    "  floor      the input's bytes host to device plus the labels' bytes (4 a\n"
    "             pixel) device to host at the page-locked copy bandwidth of this\n"
    "             machine, measured once at the start of the run: with CUDA\n"
    "             cudaMemcpy between cudaMallocHost memory and the device, else\n"
    "             through GL pixel buffers (a persistently mapped unpack buffer\n"
    "             into a texture, the texture into a pack buffer). The bandwidths\n"
    "             are printed first. No call that starts and ends in host memory\n"
    "             can take less than GPU time + floor. The backends that label\n"
    "             in host memory (cpu, reference) move nothing over a bus: their\n"
    "             floor is 0, and a run of them alone measures no bandwidth.\n"
    "  wall/(dev+floor), over_ms   the wall time divided by, and minus, GPU\n"
    "             time + floor.\n"
    "With --frames N, each backend also labels the image, uploaded once, N times\n"
    "through a glccl::Labeler, as a renderer labels its frames (timings off,\n"
    "after reserve() and one untimed frame), and reports the per-frame wall\n"
    "time of label() + glFinish() (frame_wall) and of label() + components() +\n"
    "glFinish() (frame_wall_table), the table downloaded into one reused vector.\n"
    "Their floor is what crosses the bus: nothing, and the table (40 bytes a\n"
    "component); GPU time is the cell's.\n"
    "For cuda a third row, frame_interop_floor: frames that map both textures,\n"
    "copy the input out and labels in through CUDA-GL interop and label nothing,\n"
    "the least a cuda frame can cost here.\n"
    "Every backend labels through one glccl::Labeler in one headless GL context;\n"
    "the frames, the GL copies of the floor and the full-screen pass run in a\n"
    "second one, so that the labelings' context holds nothing of theirs.\n"
    "A progress line, and each cell's result as soon as it is measured, go to\n"
    "stderr.\n"
    "\n"
    "options:\n"
    "  --backends LIST               comma-separated compute, raster, cuda, cpu, auto\n"
    "                                (default: all that can run here; auto is timed\n"
    "                                as the backend it stands for)\n"
    "  --families LIST               generated families (default noise50,sparse_disks,\n"
    "                                dense_disks,large; none when IMAGE files are\n"
    "                                given): noise<P>, granularity<G>, large,\n"
    "                                dense_disks, sparse_disks, corridor, spiral, comb,\n"
    "                                rings, staircase, checkerboard, zeros, ones\n"
    "  --sizes LIST                  sizes of the generated images, N (NxN) or WxH\n"
    "                                (default 1024,2048); WxHxD is a volume, labeled\n"
    "                                as a GL_TEXTURE_3D with --connectivity 6, 18 or 26\n"
    "                                (volume families: noise<P>, blobs, balls, hilbert;\n"
    "                                default noise30,blobs,balls,hilbert)\n"
    "  --reps N                      timed repetitions (default 5)\n"
    "  --warmup N                    untimed runs before them (default 1)\n"
    "  --frames N                    also N frames per backend and image (default 0:\n"
    "                                none)\n"
    "  --connectivity 4|8|6|18|26    neighbourhood (default 8): 4 or 8 for 2-D images;\n"
    "                                6, 18 and 26 name those of volumes\n"
    "  --steps                       also the median time of every stage, by name\n"
    "  --floor-mib N                 size of each copy that measures the bandwidth,\n"
    "                                in MiB (default 256; 5 timed copies each way,\n"
    "                                the fastest counts)\n"
    "  --csv OUT.csv                 write the results as CSV (format below), whole at\n"
    "                                the end: an interrupted bench leaves an earlier file\n"
    "  --force                       overwrite OUT.csv if it exists\n"
    "  --gl desktop|es               the GL context compute and raster label in, and the\n"
    "                                measurements' context: desktop, OpenGL core profile\n"
    "                                (default), or es, OpenGL ES 3.0 or newer, where\n"
    "                                raster runs, and compute from ES 3.1 with image\n"
    "                                atomics; with --gl the context is printed first\n"
    "  --properties LIST             also measure these region properties (glccl label's\n"
    "                                names) with every timed labeling, as a renderer\n"
    "                                does: LabelOptions::measure of a labeling of the\n"
    "                                texture on the GPU (compute, raster, cuda with a GL\n"
    "                                context). The passes are the Labeler's GLSL ones whichever\n"
    "                                engine labeled (cuda's own measuring kernels are\n"
    "                                glccl label's). They are stages (clear_records,\n"
    "                                upload_boxes, measure_small, measure_medium,\n"
    "                                measure_terms, measure_fold, measure_extrema,\n"
    "                                measure_windows, measure_pack, download_terms;\n"
    "                                --steps lists them) and count in GPU time but\n"
    "                                for the download; the wall time stays\n"
    "                                the labeling's. The backends of host memory (cpu,\n"
    "                                reference, cuda on volumes or without a GL context)\n"
    "                                measure after the labeling as glccl label does: a\n"
    "                                stage 'measure' in their time and their wall time.\n"
    "                                Properties that need an intensity read a generated\n"
    "                                one: 8-bit samples of a hash of the element's\n"
    "                                position, a texture of the image's size (host\n"
    "                                memory for the backends of host memory)\n"
    "  -h, --help                    show this help\n"
    "\n"
    "CSV: one row per backend, image and stage, with the header\n"
    "  backend,family,width,height,components,median_ms,min_ms,max_ms,mpix_per_s,\n"
    "  wall_median_ms,transfer_floor_ms,stage,connectivity,reps,device\n"
    "The row with stage 'total' holds the whole labeling, computed here: the GPU\n"
    "time above, throughput, wall time and transfer floor. With --frames, rows\n"
    "'frame_wall', 'frame_wall_table' (and 'frame_interop_floor') follow it: median_ms, min_ms, max_ms\n"
    "and wall_median_ms are per-frame wall times, transfer_floor_ms their floor,\n"
    "reps the number of frames (the GPU time to compare with is the total row's\n"
    "median_ms). median_ms, min_ms, max_ms and mpix_per_s are empty where the\n"
    "device time was not measured. With --steps every stage the backend reports follows in its\n"
    "own row, named as the Labeler names it (its device time; mpix_per_s,\n"
    "wall_median_ms and transfer_floor_ms empty). family is the family name or\n"
    "the IMAGE path; a volume's is FAMILY/depth=D (width and height are its\n"
    "first two extents, mpix_per_s counts voxels). Rows are written as each\n"
    "measurement ends.\n"
    "The bandwidths come first, in two rows of backend 'transfer' and family '*'\n"
    "with stage 'h2d_gbps' (host to device) and 'd2h_gbps' (device to host):\n"
    "median_ms holds the bandwidth in GB/s (10^9 bytes a second), reps the timed\n"
    "copies, device how it was measured; the other fields are empty. Where\n"
    "neither CUDA nor GL can measure, they are left out, transfer_floor_ms is\n"
    "empty but for the backends of host memory (0), and a note on stderr says\n"
    "why; a run of cpu and reference alone has no such rows.\n"
    "With the raster backend, each size also gets a row 'raster,fullscreen_pass'\n"
    "(stage fullscreen_pass): the median GPU time of one full-screen fragment\n"
    "pass of that size, the yardstick of the raster pipeline's passes (n/a in\n"
    "the table and empty in the CSV where the timer measured no pass).\n"
    "Generated images use seed 1, as glccl generate does by default.\n"
    "\n"
    "examples:\n"
    "  glccl bench --backends raster,cpu --sizes 512,1024 --reps 3\n"
    "  glccl bench --families noise50,spiral --sizes 4096 --steps --csv bench.csv\n"
    "  glccl bench --backends compute,cuda --sizes 1920x1080 --frames 200\n"
    "  glccl bench photo_mask.png --backends raster\n"
    "  glccl bench --backends compute --sizes 512 --steps --properties area,centroid,perimeter,intensity_mean\n";

const char kGenerateHelp[] =
    "usage: glccl generate FAMILY WIDTHxHEIGHT OUT.png|OUT.npy [--seed S] [--force]\n"
    "       glccl generate VOLUME_FAMILY WIDTHxHEIGHTxDEPTH OUT.npy [--seed S] [--force]\n"
    "\n"
    "Writes the generated image that glccl validate --generate and glccl bench\n"
    "label, so that other programs can label byte-identical inputs: a binary image\n"
    "(0 background, 255 foreground). OUT.npy is a NumPy array of dtype uint8 ('|u1')\n"
    "and shape (HEIGHT, WIDTH), of any size the tiled path takes (sides up to\n"
    "2147483647), written band by band so that it never sits in memory whole;\n"
    "OUT.png is an 8-bit gray PNG, at most 32768 on a side. A size WxHxD writes a\n"
    "volume family as the volumes of glccl bench and validate: OUT.npy of shape\n"
    "(DEPTH, HEIGHT, WIDTH), made in memory (sides up to 32768, 2^30 voxels).\n"
    "\n"
    "options:\n"
    "  --seed S                      the generator's seed (default 1, as bench uses)\n"
    "  --force                       overwrite OUT if it exists\n"
    "  -h, --help                    show this help\n"
    "\n"
    "Families: noise<P> (P = 0..100), granularity<G> (G = 1..16), large, dense_disks,\n"
    "sparse_disks, corridor, spiral, comb, rings, staircase, checkerboard, zeros, ones.\n"
    "Volume families: noise<P>, blobs, balls, hilbert.\n"
    "\n"
    "examples:\n"
    "  glccl generate noise50 4096x4096 noise50_4096.npy\n"
    "  glccl generate blobs 512x512x512 blobs_512.npy\n";

namespace {

const std::vector<std::string> kDefaultFamilies = {"noise50", "sparse_disks", "dense_disks", "large"};
// The CSV's name for a backend's whole labeling: a sum computed here from the
// reported stages, never a stage a backend reports.
const char kWholeLabeling[] = "total";
const char kCsvHeader[] =
    "backend,family,width,height,components,median_ms,min_ms,max_ms,mpix_per_s,wall_median_ms,transfer_floor_ms,"
    "stage,connectivity,reps,device\n";
// The per-frame rows of --frames, and the bandwidth rows (backend
// "transfer", family "*") that start the CSV.
const char kFrameWall[] = "frame_wall";
const char kFrameWallTable[] = "frame_wall_table";
const char kFrameInterop[] = "frame_interop_floor";
const char kHostToDevice[] = "h2d_gbps";
const char kDeviceToHost[] = "d2h_gbps";
// Timed copies each way when measuring the bandwidth; the fastest counts, as
// the bus's speed is what the floor stands for.
constexpr int kBandwidthTries = 5;

struct BenchOptions {
    std::vector<Backend> backends;
    bool backendsNamed = false;
    std::vector<std::string> families = kDefaultFamilies;
    bool familiesNamed = false;
    std::vector<std::pair<int, int>> sizes = {{1024, 1024}, {2048, 2048}};
    std::vector<std::array<int, 3>> volumeSizes;  // WxHxD items of --sizes
    int reps = 5;
    int warmup = 1;
    int frames = 0;
    int floorMebibytes = 256;
    Connectivity connectivity = Connectivity::Eight;
    bool steps = false;
    std::string csvPath;
    bool force = false;
    GlApi gl = GlApi::Desktop;  // --gl
    bool glNamed = false;
    std::vector<std::string> properties;  // --properties
    bool intensityNeeded = false;         // a property of them reads an intensity
    std::vector<std::string> images;
};

// Whether generateFamily takes `family`.
bool isImageFamily(const std::string& family) {
    try {
        generateFamily(family, 1, 1);
        return true;
    } catch (const Error&) {
        return false;
    }
}

// Whether generateVolumeFamily takes `family`.
bool isVolumeFamily(const std::string& family) {
    try {
        generateVolumeFamily(family, 1, 1, 1);
        return true;
    } catch (const Error&) {
        return false;
    }
}

BenchOptions parseBenchOptions(ArgumentCursor& cursor) {
    BenchOptions options;
    while (!cursor.done()) {
        const std::string arg = cursor.take();
        auto [name, inlineValue] = ArgumentCursor::splitOption(arg);
        if (name == "--backends") {
            for (const std::string& item : splitList(name, cursor.valueOf(name, inlineValue))) {
                const Backend backend = parseOptionValue(name, item, parseBackend);
                if (std::find(options.backends.begin(), options.backends.end(), backend) == options.backends.end())
                    options.backends.push_back(backend);
            }
            options.backendsNamed = true;
        } else if (name == "--families") {
            options.families = splitList(name, cursor.valueOf(name, inlineValue));
            // A family of images or of volumes (the sizes say which it meets).
            for (const std::string& family : options.families)
                if (!isVolumeFamily(family))
                    parseOptionValue(name, family, [](const std::string& f) { return generateFamily(f, 1, 1); });
            options.familiesNamed = true;
        } else if (name == "--sizes") {
            options.sizes.clear();
            for (const std::string& item : splitList(name, cursor.valueOf(name, inlineValue))) {
                const auto first = item.find('x');
                const auto second = first == std::string::npos ? first : item.find('x', first + 1);
                if (second == std::string::npos) {
                    options.sizes.push_back(parseSize(name, item, true));
                    continue;
                }
                options.volumeSizes.push_back({parseInteger(name, item.substr(0, first), 1, 32768),
                                               parseInteger(name, item.substr(first + 1, second - first - 1), 1, 32768),
                                               parseInteger(name, item.substr(second + 1), 1, 32768)});
            }
        } else if (name == "--reps") {
            options.reps = parseInteger(name, cursor.valueOf(name, inlineValue), 1, 100000);
        } else if (name == "--warmup") {
            options.warmup = parseInteger(name, cursor.valueOf(name, inlineValue), 0, 100000);
        } else if (name == "--frames") {
            options.frames = parseInteger(name, cursor.valueOf(name, inlineValue), 0, 1000000);
        } else if (name == "--floor-mib") {
            options.floorMebibytes = parseInteger(name, cursor.valueOf(name, inlineValue), 1, 16384);
        } else if (name == "--connectivity") {
            options.connectivity = parseOptionValue(name, cursor.valueOf(name, inlineValue), parseConnectivity);
        } else if (name == "--csv") {
            options.csvPath = cursor.valueOf(name, inlineValue);
        } else if (name == "--steps" && !inlineValue) {
            options.steps = true;
        } else if (name == "--force" && !inlineValue) {
            options.force = true;
        } else if (name == "--gl") {
            if (options.glNamed) throw UsageError("option --gl is given twice");
            options.gl = parseGlApi(name, cursor.valueOf(name, inlineValue));
            options.glNamed = true;
        } else if (name == "--properties") {
            options.properties = splitList(name, cursor.valueOf(name, inlineValue));
            for (const std::string& property : options.properties) {
                const PropertyDeclaration* declaration = findProperty(property);
                if (!declaration) throw UsageError(name + ": unknown property '" + property + "'");
                options.intensityNeeded = options.intensityNeeded || declaration->needsIntensity;
            }
        } else if (arg.size() > 1 && arg[0] == '-') {
            throw unknownOption(arg, "bench",
                                {"--backends", "--families", "--sizes", "--reps", "--warmup", "--frames",
                                 "--floor-mib", "--connectivity", "--csv", "--steps", "--force", "--gl",
                                 "--properties", "--help"});
        } else {
            options.images.push_back(arg);
        }
    }
    if (!options.images.empty() && !options.familiesNamed) options.families.clear();
    return options;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Stages that copy results to the host (the raster pipeline's
// download_table) are transfers: listed with --steps, not counted as GPU time.
bool isTransfer(const std::string& stage) { return stage.rfind("download", 0) == 0; }

// The device time of one run: the sum of its stages but the transfers;
// nothing where one of them was not measured. A backend that reported no
// stage times is charged its wall time.
std::optional<double> gpuMilliseconds(const BackendRun& run) {
    double sum = 0.0;
    bool any = false;
    for (const StageTime& stage : run.stages) {
        if (isTransfer(stage.stage)) continue;
        if (!stage.measured) return std::nullopt;
        sum += stage.milliseconds;
        any = true;
    }
    return any ? sum : run.milliseconds;
}

// Median, minimum and maximum of times every one of which was measured;
// nothing otherwise.
struct Spread {
    double median = 0.0, min = 0.0, max = 0.0;
};
std::optional<Spread> spreadOf(const std::vector<std::optional<double>>& times) {
    std::vector<double> values;
    for (const std::optional<double>& time : times) {
        if (!time) return std::nullopt;
        values.push_back(*time);
    }
    if (values.empty()) return std::nullopt;
    return Spread{median(values), *std::min_element(values.begin(), values.end()),
                  *std::max_element(values.begin(), values.end())};
}

// A time of the table, "n/a" where it was not measured.
std::string tableTime(const std::optional<Spread>& spread, double Spread::*field) {
    return spread ? formatted("%.3f", (*spread).*field) : "n/a";
}
// A time of the CSV, empty where it was not measured.
std::string csvTime(const std::optional<Spread>& spread, double Spread::*field) {
    return spread ? formatted("%.4f", (*spread).*field) : "";
}

// The repetitions of one backend on one image.
struct Measurement {
    std::vector<std::optional<double>> gpu;  // nothing for a run whose device time was not measured
    std::vector<double> wall;
    std::vector<std::pair<std::string, std::vector<std::optional<double>>>> stages;  // in the order they first ran
    std::optional<bench::FrameTimes> frames;                          // with --frames
    std::size_t components = 0;
    std::string device;

    void add(const BackendRun& run, std::size_t componentCount) {
        const std::size_t rep = gpu.size();
        gpu.push_back(gpuMilliseconds(run));
        wall.push_back(run.milliseconds);
        components = componentCount;
        device = run.device;
        for (const StageTime& stage : run.stages) {
            auto found =
                std::find_if(stages.begin(), stages.end(), [&](const auto& s) { return s.first == stage.stage; });
            if (found == stages.end()) {
                stages.push_back({stage.stage, std::vector<std::optional<double>>(rep, 0.0)});
                found = stages.end() - 1;
            }
            found->second.push_back(stage.measured ? std::optional<double>(stage.milliseconds) : std::nullopt);
        }
        for (auto& stage : stages) stage.second.resize(gpu.size(), 0.0);  // a stage that did not run this time
    }
};

// The intensity of --properties: 8-bit samples of a hash of each element's
// index, the same for every backend and run.
Image generatedIntensity(const Image& image) {
    Image intensity(image.shape(), 1, 8);
    for (std::size_t i = 0; i < intensity.pixels.size(); ++i) {
        std::uint32_t h = std::uint32_t(i) * 0x9e3779b1u;
        h ^= h >> 15;
        h *= 0x85ebca77u;
        h ^= h >> 13;
        intensity.pixels[i] = std::uint8_t(h >> 24);
    }
    return intensity;
}

struct Workload {
    std::string family;  // family name, or the path of an image file
    int width = 0, height = 0;
    bool file = false;
    int depth = 1;        // slices of a volume
    bool volume = false;  // a volume: generated (generateVolumeFamily) or read from a file
};

class Bench {
public:
    Bench(const BenchOptions& options, LabelSession& session, std::string* csv)
        : options_(options), session_(session), csv_(csv) {
        rows_.push_back({"backend", "image", "size", "components", "median_ms", "min_ms", "max_ms", "Mpix/s",
                         "wall_ms", "floor_ms", "wall/(dev+floor)", "over_ms"});
    }

    void run(const std::vector<Workload>& workloads) {
        if (!std::all_of(options_.backends.begin(), options_.backends.end(),
                         [this](Backend backend) { return labelsOnHost(backend); }))
            measureBandwidth();
        cells_ = workloads.size() * options_.backends.size();
        for (const Workload& workload : workloads) {
            Image image;
            Workload sized = workload;
            try {
                progress_.update("loading " + workload.family + (workload.file ? "" : " " + sizeText(workload)), false);
                image = workload.file     ? readImage(workload.family, ChannelMode::Gray)
                        : workload.volume ? generateVolumeFamily(workload.family, workload.width, workload.height,
                                                                 workload.depth)
                                          : generateFamily(workload.family, workload.width, workload.height);
                sized.width = image.width;
                sized.height = image.height;
                sized.depth = image.depth;
                sized.volume = image.dimensions == 3;
            } catch (const Error& error) {
                fail(workload.family, error.what());
                cell_ += options_.backends.size();
                continue;
            }
            for (const Backend backend : options_.backends) {
                if (sized.volume && !takesVolumes(backend)) {
                    std::cout << backendName(backend) << " skipped for " << workload.family << " " << sizeText(sized)
                              << ": it labels 2-D images\n";
                    ++cell_;
                    continue;
                }
                if (backend == Backend::Raster && !sized.volume) measureFullscreenPass(sized);
                measure(backend, sized, image);
            }
        }
        progress_.clear();
    }

    void printTable() const { printAlignedTable(std::cout, rows_, {0, 1}); }
    bool failed() const { return failures_ > 0; }

private:
    static std::string sizeText(const Workload& w) {
        return std::to_string(w.width) + "x" + std::to_string(w.height) + (w.volume ? "x" + std::to_string(w.depth) : "");
    }
    bool takesVolumes(Backend backend) const { return session_.capabilities(backend).takesDimensions(3); }
    // Does it label a volume in a GL texture (or only from host memory)?
    bool takesTextureVolumes(Backend backend) const {
        const EngineCapabilities engine = session_.capabilities(backend);
        const auto& from = engine.volumeResidences.empty() ? engine.residences : engine.volumeResidences;
        return std::find(from.begin(), from.end(), Residence::GlTexture) != from.end();
    }
    // Does it label in host memory (cpu, reference)? Nothing of its input or
    // labels crosses a bus: its floor is 0, and a run of such backends alone
    // measures no bandwidth.
    bool labelsOnHost(Backend backend) const {
        const EngineCapabilities engine = session_.capabilities(backend);
        return !engine.takes(Residence::GlTexture) && !engine.takes(Residence::CudaDevice);
    }
    // Does it read a GL texture itself, where a context is (its device time
    // then comes from a texture already on the GPU)? The engines of host
    // memory (cpu, reference) never do: their wall time is their time.
    bool readsTexture(Backend backend) const {
        const EngineCapabilities engine = session_.capabilities(backend);
        if (!engine.takes(Residence::GlTexture)) return false;
        return !engine.takes(Residence::HostMemory) || session_.hasContext();
    }

    void fail(const std::string& what, const std::string& message) {
        progress_.clear();
        std::cerr << "glccl: " << what << ": " << inputMessage(what, message) << '\n';
        ++failures_;
    }

    // Once per run, before any labeling: the page-locked copy bandwidth both
    // ways, printed and written as the CSV's first rows. Without it the floor
    // stays empty and a note says why; the run goes on.
    void measureBandwidth() {
        progress_.update("measuring the host-device copy bandwidth", true);
        std::string why;
        OffscreenLabeler* offscreen = measurementContext();
        bandwidth_ = bench::transferBandwidth(offscreen, std::size_t(options_.floorMebibytes) << 20, kBandwidthTries,
                                              &why);
        if (!bandwidth_ && !offscreen) why += (why.empty() ? "" : "; ") + whyNoMeasurementContext_;
        progress_.clear();
        if (!bandwidth_) {
            std::cerr << "glccl: note: no transfer floor: " << why << '\n';
            return;
        }
        std::cout << "transfer floor: host to device " << formatted("%.2f", bandwidth_->hostToDeviceGBps)
                  << " GB/s, device to host " << formatted("%.2f", bandwidth_->deviceToHostGBps) << " GB/s ("
                  << bandwidth_->method << ", fastest of " << bandwidth_->tries << " copies each way)" << std::endl;
        for (const auto& [stage, gbps] : {std::pair{kHostToDevice, bandwidth_->hostToDeviceGBps},
                                          std::pair{kDeviceToHost, bandwidth_->deviceToHostGBps}})
            writeCsvLine({"transfer", "*", "", "", "", formatted("%.4f", gbps), "", "", "", "", "", stage, "",
                          std::to_string(bandwidth_->tries), csvField(bandwidth_->method)});
    }

    // The measurements' own headless context (the GL copies of the transfer
    // floor, the full-screen pass, --frames), made at first use; null, with
    // the reason in whyNoMeasurementContext_, where none can be made.
    OffscreenLabeler* measurementContext() {
        if (measurementTried_) return measurementContext_.get();
        measurementTried_ = true;
        if (!session_.hasContext()) {
            whyNoMeasurementContext_ = session_.whyNoContext();
            return nullptr;
        }
        try {
            measurementContext_ = std::make_unique<OffscreenLabeler>(contextOptionsOf(session_.glApi()));
        } catch (const Error& error) {
            whyNoMeasurementContext_ = "no headless GL context: " + userMessage(error.what());
        }
        return measurementContext_.get();
    }

    void measure(Backend backend, const Workload& workload, const Image& image) {
        ++cell_;
        const std::string cell = "[" + std::to_string(cell_) + "/" + std::to_string(cells_) + "] " +
                                 backendName(backend) + " " + workload.family + " " + sizeText(workload);
        progress_.update(cell, isLongStep(image));
        Measurement measurement;
        LabelOptions labelOptions;
        labelOptions.backend = backend;
        labelOptions.connectivity = options_.connectivity;
        labelOptions.timings = true;
        labelOptions.measure.properties = options_.properties;
        const int runs = std::max(1, options_.warmup) + options_.reps;
        try {
            // Device times come from a texture already on the GPU: drivers
            // move an uploaded texture to the GPU when it is first used, so
            // a fresh upload would count the bus transfer in the first
            // stage. The wall time uploads the image every time, as a user's
            // call does, into one Labeling kept for the cell, as a batch of
            // images of one size keeps one.
            std::optional<SessionTexture> resident;
            if (readsTexture(backend)) resident.emplace(session_, image);
            const bool labelsTexture = resident && (!workload.volume || takesTextureVolumes(backend));
            // The intensity of --properties: a texture beside a labeling of
            // a texture, host memory beside an engine of host memory.
            std::optional<SessionTexture> intensity;
            std::optional<Image> hostIntensity;
            if (options_.intensityNeeded && labelsTexture) {
                intensity.emplace(session_, generatedIntensity(image));
                labelOptions.intensity = (*intensity)->id();
            } else if (options_.intensityNeeded) {
                hostIntensity = generatedIntensity(image);
            }
            // An engine of host memory measures after its labeling, as glccl
            // label measures one (measureOnHost).
            LabelOptions hostOptions = labelOptions;
            hostOptions.measure = {};
            // The wall time is the labeling's: the route of host images
            // measures nothing.
            LabelOptions untimed = labelOptions;
            untimed.timings = false;
            untimed.measure = {};
            untimed.intensity = 0;
            Labeling reused;
            for (int i = 0; i < runs; ++i) {
                const bool warm = i < std::max(1, options_.warmup);
                progress_.update(
                    cell + (warm ? " warmup " + std::to_string(i + 1) + "/" + std::to_string(options_.warmup)
                                 : " rep " + std::to_string(i - options_.warmup + 1) + "/" +
                                       std::to_string(options_.reps)),
                    false);
                BackendRun run;
                if (resident && workload.volume && takesTextureVolumes(backend)) {
                    // A volume is labeled as a texture: its wall time is
                    // that call's, labels and table downloaded into the
                    // cell's Labeling.
                    run = session_.label(**resident, labelOptions, &reused);
                    if (!options_.properties.empty())
                        run.milliseconds = session_.label(**resident, untimed, &reused).milliseconds;
                } else if (workload.volume || !resident) {
                    // An engine of host memory (cpu, reference), or one that
                    // takes volumes from host memory only (cuda), or cuda
                    // without a GL context: its own route, stages (none on
                    // the CPU: its wall time is its time) and wall of one
                    // call into the cell's Labeling; with --properties the
                    // measuring after it, a stage of its own.
                    run = session_.label(image, hostOptions, &reused);
                    if (!options_.properties.empty())
                        measureOnHost(run, reused, hostIntensity ? &*hostIntensity : nullptr);
                } else {
                    run = session_.label(**resident, labelOptions);
                    run.milliseconds = session_.label(image, untimed, reused);
                }
                if (!warm) measurement.add(run, reused.count());
            }
            // Frames are 2-D images a renderer labels (bench::labelFrames).
            // An engine of host memory labels a renderer's texture through a
            // download of it (the Labeler's route), so it has frames too.
            if (options_.frames > 0 && !workload.volume && session_.hasContext() &&
                session_.capabilities(backend).reaches(Residence::GlTexture)) {
                progress_.update(cell + " " + std::to_string(options_.frames) + " frames", false);
                OffscreenLabeler* offscreen = measurementContext();
                if (!offscreen) throw Error("--frames: " + whyNoMeasurementContext_);
                // (An engine of host memory labels the frames without
                // measuring: its measuring is the timed labelings'.)
                measurement.frames =
                    bench::labelFrames(*offscreen, image, labelsTexture ? labelOptions : hostOptions, options_.frames);
            }
        } catch (const Error& error) {
            fail(std::string(backendName(backend)) + " " + workload.family + " " + sizeText(workload), error.what());
            return;
        }
        record(backend, workload, measurement, image.pixels.size());
    }

    // --properties after a labeling of host memory, as glccl label measures
    // one: the terms by the engine that labeled (Session::measureTerms: its
    // GPU where it has one, else the host's threads) and the properties
    // finalized from them, timed on the host clock as the stage "measure",
    // which the run's time and wall time include.
    void measureOnHost(BackendRun& run, const Labeling& labeling, const Image* intensity) {
        const auto start = std::chrono::steady_clock::now();
        IntensitySamples samples;
        if (intensity) {
            samples.shape = intensity->shape();
            samples.channels = intensity->channels;
            samples.data = intensity->pixels.data();
            samples.bytes = 1;
        }
        MeasureOptions measuring;
        measuring.properties.properties = options_.properties;
        const PropertyTable table =
            measureByEngine(session_.session(), labeling, intensity ? &samples : nullptr, measuring);
        if (table.rows != labeling.count())
            throw Error("--properties: " + std::to_string(table.rows) + " rows measured for " +
                        std::to_string(labeling.count()) + " components");
        const double milliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        run.milliseconds += milliseconds;
        run.stages.push_back({"measure", milliseconds, true});
    }

    // Once per size, the raster backend's yardstick: one full-screen
    // fragment pass (a row "fullscreen_pass" in the table and the CSV).
    void measureFullscreenPass(const Workload& workload) {
        const std::pair<int, int> size{workload.width, workload.height};
        if (std::find(passSizes_.begin(), passSizes_.end(), size) != passSizes_.end()) return;
        passSizes_.push_back(size);
        progress_.update("raster full-screen pass " + sizeText(workload), false);
        std::optional<double> milliseconds;  // none: the timer measured no pass
        try {
            OffscreenLabeler* offscreen = measurementContext();
            if (!offscreen) throw Error(whyNoMeasurementContext_);
            offscreen->makeCurrent();
            milliseconds = bench::fullscreenPassMilliseconds(workload.width, workload.height, options_.reps);
        } catch (const Error& error) {
            fail("raster full-screen pass " + sizeText(workload), error.what());
            return;
        }
        const Workload pass{"fullscreen_pass", workload.width, workload.height, false};
        // n/a in the table and empty in the CSV where not measured, as the
        // labelings' device times: a yardstick of no time would make any
        // labeling look many passes long.
        rows_.push_back({"raster", pass.family, sizeText(pass), "",
                         milliseconds ? formatted("%.3f", *milliseconds) : "n/a", "", "", "", "", "", "", ""});
        Measurement none;
        none.device = session_.device(Backend::Raster);
        writeCsvRow(Backend::Raster, pass, none, "fullscreen_pass",
                    milliseconds ? formatted("%.4f", *milliseconds) : "", "", "", "", "", "", options_.reps);
    }

    // The floor of moving `upBytes` to the device and `downBytes` back, when
    // the bandwidth is known (nothing to move costs nothing either way).
    std::optional<double> floorMilliseconds(double upBytes, double downBytes) const {
        if (upBytes == 0.0 && downBytes == 0.0) return 0.0;
        if (!bandwidth_) return std::nullopt;
        return bandwidth_->floorMilliseconds(upBytes, downBytes);
    }

    // The table's cells beside a wall time: floor, wall / (GPU + floor),
    // wall - (GPU + floor); empty without a floor, n/a without a GPU time
    // (NaN: not measured).
    static std::vector<std::string> againstFloor(double wallMs, double gpuMs, std::optional<double> floorMs) {
        if (!floorMs) return {"", "", ""};
        if (std::isnan(gpuMs)) return {formatted("%.3f", *floorMs), "n/a", "n/a"};
        const double bound = gpuMs + *floorMs;
        return {formatted("%.3f", *floorMs), bound > 0.0 ? formatted("%.2f", wallMs / bound) : "",
                formatted("%.3f", wallMs - bound)};
    }

    void record(Backend backend, const Workload& workload, const Measurement& m, std::size_t inputBytes) {
        const double pixels = double(workload.width) * double(workload.height) * double(workload.depth);
        // Nothing where a repetition's device time was not measured.
        const std::optional<Spread> gpu = spreadOf(m.gpu);
        // NaN: not measured.
        const double medianMs = gpu ? gpu->median : std::numeric_limits<double>::quiet_NaN();
        const bool throughput = gpu && gpu->median > 0.0;
        const double mpixPerSecond = throughput ? pixels / (gpu->median * 1e3) : 0.0;
        const double wallMs = median(m.wall);
        const bool bus = !labelsOnHost(backend);
        const std::optional<double> floorMs =
            floorMilliseconds(bus ? double(inputBytes) : 0.0, bus ? 4.0 * pixels : 0.0);
        std::vector<std::string> row = {backendName(backend), workload.family, sizeText(workload),
                                        std::to_string(m.components), tableTime(gpu, &Spread::median),
                                        tableTime(gpu, &Spread::min), tableTime(gpu, &Spread::max),
                                        throughput ? formatted("%.1f", mpixPerSecond) : "n/a",
                                        formatted("%.3f", wallMs)};
        for (std::string& cell : againstFloor(wallMs, medianMs, floorMs)) row.push_back(std::move(cell));
        rows_.push_back(std::move(row));
        writeCsvRow(backend, workload, m, kWholeLabeling, csvTime(gpu, &Spread::median), csvTime(gpu, &Spread::min),
                    csvTime(gpu, &Spread::max), throughput ? formatted("%.3f", mpixPerSecond) : "",
                    formatted("%.4f", wallMs), floorMs ? formatted("%.4f", *floorMs) : "", options_.reps);
        logCell(backend, workload, m, medianMs, wallMs);
        if (m.frames) {
            // A frame moves no pixels over the bus; with the table, the
            // table's rows come down as the host receives them.
            recordFrames(backend, workload, m, kFrameWall, m.frames->label, medianMs, 0.0);
            recordFrames(backend, workload, m, kFrameWallTable, m.frames->labelAndTable, medianMs,
                         double(m.frames->components) * double(sizeof(Component)));
            if (!m.frames->interop.empty())
                recordFrames(backend, workload, m, kFrameInterop, m.frames->interop, medianMs, 0.0);
        }
        if (!options_.steps) return;
        for (const auto& [stage, times] : m.stages) {
            const std::optional<Spread> spread = spreadOf(times);
            rows_.push_back({"", "  " + stage, "", "", tableTime(spread, &Spread::median),
                             tableTime(spread, &Spread::min), tableTime(spread, &Spread::max), "", "", "", "", ""});
            writeCsvRow(backend, workload, m, stage, csvTime(spread, &Spread::median), csvTime(spread, &Spread::min),
                        csvTime(spread, &Spread::max), "", "", "", options_.reps);
        }
    }

    // Each cell's result on stderr as soon as it is measured, stage medians
    // included: the table and the CSV come at the end, so a run cut off
    // before then still shows what it measured.
    void logCell(Backend backend, const Workload& workload, const Measurement& m, double medianMs, double wallMs) {
        progress_.clear();
        std::string line = std::string("measured ") + backendName(backend) + " " + workload.family + " " +
                           sizeText(workload) + ": " +
                           (!std::isnan(medianMs) ? formatted("%.3f", medianMs) + " ms device (median of " +
                                           std::to_string(m.gpu.size()) + ")"
                                     : std::string("device time not measured")) +
                           ", " + formatted("%.3f", wallMs) + " ms wall, " + std::to_string(m.components) +
                           " components";
        for (const auto& [stage, times] : m.stages)
            line += "; " + stage + " " + tableTime(spreadOf(times), &Spread::median);
        std::cerr << line << std::endl;
    }

    // One --frames row: per-frame wall times against the cell's GPU time.
    void recordFrames(Backend backend, const Workload& workload, const Measurement& m, const char* stage,
                      const std::vector<double>& times, double gpuMs, double downBytes) {
        const double medianMs = median(times);
        const double minMs = *std::min_element(times.begin(), times.end());
        const double maxMs = *std::max_element(times.begin(), times.end());
        const std::optional<double> floorMs = floorMilliseconds(0.0, downBytes);
        std::vector<std::string> row = {"", std::string("  ") + stage, "", "", formatted("%.3f", medianMs),
                                        formatted("%.3f", minMs), formatted("%.3f", maxMs), "",
                                        formatted("%.3f", medianMs)};
        for (std::string& cell : againstFloor(medianMs, gpuMs, floorMs)) row.push_back(std::move(cell));
        rows_.push_back(std::move(row));
        writeCsvRow(backend, workload, m, stage, formatted("%.4f", medianMs), formatted("%.4f", minMs),
                    formatted("%.4f", maxMs), "", formatted("%.4f", medianMs),
                    floorMs ? formatted("%.4f", *floorMs) : "",
                    int(times.size()));
    }

    void writeCsvRow(Backend backend, const Workload& workload, const Measurement& m, const std::string& stage,
                     const std::string& medianMs, const std::string& minMs, const std::string& maxMs,
                     const std::string& mpix,
                     const std::string& wall, const std::string& floor, int reps) {
        const std::string family = workload.volume ? workload.family + "/depth=" + std::to_string(workload.depth)
                                                   : workload.family;
        writeCsvLine({backendName(backend), csvField(family), std::to_string(workload.width),
                      std::to_string(workload.height), m.gpu.empty() ? std::string() : std::to_string(m.components),
                      medianMs, minMs, maxMs, mpix, wall, floor, csvField(stage),
                      std::to_string(neighbourCount(options_.connectivity)), std::to_string(reps), csvField(m.device)});
    }

    // One CSV line of fields in kCsvHeader's order, already quoted where
    // they need it.
    void writeCsvLine(const std::vector<std::string>& fields) {
        if (csv_ == nullptr) return;
        std::string line;
        for (std::size_t i = 0; i < fields.size(); ++i) line += (i == 0 ? "" : ",") + fields[i];
        line += '\n';
        *csv_ += line;
    }

    const BenchOptions& options_;
    LabelSession& session_;
    std::string* csv_;  // the CSV's text, written whole at the end
    ProgressLine progress_;
    std::unique_ptr<OffscreenLabeler> measurementContext_;
    bool measurementTried_ = false;
    std::string whyNoMeasurementContext_;
    std::optional<bench::TransferBandwidth> bandwidth_;
    std::vector<std::vector<std::string>> rows_;
    std::size_t cells_ = 0, cell_ = 0;
    std::vector<std::pair<int, int>> passSizes_;  // sizes whose full-screen pass was measured
    int failures_ = 0;
};

bool endsWith(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

int runBench(const std::vector<std::string>& args) {
    if (hasHelpFlag(args)) {
        std::cout << kBenchHelp;
        return 0;
    }
    ArgumentCursor cursor(args);
    BenchOptions options = parseBenchOptions(cursor);
    // Never over an image it times, by any spelling of its path.
    if (!options.csvPath.empty()) checkOutputs({{"--csv", options.csvPath}}, options.images, options.force);

    // Which backends run: every one named must run here; by default those
    // that cannot are left out with the reason. Auto is timed as the backend
    // it stands for, under that backend's name.
    LabelSession session(options.gl);
    const std::vector<Backend> candidates = options.backendsNamed ? options.backends : concreteBackends();
    options.backends.clear();
    // Auto is timed as what it takes for the largest images.
    const InputDescription large = InputDescription::host(Shape::image(16384, 16384), 1, 8);
    for (const Backend requested : candidates) {
        const std::string note = session.fallbackNote(requested, large);
        if (!note.empty()) std::cerr << "glccl: " << note << '\n';
        const Backend backend = session.resolve(requested, large);
        // The oracle is timed only when named: it is not a contender.
        if (backend == Backend::Reference && !options.backendsNamed) continue;
        if (std::find(options.backends.begin(), options.backends.end(), backend) != options.backends.end()) continue;
        const std::string why = session.whyUnavailable(backend);
        if (why.empty()) {
            options.backends.push_back(backend);
        } else if (options.backendsNamed) {
            throw Error(std::string("the ") + backendName(backend) + " backend cannot run here: " + why);
        } else {
            std::cout << backendName(backend) << " skipped: " << why << '\n';
        }
    }

    if (options.glNamed) {
        const ContextInfo* context = session.contextInfo();
        std::cout << "GL context: " << (context ? contextDescription(*context) : "none, " + session.whyNoContext())
                  << '\n';
    }
    if (options.frames > 0 && !session.hasContext())
        std::cerr << "glccl: note: --frames labels a texture and is skipped: " << session.whyNoContext() << '\n';

    // Sizes outer, families inner: a run stopped early (a time limit) has
    // every family at the smaller sizes.
    std::vector<Workload> workloads;
    // Image sizes take the image families, volume sizes the volume
    // families (all four by default); noise<P> is both.
    for (const auto& [width, height] : options.sizes)
        for (const std::string& family : options.families)
            if (isImageFamily(family)) workloads.push_back({family, width, height, false});
    const std::vector<std::string> volumeFamilies =
        options.familiesNamed ? options.families : generatedVolumeFamilies();
    for (const auto& [width, height, depth] : options.volumeSizes)
        for (const std::string& family : volumeFamilies)
            if (isVolumeFamily(family)) workloads.push_back({family, width, height, false, depth, true});
    for (const std::string& path : options.images) workloads.push_back({path, 0, 0, true});
    if (workloads.empty()) throw UsageError("bench has nothing to run (see glccl bench --help)");

    // The CSV is written whole at the end, all or nothing, as every output
    // of glccl is: an interrupted bench leaves an earlier file as it was.
    std::string csv = kCsvHeader;
    Bench bench(options, session, options.csvPath.empty() ? nullptr : &csv);
    bench.run(workloads);
    bench.printTable();
    if (!options.csvPath.empty()) {
        writeTextFile(options.csvPath, csv, options.force);
        std::cout << "wrote " << options.csvPath << '\n';
    }
    return bench.failed() ? 1 : 0;
}

int runGenerate(const std::vector<std::string>& args) {
    if (hasHelpFlag(args)) {
        std::cout << kGenerateHelp;
        return 0;
    }
    ArgumentCursor cursor(args);
    std::vector<std::string> positional;
    std::uint64_t seed = 1;
    bool force = false;
    while (!cursor.done()) {
        const std::string arg = cursor.take();
        auto [name, inlineValue] = ArgumentCursor::splitOption(arg);
        if (name == "--seed") {
            const std::string value = cursor.valueOf(name, inlineValue);
            char* end = nullptr;
            errno = 0;
            seed = std::strtoull(value.c_str(), &end, 10);
            if (value[0] == '-' || *end != '\0' || errno == ERANGE)
                throw UsageError("--seed: '" + value + "' is not an unsigned 64-bit integer");
        } else if (name == "--force" && !inlineValue) {
            force = true;
        } else if (arg.size() > 1 && arg[0] == '-') {
            throw unknownOption(arg, "generate", {"--seed", "--force", "--help"});
        } else {
            positional.push_back(arg);
        }
    }
    if (positional.size() != 3)
        throw UsageError("generate takes FAMILY WIDTHxHEIGHT OUT.png|OUT.npy (see glccl generate --help)");
    const std::string& family = positional[0];
    const std::string& path = positional[2];
    if (std::count(positional[1].begin(), positional[1].end(), 'x') == 2) {
        // A volume: WxHxD, made whole in memory as bench and validate make it.
        if (!endsWith(path, ".npy")) throw UsageError("generate writes a volume as .npy, not '" + path + "'");
        const std::size_t first = positional[1].find('x'), second = positional[1].rfind('x');
        const int width = parseInteger("generate", positional[1].substr(0, first), 1, kMaxImageDimension);
        const int height = parseInteger("generate", positional[1].substr(first + 1, second - first - 1), 1,
                                        kMaxImageDimension);
        const int depth = parseInteger("generate", positional[1].substr(second + 1), 1, kMaxImageDimension);
        checkOutputs({{"OUT", path}}, {}, force);
        const Image volume = generateVolumeFamily(family, width, height, depth, seed);
        writeImageNpy(path, volume, force);
        const auto foreground = std::count_if(volume.pixels.begin(), volume.pixels.end(), [](std::uint8_t v) { return v != 0; });
        std::cout << "wrote " << path << ": " << family << " " << width << "x" << height << "x" << depth << ", seed "
                  << seed << ", " << foreground << " foreground voxels\n";
        return 0;
    }
    const bool npy = endsWith(path, ".npy");
    if (!npy && !endsWith(path, ".png")) throw UsageError("generate writes .png or .npy files, not '" + path + "'");
    const auto [width, height] =
        parseSize("generate", positional[1], false, npy ? int(FamilyRows::kMaxStreamedSide) : std::numeric_limits<int>::max());
    if (!npy && (width > kMaxImageDimension || height > kMaxImageDimension))
        throw UsageError("generate: a PNG holds at most " + std::to_string(kMaxImageDimension) + " on a side, not " +
                         positional[1] + "; write OUT.npy for larger images");
    parseOptionValue("generate", family, [](const std::string& f) { return generateFamily(f, 1, 1); });
    checkOutputs({{"OUT", path}}, {}, force);

    std::uint64_t foreground = 0;
    const auto countForeground = [&](const std::uint8_t* pixels, std::size_t count) {
        foreground += std::uint64_t(std::count_if(pixels, pixels + count, [](std::uint8_t v) { return v != 0; }));
    };
    if (npy) {
        // Bands of about kGenerateBandBytes, at least one row.
        constexpr std::size_t kGenerateBandBytes = std::size_t(16) << 20;
        const std::int64_t bandRows = std::clamp<std::int64_t>(std::int64_t(kGenerateBandBytes / std::size_t(width)), 1, height);
        FamilyRows rows(family, width, height, seed);
        NpyImageWriter writer(path, width, height, force);
        std::vector<std::uint8_t> band(std::size_t(bandRows) * std::size_t(width));
        while (rows.nextRow() < height) {
            const std::int64_t count = std::min(bandRows, height - rows.nextRow());
            rows.next(count, band.data());
            writer.writeRows(band.data(), count);
            countForeground(band.data(), std::size_t(count) * std::size_t(width));
        }
        writer.close();
    } else {
        const Image image = generateFamily(family, width, height, seed);
        writePng(path, image, force);
        countForeground(image.pixels.data(), image.pixels.size());
    }
    std::cout << "wrote " << path << ": " << family << " " << width << "x" << height << ", seed " << seed << ", "
              << foreground << " foreground pixels\n";
    return 0;
}

}  // namespace glccl::tools

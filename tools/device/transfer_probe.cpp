// glccl_transfer_probe: which host transfer is fastest on this machine.
//
//   glccl_transfer_probe [--sizes 8192,16384] [--reps 5] [--backend compute|cpu|...] [--quick]
//   glccl_transfer_probe --memory IMAGE [--backend B]
//
// For each size (square, 8-bit noise50 input, R32UI labels), in one GL
// context (the headless one glccl uses):
//   copy      the host's copy of the label array with 1, 4, 8 and 16 copy
//             threads (CopyThreads, parallel_copy.hpp): the ceiling of what
//             the banded transfers can copy out of or into their buffers
//   upload    ImageTexture::update() + glFinish(): plain glTexSubImage2D from
//             host memory, and bands of 16/32/64 MiB through 2 or 3
//             persistently mapped pixel-unpack buffers, filled by 1, 4 or 8
//             threads (and one with GL_CLIENT_STORAGE_BIT)
//   download  Labeler::downloadLabels() into a vector reused between calls:
//             plain glGetTexImage, and bands through glReadPixels or
//             glGetTextureSubImage into 2 or 3 pixel-pack buffers, 16/32/64
//             MiB, copied out by 1, 4 or 8 threads (and one without
//             GL_CLIENT_STORAGE_BIT); every download is compared with the
//             plain one, byte for byte
//   wall      OffscreenLabeler::label(image, options, labeling) into a
//             reused Labeling, as glccl bench and a batch run it: plain
//             transfers, the default settings, and the fastest upload and
//             download variant found above; with the labeling's device time
//             (its stages' timer queries)
// --memory labels one image file as glccl label does (read, upload, label,
// table, labels) under the environment's settings and prints the process's
// resident memory (VmRSS) and its peak (VmHWM) in MiB after each step:
// "memory,STEP,RSS,PEAK", then "memory: peak P MiB, input I MiB, labels L
// MiB". Run once per setting, it shows which step holds memory beyond the
// image and its labels (a driver's staging copy, say).
// Variants are chosen with the GLCCL_TRANSFER* and GLCCL_COPY_THREADS
// environment variables (engine/src/transfer.hpp), set here per variant.
// Prints one CSV line per measurement (probe,size,variant,median_ms,min_ms,
// gb_per_s), then a table of the fastest variant of each kind against the
// plain path, then "probe: N downloads compared, all identical" (or the
// mismatches, exit status 1). Used by tools/device/wall-probe.sh; a small
// run is a ctest (tests/CMakeLists.txt).

#include <GL/glew.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "glccl/backend.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/image_io.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/texture.hpp"
#include "parallel_copy.hpp"
#include "transfer.hpp"

namespace {

using namespace glccl;
using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Timing {
    double median = 0.0, min = 0.0;
};

template <class Run>
Timing timeIt(int reps, Run run) {
    run();  // untimed: first use of buffers and threads
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
        const auto start = Clock::now();
        run();
        times.push_back(millisecondsSince(start));
    }
    std::sort(times.begin(), times.end());
    return {times[times.size() / 2], times.front()};
}

// The transfer environment of one variant; unset names are cleared.
struct Variant {
    std::string name;
    std::map<std::string, std::string> environment;
};

const char* const kTransferVariables[] = {"GLCCL_TRANSFER",         "GLCCL_TRANSFER_READBACK",
                                          "GLCCL_TRANSFER_BAND_BYTES", "GLCCL_TRANSFER_BUFFERS",
                                          "GLCCL_TRANSFER_CLIENT_STORAGE", "GLCCL_COPY_THREADS"};

void apply(const Variant& variant) {
    for (const char* name : kTransferVariables) {
        const auto found = variant.environment.find(name);
        if (found == variant.environment.end()) unsetenv(name);
        else setenv(name, found->second.c_str(), 1);
    }
}

Variant plain() { return {"plain", {{"GLCCL_TRANSFER", "plain"}}}; }

std::vector<Variant> bandVariants(bool download, bool quick) {
    std::vector<Variant> variants;
    const std::vector<std::string> readbacks = download ? std::vector<std::string>{"readpixels", "subimage"}
                                                        : std::vector<std::string>{"-"};
    const std::vector<std::string> bands = quick ? std::vector<std::string>{"16M"} : std::vector<std::string>{"16M", "32M", "64M"};
    const std::vector<std::string> buffers = quick ? std::vector<std::string>{"2"} : std::vector<std::string>{"2", "3"};
    const std::vector<std::string> threads = quick ? std::vector<std::string>{"1", "4"} : std::vector<std::string>{"1", "4", "8"};
    for (const std::string& readback : readbacks)
        for (const std::string& band : bands)
            for (const std::string& count : buffers)
                for (const std::string& thread : threads) {
                    Variant variant;
                    variant.name = (download ? readback + " " : std::string()) + band + " x" + count + " t" + thread;
                    variant.environment = {{"GLCCL_TRANSFER", "bands"},
                                           {"GLCCL_TRANSFER_BAND_BYTES", band},
                                           {"GLCCL_TRANSFER_BUFFERS", count},
                                           {"GLCCL_COPY_THREADS", thread}};
                    if (download) variant.environment["GLCCL_TRANSFER_READBACK"] = readback;
                    variants.push_back(variant);
                }
    // Client storage the other way round from the default, once.
    Variant other;
    other.environment = {{"GLCCL_TRANSFER", "bands"},
                         {"GLCCL_TRANSFER_BAND_BYTES", quick ? "16M" : "32M"},
                         {"GLCCL_TRANSFER_BUFFERS", "2"},
                         {"GLCCL_COPY_THREADS", quick ? "4" : "8"}};
    other.environment["GLCCL_TRANSFER_CLIENT_STORAGE"] = download ? "none" : "both";
    other.name = std::string(download ? "readpixels " : "") + other.environment["GLCCL_TRANSFER_BAND_BYTES"] +
                 " x2 t" + other.environment["GLCCL_COPY_THREADS"] +
                 (download ? " no-client-storage" : " client-storage");
    variants.push_back(other);
    return variants;
}

struct Result {
    std::string probe, variant;
    int size = 0;
    Timing timing;
    double bytes = 0.0;
    double gbps() const { return timing.median > 0.0 ? bytes / (timing.median * 1e6) : 0.0; }
};

std::vector<Result> results;

void report(const std::string& probe, int size, const std::string& variant, Timing timing, double bytes) {
    Result result{probe, variant, size, timing, bytes};
    std::printf("%s,%d,%s,%.3f,%.3f,%.2f\n", probe.c_str(), size, variant.c_str(), timing.median, timing.min,
                result.gbps());
    std::fflush(stdout);
    results.push_back(result);
}

const Result* fastest(const std::string& probe, int size, const std::string& except = "") {
    const Result* best = nullptr;
    for (const Result& r : results)
        if (r.probe == probe && r.size == size && r.variant != except && (!best || r.timing.median < best->timing.median))
            best = &r;
    return best;
}

const Result* find(const std::string& probe, int size, const std::string& variant) {
    for (const Result& r : results)
        if (r.probe == probe && r.size == size && r.variant == variant) return &r;
    return nullptr;
}

std::vector<int> parseSizes(const std::string& text) {
    std::vector<int> sizes;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = text.find(',', start);
        const std::string item = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!item.empty()) sizes.push_back(std::atoi(item.c_str()));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return sizes;
}

// VmRSS and VmHWM of this process, MiB.
std::pair<long, long> residentMebibytes() {
    long rss = -1, hwm = -1;
    if (std::FILE* status = std::fopen("/proc/self/status", "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, status)) {
            long kib = 0;
            if (std::sscanf(line, "VmRSS: %ld kB", &kib) == 1) rss = kib / 1024;
            if (std::sscanf(line, "VmHWM: %ld kB", &kib) == 1) hwm = kib / 1024;
        }
        std::fclose(status);
    }
    return {rss, hwm};
}

int memorySteps(const std::string& path, Backend backend) {
    const auto step = [](const char* name) {
        const auto [rss, hwm] = residentMebibytes();
        std::printf("memory,%s,%ld,%ld\n", name, rss, hwm);
        std::fflush(stdout);
    };
    step("start");
    OffscreenLabeler offscreen;
    if (!whyUnavailable(backend, offscreen.context().info()).empty())
        backend = resolveBackend(Backend::Auto, offscreen.context().info());
    step("context");
    Image image = readImage(path, ChannelMode::Gray);
    step("read");
    LabelOptions options;
    options.backend = backend;
    ImageTexture texture(image);
    glFinish();
    step("upload");
    Labeler& labeler = offscreen.labeler();
    labeler.label(texture.id(), options);
    glFinish();
    step("label");
    Labeling labeling;
    labeler.components(labeling.components);
    step("table");
    labeler.downloadLabels(labeling.labels);
    step("labels");
    const double mebibyte = 1 << 20;
    std::printf("memory: peak %ld MiB, input %.0f MiB, labels %.0f MiB (%s, %s)\n", residentMebibytes().second,
                double(image.pixels.size()) / mebibyte, double(labeling.labels.size()) * 4 / mebibyte,
                backendName(backend), transfer::Settings::fromEnvironment().describe().c_str());
    return 0;
}

int run(int argc, char** argv) {
    std::vector<int> sizes = {8192, 16384};
    int reps = 5;
    bool quick = false;
    std::string memoryImage;
    Backend backend = Backend::Compute;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--sizes" && i + 1 < argc) sizes = parseSizes(argv[++i]);
        else if (arg == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--backend" && i + 1 < argc) backend = parseBackend(argv[++i]);
        else if (arg == "--quick") quick = true;
        else if (arg == "--memory" && i + 1 < argc) memoryImage = argv[++i];
        else {
            std::cerr << "usage: glccl_transfer_probe [--sizes 8192,16384] [--reps 5] [--backend B] [--quick]\n"
                         "       glccl_transfer_probe --memory IMAGE [--backend B]\n";
            return 2;
        }
    }
    if (!memoryImage.empty()) return memorySteps(memoryImage, backend);
    OffscreenLabeler offscreen;
    const ContextInfo& info = offscreen.context().info();
    if (!whyUnavailable(backend, info).empty()) backend = resolveBackend(Backend::Auto, info);
    apply({"default", {}});
    std::printf("# %s, %s; labels by %s; default transfer settings: %s\n", info.renderer.c_str(),
                info.version.c_str(), backendName(backend), transfer::Settings::fromEnvironment().describe().c_str());
    std::printf("probe,size,variant,median_ms,min_ms,gb_per_s\n");

    std::size_t compared = 0, mismatches = 0;
    for (const int size : sizes) {
        const Image image = generateFamily("noise50", size, size, 1);
        const double inputBytes = double(image.pixels.size());
        const double labelBytes = 4.0 * double(size) * double(size);

        // The host's copy, on pre-touched memory.
        {
            std::vector<unsigned char> source(std::size_t(labelBytes), 1), target(std::size_t(labelBytes), 2);
            CopyThreads copier;
            for (int threads : {1, 4, 8, 16}) {
                report("copy", size, std::to_string(threads) + " threads",
                       timeIt(reps, [&] { copier.copy(target.data(), source.data(), source.size(), threads); }),
                       labelBytes);
            }
        }

        offscreen.makeCurrent();
        {
            ImageTexture texture(image);
            std::vector<Variant> variants = {plain()};
            for (const Variant& v : bandVariants(false, quick)) variants.push_back(v);
            for (const Variant& variant : variants) {
                apply(variant);
                report("upload", size, variant.name, timeIt(reps, [&] {
                           texture.update(image);
                           glFinish();
                       }),
                       inputBytes);
            }
        }

        LabelOptions options;
        options.backend = backend;
        apply(plain());
        Labeling reference = offscreen.label(image, options);
        Labeler& labeler = offscreen.labeler();
        {
            std::vector<Variant> variants = {plain()};
            for (const Variant& v : bandVariants(true, quick)) variants.push_back(v);
            std::vector<std::uint32_t> labels;
            for (const Variant& variant : variants) {
                apply(variant);
                labels.assign(reference.labels.size(), 0u);
                report("download", size, variant.name, timeIt(reps, [&] { labeler.downloadLabels(labels); }),
                       labelBytes);
                ++compared;
                if (labels != reference.labels) {
                    ++mismatches;
                    std::printf("# MISMATCH: download %d %s differs from the plain download\n", size,
                                variant.name.c_str());
                }
            }
        }

        // Whole calls, and the labeling's device time.
        {
            LabelOptions timed = options;
            timed.timings = true;
            apply(plain());
            StageTimings stages;
            offscreen.label(image, timed, &stages);
            double device = 0.0;
            for (const StageTime& stage : stages)
                if (stage.stage.rfind("download_", 0) != 0) device += stage.milliseconds;
            report("device", size, backendName(backend), Timing{device, device}, 0.0);

            const Result* up = fastest("upload", size, "plain");
            const Result* down = fastest("download", size, "plain");
            Variant best{"fastest", {}};
            for (const Variant& v : bandVariants(false, quick))
                if (up && v.name == up->variant) best.environment = v.environment;
            for (const Variant& v : bandVariants(true, quick))
                if (down && v.name == down->variant)
                    for (const auto& [name, value] : v.environment)
                        if (name != "GLCCL_TRANSFER_CLIENT_STORAGE") best.environment[name] = value;
            best.name = "fastest (upload " + std::string(up ? up->variant : "-") + "; download " +
                        (down ? down->variant : "-") + ")";
            // Upload and download variants differ in band and threads: the
            // download's settings win where both set one.
            Labeling reused;
            for (const Variant& variant : {plain(), Variant{"default", {}}, best}) {
                apply(variant);
                report("wall", size, variant.name, timeIt(reps, [&] { offscreen.label(image, options, reused); }),
                       inputBytes + labelBytes);
                ++compared;
                if (reused.labels != reference.labels || reused.components != reference.components) {
                    ++mismatches;
                    std::printf("# MISMATCH: wall %d %s differs from the plain labeling\n", size, variant.name.c_str());
                }
            }
        }
    }
    apply({"default", {}});

    // The summary: per size, plain against the fastest of each kind.
    std::printf("\n%-6s %-9s %10s %10s  %s\n", "size", "probe", "plain_ms", "best_ms", "best variant (GB/s)");
    for (const int size : sizes) {
        for (const char* probe : {"copy", "upload", "download", "wall"}) {
            const Result* base = std::string(probe) == "copy" ? find("copy", size, "1 threads") : find(probe, size, "plain");
            const Result* best = fastest(probe, size);
            if (!base || !best) continue;
            std::printf("%-6d %-9s %10.2f %10.2f  %s (%.1f)\n", size, probe, base->timing.median, best->timing.median,
                        best->variant.c_str(), best->gbps());
        }
        if (const Result* d = find("device", size, backendName(backend)))
            std::printf("%-6d %-9s %10s %10.2f  %s\n", size, "device", "", d->timing.median, backendName(backend));
        if (const Result* w = find("wall", size, "default"))
            std::printf("%-6d %-9s %10s %10.2f  (default settings)\n", size, "wall", "", w->timing.median);
    }
    std::printf("probe: %zu downloads compared, %s\n", compared,
                mismatches == 0 ? "all identical" : (std::to_string(mismatches) + " DIFFERENT").c_str());
    return mismatches == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "glccl_transfer_probe: %s\n", error.what());
        return 1;
    }
}

// glccl_transfer_probe: which host transfer is fastest on this machine.
//
//   glccl_transfer_probe [--sizes 8192,16384] [--reps 5] [--backend compute|cpu|...] [--quick]
//   glccl_transfer_probe --memory IMAGE [--backend B]
//   glccl_transfer_probe --split BACKENDS [--sizes S] [--reps R]
//
// For each size (square, 8-bit noise50 input, R32UI labels), in one GL
// context (the headless one glccl uses):
//   copy      the host's copy of the label array with 1, 4, 8 and 16 copy
//             threads (CopyThreads, parallel_copy.hpp): the ceiling of what
//             the banded transfers can copy out of or into their buffers
//   upload    ImageTexture::update() + glFinish(): plain glTexSubImage2D from
//             host memory, and bands of 16/32/64 MiB through 2 or 3
//             persistently mapped pixel-unpack buffers, filled by 1, 4 or 8
//             threads
//   download  Labeler::downloadLabels() into a vector reused between calls:
//             plain glGetTexImage, and bands through
//             glGetTextureSubImage into 2 or 3 pixel-pack buffers, 16/32/64
//             MiB, copied out by 1, 4 or 8 threads; every download is
//             compared with the plain one, byte for byte
//   wall      Session::label(image, options, labeling) into a
//             reused Labeling, as glccl bench and a batch run it: plain
//             transfers, the default settings, and the fastest upload and
//             download variant found above; with the labeling's device time
//             (its stages' timer queries)
// --memory labels one image file as glccl label does (read, upload, label,
// table, labels) under the start-up Tuning (the environment's GLCCL_*
// variables) and prints the process's resident memory (VmRSS) and its peak
// (VmHWM) in MiB after each step:
// "memory,STEP,RSS,PEAK", then "memory: peak P MiB, input I MiB, labels L
// MiB". Run once per setting, it shows which step holds memory beyond the
// image and its labels (a driver's staging copy, say). With --backend cuda
// the steps are the CUDA runtime (an 8x8 image labeled), read, and the
// whole call, since host images go to CUDA directly.
// --split BACKENDS times a whole call's parts apart (split() below).
// Variants are chosen with the transfer knobs of the library's Tuning
// (glccl/tuning.hpp), set here per variant; the GLCCL_TRANSFER* and
// GLCCL_COPY_* variables set the start-up values (tools/cli_support/cli_support.hpp).
// Prints one CSV line per measurement (probe,size,variant,median_ms,min_ms,
// gb_per_s), then a table of the fastest variant of each kind against the
// plain path, then "probe: N downloads compared, all identical" (or the
// mismatches, exit status 1). Used by bench/wall-probe.sh; a small
// run is a ctest (tests/CMakeLists.txt).

#include "gl.hpp"  // the engine's GL entry points, before any other GL header

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
#include "glccl/session.hpp"
#include "glccl/texture.hpp"
#include "cli_support.hpp"
#include "gl_error.hpp"
#include "parallel_copy.hpp"
#include "known_route.hpp"
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

// The transfer knobs of one variant (Tuning::set's names and values).
struct Variant {
    std::string name;
    std::map<std::string, std::string> knobs;
};

// The process's Tuning with the variant's knobs set; knobs the variant
// leaves out keep the values the program started with (its environment,
// tools/cli_support/cli_support.hpp).
void apply(const Variant& variant) {
    static const Tuning startup = tuning();
    Tuning chosen = startup;
    for (const auto& [knob, value] : variant.knobs) chosen.set(knob, value);
    setTuning(chosen);
}

Variant plain() { return {"plain", {{"transfer", "plain"}}}; }

// The banded variants, the same for uploads and downloads.
std::vector<Variant> bandVariants(bool quick) {
    std::vector<Variant> variants;
    const std::vector<std::string> bands = quick ? std::vector<std::string>{"16M"} : std::vector<std::string>{"16M", "32M", "64M"};
    const std::vector<std::string> buffers = quick ? std::vector<std::string>{"2"} : std::vector<std::string>{"2", "3"};
    const std::vector<std::string> threads = quick ? std::vector<std::string>{"1", "4"} : std::vector<std::string>{"1", "4", "8"};
    for (const std::string& band : bands)
        for (const std::string& count : buffers)
            for (const std::string& thread : threads) {
                Variant variant;
                variant.name = band + " x" + count + " t" + thread;
                variant.knobs = {{"transfer", "bands"},
                                 {"transferBandBytes", band},
                                 {"transferBuffers", count},
                                 {"copyThreads", thread}};
                variants.push_back(variant);
            }
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
    Session session;
    OffscreenLabeler& offscreen = session.offscreen();
    if (!whyUnavailable(backend, offscreen.context().info()).empty())
        backend = resolveBackend(Backend::Auto, offscreen.context().info());
    step("context");
    LabelOptions options;
    options.backend = backend;
    if (backend == Backend::Cuda) {
        // The cuda backend labels host images through CUDA alone
        // (the Session's route): first what the CUDA runtime holds with a tiny
        // image labeled, then the image's call as glccl label makes it.
        session.label(generateFamily("noise50", 8, 8), options);
        step("cuda runtime");
        Image image = readImage(path, ChannelMode::Gray);
        step("read");
        Labeling labeling;
        session.label(image, options, labeling);
        step("label");
        const double mebibyte = 1 << 20;
        std::printf("memory: peak %ld MiB, input %.0f MiB, labels %.0f MiB (cuda, through CUDA alone)\n",
                    residentMebibytes().second, double(image.pixels.size()) / mebibyte,
                    double(labeling.labels.size()) * 4 / mebibyte);
        return 0;
    }
    Image image = readImage(path, ChannelMode::Gray);
    step("read");
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
                backendName(backend), transfer::Settings::current().describe().c_str());
    return 0;
}

// --anatomy SIZE VARIANT: one way of bringing an R32UI texture of SIZE^2
// to the host, its phases timed apart (GPU part to its fence, mapping, the
// host's copy with 1 and 8 threads), three times, the data checked. Each
// variant runs in a process of its own, so that one that stalls (a mapping
// the host reads uncached, say) can be cut by a timeout without losing the
// others. Variants:
//   getteximage     glGetTexImage into host memory
//   pbo-F           glGetTexImage into one pixel-pack buffer made with
//                   glBufferStorage flags F, then read on the host:
//                   F = cs-coherent (READ|PERSISTENT|COHERENT|CLIENT_STORAGE),
//                   coherent (READ|PERSISTENT|COHERENT), cs-map (READ|
//                   CLIENT_STORAGE, mapped after the fence), map (READ)
//   device-copy     glGetTexImage into a buffer without host access, then
//                   glCopyBufferSubData into a cs-coherent one
//   getbuffer       glGetTexImage into a buffer without host access, then
//                   glGetBufferSubData
//   readpixels      the texture on a framebuffer, glReadPixels into cs-coherent
//   subimage        glGetTextureSubImage into cs-coherent
//   shader-F        a compute shader reads the texture (imageLoad) and
//                   writes the buffer as a shader storage buffer, F =
//                   cs-coherent, coherent or device (no host access: the
//                   pack alone)
// Where the cuda backend runs, a small image is labeled with it first: a
// process with a CUDA context runs at the boosted clock, as glccl bench does.
// The pack shader (one label a thread), owned by the engine's GL wrappers;
// its own source: the engine's compute programs share compute_common.glsl,
// which this one does not need.
gl::Program packProgram() {
    static const char* source = R"(#version 430
layout(local_size_x = 256) in;
layout(r32ui, binding = 0) readonly uniform uimage2D labels;
layout(std430, binding = 0) writeonly buffer PackedLabels { uint words[]; };
void main() {
    ivec2 size = imageSize(labels);
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x < size.x) words[uint(p.y) * uint(size.x) + uint(p.x)] = imageLoad(labels, p).x;
}
)";
    const auto shader = gl::Object<gl::ShaderTraits>::adopt(glCreateShader(GL_COMPUTE_SHADER));
    glShaderSource(shader.id(), 1, &source, nullptr);
    glCompileShader(shader.id());
    GLint ok = 0;
    glGetShaderiv(shader.id(), GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetShaderInfoLog(shader.id(), sizeof log, nullptr, log);
        throw Error(std::string("pack shader: ") + log);
    }
    auto program = gl::Object<gl::ProgramTraits>::create();
    glAttachShader(program.id(), shader.id());
    glLinkProgram(program.id());
    glDetachShader(program.id(), shader.id());
    return gl::Program(std::move(program), "pack_labels");
}

int anatomy(int size, const std::string& variant) {
    Session session;
    OffscreenLabeler& offscreen = session.offscreen();
    offscreen.makeCurrent();
    if (whyUnavailable(Backend::Cuda, offscreen.context().info()).empty()) {
        LabelOptions options;
        options.backend = Backend::Cuda;
        session.label(generateFamily("noise50", 64, 64, 1), options);
        std::printf("anatomy,%d,%s,cuda context made\n", size, variant.c_str());
    }
    const std::size_t count = std::size_t(size) * std::size_t(size), bytes = count * 4;
    std::vector<std::uint32_t> pattern(count);
    for (std::size_t i = 0; i < count; ++i) pattern[i] = std::uint32_t(i * 2654435761u);
    const gl::Texture labels = gl::Texture::allocate(GL_R32UI, size, size, "anatomy: the label texture");
    const GLuint texture = labels.id();
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, size, size, GL_RED_INTEGER, GL_UNSIGNED_INT, pattern.data());
    glFinish();
    struct PackBuffer {
        gl::Buffer buffer;
        void* mapped = nullptr;  // persistent mappings only
        GLuint id() const { return buffer.id(); }
    };
    const auto makeBuffer = [&](GLbitfield flags, bool mapNow) {
        PackBuffer made{gl::Buffer::create()};
        glBindBuffer(GL_PIXEL_PACK_BUFFER, made.id());
        glBufferStorage(GL_PIXEL_PACK_BUFFER, GLsizeiptr(bytes), nullptr, flags);
        if (mapNow)
            made.mapped = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, GLsizeiptr(bytes),
                                           flags & (GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT));
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        return made;
    };
    const GLbitfield kRead = GL_MAP_READ_BIT, kPersist = GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    GLbitfield flags = 0;
    bool persistent = false, viaDevice = false, getBuffer = false, plainGet = false, readPixels = false,
         subImage = false, shader = false, shaderDevice = false;
    if (variant == "getteximage") plainGet = true;
    else if (variant == "pbo-cs-coherent") flags = kRead | kPersist | GL_CLIENT_STORAGE_BIT, persistent = true;
    else if (variant == "pbo-coherent") flags = kRead | kPersist, persistent = true;
    else if (variant == "pbo-cs-map") flags = kRead | GL_CLIENT_STORAGE_BIT;
    else if (variant == "pbo-map") flags = kRead;
    else if (variant == "device-copy") flags = kRead | kPersist | GL_CLIENT_STORAGE_BIT, persistent = true, viaDevice = true;
    else if (variant == "getbuffer") getBuffer = true;
    else if (variant == "readpixels") flags = kRead | kPersist | GL_CLIENT_STORAGE_BIT, persistent = true, readPixels = true;
    else if (variant == "subimage") flags = kRead | kPersist | GL_CLIENT_STORAGE_BIT, persistent = true, subImage = true;
    else if (variant == "shader-cs-coherent") flags = kRead | kPersist | GL_CLIENT_STORAGE_BIT, persistent = true, shader = true;
    else if (variant == "shader-coherent") flags = kRead | kPersist, persistent = true, shader = true;
    else if (variant == "shader-device") shader = true, shaderDevice = true;
    else {
        std::fprintf(stderr, "unknown anatomy variant %s\n", variant.c_str());
        return 2;
    }
    PackBuffer host, device;
    if (!plainGet && !getBuffer && !shaderDevice) host = makeBuffer(flags, persistent);
    if (viaDevice || getBuffer || shaderDevice) device = makeBuffer(0, false);
    std::optional<gl::Program> program;
    if (shader) program = packProgram();
    // The texture into `buffer` by the pack shader.
    const auto pack = [&](GLuint buffer) {
        program->use();
        glBindImageTexture(0, texture, 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32UI);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer);
        glDispatchCompute(GLuint((size + 255) / 256), GLuint(size), 1);
    };
    gl::Framebuffer framebuffer;
    if (readPixels) {
        framebuffer = gl::Framebuffer::create();
        glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer.id());
        glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
        glReadBuffer(GL_COLOR_ATTACHMENT0);
    }
    checkGlError("anatomy setup");
    std::vector<std::uint32_t> out(count);
    CopyThreads copier;
    for (int rep = 0; rep < 3; ++rep) {
        std::fill(out.begin(), out.end(), 0u);
        double gpu = 0.0, map = 0.0, copy1 = 0.0, copy8 = 0.0;
        const auto start = Clock::now();
        if (plainGet) {
            glGetTexImage(GL_TEXTURE_2D, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, out.data());
            gpu = millisecondsSince(start);
        } else if (shaderDevice) {
            pack(device.id());
            glFinish();
            gpu = millisecondsSince(start);
            const auto t = Clock::now();
            glGetNamedBufferSubData(device.id(), 0, GLsizeiptr(bytes), out.data());
            copy1 = millisecondsSince(t);
        } else if (getBuffer) {
            glBindBuffer(GL_PIXEL_PACK_BUFFER, device.id());
            glGetTexImage(GL_TEXTURE_2D, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, nullptr);
            glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
            glFinish();
            gpu = millisecondsSince(start);
            const auto t = Clock::now();
            glGetNamedBufferSubData(device.id(), 0, GLsizeiptr(bytes), out.data());
            copy1 = millisecondsSince(t);
        } else {
            glBindBuffer(GL_PIXEL_PACK_BUFFER, viaDevice ? device.id() : host.id());
            if (shader) {
                pack(host.id());
                glMemoryBarrier(GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT);
            } else if (readPixels) glReadPixels(0, 0, size, size, GL_RED_INTEGER, GL_UNSIGNED_INT, nullptr);
            else if (subImage)
                glGetTextureSubImage(texture, 0, 0, 0, 0, size, size, 1, GL_RED_INTEGER, GL_UNSIGNED_INT,
                                     GLsizei(bytes), nullptr);
            else glGetTexImage(GL_TEXTURE_2D, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, nullptr);
            glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
            if (viaDevice) glCopyNamedBufferSubData(device.id(), host.id(), 0, 0, GLsizeiptr(bytes));
            gl::Fence::insert().wait("anatomy " + variant);
            gpu = millisecondsSince(start);
            auto t = Clock::now();
            const void* mapped = host.mapped;
            if (!persistent) mapped = glMapNamedBufferRange(host.id(), 0, GLsizeiptr(bytes), GL_MAP_READ_BIT);
            map = millisecondsSince(t);
            // A slice first: a mapping the host reads uncached shows in it
            // without a whole copy's minutes.
            const std::size_t slice = std::min<std::size_t>(bytes, std::size_t(4) << 20);
            t = Clock::now();
            std::memcpy(out.data(), mapped, slice);
            const double sliceMs = millisecondsSince(t);
            std::printf("anatomy,%d,%s,%d,slice_4MiB_ms,%.3f\n", size, variant.c_str(), rep, sliceMs);
            std::fflush(stdout);
            if (sliceMs > 200.0) {
                std::printf("anatomy,%d,%s,%d,stopped,the mapping reads at %.1f MB/s\n", size, variant.c_str(), rep,
                            double(slice) / (sliceMs * 1e3));
                return 1;
            }
            t = Clock::now();
            copier.copy(out.data(), mapped, bytes, 1);
            copy1 = millisecondsSince(t);
            t = Clock::now();
            copier.copy(out.data(), mapped, bytes, 8);
            copy8 = millisecondsSince(t);
            if (!persistent) glUnmapNamedBuffer(host.id());
        }
        const double total = millisecondsSince(start);
        const bool same = std::memcmp(out.data(), pattern.data(), bytes) == 0;
        checkGlError("anatomy " + variant);
        std::printf("anatomy,%d,%s,%d,gpu_ms,%.3f,map_ms,%.3f,copy1_ms,%.3f,copy8_ms,%.3f,total_ms,%.3f,%s\n", size,
                    variant.c_str(), rep, gpu, map, copy1, copy8, total, same ? "identical" : "DIFFERENT");
        std::fflush(stdout);
        if (!same) return 1;
    }
    return 0;
}

// --split BACKENDS: where a whole call's wall time goes, call by call:
// ImageTexture::update() (the upload), Labeler::label(), components() (it
// waits for the labeling) and downloadLabels(), each the median of `reps`,
// per backend, family and size: "split,SIZE,BACKEND,FAMILY,upload_ms,
// label_ms,table_ms,labels_ms,total_ms,components".
int split(const std::vector<int>& sizes, int reps, const std::string& backendList) {
    Session session;
    OffscreenLabeler& offscreen = session.offscreen();
    std::printf("split,size,backend,family,upload_ms,label_ms,table_ms,labels_ms,total_ms,components\n");
    for (const int size : sizes)
        for (const char* family : {"noise50", "dense_disks", "large"}) {
            const Image image = generateFamily(family, size, size, 1);
            offscreen.makeCurrent();
            ImageTexture texture(image);
            std::size_t start = 0;
            while (start <= backendList.size()) {
                const std::size_t end = std::min(backendList.find(',', start), backendList.size());
                const Backend backend = parseBackend(backendList.substr(start, end - start));
                start = end + 1;
                LabelOptions options;
                options.backend = backend;
                Labeler& labeler = offscreen.labeler();
                std::vector<Component> table;
                std::vector<std::uint32_t> labels;
                std::vector<double> parts[5];
                for (int rep = -1; rep < reps; ++rep) {
                    const auto t0 = Clock::now();
                    texture.update(image);
                    const auto t1 = Clock::now();
                    labeler.label(texture.id(), options);
                    const auto t2 = Clock::now();
                    labeler.components(table);
                    const auto t3 = Clock::now();
                    labeler.downloadLabels(labels);
                    const auto t4 = Clock::now();
                    if (rep < 0) continue;
                    const Clock::time_point marks[5] = {t0, t1, t2, t3, t4};
                    for (int i = 0; i < 4; ++i)
                        parts[i].push_back(std::chrono::duration<double, std::milli>(marks[i + 1] - marks[i]).count());
                    parts[4].push_back(std::chrono::duration<double, std::milli>(t4 - t0).count());
                }
                std::printf("split,%d,%s,%s", size, backendName(backend), family);
                for (auto& part : parts) {
                    std::sort(part.begin(), part.end());
                    std::printf(",%.3f", part[part.size() / 2]);
                }
                std::printf(",%zu\n", table.size());
                std::fflush(stdout);
                labeler.forget(texture.id());
            }
        }
    return 0;
}

int run(int argc, char** argv) {
    std::vector<int> sizes = {8192, 16384};
    int reps = 5;
    bool quick = false;
    std::string memoryImage, splitBackends;
    Backend backend = Backend::Compute;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--sizes" && i + 1 < argc) sizes = parseSizes(argv[++i]);
        else if (arg == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--backend" && i + 1 < argc) backend = parseBackend(argv[++i]);
        else if (arg == "--quick") quick = true;
        else if (arg == "--memory" && i + 1 < argc) memoryImage = argv[++i];
        else if (arg == "--split" && i + 1 < argc) splitBackends = argv[++i];
        else if (arg == "--anatomy" && i + 2 < argc) {
            const int size = std::atoi(argv[i + 1]);
            return anatomy(size, argv[i + 2]);
        }
        else {
            std::cerr << "usage: glccl_transfer_probe [--sizes 8192,16384] [--reps 5] [--backend B] [--quick]\n"
                         "       glccl_transfer_probe --memory IMAGE [--backend B]\n"
                         "       glccl_transfer_probe --split BACKENDS [--sizes S] [--reps R]\n"
                         "       glccl_transfer_probe --anatomy SIZE VARIANT\n";
            return 2;
        }
    }
    if (!memoryImage.empty()) return memorySteps(memoryImage, backend);
    if (!splitBackends.empty()) return split(sizes, reps, splitBackends);
    Session session;
    OffscreenLabeler& offscreen = session.offscreen();
    const ContextInfo& info = offscreen.context().info();
    if (!whyUnavailable(backend, info).empty()) backend = resolveBackend(Backend::Auto, info);
    apply({"default", {}});
    std::printf("# %s, %s; labels by %s; default transfer settings: %s\n", info.renderer.c_str(),
                info.version.c_str(), backendName(backend), transfer::Settings::current().describe().c_str());
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
            for (const Variant& v : bandVariants(quick)) variants.push_back(v);
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
        Labeling reference = session.label(image, options);
        Labeler& labeler = offscreen.labeler();
        {
            std::vector<Variant> variants = {plain()};
            for (const Variant& v : bandVariants(quick)) variants.push_back(v);
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
            session.label(image, timed, &stages);
            double device = 0.0;
            for (const StageTime& stage : stages)
                if (stage.stage.rfind("download_", 0) != 0) device += stage.milliseconds;
            report("device", size, backendName(backend), Timing{device, device}, 0.0);

            const Result* up = fastest("upload", size, "plain");
            const Result* down = fastest("download", size, "plain");
            Variant best{"fastest", {}};
            for (const Variant& v : bandVariants(quick))
                if (up && v.name == up->variant) best.knobs = v.knobs;
            for (const Variant& v : bandVariants(quick))
                if (down && v.name == down->variant)
                    for (const auto& [name, value] : v.knobs) best.knobs[name] = value;
            best.name = "fastest (upload " + std::string(up ? up->variant : "-") + "; download " +
                        (down ? down->variant : "-") + ")";
            // Upload and download variants differ in band and threads: the
            // download's settings win where both set one.
            Labeling reused;
            for (const Variant& variant : {plain(), Variant{"default", {}}, best}) {
                apply(variant);
                report("wall", size, variant.name, timeIt(reps, [&] { session.label(image, options, reused); }),
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
        glccl::tools::applyTuningEnvironment("glccl_transfer_probe");
        return run(argc, argv);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "glccl_transfer_probe: %s\n", error.what());
        return 1;
    }
}

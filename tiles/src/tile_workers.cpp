// Tile workers: one backend instance per thread. The GL workers each own a
// headless context on their EGL device (current on their thread only); the
// cuda workers each select their CUDA device on their thread; the cpu
// workers run the reference. probeTileBackend() answers, once, which backend
// labels the tiles (the router's choice) and the largest side it takes.

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "glccl/backend.hpp"
#include "glccl/context.hpp"
#include "glccl/error.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/reference.hpp"
#include "glccl/route.hpp"
#include "glccl/tile_pipeline.hpp"
#include "glccl/tiled.hpp"
#ifdef GLCCL_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "glccl/cuda_labeler.hpp"
#endif

namespace glccl {

namespace {

// Making and destroying headless contexts is not thread-safe in the engine
// (its EGL display use counts, GLEW's loading): one at a time. Labeling in
// the contexts, once made, runs in parallel, except in software contexts:
// Mesa's llvmpipe crashes now and then when two contexts of one process draw
// at once (seen in the raster backend's passes with two workers on one
// device, about one run in sixty), and it spreads every draw and dispatch
// over all cores itself, so there workers label under this mutex too and
// lose nothing.
std::mutex& contextSetupMutex() {
    static std::mutex mutex;
    return mutex;
}

class CpuTileWorker : public TileWorker {
public:
    explicit CpuTileWorker(const LabelOptions& options) : options_(options) {}
    void label(const Image& tile, std::uint32_t* labels, std::vector<Component>& table, StageTimings* timings) override {
        Labeling labeling = labelReference(tile, options_.connectivity, options_.criterion);
        std::copy(labeling.labels.begin(), labeling.labels.end(), labels);
        table = std::move(labeling.components);
        if (timings) timings->clear();
    }
    std::string device() const override { return "CPU"; }

private:
    LabelOptions options_;
};

// The EGL device of a GL worker's --devices entry (see tiled.hpp), or -1
// (the engine's default) for none.
int eglDeviceOf(int entry, const std::vector<HeadlessDevice>& devices) {
    if (entry < 0) return -1;
    for (const HeadlessDevice& device : devices)
        if (device.cudaDevice == entry) return device.index;
    return entry;  // out of range: HeadlessContext says which devices there are
}

#ifdef GLCCL_HAVE_CUDA
// Makes the CUDA context of the GL worker's GPU, where the build and the
// machine have CUDA, and keeps it for the process (CUDA's primary context).
// On NVIDIA's driver a GPU on which a CUDA context exists stays at its
// compute clock; a GL-only process drops to the idle clock while the host
// reads the next tile, and the tile after runs slow (over twice the device
// time of a tile labeled at the compute clock). Where CUDA cannot run this
// does nothing: it only speeds up.
void holdComputeClock(int entry) {
    if (!cuda::available()) return;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) return;
    const int device = entry >= 0 && entry < count ? entry : 0;
    if (cudaSetDevice(device) == cudaSuccess) (void)cudaFree(nullptr);
    (void)cudaGetLastError();
}
#else
void holdComputeClock(int) {}
#endif

class GlTileWorker : public TileWorker {
public:
    GlTileWorker(const LabelOptions& options, int entry) : options_(options) {
        holdComputeClock(entry);
        const std::lock_guard<std::mutex> lock(contextSetupMutex());
        HeadlessContext::Options context;
        context.device = eglDeviceOf(entry, headlessDevices());
        try {
            offscreen_ = std::make_unique<OffscreenLabeler>(context);
        } catch (const Error& error) {
            if (entry < 0) throw;
            throw Error("glccl::labelTiled(): the GL worker of device " + std::to_string(entry) + ": " + error.what());
        }
        device_ = offscreen_->context().info().renderer + " (" + offscreen_->context().platform() + ")";
        software_ = isSoftwareRenderer(offscreen_->context().info());
    }
    ~GlTileWorker() override {
        const std::lock_guard<std::mutex> lock(contextSetupMutex());
        offscreen_.reset();
    }
    // A tile fits one call by construction (planTiles): labelOneCall never
    // tiles again.
    void label(const Image& tile, std::uint32_t* labels, std::vector<Component>& table, StageTimings* timings) override {
        if (!software_) return offscreen_->labelOneCall(tile, options_, labels, table, timings);
        const std::lock_guard<std::mutex> lock(contextSetupMutex());
        offscreen_->labelOneCall(tile, options_, labels, table, timings);
    }
    std::string device() const override { return device_; }

private:
    LabelOptions options_;
    std::unique_ptr<OffscreenLabeler> offscreen_;
    std::string device_;
    bool software_ = false;  // llvmpipe and the like: one labeling at a time
};

#ifdef GLCCL_HAVE_CUDA
// The host-memory entry of the CUDA path on this thread's device: no GL
// context needed, and each worker its own GPU.
class CudaTileWorker : public TileWorker {
public:
    CudaTileWorker(const LabelOptions& options, int device) : options_(options), device_(device < 0 ? 0 : device) {
        const cudaError_t status = cudaSetDevice(device_);
        if (status != cudaSuccess)
            throw Error("glccl::labelTiled(): cudaSetDevice(" + std::to_string(device_) + ") failed: " +
                        cudaGetErrorString(status));
    }
    std::string device() const override {
        return cuda::deviceName() + " (CUDA device " + std::to_string(device_) + ")";
    }
    void label(const Image& tile, std::uint32_t* labels, std::vector<Component>& table, StageTimings* timings) override {
        // One labeler per worker keeps its device buffers from tile to tile:
        // tiles of one size allocate nothing after the first.
        table = labeler_.label(ImageView(tile), options_.connectivity, options_.criterion, labels, timings);
    }

private:
    LabelOptions options_;
    int device_ = 0;
    cuda::ImageLabeler labeler_;
};
#endif

std::unique_ptr<TileWorker> makeTileWorker(const BackendLimits& limits, const LabelOptions& requested, int device) {
    LabelOptions options = requested;
    options.backend = limits.backend;
    switch (limits.backend) {
        case Backend::Cpu: return std::make_unique<CpuTileWorker>(options);
        case Backend::Cuda:
#ifdef GLCCL_HAVE_CUDA
            return std::make_unique<CudaTileWorker>(options, device);
#else
            (void)device;
            throw Error("glccl::labelTiled(): this build has no CUDA path");
#endif
        default: return std::make_unique<GlTileWorker>(options, device);
    }
}

}  // namespace

BackendLimits probeTileBackend(Backend requested, int dimensions, Connectivity connectivity) {
    const std::string where = "glccl::labelTiled(): ";
    // The GL engines' limits are the context's: a probe context answers for
    // them (and for auto, which may choose one).
    std::optional<ContextInfo> info;
    std::string platform, whyNoContext;
    if (requested != Backend::Cpu && requested != Backend::Cuda) {
        try {
            const std::lock_guard<std::mutex> lock(contextSetupMutex());
            OffscreenLabeler probe;
            info = probe.context().info();
            platform = probe.context().platform();
        } catch (const Error& error) {
            whyNoContext = std::string("no headless GL context: ") + error.what();
        }
    }
    const ContextInfo* context = info ? &*info : nullptr;
    LabelOptions options;
    options.backend = requested;
    InputDescription input;
    if (dimensions == 3) {
        // A volume of any size (no elements): only the backend is resolved.
        input.shape = Shape::volume(0, 0, 0);
        options.connectivity = connectivity;
    }
    Route route;
    try {
        route = chooseRoute(input, options, context, whyNoContext);
    } catch (const Error& error) {
        throw Error(where + error.what());
    }
    const EngineCapabilities engine = capabilitiesOf(route.backend, context, whyNoContext);
    BackendLimits limits;
    limits.backend = route.backend;
    limits.maxSide = std::uint32_t(std::min<std::int64_t>(engine.largestExtent, kMaxTileSide));
    limits.engine = engine;
    limits.note = route.note;
    switch (route.backend) {
        case Backend::Cpu: limits.device = "CPU"; break;
        case Backend::Cuda: {
#ifdef GLCCL_HAVE_CUDA
            int count = 0;
            cudaGetDeviceCount(&count);
            limits.device = cuda::deviceName() + (count > 1 ? " (" + std::to_string(count) + " CUDA devices)" : "");
#endif
            break;
        }
        default: limits.device = info->renderer + " (" + platform + ")";
    }
    return limits;
}

int tileDeviceCount(Backend backend) {
    if (backend == Backend::Cuda) {
#ifdef GLCCL_HAVE_CUDA
        int count = 0;
        return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
#else
        return 0;
#endif
    }
    if (backend != Backend::Compute && backend != Backend::Raster) return 0;
    const std::lock_guard<std::mutex> lock(contextSetupMutex());
    const std::vector<HeadlessDevice> devices = headlessDevices();
    int cudaDevices = 0;
    for (const HeadlessDevice& device : devices) cudaDevices += device.cudaDevice >= 0 ? 1 : 0;
    return cudaDevices > 0 ? cudaDevices : int(devices.size());
}

// ---------------------------------------------------------------- the pool

// One tile handed to the pool: its arguments, and what came of it.
struct TileWorkerPool::Job {
    Job(const Image& t, std::uint32_t* l, std::vector<Component>& c, StageTimings* s)
        : tile(t), labels(l), table(c), timings(s) {}
    const Image& tile;
    std::uint32_t* labels;
    std::vector<Component>& table;
    StageTimings* timings;
    LabelCall call;
    bool done = false;
    std::exception_ptr error;
};

TileWorkerPool::TileWorkerPool(const BackendLimits& limits, const LabelOptions& options,
                               const std::vector<int>& devices) {
    // No list: one worker on the backend's default device (-1).
    const std::vector<int> chosen = devices.empty() ? std::vector<int>{-1} : devices;
    devices_.assign(chosen.size(), std::string());
    for (unsigned i = 0; i < chosen.size(); ++i)
        threads_.emplace_back(&TileWorkerPool::serve, this, i, limits, options, chosen[i]);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return started_ == threads_.size(); });
    if (setupError_) {
        const std::exception_ptr error = setupError_;
        stopping_ = true;
        wake_.notify_all();
        lock.unlock();
        for (std::thread& thread : threads_) thread.join();
        threads_.clear();
        std::rethrow_exception(error);
    }
}

TileWorkerPool::~TileWorkerPool() {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& thread : threads_) thread.join();
}

void TileWorkerPool::serve(unsigned index, BackendLimits limits, LabelOptions options, int device) {
    std::unique_ptr<TileWorker> worker;
    {
        std::exception_ptr failure;
        try {
            worker = makeTileWorker(limits, options, device);
        } catch (...) {
            failure = std::current_exception();
        }
        const std::lock_guard<std::mutex> lock(mutex_);
        if (worker) devices_[index] = worker->device();
        if (failure && !setupError_) setupError_ = failure;
        ++started_;
        done_.notify_all();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
        if (stopping_) break;
        Job& job = *jobs_.front();
        jobs_.pop_front();
        lock.unlock();
        const auto start = std::chrono::steady_clock::now();
        try {
            worker->label(job.tile, job.labels, job.table, job.timings);
        } catch (...) {
            job.error = std::current_exception();
        }
        const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
        lock.lock();
        job.call = {index, took.count()};
        job.done = true;
        done_.notify_all();
    }
    lock.unlock();
    worker.reset();  // on its own thread: a GL context is released where it is current
}

std::string TileWorkerPool::describeDevices() const {
    std::vector<std::string> distinct;
    for (const std::string& device : devices_)
        if (std::find(distinct.begin(), distinct.end(), device) == distinct.end()) distinct.push_back(device);
    std::string text;
    for (const std::string& device : distinct) text += (text.empty() ? "" : "; ") + device;
    return text;
}

TileWorkerPool::LabelCall TileWorkerPool::label(const Image& tile, std::uint32_t* labels,
                                                std::vector<Component>& table, StageTimings* timings) {
    Job job(tile, labels, table, timings);
    std::unique_lock<std::mutex> lock(mutex_);
    jobs_.push_back(&job);
    wake_.notify_one();
    done_.wait(lock, [&] { return job.done; });
    if (job.error) std::rethrow_exception(job.error);
    return job.call;
}

}  // namespace glccl

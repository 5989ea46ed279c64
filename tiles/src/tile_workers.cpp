// Tile workers: one engine per thread (glccl/engine.hpp), of the route's
// backend: the GL engines each own a headless context on their EGL device
// (current on their thread only), the cuda engines each work on their CUDA
// device, the cpu engine on the host's cores. The route was chosen before
// the tiles began (glccl::Session); the workers never choose again.

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "glccl/backend.hpp"
#include "glccl/context.hpp"
#include "glccl/engine.hpp"
#include "glccl/error.hpp"
#include "glccl/route.hpp"
#include "glccl/tile_pipeline.hpp"
#include "glccl/tiled.hpp"
#ifdef GLCCL_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "glccl/cuda_labeler.hpp"
#endif

namespace glccl {

namespace {

// The engine of a worker on its --devices entry (-1: the backend's default
// device), in the tiles' words where it cannot be made.
std::unique_ptr<Engine> makeWorkerEngine(Backend backend, int entry) {
    EnginePlace place;
    place.device = entry;
    try {
        return makeEngine(backend, place);
    } catch (const Error& error) {
        const bool gl = backend == Backend::Compute || backend == Backend::Raster;
        if (entry < 0 || !gl) throw Error(std::string("glccl::labelTiled(): ") + error.what());
        throw Error("glccl::labelTiled(): the GL worker of device " + std::to_string(entry) + ": " + error.what());
    }
}

}  // namespace

BackendLimits limitsOf(const Route& route, const std::string& device) {
    BackendLimits limits;
    limits.backend = route.backend;
    limits.maxSide = std::uint32_t(std::min<std::int64_t>(route.engine.largestExtent, kMaxTileSide));
    limits.engine = route.engine;
    limits.device = device;
    limits.note = route.note;
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
    std::unique_ptr<Engine> worker;
    options.backend = limits.backend;
    {
        std::exception_ptr failure;
        try {
            worker = makeWorkerEngine(limits.backend, device);
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
            worker->label(ImageView(job.tile), options, job.labels, job.table, job.timings);
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

#include "interruptible.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "process_wide.hpp"

namespace glccl::python {

namespace {

// What the calling thread and the worker share; the worker's copy keeps it
// alive when the call is abandoned.
struct Run {
    std::atomic<bool> cancelled{false};  // set when the call is abandoned
    std::mutex mutex;
    std::condition_variable finishedChanged;
    bool finished = false;
    bool abandoned = false;
    std::function<void()> work;
    std::exception_ptr error;
    std::vector<PyObject*> references;  // owned: one reference each
};

// The run of the worker on this thread (null elsewhere).
thread_local const Run* currentRun = nullptr;

// Threads that run one job at a time and wait for the next: a call takes an
// idle one or starts one. They are never joined (the process's end takes
// them) and the pool is never destroyed, so no destructor at exit waits on
// a thread, as with the shared GL context.
class WorkerThreads {
public:
    void run(std::function<void()> job) {
        Worker* worker = nullptr;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!idle_.empty()) {
                worker = idle_.back();
                idle_.pop_back();
            }
        }
        if (worker == nullptr) {
            worker = new Worker;  // owned by its thread, which never ends
            worker->job = std::move(job);
            std::thread([this, worker] { serve(*worker); }).detach();
            return;
        }
        {
            std::lock_guard<std::mutex> lock(worker->mutex);
            worker->job = std::move(job);
        }
        worker->jobChanged.notify_one();
    }

private:
    struct Worker {
        std::mutex mutex;
        std::condition_variable jobChanged;
        std::function<void()> job;
    };

    void serve(Worker& worker) {
        for (;;) {
            std::function<void()> job;
            {
                std::unique_lock<std::mutex> lock(worker.mutex);
                worker.jobChanged.wait(lock, [&] { return bool(worker.job); });
                job = std::move(worker.job);
                worker.job = nullptr;
            }
            job();
            job = nullptr;  // what the job captured goes before the thread is offered again
            std::lock_guard<std::mutex> lock(mutex_);
            idle_.push_back(&worker);
        }
    }

    std::mutex mutex_;
    std::vector<Worker*> idle_;
};

// A forked child (multiprocessing, a DataLoader's workers) starts a pool of
// its own: it has none of its parent's threads (process_wide.hpp).
WorkerThreads& workerThreads() { return processWide<WorkerThreads>(); }

int releaseReference(void* object) {
    Py_DECREF(static_cast<PyObject*>(object));
    return 0;
}

// From the worker, without the GIL: each reference is dropped by the main
// thread at its next chance. Where the interpreter is gone, or its queue
// full, the reference is left (the process is ending, or one array outlives
// its use).
void releaseFromWorker(std::vector<PyObject*>& references) {
    if (!Py_IsInitialized()) return;
    for (PyObject* object : references) Py_AddPendingCall(releaseReference, object);
    references.clear();
}

// With the GIL, on the calling thread.
void releaseHere(std::vector<PyObject*>& references) {
    for (PyObject* object : references) Py_DECREF(object);
    references.clear();
}

}  // namespace

bool callAbandoned() { return currentRun != nullptr && currentRun->cancelled.load(); }

ProgressCallback::ProgressCallback(const py::object& progress, const std::string& where) {
    if (progress.is_none()) return;
    const std::string name = py::str(py::type::of(progress).attr("__name__"));
    if (!PyCallable_Check(progress.ptr()))
        throw py::type_error(where + ": progress must be None or a callable taking (stage, seconds, fraction), not " +
                             name);
    // The positional arguments its signature takes: two or three, or any
    // number (*args). A callable whose signature Python cannot tell (some
    // built-ins) is called with two, as before fractions were given.
    int positional = 0;
    bool anyNumber = false;
    bool known = true;
    try {
        const py::object inspect = py::module_::import("inspect");
        const py::object parameter = inspect.attr("Parameter");
        const py::object signature = inspect.attr("signature")(progress);
        for (const py::handle item : signature.attr("parameters").attr("values")()) {
            const py::object kind = item.attr("kind");
            if (kind.equal(parameter.attr("VAR_POSITIONAL"))) anyNumber = true;
            else if (kind.equal(parameter.attr("POSITIONAL_ONLY")) ||
                     kind.equal(parameter.attr("POSITIONAL_OR_KEYWORD")))
                ++positional;
        }
    } catch (const py::error_already_set&) {
        known = false;
    }
    if (known && !anyNumber && positional < 2)
        throw py::type_error(where + ": progress must take (stage, seconds, fraction) or (stage, seconds); " +
                             std::string(py::repr(progress)) + " takes " + std::to_string(positional) +
                             " positional argument" + (positional == 1 ? "" : "s"));
    callable_ = progress;
    takesFraction_ = known && (anyNumber || positional >= 3);
}

void ProgressCallback::operator()(const char* stage, double seconds, double fraction) const {
    if (takesFraction_) callable_(stage, seconds, fraction);
    else callable_(stage, seconds);
}

void runInterruptibly(const std::function<void()>& work, PythonReferences keepAlive) {
    runInterruptibly(work, std::make_shared<LabelProgress>(), ProgressCallback(), std::move(keepAlive));
}

void runInterruptibly(const std::function<void()>& work, std::shared_ptr<const LabelProgress> where,
                      const ProgressCallback& progress, PythonReferences keepAlive) {
    auto run = std::make_shared<Run>();
    run->work = work;
    for (py::object& object : keepAlive) run->references.push_back(object.release().ptr());

    workerThreads().run([run] {
        currentRun = run.get();
        try {
            run->work();
        } catch (...) {
            run->error = std::current_exception();
        }
        currentRun = nullptr;
        std::unique_lock<std::mutex> lock(run->mutex);
        run->finished = true;
        if (run->abandoned) {
            run->work = nullptr;  // what it captured goes now, not with the last copy of `run`
            releaseFromWorker(run->references);
            return;
        }
        run->finishedChanged.notify_all();
    });
    // Whoever is last frees the references: the calling thread when the
    // worker is done, else the worker.
    const auto abandon = [&] {
        std::unique_lock<std::mutex> lock(run->mutex);
        if (run->finished) {
            lock.unlock();
            releaseHere(run->references);
            return;
        }
        run->abandoned = true;
        run->cancelled = true;
    };
    const auto start = std::chrono::steady_clock::now();
    const auto seconds = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    for (;;) {
        bool finished = false;
        {
            py::gil_scoped_release noGil;
            std::unique_lock<std::mutex> lock(run->mutex);
            finished = run->finishedChanged.wait_for(lock, std::chrono::milliseconds(kPollMilliseconds),
                                                     [&] { return run->finished; });
        }
        if (finished) break;
        if (PyErr_CheckSignals() != 0) {
            abandon();
            throw py::error_already_set();
        }
        if (progress.given()) {
            try {
                progress(where->stage(), seconds(), where->fraction());
            } catch (...) {
                abandon();
                throw;
            }
        }
    }
    {
        // What the work captured goes here, with the GIL, not later on the worker.
        std::lock_guard<std::mutex> lock(run->mutex);
        run->work = nullptr;
    }
    releaseHere(run->references);
    if (run->error) std::rethrow_exception(run->error);
    if (progress.given()) progress("done", seconds(), 1.0);
}

}  // namespace glccl::python

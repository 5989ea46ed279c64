#pragma once
// Long calls that Ctrl-C and a progress callback can reach.
//
// Labeling runs with the GIL released, and Python runs its signal handlers
// only on the main thread between bytecodes, so a call that labels on the
// calling thread would hear Ctrl-C only once it returns. Here the work runs
// on a worker thread while the calling thread waits in short steps; after
// each step it takes the GIL, lets Python run its signal handlers
// (PyErr_CheckSignals) and calls the progress callback. When either raises,
// the call raises at once and the worker is abandoned: a labeling in pieces
// stops after its current round of tiles or band (callAbandoned), one that
// the engine runs in one call finishes on its own; either keeps what it
// uses alive until then, and hands the Python objects it holds back to the interpreter
// through Py_AddPendingCall, the one interpreter entry that needs no GIL.
// The next call that needs the shared GL context waits for it.
//
// Worker threads are kept and reused, not started per call: a GL driver may
// set up state for each thread that makes a context current (NVIDIA's
// does), at a cost far above that of labeling a small image.

#include <pybind11/pybind11.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "glccl/progress.hpp"

namespace glccl::python {

namespace py = pybind11;

// On a worker thread of runInterruptibly: whether its call was abandoned
// (Ctrl-C, or the progress callback raised). False on any other thread.
bool callAbandoned();

// The wait between two checks for signals and calls of the progress callback.
constexpr int kPollMilliseconds = 50;

// Calls over at least this many elements run through runInterruptibly, so
// that Ctrl-C reaches them; smaller ones end sooner than a person can press
// it and run without the thread.
constexpr std::uint64_t kInterruptibleElements = std::uint64_t(1) << 20;

// What a worker holds and the interpreter owns: the arrays it reads or
// writes. Moved into the call, released with the GIL on the calling thread,
// or from the worker through Py_AddPendingCall when the call was abandoned.
using PythonReferences = std::vector<py::object>;

// A progress= argument: None, or a callable called as progress(stage,
// seconds, fraction), or as progress(stage, seconds) where it takes only two
// positional arguments (its signature says so; one whose signature Python
// cannot tell gets two). Raises TypeError starting with `where` for anything
// else, a callable that cannot take two positional arguments included.
class ProgressCallback {
public:
    ProgressCallback() = default;
    ProgressCallback(const py::object& progress, const std::string& where);
    bool given() const { return !callable_.is_none(); }
    // With the GIL.
    void operator()(const char* stage, double seconds, double fraction) const;

private:
    py::object callable_ = py::none();
    bool takesFraction_ = false;
};

// Runs work() on a worker thread (see the top) and returns when it is done,
// rethrowing its exception on the calling thread. `progress` is called from
// the calling thread with the GIL about every kPollMilliseconds with the
// stage and fraction that `where` (written by the work) holds and the
// seconds since the start, and once more as ("done", seconds, 1.0) when the
// work has succeeded. Call with the GIL held; `keepAlive` is held for as
// long as the worker runs. Raises KeyboardInterrupt (or the callback's
// exception) when interrupted.
void runInterruptibly(const std::function<void()>& work, std::shared_ptr<const LabelProgress> where,
                      const ProgressCallback& progress, PythonReferences keepAlive);
// The same without a progress callback.
void runInterruptibly(const std::function<void()>& work, PythonReferences keepAlive);

}  // namespace glccl::python

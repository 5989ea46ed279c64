#pragma once
// Arrays in CUDA device memory (CuPy, torch, any object with
// __cuda_array_interface__ or a CUDA DLPack producer), labeled where they
// are by the cuda backend (glccl::cuda::ImageLabeler): no copy to the host,
// labels returned as a uint32 array of the input's kind on the same device
// (torch in, torch out; CuPy otherwise).
//
// Offered only in a module built with CUDA (GLCCL_HAVE_CUDA); elsewhere a
// device array is a TypeError that says so.

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glccl/backend.hpp"
#include "glccl/types.hpp"

// cudaStream_t is a CUstream_st*.
struct CUstream_st;

namespace glccl::python {

namespace py = pybind11;

// Whether `object` is in CUDA device memory: it exports
// __cuda_array_interface__ (CuPy, torch, Numba), or it is a DLPack producer
// (__dlpack__, __dlpack_device__: torch, JAX) whose device is CUDA.
bool isDeviceArray(const py::handle& object);

// Whether `object` is a DLPack producer in host memory that is not a numpy
// array (numpy.from_dlpack takes it).
bool isHostDlpack(const py::handle& object);

// Whether this module was built with the CUDA path.
bool builtWithCuda();

// One cuda ImageLabeler per CUDA device, kept from call to call so that
// arrays of a size seen before allocate nothing on the device; its own lock
// makes it usable from several threads (calls run one at a time).
class DeviceLabelers {
public:
    DeviceLabelers();
    ~DeviceLabelers();
    DeviceLabelers(const DeviceLabelers&) = delete;
    DeviceLabelers& operator=(const DeviceLabelers&) = delete;

    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Labels a device array: 2-D (H, W) or (H, W, 1), or a volume (D, H, W), of
// bool or unsigned integers of 8 to 64 bits (signed ones under segments and
// binary: their bits are the ids); (H, W, 3|4) of 8 to 32 bits for the
// threshold criterion. Rows may have any pitch; other layouts (Fortran
// order, a column step) are made contiguous with CuPy first, and an
// (H, W, 3) array is given an opaque alpha with CuPy. The labels go into
// `out` (a device uint32 array of shape (H, W), rows of any pitch) or, when
// it is None, into a new cupy.empty((H, W), cupy.uint32). The work is
// ordered after the input's stream (the interface's "stream" entry) and done
// when this returns. `backend` must be auto or cuda. Returns (labels, n) or
// (labels, n, table), the table in host numpy arrays.
// Errors: TypeError (a float or big-endian dtype, a signed one under a
// criterion that compares values, a module without CUDA, no CuPy to
// allocate the output), ValueError (shape, layout, memory that is not on a
// device, another backend, a criterion's number past the samples' range),
// RuntimeError (no CUDA device, the cuda backend's own refusals, e.g.
// 64-bit color).
// `ran`, if given, receives the backend that labeled it (its route's).
py::tuple labelDeviceArray(const py::handle& image, const py::handle& out, Connectivity connectivity,
                           const Criterion& criterion, Backend backend, bool returnTable,
                           DeviceLabelers& labelers, const std::string& where, Backend* ran = nullptr);

// A stack of N 2-D images in device memory, (N, H, W) of the dtypes above,
// or (N, H, W, 4) for threshold, labeled as one batch (one launch
// sequence) by the cuda backend, each image numbered 1..n_i in its own
// raster order. Returns (labels, counts) as arrays of the input's kind on
// its device (torch in, torch out; CuPy otherwise): labels (N, H, W)
// uint32, counts (N,) uint32, queued on the input's stream (the CuPy
// interface's "stream", torch's current stream), nothing waited for; with
// returnTable (labels, counts, tables), a list of one table dict per image
// (waited for).
py::tuple labelDeviceStack(const py::handle& stack, Connectivity connectivity, const Criterion& criterion,
                           Backend backend, bool returnTable, DeviceLabelers& labelers, const std::string& where);

// Registers glccl.label_batch (batch.cpp).
void bindLabelBatch(py::module_& module);

#if GLCCL_HAVE_CUDA
// What the entries on device arrays share (this file's, label_filters.cpp's).

// What __cuda_array_interface__ (version 2 or 3) or __dlpack__ says about
// one array.
struct DeviceView {
    py::object owner;  // the exporting object, alive while its memory is used
    std::uintptr_t data = 0;
    bool readonly = false;
    std::string typestr;                      // numpy's array-interface form: "<u4", "|i8"
    std::vector<py::ssize_t> shape, strides;  // strides in bytes, filled in for C order
    CUstream_st* stream = nullptr;            // the work to order after; null: none given
    bool fromDlpack = false;                  // read through __dlpack__ (owner is the capsule's holder)
};

// The view of a device array: torch tensors and other DLPack producers
// through __dlpack__ (torch's current stream is the one ordered after), the
// rest through __cuda_array_interface__. `what` names the array in errors.
DeviceView readDeviceArray(const py::handle& object, const std::string& what, const std::string& where);

// Whether two device arrays may share memory: the ranges of bytes their
// elements span intersect (numpy's may_share_memory, on device pointers).
bool mayShareMemory(const DeviceView& a, const DeviceView& b);

// Whether the view's elements lie in C order with nothing between them
// (axes of extent 1 may have any stride; an empty array always does).
bool isCContiguous(const DeviceView& view);

// The view of a C-ordered copy of `array` (whose view is `view`) made on
// its device: torch's contiguous(), or CuPy's ascontiguousarray. The copy
// is ordered after view.stream, and the new view keeps that stream.
DeviceView contiguousCopy(const py::handle& array, const DeviceView& view, int device, const std::string& what,
                          const std::string& where);

// The CUDA device holding `pointer`; ValueError for host memory.
int deviceOf(std::uintptr_t pointer, const std::string& what, const std::string& where);

// The device of an array: deviceOf its data, or, for an empty array, whose
// pointer may be null, the device its __dlpack_device__ names (else the
// current device).
int deviceOfArray(const py::handle& object, const DeviceView& view, const std::string& what,
                  const std::string& where);

// Makes `device` current on this thread for the scope, as the CUDA work on
// that device's arrays needs, and restores the caller's device afterwards.
class CurrentDevice {
public:
    explicit CurrentDevice(int device);
    ~CurrentDevice();
    CurrentDevice(const CurrentDevice&) = delete;
    CurrentDevice& operator=(const CurrentDevice&) = delete;

private:
    int previous_ = -1;
};

// An array of `shape` and `dtype` (numpy's name: uint32, int64, ...) of
// like's kind, on `device`: torch in, torch out (its caching allocator);
// CuPy (its memory pool) for the rest. TypeError without CuPy, or for a
// torch without that dtype.
py::object emptyLabels(const py::handle& like, const std::vector<py::ssize_t>& shape, int device,
                       const std::string& where, const std::string& dtype = "uint32");

// The view of an array glccl writes (labels, counts): torch tensors by their
// own attributes (their __cuda_array_interface__ does not take uint32).
DeviceView writableView(const py::handle& array, const std::string& what, const std::string& where);

// "(3, 4)", "(5,)", as Python writes a shape.
std::string shapeText(const std::vector<py::ssize_t>& shape);
#endif

// The labelers glccl.label() shares (never destroyed: CUDA tears itself down
// at exit before static destructors would run).
DeviceLabelers& sharedDeviceLabelers();

}  // namespace glccl::python

#include "device_arrays.hpp"

#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "arguments.hpp"
#include "label_arrays.hpp"

#if GLCCL_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "glccl/engine.hpp"
#include "glccl/error.hpp"
#include "glccl/route.hpp"
#include "glccl/session.hpp"
#endif

namespace glccl::python {

namespace {

// DLPack's device types for memory a CUDA kernel reads.
constexpr int kDLCUDA = 2;
constexpr int kDLCUDAManaged = 13;

// The (device type, device id) an object's __dlpack_device__ reports, or
// (-1, -1) when it has none.
std::pair<int, int> dlpackDevice(const py::handle& object) {
    if (!py::hasattr(object, "__dlpack__") || !py::hasattr(object, "__dlpack_device__")) return {-1, -1};
    try {
        const py::tuple device = object.attr("__dlpack_device__")();
        return {device[0].cast<int>(), device[1].cast<int>()};
    } catch (const py::error_already_set&) {
        return {-1, -1};
    } catch (const py::cast_error&) {
        return {-1, -1};
    }
}

}  // namespace

bool isDeviceArray(const py::handle& object) {
    if (py::hasattr(object, "__cuda_array_interface__")) return true;
    const int type = dlpackDevice(object).first;
    return type == kDLCUDA || type == kDLCUDAManaged;
}

bool isHostDlpack(const py::handle& object) {
    return !py::isinstance<py::array>(object) && dlpackDevice(object).first == 1;  // kDLCPU
}

#if !GLCCL_HAVE_CUDA

struct DeviceLabelers::Impl {};
DeviceLabelers::DeviceLabelers() = default;
DeviceLabelers::~DeviceLabelers() = default;

bool builtWithCuda() { return false; }

py::tuple labelDeviceArray(const py::handle&, const py::handle&, Connectivity, const Criterion&, Backend, bool,
                           DeviceLabelers&, const std::string& where, Backend*) {
    throw py::type_error(where + ": this glccl module was built without CUDA, so it does not take device arrays "
                                 "(__cuda_array_interface__, e.g. CuPy); pass a numpy array (cupy.asnumpy(a)) or "
                                 "rebuild glccl with a CUDA compiler");
}

py::tuple labelDeviceStack(const py::handle&, Connectivity, const Criterion&, Backend, bool, DeviceLabelers&,
                           const std::string& where) {
    throw py::type_error(where + ": this glccl module was built without CUDA, so it does not take device arrays "
                                 "(CuPy, torch); pass a numpy array or rebuild glccl with a CUDA compiler");
}

#else

// A Session of its own: device arrays are routed and labeled under this
// object's lock, never waiting for the host calls of the process's Session,
// and it makes no GL context (no engine that reads device memory needs one).
struct DeviceLabelers::Impl {
    std::mutex mutex;
    Session session{sessionWithoutContext()};

    static Session::Options sessionWithoutContext() {
        Session::Options options;
        options.noContext = "device arrays are labeled without a GL context";
        return options;
    }
};
DeviceLabelers::DeviceLabelers() : impl_(std::make_unique<Impl>()) {}
DeviceLabelers::~DeviceLabelers() = default;

bool builtWithCuda() { return true; }

namespace {

DeviceView readInterface(const py::handle& object, const std::string& what, const std::string& where) {
    DeviceView view;
    view.owner = py::reinterpret_borrow<py::object>(object);
    const py::dict cai = object.attr("__cuda_array_interface__");
    if (cai.contains("mask") && !cai["mask"].is_none())
        throw py::value_error(where + ": " + what + " is a masked device array; pass one without a mask");
    const auto data = cai["data"].cast<py::tuple>();
    view.data = data[0].cast<std::uintptr_t>();
    view.readonly = data[1].cast<bool>();
    view.typestr = cai["typestr"].cast<std::string>();
    for (const auto side : cai["shape"].cast<py::tuple>()) view.shape.push_back(side.cast<py::ssize_t>());
    const int itemSize = view.typestr.size() > 2 ? std::stoi(view.typestr.substr(2)) : 1;
    if (cai.contains("strides") && !cai["strides"].is_none()) {
        for (const auto step : cai["strides"].cast<py::tuple>()) view.strides.push_back(step.cast<py::ssize_t>());
    } else {
        view.strides.assign(view.shape.size(), itemSize);
        for (std::size_t i = view.shape.size(); i-- > 1;) view.strides[i - 1] = view.strides[i] * view.shape[i];
    }
    // Version 3: 1 and 2 are the legacy and per-thread default streams, which
    // is also what those values mean as a cudaStream_t; 0 is not allowed.
    if (cai.contains("stream") && !cai["stream"].is_none())
        view.stream = reinterpret_cast<CUstream_st*>(cai["stream"].cast<std::uintptr_t>());
    return view;
}

// DLPack (v0.x capsules "dltensor"): the C structures of dlpack.h, whose
// layout the protocol fixes.
struct DLDevice {
    std::int32_t deviceType;
    std::int32_t deviceId;
};
struct DLDataType {
    std::uint8_t code;  // 1 unsigned int, 6 bool
    std::uint8_t bits;
    std::uint16_t lanes;
};
struct DLTensor {
    void* data;
    DLDevice device;
    std::int32_t ndim;
    DLDataType dtype;
    std::int64_t* shape;
    std::int64_t* strides;  // in elements; null: C order
    std::uint64_t byteOffset;
};
struct DLManagedTensor {
    DLTensor tensor;
    void* managerContext;
    void (*deleter)(DLManagedTensor*);
};

// Owns a consumed DLPack tensor: its deleter runs when the last reference
// to this object goes (the producer keeps the memory until then).
struct DlpackHolder {
    DLManagedTensor* managed = nullptr;
    ~DlpackHolder() {
        if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
    }
};

bool isTorchTensor(const py::handle& object) {
    const std::string module = py::str(py::type::of(object).attr("__module__"));
    return module.rfind("torch", 0) == 0;
}

// The stream a torch tensor's work is queued on now (torch's current stream
// on its device).
CUstream_st* torchStream(const py::handle& tensor) {
    const py::module_ torch = py::module_::import("torch");
    const py::object stream = torch.attr("cuda").attr("current_stream")(tensor.attr("device"));
    return reinterpret_cast<CUstream_st*>(stream.attr("cuda_stream").cast<std::uintptr_t>());
}

// What __dlpack__(stream=...) hands over: the producer orders its pending
// work before `stream` (the stream glccl's work then waits for).
DeviceView readDlpack(const py::handle& object, CUstream_st* stream, const std::string& what,
                      const std::string& where) {
    // 1 is the legacy default stream: DLPack's value for "the default
    // stream"; 0 is not allowed.
    const std::uintptr_t streamValue = stream == nullptr ? 1 : reinterpret_cast<std::uintptr_t>(stream);
    py::object capsuleObject = object.attr("__dlpack__")(py::arg("stream") = streamValue);
    if (!PyCapsule_IsValid(capsuleObject.ptr(), "dltensor"))
        throw py::type_error(where + ": " + what + "'s __dlpack__ did not return a DLPack capsule (\"dltensor\")");
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsuleObject.ptr(), "dltensor"));
    PyCapsule_SetName(capsuleObject.ptr(), "used_dltensor");  // consumed: the capsule no longer frees it
    auto holder = std::make_shared<DlpackHolder>();
    holder->managed = managed;

    const DLTensor& tensor = managed->tensor;
    DeviceView view;
    view.owner = py::capsule(new std::shared_ptr<DlpackHolder>(holder),
                             [](void* p) { delete static_cast<std::shared_ptr<DlpackHolder>*>(p); });
    view.fromDlpack = true;
    view.data = reinterpret_cast<std::uintptr_t>(tensor.data) + std::uintptr_t(tensor.byteOffset);
    view.readonly = false;
    const DLDataType dtype = tensor.dtype;
    if (dtype.lanes != 1 || dtype.bits % 8 != 0)
        throw py::type_error(where + ": " + what + " has a DLPack dtype of " + std::to_string(dtype.bits) +
                             " bits in " + std::to_string(dtype.lanes) + " lanes; expected bool or an integer dtype");
    const int itemSize = dtype.bits / 8;
    view.typestr = std::string(dtype.code == 6 ? "|b" : dtype.code == 1 ? "|u" : dtype.code == 0 ? "|i" : "|f") +
                   std::to_string(itemSize);
    for (int i = 0; i < tensor.ndim; ++i) view.shape.push_back(py::ssize_t(tensor.shape[i]));
    view.strides.assign(view.shape.size(), itemSize);
    if (tensor.strides != nullptr) {
        for (int i = 0; i < tensor.ndim; ++i) view.strides[std::size_t(i)] = py::ssize_t(tensor.strides[i]) * itemSize;
    } else {
        for (std::size_t i = view.shape.size(); i-- > 1;) view.strides[i - 1] = view.strides[i] * view.shape[i];
    }
    view.stream = stream == nullptr ? reinterpret_cast<CUstream_st*>(std::uintptr_t(1)) : stream;
    return view;
}

}  // namespace

DeviceView readDeviceArray(const py::handle& object, const std::string& what, const std::string& where) {
    if (isTorchTensor(object)) return readDlpack(object, torchStream(object), what, where);
    if (py::hasattr(object, "__cuda_array_interface__")) return readInterface(object, what, where);
    return readDlpack(object, nullptr, what, where);
}

int deviceOf(std::uintptr_t pointer, const std::string& what, const std::string& where) {
    cudaPointerAttributes attributes{};
    const cudaError_t status = cudaPointerGetAttributes(&attributes, reinterpret_cast<const void*>(pointer));
    if (status != cudaSuccess) {
        cudaGetLastError();  // clear it: it is reported here, not by the next CUDA call
        throw py::value_error(where + ": " + what + " is not CUDA memory (" + cudaGetErrorName(status) + ")");
    }
    if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged)
        throw py::value_error(where + ": " + what + " is not in device memory");
    return attributes.device;
}

int deviceOfArray(const py::handle& object, const DeviceView& view, const std::string& what,
                  const std::string& where) {
    if (view.data != 0) return deviceOf(view.data, what, where);
    const int device = dlpackDevice(object).second;
    if (device >= 0) return device;
    int current = 0;
    if (cudaGetDevice(&current) != cudaSuccess) {
        cudaGetLastError();
        current = 0;
    }
    return current;
}

CurrentDevice::CurrentDevice(int device) {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
    if (previous_ != device) cudaSetDevice(device);
}

CurrentDevice::~CurrentDevice() {
    if (previous_ >= 0) cudaSetDevice(previous_);
}

namespace {

py::module_ importCupy(const std::string& why, const std::string& where) {
    try {
        return py::module_::import("cupy");
    } catch (const py::error_already_set&) {
        throw py::type_error(where + ": " + why + " needs CuPy, which cannot be imported here");
    }
}

// `call()` with `device` as CuPy's current device.
template <class F>
py::object onCupyDevice(const py::module_& cupy, int device, F&& call) {
    py::object scope = cupy.attr("cuda").attr("Device")(device);
    scope.attr("__enter__")();
    py::object result;
    try {
        result = call();
    } catch (...) {
        scope.attr("__exit__")(py::none(), py::none(), py::none());
        throw;
    }
    scope.attr("__exit__")(py::none(), py::none(), py::none());
    return result;
}

// Bytes of one element of the view's dtype.
int itemSizeOf(const DeviceView& view) {
    return view.typestr.size() > 2 ? std::stoi(view.typestr.substr(2)) : 1;
}

// Rows of packed pixels (planes samples each, channels consecutive), any
// pitch: what labelDevice reads in place.
bool hasPackedRows(const DeviceView& view, int planes) {
    const py::ssize_t item = itemSizeOf(view);
    const bool packedPixels =
        view.strides[1] == planes * item && (view.shape.size() == 2 || view.strides[2] == item);
    return packedPixels && view.strides[0] >= view.shape[1] * planes * item;
}

}  // namespace

bool mayShareMemory(const DeviceView& a, const DeviceView& b) {
    const auto range = [](const DeviceView& view) {
        std::uintptr_t first = view.data, end = view.data;
        for (std::size_t axis = 0; axis < view.shape.size(); ++axis) {
            if (view.shape[axis] == 0) return std::pair<std::uintptr_t, std::uintptr_t>(first, first);
            const py::ssize_t step = (view.shape[axis] - 1) * view.strides[axis];
            if (step < 0) first -= std::uintptr_t(-step);
            else end += std::uintptr_t(step);
        }
        return std::pair<std::uintptr_t, std::uintptr_t>(first, end + std::uintptr_t(itemSizeOf(view)));
    };
    const auto [aFirst, aEnd] = range(a);
    const auto [bFirst, bEnd] = range(b);
    return aFirst < aEnd && bFirst < bEnd && aFirst < bEnd && bFirst < aEnd;
}

namespace {

// A C-ordered copy of a device array in memory of its own (CuPy's copy(),
// torch's clone()), even where the array is C-ordered already.
DeviceView freshCopy(const py::handle& array, const DeviceView& view, int device, const std::string& what,
                     const std::string& where) {
    if (isTorchTensor(array))
        return readDlpack(array.attr("contiguous")().attr("clone")(), view.stream, what, where);
    const py::module_ cupy = importCupy("an image that shares memory with out", where);
    DeviceView copy = readInterface(
        onCupyDevice(cupy, device, [&] { return cupy.attr("asarray")(view.owner).attr("copy")(); }), what, where);
    if (!copy.stream) copy.stream = view.stream;
    return copy;
}

}  // namespace

py::object emptyLabels(const py::handle& like, const std::vector<py::ssize_t>& shape, int device,
                       const std::string& where, const std::string& dtype) {
    py::tuple dims(shape.size());
    for (std::size_t i = 0; i < shape.size(); ++i) dims[i] = shape[i];
    if (isTorchTensor(like)) {
        const py::module_ torch = py::module_::import("torch");
        if (!py::hasattr(torch, dtype.c_str()))
            throw py::type_error(where + ": this torch has no " + dtype + " dtype for the labels (torch 2.3 or later)");
        return torch.attr("empty")(dims, py::arg("dtype") = torch.attr(dtype.c_str()),
                                   py::arg("device") = like.attr("device"));
    }
    const py::module_ cupy = importCupy(dtype == "uint32" ? "allocating the labels (or pass out=, a device uint32 array)"
                                                          : "allocating the labels",
                                        where);
    return onCupyDevice(cupy, device, [&] { return cupy.attr("empty")(dims, cupy.attr(dtype.c_str())); });
}

DeviceView writableView(const py::handle& array, const std::string& what, const std::string& where) {
    if (!isTorchTensor(array)) return readInterface(array, what, where);
    DeviceView view;
    view.owner = py::reinterpret_borrow<py::object>(array);
    view.data = array.attr("data_ptr")().cast<std::uintptr_t>();
    const std::string dtype = py::str(array.attr("dtype"));
    view.typestr = dtype == "torch.uint32" ? "<u4" : dtype;
    const int itemSize = array.attr("element_size")().cast<int>();
    for (const auto side : array.attr("shape")) view.shape.push_back(side.cast<py::ssize_t>());
    for (const auto step : array.attr("stride")()) view.strides.push_back(step.cast<py::ssize_t>() * itemSize);
    return view;
}

bool isCContiguous(const DeviceView& view) {
    py::ssize_t step = view.typestr.size() > 2 ? std::stoi(view.typestr.substr(2)) : 1;
    for (std::size_t i = view.shape.size(); i-- > 0;) {
        if (view.shape[i] == 0) return true;
        if (view.shape[i] != 1 && view.strides[i] != step) return false;
        step *= view.shape[i];
    }
    return true;
}

DeviceView contiguousCopy(const py::handle& array, const DeviceView& view, int device, const std::string& what,
                          const std::string& where) {
    if (isTorchTensor(array)) return readDlpack(array.attr("contiguous")(), view.stream, what, where);
    const py::module_ cupy = importCupy("a device array that is not in C order", where);
    DeviceView packed = readInterface(onCupyDevice(cupy, device, [&] {
                                          return cupy.attr("ascontiguousarray")(cupy.attr("asarray")(view.owner));
                                      }),
                                      what, where);
    if (!packed.stream) packed.stream = view.stream;
    return packed;
}

std::string shapeText(const std::vector<py::ssize_t>& shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + (shape.size() == 1 ? ",)" : ")");
}

namespace {

// The samples a device array holds, as glccl describes them: unsigned
// integers (and bool) are samples of their width; a signed integer dtype is
// taken as the unsigned samples of its bits where the criterion reads only
// equality and zero (segments, binary as nonzero), so that negative ids are
// ids like any other (skimage.measure.label's reading of them); 0 (no
// samples any engine compares) otherwise, and for floats.
int deviceSampleBits(const DeviceView& view, const Criterion& criterion) {
    const int bits = 8 * itemSizeOf(view);
    const char kind = view.typestr.size() > 1 ? view.typestr[1] : '?';
    if (kind == 'u' || kind == 'b') return bits;
    const bool bitsSuffice = criterion.kind == Criterion::Kind::Segments ||
                             (criterion.kind == Criterion::Kind::Binary && criterion.level == 0);
    return kind == 'i' && bitsSuffice ? bits : 0;
}

// The options of a labeling of a device array: its backend, connectivity
// and criterion, the rest as LabelOptions' defaults.
LabelOptions labelOptionsOf(Backend backend, Connectivity connectivity, const Criterion& criterion) {
    LabelOptions options;
    options.backend = backend;
    options.connectivity = connectivity;
    options.criterion = criterion;
    return options;
}

// The route of a device array here (the labelers' Session asks the router,
// which reads the engines' declarations), its refusals raised as the
// Python error of their kind: another backend than one that reads device
// memory (ValueError), samples the engine does not compare (TypeError, with
// the array's dtype), the rest (RuntimeError: no CUDA device, a criterion
// the engine does not take).
Route routeDeviceArray(DeviceLabelers& labelers, const DeviceView& input, const Shape& shape, int channels,
                       Connectivity connectivity, const Criterion& criterion, Backend backend,
                       const std::string& where) {
    if (input.typestr.size() > 2 && input.typestr[0] == '>' && itemSizeOf(input) > 1)
        throw py::type_error(where + ": the device array is big-endian (typestr '" + input.typestr +
                             "'); pass one in the machine's byte order");
    const LabelOptions options = labelOptionsOf(backend, connectivity, criterion);
    // Floats, and signed integers under criteria that compare values, are
    // described by a width no engine takes, so the router refuses them.
    const InputDescription described =
        InputDescription::cudaDevice(shape, channels, deviceSampleBits(input, criterion));
    std::string why;
    {
        py::gil_scoped_release noGil;
        std::lock_guard<std::mutex> lock(labelers.impl_->mutex);
        try {
            return labelers.impl_->session.route(described, options);
        } catch (const Error& error) {
            why = where + ": " + userMessage(error.what());
        }
    }
    {
        if (backend != Backend::Auto && !capabilitiesOf(backend, nullptr).reaches(Residence::CudaDevice))
            throw py::value_error(why + "; device arrays (__cuda_array_interface__, DLPack) are labeled by the cuda "
                                        "backend, numpy arrays by every backend");
        const EngineCapabilities cuda = capabilitiesOf(Backend::Cuda, nullptr);
        const bool signedIds = input.typestr.size() > 1 && input.typestr[1] == 'i';
        if (signedIds && described.sampleBits == 0)
            throw py::type_error(why + " (a device array of typestr '" + input.typestr +
                                 "': signed integers are taken as segment ids and by binary, which read only "
                                 "equality and zero; '" + criterion.toString() +
                                 "' compares values, which are unsigned: pass an unsigned dtype)");
        if (!cuda.takesSampleBits(described.sampleBits)) {
            // The dtypes of the samples it takes, as numpy names them.
            std::string dtypes;
            for (const int bits : cuda.sampleBits)
                dtypes += (dtypes.empty() ? "" : ", ") + std::string(bits == 8 ? "bool, " : "") + "uint" +
                          std::to_string(bits);
            throw py::type_error(why + " (a device array of typestr '" + input.typestr + "'; device arrays are " +
                                 dtypes + ", and int8 to int64 for segments and binary)");
        }
        throw std::runtime_error(why);
    }
}

}  // namespace

py::tuple labelDeviceArray(const py::handle& image, const py::handle& out, Connectivity connectivity,
                           const Criterion& criterion, Backend backend, bool returnTable, DeviceLabelers& labelers,
                           const std::string& where, Backend* ran) {
    DeviceView input = readDeviceArray(image, "the image", where);
    const bool threshold = criterion.kind == Criterion::Kind::Threshold;
    const bool volume = dimensionsOf(connectivity) == 3;
    const std::size_t ndim = input.shape.size();
    if (volume && ndim != 3)
        throw py::value_error(where + ": a device volume must be 3-D (D, H, W); got " + std::to_string(ndim) + "-D");
    if (ndim != 2 && ndim != 3)
        throw py::value_error(where + ": a device image must be 2-D (H, W), or (H, W, 3|4) for threshold; got " +
                              std::to_string(ndim) + "-D");
    const int planes = ndim == 3 && !volume ? int(input.shape[2]) : 1;
    if (planes != 1 && planes != 3 && planes != 4)
        throw py::value_error(where + ": a 3-D device image must be (H, W, 1), (H, W, 3) or (H, W, 4)");
    if (planes > 1 && !threshold)
        throw py::value_error(where + ": a color device image is only for criterion=(\"threshold\", T); binary "
                                      "and segments take a 2-D (H, W) image");
    for (const py::ssize_t side : input.shape) {
        if (side == 0) throw py::value_error(where + ": image is empty (its shape has a zero)");
        if (side > INT_MAX) throw py::value_error(where + ": the device array's sides must fit an int");
    }
    const int depth = volume ? int(input.shape[0]) : 1;
    const std::size_t rowAxis = volume ? 1 : 0;
    const int height = int(input.shape[rowAxis]), width = int(input.shape[rowAxis + 1]);
    // The route, once: which engine reads the array, from the engines'
    // declarations.
    const Shape shape = volume ? Shape::volume(width, height, depth) : Shape::image(width, height);
    const Route route =
        routeDeviceArray(labelers, input, shape, planes == 1 ? 1 : 4, connectivity, criterion, backend, where);
    if (ran) *ran = route.backend;
    const int sampleBits = deviceSampleBits(input, criterion);
    checkCriterionForSampleBits(criterion, sampleBits, where);
    const int device = deviceOf(input.data, "the image", where);

    // Layouts the labeler cannot read in place: copied on the device, once.
    const py::ssize_t item = itemSizeOf(input);
    const bool packedPixels = volume ? input.strides[2] == item && input.strides[1] >= width * item &&
                                           input.strides[0] >= input.strides[1] * height
                                     : hasPackedRows(input, planes);
    if (planes == 3) {
        if (isTorchTensor(image))
            throw py::value_error(where + ": an (H, W, 3) torch image is not taken; pad it to (H, W, 4)");
        CUstream_st* stream = input.stream;
        const py::module_ cupy = importCupy("a device image that is not row-major with packed pixels", where);
        py::object rgba = onCupyDevice(cupy, device, [&]() -> py::object {
            // bool as uint8, as host images take it; alpha the dtype's largest value.
            const py::object color = cupy.attr("asarray")(input.owner);
            const bool flags = input.typestr.size() > 1 && input.typestr[1] == 'b';
            const py::object dtype = flags ? cupy.attr("uint8") : color.attr("dtype");
            py::object padded = cupy.attr("empty")(py::make_tuple(height, width, 4), dtype);
            padded[py::make_tuple(py::ellipsis(), py::slice(0, 3, 1))] = color;
            // Opaque alpha: equal everywhere, it never separates neighbours.
            padded[py::make_tuple(py::ellipsis(), 3)] = cupy.attr("iinfo")(dtype).attr("max");
            return padded;
        });
        input = readInterface(rgba, "the image", where);
        if (!input.stream) input.stream = stream;
    } else if (!packedPixels) {
        input = contiguousCopy(image, input, device, "the image", where);
    }
    const int channels = planes == 1 ? 1 : 4;

    std::vector<py::ssize_t> labelShape = {height, width};
    if (volume) labelShape.insert(labelShape.begin(), depth);
    py::object labelsObject;
    if (out.is_none()) {
        labelsObject = emptyLabels(image, labelShape, device, where);
    } else {
        if (!isDeviceArray(out))
            throw py::type_error(where + ": out must be a device uint32 array (__cuda_array_interface__) for a "
                                         "device image");
        labelsObject = py::reinterpret_borrow<py::object>(out);
    }
    const DeviceView labels = writableView(labelsObject, "out", where);
    if (labels.typestr != "<u4" && labels.typestr != "|u4")
        throw py::type_error(where + ": out must have dtype uint32, not typestr '" + labels.typestr + "'");
    if (labels.shape != labelShape)
        throw py::value_error(where + ": out must have the image's shape " + shapeText(labelShape));
    if (labels.readonly) throw py::value_error(where + ": out is read-only");
    const std::size_t last = labels.strides.size() - 1;
    if (labels.strides[last] != 4 || labels.strides[last - 1] % 4 != 0 ||
        labels.strides[last - 1] < py::ssize_t(width) * 4 ||
        (volume && (labels.strides[0] % 4 != 0 || labels.strides[0] < labels.strides[1] * height)))
        throw py::value_error(where + ": out must hold rows of packed uint32 labels (C order, any row pitch)");
    if (deviceOf(labels.data, "out", where) != device)
        throw py::value_error(where + ": out is on another device than the image");
    // Labels written over pixels still to be read would be read as pixels.
    if (mayShareMemory(input, labels)) input = freshCopy(image, input, device, "the image", where);

    const DeviceVolume pixels{reinterpret_cast<const void*>(input.data),
                              std::size_t(input.strides[rowAxis]),
                              volume ? std::size_t(input.strides[0]) : 0,
                              width,
                              height,
                              depth,
                              channels,
                              sampleBits};
    const DeviceVolumeLabels target{reinterpret_cast<std::uint32_t*>(labels.data),
                                    std::size_t(labels.strides[rowAxis]),
                                    volume ? std::size_t(labels.strides[0]) : 0};
    CUstream_st* stream = input.stream ? input.stream : labels.stream;
    std::vector<Component> table;
    std::size_t count = 0;
    {
        py::gil_scoped_release noGil;
        std::lock_guard<std::mutex> lock(labelers.impl_->mutex);
        CurrentDevice current(device);
        Engine& engine = labelers.impl_->session.deviceEngine(route, device);
        const LabelOptions options = labelOptionsOf(route.backend, connectivity, criterion);
        if (returnTable) {
            table = *engine.labelDevice(pixels, target, options, stream, nullptr, true, nullptr);
            count = table.size();
        } else {
            // No table: the count is the one value that comes back (waited for).
            engine.labelDevice(pixels, target, options, stream, nullptr, false, nullptr);
            count = engine.deviceCounts().front();
        }
    }
    if (!returnTable) return py::make_tuple(std::move(labelsObject), count);
    return labelResult(std::move(labelsObject), table, true, volume);
}

py::tuple labelDeviceStack(const py::handle& stack, Connectivity connectivity, const Criterion& criterion,
                           Backend backend, bool returnTable, DeviceLabelers& labelers, const std::string& where) {
    if (dimensionsOf(connectivity) != 2)
        throw py::value_error(where + ": a batch is of 2-D images: connectivity 4 or 8");
    DeviceView input = readDeviceArray(stack, "the stack", where);
    const bool threshold = criterion.kind == Criterion::Kind::Threshold;
    const std::size_t ndim = input.shape.size();
    if (ndim != 3 && !(ndim == 4 && threshold && input.shape[3] == 4))
        throw py::value_error(where + ": a device stack must be (N, H, W), or (N, H, W, 4) for threshold; got " +
                              shapeText(input.shape));
    for (const py::ssize_t side : input.shape) {
        if (side > INT_MAX) throw py::value_error(where + ": the stack's sides must fit an int");
    }
    const int channels = ndim == 4 ? 4 : 1;
    const int images = int(input.shape[0]), height = int(input.shape[1]), width = int(input.shape[2]);
    // One route for the batch: every image has this shape.
    const Route route = routeDeviceArray(labelers, input, Shape::image(width, height), channels, connectivity, criterion,
                                         backend, where);
    const int sampleBits = deviceSampleBits(input, criterion);
    checkCriterionForSampleBits(criterion, sampleBits, where);
    const int device = deviceOf(input.data, "the stack", where);
    const py::ssize_t item = itemSizeOf(input);
    if (input.strides[2] != channels * item || (ndim == 4 && input.strides[3] != item) ||
        input.strides[1] < py::ssize_t(width) * channels * item || input.strides[0] < input.strides[1] * height)
        input = contiguousCopy(stack, input, device, "the stack", where);

    py::object labelsObject = emptyLabels(stack, {images, height, width}, device, where);
    py::object countsObject = emptyLabels(stack, {images}, device, where);
    if (images == 0 || height == 0 || width == 0) {
        // Nothing to label: every count is 0.
        if (isTorchTensor(stack)) {
            countsObject.attr("zero_")();
        } else {
            countsObject.attr("fill")(0);
        }
        if (!returnTable) return py::make_tuple(labelsObject, countsObject);
        py::list tables;
        for (int i = 0; i < images; ++i) tables.append(tableDict({}));
        return py::make_tuple(labelsObject, countsObject, tables);
    }
    const DeviceView labels = writableView(labelsObject, "the labels", where);
    const DeviceView counts = writableView(countsObject, "the counts", where);
    const DeviceVolume pixels{reinterpret_cast<const void*>(input.data),
                              std::size_t(input.strides[1]),
                              std::size_t(input.strides[0]),
                              width,
                              height,
                              images,
                              channels,
                              sampleBits};
    const DeviceVolumeLabels target{reinterpret_cast<std::uint32_t*>(labels.data), std::size_t(labels.strides[1]),
                                    std::size_t(labels.strides[0])};
    CUstream_st* stream = input.stream;
    std::vector<std::vector<Component>> tables;
    {
        py::gil_scoped_release noGil;
        std::lock_guard<std::mutex> lock(labelers.impl_->mutex);
        CurrentDevice current(device);
        Engine& engine = labelers.impl_->session.deviceEngine(route, device);
        const LabelOptions options = labelOptionsOf(route.backend, connectivity, criterion);
        engine.labelDevice(pixels, target, options, stream, reinterpret_cast<std::uint32_t*>(counts.data), false,
                           nullptr);
        if (returnTable) {
            for (int i = 0; i < images; ++i) tables.push_back(engine.deviceTable(i));
        }
    }
    if (!returnTable) return py::make_tuple(labelsObject, countsObject);
    py::list tableList;
    for (const auto& table : tables) tableList.append(tableDict(table));
    return py::make_tuple(labelsObject, countsObject, tableList);
}

#endif

DeviceLabelers& sharedDeviceLabelers() {
    static DeviceLabelers* labelers = new DeviceLabelers;  // leaked on purpose (see the header)
    return *labelers;
}

}  // namespace glccl::python

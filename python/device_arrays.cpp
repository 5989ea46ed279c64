#include "device_arrays.hpp"

#include <climits>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "arguments.hpp"
#include "label_arrays.hpp"

#if GLCCL_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "glccl/cuda_labeler.hpp"
#include "glccl/error.hpp"
#include "glccl/route.hpp"
#endif

namespace glccl::python {

bool isDeviceArray(const py::handle& object) { return py::hasattr(object, "__cuda_array_interface__"); }

#if !GLCCL_HAVE_CUDA

struct DeviceLabelers::Impl {};
DeviceLabelers::DeviceLabelers() = default;
DeviceLabelers::~DeviceLabelers() = default;

bool builtWithCuda() { return false; }

py::tuple labelDeviceArray(const py::handle&, const py::handle&, Connectivity, const Criterion&, Backend, bool,
                           DeviceLabelers&, const std::string& where) {
    throw py::type_error(where + ": this glccl module was built without CUDA, so it does not take device arrays "
                                 "(__cuda_array_interface__, e.g. CuPy); pass a numpy array (cupy.asnumpy(a)) or "
                                 "rebuild glccl with a CUDA compiler");
}

#else

struct DeviceLabelers::Impl {
    std::mutex mutex;
    std::map<int, std::unique_ptr<cuda::ImageLabeler>> byDevice;  // each works on one device
};
DeviceLabelers::DeviceLabelers() : impl_(std::make_unique<Impl>()) {}
DeviceLabelers::~DeviceLabelers() = default;

bool builtWithCuda() { return true; }

namespace {

// What __cuda_array_interface__ (version 2 or 3) says about one array.
struct DeviceView {
    py::object owner;  // the exporting object, alive while its memory is used
    std::uintptr_t data = 0;
    bool readonly = false;
    std::string typestr;
    std::vector<py::ssize_t> shape, strides;  // strides in bytes, filled in for C order
    CUstream_st* stream = nullptr;            // the work to order after; null: none given
};

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

// The CUDA device holding `pointer`; ValueError for host memory.
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

// Makes `device` current on this thread for the scope, as the ImageLabeler of
// that device needs, and restores the caller's device afterwards.
class CurrentDevice {
public:
    explicit CurrentDevice(int device) {
        if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
        if (previous_ != device) cudaSetDevice(device);
    }
    ~CurrentDevice() {
        if (previous_ >= 0) cudaSetDevice(previous_);
    }
    CurrentDevice(const CurrentDevice&) = delete;
    CurrentDevice& operator=(const CurrentDevice&) = delete;

private:
    int previous_ = -1;
};

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

bool isByteDtype(const std::string& typestr) {
    return typestr == "|u1" || typestr == "<u1" || typestr == "|b1" || typestr == "<b1";
}

// Rows of packed pixels (planes bytes each, channels consecutive), any pitch:
// what labelDevice reads in place.
bool hasPackedRows(const DeviceView& view, int planes) {
    const bool packedPixels = view.strides[1] == planes && (view.shape.size() == 2 || view.strides[2] == 1);
    return packedPixels && view.strides[0] >= view.shape[1] * planes;
}

}  // namespace

py::tuple labelDeviceArray(const py::handle& image, const py::handle& out, Connectivity connectivity,
                           const Criterion& criterion, Backend backend, bool returnTable, DeviceLabelers& labelers,
                           const std::string& where) {
    // The router says which engine reads CUDA device memory (cuda, where it
    // runs); the criterion and the samples are checked below, in words
    // about arrays.
    InputDescription onDevice;
    onDevice.residence = Residence::CudaDevice;
    LabelOptions routed;
    routed.backend = backend;
    routed.connectivity = connectivity;
    try {
        chooseRoute(onDevice, routed, nullptr);
    } catch (const Error& error) {
        if (backend != Backend::Auto && backend != Backend::Cuda)
            throw py::value_error(where + ": device arrays (__cuda_array_interface__) are labeled by the cuda "
                                          "backend; backend='" + backendName(backend) + "' takes numpy arrays");
        throw std::runtime_error(where + ": " + error.what());
    }

    DeviceView input = readInterface(image, "the image", where);
    if (!isByteDtype(input.typestr))
        throw py::type_error(where + ": a device image must be bool or uint8 (the cuda backend reads 8-bit "
                                     "samples), not typestr '" + input.typestr + "'");
    const bool threshold = criterion.kind == Criterion::Kind::Threshold;
    const std::size_t ndim = input.shape.size();
    if (ndim != 2 && ndim != 3)
        throw py::value_error(where + ": a device image must be 2-D (H, W), or (H, W, 3|4) for threshold; got " +
                              std::to_string(ndim) + "-D");
    const int planes = ndim == 3 ? int(input.shape[2]) : 1;
    if (planes != 1 && planes != 3 && planes != 4)
        throw py::value_error(where + ": a 3-D device image must be (H, W, 1), (H, W, 3) or (H, W, 4)");
    if (planes > 1 && !threshold)
        throw py::value_error(where + ": a color device image is only for criterion=(\"threshold\", T); binary "
                                      "and segments take a 2-D (H, W) image");
    if (input.shape[0] == 0 || input.shape[1] == 0)
        throw py::value_error(where + ": image is empty (its shape has a zero)");
    if (input.shape[0] > INT_MAX || input.shape[1] > INT_MAX)
        throw py::value_error(where + ": the device image's sides must fit an int");
    checkCriterionForSampleBits(criterion, 8, where);
    // The cuda kernels read binary as "nonzero" and would drop the level
    // without a word (glccl::Labeler's cuda backend refuses it likewise).
    if (criterion.kind == Criterion::Kind::Binary && criterion.level != 0)
        throw std::runtime_error(where + ": the cuda backend does not take a binary level (" + criterion.toString() +
                                 "); compare on the device first (labels of image > L with criterion \"binary\")");
    const int height = int(input.shape[0]), width = int(input.shape[1]);
    const int device = deviceOf(input.data, "the image", where);

    // Layouts labelDevice cannot read in place: copied on the device, once.
    if (planes == 3 || !hasPackedRows(input, planes)) {
        const py::module_ cupy = importCupy("a device image that is not row-major with packed pixels", where);
        py::object packed = onCupyDevice(cupy, device, [&]() -> py::object {
            py::object source = cupy.attr("asarray")(input.owner);
            if (planes != 3) return cupy.attr("ascontiguousarray")(source);
            py::object rgba = cupy.attr("empty")(py::make_tuple(height, width, 4), cupy.attr("uint8"));
            rgba[py::make_tuple(py::ellipsis(), py::slice(0, 3, 1))] = source;
            rgba[py::make_tuple(py::ellipsis(), 3)] = 255;  // opaque alpha: never separates neighbours
            return rgba;
        });
        CUstream_st* stream = input.stream;
        input = readInterface(packed, "the image", where);
        if (!input.stream) input.stream = stream;
    }
    const int channels = planes == 1 ? 1 : 4;

    py::object labelsObject;
    if (out.is_none()) {
        const py::module_ cupy = importCupy("allocating the labels (or pass out=, a device uint32 array)", where);
        labelsObject = onCupyDevice(cupy, device, [&] {
            return cupy.attr("empty")(py::make_tuple(height, width), cupy.attr("uint32"));
        });
    } else {
        if (!isDeviceArray(out))
            throw py::type_error(where + ": out must be a device uint32 array (__cuda_array_interface__) for a "
                                         "device image");
        labelsObject = py::reinterpret_borrow<py::object>(out);
    }
    const DeviceView labels = readInterface(labelsObject, "out", where);
    if (labels.typestr != "<u4" && labels.typestr != "|u4")
        throw py::type_error(where + ": out must have dtype uint32, not typestr '" + labels.typestr + "'");
    if (labels.shape.size() != 2 || labels.shape[0] != height || labels.shape[1] != width)
        throw py::value_error(where + ": out must have the image's shape (" + std::to_string(height) + ", " +
                              std::to_string(width) + ")");
    if (labels.readonly) throw py::value_error(where + ": out is read-only");
    if (labels.strides[1] != 4 || labels.strides[0] % 4 != 0 || labels.strides[0] < py::ssize_t(width) * 4)
        throw py::value_error(where + ": out must hold rows of packed uint32 labels (C order, any row pitch)");
    if (deviceOf(labels.data, "out", where) != device)
        throw py::value_error(where + ": out is on another device than the image");

    const cuda::DevicePixels pixels{reinterpret_cast<const void*>(input.data), std::size_t(input.strides[0]), width,
                                    height, channels};
    const cuda::DeviceLabels target{reinterpret_cast<std::uint32_t*>(labels.data), std::size_t(labels.strides[0])};
    CUstream_st* stream = input.stream ? input.stream : labels.stream;
    std::vector<Component> table;
    {
        py::gil_scoped_release noGil;
        DeviceLabelers::Impl& impl = *labelers.impl_;
        std::lock_guard<std::mutex> lock(impl.mutex);
        CurrentDevice current(device);
        std::unique_ptr<cuda::ImageLabeler>& labeler = impl.byDevice[device];
        if (!labeler) labeler = std::make_unique<cuda::ImageLabeler>();
        table = labeler->labelDevice(pixels, target, connectivity, criterion, stream);
    }
    return labelResult(std::move(labelsObject), table, returnTable);
}

#endif

DeviceLabelers& sharedDeviceLabelers() {
    static DeviceLabelers* labelers = new DeviceLabelers;  // leaked on purpose (see the header)
    return *labelers;
}

}  // namespace glccl::python

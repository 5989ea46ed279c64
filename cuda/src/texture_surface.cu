// copy_labels on a GL texture: a thread a label, through a surface object,
// neighbouring threads neighbouring pixels of one row. A texture's array is
// laid out in blocks, not rows; cudaMemcpy2DToArrayAsync fills it about
// three times slower than these stores do. (Reading the input through a
// surface is no faster than cudaMemcpy2DFromArrayAsync: both are bound by
// the rate of texel reads, one 8-bit sample each.)
#include "texture_surface.hpp"

namespace glccl::cuda {
namespace {

constexpr int kThreadsX = 32;
constexpr int kThreadsY = 8;

__global__ void __launch_bounds__(kThreadsX* kThreadsY)
    writeKernel(cudaSurfaceObject_t surface, const std::uint32_t* __restrict__ labels, int width, int height) {
    const int x = int(blockIdx.x) * kThreadsX + int(threadIdx.x);
    const int y = int(blockIdx.y) * kThreadsY + int(threadIdx.y);
    if (x >= width || y >= height) return;
    surf2Dwrite(labels[std::size_t(y) * std::size_t(width) + std::size_t(x)], surface,
                x * int(sizeof(std::uint32_t)), y);
}

}  // namespace

ArraySurface::ArraySurface(const CudaCheck& check, cudaArray_t array, cudaStream_t stream) : stream_(stream) {
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    check(cudaCreateSurfaceObject(&surface_, &resource), "cudaCreateSurfaceObject");
}

ArraySurface::~ArraySurface() {
    // Normally the stream is done already (the table waited for it); after
    // an error, the launches queued on it must not outlive the object.
    // Errors are ignored here: the call that failed reports its own.
    cudaStreamSynchronize(stream_);
    cudaDestroySurfaceObject(surface_);
}

void ArraySurface::write(const CudaCheck& check, const std::uint32_t* d_labels, int width, int height) const {
    const dim3 blocks(unsigned((width + kThreadsX - 1) / kThreadsX), unsigned((height + kThreadsY - 1) / kThreadsY));
    writeKernel<<<blocks, dim3(kThreadsX, kThreadsY), 0, stream_>>>(surface_, d_labels, width, height);
    check.launched("copyLabels", stream_);
}

}  // namespace glccl::cuda

#include "GpuDevice.h"

#include "CudaStatus.h"
#include "GpuAllocator.h"

#include <map>
#include <mutex>
#include <new>

namespace clab::gpu {
namespace {

// What one physical GPU needs for the whole process; created on first use, never freed.
struct PerGpuState {
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  GpuAllocator* allocator = nullptr;
  std::string description;
};

// TensorFlow's physical_device_desc, which placement logs and ListDevices show.
std::string DescribeGpu(int ordinal) {
  cudaDeviceProp props{};
  if (cudaGetDeviceProperties(&props, ordinal) != cudaSuccess) {
    cudaGetLastError();
    return absl::StrCat("device: ", ordinal);
  }
  char bus_id[32] = {0};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), ordinal) != cudaSuccess) cudaGetLastError();
  return absl::StrCat("device: ", ordinal, ", name: ", props.name, ", pci bus id: ", bus_id,
                      ", compute capability: ", props.major, ".", props.minor);
}

StatusOr<PerGpuState*> StateFor(int ordinal) {
  static std::mutex mu;
  static auto* states = new std::map<int, PerGpuState*>();
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = states->find(ordinal); it != states->end()) return it->second;

  const std::string where = absl::StrCat("GPU ", ordinal);
  CLAB_RETURN_IF_ERROR(FromCuda(cudaSetDevice(ordinal), absl::StrCat("cudaSetDevice(", ordinal, ")")));
  auto state = std::make_unique<PerGpuState>();
  // Non-blocking: the legacy default stream of other CUDA users in the process (a
  // benchmark's own cuBLAS calls) must not serialise with the engine's work.
  CLAB_RETURN_IF_ERROR(FromCuda(cudaStreamCreateWithFlags(&state->stream, cudaStreamNonBlocking),
                                absl::StrCat("cudaStreamCreate on ", where)));
  Status blas_status = FromCublas(cublasCreate(&state->blas), absl::StrCat("cublasCreate on ", where));
  if (!blas_status.ok()) {
    cudaStreamDestroy(state->stream);
    return blas_status;
  }
  CLAB_RETURN_IF_ERROR(
      FromCublas(cublasSetStream(state->blas, state->stream), absl::StrCat("cublasSetStream on ", where)));
  state->allocator = new GpuAllocator(ordinal);
  state->description = DescribeGpu(ordinal);
  PerGpuState* raw = state.release();
  states->emplace(ordinal, raw);
  return raw;
}

bool SameShapeAndType(const Tensor& a, const Tensor& b) {
  return a.IsInitialized() && a.dtype() == b.dtype() && a.shape() == b.shape();
}

Status CheckCopyable(const Tensor& t, const std::string& what) {
  if (!t.IsInitialized()) return errors::InvalidArgument(what, ": the tensor has no value");
  if (DataTypeSize(t.dtype()) == 0)
    return errors::Unimplemented(what, ": tensors of type ", DataTypeName(t.dtype()), " cannot live in GPU memory");
  return OkStatus();
}

}  // namespace

StatusOr<std::unique_ptr<GpuDevice>> GpuDevice::Create(const std::string& task_prefix, int local_id, int cuda_ordinal) {
  CLAB_ASSIGN_OR_RETURN(PerGpuState * state, StateFor(cuda_ordinal));
  const std::string name = absl::StrCat(task_prefix, "/device:GPU:", local_id);
  return std::unique_ptr<GpuDevice>(
      new GpuDevice(name, state->description, cuda_ordinal, state->stream, state->blas, state->allocator));
}

GpuDevice::GpuDevice(const std::string& full_name, std::string description, int cuda_ordinal, cudaStream_t stream,
                     cublasHandle_t blas, GpuAllocator* allocator)
    : Device(full_name, "GPU", std::move(description)), cuda_ordinal_(cuda_ordinal), stream_(stream), blas_(blas),
      allocator_(allocator) {}

GpuDevice::~GpuDevice() = default;

Allocator* GpuDevice::allocator() { return allocator_; }

Status GpuDevice::Activate() const {
  return FromCuda(cudaSetDevice(cuda_ordinal_), absl::StrCat("cudaSetDevice for ", name()));
}

Status GpuDevice::CopyHostToDevice(const Tensor& host, Tensor* device_tensor) {
  const std::string what = absl::StrCat("Copy to ", name());
  CLAB_RETURN_IF_ERROR(CheckCopyable(host, what));
  if (!host.OnHost()) return errors::InvalidArgument(what, ": the source is not in host memory");
  if (!SameShapeAndType(*device_tensor, host) || device_tensor->allocator() != allocator_) {
    try {
      *device_tensor = Tensor(host.dtype(), host.shape(), allocator_);
    } catch (const std::bad_alloc&) {
      return errors::ResourceExhausted(what, ": out of GPU memory for a tensor of shape ", host.shape().DebugString());
    }
  }
  const size_t bytes = static_cast<size_t>(host.NumElements()) * DataTypeSize(host.dtype());
  if (bytes == 0) return OkStatus();
  CLAB_RETURN_IF_ERROR(Activate());
  // From pageable memory the call returns once the source has been staged, so the caller
  // may free or change `host` right away; the stream orders the copy before later kernels.
  return FromCuda(cudaMemcpyAsync(device_tensor->raw_data(), host.raw_data(), bytes, cudaMemcpyHostToDevice, stream_),
                  absl::StrCat(what, " (", bytes, " bytes)"));
}

Status GpuDevice::CopyDeviceToHost(const Tensor& device_tensor, Tensor* host) {
  const std::string what = absl::StrCat("Copy from ", name());
  CLAB_RETURN_IF_ERROR(CheckCopyable(device_tensor, what));
  if (device_tensor.OnHost()) return errors::InvalidArgument(what, ": the source is not in GPU memory");
  if (!SameShapeAndType(*host, device_tensor) || !host->OnHost())
    *host = Tensor(device_tensor.dtype(), device_tensor.shape());
  const size_t bytes = static_cast<size_t>(device_tensor.NumElements()) * DataTypeSize(device_tensor.dtype());
  if (bytes == 0) return OkStatus();
  CLAB_RETURN_IF_ERROR(Activate());
  CLAB_RETURN_IF_ERROR(
      FromCuda(cudaMemcpyAsync(host->raw_data(), device_tensor.raw_data(), bytes, cudaMemcpyDeviceToHost, stream_),
               absl::StrCat(what, " (", bytes, " bytes)")));
  // The host may read the result as soon as this returns; kernel failures queued earlier
  // on the stream also surface here, where the caller can report them.
  return FromCuda(cudaStreamSynchronize(stream_), what);
}

Status GpuDevice::Sync() {
  CLAB_RETURN_IF_ERROR(Activate());
  return FromCuda(cudaStreamSynchronize(stream_), absl::StrCat("Synchronizing ", name()));
}

}  // namespace clab::gpu
